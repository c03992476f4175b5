package hotkeys

import (
	"sync"
	"time"
)

// Defaults of WindowOptions.
const (
	DefaultK       = 100
	DefaultBucket  = time.Minute
	DefaultBuckets = 60
)

// WindowOptions sizes a Window; zero fields take the defaults.
type WindowOptions struct {
	// K is how many keys each bucket's sketch keeps. Default 100.
	K int
	// Bucket is the width of one time bucket. Default one minute.
	Bucket time.Duration
	// Buckets is how many buckets are kept: the window is Bucket×Buckets
	// (an hour by default).
	Buckets int
}

// Window counts weighted keys in time buckets and answers the heaviest
// keys of the last stretch of time. It is safe for concurrent use.
type Window struct {
	mu     sync.Mutex
	bucket time.Duration
	k      int
	ring   []slot
}

type slot struct {
	n int64 // bucket number (Unix time / bucket width + 1)
	s *Sketch
}

// NewWindow returns an empty window.
func NewWindow(o WindowOptions) *Window {
	if o.K <= 0 {
		o.K = DefaultK
	}
	if o.Bucket <= 0 {
		o.Bucket = DefaultBucket
	}
	if o.Buckets <= 0 {
		o.Buckets = DefaultBuckets
	}
	return &Window{bucket: o.Bucket, k: o.K, ring: make([]slot, o.Buckets)}
}

// Span returns how far back the window reaches.
func (w *Window) Span() time.Duration { return w.bucket * time.Duration(len(w.ring)) }

func (w *Window) bucketOf(t time.Time) int64 { return t.UnixNano()/int64(w.bucket) + 1 }

// Add adds weight to key in the bucket of now. Once a bucket's sketch
// exists, adding allocates nothing for a key it already counts.
func (w *Window) Add(now time.Time, key []byte, weight float64) {
	w.mu.Lock()
	w.sketchAt(now).Add(key, weight)
	w.mu.Unlock()
}

// AddString is Add for a key held as a string.
func (w *Window) AddString(now time.Time, key string, weight float64) {
	w.mu.Lock()
	w.sketchAt(now).AddString(key, weight)
	w.mu.Unlock()
}

// sketchAt returns the sketch of now's bucket. The caller holds w.mu.
func (w *Window) sketchAt(now time.Time) *Sketch {
	n := w.bucketOf(now)
	i := n % int64(len(w.ring))
	if i < 0 {
		i += int64(len(w.ring)) // a clock before 1970
	}
	sl := &w.ring[i]
	if sl.n != n || sl.s == nil {
		// The slot holds a bucket that has fallen out of the window (or
		// none): reuse its sketch for this one.
		if sl.s == nil {
			sl.s = NewSketch(w.k)
		} else {
			sl.s.Reset()
		}
		sl.n = n
	}
	return sl.s
}

// Top returns up to n keys, heaviest first, summed over the buckets of the
// last span (rounded up to whole buckets, at most the window) before now.
// span ≤ 0 means the whole window; n ≤ 0 means all counted keys.
func (w *Window) Top(now time.Time, span time.Duration, n int) []Counter {
	last := w.bucketOf(now)
	keep := int64(len(w.ring))
	if span > 0 {
		if b := int64((span + w.bucket - 1) / w.bucket); b < keep {
			keep = b
		}
	}
	sum := map[string]*Counter{}
	w.mu.Lock()
	for _, sl := range w.ring {
		if sl.s == nil || sl.n > last || sl.n <= last-keep {
			continue
		}
		for _, c := range sl.s.items {
			if t, ok := sum[c.Key]; ok {
				t.Count += c.Count
				t.Err += c.Err
			} else {
				cc := c
				sum[c.Key] = &cc
			}
		}
	}
	w.mu.Unlock()
	out := make([]Counter, 0, len(sum))
	for _, c := range sum {
		out = append(out, *c)
	}
	sortCounters(out)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
