package throttle

import (
	"sort"
	"time"
)

// Index is the handle of one global secondary index of a registered table.
// A GSI has capacity of its own, as on the service: a bucket per direction
// sized by its own Throughput exactly as a table's is (provisioned RCU/WCU,
// else its OnDemandThroughput cap, else the default per-table ceiling), and
// a bucket per index partition key value at the partition rates. It also
// counts toward its table's per-table quota: where the table's own bucket in
// a direction is that quota (an OnDemand table without a cap there), the
// index is admitted against it and charged to it too, so the table and its
// indexes share it. Local secondary indexes have no handle: they share their
// table's capacity.
type Index struct {
	name  string
	table *Table
	// own holds the index's buckets; it is built and re-sized by the same
	// code as a table's, its account is the table's.
	own *Table
}

// RegisterIndex sizes the buckets of the table's global secondary index
// name by tp and returns its handle. A new index's buckets start at now as a
// new table's do; registering it again (UpdateTable changed its throughput
// or caps, or the table's billing mode) scales the balances to the new rates
// as Register does for a table.
func (t *Table) RegisterIndex(now time.Time, name string, tp Throughput) (*Index, error) {
	if err := tp.validate(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ix := t.indexes[name]; ix != nil {
		ix.own.update(now.UnixNano(), tp)
		return ix, nil
	}
	ix := &Index{name: name, table: t, own: newTable(t.cfg, t.acct, now.UnixNano(), tp, t.minSweep)}
	if t.indexes == nil {
		t.indexes = map[string]*Index{}
	}
	t.indexes[name] = ix
	return ix, nil
}

// Index returns the handle of the table's index name, or nil.
func (t *Table) Index(name string) *Index {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.indexes[name]
}

// Indexes returns the names of the registered indexes, sorted.
func (t *Table) Indexes() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.indexes))
	for n := range t.indexes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// UnregisterIndex forgets index name (deleted by UpdateTable); one of the
// same name registered later starts afresh.
func (t *Table) UnregisterIndex(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.indexes, name)
}

// Name returns the index's name.
func (ix *Index) Name() string { return ix.name }

// Throughput returns what the index is registered with.
func (ix *Index) Throughput() Throughput { return ix.own.Throughput() }

// Limit returns the index bucket's rate in direction d and whether it is an
// OnDemandThroughput cap.
func (ix *Index) Limit(d Direction) (rate float64, capped bool) { return ix.own.Limit(d) }

// Consumed returns every unit charged to the index in direction d since
// it was first registered, as Table.Consumed does.
func (ix *Index) Consumed(d Direction) float64 { return ix.own.Consumed(d) }

// Balance returns the index bucket's balance in direction d at now.
func (ix *Index) Balance(now time.Time, d Direction) float64 { return ix.own.Balance(now, d) }

// State returns the index's buckets refilled to now.
func (ix *Index) State(now time.Time) TableState { return ix.own.State(now) }

// Drain empties the index's bucket in direction d into one second of debt,
// as Table.Drain does.
func (ix *Index) Drain(now time.Time, d Direction) { ix.own.Drain(now, d) }

// Admit decides whether a request may consume the index's capacity in
// direction d: a read of the index, or the index's share of a base-table
// write. The account's bucket, the table's per-table quota (when its bucket
// is one, see Index), the index's bucket and, when key is not empty, the
// bucket of index partition key value key must each hold a positive balance,
// checked in that order; the first that does not names the Cause, with
// Cause.Index set.
func (ix *Index) Admit(now time.Time, d Direction, key string) (Cause, bool) {
	t := ix.table
	if t.cfg.Off {
		return Cause{}, true
	}
	n := now.UnixNano()
	if !t.acct.admit(n, d) {
		return Cause{Bucket: BucketAccount, Direction: d, Billing: ix.own.billing(), Index: ix.name}, false
	}
	if !t.quotaAdmit(n, d) {
		return Cause{Bucket: BucketTable, Direction: d, Billing: OnDemand, Index: ix.name}, false
	}
	c, ok := ix.own.admitOwn(n, d, key)
	if !ok {
		c.Index = ix.name
	}
	return c, ok
}

// Charge debits units from every bucket Admit checked for the same d and
// key. Units that are not positive are ignored.
func (ix *Index) Charge(now time.Time, d Direction, key string, units float64) {
	if !(units > 0) {
		return
	}
	t := ix.table
	n := now.UnixNano()
	t.acct.charge(n, d, units)
	t.quotaCharge(n, d, units)
	ix.own.chargeOwn(n, d, key, units)
}

func (t *Table) billing() Billing {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tp.Billing
}

// quota reports whether the table's bucket in direction d is the per-table
// quota its indexes share: an OnDemand table's default ceiling. A
// provisioned table's RCU/WCU and an on-demand cap are the table's alone.
// t.mu held.
func (t *Table) quota(d Direction) bool {
	return t.tp.Billing == OnDemand && !t.dirs[d].capped
}

// quotaAdmit reports whether the table's per-table quota in direction d
// admits an index request (true when the table has none).
func (t *Table) quotaAdmit(n int64, d Direction) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.quota(d) {
		return true
	}
	td := &t.dirs[d]
	td.b.refill(n, td.rate, td.rate*t.cfg.BurstSeconds)
	return td.b.bal > 0
}

// quotaCharge debits an index's units from the table's per-table quota.
func (t *Table) quotaCharge(n int64, d Direction, units float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.quota(d) {
		return
	}
	td := &t.dirs[d]
	td.b.refill(n, td.rate, td.rate*t.cfg.BurstSeconds)
	td.b.bal -= units
}

// Reset puts the index's buckets back where a new index's start, as
// Table.Reset does (its table's are not touched).
func (ix *Index) Reset(now time.Time) { ix.own.Reset(now) }

// Pin sets the index's rate in direction d, as Table.Pin does.
func (ix *Index) Pin(now time.Time, d Direction, rate float64) error { return ix.own.Pin(now, d, rate) }

// Unpin returns direction d to the rate the index's throughput gives.
func (ix *Index) Unpin(now time.Time, d Direction) { ix.own.Unpin(now, d) }
