package emulator

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

// Item counts and sizes for DescribeTable. Each lock stripe of each table
// has one stats record, stored under the table's index family with the
// reserved index ID statsIndexID (so DeleteTable's range delete of the
// index family removes it, and no real index, numbered from 1, collides):
//
//	'x' <tableID:16> <0xFFFFFFFF> <stripe:2 BE> → [uvarint id, varint items, varint bytes]*
//
// id 0 is the table, other ids are indexes. A record is merged and
// rewritten in the store transaction of the write that changes it, under
// that write's stripe lock, so records are exact without any global lock.
// On a store this process alone writes (Pebble) the record's value as last
// committed is kept in memory (statsMemo.recs: read from the store the
// first time a write touches it, replaced after each commit), so a write
// does not read it back; on a shared store, where other processes write
// it too, it is read through the transaction every time.
// Readers sum the records of a table (at most lockStripes small keys) and
// memoise the sum until the table's next commit. On a store shared with
// other processes, whose commits this one never hears of, they sum every
// time.

const statsIndexID = 0xFFFFFFFF

// statsRecord names one stats record.
type statsRecord struct {
	table  keyspace.TableID
	stripe uint16
}

func (r statsRecord) key() []byte { return r.appendKey(nil) }

// statsKeyLen is the length of a stats record's key.
const statsKeyLen = 1 + len(keyspace.TableID{}) + 4 + 2

func (r statsRecord) appendKey(dst []byte) []byte {
	dst = append(dst, keyspace.FamIndex)
	dst = append(dst, r.table[:]...)
	dst = binary.BigEndian.AppendUint32(dst, statsIndexID)
	return binary.BigEndian.AppendUint16(dst, r.stripe)
}

// counts is an item (or entry) count and its size in bytes, overhead included.
type counts struct {
	items, bytes int64
}

// statsCounts maps id (0 = table, else index ID) to counts.
type statsCounts map[uint32]counts

func encodeStats(s statsCounts) []byte { return appendStats(nil, s) }

func appendStats(b []byte, s statsCounts) []byte {
	for id, c := range s {
		b = binary.AppendUvarint(b, uint64(id))
		b = binary.AppendVarint(b, c.items)
		b = binary.AppendVarint(b, c.bytes)
	}
	return b
}

var errBadStats = errors.New("emulator: malformed stats record")

func decodeStats(b []byte, into statsCounts) error {
	for len(b) > 0 {
		id, n := binary.Uvarint(b)
		if n <= 0 {
			return errBadStats
		}
		b = b[n:]
		items, n := binary.Varint(b)
		if n <= 0 {
			return errBadStats
		}
		b = b[n:]
		bytes, n := binary.Varint(b)
		if n <= 0 {
			return errBadStats
		}
		b = b[n:]
		c := into[uint32(id)]
		c.items += items
		c.bytes += bytes
		into[uint32(id)] = c
	}
	return nil
}

// mergeStats adds d to stats record r, read through rd, in batch b.
// Counts of indexes t no longer has are dropped, so a deleted index's
// figures do not linger.
func (e *Engine) mergeStats(rd kv.Reader, b kv.Batch, t *tableMeta, r statsRecord, d statsCounts) error {
	k := r.key()
	cur := statsCounts{}
	v, err := rd.Get(k)
	switch {
	case err == nil:
		if err := decodeStats(v, cur); err != nil {
			return internalError(err)
		}
	case !errors.Is(err, kv.ErrNotFound):
		return internalError(err)
	}
	for id, c := range d {
		x := cur[id]
		x.items += c.items
		x.bytes += c.bytes
		cur[id] = x
	}
	live := map[uint32]bool{0: true}
	for _, ix := range t.LSIs {
		live[ix.ID] = true
	}
	for _, ix := range t.GSIs {
		live[ix.ID] = true
	}
	for id := range cur {
		if !live[id] {
			delete(cur, id)
		}
	}
	if err := b.Set(k, encodeStats(cur)); err != nil {
		return internalError(err)
	}
	return nil
}

// mergeStatsMem is mergeStats on a store this process alone writes: the
// record's current value comes from memory (read through rd only the first
// time), and d, merged into it, is what the record holds once the batch
// commits; the caller keeps it (statsMemo.recs) only then. d becomes the
// record: the merge reuses its map.
func (e *Engine) mergeStatsMem(wb *writeBatch, t *tableMeta, r statsRecord, d statsCounts) (*memStats, error) {
	rd := wb.r
	m := &e.items.stats
	m.recMu.RLock()
	var ms *memStats
	if tr := m.recs[r.table]; tr != nil {
		ms = tr[r.stripe]
	}
	m.recMu.RUnlock()
	if ms == nil {
		// Only the holder of r's stripe writes r, so nobody else is loading
		// it meanwhile.
		cur := statsCounts{}
		v, err := rd.Get(r.key())
		switch {
		case err == nil:
			if err := decodeStats(v, cur); err != nil {
				return nil, internalError(err)
			}
		case !errors.Is(err, kv.ErrNotFound):
			return nil, internalError(err)
		}
		ms = &memStats{counts: cur}
		m.recMu.Lock()
		if m.recs == nil {
			m.recs = map[keyspace.TableID]*[keyspace.LockStripes]*memStats{}
		}
		tr := m.recs[r.table]
		if tr == nil {
			tr = new([keyspace.LockStripes]*memStats)
			m.recs[r.table] = tr
		}
		tr[r.stripe] = ms
		m.recMu.Unlock()
	}
	for id, c := range ms.counts {
		x := d[id]
		x.items += c.items
		x.bytes += c.bytes
		d[id] = x
	}
	for id := range d {
		if !liveStatsID(t, id) {
			delete(d, id)
		}
	}
	// Key and value in the write's buffer, which the batch copies.
	wb.buf = appendStats(r.appendKey(wb.buf[:0]), d)
	kb := wb.buf[:statsKeyLen:statsKeyLen]
	if err := wb.b.Set(kb, wb.buf[statsKeyLen:]); err != nil {
		return nil, internalError(err)
	}
	return ms, nil
}

// liveStatsID reports whether id names t itself (0) or one of its indexes.
func liveStatsID(t *tableMeta, id uint32) bool {
	if id == 0 {
		return true
	}
	for _, ix := range t.LSIs {
		if ix.ID == id {
			return true
		}
	}
	for _, ix := range t.GSIs {
		if ix.ID == id {
			return true
		}
	}
	for _, vi := range t.Vectors {
		if vi.ID == id {
			return true
		}
	}
	return false
}

// memStats is a stats record's value as last committed (statsMemo.recs).
// The holder of the record's stripe reads and replaces counts.
type memStats struct {
	counts statsCounts
}

// pendingStats is a record's value once the batch being built commits.
type pendingStats struct {
	rec    *memStats
	counts statsCounts
}

// statsMemo remembers each table's summed stats until its next commit and,
// on a store this process alone writes, each stats record's value.
type statsMemo struct {
	mu   sync.Mutex
	gen  map[keyspace.TableID]uint64
	memo map[keyspace.TableID]statsSnapshot

	// recs are the records kept in memory, by table and stripe (recMu
	// guards the map and the arrays, the stripe locks each *memStats).
	recMu sync.RWMutex
	recs  map[keyspace.TableID]*[keyspace.LockStripes]*memStats
}

// forget drops the records of table id kept in memory (the table is gone;
// its ID is never used again).
func (m *statsMemo) forget(id keyspace.TableID) {
	m.recMu.Lock()
	delete(m.recs, id)
	m.recMu.Unlock()
}

type statsSnapshot struct {
	gen    uint64
	counts statsCounts
}

// bump invalidates the memo of table id after a commit changed its stats.
func (m *statsMemo) bump(id keyspace.TableID) {
	m.mu.Lock()
	if m.gen == nil {
		m.gen = map[keyspace.TableID]uint64{}
	}
	m.gen[id]++
	m.mu.Unlock()
}

// loadStats returns the summed stats of t. The generation is read before
// summing, so a commit racing with the sum makes the next call sum again.
func (e *Engine) loadStats(t *tableMeta) statsCounts {
	m := &e.items.stats
	shared := e.shared()
	m.mu.Lock()
	gen := m.gen[t.ID]
	if s, ok := m.memo[t.ID]; ok && s.gen == gen && !shared {
		m.mu.Unlock()
		return s.counts
	}
	m.mu.Unlock()

	sum := statsCounts{}
	p := keyspace.IndexPrefix(t.ID, statsIndexID)
	it, err := e.opts.Store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		e.log.Error().Err(err).Msg("reading table stats")
		return sum
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := decodeStats(it.Value(), sum); err != nil {
			e.log.Error().Err(err).Msg("reading table stats")
			return sum
		}
	}
	if err := it.Error(); err != nil {
		e.log.Error().Err(err).Msg("reading table stats")
		return sum
	}
	if shared {
		return sum
	}
	m.mu.Lock()
	if m.memo == nil {
		m.memo = map[keyspace.TableID]statsSnapshot{}
	}
	m.memo[t.ID] = statsSnapshot{gen: gen, counts: sum}
	m.mu.Unlock()
	return sum
}

// tableStats reports the item count and size of t (100 bytes of overhead
// per item included, as DynamoDB counts TableSizeBytes).
func (e *Engine) tableStats(t *tableMeta) (items, bytes int64) {
	c := e.loadStats(t)[0]
	return c.items, c.bytes
}

// indexStats reports the entry count and size of index ix of t.
func (e *Engine) indexStats(t *tableMeta, ix *indexMeta) (items, bytes int64) {
	c := e.loadStats(t)[ix.ID]
	return c.items, c.bytes
}

// statsDerivation keeps the stats records: per item, the table's delta
// (indexDerivation adds each index's); per batch, the merge of every delta
// into its record.
type statsDerivation struct{}

func (statsDerivation) committed(*writeBatch) {}

func (statsDerivation) wants(*Engine, *tableMeta) bool { return true }

// oldImage is false: the old item's size is enough.
func (statsDerivation) oldImage() bool { return false }

func (statsDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	c := &pw.change
	wb.addDelta(c.Table.ID, pw.stripe, 0, pw.oldExists, c.New != nil, pw.oldSize, pw.newSize)
	return nil
}

// finish writes the stats records, reading the records it merges through
// the transaction (on a shared store; else from memory, see
// mergeStatsMem). The caller still holds the stripes of every staged item.
func (statsDerivation) finish(wb *writeBatch) error {
	shared := wb.e.shared()
	for r, d := range wb.deltas {
		if shared {
			if err := wb.e.mergeStats(wb.r, wb.b, wb.tables[r.table], r, d); err != nil {
				return err
			}
			continue
		}
		ms, err := wb.e.mergeStatsMem(wb, wb.tables[r.table], r, d)
		if err != nil {
			return err
		}
		wb.stats = append(wb.stats, pendingStats{rec: ms, counts: d})
	}
	return nil
}

// addDelta records the change of one item (or index entry) in the stats of
// its stripe; id 0 is the table itself.
func (wb *writeBatch) addDelta(t keyspace.TableID, stripe uint16, id uint32, had, has bool, oldSize, newSize int) {
	if !had && !has {
		return
	}
	r := statsRecord{table: t, stripe: stripe}
	d := wb.deltas[r]
	if d == nil {
		if n := len(wb.spare); n > 0 {
			d = wb.spare[n-1]
			wb.spare = wb.spare[:n-1]
		} else {
			d = statsCounts{}
		}
		wb.deltas[r] = d
	}
	c := d[id]
	if had {
		c.items--
		c.bytes -= int64(oldSize + storageOverhead)
	}
	if has {
		c.items++
		c.bytes += int64(newSize + storageOverhead)
	}
	d[id] = c
}
