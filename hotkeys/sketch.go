package hotkeys

import "sort"

// Counter is one key's estimated weight. Err bounds the overestimate: the
// true weight lies in [Count-Err, Count].
type Counter struct {
	Key   string
	Count float64
	Err   float64
}

// Sketch is a Space-Saving summary of at most k keys. It is not safe for
// concurrent use (Window locks around it).
type Sketch struct {
	k     int
	items []Counter
	index map[string]int
}

// NewSketch returns a sketch keeping at most k counters (k ≥ 1).
func NewSketch(k int) *Sketch {
	if k < 1 {
		k = 1
	}
	return &Sketch{k: k, index: make(map[string]int, k)}
}

// Add adds weight w to key. A key already counted costs a map lookup and
// no allocation (the []byte → string conversion in a map index does not
// allocate); a new key in a full sketch takes over the smallest counter,
// inheriting its count as its error, as Space-Saving does.
func (s *Sketch) Add(key []byte, w float64) {
	if i, ok := s.index[string(key)]; ok {
		s.items[i].Count += w
		return
	}
	s.insert(string(key), w)
}

// AddString is Add for a key held as a string.
func (s *Sketch) AddString(key string, w float64) {
	if i, ok := s.index[key]; ok {
		s.items[i].Count += w
		return
	}
	s.insert(key, w)
}

// insert counts a key not counted yet. The scan for the smallest counter
// is linear: k is small and this is the rare path.
func (s *Sketch) insert(k string, w float64) {
	if len(s.items) < s.k {
		s.index[k] = len(s.items)
		s.items = append(s.items, Counter{Key: k, Count: w})
		return
	}
	m := 0
	for i := 1; i < len(s.items); i++ {
		if s.items[i].Count < s.items[m].Count {
			m = i
		}
	}
	old := s.items[m]
	delete(s.index, old.Key)
	s.index[k] = m
	s.items[m] = Counter{Key: k, Count: old.Count + w, Err: old.Count}
}

// Len returns how many keys the sketch counts.
func (s *Sketch) Len() int { return len(s.items) }

// Reset empties the sketch, keeping its memory.
func (s *Sketch) Reset() {
	s.items = s.items[:0]
	clear(s.index)
}

// Top returns up to n counters, heaviest first (ties by key, so the order
// is stable); n ≤ 0 means all.
func (s *Sketch) Top(n int) []Counter {
	out := append([]Counter(nil), s.items...)
	sortCounters(out)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

func sortCounters(c []Counter) {
	sort.Slice(c, func(i, j int) bool {
		if c[i].Count != c[j].Count {
			return c[i].Count > c[j].Count
		}
		return c[i].Key < c[j].Key
	})
}
