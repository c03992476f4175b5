package throttle

import (
	"errors"
	"time"
)

// The controls tests use to steer a table's buckets: see its state, reset
// it, drain it so the next request is refused, pin it to a rate.

// DirState is one direction of a table's buckets at a moment.
type DirState struct {
	// Rate is the table bucket's refill rate in units per second (the
	// pinned rate while pinned).
	Rate float64 `json:"rate"`
	// Balance is what the table bucket holds; negative is debt.
	Balance float64 `json:"balance"`
	// Debt is -Balance when negative, else 0: what refill must repay before
	// a request is admitted again.
	Debt float64 `json:"debt"`
	// Ceiling is the most the bucket banks (BurstSeconds of Rate).
	Ceiling float64 `json:"ceiling"`
	// Pinned reports that Rate was set by Pin, not by the table's throughput.
	Pinned bool `json:"pinned"`
	// Partitions is how many partition key buckets are held (idle full ones
	// are not).
	Partitions int `json:"partitions"`
}

// TableState is a table's buckets in both directions.
type TableState struct {
	Read  DirState `json:"read"`
	Write DirState `json:"write"`
}

// State returns the table's buckets refilled to now.
func (t *Table) State(now time.Time) TableState {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s TableState
	for d := Read; d <= Write; d++ {
		td := &t.dirs[d]
		td.b.refill(now.UnixNano(), td.rate, td.rate*t.cfg.BurstSeconds)
		ds := DirState{Rate: td.rate, Balance: td.b.bal, Ceiling: td.rate * t.cfg.BurstSeconds, Pinned: t.pin[d] > 0, Partitions: len(td.parts)}
		if ds.Balance < 0 {
			ds.Debt = -ds.Balance
		}
		if d == Read {
			s.Read = ds
		} else {
			s.Write = ds
		}
	}
	return s
}

// Reset puts the table's buckets, and its indexes', back where a new
// table's start: the starting balance (Config.InitialSeconds of their
// rate), and every partition key bucket forgotten (they start anew from
// now too).
func (t *Table) Reset(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := now.UnixNano()
	t.born = n
	for d := Read; d <= Write; d++ {
		td := &t.dirs[d]
		td.b = bucket{bal: td.rate * t.cfg.InitialSeconds, last: n}
		if td.parts != nil {
			td.parts = map[string]*bucket{}
		}
	}
	// The table's indexes start anew with it.
	for _, ix := range t.indexes {
		ix.own.Reset(now)
	}
}

// Drain empties the table's bucket in direction d into one second of debt,
// so requests are refused until refill repays it (about a second, at the
// table's rate).
func (t *Table) Drain(now time.Time, d Direction) {
	t.mu.Lock()
	defer t.mu.Unlock()
	td := &t.dirs[d]
	td.b = bucket{bal: -td.rate, last: now.UnixNano()}
}

// ErrBadRate is a pinned rate that is not a positive number.
var ErrBadRate = errors.New("throttle: a pinned rate must be a positive number of units per second")

// Pin sets the table's rate in direction d to rate units per second,
// whatever its throughput says, until Unpin; the balance keeps its seconds
// of capacity, as a throughput change does. UpdateTable does not undo it.
func (t *Table) Pin(now time.Time, d Direction, rate float64) error {
	if !(rate > 0) || rate > 1e12 {
		return ErrBadRate
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pin[d] = rate
	t.setRate(now.UnixNano(), d, rate, t.dirs[d].capped)
	return nil
}

// Unpin returns direction d to the rate the table's throughput gives.
func (t *Table) Unpin(now time.Time, d Direction) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pin[d] = 0
	rate, capped := t.tp.rate(t.cfg, d)
	t.setRate(now.UnixNano(), d, rate, capped)
}

// setRate refills direction d at its old rate, then moves it to rate,
// scaling the balance so it keeps the same seconds of capacity. t.mu held.
func (t *Table) setRate(n int64, d Direction, rate float64, capped bool) {
	td := &t.dirs[d]
	td.b.refill(n, td.rate, td.rate*t.cfg.BurstSeconds)
	td.b.bal *= rate / td.rate
	td.rate, td.capped = rate, capped
	t.setPartitions(d)
}
