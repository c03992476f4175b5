package emulator

// Contributor Insights counting. While a table's or GSI's setting is on,
// cacheTable hangs an insightsTracker on its metadata (insightsCached); the
// throttle wiring (throttle_engine.go) then tells it, per request, the key
// and the capacity units charged (chargeThroughput) and each refusal
// (throttleCheck, throttleShares). A table or GSI without the setting has
// a nil tracker: its requests pay one nil check and allocate nothing.
//
// Keys are counted in their storage form (hash prefix and order-preserving
// encoding: a map key that costs no allocation once counted) and decoded
// into attribute values only when read (ContributorInsightsTop).

import (
	"context"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/hotkeys"
)

// InsightsOptions sizes the Contributor Insights counters; zero fields
// take hotkeys' defaults (100 keys per one-minute bucket, 60 buckets).
type InsightsOptions struct {
	// Keys is how many keys each list keeps per bucket.
	Keys int
	// Bucket is the width of one time bucket.
	Bucket time.Duration
	// Buckets is how many buckets are kept (the window).
	Buckets int
}

// insightsTracker counts one table's or GSI's keys: partition keys and
// partition + sort keys (items), by consumed capacity units (accessed) and
// by refusals (throttled).
type insightsTracker struct {
	// accessed is false in THROTTLED_KEYS mode: only refusals count.
	accessed bool
	// pkType is the partition key's type, skType the sort key's (invalid
	// when there is none); the names are for the report.
	pkName, skName string
	pkType, skType av.Type
	w              *insightsWindows
}

// insightsWindows is a tracker's counts, kept across a mode change.
type insightsWindows struct {
	pkC, skC, pkT, skT *hotkeys.Window
}

// insightsKey names a tracker: a table, or one of its GSIs.
type insightsKey struct {
	ns           Namespace
	table, index string
}

// insightsRegistry holds the trackers of every table and GSI with the
// setting on, so re-caching a table's metadata keeps its counts.
type insightsRegistry struct {
	mu sync.Mutex
	m  map[insightsKey]*insightsTracker
}

func (e *Engine) newInsightsWindows() *insightsWindows {
	o := hotkeys.WindowOptions{K: e.opts.Insights.Keys, Bucket: e.opts.Insights.Bucket, Buckets: e.opts.Insights.Buckets}
	return &insightsWindows{pkC: hotkeys.NewWindow(o), skC: hotkeys.NewWindow(o), pkT: hotkeys.NewWindow(o), skT: hotkeys.NewWindow(o)}
}

// insightsTrackerFor returns the tracker of k for setting st with key
// schema ks, or nil (and forgets k's counts) when st is not counting.
func (e *Engine) insightsTrackerFor(k insightsKey, st *insightsState, ks []keyElem) *insightsTracker {
	r := &e.ci
	r.mu.Lock()
	defer r.mu.Unlock()
	if !st.counting() {
		delete(r.m, k)
		return nil
	}
	accessed := st.Mode != ciModeThrottled
	if tr := r.m[k]; tr != nil && tr.accessed == accessed {
		return tr
	}
	tr := &insightsTracker{accessed: accessed, pkName: ks[0].Name, pkType: avType(ks[0].Type)}
	if len(ks) > 1 {
		tr.skName, tr.skType = ks[1].Name, avType(ks[1].Type)
	}
	if old := r.m[k]; old != nil {
		tr.w = old.w // a mode change keeps what was counted
	} else {
		tr.w = e.newInsightsWindows()
	}
	if r.m == nil {
		r.m = map[insightsKey]*insightsTracker{}
	}
	r.m[k] = tr
	return tr
}

// insightsCached hangs trackers on t and its GSIs as t is being cached
// (cacheTable).
func (e *Engine) insightsCached(t *tableMeta) {
	ns := t.ns()
	var st *insightsState
	if !t.Deleting {
		st = t.Insights
	}
	t.ci = e.insightsTrackerFor(insightsKey{ns: ns, table: t.Name}, st, t.KeySchema)
	for _, ix := range t.GSIs {
		var ist *insightsState
		if !ix.Deleted && !t.Deleting {
			ist = ix.Insights
		}
		ix.ci = e.insightsTrackerFor(insightsKey{ns: ns, table: t.Name, index: ix.Name}, ist, ix.KeySchema)
	}
}

// insightsUncached forgets every tracker of table name in ns.
func (e *Engine) insightsUncached(ns Namespace, name string) {
	r := &e.ci
	r.mu.Lock()
	for k := range r.m {
		if k.ns == ns && k.table == name {
			delete(r.m, k)
		}
	}
	r.mu.Unlock()
}

// itemKeyBytes returns the hashed and encoded key of an item storage key
// (or a Query's partition prefix): what follows the family byte and table
// ID. nil for anything else (a Scan, an index key).
func itemKeyBytes(key []byte) []byte {
	const head = 1 + len(tableID{})
	if len(key) <= head+4 || key[0] != famItem {
		return nil
	}
	return key[head:]
}

// tableConsumed counts units consumed on table t for storage key key.
func (tr *insightsTracker) tableConsumed(now time.Time, t *tableMeta, key []byte, units float64) {
	if !tr.accessed || units <= 0 {
		return
	}
	full := itemKeyBytes(key)
	if full == nil {
		return
	}
	pk := partitionBytes(t, key)
	tr.w.pkC.Add(now, pk, units)
	if len(full) > len(pk) {
		tr.w.skC.Add(now, full, units)
	}
}

// tableThrottled counts a refusal on table t for storage key key.
func (tr *insightsTracker) tableThrottled(now time.Time, t *tableMeta, key []byte) {
	full := itemKeyBytes(key)
	if full == nil {
		return
	}
	pk := partitionBytes(t, key)
	tr.w.pkT.Add(now, pk, 1)
	if len(full) > len(pk) {
		tr.w.skT.Add(now, full, 1)
	}
}

// indexConsumed and indexThrottled count a GSI share: its index partition
// (indexPartitionOf; "" for a Scan, not counted) and, for a write, the
// index key of its entry as an item.
func (tr *insightsTracker) indexConsumed(now time.Time, part string, entry []byte, units float64) {
	if !tr.accessed || part == "" || units <= 0 {
		return
	}
	tr.w.pkC.AddString(now, part, units)
	if item := tr.indexItem(entry); item != nil {
		tr.w.skC.Add(now, item, units)
	}
}

func (tr *insightsTracker) indexThrottled(now time.Time, part string, entry []byte) {
	if part == "" {
		return
	}
	tr.w.pkT.AddString(now, part, 1)
	if item := tr.indexItem(entry); item != nil {
		tr.w.skT.Add(now, item, 1)
	}
}

// indexItem returns the hashed and encoded index key (partition and sort
// key, without the table key that follows) of index entry key entry, or
// nil when the index has no sort key or there is no entry.
func (tr *insightsTracker) indexItem(entry []byte) []byte {
	const head = 1 + len(tableID{}) + 4 // family byte, table ID, index ID
	if tr.skType == av.TypeInvalid || len(entry) <= head+4 || entry[0] != famIndex {
		return nil
	}
	p := entry[head:]
	_, rest, err := av.DecodeKey(p[4:], tr.pkType)
	if err != nil {
		return nil
	}
	if _, rest, err = av.DecodeKey(rest, tr.skType); err != nil {
		return nil
	}
	return p[:len(p)-len(rest)]
}

// ContributorKey is one key of a Contributor Insights list: the key's
// attributes, and its count (capacity units for the accessed lists,
// refusals for the throttled ones) with the sketch's error bound (the true
// count lies in [Count-Error, Count]).
type ContributorKey struct {
	Key   av.Item `json:"key"`
	Count float64 `json:"count"`
	Error float64 `json:"error,omitempty"`
}

// ContributorInsightsReport is the top keys of a table or GSI: what the
// service's rules would chart in CloudWatch.
type ContributorInsightsReport struct {
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
	AccessedPartitionKeys  []ContributorKey `json:"accessedPartitionKeys,omitempty"`
	AccessedItems          []ContributorKey `json:"accessedItems,omitempty"`
	ThrottledPartitionKeys []ContributorKey `json:"throttledPartitionKeys,omitempty"`
	ThrottledItems         []ContributorKey `json:"throttledItems,omitempty"`
}

// ContributorInsightsTop returns the n heaviest keys (n ≤ 0: all counted)
// of each list of table (a name or ARN) or its GSI index ("" for the
// table) over the last span (≤ 0: the whole window). Lists are empty while
// the setting is off; ResourceNotFoundException names an unknown table or
// index.
func (e *Engine) ContributorInsightsTop(ctx context.Context, ns Namespace, table, index string, n int, span time.Duration) (*ContributorInsightsReport, error) {
	tns, name, err := resolveName(ns, table)
	if err != nil {
		return nil, err
	}
	now := e.now()
	var ip *string
	if index != "" {
		ip = &index
	}
	e.rlockCatalog()
	if e.lookup(tns, name, now) == nil {
		e.mu.RUnlock()
		// Not DynamoDB's message: this is ExtendDB's own endpoint, and the
		// namespace is the likeliest mistake.
		return nil, NewError(CodeResourceNotFound, "Requested resource not found: Table: %s not found in account %s, Region %s", name, tns.Account, tns.Region)
	}
	g, err := e.insightsTargetOf(tns, name, ip, now)
	var tr *insightsTracker
	if err == nil {
		tr = g.t.ci
		if g.ix != nil {
			tr = g.ix.ci
		}
	}
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	st := g.state()
	rep := &ContributorInsightsReport{TableName: name, IndexName: index, Status: st.status(now)}
	if st.counting() {
		rep.Mode = st.Mode
	}
	if tr == nil {
		return rep, nil
	}
	win := tr.w.pkC.Span()
	if span > 0 && span < win {
		win = span
	}
	rep.WindowSeconds = win.Seconds()
	items := tr.skType != av.TypeInvalid
	rep.PartitionKey = tr.pkName
	if items {
		rep.SortKey = tr.skName
	}
	if tr.accessed {
		rep.AccessedPartitionKeys = tr.report(tr.w.pkC.Top(now, span, n), false)
		if items {
			rep.AccessedItems = tr.report(tr.w.skC.Top(now, span, n), true)
		}
	}
	rep.ThrottledPartitionKeys = tr.report(tr.w.pkT.Top(now, span, n), false)
	if items {
		rep.ThrottledItems = tr.report(tr.w.skT.Top(now, span, n), true)
	}
	return rep, nil
}

// report decodes counted storage keys into attribute values; withSort
// decodes the sort key after the partition key.
func (tr *insightsTracker) report(cs []hotkeys.Counter, withSort bool) []ContributorKey {
	out := make([]ContributorKey, 0, len(cs))
	for _, c := range cs {
		b := []byte(c.Key)
		if len(b) <= 4 {
			continue
		}
		pk, rest, err := av.DecodeKey(b[4:], tr.pkType)
		if err != nil {
			continue
		}
		k := av.Item{tr.pkName: pk}
		if withSort {
			sk, _, err := av.DecodeKey(rest, tr.skType)
			if err != nil {
				continue
			}
			k[tr.skName] = sk
		}
		out = append(out, ContributorKey{Key: k, Count: c.Count, Error: c.Err})
	}
	return out
}
