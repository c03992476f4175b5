package spec

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/pebblestore"
)

// TestBlame feeds each broken table to the real engine and checks that
// Blame finds, in the engine's own message, the member that is wrong: the
// classification follows the messages the engine produces, not copies of
// them.
func TestBlame(t *testing.T) {
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	eng, err := emulator.New(emulator.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = eng.Close() }()

	def := func(names ...string) []api.AttributeDefinition {
		var out []api.AttributeDefinition
		for _, n := range names {
			out = append(out, api.AttributeDefinition{AttributeName: Str(n), AttributeType: Str("S")})
		}
		return out
	}
	key := func(kv ...string) []api.KeySchemaElement {
		var out []api.KeySchemaElement
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, api.KeySchemaElement{AttributeName: Str(kv[i]), KeyType: Str(kv[i+1])})
		}
		return out
	}
	all := &api.Projection{ProjectionType: Str("ALL")}
	pt := func(r, w int64) *api.ProvisionedThroughput {
		return &api.ProvisionedThroughput{ReadCapacityUnits: Int(r), WriteCapacityUnits: Int(w)}
	}
	gsi := func(name string, ks []api.KeySchemaElement, p *api.Projection) api.GlobalSecondaryIndex {
		return api.GlobalSecondaryIndex{IndexName: Str(name), KeySchema: ks, Projection: p}
	}
	onDemand := func(in api.CreateTableInput) api.CreateTableInput {
		in.BillingMode = Str("PAY_PER_REQUEST")
		return in
	}
	base := api.CreateTableInput{TableName: Str("blamed"), AttributeDefinitions: def("pk"), KeySchema: key("pk", "HASH")}
	with := func(f func(*api.CreateTableInput)) api.CreateTableInput {
		in := onDemand(base)
		in.AttributeDefinitions = append([]api.AttributeDefinition(nil), in.AttributeDefinitions...)
		f(&in)
		return in
	}
	cases := []struct {
		name string
		in   api.CreateTableInput
		want []string
	}{
		{"hash key not defined", with(func(in *api.CreateTableInput) { in.AttributeDefinitions = def("other") }),
			[]string{"KeySchema[0]"}},
		{"range key not defined", with(func(in *api.CreateTableInput) { in.KeySchema = key("pk", "HASH", "sk", "RANGE") }),
			[]string{"KeySchema[1]"}},
		{"GSI hash key not defined", with(func(in *api.CreateTableInput) {
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("pk", "HASH"), all), gsi("gsi1", key("gk", "HASH"), all)}
		}), []string{"GlobalSecondaryIndexes[1].KeySchema[0]"}},
		{"read capacity 0", func() api.CreateTableInput {
			in := base
			in.BillingMode, in.ProvisionedThroughput = Str("PROVISIONED"), pt(0, 5)
			return in
		}(), []string{"ProvisionedThroughput.ReadCapacityUnits"}},
		{"read capacity above the maximum", func() api.CreateTableInput {
			in := base
			in.ProvisionedThroughput = pt(5, 1<<50)
			return in
		}(), []string{"ProvisionedThroughput.WriteCapacityUnits"}},
		{"PROVISIONED without throughput", with(func(in *api.CreateTableInput) { in.BillingMode = Str("PROVISIONED") }),
			[]string{"ProvisionedThroughput", "BillingMode"}},
		{"unknown billing mode", with(func(in *api.CreateTableInput) { in.BillingMode = Str("PAY_PER_REQUST") }),
			[]string{"BillingMode"}},
		{"LSI on a hash-only table", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "lk")
			in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{{IndexName: Str("lsi0"), KeySchema: key("pk", "HASH", "lk", "RANGE"), Projection: all}}
		}), []string{"LocalSecondaryIndexes[0]", "KeySchema"}},
		{"LSI with another hash key", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "sk", "lk")
			in.KeySchema = key("pk", "HASH", "sk", "RANGE")
			in.LocalSecondaryIndexes = []api.LocalSecondaryIndex{{IndexName: Str("lsi0"), KeySchema: key("lk", "HASH", "sk", "RANGE"), Projection: all}}
		}), []string{"LocalSecondaryIndexes[0].KeySchema[0]"}},
		{"unused attribute definition", with(func(in *api.CreateTableInput) { in.AttributeDefinitions = def("pk", "extra") }),
			[]string{"AttributeDefinitions[1]"}},
		{"duplicate attribute definition", with(func(in *api.CreateTableInput) { in.AttributeDefinitions = def("pk", "pk") }),
			[]string{"AttributeDefinitions[1]"}},
		{"INCLUDE without NonKeyAttributes", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "gk")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("gk", "HASH"), &api.Projection{ProjectionType: Str("INCLUDE")})}
		}), []string{"GlobalSecondaryIndexes[0].Projection.ProjectionType"}},
		{"KEYS_ONLY with NonKeyAttributes", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "gk")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("gk", "HASH"), &api.Projection{ProjectionType: Str("KEYS_ONLY"), NonKeyAttributes: []string{"a"}})}
		}), []string{"GlobalSecondaryIndexes[0].Projection.NonKeyAttributes"}},
		{"unknown projection type", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "gk")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("gk", "HASH"), &api.Projection{ProjectionType: Str("SOME")})}
		}), []string{"GlobalSecondaryIndexes[0].Projection.ProjectionType"}},
		{"GSI without throughput on PROVISIONED", func() api.CreateTableInput {
			in := base
			in.AttributeDefinitions = def("pk", "gk")
			in.ProvisionedThroughput = pt(1, 1)
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("gk", "HASH"), all)}
			return in
		}(), []string{"GlobalSecondaryIndexes[0].ProvisionedThroughput"}},
		{"GSI read capacity 0", func() api.CreateTableInput {
			in := base
			in.AttributeDefinitions = def("pk", "gk")
			in.ProvisionedThroughput = pt(1, 1)
			g := gsi("gsi0", key("gk", "HASH"), all)
			g.ProvisionedThroughput = pt(0, 1)
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{g}
			return in
		}(), []string{"GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits"}},
		{"duplicate index name", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "gk")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("gk", "HASH"), all), gsi("gsi0", key("gk", "HASH"), all)}
		}), []string{"GlobalSecondaryIndexes[1].IndexName"}},
		{"GSI range key first", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "gk")
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{gsi("gsi0", key("gk", "RANGE"), all)}
		}), []string{"GlobalSecondaryIndexes[0].KeySchema[0]"}},
		{"GSI cap below 1", with(func(in *api.CreateTableInput) {
			in.AttributeDefinitions = def("pk", "gk")
			g := gsi("gsi0", key("gk", "HASH"), all)
			g.OnDemandThroughput = &api.OnDemandThroughput{MaxWriteRequestUnits: Int(0)}
			in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{g}
		}), []string{"GlobalSecondaryIndexes[0].OnDemandThroughput.MaxWriteRequestUnits"}},
		{"stream without view type", with(func(in *api.CreateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: Bool(true)}
		}), []string{"StreamSpecification.StreamViewType", "StreamSpecification"}},
		{"table class", with(func(in *api.CreateTableInput) { in.TableClass = Str("COLD") }), []string{"TableClass"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			_, err := eng.CreateTable(context.Background(), api.Namespace{Account: DefaultAccount, Region: DefaultRegion}, &in)
			var e *api.Error
			if !errors.As(err, &e) {
				t.Fatalf("CreateTable accepted the table or failed otherwise: %v", err)
			}
			if got := Blame(&tc.in, e.Message); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Blame(%q) = %q, want %q", e.Message, got, tc.want)
			}
		})
	}
}

func TestPosOf(t *testing.T) {
	s := TableSpec{Pos: Pos{File: "f", Line: 1}}
	s.At("GlobalSecondaryIndexes[1]", Pos{File: "f", Line: 9})
	s.At("BillingMode", Pos{File: "f", Line: 3})
	s.At("Ignored", Pos{})
	for _, tc := range []struct {
		paths []string
		line  int
	}{
		{[]string{"GlobalSecondaryIndexes[1].Projection.ProjectionType"}, 9},
		{[]string{"ProvisionedThroughput", "BillingMode"}, 3},
		{[]string{"GlobalSecondaryIndexes[0].KeySchema[0]"}, 1},
		{[]string{"Ignored"}, 1},
		{nil, 1},
	} {
		if got := s.PosOf(tc.paths...); got.Line != tc.line {
			t.Errorf("PosOf(%q) = %v, want line %d", tc.paths, got, tc.line)
		}
	}
}

func TestMemberPath(t *testing.T) {
	for in, want := range map[string]string{
		"provisionedThroughput.readCapacityUnits":                   "ProvisionedThroughput.ReadCapacityUnits",
		"globalSecondaryIndexes.2.member.projection.projectionType": "GlobalSecondaryIndexes[1].Projection.ProjectionType",
		"sSESpecification.sSEType":                                  "SSESpecification.SSEType",
		"billingMode":                                               "BillingMode",
	} {
		if got := memberPath(in); got != want {
			t.Errorf("memberPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzBlame: any message, about any declaration, is classified without a
// panic.
func FuzzBlame(f *testing.F) {
	f.Add("1 validation error detected: Value '0' at 'globalSecondaryIndexes.1.member.provisionedThroughput.readCapacityUnits' failed to satisfy constraint: x")
	f.Add("One or more parameter values were invalid: Duplicate index name: gsi0")
	f.Add("One or more parameter values were invalid: Requested MaxReadRequestUnits for OnDemandThroughput for index : gsi0 is outside of valid range")
	f.Add("Value x at '..1.member.' failed to satisfy constraint")
	in := api.CreateTableInput{
		KeySchema:              []api.KeySchemaElement{{AttributeName: Str("pk")}, {}},
		AttributeDefinitions:   []api.AttributeDefinition{{}},
		GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{IndexName: Str("gsi0"), Projection: &api.Projection{}}, {}},
		LocalSecondaryIndexes:  []api.LocalSecondaryIndex{{}},
	}
	f.Fuzz(func(t *testing.T, msg string) {
		Blame(&in, msg)
		Blame(&api.CreateTableInput{}, msg)
	})
}
