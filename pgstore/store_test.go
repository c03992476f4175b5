package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/kv/kvtest"
	"github.com/extenddb/extenddb/pgstore"
	"github.com/jackc/pgx/v5"
)

func open(t *testing.T, o pgstore.Options) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	kvtest.RunConformance(t, func(t *testing.T) kv.Store {
		return open(t, pgstore.Options{DSN: pgtest.DSN(t)})
	})
}

// Chunks of 2 rows make every multi-key case of the suite cross chunk
// boundaries, forward and backward, inside the iterator's own
// REPEATABLE READ transaction.
func TestConformanceSmallChunks(t *testing.T) {
	kvtest.RunConformance(t, func(t *testing.T) kv.Store {
		return open(t, pgstore.Options{DSN: pgtest.DSN(t), ScanChunk: 2})
	})
}

func TestPersistence(t *testing.T) {
	kvtest.RunPersistence(t, func(t *testing.T) func(t *testing.T) kv.Store {
		dsn := pgtest.DSN(t)
		return func(t *testing.T) kv.Store { return open(t, pgstore.Options{DSN: dsn, Table: "kv_custom"}) }
	})
}

// Two Updates that read the same key and then both write it cannot both
// commit; with one try allowed, the loser gets kv.ErrConflict and wrote
// nothing.
func TestUpdateConflictAfterMaxTries(t *testing.T) {
	s := open(t, pgstore.Options{DSN: pgtest.DSN(t), MaxTries: 1})
	defer s.Close()
	b := s.NewBatch()
	if err := b.Set([]byte("k"), []byte("0")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	var read sync.WaitGroup
	read.Add(2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			errs[i] = s.Update(false, func(tx kv.Txn) error {
				if _, err := tx.Get([]byte("k")); err != nil {
					return err
				}
				read.Done()
				read.Wait() // both have read before either writes
				return tx.Batch().Set([]byte("k"), fmt.Append(nil, i+1))
			})
		})
	}
	wg.Wait()
	var won, conflicts int
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, kv.ErrConflict):
			conflicts++
		default:
			t.Fatalf("Update: %v; want nil or kv.ErrConflict", err)
		}
	}
	if won != 1 || conflicts != 1 {
		t.Fatalf("%d committed, %d conflicts; want 1 and 1 (errors %v)", won, conflicts, errs)
	}
}

// A database that cannot be reached is kv.ErrUnavailable, not a hang.
func TestOpenUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = pgstore.Open(pgstore.Options{DSN: "postgres://postgres@" + addr + "/db?sslmode=disable&connect_timeout=5"})
	if !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("Open of an unreachable server: %v; want kv.ErrUnavailable", err)
	}
}

func TestOpenBadTable(t *testing.T) {
	if _, err := pgstore.Open(pgstore.Options{DSN: "postgres://127.0.0.1:1/x", Table: "kv; DROP TABLE x"}); err == nil {
		t.Fatal("Open accepted a table name that is not an identifier")
	}
}

// An iterator left open past one chunk holds a connection; Close reports
// the leak after CloseWait instead of hanging on the pool, and later
// operations are kv.ErrClosed.
func TestCloseWithLeakedIterator(t *testing.T) {
	s := open(t, pgstore.Options{DSN: pgtest.DSN(t), ScanChunk: 2, CloseWait: 200 * time.Millisecond})
	b := s.NewBatch()
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if err := b.Set([]byte(k), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	it, err := s.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "leaked") {
		t.Fatalf("Close with an iterator open: %v; want the leak reported", err)
	}
	if _, err := s.Get([]byte("a")); !errors.Is(err, kv.ErrClosed) {
		t.Fatalf("Get after Close: %v; want kv.ErrClosed", err)
	}
	if err := it.Close(); err != nil {
		t.Fatalf("closing the leaked iterator: %v", err)
	}
}

// When the server drops the store's connections (a restart, a failover),
// an operation caught on one fails with kv.ErrUnavailable, never another
// error, and the next ones reconnect.
func TestConnectionsDropped(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, pgstore.Options{DSN: dsn})
	defer s.Close()
	b := s.NewBatch()
	if err := b.Set([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for round := range 3 {
		// Several pooled connections, so the next Get finds a dead one.
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { _, _ = s.Get([]byte("k")) })
		}
		wg.Wait()
		var n int
		err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
		if err != nil || n == 0 {
			t.Fatalf("round %d: terminated %d connections: %v", round, n, err)
		}
		if _, err := s.Get([]byte("k")); err != nil && !errors.Is(err, kv.ErrUnavailable) {
			t.Fatalf("round %d: Get on a dropped connection: %v; want nil or kv.ErrUnavailable", round, err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			v, err := s.Get([]byte("k"))
			if err == nil && string(v) == "v" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the store did not reconnect: %q, %v", round, v, err)
			}
		}
	}
}

// Batches writing the same keys in opposite orders at once all commit: a
// run of writes locks its rows in key order, and a deadlock would be
// retried.
func TestCommitOppositeOrders(t *testing.T) {
	s := open(t, pgstore.Options{DSN: pgtest.DSN(t)})
	defer s.Close()
	keys := []string{"a", "b", "c", "d"}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Go(func() {
			for i := range 100 {
				b := s.NewBatch()
				for j := range keys {
					k := keys[j]
					if w == 1 {
						k = keys[len(keys)-1-j]
					}
					if err := b.Set([]byte(k), fmt.Append(nil, w, i)); err != nil {
						errs <- err
						return
					}
				}
				if err := b.Commit(false); err != nil {
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
}
