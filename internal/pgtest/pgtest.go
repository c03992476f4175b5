package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variable holding the server's URL.
const Env = "EXTENDDB_TEST_POSTGRES"

// DSN returns the URL of a new empty database on the test server, dropped
// (with every connection still on it) in t.Cleanup.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		msg := Env + " is not set: start a server with scripts/pg-test-cluster.sh and export the line it prints"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", Env, err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	// A lower-case identifier needs no quoting on PostgreSQL, CockroachDB
	// or YugabyteDB.
	name := "extenddb_test_" + hex.EncodeToString(rnd[:])

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", Env, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { drop(t, base, name) })

	u.Path = "/" + name
	return u.String()
}

// drop removes the test's database. WITH (FORCE) ends the connections a
// failed test leaked, so one failure does not leave databases behind.
func drop(t testing.TB, base, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Errorf("pgtest: connect to drop %s: %v", name, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
	}
}
