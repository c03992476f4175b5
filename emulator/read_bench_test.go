package emulator

import (
	"context"
	"strconv"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// The read benchmarks run loadgen's query and batchget shapes on the
// engine alone: a partition of 10 items of 1 KB, and 100 keys over ten
// partitions. "decoded" is the public method (every item decoded into an
// av.Item), "stored" the *Stored method the wire serves (whole items kept
// in their stored form).

func readBenchEngine(b *testing.B) *Engine {
	e := plainEngine(b)
	name := "plain"
	for p := range 10 {
		for s := range 10 {
			if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name,
				Item: av.Item{"pk": avS("p" + strconv.Itoa(p)), "sk": avN(strconv.Itoa(s)), "payload": benchPayload()}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return e
}

func BenchmarkEngineQuery10(b *testing.B) {
	e := readBenchEngine(b)
	name, kce := "plain", "pk = :p"
	in := &api.QueryInput{TableName: &name, KeyConditionExpression: &kce, ExpressionAttributeValues: map[string]av.Value{":p": avS("p3")}}
	for _, m := range []struct {
		name string
		f    func(*Engine, context.Context, api.Namespace, *api.QueryInput) (*api.ReadManyOutput, error)
	}{{"decoded", (*Engine).Query}, {"stored", (*Engine).QueryStored}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out, err := m.f(e, context.Background(), testNS, in); err != nil || out.Count != 10 {
					b.Fatal(err, out)
				}
			}
		})
	}
}

func BenchmarkEngineScan100(b *testing.B) {
	e := readBenchEngine(b)
	name := "plain"
	in := &api.ScanInput{TableName: &name}
	for _, m := range []struct {
		name string
		f    func(*Engine, context.Context, api.Namespace, *api.ScanInput) (*api.ReadManyOutput, error)
	}{{"decoded", (*Engine).Scan}, {"stored", (*Engine).ScanStored}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out, err := m.f(e, context.Background(), testNS, in); err != nil || out.Count != 100 {
					b.Fatal(err, out)
				}
			}
		})
	}
}

func BenchmarkEngineBatchGet100(b *testing.B) {
	e := readBenchEngine(b)
	keys := make([]av.Item, 0, 100)
	for i := range 100 {
		keys = append(keys, av.Item{"pk": avS("p" + strconv.Itoa(i/10)), "sk": avN(strconv.Itoa(i % 10))})
	}
	in := &api.BatchGetItemInput{RequestItems: map[string]api.KeysAndAttributes{"plain": {Keys: keys}}}
	for _, m := range []struct {
		name string
		f    func(*Engine, context.Context, api.Namespace, *api.BatchGetItemInput) (*api.BatchGetItemOutput, error)
	}{{"decoded", (*Engine).BatchGetItem}, {"stored", (*Engine).BatchGetItemStored}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.f(e, context.Background(), testNS, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBatchGetDuplicateOrder: keys are checked in order, each for its
// schema and then against the keys before it, so a duplicate before the
// first bad key is reported and a bad key before a duplicate is.
func TestBatchGetDuplicateOrder(t *testing.T) {
	e := plainEngine(t)
	key := func(pk string) av.Item { return av.Item{"pk": avS(pk), "sk": avN("1")} }
	badKey := av.Item{"pk": avS("x")}
	for _, tc := range []struct {
		keys []av.Item
		want string
	}{
		{[]av.Item{key("a"), key("b")}, ""},
		{[]av.Item{key("a"), key("a"), badKey}, msgBatchDuplicates},
		{[]av.Item{key("a"), badKey, key("a")}, msgKeyMismatch},
		{[]av.Item{key("b"), key("a"), key("c"), key("a")}, msgBatchDuplicates},
	} {
		_, err := e.BatchGetItemStored(context.Background(), testNS, &api.BatchGetItemInput{RequestItems: map[string]api.KeysAndAttributes{"plain": {Keys: tc.keys}}})
		got := ""
		if err != nil {
			got = err.(*api.Error).Message
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.keys, got, tc.want)
		}
	}
}
