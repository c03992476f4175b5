package emulator

// Vector indexes, the write path. An item is in a vector index when it
// holds the index's vector attribute and, if the index has a HASH element,
// that attribute; the entry is stored under
//
//	'x' <table id> <index id> [<partition: fnv32(enc(hash)) enc(hash)>] <table key>
//	  → <Dims little-endian float32s> <the projected attributes but the vector>
//
// and staged by the vector derivation (derive.go) in the write's own
// batch. Once the batch commits, its changes reach the index's in-memory
// copy (vectors.Cache), which searches scan; a copy is filled from the
// entries by the first search that needs it, so a start never reads them.

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
	"github.com/extenddb/extenddb/kv"
)

// vectorEntryOf returns the entry of the item stored at itemKey in vi,
// or false when the item is not in the index (vectors.Index.EntryOf).
func vectorEntryOf(t *tableMeta, vi *vectorIndex, itemKey []byte, item av.Item) (vectors.Entry, bool) {
	if _, ok := item[vi.Attr]; !ok {
		return vectors.Entry{}, false // most items of most tables: no work
	}
	return vi.EntryOf(keyspace.IndexPrefix(t.ID, vi.ID), itemKey[len(keyspace.ItemPrefix(t.ID)):], keyNamesOf(t.KeySchema), item, appendPartition)
}

// entrySuffix is e's key after vi's prefix: its partition and table key,
// the key of its in-memory copy.
func entrySuffix(t *tableMeta, vi *vectorIndex, e *vectors.Entry) string {
	return string(e.Key[len(keyspace.IndexPrefix(t.ID, vi.ID)):])
}

// validateVectors refuses an item to be stored whose vector or search
// schema values a vector index of t cannot hold; over an old item, only
// the values the write changes are checked (vectors.Index.CheckWrite).
func validateVectors(t *tableMeta, old, item av.Item) error {
	for _, vi := range t.Vectors {
		if err := vi.CheckWrite(old, item); err != nil {
			return err
		}
	}
	return nil
}

// vectorChange is one staged change of a vector entry, for the in-memory
// copy once it commits.
type vectorChange struct {
	seq   uint64
	table keyspace.TableID
	index uint32
	part  string
	key   string // the entry's key after the index's prefix
	vec   []float32
	filt  av.Item
}

// vectorDerivation stages a write's vector index entries.
type vectorDerivation struct{}

func (vectorDerivation) wants(_ *Engine, t *tableMeta) bool { return len(t.Vectors) > 0 }

func (vectorDerivation) oldImage() bool { return true }

func (vectorDerivation) finish(*writeBatch) error { return nil }

// vectorPair is an item's old and new entries in one vector index, as
// prepare found them (had, has: whether there are).
type vectorPair struct {
	vi       *vectorIndex
	old, new vectors.Entry
	had, has bool
	// oldVal and newVal are the entries' stored values (nil when absent),
	// encoded once for the capacity and the stage.
	oldVal, newVal []byte
}

// moved reports whether the old entry goes (deleted, or under another key).
func (p *vectorPair) moved() bool { return p.had && (!p.has || !bytes.Equal(p.old.Key, p.new.Key)) }

// prepareVectors computes, for prepare, pw's old and new entries in every
// vector index of its table, with the vector bytes the write consumes.
func prepareVectors(r kv.Reader, pw *pendingWrite, old, nw av.Item) error {
	t, k := pw.change.Table, pw.change.Key
	pw.vecs = make([]vectorPair, len(t.Vectors))
	total := 0.0
	for i, vi := range t.Vectors {
		p := &pw.vecs[i]
		p.vi = vi
		p.old, p.had = vectorEntryOf(t, vi, k, old)
		if p.had && vi.Creating {
			// The backfill may not have reached this item yet: only an
			// entry actually stored is the old one.
			if _, err := r.Get(p.old.Key); errors.Is(err, kv.ErrNotFound) {
				p.had = false
			} else if err != nil {
				return internalError(err)
			}
		}
		p.new, p.has = vectorEntryOf(t, vi, k, nw)
		if p.had {
			p.oldVal = p.old.Value(nil)
		}
		if p.has {
			p.newVal = p.new.Value(nil)
		}
		b := p.writeBytes()
		if b > 0 {
			if pw.use.vec == nil {
				pw.use.vec = map[string]float64{}
			}
			pw.use.vec[vi.Name] += b
			total += b
		}
	}
	if total > 0 && total < vectors.MinRequestBytes {
		// The 1 KB minimum is charged once per request, not per index
		// (Developer Guide, "Monitoring vector search"): the first index
		// written carries it.
		for _, p := range pw.vecs {
			if b := pw.use.vec[p.vi.Name]; b > 0 {
				pw.use.vec[p.vi.Name] = b + vectors.MinRequestBytes - total
				break
			}
		}
	}
	return nil
}

// writeBytes is the vector bytes of the change: the entry deleted, the
// entry written (both when the item moves partitions), nothing for an
// entry rewritten unchanged.
func (p *vectorPair) writeBytes() float64 {
	size := func(e *vectors.Entry) float64 { return float64(p.vi.Bytes(e)) }
	switch {
	case p.had && p.has && bytes.Equal(p.old.Key, p.new.Key):
		if bytes.Equal(p.oldVal, p.newVal) {
			return 0
		}
		return size(&p.new)
	case p.had && p.has:
		return size(&p.old) + size(&p.new)
	case p.had:
		return size(&p.old)
	case p.has:
		return size(&p.new)
	}
	return 0
}

// vectorCapacity is ConsumedCapacity's VectorIndexes of a write.
func vectorCapacity(m map[string]float64) map[string]api.VectorCapacity {
	out := make(map[string]api.VectorCapacity, len(m))
	for n, b := range m {
		out[n] = api.VectorCapacity{VectorWriteRequestBytes: f64(b)}
	}
	return out
}

func (vectorDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	t := pw.change.Table
	for i := range pw.vecs {
		p := &pw.vecs[i]
		if !p.had && !p.has {
			continue
		}
		if p.moved() {
			if err := wb.b.Delete(p.old.Key); err != nil {
				return internalError(err)
			}
		}
		if p.has && (p.moved() || !p.had || !bytes.Equal(p.oldVal, p.newVal)) {
			if err := wb.b.Set(p.new.Key, p.newVal); err != nil {
				return internalError(err)
			}
		}
		wb.addDelta(t.ID, pw.stripe, p.vi.ID, p.had, p.has, len(p.oldVal), len(p.newVal))
		if p.moved() {
			wb.vecs = append(wb.vecs, vectorChange{seq: wb.e.vec.seq.Add(1), table: t.ID, index: p.vi.ID, part: p.old.Part, key: entrySuffix(t, p.vi, &p.old)})
		}
		if p.has {
			wb.vecs = append(wb.vecs, vectorChange{seq: wb.e.vec.seq.Add(1), table: t.ID, index: p.vi.ID, part: p.new.Part,
				key: entrySuffix(t, p.vi, &p.new), vec: p.new.Vec, filt: p.new.Filters})
		}
	}
	return nil
}

func (vectorDerivation) committed(wb *writeBatch) {
	if len(wb.vecs) > 0 {
		wb.e.vec.apply(wb.vecs)
	}
}

// vectorStats reports the entry count and size of vi.
func (e *Engine) vectorStats(t *tableMeta, vi *vectorIndex) (items, bytes int64) {
	c := e.loadStats(t)[vi.ID]
	return c.items, c.bytes
}

// vectorCaches is the in-memory copies of the vector indexes searched
// since the start, by table and index ID.
type vectorCaches struct {
	seq atomic.Uint64 // orders the changes of one entry
	mu  sync.Mutex
	m   map[vectorCacheKey]*vectorCache
}

type vectorCacheKey struct {
	table keyspace.TableID
	index uint32
}

// vectorCache is one index's copy; ready closes once it is filled.
type vectorCache struct {
	c     *vectors.Cache
	ready chan struct{}
	err   error
}

// apply hands committed changes to the copies that exist.
// The copies are looked up under vc.mu and changed outside it: a change
// waits for the searches of its own index only, never for another's.
func (vc *vectorCaches) apply(cs []vectorChange) {
	vc.mu.Lock()
	if len(vc.m) == 0 {
		vc.mu.Unlock()
		return
	}
	to := make([]*vectors.Cache, len(cs))
	for i := range cs {
		if x := vc.m[vectorCacheKey{cs[i].table, cs[i].index}]; x != nil {
			to[i] = x.c
		}
	}
	vc.mu.Unlock()
	for i, c := range to {
		if c != nil {
			ch := &cs[i]
			c.Apply(ch.seq, ch.part, ch.key, ch.vec, ch.filt)
		}
	}
}

// drop forgets the copies of table id's indexes (every index when index
// is 0): the table or the index is gone.
func (vc *vectorCaches) drop(id keyspace.TableID, index uint32) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	for k := range vc.m {
		if k.table == id && (index == 0 || k.index == index) {
			delete(vc.m, k)
		}
	}
}

// reset forgets every copy (a snapshot restore replaced the store).
func (vc *vectorCaches) reset() {
	vc.mu.Lock()
	vc.m = nil
	vc.mu.Unlock()
}

// vectorCache returns vi's in-memory copy, filling it from the store the
// first time. The copy is registered before the store is read, so a write
// committing meanwhile reaches it (vectors.Cache.Load never overrides a
// change applied since BeginLoad).
func (e *Engine) vectorCache(ctx context.Context, t *tableMeta, vi *vectorIndex) (*vectors.Cache, error) {
	if e.shared() {
		// Other processes write the store too, and their writes never
		// reach this process's copies: each search reads the entries
		// (and stops when its client has gone).
		c := vectors.NewCache(vi.Dims, vi.Distance)
		if err := e.fillVectorCache(ctx, t, vi, c); err != nil {
			return nil, internalError(err)
		}
		return c, nil
	}
	k := vectorCacheKey{t.ID, vi.ID}
	vc := &e.vec
	vc.mu.Lock()
	x := vc.m[k]
	if x == nil {
		x = &vectorCache{c: vectors.NewCache(vi.Dims, vi.Distance), ready: make(chan struct{})}
		x.c.BeginLoad()
		if vc.m == nil {
			vc.m = map[vectorCacheKey]*vectorCache{}
		}
		vc.m[k] = x
		vc.mu.Unlock()
		if _, hashed := vi.HashElem(); !hashed {
			n, _ := e.vectorStats(t, vi)
			x.c.Reserve("", int(n))
		}
		// Shared by every later search: not stopped by this one's client.
		x.err = e.fillVectorCache(context.Background(), t, vi, x.c)
		x.c.EndLoad()
		if x.err != nil {
			vc.drop(t.ID, vi.ID)
		}
		close(x.ready)
	} else {
		vc.mu.Unlock()
		<-x.ready
	}
	if x.err != nil {
		return nil, internalError(x.err)
	}
	return x.c, nil
}

// fillVectorCache loads every stored entry of vi into c.
func (e *Engine) fillVectorCache(ctx context.Context, t *tableMeta, vi *vectorIndex, c *vectors.Cache) error {
	p := keyspace.IndexPrefix(t.ID, vi.ID)
	it, err := e.opts.Store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		return err
	}
	h, hashed := vi.HashElem()
	// Load copies the vector into the copy's slab: one buffer serves.
	vec := make([]float32, 0, vi.Dims)
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				_ = it.Close()
				return err
			}
		}
		k, v := it.Key()[len(p):], it.Value()
		part := ""
		if hashed {
			n, err := vectorPartitionLen(k, h.Type)
			if err != nil {
				_ = it.Close()
				return err
			}
			part = string(k[:n])
		}
		vec = vectors.Floats(vec, v, vi.Dims)
		var filters av.Item
		if len(vi.Schema) > 0 {
			rest, err := av.DecodeItem(v[4*vi.Dims:])
			if err != nil {
				_ = it.Close()
				return err
			}
			for _, s := range vi.Schema {
				if fv, ok := rest[s.Name]; ok && s.Kind == vectors.KindInlineFilter {
					if filters == nil {
						filters = av.Item{}
					}
					filters[s.Name] = fv
				}
			}
		}
		c.Load(part, string(k), vec, filters)
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return err
	}
	return it.Close()
}

// vectorPartitionLen is the length of the partition part that starts k:
// its hash and the HASH value of type typ.
func vectorPartitionLen(k []byte, typ string) (int, error) {
	if len(k) < 4 {
		return 0, errors.New("emulator: vector entry key too short")
	}
	_, rest, err := av.DecodeKey(k[4:], avType(typ))
	if err != nil {
		return 0, err
	}
	return len(k) - len(rest), nil
}

// VectorMemory is the memory the in-memory copies of the vector indexes
// hold (/metrics).
func (e *Engine) VectorMemory() int64 {
	vc := &e.vec
	vc.mu.Lock()
	cs := make([]*vectorCache, 0, len(vc.m))
	for _, x := range vc.m {
		cs = append(cs, x)
	}
	vc.mu.Unlock()
	var n int64
	for _, x := range cs {
		select {
		case <-x.ready:
			if x.err == nil {
				n += x.c.Bytes()
			}
		default: // still filling
		}
	}
	return n
}
