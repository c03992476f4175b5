package vectors

import (
	"sync"

	"github.com/extenddb/extenddb/emulator/av"
)

// Cache is the in-memory copy of one vector index's entries that searches
// scan. It is safe for concurrent use.
type Cache struct {
	dims    int
	dist    string
	mu      sync.RWMutex
	entries map[string]*cacheEntry // by key
	seqs    map[string]uint64
	loading bool
	touched map[string]bool
}

type cacheEntry struct {
	part    string
	vec     []float32
	filters av.Item
}

// NewCache returns an empty cache of an index of dims dimensions scored
// by dist.
func NewCache(dims int, dist string) *Cache {
	return &Cache{dims: dims, dist: dist, entries: map[string]*cacheEntry{}, seqs: map[string]uint64{}}
}

// Apply records a committed change of entry key in partition part: vec
// nil removes it. A change older (by seq) than the last applied to key is
// ignored.
func (c *Cache) Apply(seq uint64, part, key string, vec []float32, filters av.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.seqs[key]; ok && seq < s {
		return
	}
	c.seqs[key] = seq
	if c.loading {
		c.touched[key] = true
	}
	if vec == nil {
		delete(c.entries, key)
		return
	}
	c.entries[key] = &cacheEntry{part: part, vec: vec, filters: filters}
}

// BeginLoad starts filling the cache from the store.
func (c *Cache) BeginLoad() {
	c.mu.Lock()
	c.loading, c.touched = true, map[string]bool{}
	c.mu.Unlock()
}

// Load adds an entry read from the store, unless an Apply touched its key
// since BeginLoad.
func (c *Cache) Load(part, key string, vec []float32, filters av.Item) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.touched[key] {
		return
	}
	c.entries[key] = &cacheEntry{part: part, vec: vec, filters: filters}
}

// EndLoad ends the filling.
func (c *Cache) EndLoad() {
	c.mu.Lock()
	c.loading, c.touched = false, nil
	c.mu.Unlock()
}

// Search returns the k best entries of partition part (of every partition
// when all is set) whose filters satisfy match, best first.
func (c *Cache) Search(part string, all bool, q []float32, k int, match func(filters av.Item) bool) []Result {
	c.mu.RLock()
	defer c.mu.RUnlock()
	top := NewTopK(c.dist, k)
	for key, e := range c.entries {
		if !all && e.part != part {
			continue
		}
		if match != nil && !match(e.filters) {
			continue
		}
		top.Offer(Score(c.dist, q, e.vec), []byte(key))
	}
	return top.Results()
}

// Len is the number of entries.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Bytes is roughly the memory the cache holds.
func (c *Cache) Bytes() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return int64(len(c.entries)) * int64(4*c.dims+64)
}
