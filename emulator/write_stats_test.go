package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
)

// failingStore is a real store whose next Update, once armed, runs its
// function and then commits nothing: a commit that failed.
type failingStore struct {
	kv.Store
	fail atomic.Bool
}

var errInjected = errors.New("injected commit failure")

func (s *failingStore) Update(sync bool, fn func(kv.Txn) error) error {
	if !s.fail.Swap(false) {
		return s.Store.Update(sync, fn)
	}
	return s.Store.Update(sync, func(tx kv.Txn) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errInjected
	})
}

// openStatsEngine opens an engine on the Pebble store in dir (created with
// table "tbl", pk S, sk N, one GSI on gk, when create is set).
func openStatsEngine(t *testing.T, dir string, create bool) (*Engine, *failingStore) {
	t.Helper()
	st, err := pebblestore.Open(pebblestore.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fs := &failingStore{Store: st}
	e, err := New(Options{Store: fs, Throttle: ThrottleOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	if create {
		var in api.CreateTableInput
		if err := json.Unmarshal([]byte(`{
			"TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
			"AttributeDefinitions": [{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},
				{"AttributeName":"gk","AttributeType":"S"}],
			"KeySchema": [{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
			"GlobalSecondaryIndexes": [{"IndexName":"gix","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`), &in); err != nil {
			t.Fatal(err)
		}
		if _, err := e.CreateTable(context.Background(), testNS, &in); err != nil {
			t.Fatal(err)
		}
	}
	return e, fs
}

// storedStats sums t's stats records as the store holds them, whatever
// the memo or the in-memory records say.
func storedStats(t *testing.T, e *Engine, tm *tableMeta) statsCounts {
	t.Helper()
	sum := statsCounts{}
	p := keyspace.IndexPrefix(tm.ID, statsIndexID)
	it, err := e.opts.Store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := decodeStats(it.Value(), sum); err != nil {
			t.Fatal(err)
		}
	}
	return sum
}

// checkStats compares what the store's records sum to with the expected
// item and index entry counts, and every record kept in memory with its
// stored value.
func checkStats(t *testing.T, e *Engine, tm *tableMeta, items, entries int64) {
	t.Helper()
	ix, _ := tm.index("gix", e.now())
	got := storedStats(t, e, tm)
	if got[0].items != items || got[ix.ID].items != entries {
		t.Fatalf("stored stats: %d items, %d entries; want %d, %d", got[0].items, got[ix.ID].items, items, entries)
	}
	m := &e.items.stats
	m.recMu.RLock()
	defer m.recMu.RUnlock()
	tr := m.recs[tm.ID]
	if tr == nil {
		return
	}
	for s, ms := range tr {
		if ms == nil {
			continue
		}
		stored := statsCounts{}
		if v, err := e.opts.Store.Get(statsRecord{table: tm.ID, stripe: uint16(s)}.key()); err == nil {
			if err := decodeStats(v, stored); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range []uint32{0, ix.ID} {
			if ms.counts[id] != stored[id] {
				t.Fatalf("stripe %d id %d: memory %+v, store %+v", s, id, ms.counts[id], stored[id])
			}
		}
	}
}

// TestStatsInMemoryExact: on Pebble the stats records live in memory
// after a write first reads them, and stay equal to the stored ones
// through overwrites, deletes, a commit that failed and a reopen (where
// memory starts empty and is read from the store again).
func TestStatsInMemoryExact(t *testing.T) {
	dir := t.TempDir()
	e, fs := openStatsEngine(t, dir, true)
	ctx := context.Background()
	name := "tbl"
	putN := func(e *Engine, from, to int, gk bool) {
		for i := from; i < to; i++ {
			it := av.Item{"pk": avS("p" + strconv.Itoa(i%7)), "sk": avN(strconv.Itoa(i)), "v": avS("x")}
			if gk {
				it["gk"] = avS("g")
			}
			if _, err := e.PutItem(ctx, testNS, &api.PutItemInput{TableName: &name, Item: it}); err != nil {
				t.Fatal(err)
			}
		}
	}
	putN(e, 0, 200, true)
	tm, err := e.table(testNS, name)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, e, tm, 200, 200)
	putN(e, 100, 300, false) // 100 overwrites leave the index, 100 new items
	for i := range 50 {
		key := av.Item{"pk": avS("p" + strconv.Itoa(i%7)), "sk": avN(strconv.Itoa(i))}
		if _, err := e.DeleteItem(ctx, testNS, &api.DeleteItemInput{TableName: &name, Key: key}); err != nil {
			t.Fatal(err)
		}
	}
	checkStats(t, e, tm, 250, 50)

	// A write whose commit fails changes neither the store nor memory:
	// the same item written again afterwards counts once.
	fs.fail.Store(true)
	item := av.Item{"pk": avS("new"), "sk": avN("1"), "gk": avS("g")}
	if _, err := e.PutItem(ctx, testNS, &api.PutItemInput{TableName: &name, Item: item}); err == nil {
		t.Fatal("PutItem succeeded although its commit failed")
	}
	if _, err := e.PutItem(ctx, testNS, &api.PutItemInput{TableName: &name, Item: item}); err != nil {
		t.Fatal(err)
	}
	checkStats(t, e, tm, 251, 51)
	if n, _ := e.tableStats(tm); n != 251 {
		t.Fatalf("DescribeTable's count %d, want 251", n)
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fs.Store.Close(); err != nil {
		t.Fatal(err)
	}
	e, fs = openStatsEngine(t, dir, false)
	t.Cleanup(func() { _ = e.Close(); _ = fs.Store.Close() })
	if tm, err = e.table(testNS, name); err != nil {
		t.Fatal(err)
	}
	checkStats(t, e, tm, 251, 51)
	putN(e, 250, 400, true) // 50 overwrites back into the index, 100 new
	checkStats(t, e, tm, 351, 201)
	if n, _ := e.tableStats(tm); n != 351 {
		t.Fatalf("DescribeTable's count after reopen %d, want 351", n)
	}

	// DeleteTable forgets the table's records.
	if _, err := e.DeleteTable(ctx, testNS, &api.DeleteTableInput{TableName: &name}); err != nil {
		t.Fatal(err)
	}
	e.items.stats.recMu.RLock()
	kept := e.items.stats.recs[tm.ID]
	e.items.stats.recMu.RUnlock()
	if kept != nil {
		t.Fatal("a deleted table's stats records are still in memory")
	}
}

// countingTxn counts the reads of a store transaction.
type countingTxn struct {
	kv.Txn
	gets *atomic.Int64
}

func (t countingTxn) Get(k []byte) ([]byte, error) {
	t.gets.Add(1)
	return t.Txn.Get(k)
}

// countingStore is a real store counting its transactions' reads.
type countingStore struct {
	kv.Store
	gets atomic.Int64
}

func (s *countingStore) Update(sync bool, fn func(kv.Txn) error) error {
	return s.Store.Update(sync, func(tx kv.Txn) error { return fn(countingTxn{tx, &s.gets}) })
}

// TestPutReadsOnlyTheItem: on Pebble a write reads the item it replaces
// and nothing else once its stats record is in memory (before, it read
// the record back on every write). The first write of a stripe reads the
// record once.
func TestPutReadsOnlyTheItem(t *testing.T) {
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: st}
	e, err := New(Options{Store: cs, Throttle: ThrottleOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(); _ = st.Close() })
	name := "cnt"
	if _, err := e.CreateTable(context.Background(), testNS, simpleTable(name)); err != nil {
		t.Fatal(err)
	}
	in := &api.PutItemInput{TableName: &name, Item: av.Item{"pk": avS("k"), "v": avS("x")}}
	for i, want := range []int64{2, 1, 1} {
		cs.gets.Store(0)
		if _, err := e.PutItem(context.Background(), testNS, in); err != nil {
			t.Fatal(err)
		}
		if got := cs.gets.Load(); got != want {
			t.Fatalf("write %d read %d keys, want %d", i, got, want)
		}
	}
}

// TestStatsInMemoryConcurrent: writers on many stripes at once (and on
// the same items, so stripes are shared) leave the records in memory
// equal to the stored ones and the counts exact.
func TestStatsInMemoryConcurrent(t *testing.T) {
	e, fs := openStatsEngine(t, t.TempDir(), true)
	t.Cleanup(func() { _ = e.Close(); _ = fs.Store.Close() })
	name := "tbl"
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				// Every writer writes items 0..99 (shared) and 50 of its own.
				sk := strconv.Itoa(i % 100)
				if i >= 100 {
					sk = strconv.Itoa(1000*(w+1) + i)
				}
				it := av.Item{"pk": avS("p" + strconv.Itoa(i%5)), "sk": avN(sk), "gk": avS("g")}
				if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: &name, Item: it}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	tm, err := e.table(testNS, name)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, e, tm, 100+8*50, 100+8*50)
}
