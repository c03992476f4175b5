package emulator

import (
	"errors"
	"slices"
	"sync"
	"time"
)

// waitLock tries to lock mu for up to wait, backing off from a few
// microseconds to a millisecond between attempts. A transaction holds its
// stripes for the length of one prepare-and-commit, so a short wait absorbs
// ordinary contention and only a truly busy item ends in a conflict.
func waitLock(mu *sync.Mutex, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	pause := 5 * time.Microsecond
	for {
		if mu.TryLock() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Millisecond)
	}
}

// sortUnique sorts s and drops repeated stripes.
func sortUnique(s *[]uint16) {
	slices.Sort(*s)
	*s = slices.Compact(*s)
}

// asError is errors.As for the engine's own error type.
func asError(err error, target **Error) bool { return errors.As(err, target) }
