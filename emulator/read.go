package emulator

// The multi-item read path shared by Query and Scan.
//
// A page is one bounded range of the keyspace read with one iterator, so
// a page is consistent in itself (the iterator sees one view) and the work
// grows with the page, never with the table: a Query is the range of one
// partition narrowed by the sort-key condition (write.go explains why the
// encoded keys sort as DynamoDB orders them), a Scan segment is a range of
// the 4-byte partition hash, and ExclusiveStartKey only moves a bound. The
// iterator streams: nothing is materialised but the page itself.

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/work"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// maxPageBytes is DynamoDB's 1 MB page limit, measured on the items (or
// index entries) read, before any filter.
const maxPageBytes = 1 << 20

const (
	selAll       = "ALL_ATTRIBUTES"
	selProjected = "ALL_PROJECTED_ATTRIBUTES"
	selSpecific  = "SPECIFIC_ATTRIBUTES"
	selCount     = "COUNT"
)

// enumSelect is in the order the service lists it in its enum violation.
var enumSelect = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}

const msgBadStartKey = "The provided starting key is invalid"

// readPlan is a validated Query or Scan page.
type readPlan struct {
	t  *tableMeta
	ix *indexMeta // nil: the table itself
	// lower and upper bound the storage keys read ([lower, upper)).
	lower, upper []byte
	forward      bool
	limit        int64 // 0: none
	filter       *expr.Condition
	proj         *expr.Projection
	count        bool // Select=COUNT: no Items
	// fetch reads each index entry's item from the table (an LSI asked
	// for attributes it does not project).
	fetch      bool
	consistent bool
	// pk is the encoded partition (Query) the throttle manager charges.
	pk []byte
	// stored asks for whole items in their stored form (QueryStored,
	// ScanStored) when the page returns them: no projection, not a count,
	// nothing fetched from the table.
	stored bool
}

// raw reports whether the page keeps its items' stored bytes rather than
// decoded items.
func (p *readPlan) raw() bool { return p.stored && p.proj == nil && !p.count && !p.fetch }

type readResult struct {
	items []av.Item
	// raw holds the stored bytes of the page's items (readPlan.raw),
	// copied into chunks (chunk is the last) rather than an av.Item or a
	// copy each: a page of small items is a few allocations.
	raw     [][]byte
	chunk   []byte
	isRaw   bool
	count   int64
	scanned int64
	lek     av.Item
	use     capacityUse
}

// startKeyElems returns the key attributes of the table, then those of ix
// that the table's do not already include: the attributes of a
// LastEvaluatedKey.
func startKeyElems(t *tableMeta, ix *indexMeta) []keyElem {
	out := append([]keyElem(nil), t.KeySchema...)
	if ix == nil {
		return out
	}
	for _, ke := range ix.KeySchema {
		dup := false
		for _, o := range out {
			if o.Name == ke.Name {
				dup = true
			}
		}
		if !dup {
			out = append(out, ke)
		}
	}
	return out
}

// storageKeyOf is the storage key of the item or index entry whose key
// attributes are in k (validated against startKeyElems(t, ix)).
func storageKeyOf(t *tableMeta, ix *indexMeta, k av.Item) []byte {
	if ix == nil {
		return itemKey(t, k)
	}
	return indexKeyOf(t, ix, k)
}

// checkStartKey validates ExclusiveStartKey against the table (and index)
// schema: exactly the key attributes, each of its type. DynamoDB words a
// mismatch two ways: a Scan of the table itself adds the key-schema
// detail, a Query or a Scan of an index does not.
func checkStartKey(t *tableMeta, ix *indexMeta, esk av.Item, query bool) error {
	bad := api.Validation(msgBadStartKey)
	if !query && ix == nil {
		bad = api.Validation("%s: %s", msgBadStartKey, msgKeyMismatch)
	}
	names := startKeyElems(t, ix)
	if len(esk) != len(names) {
		return bad
	}
	for _, ke := range names {
		v, ok := esk[ke.Name]
		if !ok || v.Type != avType(ke.Type) {
			return bad
		}
		if v.Type != av.TypeN && v.S == "" {
			return api.Validation("%s: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s", msgBadStartKey, strings.ToLower(typeWord(v.Type)), ke.Name)
		}
	}
	return nil
}

func typeWord(t av.Type) string {
	if t == av.TypeB {
		return "binary"
	}
	return "string"
}

// applyStartKey moves the plan's bound past the start key k.
func (p *readPlan) applyStartKey(k []byte) {
	if p.forward {
		succ := append(append([]byte(nil), k...), 0)
		if bytes.Compare(succ, p.lower) > 0 {
			p.lower = succ
		}
		return
	}
	if p.upper == nil || bytes.Compare(k, p.upper) < 0 {
		p.upper = k
	}
}

// projectedSet is the attributes a non-ALL index holds.
func projectedSet(t *tableMeta, ix *indexMeta) map[string]bool {
	s := map[string]bool{}
	for _, ke := range t.KeySchema {
		s[ke.Name] = true
	}
	for _, ke := range ix.KeySchema {
		s[ke.Name] = true
	}
	for _, n := range ix.NonKeyAttrs {
		s[n] = true
	}
	return s
}

func missingFrom(set map[string]bool, names []string) []string {
	var out []string
	for _, n := range names {
		if !set[n] {
			out = append(out, n)
		}
	}
	return out
}

// selection applies the Select rules that need the index, and decides
// whether index entries must be completed from the table. sel is the
// effective Select.
func (p *readPlan) selection(sel string) error {
	ix := p.ix
	if ix == nil || ix.ProjectionType == "ALL" {
		return nil
	}
	set := projectedSet(p.t, ix)
	var projMissing, filterMissing []string
	if p.proj != nil {
		projMissing = missingFrom(set, p.proj.TopLevel())
	}
	if p.filter != nil {
		filterMissing = missingFrom(set, p.filter.TopLevel())
	}
	if !ix.Local {
		if sel == selAll {
			return shape.InvalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", ix.Name)
		}
		if len(projMissing) > 0 {
			return shape.InvalidParam("Global secondary index %s does not project [%s]", ix.Name, strings.Join(projMissing, ", "))
		}
		if len(filterMissing) > 0 {
			return shape.InvalidParam("Secondary index %s does not project one or more filter attributes: [%s]", ix.Name, strings.Join(filterMissing, ", "))
		}
		return nil
	}
	p.fetch = sel == selAll || len(projMissing) > 0 || len(filterMissing) > 0
	return nil
}

// run reads one page.
func (e *Engine) run(ctx context.Context, p *readPlan) (*readResult, error) {
	// A GSI's reads are its own capacity's; an LSI's are its table's.
	var err error
	if p.gsiMetered() {
		err = e.throttleIndexAdmit(p.t, p.ix, p.pk)
	} else {
		err = e.throttleAdmit(p.t, throttle.Read, p.pk)
	}
	if err != nil {
		return nil, err
	}
	res := &readResult{use: capacityUse{read: true}}
	if p.upper != nil && bytes.Compare(p.lower, p.upper) >= 0 {
		// Nothing to read; still the minimum charge.
		e.finishRead(ctx, p, res, 0, 0)
		return res, nil
	}
	var r kv.Reader = e.opts.Store
	if p.fetch {
		// Entries and the items they point to come from one view.
		snap := e.opts.Store.NewSnapshot()
		defer snap.Close()
		r = snap
	}
	it, err := r.NewIter(p.lower, p.upper)
	if err != nil {
		return nil, internalError(err)
	}
	defer it.Close()
	step := it.Next
	ok := false
	if p.forward {
		ok = it.First()
	} else {
		ok = it.Last()
		step = it.Prev
	}
	var read int
	var tableUnits float64
	// last is the last item read, decoded; lastRaw its stored bytes (in
	// res.raw) when it was not decoded: a LastEvaluatedKey decodes it then.
	var last av.Item
	var lastRaw []byte
	res.isRaw = p.raw()
	// Only a filter needs the decoded item of a raw page.
	decode := !res.isRaw || p.filter != nil
	// The meter stops the page once the request is over: a filter of 300
	// operators over 400 KB items makes even one page a long loop.
	m := work.New(ctx, &e.work)
	for ; ok; ok = step() {
		if !m.Step(1) {
			return nil, m.Err()
		}
		val := it.Value()
		if !decode {
			size, err := av.StoredItemSize(val)
			if err != nil {
				return nil, internalError(err)
			}
			read += size
			res.scanned++
			res.count++
			lastRaw = res.appendRaw(p, val)
		} else {
			entry, err := av.DecodeItem(val)
			if err != nil {
				return nil, internalError(err)
			}
			read += av.ItemSize(entry)
			res.scanned++
			last = entry
			if err := e.keep(p, r, res, entry, val, &tableUnits, &m); err != nil {
				return nil, err
			}
		}
		if p.limit > 0 && res.scanned >= p.limit {
			res.lek, err = lekOfRead(p, last, lastRaw)
			if err != nil {
				return nil, err
			}
			break
		}
		if read >= maxPageBytes {
			if step() {
				if res.lek, err = lekOfRead(p, last, lastRaw); err != nil {
					return nil, err
				}
			}
			break
		}
	}
	if err := it.Error(); err != nil {
		return nil, internalError(err)
	}
	e.finishRead(ctx, p, res, read, tableUnits)
	return res, nil
}

// keep filters one decoded entry (completed from the table first when the
// plan fetches) and adds it to the page if it matches: projected, or its
// stored bytes val on a raw page.
func (e *Engine) keep(p *readPlan, r kv.Reader, res *readResult, entry av.Item, val []byte, tableUnits *float64, m *work.Meter) error {
	full := entry
	if p.fetch {
		item, err := readItem(r, itemKey(p.t, entry))
		if err != nil {
			return err
		}
		if item != nil {
			full = item
			*tableUnits += ReadUnits(av.ItemSize(item), p.consistent)
		}
	}
	match, err := p.filter.EvalMetered(full, m)
	if err != nil {
		return exprError(err)
	}
	if !match {
		return nil
	}
	res.count++
	switch {
	case res.isRaw:
		res.appendRaw(p, val)
	case !p.count:
		res.items = append(res.items, p.proj.Project(full))
	}
	return nil
}

// maxRawChunk bounds a raw page's chunks: a larger one would mostly be
// left unused by the 1 MB page.
const maxRawChunk = 256 << 10

// appendRaw adds a copy of an item's stored bytes val (valid only until
// the iterator moves) to a raw page and returns it.
func (res *readResult) appendRaw(p *readPlan, val []byte) []byte {
	if len(res.chunk)+len(val) > cap(res.chunk) {
		// A new chunk, twice the last, never copying what is kept; the
		// first has room for four items of this one's size (or the limit).
		n := 2 * cap(res.chunk)
		if n == 0 {
			k := 4
			if p.limit > 0 && p.limit < 16 {
				k = int(p.limit)
			}
			n = max(k*len(val), 1024)
		}
		res.chunk = make([]byte, 0, max(min(n, maxRawChunk), len(val)))
		if res.raw == nil {
			res.raw = make([][]byte, 0, 16)
		}
	}
	start := len(res.chunk)
	res.chunk = append(res.chunk, val...)
	kept := res.chunk[start:len(res.chunk):len(res.chunk)]
	res.raw = append(res.raw, kept)
	return kept
}

// lekOfRead is the LastEvaluatedKey after the item last (decoded) or
// lastRaw (stored bytes, when last was not decoded).
func lekOfRead(p *readPlan, last av.Item, lastRaw []byte) (av.Item, error) {
	if lastRaw != nil {
		var err error
		if last, err = av.DecodeItem(lastRaw); err != nil {
			return nil, internalError(err)
		}
	}
	return lekOf(p.t, p.ix, last), nil
}

// finishRead computes a page's capacity: Query and Scan add up the sizes
// they read and round once per page; completing index entries from the
// table costs a table read per item.
func (e *Engine) finishRead(ctx context.Context, p *readPlan, res *readResult, read int, tableUnits float64) {
	units := ReadUnits(read, p.consistent)
	if p.ix == nil {
		res.use.table = units
	} else {
		res.use.addIndex(p.ix, units)
		res.use.table = tableUnits
		if p.gsiMetered() {
			res.use.addShare(p.ix, indexPartitionOf(p.ix, p.pk), nil, units)
		}
	}
	e.chargeThroughput(ctx, p.t, p.pk, &res.use)
}

// gsiMetered reports whether the plan reads a GSI with buckets of its own.
func (p *readPlan) gsiMetered() bool { return p.ix != nil && !p.ix.Local && p.ix.thr != nil }

func lekOf(t *tableMeta, ix *indexMeta, item av.Item) av.Item {
	out := av.Item{}
	for _, ke := range startKeyElems(t, ix) {
		out[ke.Name] = item[ke.Name]
	}
	return out
}

// output renders a page as Query's and Scan's response.
func (res *readResult) output(tableName string, mode *string, count bool) *api.ReadManyOutput {
	out := &api.ReadManyOutput{
		Count:            res.count,
		ScannedCount:     res.scanned,
		LastEvaluatedKey: res.lek,
		ConsumedCapacity: res.use.consumed(tableName, mode),
	}
	switch {
	case count:
	case res.isRaw:
		if res.raw == nil {
			out.SetStoredItems([][]byte{})
		} else {
			out.SetStoredItems(res.raw)
		}
	default:
		out.Items = res.items
		if out.Items == nil {
			out.Items = []av.Item{}
		}
	}
	return out
}

// selectRules applies the static Select rules (no table needed) and
// returns the effective Select.
func selectRules(sel *string, hasIndex, hasPE, hasATG bool) (string, error) {
	what := ""
	switch {
	case hasPE:
		what = "ProjectionExpression"
	case hasATG:
		what = "AttributesToGet"
	}
	if sel == nil {
		switch {
		case what != "":
			return selSpecific, nil
		case hasIndex:
			return selProjected, nil
		}
		return selAll, nil
	}
	switch *sel {
	case selCount:
		if what != "" {
			return "", api.Validation("Cannot specify the %s when choosing to get only the Count", what)
		}
	case selAll:
		if what != "" {
			return "", api.Validation("Cannot specify the %s when choosing to get ALL_ATTRIBUTES", what)
		}
	case selProjected:
		if what != "" {
			return "", api.Validation("Cannot specify the %s when choosing to get ALL_PROJECTED_ATTRIBUTES", what)
		}
		if !hasIndex {
			return "", api.Validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	case selSpecific:
		if what == "" {
			return "", api.Validation("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	}
	return *sel, nil
}

// readIndex resolves IndexName on t for op (Query or Scan, named in its
// errors).
func readIndex(t *tableMeta, name *string, consistent bool, now time.Time, op string) (*indexMeta, error) {
	if name == nil {
		return nil, nil
	}
	ix, ok := t.index(*name, now)
	if !ok && t.vectorIndex(*name) != nil {
		// A vector index answers SearchVectors only (Developer Guide,
		// "Working with vector indexes").
		return nil, api.Validation("%s operation not supported on this index type.", op)
	}
	if !ok || ix.Deleted {
		return nil, api.Validation("The table does not have the specified index: %s", *name)
	}
	if !ix.Local && consistent {
		return nil, api.Validation("Consistent reads are not supported on global secondary indexes")
	}
	if ix.Backfill && ix.status(now) == statusCreating {
		return nil, api.Validation("Cannot read from backfilling global secondary index: %s", ix.Name)
	}
	return ix, nil
}

// segmentBounds returns the storage-key range of Scan segment seg of
// total over the keys under prefix: a range of the 4-byte partition hash,
// so segments are disjoint and cover every key exactly once whatever is
// written meanwhile.
func segmentBounds(prefix []byte, seg, total int64) (lower, upper []byte) {
	bound := func(s int64) []byte {
		h := uint64(s) << 32 / uint64(total)
		return binary.BigEndian.AppendUint32(append([]byte(nil), prefix...), uint32(h))
	}
	lower = bound(seg)
	if seg == total-1 {
		return lower, kv.PrefixEnd(prefix)
	}
	return lower, bound(seg + 1)
}

// sortBounds narrows the range of a partition prefix p to the sort-key
// condition term (nil: the whole partition).
func sortBounds(p []byte, term *expr.KeyTerm) (lower, upper []byte) {
	enc := func(v av.Value) []byte { return av.AppendKey(append([]byte(nil), p...), v) }
	lower, upper = p, kv.PrefixEnd(p)
	if term == nil {
		return lower, upper
	}
	v := term.Values[0]
	switch term.Op {
	case "EQ":
		k := enc(v)
		return k, kv.PrefixEnd(k)
	case "LT":
		return lower, enc(v)
	case "LE":
		return lower, kv.PrefixEnd(enc(v))
	case "GT":
		return kv.PrefixEnd(enc(v)), upper
	case "GE":
		return enc(v), upper
	case "BETWEEN":
		return enc(v), kv.PrefixEnd(enc(term.Values[1]))
	case "BEGINS_WITH":
		// The escaped bytes of a string (or binary) without its terminator
		// prefix the encoding of every value that starts with it.
		k := enc(v)
		k = k[:len(k)-2]
		return k, kv.PrefixEnd(k)
	}
	return lower, upper
}
