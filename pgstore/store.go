package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/kv"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrBatchCommitted is returned by a write to, or a second Commit of, a
// batch that was already committed.
var ErrBatchCommitted = errors.New("pgstore: batch already committed")

// ErrInvalidRange is returned for a range whose start sorts after its end.
var ErrInvalidRange = errors.New("pgstore: range start after end")

// Options configures Open.
type Options struct {
	// DSN is the database's URL or keyword/value string, as pgx takes it
	// (postgres://user@host:5432/db?sslmode=disable). Required.
	DSN string
	// Table is the table holding the data, created if missing: lower-case
	// letters, digits and underscores. Empty means DefaultTable.
	Table string
	// MaxConns bounds the connection pool. An iterator over more than one
	// chunk and a snapshot each hold a connection until closed, and so
	// does an Update while it runs. Zero means 32.
	MaxConns int32
	// ScanChunk is how many rows an iterator fetches per round trip. Zero
	// means 256.
	ScanChunk int
	// Timeout bounds each round trip, waiting for a pooled connection
	// included; past it the operation fails with kv.ErrUnavailable. Zero
	// means 30s.
	Timeout time.Duration
	// RetryFor bounds how long Update and Commit keep running a
	// transaction again that the database refused with a serialization
	// failure or a deadlock; MaxTries bounds how many times. Past either,
	// they return an error wrapping kv.ErrConflict. Zero means 10s and
	// 100 tries.
	RetryFor time.Duration
	MaxTries int
	// CloseWait bounds how long Close waits for iterators and snapshots
	// still open; zero means 5s.
	CloseWait time.Duration
}

// DefaultTable is the table Options.Table defaults to.
const DefaultTable = "extenddb_kv"

// Store implements kv.Store and kv.Shared over a connection pool.
type Store struct {
	pool *pgxpool.Pool
	o    Options
	sql  statements

	closed atomic.Bool
	// readers counts iterators and snapshots holding a connection: Close
	// waits for them, since pgxpool.Close blocks until every connection
	// is back.
	readers sync.WaitGroup
}

// statements are the store's SQL, with the table name in place. Exclusive
// bounds become inclusive ones on key+"\x00", so a handful of statements
// serves every scan (pgx prepares and caches each once per connection).
type statements struct {
	get, set, del, delRange    string
	setMany, delMany           string
	fwd, fwdOpen, bwd, bwdOpen string
}

func newStatements(t string) statements {
	return statements{
		get:      "SELECT v FROM " + t + " WHERE k = $1",
		set:      "INSERT INTO " + t + " (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
		del:      "DELETE FROM " + t + " WHERE k = $1",
		setMany:  "INSERT INTO " + t + " (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
		delMany:  "DELETE FROM " + t + " WHERE k = ANY($1::bytea[])",
		delRange: "DELETE FROM " + t + " WHERE k >= $1 AND k < $2",
		fwd:      "SELECT k, v FROM " + t + " WHERE k >= $1 AND k < $2 ORDER BY k LIMIT $3",
		fwdOpen:  "SELECT k, v FROM " + t + " WHERE k >= $1 ORDER BY k LIMIT $2",
		bwd:      "SELECT k, v FROM " + t + " WHERE k >= $1 AND k < $2 ORDER BY k DESC LIMIT $3",
		bwdOpen:  "SELECT k, v FROM " + t + " WHERE k >= $1 ORDER BY k DESC LIMIT $2",
	}
}

// Open connects to the database and creates the table if it is missing.
func Open(o Options) (*Store, error) {
	if o.DSN == "" {
		return nil, errors.New("pgstore: Options.DSN is required")
	}
	if o.Table == "" {
		o.Table = DefaultTable
	}
	if !validTable(o.Table) {
		return nil, fmt.Errorf("pgstore: table name %q: want lower-case letters, digits and underscores, not starting with a digit, at most 63", o.Table)
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 32
	}
	if o.ScanChunk <= 0 {
		o.ScanChunk = 256
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.RetryFor <= 0 {
		o.RetryFor = 10 * time.Second
	}
	if o.MaxTries <= 0 {
		o.MaxTries = 100
	}
	if o.CloseWait <= 0 {
		o.CloseWait = 5 * time.Second
	}
	cfg, err := pgxpool.ParseConfig(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	cfg.MaxConns = o.MaxConns
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	s := &Store{pool: pool, o: o, sql: newStatements(o.Table)}
	if err := s.createTable(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func validTable(t string) bool {
	if len(t) == 0 || len(t) > 63 || (t[0] >= '0' && t[0] <= '9') {
		return false
	}
	for _, c := range []byte(t) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (s *Store) createTable(ctx context.Context) error {
	var version string
	if err := s.pool.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return s.wrap("version", err)
	}
	stmt := "CREATE TABLE IF NOT EXISTS " + s.o.Table + " (k bytea PRIMARY KEY, v bytea NOT NULL)"
	if strings.Contains(version, "-YB-") {
		// YugabyteDB shards the first key column by hash unless told ASC,
		// which would turn every range scan into a scan of every tablet;
		// PostgreSQL refuses ASC in a PRIMARY KEY, CockroachDB orders by
		// default.
		stmt = "CREATE TABLE IF NOT EXISTS " + s.o.Table + " (k bytea, v bytea NOT NULL, PRIMARY KEY (k ASC))"
	}
	// Processes opening one new database at once race on IF NOT EXISTS
	// (PostgreSQL checks its catalog before inserting into it: the loser
	// gets a unique violation on pg_type or pg_class, 23505, 42P07 or
	// 42710); it finds the table there when it tries again.
	_, err := s.pool.Exec(ctx, stmt)
	for try := 0; try < 5 && createRaced(err); try++ {
		_, err = s.pool.Exec(ctx, stmt)
	}
	if err != nil {
		return s.wrap("create table", err)
	}
	return nil
}

// createRaced reports the errors a concurrent CREATE TABLE IF NOT EXISTS
// of the same table gives.
func createRaced(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P07" || pe.Code == "42710")
}

// SharedStore implements kv.Shared: several processes may open the store.
func (s *Store) SharedStore() bool { return true }

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.o.Timeout)
}

// Get implements kv.Reader: one statement.
func (s *Store) Get(key []byte) ([]byte, error) {
	if s.closed.Load() {
		return nil, kv.ErrClosed
	}
	ctx, cancel := s.ctx()
	defer cancel()
	var v []byte
	err := s.pool.QueryRow(ctx, s.sql.get, nonNil(key)).Scan(&v)
	return value(v, s.wrap("get", err))
}

// value turns a scanned value and error into Get's result: a missing row
// is kv.ErrNotFound, an empty value stays non-nil.
func value(v []byte, err error) ([]byte, error) {
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, kv.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// NewIter implements kv.Reader. The first chunk is read by one statement
// (a consistent view on its own); only a range longer than a chunk holds a
// REPEATABLE READ transaction, on a connection of its own, until Close.
func (s *Store) NewIter(lower, upper []byte) (kv.Iterator, error) {
	if s.closed.Load() {
		return nil, kv.ErrClosed
	}
	it, err := newIter(s, nil, lower, upper)
	if err != nil {
		return nil, err
	}
	if err := it.open(); err != nil {
		_ = it.Close()
		return nil, err
	}
	return it, nil
}

// NewBatch implements kv.Store.
func (s *Store) NewBatch() kv.Batch { return &batch{s: s} }

// NewSnapshot implements kv.Store: a REPEATABLE READ READ ONLY transaction
// on a connection of its own, until Close. A snapshot that could not start
// (store closed, database unreachable) returns that error from every read.
func (s *Store) NewSnapshot() kv.Snapshot {
	if s.closed.Load() {
		return &snapshot{err: kv.ErrClosed}
	}
	tc, err := s.beginRead()
	if err != nil {
		return &snapshot{err: err}
	}
	return &snapshot{s: s, tc: tc}
}

// beginRead acquires a connection and starts a read-only REPEATABLE READ
// transaction whose snapshot is taken at once (PostgreSQL takes it at the
// first statement, not at BEGIN), counted in readers.
func (s *Store) beginRead() (*txConn, error) {
	s.readers.Add(1)
	tc, err := s.acquire()
	if err != nil {
		s.readers.Done()
		return nil, err
	}
	tc.begin = beginReadOnly
	tc.reader = true
	if err := tc.exec("SELECT 1"); err != nil {
		tc.end(false)
		return nil, err
	}
	return tc, nil
}

// Close closes the pool. New operations fail with kv.ErrClosed at once;
// iterators and snapshots still open are waited for up to
// Options.CloseWait, and if some are still open then (leaks), an error
// says so and their connections are left to the process's exit. A second
// Close returns kv.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return kv.ErrClosed
	}
	drained := make(chan struct{})
	go func() { s.readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(s.o.CloseWait):
		go s.pool.Close() // returns once the leaked ones are closed
		return errors.New("pgstore: close: iterators or snapshots still open (leaked)")
	}
	s.pool.Close()
	return nil
}

// wrap gives an error from the database its kv meaning: nil stays nil,
// pgx.ErrNoRows stays itself, a closed store is kv.ErrClosed, a lost or
// refused connection (or a timeout) is kv.ErrUnavailable, a serialization
// failure or deadlock that was not retried is kv.ErrConflict.
func (s *Store) wrap(op string, err error) error {
	switch {
	case err == nil, errors.Is(err, pgx.ErrNoRows):
		return err
	case s.closed.Load():
		return fmt.Errorf("pgstore: %s: %w (%w)", op, kv.ErrClosed, err)
	case retryable(err):
		return fmt.Errorf("pgstore: %s: %w: %w", op, kv.ErrConflict, err)
	case unavailable(err):
		return fmt.Errorf("pgstore: %s: %w: %w", op, kv.ErrUnavailable, err)
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}

// retryable reports a serialization failure (40001: PostgreSQL's
// SERIALIZABLE, CockroachDB's "restart transaction", YugabyteDB's
// conflicts) or a deadlock (40P01): the transaction wrote nothing and can
// run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// unavailable reports an error that says nothing of the request: the
// connection failed or was refused, the server is shutting down or out of
// resources, or the time bound passed.
func unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Connection exception, insufficient resources, operator
		// intervention (shutdown, statement timeout).
		c := pe.Code[:min(2, len(pe.Code))]
		return c == "08" || c == "53" || c == "57"
	}
	// Anything else is the connection's: lost, refused, timed out, or
	// closed by an earlier failure.
	return true
}

// nonNil keeps a nil key from being sent as NULL: the empty key is a key.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
