package capacity

import (
	"bytes"
	"sort"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// Capacity accounting by DynamoDB's rules (Developer Guide, "DynamoDB read
// and write operations" and "DynamoDB item sizes and formats"). One
// number per request feeds both ReturnConsumedCapacity and the throttle
// manager, so the two can never disagree.

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

// IndexWrites is the WCUs one write costs a secondary index, given the
// item's entry in it before and after (nil when the item is not in the
// index) and the entries' index keys, split by where the writes land: del
// on the old entry's key (a removal, or the delete half of a key change),
// put on the new entry's key. A new entry or a removed one is one write of
// its size, a key change is a delete plus a put, a changed projection is
// one write, and no visible change costs nothing.
func IndexWrites(oldEntry, newEntry av.Item, oldKey, newKey []byte) (del, put float64) {
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

// Sum is the request's CapacityUnits: the table's units plus every
// index's.
func Sum(table float64, gsi, lsi map[string]float64) float64 {
	t := table
	for _, u := range gsi {
		t += u
	}
	for _, u := range lsi {
		t += u
	}
	return t
}

// Consumed renders what a request consumed (table, and per GSI and LSI
// name) for ReturnConsumedCapacity mode (TOTAL, INDEXES or NONE/absent →
// nil). TableName echoes the request's TableName, an ARN if one was sent,
// as DynamoDB does. TOTAL carries only CapacityUnits; INDEXES adds Table
// and one map entry per index the request touched (ConsumedCapacity in the
// API Reference).
func Consumed(tableName string, mode *string, table float64, gsi, lsi map[string]float64) *api.ConsumedCapacity {
	if mode == nil || (*mode != "TOTAL" && *mode != "INDEXES") {
		return nil
	}
	out := &api.ConsumedCapacity{TableName: tableName, CapacityUnits: F64(Sum(table, gsi, lsi))}
	if *mode == "INDEXES" {
		out.Table = &api.Capacity{CapacityUnits: F64(table)}
		if len(gsi) > 0 {
			out.GlobalSecondaryIndexes = capacityMap(gsi)
		}
		if len(lsi) > 0 {
			out.LocalSecondaryIndexes = capacityMap(lsi)
		}
	}
	return out
}

func capacityMap(m map[string]float64) map[string]api.Capacity {
	out := make(map[string]api.Capacity, len(m))
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out[n] = api.Capacity{CapacityUnits: F64(m[n])}
	}
	return out
}

// F64 returns a pointer to v, for the optional numbers of ConsumedCapacity.
func F64(v float64) *float64 { return &v }
