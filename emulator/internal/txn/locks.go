package txn

import (
	"runtime"
	"sync"
	"time"
)

// lockWait bounds how long a transaction waits for one item's stripe
// before it gives up with a TransactionConflict reason.
const lockWait = 25 * time.Millisecond

// State is the engine's transaction state: the ClientRequestToken
// registry and the items running transactions hold. Its zero value is
// ready.
type State struct {
	mu sync.Mutex
	// swept is when SweepTokens last ran.
	swept  time.Time
	tokens map[tokenKey]*tokenEntry
	// done holds completed entries in completion order, for expiry.
	done []*tokenEntry
	// Wait overrides the lock wait (tests).
	Wait time.Duration
	// items holds the storage keys of the items running transactions
	// hold: only these conflict.
	items sync.Map
}

// LockWait is how long a transaction waits for an item another
// transaction holds.
func (s *State) LockWait() time.Duration {
	if s.Wait > 0 {
		return s.Wait
	}
	return lockWait
}

// Mark flags the items of keys as held by a running transaction (or
// clears them). The caller holds their stripes, so no two transactions
// flag the same item at once.
func (s *State) Mark(keys [][]byte, held bool) {
	for _, k := range keys {
		if held {
			s.items.Store(string(k), struct{}{})
		} else {
			s.items.Delete(string(k))
		}
	}
}

// Holds reports whether a running transaction holds the item at key.
func (s *State) Holds(key []byte) bool {
	_, ok := s.items.Load(string(key))
	return ok
}

// WaitLock tries to lock mu for up to wait, backing off from a few
// microseconds to a millisecond between attempts. A transaction holds its
// stripes for the length of one prepare-and-commit, so a short wait
// absorbs ordinary contention and only a truly busy item ends in a
// conflict.
func WaitLock(mu *sync.Mutex, wait time.Duration) bool {
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

// Reset forgets every ClientRequestToken: the engine's state was replaced
// (a snapshot restore or a reset), so a token's earlier answer no longer
// describes the items. The caller has no transaction running.
func (s *State) Reset() {
	s.mu.Lock()
	s.tokens, s.done = nil, nil
	s.mu.Unlock()
}
