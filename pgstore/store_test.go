package pgstore_test

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/kv/kvtest"
	"github.com/extenddb/extenddb/pgstore"
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
