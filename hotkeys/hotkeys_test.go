package hotkeys

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func TestSketchKeepsHeavyKeys(t *testing.T) {
	s := NewSketch(4)
	// One heavy key among many light ones: it survives every eviction.
	for i := 0; i < 1000; i++ {
		s.Add([]byte("hot"), 1)
		s.Add([]byte(fmt.Sprintf("cold-%d", i)), 1)
	}
	if s.Len() != 4 {
		t.Fatalf("Len = %d, want 4", s.Len())
	}
	top := s.Top(1)
	if top[0].Key != "hot" || top[0].Count-top[0].Err > 1000 || top[0].Count < 1000 {
		t.Fatalf("top = %+v, want hot with 1000 in [Count-Err, Count]", top[0])
	}
}

func TestSketchExactWhenFewKeys(t *testing.T) {
	s := NewSketch(10)
	for _, tc := range []struct {
		k string
		w float64
	}{{"a", 1}, {"b", 5}, {"a", 2}, {"c", 3}} {
		s.Add([]byte(tc.k), tc.w)
	}
	got := s.Top(0)
	want := []Counter{{Key: "b", Count: 5}, {Key: "a", Count: 3}, {Key: "c", Count: 3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Top = %v, want %v", got, want)
	}
	if got := s.Top(2); len(got) != 2 {
		t.Fatalf("Top(2) has %d", len(got))
	}
}

func TestWindowSlides(t *testing.T) {
	w := NewWindow(WindowOptions{K: 8, Bucket: time.Minute, Buckets: 3})
	t0 := time.Unix(1_700_000_000, 0).Truncate(time.Minute)
	w.Add(t0, []byte("old"), 10)
	w.Add(t0.Add(time.Minute), []byte("mid"), 4)
	w.Add(t0.Add(2*time.Minute), []byte("new"), 1)
	w.Add(t0.Add(2*time.Minute), []byte("mid"), 1)

	top := w.Top(t0.Add(2*time.Minute), 0, 0)
	if fmt.Sprint(top) != fmt.Sprint([]Counter{{Key: "old", Count: 10}, {Key: "mid", Count: 5}, {Key: "new", Count: 1}}) {
		t.Fatalf("whole window = %v", top)
	}
	// The last minute only.
	if top := w.Top(t0.Add(2*time.Minute), time.Minute, 0); fmt.Sprint(top) != fmt.Sprint([]Counter{{Key: "mid", Count: 1}, {Key: "new", Count: 1}}) {
		t.Fatalf("last minute = %v", top)
	}
	// A minute later the first bucket has fallen out, and its slot is
	// reused for the new minute.
	w.Add(t0.Add(3*time.Minute), []byte("newer"), 2)
	if top := w.Top(t0.Add(3*time.Minute), 0, 0); fmt.Sprint(top) != fmt.Sprint([]Counter{{Key: "mid", Count: 5}, {Key: "newer", Count: 2}, {Key: "new", Count: 1}}) {
		t.Fatalf("after sliding = %v", top)
	}
	// Long idle: nothing left.
	if top := w.Top(t0.Add(time.Hour), 0, 0); len(top) != 0 {
		t.Fatalf("after an hour = %v", top)
	}
}

func TestWindowAddDoesNotAllocate(t *testing.T) {
	w := NewWindow(WindowOptions{})
	now := time.Unix(1_700_000_000, 0)
	key := []byte("pk")
	w.Add(now, key, 1)
	if n := testing.AllocsPerRun(100, func() { w.Add(now, key, 1) }); n != 0 {
		t.Fatalf("Add of a counted key allocates %v times", n)
	}
}

func BenchmarkWindowAdd(b *testing.B) {
	w := NewWindow(WindowOptions{})
	now := time.Unix(1_700_000_000, 0)
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key-%d", i%50))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Add(now, keys[i%len(keys)], 1)
	}
}

func TestWindowAddString(t *testing.T) {
	w := NewWindow(WindowOptions{K: 2})
	now := time.Unix(1_700_000_000, 0)
	w.AddString(now, "a", 2)
	w.Add(now, []byte("a"), 1)
	w.AddString(now, "b", 1)
	if top := w.Top(now, 0, 0); fmt.Sprint(top) != fmt.Sprint([]Counter{{Key: "a", Count: 3}, {Key: "b", Count: 1}}) {
		t.Fatalf("Top = %v", top)
	}
	if n := testing.AllocsPerRun(100, func() { w.AddString(now, "a", 1) }); n != 0 {
		t.Fatalf("AddString of a counted key allocates %v times", n)
	}
}

func TestWindowBefore1970(t *testing.T) {
	w := NewWindow(WindowOptions{Buckets: 3})
	for _, now := range []time.Time{time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(-90, 0)} {
		w.Add(now, []byte("old"), 1)
		if top := w.Top(now, 0, 0); len(top) != 1 || top[0].Key != "old" {
			t.Fatalf("Top at %v = %v", now, top)
		}
	}
}

// TestSketchBounds holds the sketch to Space-Saving's guarantees on a
// random skewed stream: every key heavier than total/k is kept, and every
// kept key's true weight lies in [Count-Err, Count].
func TestSketchBounds(t *testing.T) {
	const k, n = 20, 20000
	r := rand.New(rand.NewPCG(1, 2))
	s := NewSketch(k)
	truth := map[string]float64{}
	total := 0.0
	for range n {
		// Zipf-like: key i with weight about 1/(i+1).
		key := fmt.Sprintf("k%d", int(r.ExpFloat64()*8))
		w := float64(1 + r.IntN(3))
		s.Add([]byte(key), w)
		truth[key] += w
		total += w
	}
	kept := map[string]Counter{}
	for _, c := range s.Top(0) {
		kept[c.Key] = c
		if tw := truth[c.Key]; tw > c.Count || tw < c.Count-c.Err {
			t.Errorf("%s: true %v outside [%v, %v]", c.Key, tw, c.Count-c.Err, c.Count)
		}
	}
	for key, w := range truth {
		if _, ok := kept[key]; w > total/k && !ok {
			t.Errorf("%s (weight %v > total/k %v) was evicted", key, w, total/k)
		}
	}
}
