package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/rs/zerolog"
)

type logLines struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns the JSON lines logged since the last call.
func (l *logLines) take(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(&l.b)
	for sc.Scan() {
		m := map[string]any{}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	l.b.Reset()
	return out
}

func TestRequestLog(t *testing.T) {
	lines := &logLines{}
	log := zerolog.New(lines).Level(zerolog.InfoLevel)
	hd := newTestHandler(t, Options{Logger: &log})
	h := hd.routes()
	call := func(op, body string) response {
		return do(h, http.MethodPost, "DynamoDB_20120810."+op, contentTypeJSON10, body)
	}
	one := func(want map[string]any) map[string]any {
		t.Helper()
		got := lines.take(t)
		if len(got) != 1 {
			t.Fatalf("want one log line, got %d: %v", len(got), got)
		}
		for k, v := range want {
			if got[0][k] != v {
				t.Errorf("log %s = %v, want %v (line %v)", k, got[0][k], v, got[0])
			}
		}
		if _, ok := got[0]["ms"].(float64); !ok {
			t.Errorf("no duration in %v", got[0])
		}
		return got[0]
	}

	call("CreateTable", `{"TableName":"Logged","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`)
	one(map[string]any{"level": "info", "op": "CreateTable", "table": "Logged", "status": 200.0, "message": "request"})

	// Capacity is logged although the request did not ask for it.
	call("PutItem", `{"TableName":"Logged","Item":{"pk":{"S":"a"}}}`)
	one(map[string]any{"level": "info", "op": "PutItem", "table": "Logged", "wcu": 1.0, "status": 200.0})
	call("GetItem", `{"TableName":"Logged","Key":{"pk":{"S":"a"}},"ConsistentRead":true}`)
	one(map[string]any{"level": "info", "op": "GetItem", "table": "Logged", "rcu": 1.0})

	call("GetItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}}}`)
	one(map[string]any{"level": "info", "op": "GetItem", "table": "Nope", "status": 400.0, "error": "ResourceNotFoundException"})

	// A throttled write is a warning naming the reason and the resource.
	var throttled map[string]any
	for i := 0; i < 50 && throttled == nil; i++ {
		r := call("PutItem", `{"TableName":"Logged","Item":{"pk":{"S":"b"},"pad":{"S":"`+strings.Repeat("x", 3000)+`"}}}`)
		l := lines.take(t)
		if r.status == 400 && strings.Contains(r.body, "ThroughputExceeded") {
			throttled = l[0]
		}
	}
	if throttled == nil {
		t.Fatal("no write was throttled on a 1 WCU table")
	}
	if throttled["level"] != "warn" || throttled["error"] != "ProvisionedThroughputExceededException" ||
		throttled["reason"] == nil || !strings.Contains(throttled["resource"].(string), "table/Logged") ||
		!strings.HasPrefix(throttled["message"].(string), "throttled: ") {
		t.Errorf("throttled request log: %v", throttled)
	}

	// An operation of the DynamoDB API that ExtendDB lacks is a warning
	// naming it and pointing at docs/differences.md.
	missing := ""
	for _, op := range strings.Fields(dynamoDBAPIOperations) {
		if hd.dynamo[op] == nil {
			missing = op
			break
		}
	}
	if missing == "" {
		t.Log("every DynamoDB operation is implemented; nothing to warn about")
	} else {
		r := call(missing, `{}`)
		if !strings.Contains(r.body, "ExtendDB does not implement DynamoDB_20120810."+missing) {
			t.Errorf("%s: %s", missing, r.body)
		}
		l := one(map[string]any{"level": "warn", "op": missing, "error": "UnknownOperationException"})
		if msg, _ := l["message"].(string); !strings.Contains(msg, missing) || !strings.Contains(msg, "docs/differences.md") {
			t.Errorf("unimplemented operation log: %v", l)
		}
	}
	call("NoSuchOp", `{}`)
	one(map[string]any{"level": "warn", "op": "NoSuchOp", "message": "Unknown operation: DynamoDB_20120810.NoSuchOp"})
}

func TestIsAPIOperation(t *testing.T) {
	for target, want := range map[string]bool{
		"DynamoDB_20120810.CreateBackup":      true,
		"DynamoDB_20120810.ListTables":        true,
		"DynamoDBStreams_20120810.GetRecords": true,
		"DynamoDB_20120810.GetRecords":        false,
		"DynamoDB_20120810.Create":            false,
		"DynamoDB_20120810.":                  false,
		"DynamoDB_20120810.ListTables Scan":   false,
		"Other.ListTables":                    false,
	} {
		if got := isAPIOperation(target); got != want {
			t.Errorf("isAPIOperation(%q) = %v", target, got)
		}
	}
}

// BenchmarkGetItemLogged measures a GetItem through the handler with the
// info request line written (JSON, discarded) against a disabled logger,
// the cost of the per-request log line.
func BenchmarkGetItemLogged(b *testing.B) {
	for _, logged := range []bool{false, true} {
		name := "nolog"
		if logged {
			name = "info"
		}
		b.Run(name, func(b *testing.B) {
			opts := Options{}
			if logged {
				l := zerolog.New(io.Discard).Level(zerolog.InfoLevel)
				opts.Logger = &l
			}
			st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
			if err != nil {
				b.Fatal(err)
			}
			// Throttling off: the loop outruns one partition key's 3,000 RCU.
			eng, err := emulator.New(emulator.Options{Store: st, Throttle: emulator.ThrottleOptions{Off: true}})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = eng.Close(); _ = st.Close() })
			h := newHandler(eng, opts).routes()
			if r := do(h, http.MethodPost, "DynamoDB_20120810.CreateTable", contentTypeJSON10, `{"TableName":"Bench","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
				"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`); r.status != 200 {
				b.Fatal(r.body)
			}
			do(h, http.MethodPost, "DynamoDB_20120810.PutItem", contentTypeJSON10, `{"TableName":"Bench","Item":{"pk":{"S":"a"},"v":{"S":"x"}}}`)
			b.ReportAllocs()
			for b.Loop() {
				if r := do(h, http.MethodPost, "DynamoDB_20120810.GetItem", contentTypeJSON10, `{"TableName":"Bench","Key":{"pk":{"S":"a"}}}`); r.status != 200 {
					b.Fatal(r.body)
				}
			}
		})
	}
}
