package emulator

import (
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/capacity"
	"github.com/extenddb/extenddb/throttle"
)

// Capacity accounting and throttling live in emulator/internal/capacity;
// these are the names the engine re-exports (wire, console, metrics and
// cmd use them) and the per-request record the engine keeps of what a
// request consumed, which holds its index metadata.

type (
	// ThrottleOptions configures the throttle manager (capacity.Options).
	ThrottleOptions = capacity.Options
	// ThrottleAction is what ThrottleControl does to a table's or GSI's
	// buckets (capacity.Action).
	ThrottleAction = capacity.Action
	// ThrottleStatus is a table's throttle buckets at one moment
	// (capacity.Status).
	ThrottleStatus = capacity.Status
	// Observer is told of consumed capacity and throttle refusals
	// (capacity.Observer).
	Observer = capacity.Observer
	// Consumption is capacity one request consumed on one table or index.
	Consumption = capacity.Consumption
	// ThrottleEvent is one refusal by the throttle manager.
	ThrottleEvent = capacity.ThrottleEvent
)

// Messages of the three throttle errors (see package capacity).
const (
	MsgProvisionedThroughputExceeded      = capacity.MsgProvisionedThroughputExceeded
	MsgOnDemandThroughputExceeded         = capacity.MsgOnDemandThroughputExceeded
	MsgMaxOnDemandThroughputExceeded      = capacity.MsgMaxOnDemandThroughputExceeded
	MsgAccountThroughputExceeded          = capacity.MsgAccountThroughputExceeded
	MsgIndexProvisionedThroughputExceeded = capacity.MsgIndexProvisionedThroughputExceeded
	MsgIndexOnDemandThroughputExceeded    = capacity.MsgIndexOnDemandThroughputExceeded
)

// Throttling reasons (ResourceType + OperationType + LimitType).
const (
	ReasonTableReadProvisionedThroughputExceeded  = capacity.ReasonTableReadProvisionedThroughputExceeded
	ReasonTableWriteProvisionedThroughputExceeded = capacity.ReasonTableWriteProvisionedThroughputExceeded
	ReasonTableReadKeyRangeThroughputExceeded     = capacity.ReasonTableReadKeyRangeThroughputExceeded
	ReasonTableWriteKeyRangeThroughputExceeded    = capacity.ReasonTableWriteKeyRangeThroughputExceeded
	ReasonTableReadMaxOnDemandThroughputExceeded  = capacity.ReasonTableReadMaxOnDemandThroughputExceeded
	ReasonTableWriteMaxOnDemandThroughputExceeded = capacity.ReasonTableWriteMaxOnDemandThroughputExceeded
	ReasonTableReadAccountLimitExceeded           = capacity.ReasonTableReadAccountLimitExceeded
	ReasonTableWriteAccountLimitExceeded          = capacity.ReasonTableWriteAccountLimitExceeded
	ReasonIndexReadProvisionedThroughputExceeded  = capacity.ReasonIndexReadProvisionedThroughputExceeded
	ReasonIndexWriteProvisionedThroughputExceeded = capacity.ReasonIndexWriteProvisionedThroughputExceeded
	ReasonIndexReadKeyRangeThroughputExceeded     = capacity.ReasonIndexReadKeyRangeThroughputExceeded
	ReasonIndexWriteKeyRangeThroughputExceeded    = capacity.ReasonIndexWriteKeyRangeThroughputExceeded
	ReasonIndexReadMaxOnDemandThroughputExceeded  = capacity.ReasonIndexReadMaxOnDemandThroughputExceeded
	ReasonIndexWriteMaxOnDemandThroughputExceeded = capacity.ReasonIndexWriteMaxOnDemandThroughputExceeded
	ReasonIndexReadAccountLimitExceeded           = capacity.ReasonIndexReadAccountLimitExceeded
	ReasonIndexWriteAccountLimitExceeded          = capacity.ReasonIndexWriteAccountLimitExceeded
)

// Cancellation reason codes of a throttled transaction action.
const (
	CancelProvisionedThroughputExceeded = capacity.CancelProvisionedThroughputExceeded
	CancelThrottlingError               = capacity.CancelThrottlingError
)

// ReadUnits is the RCUs of reading one item of itemBytes (capacity.ReadUnits).
func ReadUnits(itemBytes int, consistent bool) float64 {
	return capacity.ReadUnits(itemBytes, consistent)
}

// WriteUnits is the WCUs of writing one item of itemBytes
// (capacity.WriteUnits).
func WriteUnits(itemBytes int) float64 { return capacity.WriteUnits(itemBytes) }

// ThrottleError returns the error the service sends when the throttle
// manager refuses a request for cause c (capacity.ThrottleError).
func ThrottleError(c throttle.Cause, resource string) *api.Error {
	return capacity.ThrottleError(c, resource)
}

// ThrottleCancellationReason returns the cancellation reason of a
// transaction action refused for cause c (capacity.ThrottleCancellationReason).
func ThrottleCancellationReason(c throttle.Cause) api.CancellationReason {
	return capacity.ThrottleCancellationReason(c)
}

// ThrottleResource returns the resource the account bucket's refusal names
// for a request's TableName member (capacity.ThrottleResource).
func ThrottleResource(ns api.Namespace, tableName string) string {
	return capacity.ThrottleResource(ns, tableName)
}

// ThrottleThroughput returns what a table described by d is registered
// with in the throttle manager (capacity.ThrottleThroughput).
func ThrottleThroughput(d *api.TableDescription) throttle.Throughput {
	return capacity.ThrottleThroughput(d)
}

// Observers returns one Observer telling each non-nil one of obs, or nil
// when there is none (capacity.Observers).
func Observers(obs ...Observer) Observer { return capacity.Observers(obs...) }

// capacityUse is what one request consumed on one table and its indexes.
type capacityUse struct {
	read  bool
	table float64
	gsi   map[string]float64
	lsi   map[string]float64
	// vec is a write's vector bytes by vector index (vector_write.go).
	vec map[string]float64
	// shares are the GSI units of gsi again, by index partition, for the
	// throttle: each GSI with buckets of its own is admitted and charged
	// there (throttle_engine.go). The rest stays on the table's buckets.
	shares []gsiShare
}

// gsiShare is what a request consumed on one partition of a GSI.
type gsiShare struct {
	ix *indexMeta
	// part is the index partition's bucket key (indexPartitionOf); "" for
	// a request that spans partitions (Scan).
	part  string
	units float64
	// entry is the index entry key a write puts or deletes (nil for a
	// read): Contributor Insights counts its index key as an item.
	entry []byte
}

// addShare records units on GSI ix's partition part (and entry key entry,
// for a write) for the throttle; ix
// without a throttle handle (an LSI, or a GSI that could not be
// registered) records nothing and so stays pooled with the table.
func (c *capacityUse) addShare(ix *indexMeta, part string, entry []byte, units float64) {
	if units == 0 || ix.thr == nil {
		return
	}
	c.shares = append(c.shares, gsiShare{ix: ix, part: part, units: units, entry: entry})
}

func (c *capacityUse) addIndex(ix *indexMeta, units float64) {
	if units == 0 {
		return
	}
	m := &c.gsi
	if ix.Local {
		m = &c.lsi
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[ix.Name] += units
}

// total is the request's CapacityUnits: the table plus every index.
func (c *capacityUse) total() float64 { return capacity.Sum(c.table, c.gsi, c.lsi) }

// consumed renders c for ReturnConsumedCapacity mode (capacity.Consumed).
func (c *capacityUse) consumed(tableName string, mode *string) *api.ConsumedCapacity {
	cc := capacity.Consumed(tableName, mode, c.table, c.gsi, c.lsi)
	if cc != nil && len(c.vec) > 0 && *mode == "INDEXES" {
		cc.VectorIndexes = vectorCapacity(c.vec)
	}
	return cc
}

func f64(v float64) *float64 { return capacity.F64(v) }

// indexWrites is the WCUs one write costs a secondary index, split by where
// they land (capacity.IndexWrites).
func indexWrites(oldEntry, newEntry av.Item, oldKey, newKey []byte) (del, put float64) {
	return capacity.IndexWrites(oldEntry, newEntry, oldKey, newKey)
}
