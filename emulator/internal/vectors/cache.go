package vectors

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/extenddb/extenddb/emulator/av"
)

// Cache is the in-memory copy of one vector index that searches scan, so
// that a search never decodes the store. Its entries are grouped by
// partition (the value of the index's HASH element; "" when it has none);
// each partition keeps its vectors in one contiguous slab, dims float32s an
// entry, with the entry's key, the vector's norm (for COSINE) and its
// INLINE_FILTER values alongside. A removal moves the partition's last
// entry into the hole.
//
// The engine feeds it committed changes with Apply, and fills it from the
// store between BeginLoad and EndLoad. Safe for concurrent use; searches
// run concurrently with each other.
type Cache struct {
	dims int
	dist string

	mu      sync.RWMutex
	parts   map[string]*partition
	entries map[string]entry
	// tombs remembers the seq of recent deletions, so that an older put
	// applied late is ignored; pruned by age (applies, pruneAge).
	tombs     map[string]tomb
	applies   uint64
	nextPrune int
	loading   bool
	touched   map[string]struct{}
	// extra is the memory held besides the partitions' arrays: key bytes,
	// filter values and map entries.
	extra int64
}

type partition struct {
	name    string
	slab    []float32
	keys    []string
	norms   []float64
	filters []av.Item
}

// entry locates a live key: its partition, position and last seq.
type entry struct {
	p   *partition
	i   int
	seq uint64
}

type tomb struct {
	seq uint64
	at  uint64 // c.applies when deleted
}

const (
	// pruneAge is how many Apply calls a deletion's seq is remembered
	// for, at least: an Apply runs right after its commit, so an older
	// change of the same key arriving later than that cannot happen.
	pruneAge = 1 << 16
	// minPrune is the number of tombstones below which none is pruned.
	minPrune = 1024
	// parallelMin is the number of entries above which a search splits
	// its scan over runtime.GOMAXPROCS goroutines.
	parallelMin = 20000
	// Approximate bytes of one entry in the entries or tombs map and of
	// a partition's fixed part.
	mapEntryBytes  = 64
	partitionBytes = 160
)

// NewCache returns an empty cache for an index of dims dimensions scored
// with dist (Cosine, Euclidean or DotProduct).
func NewCache(dims int, dist string) *Cache {
	return &Cache{
		dims:      dims,
		dist:      dist,
		parts:     make(map[string]*partition),
		entries:   make(map[string]entry),
		tombs:     make(map[string]tomb),
		nextPrune: minPrune,
	}
}

// Apply records a committed change of entry key (the engine names an
// entry by its storage key after the index's prefix) in
// partition part ("" when the index has no HASH element): vec nil removes
// it. seq orders the changes of one key (the engine takes it under the
// item's lock, before commit): a change with a seq lower than the last
// applied to that key is ignored. filters are the entry's INLINE_FILTER
// attribute values (may be nil); the cache keeps vec's values, not vec,
// and filters as given (do not modify them afterwards). vec has dims
// elements.
func (c *Cache) Apply(seq uint64, part, key string, vec []float32, filters av.Item) {
	if vec != nil && len(vec) != c.dims {
		panic("vectors: Cache.Apply: vector of the wrong length")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.applies++
	if c.loading {
		c.touched[key] = struct{}{}
	}
	e, live := c.entries[key]
	if live {
		if seq < e.seq {
			return
		}
	} else if t, ok := c.tombs[key]; ok {
		if seq < t.seq {
			return
		}
	}
	if vec == nil {
		if live {
			c.remove(key, e)
		}
		if _, ok := c.tombs[key]; !ok {
			c.extra += int64(len(key)) + mapEntryBytes
		}
		c.tombs[key] = tomb{seq: seq, at: c.applies}
		c.prune()
		return
	}
	c.put(part, key, vec, filters, seq)
}

// put stores the entry, replacing any with the same key, at seq.
func (c *Cache) put(part, key string, vec []float32, filters av.Item, seq uint64) {
	if _, ok := c.tombs[key]; ok {
		delete(c.tombs, key)
		c.extra -= int64(len(key)) + mapEntryBytes
	}
	e, live := c.entries[key]
	if live && e.p.name != part {
		c.remove(key, e)
		live = false
	}
	if live {
		p := e.p
		copy(p.slab[e.i*c.dims:(e.i+1)*c.dims], vec)
		p.norms[e.i] = Norm(vec)
		c.extra += filterBytes(filters) - filterBytes(p.filters[e.i])
		p.filters[e.i] = filters
		e.seq = seq
		c.entries[key] = e
		return
	}
	p := c.parts[part]
	if p == nil {
		p = &partition{name: part}
		c.parts[part] = p
	}
	p.slab = append(p.slab, vec...)
	p.keys = append(p.keys, key)
	p.norms = append(p.norms, Norm(vec))
	p.filters = append(p.filters, filters)
	c.entries[key] = entry{p: p, i: len(p.keys) - 1, seq: seq}
	c.extra += int64(len(key)) + mapEntryBytes + filterBytes(filters)
}

// Reserve makes room for n more entries in partition part, so a cache
// filled with a known number of entries holds its vectors in one slab
// without the slack of growing it.
func (c *Cache) Reserve(part string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.parts[part]
	if p == nil {
		p = &partition{name: part}
		c.parts[part] = p
	}
	p.slab = slices.Grow(p.slab, n*c.dims)
	p.keys = slices.Grow(p.keys, n)
	p.norms = slices.Grow(p.norms, n)
	p.filters = slices.Grow(p.filters, n)
	c.entries = growMap(c.entries, n)
}

// growMap returns m, or a copy with room for n more entries when m is
// empty (a map cannot grow in place).
func growMap(m map[string]entry, n int) map[string]entry {
	if len(m) > 0 {
		return m
	}
	return make(map[string]entry, n)
}

// remove takes the live entry key out of its partition, moving the
// partition's last entry into its place.
func (c *Cache) remove(key string, e entry) {
	p, d := e.p, c.dims
	last := len(p.keys) - 1
	c.extra -= int64(len(key)) + mapEntryBytes + filterBytes(p.filters[e.i])
	if e.i != last {
		copy(p.slab[e.i*d:(e.i+1)*d], p.slab[last*d:])
		moved := p.keys[last]
		p.keys[e.i], p.norms[e.i], p.filters[e.i] = moved, p.norms[last], p.filters[last]
		m := c.entries[moved]
		m.i = e.i
		c.entries[moved] = m
	}
	p.keys[last], p.filters[last] = "", nil
	p.slab, p.keys, p.norms, p.filters = p.slab[:last*d], p.keys[:last], p.norms[:last], p.filters[:last]
	delete(c.entries, key)
	if last == 0 {
		delete(c.parts, p.name)
		return
	}
	if cap(p.keys) >= 64 && last < cap(p.keys)/2 {
		// Give back what a shrunken partition no longer needs.
		n := last + last/4
		p.slab = append(make([]float32, 0, n*d), p.slab...)
		p.keys = append(make([]string, 0, n), p.keys...)
		p.norms = append(make([]float64, 0, n), p.norms...)
		p.filters = append(make([]av.Item, 0, n), p.filters...)
	}
}

// prune forgets the tombstones older than pruneAge applies, once there
// are many.
func (c *Cache) prune() {
	if len(c.tombs) < c.nextPrune {
		return
	}
	for k, t := range c.tombs {
		if c.applies-t.at > pruneAge {
			delete(c.tombs, k)
			c.extra -= int64(len(k)) + mapEntryBytes
		}
	}
	c.nextPrune = max(minPrune, 2*len(c.tombs))
}

func filterBytes(f av.Item) int64 {
	if f == nil {
		return 0
	}
	n := int64(mapEntryBytes)
	for k, v := range f {
		n += int64(len(k)+av.Size(v)) + mapEntryBytes
	}
	return n
}

// BeginLoad starts filling from the store: until EndLoad, Load adds an
// entry only when no Apply (put or delete) has touched its key since
// BeginLoad, so a change committed while the store is read wins over the
// older copy the read may return. Entries already held are kept.
func (c *Cache) BeginLoad() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loading = true
	c.touched = make(map[string]struct{})
}

// Load adds the entry key read from the store (see BeginLoad), replacing
// the copy held if any. Outside BeginLoad…EndLoad it adds the entry only
// when the key is neither held nor recently deleted.
func (c *Cache) Load(part, key string, vec []float32, filters av.Item) {
	if len(vec) != c.dims {
		panic("vectors: Cache.Load: vector of the wrong length")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var seq uint64
	if c.loading {
		if _, ok := c.touched[key]; ok {
			return
		}
		if e, ok := c.entries[key]; ok {
			seq = e.seq
		} else if t, ok := c.tombs[key]; ok {
			seq = t.seq
		}
	} else {
		_, live := c.entries[key]
		_, dead := c.tombs[key]
		if live || dead {
			return
		}
	}
	c.put(part, key, vec, filters, seq)
}

// EndLoad ends the filling BeginLoad started.
func (c *Cache) EndLoad() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loading = false
	c.touched = nil
}

// Len returns the number of entries.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Bytes returns the memory the cache holds, approximately: the
// partitions' arrays at their capacity, the keys, the filters and the
// maps' entries.
func (c *Cache) Bytes() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := c.extra
	for _, p := range c.parts {
		n += partitionBytes + int64(cap(p.slab))*4 + int64(cap(p.keys))*16 + int64(cap(p.norms))*8 + int64(cap(p.filters))*8
	}
	return n
}

// segment is a range of a partition's entries one goroutine scans.
type segment struct {
	p      *partition
	lo, hi int
}

// Search returns the k best entries of partition part (every partition
// when all is true) whose filters satisfy match (nil: all), best first,
// ties by smaller key: an exact search (recall 1.0), whose scores are
// Score's to the bit. q has dims elements. match runs while the cache is
// locked for reading, concurrently with itself: it must not call the
// cache.
func (c *Cache) Search(part string, all bool, q []float32, k int, match func(filters av.Item) bool) []Result {
	if k <= 0 || len(q) != c.dims {
		return nil
	}
	q64 := make([]float64, len(q))
	for i, f := range q {
		q64[i] = float64(f)
	}
	nq := Norm(q)

	c.mu.RLock()
	defer c.mu.RUnlock()
	var segs []segment
	total := 0
	if all {
		for _, p := range c.parts {
			segs = append(segs, segment{p, 0, len(p.keys)})
			total += len(p.keys)
		}
	} else if p := c.parts[part]; p != nil {
		segs = append(segs, segment{p, 0, len(p.keys)})
		total = len(p.keys)
	}
	workers := 1
	if total > parallelMin {
		workers = min(runtime.GOMAXPROCS(0), total/(parallelMin/4))
	}
	if workers <= 1 {
		t := NewTopK(c.dist, k)
		for _, s := range segs {
			c.scan(t, s, q64, nq, match)
		}
		return t.Results()
	}
	tops := make([]*TopK, workers)
	var wg sync.WaitGroup
	for w, share := range split(segs, total, workers) {
		tops[w] = NewTopK(c.dist, k)
		wg.Add(1)
		go func(t *TopK, share []segment) {
			defer wg.Done()
			for _, s := range share {
				c.scan(t, s, q64, nq, match)
			}
		}(tops[w], share)
	}
	wg.Wait()
	out := NewTopK(c.dist, k)
	for _, t := range tops {
		for _, r := range t.Results() {
			out.Offer(r.Score, r.Key)
		}
	}
	return out.Results()
}

// split cuts the segments, total entries in all, into n shares of about
// the same number of entries.
func split(segs []segment, total, n int) [][]segment {
	out := make([][]segment, n)
	per := (total + n - 1) / n
	w, room := 0, per
	for _, s := range segs {
		for s.lo < s.hi {
			take := min(room, s.hi-s.lo)
			out[w] = append(out[w], segment{s.p, s.lo, s.lo + take})
			s.lo += take
			room -= take
			if room == 0 {
				if w < n-1 {
					w++
				}
				room = per
			}
		}
	}
	return out
}

// scan offers the entries of s that match to t.
func (c *Cache) scan(t *TopK, s segment, q []float64, nq float64, match func(av.Item) bool) {
	p, d := s.p, c.dims
	for i := s.lo; i < s.hi; i++ {
		if match != nil && !match(p.filters[i]) {
			continue
		}
		v := p.slab[i*d : (i+1)*d : (i+1)*d]
		var sc float64
		switch c.dist {
		case Euclidean:
			sc = finish(math.Sqrt(l2sq(q, v)))
		case DotProduct:
			sc = finish(dot(q, v))
		default:
			sc = cosine(dot(q, v), nq, p.norms[i])
		}
		t.offerString(sc, p.keys[i])
	}
}
