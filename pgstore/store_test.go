package pgstore_test

import (
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
