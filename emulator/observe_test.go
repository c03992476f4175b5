package emulator

import (
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// recordingObserver keeps every event it is told.
type recordingObserver struct {
	mu        sync.Mutex
	consumed  []Consumption
	throttled []ThrottleEvent
	keys      []string
}

func (r *recordingObserver) Consumed(c Consumption) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.consumed = append(r.consumed, c)
	if v, ok := c.PartitionKey(); ok {
		r.keys = append(r.keys, v.S)
	}
}

func (r *recordingObserver) Throttled(t ThrottleEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.throttled = append(r.throttled, t)
}

// TestObserver: the observer hears each charge with the table's capacity
// and balance, each index's share, and each refusal with the reason the
// client is sent.
func TestObserver(t *testing.T) {
	rec := &recordingObserver{}
	te := newTestEngine(t, func(o *Options) { o.Observer = Observers(nil, rec) })
	in := &api.CreateTableInput{
		TableName: sp("obs"), AttributeDefinitions: attrs("pk", "S", "g", "S"),
		KeySchema: keys("pk", "HASH"), BillingMode: sp("PROVISIONED"), ProvisionedThroughput: pt(5, 1),
		GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{IndexName: sp("gsi"), KeySchema: keys("g", "HASH"),
			Projection: &api.Projection{ProjectionType: sp("ALL")}, ProvisionedThroughput: pt(5, 5)}},
	}
	te.mustCreate(nsA, in)
	put := func() error {
		_, err := te.PutItem(t.Context(), nsA, &api.PutItemInput{TableName: sp("obs"),
			Item: av.Item{"pk": thrS("hot"), "g": thrS("x")}})
		return err
	}
	if err := put(); err != nil {
		t.Fatal(err)
	}
	// The bucket started with one second of 1 WCU and was charged the
	// table's unit (balance 0; the index's unit is the index's); the clock
	// stands still, so the next write is refused.
	if err := put(); err == nil {
		t.Fatal("second write in the same instant was not throttled")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.consumed) != 2 {
		t.Fatalf("consumed events %+v, want table and index", rec.consumed)
	}
	tc, ic := rec.consumed[0], rec.consumed[1]
	if tc.Table != "obs" || tc.Index != "" || tc.Read || tc.Units != 1 || tc.Capacity != 1 || tc.Balance != 0 || tc.Namespace != nsA {
		t.Errorf("table event %+v", tc)
	}
	if ic.Index != "gsi" || ic.Units != 1 || ic.Capacity != 5 || ic.Balance != 4 {
		t.Errorf("index event %+v", ic)
	}
	if len(rec.keys) != 1 || rec.keys[0] != "hot" {
		t.Errorf("partition keys %q, want [hot]", rec.keys)
	}
	if len(rec.throttled) != 1 {
		t.Fatalf("throttle events %+v, want one", rec.throttled)
	}
	ev := rec.throttled[0]
	if ev.Table != "obs" || ev.Read || ev.Bucket != "table" || ev.Code != api.CodeProvisionedThroughputExceeded ||
		ev.Reason != ReasonTableWriteProvisionedThroughputExceeded {
		t.Errorf("throttle event %+v", ev)
	}
	if v, ok := ev.PartitionKey(); !ok || v.S != "hot" {
		t.Errorf("throttle key %v %v", v, ok)
	}
	st, err := te.TableThrottleStatus(nsA, "obs")
	if err != nil || st.WriteCapacity != 1 || st.ReadCapacity != 5 || st.WriteBalance != 0 {
		t.Errorf("status %+v %v", st, err)
	}
	if _, err := te.TableThrottleStatus(nsA, "nope"); err == nil {
		t.Error("status of a missing table: no error")
	}
	if got := te.Namespaces(); len(got) != 1 || got[0] != nsA {
		t.Errorf("Namespaces %v, want [%v]", got, nsA)
	}
}

// BenchmarkPutItemObserver: PutItem with no observer and with one that
// does nothing (the cost of the hooks themselves).
func BenchmarkPutItemObserver(b *testing.B) {
	for _, c := range []struct {
		name string
		o    Observer
	}{{"off", nil}, {"noop", noopObserver{}}} {
		b.Run(c.name, func(b *testing.B) {
			te := newTestEngine(b, func(o *Options) { o.Observer = c.o; o.Throttle.Off = true })
			te.mustCreate(nsA, simpleTable("bench"))
			in := &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": thrS("k")}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := te.PutItem(b.Context(), nsA, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type noopObserver struct{}

func (noopObserver) Consumed(Consumption)    {}
func (noopObserver) Throttled(ThrottleEvent) {}

// BenchmarkPutItemGSIs: PutItem of an item every one of three GSIs holds,
// with the throttle off and on, so the difference is what the table's and
// the indexes' Admit and Charge add to a whole write.
func BenchmarkPutItemGSIs(b *testing.B) {
	for _, c := range []struct {
		name string
		off  bool
	}{{"throttle-off", true}, {"throttle-on", false}} {
		b.Run(c.name, func(b *testing.B) {
			te := newTestEngine(b, func(o *Options) { o.Throttle.Off = c.off })
			in := &api.CreateTableInput{
				TableName: sp("bench"), AttributeDefinitions: attrs("pk", "S", "a", "S", "b", "S", "c", "S"),
				KeySchema: keys("pk", "HASH"), BillingMode: sp("PAY_PER_REQUEST"),
			}
			for _, g := range []string{"a", "b", "c"} {
				in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, api.GlobalSecondaryIndex{IndexName: sp("by" + g),
					KeySchema: keys(g, "HASH"), Projection: &api.Projection{ProjectionType: sp("KEYS_ONLY")}})
			}
			te.mustCreate(nsA, in)
			put := &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": thrS("k"), "a": thrS("1"), "b": thrS("2"), "c": thrS("3")}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// A new index key each time: every GSI entry moves (a delete
				// and a put on each index).
				v := thrS(string(rune('a' + i%26)))
				put.Item["a"], put.Item["b"], put.Item["c"] = v, v, v
				// 1 ms a write keeps every bucket ahead of its refill, so
				// nothing is refused and every write pays for both steps.
				te.clock.Add(time.Millisecond)
				if _, err := te.PutItem(b.Context(), nsA, put); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
