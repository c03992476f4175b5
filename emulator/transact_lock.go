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

// lockForWrite takes the stripe of a single-item write. A stripe held by
// a committing transaction is waited for as long as a transaction would
// wait, then the write gets TransactionConflictException, as DynamoDB
// answers a write to an item a transaction is working on. A stripe held by
// another single-item write is simply waited for.
func (e *Engine) lockForWrite(key []byte) (uint16, error) {
	s := stripeOf(key)
	mu := &e.items.locks.mu[s]
	if mu.TryLock() {
		return s, nil
	}
	if !e.tx.held[s].Load() {
		mu.Lock()
		return s, nil
	}
	if waitLock(mu, e.tx.lockWait()) {
		return s, nil
	}
	return 0, NewError(CodeTransactionConflict, msgTxConflict)
}

// markHeld flags stripes as held by a transaction (or clears them).
func (e *Engine) markHeld(stripes []uint16, held bool) {
	for _, s := range stripes {
		e.tx.held[s].Store(held)
	}
}
