package throttle

import (
	"sync"
	"time"
)

// defaultMinSweep is the number of partition buckets a table direction
// holds before the first sweep for idle full buckets. Sweeps then run
// whenever the map doubles since the last one, so their cost is amortised
// over inserts.
const defaultMinSweep = 1024

// Table is the handle of one registered table: its own bucket per direction
// and the buckets of its partition key values.
type Table struct {
	cfg  *Config
	acct *Account
	// born is when the table was first registered. A partition key value's
	// bucket conceptually exists from then (the partition does), so one that
	// was never used, or was evicted when full, is materialised as if it had
	// been refilling since born. That makes eviction invisible.
	born int64
	// minSweep is defaultMinSweep; tests lower it to sweep small maps.
	minSweep int

	mu   sync.Mutex
	tp   Throughput
	dirs [2]tableDir
	// pin is a direction's rate set by Pin (admin.go); 0 is none.
	pin [2]float64
	// indexes are the table's global secondary indexes (index.go), by name.
	indexes map[string]*Index
}

type tableDir struct {
	rate   float64
	capped bool
	b      bucket
	// parts is nil while the table's rate is at most the partition rate:
	// then a partition bucket, starting at least as full, refilling at
	// least as fast and charged a subset of what the table is charged, can
	// never run dry while the table's bucket is positive, so it cannot
	// refuse and is not kept.
	parts   map[string]*bucket
	sweepAt int
	// used is every unit charged so far, for consumption-driven callers
	// (auto scaling) that sample it and take differences.
	used float64
}

func newTable(cfg *Config, acct *Account, n int64, tp Throughput, minSweep int) *Table {
	t := &Table{cfg: cfg, acct: acct, born: n, tp: tp, minSweep: minSweep}
	for d := Read; d <= Write; d++ {
		td := &t.dirs[d]
		td.rate, td.capped = tp.rate(cfg, d)
		td.b = bucket{bal: td.rate * cfg.InitialSeconds, last: n}
		t.setPartitions(d)
	}
	return t
}

func (t *Table) setPartitions(d Direction) {
	td := &t.dirs[d]
	switch {
	case td.rate <= t.cfg.partitionRate(d):
		td.parts = nil
	case td.parts == nil:
		td.parts = map[string]*bucket{}
		td.sweepAt = t.minSweep
	}
}

func (t *Table) update(n int64, tp Throughput) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tp = tp
	for d := Read; d <= Write; d++ {
		td := &t.dirs[d]
		td.b.refill(n, td.rate, td.rate*t.cfg.BurstSeconds)
		rate, capped := tp.rate(t.cfg, d)
		if t.pin[d] > 0 {
			rate = t.pin[d]
		}
		td.b.bal *= rate / td.rate
		td.rate, td.capped = rate, capped
		t.setPartitions(d)
	}
}

// Throughput returns what the table is registered with.
func (t *Table) Throughput() Throughput {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tp
}

// Limit returns the table bucket's rate in direction d and whether it is an
// on-demand table's OnDemandThroughput cap.
func (t *Table) Limit(d Direction) (rate float64, capped bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dirs[d].rate, t.dirs[d].capped
}

// Admit decides whether a request may run: the account's, the table's and,
// when key is not empty, the partition key value's bucket in direction d
// must each hold a positive balance. They are checked in that order and the
// first that does not names the Cause. key is the partition key value in any
// encoding that is equal exactly for equal values; pass "" for a request that
// spans partitions (Scan). With Config.Off every request is admitted.
func (t *Table) Admit(now time.Time, d Direction, key string) (Cause, bool) {
	if t.cfg.Off {
		return Cause{}, true
	}
	n := now.UnixNano()
	if !t.acct.admit(n, d) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return Cause{Bucket: BucketAccount, Direction: d, Billing: t.tp.Billing}, false
	}
	return t.admitOwn(n, d, key)
}

// admitOwn is Admit without the account: the table's bucket, then key's.
func (t *Table) admitOwn(n int64, d Direction, key string) (Cause, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	td := &t.dirs[d]
	td.b.refill(n, td.rate, td.rate*t.cfg.BurstSeconds)
	if td.b.bal <= 0 {
		return Cause{Bucket: BucketTable, Direction: d, Billing: t.tp.Billing, Capped: td.capped}, false
	}
	if key != "" && td.parts != nil {
		// An absent key's bucket is materialised positive, so only a
		// present one can refuse.
		if pb := td.parts[key]; pb != nil {
			rate := t.cfg.partitionRate(d)
			pb.refill(n, rate, rate*t.cfg.BurstSeconds)
			if pb.bal <= 0 {
				return Cause{Bucket: BucketPartition, Direction: d, Billing: t.tp.Billing}, false
			}
		}
	}
	return Cause{}, true
}

// Charge debits units, what an admitted request actually consumed, from
// every bucket Admit checked for the same d and key. Balances may go
// negative; refill repays the debt. Units that are not positive are ignored.
func (t *Table) Charge(now time.Time, d Direction, key string, units float64) {
	if !(units > 0) {
		return
	}
	n := now.UnixNano()
	t.acct.charge(n, d, units)
	t.chargeOwn(n, d, key, units)
}

// chargeOwn is Charge without the account.
func (t *Table) chargeOwn(n int64, d Direction, key string, units float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	td := &t.dirs[d]
	td.b.refill(n, td.rate, td.rate*t.cfg.BurstSeconds)
	td.b.bal -= units
	td.used += units
	if key == "" || td.parts == nil {
		return
	}
	rate := t.cfg.partitionRate(d)
	ceil := rate * t.cfg.BurstSeconds
	pb := td.parts[key]
	if pb == nil {
		if len(td.parts) >= td.sweepAt {
			t.sweep(td, n, rate, ceil)
		}
		v := t.fresh(n, rate, ceil)
		pb = &v
		td.parts[key] = pb
	}
	pb.refill(n, rate, ceil)
	pb.bal -= units
}

// fresh returns the bucket of a partition key value not held in the map: the
// starting balance (Config.InitialSeconds of rate) at born, refilled to now.
func (t *Table) fresh(n int64, rate, ceil float64) bucket {
	b := bucket{bal: rate * t.cfg.InitialSeconds, last: t.born}
	b.refill(n, rate, ceil)
	if b.last < n {
		b.last = n
	}
	return b
}

// sweep evicts the partition buckets that have refilled to their ceiling:
// fresh would rebuild them identical, so dropping them changes nothing.
func (t *Table) sweep(td *tableDir, n int64, rate, ceil float64) {
	before := len(td.parts)
	for k, pb := range td.parts {
		pb.refill(n, rate, ceil)
		if pb.bal >= ceil {
			delete(td.parts, k)
		}
	}
	// A Go map never gives back the memory of deleted entries, so after a
	// burst of keys has gone idle, move the survivors to a map of their size.
	if len(td.parts) < before/4 {
		m := make(map[string]*bucket, len(td.parts))
		for k, pb := range td.parts {
			m[k] = pb
		}
		td.parts = m
	}
	td.sweepAt = max(t.minSweep, 2*len(td.parts))
}

// Consumed returns every unit charged to the table's own bucket in
// direction d since it was first registered (its indexes' units are
// theirs): a running total, so a sampler takes the difference of two reads
// as what was consumed between them.
func (t *Table) Consumed(d Direction) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dirs[d].used
}

// Balance returns the table bucket's balance in direction d at now.
func (t *Table) Balance(now time.Time, d Direction) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	td := &t.dirs[d]
	td.b.refill(now.UnixNano(), td.rate, td.rate*t.cfg.BurstSeconds)
	return td.b.bal
}

// partitionBalance returns the balance of key's bucket at now and whether
// the table keeps partition buckets in direction d at all.
func (t *Table) partitionBalance(now time.Time, d Direction, key string) (float64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	td := &t.dirs[d]
	if td.parts == nil {
		return 0, false
	}
	n := now.UnixNano()
	rate := t.cfg.partitionRate(d)
	ceil := rate * t.cfg.BurstSeconds
	if pb := td.parts[key]; pb != nil {
		pb.refill(n, rate, ceil)
		return pb.bal, true
	}
	return t.fresh(n, rate, ceil).bal, true
}
