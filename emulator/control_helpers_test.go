package emulator

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/pebblestore"
)

// fakeClock is a Clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 2, 11, 30, 0, 123000000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testEngine is an engine over an in-memory Pebble store that can be
// restarted on the same data.
type testEngine struct {
	*Engine
	t     testing.TB
	fs    vfs.FS
	store *pebblestore.Store
	opts  Options
	clock *fakeClock
}

var (
	nsA = api.Namespace{Account: "111122223333", Region: "us-east-1"}
	nsB = api.Namespace{Account: "111122223333", Region: "eu-west-1"}
	nsC = api.Namespace{Account: "444455556666", Region: "us-east-1"}
)

func newTestEngine(t testing.TB, mod ...func(*Options)) *testEngine {
	t.Helper()
	te := &testEngine{t: t, fs: vfs.NewMem(), clock: newFakeClock()}
	te.opts = Options{Clock: te.clock}
	for _, m := range mod {
		m(&te.opts)
	}
	te.open()
	t.Cleanup(func() {
		_ = te.Engine.Close()
		_ = te.store.Close()
	})
	return te
}

func (te *testEngine) open() {
	te.t.Helper()
	st, err := pebblestore.Open(pebblestore.Options{Dir: "/db", FS: te.fs})
	if err != nil {
		te.t.Fatal(err)
	}
	o := te.opts
	o.Store = st
	e, err := New(o)
	if err != nil {
		te.t.Fatal(err)
	}
	te.Engine, te.store = e, st
}

// restart closes and reopens the engine and store on the same data.
func (te *testEngine) restart() {
	te.t.Helper()
	if err := te.Engine.Close(); err != nil {
		te.t.Fatal(err)
	}
	if err := te.store.Close(); err != nil {
		te.t.Fatal(err)
	}
	te.open()
}

func sp(v string) *string { return &v }
func i64(v int64) *int64  { return &v }
func bl(v bool) *bool     { return &v }

func attrs(kv ...string) []api.AttributeDefinition {
	out := []api.AttributeDefinition{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, api.AttributeDefinition{AttributeName: sp(kv[i]), AttributeType: sp(kv[i+1])})
	}
	return out
}

func keys(kv ...string) []api.KeySchemaElement {
	var out []api.KeySchemaElement
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, api.KeySchemaElement{AttributeName: sp(kv[i]), KeyType: sp(kv[i+1])})
	}
	return out
}

func pt(r, w int64) *api.ProvisionedThroughput {
	return &api.ProvisionedThroughput{ReadCapacityUnits: i64(r), WriteCapacityUnits: i64(w)}
}

// simpleTable is a valid on-demand hash-only table request.
func simpleTable(name string) *api.CreateTableInput {
	return &api.CreateTableInput{
		TableName:            sp(name),
		AttributeDefinitions: attrs("pk", "S"),
		KeySchema:            keys("pk", "HASH"),
		BillingMode:          sp("PAY_PER_REQUEST"),
	}
}

func (te *testEngine) mustCreate(ns api.Namespace, in *api.CreateTableInput) *api.TableDescription {
	te.t.Helper()
	out, err := te.CreateTable(context.Background(), ns, in)
	if err != nil {
		te.t.Fatalf("CreateTable: %v", err)
	}
	return out.TableDescription
}

func (te *testEngine) describeT(ns api.Namespace, name string) *api.TableDescription {
	te.t.Helper()
	out, err := te.DescribeTable(context.Background(), ns, &api.DescribeTableInput{TableName: sp(name)})
	if err != nil {
		te.t.Fatalf("DescribeTable: %v", err)
	}
	return out.Table
}

// wantErr checks err is an *Error with code and message.
func wantErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var de *api.Error
	if !errors.As(err, &de) {
		t.Fatalf("got error %v, want %s: %s", err, code, msg)
	}
	if de.Code != code || de.Message != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", de.Code, de.Message, code, msg)
	}
}

func cpAsError(err error, target **api.Error) bool { return errors.As(err, target) }
