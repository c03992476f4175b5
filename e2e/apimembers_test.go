package e2e_test

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

// unsupportedMembers are the members of the pinned SDK's shapes that the
// server's request and response types (emulator/api) do not carry: the
// server ignores them in a request and never sends them. The key is
// "<SDK package>.<SDK shape>.<member>"; the value says why. Each must still
// be missing, so the set shrinks as members are added and cannot go stale;
// a member DynamoDB adds next fails TestAPIMembers until it is handled or
// listed here with its reason.
var unsupportedMembers = map[string]string{
	// Vector indexes and SearchVectors (issue 34).
	// Multi-Region strong consistency's witnesses and multi-account global
	// tables are not emulated (docs/differences.md, "Global tables").
	"dynamodb.TableDescription.GlobalTableWitnesses":                 "MRSC witnesses: not emulated",
	"dynamodb.CreateTableInput.GlobalTableSourceArn":                 "multi-account global tables: not emulated",
	"dynamodb.CreateTableInput.GlobalTableSettingsReplicationMode":   "multi-account global tables: not emulated",
	"dynamodb.UpdateTableInput.GlobalTableSettingsReplicationMode":   "multi-account global tables: not emulated",
	"dynamodb.TableDescription.GlobalTableSettingsReplicationMode":   "multi-account global tables: not emulated",
	"dynamodb.ReplicaDescription.GlobalTableSettingsReplicationMode": "multi-account global tables: not emulated",
	// Replica details DescribeTable does not report (docs/differences.md,
	// "Global tables").
	"dynamodb.ReplicaDescription.ReplicaInaccessibleDateTime":        "replica KMS key loss: not emulated",
	"dynamodb.ReplicaDescription.ReplicaStatusDescription":           "replica status detail: not reported",
	"dynamodb.ReplicaDescription.ReplicaStatusPercentProgress":       "replica creation progress: not reported",
	"dynamodb.ReplicaDescription.WarmThroughput":                     "replicas' warm throughput: not reported",
	"dynamodb.ReplicaGlobalSecondaryIndexDescription.WarmThroughput": "replicas' warm throughput: not reported",
	// KMS keys are not resolved (docs/differences.md): a key never
	// becomes inaccessible, so a table is never archived.
	"dynamodb.SSEDescription.InaccessibleEncryptionDateTime": "inaccessible KMS keys: not emulated",
	"dynamodb.TableDescription.ArchivalSummary":              "archival after KMS key loss: not emulated",
	// PartiQL pages carry NextToken only (docs/differences.md, "PartiQL").
	"dynamodb.ExecuteStatementOutput.LastEvaluatedKey": "PartiQL pages: NextToken only",
}

// TestAPIMembers walks every member of every operation's input and output
// shape in the pinned SDK (the DynamoDB and DynamoDB Streams clients, and
// the structures they reach) beside the server's own Go types for that
// operation (the engine method wire dispatches to, JSON tags giving the
// wire names), and fails for each SDK member the server's type lacks,
// unless unsupportedMembers lists it. Reflection only: no server runs.
func TestAPIMembers(t *testing.T) {
	engineOps := engineOperations()
	w := &memberWalk{seen: map[[2]reflect.Type]bool{}, missing: map[string]string{}}
	clients := []reflect.Type{reflect.TypeFor[*dynamodb.Client](), reflect.TypeFor[*dynamodbstreams.Client]()}
	n := 0
	for _, ct := range clients {
		for _, op := range clientOperations(ct) {
			n++
			if pendingOperations[op.name] {
				continue // not served at all: TestAPIWalk keeps that list
			}
			m, ok := engineOps[op.name]
			if !ok {
				t.Errorf("%s: the engine has no method for it (and it is not in pendingOperations)", op.name)
				continue
			}
			w.compare(op.name+" input", op.input, m.input)
			w.compare(op.name+" output", op.output, m.output)
		}
	}
	if n < 55 {
		t.Fatalf("found %d SDK operations; the reflection no longer matches the SDK", n)
	}
	if w.members < 500 {
		t.Fatalf("compared %d members; the reflection no longer matches the SDK or the server's types", w.members)
	}
	t.Logf("%d operations, %d SDK members compared, %d missing", n, w.members, len(w.missing))
	keys := make([]string, 0, len(w.missing))
	for k := range w.missing {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := unsupportedMembers[k]; !ok {
			t.Errorf("%s (at %s) is in the SDK's model but not in the server's type: handle it, or list it in unsupportedMembers with the reason", k, w.missing[k])
		}
	}
	for k := range unsupportedMembers {
		if _, ok := w.missing[k]; !ok {
			t.Errorf("unsupportedMembers lists %s, which the server's type now carries (or the SDK no longer has): remove it", k)
		}
	}
}

type clientOperation struct {
	name          string
	input, output reflect.Type // struct types, not pointers
}

// clientOperations lists the methods of an SDK client shaped
// Op(context.Context, *OpInput, ...func(*Options)) (*OpOutput, error).
func clientOperations(ct reflect.Type) []clientOperation {
	ctxType := reflect.TypeFor[context.Context]()
	var out []clientOperation
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		ft := m.Type // receiver first
		if ft.NumIn() != 4 || !ft.IsVariadic() || ft.In(1) != ctxType || ft.NumOut() != 2 {
			continue
		}
		in, o := ft.In(2), ft.Out(0)
		if in.Kind() != reflect.Pointer || in.Elem().Name() != m.Name+"Input" ||
			o.Kind() != reflect.Pointer || o.Elem().Name() != m.Name+"Output" {
			continue
		}
		out = append(out, clientOperation{name: m.Name, input: in.Elem(), output: o.Elem()})
	}
	return out
}

// engineOperations maps an operation name to the input and output types
// of the engine method wire's dispatch table calls for it: Op, or OpStored
// where there is one (the same types, the item kept in stored form).
func engineOperations() map[string]clientOperation {
	et := reflect.TypeFor[*emulator.Engine]()
	ctxType := reflect.TypeFor[context.Context]()
	nsType := reflect.TypeFor[api.Namespace]()
	out := map[string]clientOperation{}
	for i := range et.NumMethod() {
		m := et.Method(i)
		ft := m.Type
		if ft.NumIn() != 4 || ft.In(1) != ctxType || ft.In(2) != nsType || ft.NumOut() != 2 ||
			ft.In(3).Kind() != reflect.Pointer || ft.Out(0).Kind() != reflect.Pointer {
			continue
		}
		name, stored := strings.CutSuffix(m.Name, "Stored")
		if _, ok := out[name]; ok && !stored {
			continue
		}
		out[name] = clientOperation{name: name, input: ft.In(3).Elem(), output: ft.Out(0).Elem()}
	}
	return out
}

// memberWalk compares SDK shapes with the server's types, each pair once.
type memberWalk struct {
	seen    map[[2]reflect.Type]bool
	missing map[string]string // "<pkg>.<shape>.<member>" → the first path it was seen at
	members int               // SDK members compared
}

const sdkServicePrefix = "github.com/aws/aws-sdk-go-v2/service/"

// elem strips pointers, slices and maps (to their values): a member's
// members are those of its element type.
func elem(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
}

// sdkShape says whether t is a structure of the SDK's model (not time.Time
// or a document, which are leaves), and the service it belongs to.
func sdkShape(t reflect.Type) (service string, ok bool) {
	if t.Kind() != reflect.Struct {
		return "", false
	}
	rest, ok := strings.CutPrefix(t.PkgPath(), sdkServicePrefix)
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(rest, "/types"), true
}

func (w *memberWalk) compare(path string, sdk, srv reflect.Type) {
	sdk, srv = elem(sdk), elem(srv)
	service, ok := sdkShape(sdk)
	// A union (an interface such as AttributeValue, which the server reads
	// and writes with its own codec, av.Value) or a scalar is a leaf.
	if !ok {
		return
	}
	if srv.Kind() != reflect.Struct {
		// A structure the server keeps as a scalar or a map reads none of
		// its members.
		key := service + "." + sdk.Name()
		if _, dup := w.missing[key]; !dup {
			w.missing[key] = path + " (the server's type is " + srv.String() + ")"
		}
		return
	}
	if w.seen[[2]reflect.Type{sdk, srv}] {
		return
	}
	w.seen[[2]reflect.Type{sdk, srv}] = true
	fields := wireFields(srv)
	for i := range sdk.NumField() {
		f := sdk.Field(i)
		if !f.IsExported() || f.Name == "ResultMetadata" {
			continue // the SDK's own bookkeeping, not a member
		}
		w.members++
		// The SDK's Go name is the member's name with an upper-case first
		// letter (Streams' Record has eventID, awsRegion…).
		st, ok := fields[strings.ToLower(f.Name)]
		if !ok {
			key := service + "." + sdk.Name() + "." + f.Name
			if _, dup := w.missing[key]; !dup {
				w.missing[key] = path + "." + f.Name
			}
			continue
		}
		w.compare(path+"."+f.Name, f.Type, st)
	}
}

// wireFields lists t's members as encoding/json sees them (lower-cased
// wire name → type): JSON tag names, untagged embedded structs flattened,
// "-" and unexported fields left out.
func wireFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && elem(f.Type).Kind() == reflect.Struct {
			for k, v := range wireFields(elem(f.Type)) {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = f.Type
	}
	return out
}
