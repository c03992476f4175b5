package emulator

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/pgstore"
)

// TestCatalogGenerationMovesWithMetadata: every table metadata write and
// delete moves the catalog generation in its own batch, which is what
// another process's cache compares against.
func TestCatalogGenerationMovesWithMetadata(t *testing.T) {
	te := newTestEngine(t)
	gen := func() uint64 {
		g, err := readGen(te.store)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g0 := gen()
	te.mustCreate(nsA, simpleTable("gen"))
	g1 := gen()
	if g1 == g0 {
		t.Fatal("CreateTable left the generation")
	}
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gen"), DeletionProtectionEnabled: bl(true)}); err != nil {
		t.Fatal(err)
	}
	g2 := gen()
	if g2 == g1 {
		t.Fatal("UpdateTable left the generation")
	}
	te.mustCreate(nsA, simpleTable("gen2"))
	g2 = gen()
	if _, err := te.DeleteTable(context.Background(), nsA, &api.DeleteTableInput{TableName: sp("gen2")}); err != nil {
		t.Fatal(err)
	}
	if gen() == g2 {
		t.Fatal("DeleteTable left the generation")
	}
	// On Pebble the cache is the truth: nothing marks it reloadable.
	if te.isShared || te.cat.gen != g0 {
		t.Errorf("Pebble engine: shared %v, cache generation %d (loaded at %d)", te.isShared, te.cat.gen, g0)
	}
}

// sharedEngines opens two engines over two connections to one fresh
// PostgreSQL database.
func sharedEngines(t *testing.T) (a, b *Engine) {
	t.Helper()
	dsn := pgtest.DSN(t)
	open := func() *Engine {
		st, err := pgstore.Open(pgstore.Options{DSN: dsn, MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Options{Store: st, Throttle: ThrottleOptions{Off: true},
			LeaseDuration: 600 * time.Millisecond, LeaseRenewInterval: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(); _ = st.Close() })
		return e
	}
	return open(), open()
}

// TestCurrentInConflictsWithSchemaChange: a write's transaction that
// resolved its table before another process added a GSI does not commit
// with the old schema: it runs again and sees the index.
func TestCurrentInConflictsWithSchemaChange(t *testing.T) {
	a, b := sharedEngines(t)
	ctx := context.Background()
	if _, err := a.CreateTable(ctx, nsA, simpleTable("cur")); err != nil {
		t.Fatal(err)
	}
	t0, err := b.table(nsA, "cur")
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	err = b.opts.Store.Update(false, func(tx kv.Txn) error {
		m, err := b.currentIn(tx, t0)
		if err != nil {
			return err
		}
		seen = append(seen, len(m.GSIs))
		if len(seen) == 1 {
			if _, err := a.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("cur"), AttributeDefinitions: attrs("g", "S"),
				GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiCreate("gix", keys("g", "HASH"), nil)}}); err != nil {
				return err
			}
		}
		return tx.Batch().Set(append(keyspace.ItemPrefix(m.ID), "k"...), []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	// PostgreSQL may refuse a run more than needed (its predicate locks
	// are coarse), never fewer.
	if len(seen) < 2 || seen[len(seen)-1] != 1 {
		t.Errorf("GSIs seen by each run: %v, want [0 1] (the first run conflicts)", seen)
	}
}

// TestPebbleEngineLeadsAlone: on Pebble the engine leads without a lease
// and writes none.
func TestPebbleEngineLeadsAlone(t *testing.T) {
	st, err := pebblestore.Open(pebblestore.Options{Dir: "/db", FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.leading() {
		t.Error("a Pebble engine does not lead")
	}
	if _, err := st.Get(leaderKey); err != kv.ErrNotFound {
		t.Errorf("leader lease on Pebble: %v, want none", err)
	}
}

// TestCatalogFamiliesOwnTags: the catalog generation and lease families
// share no tag with another family (reserved_keys_test.go lists them all
// once issue 21's branches meet).
func TestCatalogFamiliesOwnTags(t *testing.T) {
	others := map[string]byte{
		"meta": keyspace.FamMeta, "item": keyspace.FamItem, "index": keyspace.FamIndex, "stream": keyspace.FamStream,
		"version": famVersion, "outbox": famOutbox, "kinesis": famKinesis,
		"backup": famBackup, "backup data": famBackupData, "pitr": famPITR,
		"export": famExport, "import": famImport, "token": 't',
		"bulk operation": famBulkOp, "bulk report": famBulkReport,
	}
	for name, f := range others {
		if f == famGen || f == famLease {
			t.Errorf("family %s shares its tag %q with the catalog's", name, f)
		}
	}
	if famGen == famLease {
		t.Error("generation and lease families share a tag")
	}
}

// BenchmarkSharedTableLookup is what a data-plane request pays on a shared
// store to resolve its table: one Get of the catalog generation (the
// cache is not reloaded: nothing changes).
func BenchmarkSharedTableLookup(b *testing.B) {
	dsn := pgtest.DSN(b)
	st, err := pgstore.Open(pgstore.Options{DSN: dsn})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := New(Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.CreateTable(context.Background(), nsA, simpleTable("bench")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.table(nsA, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
