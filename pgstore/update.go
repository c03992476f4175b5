package pgstore

import (
	"github.com/extenddb/extenddb/kv"
	"github.com/jackc/pgx/v5"
)

// Update implements kv.Transactor with a SERIALIZABLE transaction: fn's
// reads run in it, its writes are sent with COMMIT in one round trip at
// the end. When the database refuses it (40001 serialization failure, at
// any statement or at COMMIT as CockroachDB may, or 40P01 deadlock), it
// is rolled back and fn runs again after a jittered backoff, up to
// Options.MaxTries / Options.RetryFor; then the error wraps
// kv.ErrConflict. sync is ignored: every commit is durable.
func (s *Store) Update(sync bool, fn func(kv.Txn) error) error {
	if s.closed.Load() {
		return kv.ErrClosed
	}
	var fnErr error
	err := s.retry("update", func() (error, bool) {
		fnErr = nil
		err, again := s.updateOnce(fn, &fnErr)
		return err, again
	})
	if fnErr != nil {
		return fnErr // fn's own error, as it is
	}
	return err
}

// updateOnce runs one try. fn's error goes to *fnErr, unless the
// transaction had been refused (fn then likely saw a read fail because of
// it), which makes the try one to repeat.
func (s *Store) updateOnce(fn func(kv.Txn) error, fnErr *error) (err error, again bool) {
	tc, err := s.acquire()
	if err != nil {
		return err, false
	}
	tc.begin = beginSerializable
	committed := false
	defer func() {
		if !committed {
			_ = tc.end(false)
		}
	}()
	b := &batch{s: s, inTxn: true}
	ferr := fn(&txn{s: s, tc: tc, b: b})
	b.committed = true // later writes to it would be lost: refuse them
	if tc.failed != nil && retryable(tc.failed) {
		return tc.failed, true
	}
	if ferr != nil {
		*fnErr = ferr
		return ferr, false
	}
	if len(b.ops) == 0 && tc.begin != "" {
		return nil, false // fn neither read nor wrote: nothing was sent
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	pb := &pgx.Batch{}
	b.queue(pb)
	pb.Queue("COMMIT")
	if err := tc.send(pb, -1, nil); err != nil {
		return err, retryable(err)
	}
	committed = true
	tc.release()
	return nil, false
}

// txn is an Update's view: reads in its transaction, writes to its batch.
type txn struct {
	s  *Store
	tc *txConn
	b  *batch
}

func (t *txn) Get(key []byte) ([]byte, error) { return t.tc.get(key) }

func (t *txn) NewIter(lower, upper []byte) (kv.Iterator, error) {
	return newIter(t.s, t.tc, lower, upper)
}

func (t *txn) Batch() kv.Batch { return t.b }
