package pgstore

import (
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// txConn is a pooled connection running one transaction for a snapshot,
// an iterator or an Update. Its BEGIN is sent with the first statement, in
// one round trip. mu serializes the iterators and reads sharing it (a
// connection runs one statement at a time).
type txConn struct {
	s      *Store
	mu     sync.Mutex
	c      *pgxpool.Conn
	begin  string // sent before the next statement; "" once sent
	reader bool   // counted in s.readers
	// failed is the first error the transaction got: PostgreSQL refuses
	// every later statement of it, and Update decides on a retry from it.
	failed error
	done   bool
}

// The transactions' BEGINs. Modes are comma-separated, as PostgreSQL,
// CockroachDB and YugabyteDB all accept; the isolation level is always
// named, so neither a server's default (YugabyteDB's READ COMMITTED
// mapping, a changed default_transaction_isolation) nor a database's
// setting changes what the store gets.
const (
	beginReadOnly     = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
	beginSerializable = "BEGIN ISOLATION LEVEL SERIALIZABLE"
)

var errTxDone = errors.New("pgstore: transaction already ended (an iterator or read outlived its snapshot or Update)")

func (s *Store) acquire() (*txConn, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, s.wrap("acquire connection", err)
	}
	return &txConn{s: s, c: c}, nil
}

// send sends the pending BEGIN (if any) and b in one round trip, and
// reads every result: Exec results are checked, and scan reads the rows
// of the one Query at index q (or -1 for none).
func (tc *txConn) send(b *pgx.Batch, q int, scan func(pgx.Rows) error) error {
	if tc.done {
		return errTxDone
	}
	if tc.failed != nil {
		return tc.failed
	}
	full := b
	if tc.begin != "" {
		full = &pgx.Batch{}
		full.Queue(tc.begin)
		full.QueuedQueries = append(full.QueuedQueries, b.QueuedQueries...)
		if q >= 0 {
			q++
		}
		tc.begin = ""
	}
	ctx, cancel := tc.s.ctx()
	defer cancel()
	br := tc.c.SendBatch(ctx, full)
	var err error
	for i := range full.Len() {
		if i == q {
			var rows pgx.Rows
			rows, err = br.Query()
			if err == nil {
				err = scan(rows)
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tc.failed = err
	}
	return err
}

// exec runs one statement.
func (tc *txConn) exec(sql string, args ...any) error {
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return tc.s.wrap("exec", tc.send(b, -1, nil))
}

// get reads one key in the transaction.
func (tc *txConn) get(key []byte) ([]byte, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	b := &pgx.Batch{}
	b.Queue(tc.s.sql.get, nonNil(key))
	var v []byte
	found := false
	err := tc.send(b, 0, func(rows pgx.Rows) error {
		for rows.Next() {
			found = true
			if err := rows.Scan(&v); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && !found {
		err = pgx.ErrNoRows
	}
	return value(v, tc.s.wrap("get", err))
}

// scan runs one of the scan statements in the transaction.
func (tc *txConn) scan(sql string, args ...any) ([]pair, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	var out []pair
	err := tc.send(b, 0, func(rows pgx.Rows) error {
		var err error
		out, err = scanPairs(rows)
		return err
	})
	return out, tc.s.wrap("scan", err)
}

// end commits (or rolls back) the transaction if one was started, and
// returns the connection to the pool (or closes it, if the transaction
// failed: pgxpool closes a connection returned inside a transaction).
func (tc *txConn) end(commit bool) error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.done {
		return nil
	}
	var err error
	if tc.begin == "" && tc.failed == nil {
		stmt := "ROLLBACK"
		if commit {
			stmt = "COMMIT"
		}
		b := &pgx.Batch{}
		b.Queue(stmt)
		err = tc.s.wrap("end transaction", tc.send(b, -1, nil))
	} else if tc.begin == "" {
		// Failed: PostgreSQL wants the ROLLBACK before anything else; on
		// a lost connection it fails too, and the pool drops the
		// connection.
		ctx, cancel := tc.s.ctx()
		_, _ = tc.c.Exec(ctx, "ROLLBACK")
		cancel()
	}
	tc.release()
	return err
}

// release returns the connection after its transaction committed.
func (tc *txConn) release() {
	tc.done = true
	tc.c.Release()
	if tc.reader {
		tc.s.readers.Done()
	}
}

// pair is one row of a scan.
type pair struct{ k, v []byte }

func scanPairs(rows pgx.Rows) ([]pair, error) {
	var out []pair
	for rows.Next() {
		var p pair
		// pgx copies bytea into a new slice: it is ours to keep.
		if err := rows.Scan(&p.k, &p.v); err != nil {
			return nil, err
		}
		if p.v == nil {
			p.v = []byte{}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
