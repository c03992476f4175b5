package emulator

// The throttle wiring: how the engine uses the throttle manager of
// emulator/internal/capacity (on package throttle's buckets) with its table
// metadata and storage keys.
//
// Registration. Every table's buckets are (re)sized where its metadata is
// cached (cacheTable): CreateTable, the load at start-up (so a restart
// registers every table again with its starting balance), UpdateTable
// (Register scales the balances to the new rates) and every other metadata
// change, which re-registers the same throughput and so changes nothing.
// The handle rides on the cached *tableMeta, so the data path finds it
// without a lookup; uncacheTable and a DELETING table unregister the name,
// so a table re-created under it starts afresh.
//
// Admission. Each data-plane operation asks, before it does the work:
//   - throttleAccount at its very start, before validation and before the
//     table is resolved (the service's front door refuses there too), with
//     the request's TableName only to name the resource;
//   - throttleAdmit once its table and key are known: the account, table
//     and partition key value buckets, in that order.
//
// Batches and transactions admit per item and turn a refusal into an
// unprocessed item or a cancellation reason (throttleReason).
//
// Charging. chargeThroughput debits what the request consumed, the number
// ReturnConsumedCapacity reports (capacityUse.total), from the buckets
// throttleAdmit checked. It never fails the request after the fact.

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/capacity"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/throttle"
)

// initThrottle builds the manager from opts; New calls it before loading
// the tables so that loading registers them.
func (e *Engine) initThrottle() error {
	m, err := capacity.New(e.opts.Throttle, e.opts.Limits)
	if err != nil {
		return fmt.Errorf("emulator: Options.Throttle: %w", err)
	}
	e.thr = m
	return nil
}

// throughputOf is what table t is registered with: PAY_PER_REQUEST with its
// OnDemandThroughput caps (0, the stored form of absent or -1, is no cap),
// else PROVISIONED with its RCU and WCU.
func throughputOf(t *tableMeta) throttle.Throughput {
	if t.BillingMode == billingPayPerRequest {
		return throttle.OnDemandThroughput(t.OnDemand.Read, t.OnDemand.Write)
	}
	return throttle.ProvisionedThroughput(t.Throughput.Read, t.Throughput.Write)
}

// indexThroughputOf is what GSI ix of table t is registered with: the
// table's billing mode, with the index's own caps or RCU and WCU.
func indexThroughputOf(t *tableMeta, ix *indexMeta) throttle.Throughput {
	if t.BillingMode == billingPayPerRequest {
		return throttle.OnDemandThroughput(ix.OnDemand.Read, ix.OnDemand.Write)
	}
	return throttle.ProvisionedThroughput(ix.Throughput.Read, ix.Throughput.Write)
}

// throttleCached registers t as it is being cached and hangs the handle on
// it. The caller holds e.mu for writing (or is New), which serialises
// registrations of one table.
func (e *Engine) throttleCached(t *tableMeta) {
	if e.thr == nil {
		return
	}
	if t.Deleting {
		e.thr.Unregister(t.ns(), t.Name)
		return
	}
	h, err := e.thr.Register(e.now(), t.ns(), t.Name, throughputOf(t))
	if err != nil {
		// Validation keeps such throughputs out; an unthrottled table is
		// better than a failed metadata change.
		e.log.Warn().Err(err).Str("table", t.Name).Msg("throttle: table not registered")
		return
	}
	t.thr = h
	// Every GSI writes maintain has buckets of its own (re-sized here when
	// UpdateTable changed them); a deleted one's are forgotten.
	active := map[string]bool{}
	for _, ix := range t.GSIs {
		if ix.Deleted {
			continue
		}
		ih, err := h.RegisterIndex(e.now(), ix.Name, indexThroughputOf(t, ix))
		if err != nil {
			e.log.Warn().Err(err).Str("table", t.Name).Str("index", ix.Name).Msg("throttle: index not registered")
			continue
		}
		ix.thr = ih
		active[ix.Name] = true
	}
	for _, name := range h.Indexes() {
		if !active[name] {
			h.UnregisterIndex(name)
		}
	}
}

// throttleUncached forgets the buckets of table name in ns.
func (e *Engine) throttleUncached(ns api.Namespace, name string) {
	if e.thr != nil {
		e.thr.Unregister(ns, name)
	}
}

// throttleAccount admits a request against the account's aggregate in
// direction d before anything else is looked at. A refusal names the table
// the TableName member designates (ThrottleResource), or no resource at all
// for a name no table can have.
func (e *Engine) throttleAccount(ns api.Namespace, tableName *string, d throttle.Direction) error {
	if e.thr == nil {
		return nil
	}
	return e.thr.AdmitAccount(e.now(), ns, tableName, d, e.opts.Observer)
}

// throttleAdmit admits a request on table t in direction d. key is the
// storage key the request is about (an item key or a Query's partition
// prefix); nil spans partitions (Scan). It returns the throttle error the
// service sends, or nil.
func (e *Engine) throttleAdmit(t *tableMeta, d throttle.Direction, key []byte) error {
	c, ok := e.throttleCheck(t, d, key)
	if ok {
		return nil
	}
	return capacity.ThrottleError(c, t.ARN())
}

// throttleReason is throttleAdmit for one action of a transaction: the
// action's cancellation reason, or nil when it is admitted.
func (e *Engine) throttleReason(t *tableMeta, d throttle.Direction, key []byte) *api.CancellationReason {
	c, ok := e.throttleCheck(t, d, key)
	if ok {
		return nil
	}
	r := capacity.ThrottleCancellationReason(c)
	return &r
}

func (e *Engine) throttleCheck(t *tableMeta, d throttle.Direction, key []byte) (throttle.Cause, bool) {
	if t.thr == nil {
		return throttle.Cause{}, true
	}
	now := e.now()
	c, ok := t.thr.Admit(now, d, partitionOf(t, key))
	if !ok {
		if o := e.opts.Observer; o != nil {
			capacity.ObserveRefusal(o, t.ns(), t.Name, partitionBytes(t, key), avType(t.hashKey().Type), c)
		}
		if t.ci != nil {
			t.ci.Throttled(now, itemKeyBytes(key))
		}
	}
	return c, ok
}

// throttleIndexAdmit admits a read of GSI ix of table t: key is the Query's
// index partition prefix, nil for a Scan. It returns the throttle error the
// service sends, naming the index's ARN, or nil.
func (e *Engine) throttleIndexAdmit(t *tableMeta, ix *indexMeta, key []byte) error {
	sh := [1]gsiShare{{ix: ix, part: indexPartitionOf(ix, key)}}
	if c, _, ok := e.throttleShares(t, sh[:], throttle.Read); !ok {
		return capacity.ThrottleError(c, t.ns().IndexARN(t.Name, ix.Name))
	}
	return nil
}

// throttleShares admits each GSI share of a request on table t in
// direction d, in order; the first refused names its cause and index.
func (e *Engine) throttleShares(t *tableMeta, shares []gsiShare, d throttle.Direction) (throttle.Cause, *indexMeta, bool) {
	if len(shares) == 0 {
		return throttle.Cause{}, nil, true
	}
	now := e.now()
	for _, sh := range shares {
		if c, ok := sh.ix.thr.Admit(now, d, sh.part); !ok {
			if o := e.opts.Observer; o != nil {
				capacity.ObserveRefusal(o, t.ns(), t.Name, nil, avType(t.hashKey().Type), c)
			}
			if sh.ix.ci != nil {
				sh.ix.ci.IndexThrottled(now, sh.part, indexKeyBytes(sh.entry))
			}
			return c, sh.ix, false
		}
	}
	return throttle.Cause{}, nil, true
}

// chargeThroughput debits what a request consumed on table t (c, the number
// ReturnConsumedCapacity reports) from the buckets throttleAdmit checked for
// key, and each GSI share from its index's buckets; an LSI's units are the
// table's, as its capacity is.
func (e *Engine) chargeThroughput(ctx context.Context, t *tableMeta, key []byte, c *capacityUse) {
	recordUsage(ctx, t.Name, c)
	// One reading of the clock for the buckets, insights and observers.
	now := e.now()
	if t.thr != nil {
		d := throttle.Write
		if c.read {
			d = throttle.Read
		}
		units := c.total()
		for _, sh := range c.shares {
			sh.ix.thr.Charge(now, d, sh.part, sh.units)
			units -= sh.units
		}
		t.thr.Charge(now, d, partitionOf(t, key), units)
	}
	if t.ci != nil {
		t.ci.Consumed(now, itemKeyBytes(key), c.table)
	}
	for _, sh := range c.shares {
		if sh.ix.ci != nil {
			sh.ix.ci.IndexConsumed(now, sh.part, indexKeyBytes(sh.entry), sh.units)
		}
	}
	if o := e.opts.Observer; o != nil {
		capacity.ObserveCharge(o, now, &capacity.Charge{Namespace: t.ns(), Table: t.Name, Part: partitionBytes(t, key),
			KeyType: avType(t.hashKey().Type), Read: c.read, Units: c.table, GSI: c.gsi, LSI: c.lsi, Buckets: t.thr})
	}
}

// partitionOf returns the partition bucket key of a storage key: the hashed
// and encoded partition key value of an item key or a Query's partition
// prefix on the table. An index key (a Query on an index) and nil give ""
// (no partition bucket of the table's: see indexPartitionOf).
func partitionOf(t *tableMeta, key []byte) string {
	return string(partitionBytes(t, key))
}

// indexPartitionOf returns the partition bucket key of an index storage
// key of GSI ix: the hashed and encoded index partition key value of an
// entry key or a Query's index partition prefix. nil gives "".
func indexPartitionOf(ix *indexMeta, key []byte) string {
	const head = 1 + len(keyspace.TableID{}) + 4 // family byte, table ID, index ID
	if len(key) <= head+4 || key[0] != keyspace.FamIndex {
		return ""
	}
	p := key[head:]
	rest, err := av.SkipKey(p[4:], avType(ix.KeySchema[0].Type))
	if err != nil {
		return string(p)
	}
	return string(p[:len(p)-len(rest)])
}

// partitionBytes is partitionOf without the copy (nil for "").
func partitionBytes(t *tableMeta, key []byte) []byte {
	const head = 1 + len(keyspace.TableID{}) // family byte and table ID
	if len(key) <= head+4 || key[0] != keyspace.FamItem {
		return nil
	}
	p := key[head:]
	if _, ok := t.rangeKey(); !ok {
		return p
	}
	rest, err := av.SkipKey(p[4:], avType(t.hashKey().Type))
	if err != nil {
		return p
	}
	return p[:len(p)-len(rest)]
}

// batchThrottle collects a batch's admissions (capacity.Batch).
type batchThrottle = capacity.Batch

// isThrottle reports whether err is one of the three throttle errors.
func isThrottle(err error) bool { return capacity.IsThrottle(err) }

// ThrottleState returns the buckets of table name in ns, or of its global
// secondary index index when that is not "".
func (e *Engine) ThrottleState(_ context.Context, ns api.Namespace, name, index string) (*throttle.TableState, error) {
	return e.thr.State(e.now(), ns, name, index)
}

// ThrottleControl applies a to the buckets of table name in ns (or of its
// GSI a.Index) and returns their state afterwards.
func (e *Engine) ThrottleControl(ctx context.Context, ns api.Namespace, name string, a ThrottleAction) (*throttle.TableState, error) {
	if err := e.thr.Control(e.now(), ns, name, a); err != nil {
		return nil, err
	}
	return e.ThrottleState(ctx, ns, name, a.Index)
}
