package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
)

// itemEngine is an engine over an in-memory Pebble store with one table
// "t" (pk S, sk N) with a KEYS_ONLY GSI "g" on gk S and an INCLUDE GSI "h"
// on hk N projecting x.
func itemEngine(t testing.TB) (*Engine, *tableMeta) {
	t.Helper()
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	// Throttling off: benchmarks and races hammer one key on purpose.
	e, err := New(Options{Store: st, Throttle: ThrottleOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(); _ = st.Close() })
	var in api.CreateTableInput
	if err := json.Unmarshal([]byte(`{
		"TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},
			{"AttributeName":"gk","AttributeType":"S"},{"AttributeName":"hk","AttributeType":"N"}],
		"KeySchema": [{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"GlobalSecondaryIndexes": [
			{"IndexName":"gix","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"hix","KeySchema":[{"AttributeName":"hk","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]}}
		]}`), &in); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateTable(context.Background(), testNS, &in); err != nil {
		t.Fatal(err)
	}
	tm, err := e.table(testNS, "tbl")
	if err != nil {
		t.Fatal(err)
	}
	return e, tm
}

var testNS = api.Namespace{Account: "123456789012", Region: "us-east-1"}

func avS(v string) av.Value { return av.Value{Type: av.TypeS, S: v} }
func avN(v string) av.Value { return av.Value{Type: av.TypeN, S: v} }

// indexEntries returns the entries of index name of table tm.
func indexEntries(t *testing.T, e *Engine, tm *tableMeta, name string) []av.Item {
	t.Helper()
	ix, ok := tm.index(name, e.now())
	if !ok {
		t.Fatalf("no index %s", name)
	}
	p := keyspace.IndexPrefix(tm.ID, ix.ID)
	it, err := e.opts.Store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []av.Item
	for ok := it.First(); ok; ok = it.Next() {
		item, err := av.DecodeItem(it.Value())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, item)
	}
	return out
}

func put(t testing.TB, e *Engine, item av.Item) {
	t.Helper()
	name := "tbl"
	if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: item}); err != nil {
		t.Fatal(err)
	}
}

func TestIndexEntriesFollowWrites(t *testing.T) {
	e, tm := itemEngine(t)
	ctx := context.Background()
	name := "tbl"

	// Not in either index: sparse.
	put(t, e, av.Item{"pk": avS("a"), "sk": avN("1"), "x": avS("x")})
	if g, h := indexEntries(t, e, tm, "gix"), indexEntries(t, e, tm, "hix"); len(g)+len(h) != 0 {
		t.Fatalf("item without index keys indexed: %v %v", g, h)
	}
	// In both; KEYS_ONLY keeps keys, INCLUDE keeps x too.
	put(t, e, av.Item{"pk": avS("a"), "sk": avN("1"), "gk": avS("G"), "hk": avN("5"), "x": avS("x"), "y": avS("y")})
	g, h := indexEntries(t, e, tm, "gix"), indexEntries(t, e, tm, "hix")
	if len(g) != 1 || len(g[0]) != 3 || g[0]["gk"].S != "G" {
		t.Fatalf("KEYS_ONLY entry = %v", g)
	}
	if len(h) != 1 || len(h[0]) != 4 || h[0]["x"].S != "x" {
		t.Fatalf("INCLUDE entry = %v", h)
	}
	// Index key change: the old entry goes, the new one comes.
	upd := "SET gk = :g REMOVE hk"
	if _, err := e.UpdateItem(ctx, testNS, &api.UpdateItemInput{TableName: &name, Key: av.Item{"pk": avS("a"), "sk": avN("1")},
		UpdateExpression: &upd, ExpressionAttributeValues: map[string]av.Value{":g": avS("H")}}); err != nil {
		t.Fatal(err)
	}
	g, h = indexEntries(t, e, tm, "gix"), indexEntries(t, e, tm, "hix")
	if len(g) != 1 || g[0]["gk"].S != "H" || len(h) != 0 {
		t.Fatalf("after key change: g=%v h=%v", g, h)
	}
	// Delete: nothing left, stats back to zero.
	if _, err := e.DeleteItem(ctx, testNS, &api.DeleteItemInput{TableName: &name, Key: av.Item{"pk": avS("a"), "sk": avN("1")}}); err != nil {
		t.Fatal(err)
	}
	if g := indexEntries(t, e, tm, "gix"); len(g) != 0 {
		t.Fatalf("entry survived delete: %v", g)
	}
	if items, bytes := e.tableStats(tm); items != 0 || bytes != 0 {
		t.Fatalf("stats after delete: %d %d", items, bytes)
	}
}

func TestStatsCountEveryStripe(t *testing.T) {
	e, tm := itemEngine(t)
	want := int64(0)
	for i := range 300 {
		put(t, e, av.Item{"pk": avS("p"), "sk": avN(strconv.Itoa(i)), "gk": avS("g")})
		want++
	}
	items, bytes := e.tableStats(tm)
	if items != 300 || bytes <= 300*storageOverhead {
		t.Fatalf("table stats %d items %d bytes", items, bytes)
	}
	ix, _ := tm.index("gix", e.now())
	if gi, _ := e.indexStats(tm, ix); gi != want {
		t.Fatalf("index stats %d, want %d", gi, want)
	}
	// The memo is invalidated by the next write.
	put(t, e, av.Item{"pk": avS("q"), "sk": avN("1")})
	if items, _ := e.tableStats(tm); items != 301 {
		t.Fatalf("after one more put: %d", items)
	}
}

func TestStatsRoundTrip(t *testing.T) {
	in := statsCounts{0: {3, 400}, 7: {-1, -100}, statsIndexID - 1: {1 << 40, 1 << 50}}
	out := statsCounts{}
	if err := decodeStats(encodeStats(in), out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("got %v", out)
	}
	for k, v := range in {
		if out[k] != v {
			t.Fatalf("id %d: got %v want %v", k, out[k], v)
		}
	}
	if err := decodeStats([]byte{0x80}, statsCounts{}); err == nil {
		t.Fatal("truncated record decoded")
	}
}

func FuzzDecodeStats(f *testing.F) {
	f.Add(encodeStats(statsCounts{0: {1, 2}, 3: {4, 5}}))
	f.Add([]byte{0x80, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := statsCounts{}
		if decodeStats(b, c) == nil {
			// Whatever decodes re-encodes to something that decodes the same.
			d := statsCounts{}
			if err := decodeStats(encodeStats(c), d); err != nil || len(d) != len(c) {
				t.Fatalf("re-decode: %v %v %v", err, c, d)
			}
		}
	})
}

func TestItemKeyLayout(t *testing.T) {
	tm := &tableMeta{ID: keyspace.TableID{1, 2, 3}, KeySchema: []keyElem{{Name: "pk", KeyType: keyHash, Type: "S"}, {Name: "sk", KeyType: keyRange, Type: "N"}}}
	p := itemPartitionPrefix(tm, avS("user#1"))
	var prev []byte
	for _, sk := range []string{"-10", "-1.5", "0", "2", "10", "1E+10"} {
		k := itemKey(tm, av.Item{"pk": avS("user#1"), "sk": avN(sk)})
		if !bytes.HasPrefix(k, p) {
			t.Fatalf("key of sk %s lacks the partition prefix", sk)
		}
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("sk %s does not sort after its predecessor", sk)
		}
		prev = k
	}
	// A partition key that extends another's is not covered by its prefix.
	if k := itemKey(tm, av.Item{"pk": avS("user#10"), "sk": avN("1")}); bytes.HasPrefix(k, p) {
		t.Fatal("partition prefix covers another partition")
	}
	// The index partition prefix is a prefix of the entry key.
	ix := &indexMeta{ID: 4, ProjectionType: "KEYS_ONLY", KeySchema: []keyElem{{Name: "g", KeyType: keyHash, Type: "S"}}}
	_, ek := indexEntry(tm, ix, av.Item{"pk": avS("a"), "sk": avN("1"), "g": avS("x")})
	if !bytes.HasPrefix(ek, indexPartitionPrefix(tm, ix, []av.Value{avS("x")})) {
		t.Fatal("index entry key lacks its partition prefix")
	}
}

func TestLockSetsDoNotDeadlock(t *testing.T) {
	var l keyspace.ItemLocks
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}
	// counts[k] is touched only while k's stripe is held, so it is exact
	// (and race-free) only if the lock excludes.
	var counts [4]int
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				// Each worker names the keys in a different order.
				ia, ib := (w+i)%4, (w+i+1)%4
				held := l.Lock(keys[ib], keys[ia], keys[ib])
				counts[ia]++
				counts[ib]++
				l.Unlock(held)
			}
		}()
	}
	wg.Wait()
	if total := counts[0] + counts[1] + counts[2] + counts[3]; total != 2*8*500 {
		t.Fatalf("counts = %v (total %d): lock did not exclude", counts, total)
	}
}

// TestFailedConditionConsumes: a failed condition is charged on the larger
// of the old item and the item the write would have stored.
func TestFailedConditionConsumes(t *testing.T) {
	e, tm := itemEngine(t)
	put(t, e, av.Item{"pk": avS("a"), "sk": avN("1"), "v": avS(string(make([]byte, 3000)))})
	name, cond := "tbl", "attribute_not_exists(pk)"
	big := av.Item{"pk": avS("a"), "sk": avN("1"), "v": avS(string(make([]byte, 5000)))}
	p := expr.NewParams(nil, nil, nil)
	c, err := p.Condition(cond)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := e.writeOne(context.Background(), &writeSpec{t: tm, key: itemKey(tm, big), cond: c,
		build: func(av.Item) (av.Item, error) { return big, nil }, sizeMsg: msgItemTooLarge})
	var de *api.Error
	if !errors.As(err, &de) || de.Code != api.CodeConditionalCheckFailed || de.Message != MsgConditionalCheckFailed {
		t.Fatalf("got %v", err)
	}
	if pw == nil || pw.use.table != 5 || pw.use.total() != 5 {
		t.Fatalf("failed condition consumed %+v, want 5 WCU", pw)
	}
	// Through the API the failure has no capacity member but the same error.
	_, err = e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: big, ConditionExpression: &cond})
	if !errors.As(err, &de) || de.Code != api.CodeConditionalCheckFailed || de.Item != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

// TestConditionalPutRace: of 32 writers racing attribute_not_exists on one
// key, exactly one wins, round after round (started together through a
// barrier, without HTTP in between, so a missing lock shows).
func TestConditionalPutRace(t *testing.T) {
	e, _ := itemEngine(t)
	name, cond := "tbl", "attribute_not_exists(pk)"
	for round := range 200 {
		var wins, losses atomic.Int64
		var start, done sync.WaitGroup
		start.Add(1)
		for w := range 32 {
			done.Add(1)
			go func() {
				defer done.Done()
				item := av.Item{"pk": avS("race"), "sk": avN(strconv.Itoa(round)), "w": avN(strconv.Itoa(w))}
				start.Wait()
				_, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: item, ConditionExpression: &cond})
				var de *api.Error
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &de) && de.Code == api.CodeConditionalCheckFailed:
					losses.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		start.Done()
		done.Wait()
		if wins.Load() != 1 || losses.Load() != 31 {
			t.Fatalf("round %d: %d winners, %d losers", round, wins.Load(), losses.Load())
		}
	}
}

func benchPayload() av.Value { return avS(string(bytes.Repeat([]byte("p"), 1000))) }

// BenchmarkEnginePutItem is PutItem of a 1 KB item, engine only (no HTTP).
func BenchmarkEnginePutItem(b *testing.B) {
	e, _ := itemEngine(b)
	name := "tbl"
	item := av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload()}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		item["sk"] = avN(strconv.Itoa(i % 1000))
		if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: item}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngineUpdateItem is a conditional ADD on a 1 KB item, engine only.
func BenchmarkEngineUpdateItem(b *testing.B) {
	e, _ := itemEngine(b)
	name := "tbl"
	put(b, e, av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload(), "n": avN("0")})
	upd, cond := "SET n = n + :one", "attribute_exists(pk)"
	in := &api.UpdateItemInput{TableName: &name, Key: av.Item{"pk": avS("k"), "sk": avN("0")}, UpdateExpression: &upd, ConditionExpression: &cond,
		ExpressionAttributeValues: map[string]av.Value{":one": avN("1")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.UpdateItem(context.Background(), testNS, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngineGetItem reads a 1 KB item, engine only.
func BenchmarkEngineGetItem(b *testing.B) {
	e, _ := itemEngine(b)
	name := "tbl"
	put(b, e, av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload()})
	in := &api.GetItemInput{TableName: &name, Key: av.Item{"pk": avS("k"), "sk": avN("0")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.GetItem(context.Background(), testNS, in); err != nil {
			b.Fatal(err)
		}
	}
}

// plainEngine is itemEngine's store and options with loadgen's table: pk
// S, sk N, no index, no stream (what the bench-ceiling runs write).
func plainEngine(b testing.TB) *Engine {
	b.Helper()
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Options{Store: st, Throttle: ThrottleOptions{Off: true}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close(); _ = st.Close() })
	var in api.CreateTableInput
	if err := json.Unmarshal([]byte(`{
		"TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": [{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],
		"KeySchema": [{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`), &in); err != nil {
		b.Fatal(err)
	}
	if _, err := e.CreateTable(context.Background(), testNS, &in); err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkEnginePutItemPlain is PutItem of a 1 KB item over 1,000 keys
// of a table without indexes, engine only: the write path loadgen's put
// takes (no old item decoded).
func BenchmarkEnginePutItemPlain(b *testing.B) {
	e := plainEngine(b)
	name := "plain"
	item := av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload()}
	sks := make([]av.Value, 1000)
	for i := range sks {
		sks[i] = avN(strconv.Itoa(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		item["sk"] = sks[i%len(sks)]
		if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: item}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGetItemAllocations pins what a GetItem of a table without indexes
// allocates, engine only: the key, the store's copy of the value, the
// output and the partition bucket's key; a request without expressions
// builds no placeholder context, and checking the key no slice.
func TestGetItemAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	e := plainEngine(t)
	name := "plain"
	if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name,
		Item: av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload()}}); err != nil {
		t.Fatal(err)
	}
	in := &api.GetItemInput{TableName: &name, Key: av.Item{"pk": avS("k"), "sk": avN("0")}}
	n := testing.AllocsPerRun(200, func() {
		if _, err := e.GetItemStored(context.Background(), testNS, in); err != nil {
			t.Fatal(err)
		}
	})
	if n > 4 {
		t.Fatalf("GetItem allocates %v times, want at most 4", n)
	}
}

// TestPutItemAllocations pins what a PutItem of a table without indexes
// allocates, engine only: the write spec, its closure and the output; the
// pending write, the item key, Pebble's batch and the partition key
// string. The old item is read (only its size is needed) and the item's
// encoded value and the stats record are written through the pooled
// batch's buffer (the store's batch copies what it is given).
func TestPutItemAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	e := plainEngine(t)
	name := "plain"
	item := av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload()}
	n := testing.AllocsPerRun(200, func() {
		if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: item}); err != nil {
			t.Fatal(err)
		}
	})
	if n > 7 {
		t.Fatalf("PutItem allocates %v times, want at most 7", n)
	}
}

// BenchmarkEngineGetItemPlain reads a 1 KB item of a table without
// indexes through GetItemStored (the wire's path), engine only.
func BenchmarkEngineGetItemPlain(b *testing.B) {
	e := plainEngine(b)
	name := "plain"
	if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name,
		Item: av.Item{"pk": avS("k"), "sk": avN("0"), "payload": benchPayload()}}); err != nil {
		b.Fatal(err)
	}
	in := &api.GetItemInput{TableName: &name, Key: av.Item{"pk": avS("k"), "sk": avN("0")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.GetItemStored(context.Background(), testNS, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTableStatsAfterWrite is DescribeTable's stats cost when a write
// has invalidated the memo: summing every stripe's record of a table whose
// items cover all stripes.
func BenchmarkTableStatsAfterWrite(b *testing.B) {
	e, tm := itemEngine(b)
	for i := range 5000 {
		put(b, e, av.Item{"pk": avS(strconv.Itoa(i)), "sk": avN("0"), "gk": avS("g")})
	}
	b.ReportAllocs()
	for b.Loop() {
		e.items.stats.bump(tm.ID)
		if n, _ := e.tableStats(tm); n != 5000 {
			b.Fatal(n)
		}
	}
}

// TestBackfillWhileWriting adds a GSI while writers keep updating items:
// no deadlock between the backfill (which holds the metadata lock's turn
// and takes item stripes) and writers (which hold a stripe and read the
// metadata), and the index ends up with exactly the items that have its key.
func TestBackfillWhileWriting(t *testing.T) {
	e, _ := itemEngine(t)
	name := "tbl"
	for i := range 500 {
		put(t, e, av.Item{"pk": avS(strconv.Itoa(i)), "sk": avN("0"), "z": avS("z")})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			upd := "SET v = :v"
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := av.Item{"pk": avS(strconv.Itoa((i*7 + w) % 500)), "sk": avN("0")}
				if _, err := e.UpdateItem(context.Background(), testNS, &api.UpdateItemInput{TableName: &name, Key: key, UpdateExpression: &upd,
					ExpressionAttributeValues: map[string]av.Value{":v": avN(strconv.Itoa(i))}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var in api.UpdateTableInput
	if err := json.Unmarshal([]byte(`{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"z","AttributeType":"S"}],
		"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"zix","KeySchema":[{"AttributeName":"z","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`), &in); err != nil {
		t.Fatal(err)
	}
	if _, err := e.UpdateTable(context.Background(), testNS, &in); err != nil {
		t.Fatal(err)
	}
	WaitBackfills(e)
	close(stop)
	wg.Wait()
	tm, _ := e.table(testNS, "tbl")
	if got := len(indexEntries(t, e, tm, "zix")); got != 500 {
		t.Fatalf("index has %d entries, want 500", got)
	}
	ix, _ := tm.index("zix", e.now())
	if n, _ := e.indexStats(tm, ix); n != 500 {
		t.Fatalf("index stats %d, want 500", n)
	}
}
