package emulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pgstore"
)

// openPGEngine opens an engine on its own pool to dsn (workers off).
func openPGEngine(t *testing.T, dsn string, mod ...func(*Options)) *Engine {
	t.Helper()
	st, err := pgstore.Open(pgstore.Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Store: st, TTLInterval: -1}
	for _, m := range mod {
		m(&o)
	}
	e, err := New(o)
	if err != nil {
		_ = st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = e.Close()
		_ = st.Close()
	})
	return e
}

// TestSharedStoreStatsRecordInTransaction: two processes writing two
// different items of one lock stripe never lose each other's counts: the
// stripe's stats record is read in the writes' store transactions. (The
// stripe locks of one process do not order the other's writes.)
func TestSharedStoreStatsRecordInTransaction(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := openPGEngine(t, dsn)
	ctx := context.Background()
	if _, err := a.CreateTable(ctx, nsA, simpleTable("stats")); err != nil {
		t.Fatal(err)
	}
	b := openPGEngine(t, dsn)
	tm, err := a.table(nsA, "stats")
	if err != nil {
		t.Fatal(err)
	}
	// Two keys whose items share a stripe, one per process.
	var keys []string
	want := keyspace.StripeOf(itemKey(tm, av.Item{"pk": sv("k0")}))
	for i := 0; len(keys) < 2; i++ {
		k := fmt.Sprintf("k%d", i)
		if keyspace.StripeOf(itemKey(tm, av.Item{"pk": sv(k)})) == want {
			keys = append(keys, k)
		}
	}
	const rounds = 60
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i, e := range []*Engine{a, b} {
		k := keys[i]
		wg.Go(func() {
			for range rounds {
				// Each round creates the item and deletes it: the count
				// goes up and down by one, so a lost merge shows.
				if _, err := e.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("stats"), Item: av.Item{"pk": sv(k)}}); err != nil {
					errs <- err
					return
				}
				if _, err := e.DeleteItem(ctx, nsA, &api.DeleteItemInput{TableName: sp("stats"), Key: av.Item{"pk": sv(k)}}); err != nil {
					errs <- err
					return
				}
			}
			if _, err := e.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("stats"), Item: av.Item{"pk": sv(k)}}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, e := range []*Engine{a, b} {
		d, err := e.DescribeTable(ctx, nsA, &api.DescribeTableInput{TableName: sp("stats")})
		if err != nil {
			t.Fatal(err)
		}
		if n := d.Table.ItemCount; n != 2 {
			t.Errorf("process %d: ItemCount %d, want 2", i, n)
		}
	}
}

// BenchmarkPGPutItem is one engine's PutItem on PostgreSQL (pgstore), one
// request at a time: what a write costs in round trips to the database.
func BenchmarkPGPutItem(b *testing.B) {
	dsn := pgtest.DSN(b)
	st, err := pgstore.Open(pgstore.Options{DSN: dsn})
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Options{Store: st, TTLInterval: -1, Throttle: ThrottleOptions{Off: true}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = e.Close()
		_ = st.Close()
	})
	ctx := context.Background()
	if _, err := e.CreateTable(ctx, nsA, simpleTable("bench")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := e.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": sv(fmt.Sprint(i % 1000)), "v": sv("x")}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSharedStoreTokenExpiry: a token's record in the store holds for ten
// minutes (engine clock): then the token is free on any process, and the
// expired records are swept from the store.
func TestSharedStoreTokenExpiry(t *testing.T) {
	dsn := pgtest.DSN(t)
	clk := newFakeClock()
	mod := func(o *Options) { o.Clock = clk }
	a := openPGEngine(t, dsn, mod)
	ctx := context.Background()
	if _, err := a.CreateTable(ctx, nsA, simpleTable("tokx")); err != nil {
		t.Fatal(err)
	}
	b := openPGEngine(t, dsn, mod)
	tx := func(e *Engine, token, by string) error {
		_, err := e.TransactWriteItems(ctx, nsA, &api.TransactWriteItemsInput{ClientRequestToken: sp(token), TransactItems: []api.TransactWriteItem{
			{Update: &api.TransactUpdate{TableName: sp("tokx"), Key: av.Item{"pk": sv("k")}, UpdateExpression: sp("ADD n :by"),
				ExpressionAttributeValues: map[string]av.Value{":by": {Type: av.TypeN, S: by}}}}}})
		return err
	}
	for _, tok := range []string{"t1", "t2"} {
		if err := tx(a, tok, "1"); err != nil {
			t.Fatal(err)
		}
	}
	clk.Add(tokenTTL - time.Second)
	if err := tx(b, "t1", "5"); !errors.Is(err, &api.Error{Code: api.CodeIdempotentParameterMismatch}) {
		t.Fatalf("other parameters within the window on the other process: %v, want IdempotentParameterMismatchException", err)
	}
	clk.Add(2 * time.Second)
	if err := tx(b, "t1", "5"); err != nil {
		t.Fatalf("other parameters after the window: %v, want it to run", err)
	}
	g, err := b.GetItem(ctx, nsA, &api.GetItemInput{TableName: sp("tokx"), Key: av.Item{"pk": sv("k")}, ConsistentRead: bl(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := g.Item["n"].S; n != "7" {
		t.Errorf("n = %s, want 7 (1 + 1 + 5)", n)
	}
	// b's sweep ran after its last transaction: t2's record is gone, t1's
	// new one stays.
	it, err := b.opts.Store.NewIter([]byte{famToken}, []byte{famToken + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var left []string
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		left = append(left, string(k[bytes.LastIndexByte(k, 0)+1:]))
	}
	if len(left) != 1 || left[0] != "t1" {
		t.Errorf("token records left %q, want [t1]", left)
	}
}

// TestSharedStoreOutboxKeysUnique: two processes writing a global table
// at once queue one outbox entry per write for the replica, even when
// their own counters start level (processes started together): the
// numbers come from the store, so neither overwrites the other's entry.
func TestSharedStoreOutboxKeysUnique(t *testing.T) {
	dsn := pgtest.DSN(t)
	// Held back an hour, the entries stay queued to be counted.
	mod := func(o *Options) { o.Throttle.Off = true; o.ReplicationDelay = time.Hour }
	a := openPGEngine(t, dsn, mod)
	ctx := context.Background()
	if _, err := a.CreateTable(ctx, nsA, simpleTable("gtab")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
		t.Fatal(err)
	}
	if err := WaitReplication(a); err != nil {
		t.Fatal(err)
	}
	b := openPGEngine(t, dsn, mod)
	b.repl.seq.Store(a.repl.seq.Load())
	const writes = 30
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i, e := range []*Engine{a, b} {
		wg.Go(func() {
			for n := range writes {
				if _, err := e.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("gtab"), Item: av.Item{"pk": sv(fmt.Sprintf("p%d-%d", i, n))}}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	replica, err := a.table(nsB, "gtab")
	if err != nil {
		t.Fatal(err)
	}
	p := outboxPrefix(replica.ID)
	it, err := a.opts.Store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if n != 2*writes {
		t.Errorf("%d outbox entries for the replica, want %d", n, 2*writes)
	}
}
