// Package pgtest gives tests a fresh, empty PostgreSQL database: DSN creates
// one with a unique name on the server that EXTENDDB_TEST_POSTGRES names (a
// postgres:// URL, as scripts/pg-test-cluster.sh prints it) and drops it when
// the test ends. Without the variable the test skips, except under CI (env
// CI set), where it fails: a test that cannot run in CI must not pass there
// silently. Imported by tests only.
package pgtest
