package pgtest_test

import (
	"context"
	"testing"

	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// Each call gives a different database, empty and usable.
func TestDSNFreshDatabase(t *testing.T) {
	a, b := pgtest.DSN(t), pgtest.DSN(t)
	if a == b {
		t.Fatalf("two calls gave the same DSN %q", a)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("fresh database has %d tables", n)
	}
}
