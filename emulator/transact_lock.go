package emulator

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"
)

// waitLock tries to lock mu for up to wait, backing off from a few
// microseconds to a millisecond between attempts. A transaction holds its
// stripes for the length of one prepare-and-commit, so a short wait absorbs
// ordinary contention and only a truly busy item ends in a conflict.
func waitLock(mu *sync.Mutex, wait time.Duration) bool {
	// Yield first: the holder is usually a commit away from releasing.
	for range 16 {
		runtime.Gosched()
		if mu.TryLock() {
			return true
		}
	}
	deadline := time.Now().Add(wait)
	pause := 10 * time.Microsecond
	for {
		if mu.TryLock() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 200*time.Microsecond)
	}
}

// sortUnique sorts s and drops repeated stripes.
func sortUnique(s *[]uint16) {
	slices.Sort(*s)
	*s = slices.Compact(*s)
}

// asError is errors.As for the engine's own error type.
func asError(err error, target **Error) bool { return errors.As(err, target) }

// waitItem locks mu, a busy stripe. While conflicting reports that the
// item wanted is held by a transaction, it waits at most the transaction
// lock wait and gives up (false); otherwise the stripe is merely shared
// with other items and it waits as long as it takes.
func (e *Engine) waitItem(mu *sync.Mutex, conflicting func() bool) bool {
	for {
		if !conflicting() {
			// Blocking here cannot deadlock: multi-stripe holders take
			// stripes in ascending order and single writers hold one.
			mu.Lock()
			return true
		}
		if waitLock(mu, e.tx.lockWait()) {
			return true
		}
		if conflicting() {
			return false
		}
	}
}

// lockForWrite takes the stripe of a single-item write. If a committing
// transaction holds this very item, the write waits as long as a
// transaction would, then gets TransactionConflictException, as DynamoDB
// answers a write to an item a transaction is working on. A stripe busy
// for any other reason is simply waited for.
func (e *Engine) lockForWrite(key []byte) (uint16, error) {
	s := stripeOf(key)
	mu := &e.items.locks.mu[s]
	if mu.TryLock() {
		return s, nil
	}
	if e.waitItem(mu, func() bool { return e.tx.holds(key) }) {
		return s, nil
	}
	return 0, NewError(CodeTransactionConflict, msgTxConflict)
}

// mark flags the items of keys as held by a running transaction (or
// clears them). The caller holds their stripes, so no two transactions
// flag the same item at once.
func (s *txState) mark(keys [][]byte, held bool) {
	for _, k := range keys {
		if held {
			s.items.Store(string(k), struct{}{})
		} else {
			s.items.Delete(string(k))
		}
	}
}

// holds reports whether a running transaction holds the item at key.
func (s *txState) holds(key []byte) bool {
	_, ok := s.items.Load(string(key))
	return ok
}
