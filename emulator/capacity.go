package emulator

import (
	"bytes"
	"sort"

	"github.com/extenddb/extenddb/emulator/av"
)

// Capacity accounting by DynamoDB's rules (throttling-facts.md §4). One
// number per request feeds both ReturnConsumedCapacity and the throttle
// manager (through chargeThroughput, in throttle_engine.go), so the two can never disagree.

const (
	readUnitBytes  = 4 * 1024
	writeUnitBytes = 1024
)

// ReadUnits is the RCUs of reading one item of itemBytes (GetItem,
// BatchGetItem per item, TransactGetItems before doubling): 4 KB units
// rounded up, at least one, halved for an eventually consistent read. A
// missing item costs the minimum.
func ReadUnits(itemBytes int, consistent bool) float64 {
	u := float64(max(1, (itemBytes+readUnitBytes-1)/readUnitBytes))
	if !consistent {
		u /= 2
	}
	return u
}

// WriteUnits is the WCUs of writing one item whose larger version (old or
// new) is itemBytes: 1 KB units rounded up, at least one. Deleting a missing
// item and a failed condition still cost this.
func WriteUnits(itemBytes int) float64 {
	return float64(max(1, (itemBytes+writeUnitBytes-1)/writeUnitBytes))
}

// indexWriteUnits is the WCUs one write costs a secondary index, given the
// item's entry in it before and after (nil when the item is not in the
// index) and the entries' index keys: a new entry or a removed one is one
// write of its size, a key change is a delete plus a put, a changed
// projection is one write, and no visible change costs nothing.
func indexWriteUnits(oldEntry, newEntry av.Item, oldKey, newKey []byte) float64 {
	del, put := indexWrites(oldEntry, newEntry, oldKey, newKey)
	return del + put
}

// indexWrites is indexWriteUnits split by where the writes land: del on
// the old entry's key (a removal, or the delete half of a key change), put
// on the new entry's key.
func indexWrites(oldEntry, newEntry av.Item, oldKey, newKey []byte) (del, put float64) {
	switch {
	case oldEntry == nil && newEntry == nil:
		return 0, 0
	case oldEntry == nil:
		return 0, WriteUnits(av.ItemSize(newEntry))
	case newEntry == nil:
		return WriteUnits(av.ItemSize(oldEntry)), 0
	case !bytes.Equal(oldKey, newKey):
		return WriteUnits(av.ItemSize(oldEntry)), WriteUnits(av.ItemSize(newEntry))
	case av.EqualItems(oldEntry, newEntry):
		return 0, 0
	}
	return 0, WriteUnits(av.ItemSize(newEntry))
}

// capacityUse is what one request consumed on one table and its indexes.
type capacityUse struct {
	read  bool
	table float64
	gsi   map[string]float64
	lsi   map[string]float64
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
func (c *capacityUse) total() float64 {
	t := c.table
	for _, u := range c.gsi {
		t += u
	}
	for _, u := range c.lsi {
		t += u
	}
	return t
}

// consumed renders c for ReturnConsumedCapacity mode (TOTAL, INDEXES or
// NONE/absent → nil). TableName echoes the request's TableName, an ARN if
// one was sent, as DynamoDB does. The shapes follow the live responses
// dynalite recorded: TOTAL carries only CapacityUnits; INDEXES adds Table
// and one map entry per index the request touched.
func (c *capacityUse) consumed(tableName string, mode *string) *ConsumedCapacity {
	if mode == nil || (*mode != "TOTAL" && *mode != "INDEXES") {
		return nil
	}
	out := &ConsumedCapacity{TableName: tableName, CapacityUnits: f64(c.total())}
	if *mode == "INDEXES" {
		out.Table = &Capacity{CapacityUnits: f64(c.table)}
		if len(c.gsi) > 0 {
			out.GlobalSecondaryIndexes = capacityMap(c.gsi)
		}
		if len(c.lsi) > 0 {
			out.LocalSecondaryIndexes = capacityMap(c.lsi)
		}
	}
	return out
}

func capacityMap(m map[string]float64) map[string]Capacity {
	out := make(map[string]Capacity, len(m))
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out[n] = Capacity{CapacityUnits: f64(m[n])}
	}
	return out
}

func f64(v float64) *float64 { return &v }
