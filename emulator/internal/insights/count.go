package insights

// Counting. While a table's or GSI's setting is on, the engine hangs a
// Counter from the Registry on its cached metadata; its throttle wiring
// then tells it, per request, the key and the capacity units charged and
// each refusal. A table or GSI without the setting has a nil Counter: its
// requests pay one nil check and allocate nothing.
//
// Keys are counted in their stored form (4-byte hash prefix and
// order-preserving encoding: a map key that costs no allocation once
// counted) and decoded into attribute values only when read (NewReport).

import (
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/hotkeys"
)

// Options sizes the counters; zero fields take hotkeys' defaults (100
// keys per one-minute bucket, 60 buckets).
type Options struct {
	// Keys is how many keys each list keeps per bucket.
	Keys int
	// Bucket is the width of one time bucket.
	Bucket time.Duration
	// Buckets is how many buckets are kept (the window).
	Buckets int
}

// KeySchema names and types the key attributes of a table or GSI; Sort is
// "" (and SortType invalid) without a sort key.
type KeySchema struct {
	Partition, Sort         string
	PartitionType, SortType av.Type
}

// Counter counts one table's or GSI's keys: partition keys and
// partition + sort keys (items), by consumed capacity units (accessed) and
// by refusals (throttled). Its methods may be called concurrently.
type Counter struct {
	// accessed is false in THROTTLED_KEYS mode: only refusals count.
	accessed bool
	keys     KeySchema
	w        *windows
}

// windows is a counter's counts, kept across a mode change.
type windows struct {
	pkC, skC, pkT, skT *hotkeys.Window
}

// counterKey names a counter: a table, or one of its GSIs.
type counterKey struct {
	ns           api.Namespace
	table, index string
}

// Registry holds the counters of every table and GSI with the setting on,
// so re-caching a table's metadata keeps its counts. Its zero value counts
// with hotkeys' default sizes.
type Registry struct {
	// Options sizes new counters; set before the first Counter call.
	Options Options

	mu sync.Mutex
	m  map[counterKey]*Counter
}

func (r *Registry) newWindows() *windows {
	o := hotkeys.WindowOptions{K: r.Options.Keys, Bucket: r.Options.Bucket, Buckets: r.Options.Buckets}
	return &windows{pkC: hotkeys.NewWindow(o), skC: hotkeys.NewWindow(o), pkT: hotkeys.NewWindow(o), skT: hotkeys.NewWindow(o)}
}

// Counter returns the counter of index ("" for the table) of table in ns
// for setting st and key schema ks, or nil (and forgets its counts) when
// st is not counting. A mode change keeps what was counted.
func (r *Registry) Counter(ns api.Namespace, table, index string, st *Setting, ks KeySchema) *Counter {
	k := counterKey{ns: ns, table: table, index: index}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !st.Counting() {
		delete(r.m, k)
		return nil
	}
	accessed := st.Mode != ModeThrottled
	if c := r.m[k]; c != nil && c.accessed == accessed {
		return c
	}
	c := &Counter{accessed: accessed, keys: ks}
	if old := r.m[k]; old != nil {
		c.w = old.w // a mode change keeps what was counted
	} else {
		c.w = r.newWindows()
	}
	if r.m == nil {
		r.m = map[counterKey]*Counter{}
	}
	r.m[k] = c
	return c
}

// Forget drops the counters of table in ns and of its indexes.
func (r *Registry) Forget(ns api.Namespace, table string) {
	r.mu.Lock()
	for k := range r.m {
		if k.ns == ns && k.table == table {
			delete(r.m, k)
		}
	}
	r.mu.Unlock()
}

// partition returns the partition key part of key, the stored key of an
// item of the counter's table (or a Query's partition prefix): all of it
// without a sort key.
func (c *Counter) partition(key []byte) []byte {
	if c.keys.SortType == av.TypeInvalid {
		return key
	}
	rest, err := av.SkipKey(key[4:], c.keys.PartitionType)
	if err != nil {
		return key
	}
	return key[:len(key)-len(rest)]
}

// Consumed counts units consumed on the table for key, the stored key of
// an item (or a Query's partition prefix; nil: not counted).
func (c *Counter) Consumed(now time.Time, key []byte, units float64) {
	if !c.accessed || units <= 0 || len(key) <= 4 {
		return
	}
	pk := c.partition(key)
	c.w.pkC.Add(now, pk, units)
	if len(key) > len(pk) {
		c.w.skC.Add(now, key, units)
	}
}

// Throttled counts a refusal on the table for key, as Consumed.
func (c *Counter) Throttled(now time.Time, key []byte) {
	if len(key) <= 4 {
		return
	}
	pk := c.partition(key)
	c.w.pkT.Add(now, pk, 1)
	if len(key) > len(pk) {
		c.w.skT.Add(now, key, 1)
	}
}

// IndexConsumed and IndexThrottled count a GSI share: its index partition
// (the stored partition key; "" for a Scan, not counted) and, for a write,
// entry, the stored index key of its entry (index key then table key; nil
// for none), whose index key counts as an item.
func (c *Counter) IndexConsumed(now time.Time, part string, entry []byte, units float64) {
	if !c.accessed || part == "" || units <= 0 {
		return
	}
	c.w.pkC.AddString(now, part, units)
	if item := c.indexItem(entry); item != nil {
		c.w.skC.Add(now, item, units)
	}
}

// IndexThrottled: see IndexConsumed.
func (c *Counter) IndexThrottled(now time.Time, part string, entry []byte) {
	if part == "" {
		return
	}
	c.w.pkT.AddString(now, part, 1)
	if item := c.indexItem(entry); item != nil {
		c.w.skT.Add(now, item, 1)
	}
}

// indexItem returns the index key (partition and sort key, without the
// table key that follows) of entry, or nil when the index has no sort key
// or there is no entry.
func (c *Counter) indexItem(entry []byte) []byte {
	if c.keys.SortType == av.TypeInvalid || len(entry) <= 4 {
		return nil
	}
	_, rest, err := av.DecodeKey(entry[4:], c.keys.PartitionType)
	if err != nil {
		return nil
	}
	if _, rest, err = av.DecodeKey(rest, c.keys.SortType); err != nil {
		return nil
	}
	return entry[:len(entry)-len(rest)]
}

// Key is one key of a Contributor Insights list: the key's attributes,
// and its count (capacity units for the accessed lists, refusals for the
// throttled ones) with the sketch's error bound (the true count lies in
// [Count-Error, Count]).
type Key struct {
	Key   av.Item `json:"key"`
	Count float64 `json:"count"`
	Error float64 `json:"error,omitempty"`
}

// Report is the top keys of a table or GSI: what the service's rules
// would chart in CloudWatch.
type Report struct {
	TableName string `json:"table"`
	IndexName string `json:"index,omitempty"`
	Status    string `json:"status"`
	Mode      string `json:"mode,omitempty"`
	// PartitionKey and SortKey name the key attributes of the table or
	// index ("" for no sort key), so a viewer can print keys in order.
	PartitionKey string `json:"partitionKey,omitempty"`
	SortKey      string `json:"sortKey,omitempty"`
	// WindowSeconds is how far back the lists reach.
	WindowSeconds float64 `json:"windowSeconds"`
	// The lists, heaviest first: partition keys and items (partition and
	// sort key; absent without a sort key), by consumed capacity units
	// (absent in THROTTLED_KEYS mode) and by throttle refusals.
	AccessedPartitionKeys  []Key `json:"accessedPartitionKeys,omitempty"`
	AccessedItems          []Key `json:"accessedItems,omitempty"`
	ThrottledPartitionKeys []Key `json:"throttledPartitionKeys,omitempty"`
	ThrottledItems         []Key `json:"throttledItems,omitempty"`
}

// NewReport returns the report at now of index ("" for the table) of
// table with setting st, counted by c (nil: nothing counted): the n
// heaviest keys (n ≤ 0: all counted) of each list over the last span
// (≤ 0: the whole window).
func NewReport(table, index string, st *Setting, c *Counter, now time.Time, n int, span time.Duration) *Report {
	rep := &Report{TableName: table, IndexName: index, Status: st.Status(now)}
	if st.Counting() {
		rep.Mode = st.Mode
	}
	if c == nil {
		return rep
	}
	win := c.w.pkC.Span()
	if span > 0 && span < win {
		win = span
	}
	rep.WindowSeconds = win.Seconds()
	items := c.keys.SortType != av.TypeInvalid
	rep.PartitionKey = c.keys.Partition
	if items {
		rep.SortKey = c.keys.Sort
	}
	if c.accessed {
		rep.AccessedPartitionKeys = c.report(c.w.pkC.Top(now, span, n), false)
		if items {
			rep.AccessedItems = c.report(c.w.skC.Top(now, span, n), true)
		}
	}
	rep.ThrottledPartitionKeys = c.report(c.w.pkT.Top(now, span, n), false)
	if items {
		rep.ThrottledItems = c.report(c.w.skT.Top(now, span, n), true)
	}
	return rep
}

// report decodes counted stored keys into attribute values; withSort
// decodes the sort key after the partition key.
func (c *Counter) report(cs []hotkeys.Counter, withSort bool) []Key {
	out := make([]Key, 0, len(cs))
	for _, hc := range cs {
		b := []byte(hc.Key)
		if len(b) <= 4 {
			continue
		}
		pk, rest, err := av.DecodeKey(b[4:], c.keys.PartitionType)
		if err != nil {
			continue
		}
		k := av.Item{c.keys.Partition: pk}
		if withSort {
			sk, _, err := av.DecodeKey(rest, c.keys.SortType)
			if err != nil {
				continue
			}
			k[c.keys.Sort] = sk
		}
		out = append(out, Key{Key: k, Count: hc.Count, Error: hc.Err})
	}
	return out
}
