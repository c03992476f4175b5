package emulator_test

import (
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pgstore"
)

// sharedStore returns a function opening a new connection (a "process's"
// store) to one fresh PostgreSQL database; the test skips without
// EXTENDDB_TEST_POSTGRES (pgtest).
func sharedStore(t *testing.T) func() kv.Store {
	t.Helper()
	dsn := pgtest.DSN(t)
	return func() kv.Store {
		st, err := pgstore.Open(pgstore.Options{DSN: dsn, MaxConns: 8, CloseWait: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}
