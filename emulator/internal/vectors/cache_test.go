package vectors

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

// keys returns the results' keys joined by spaces.
func keys(rs []Result) string {
	out := ""
	for i, r := range rs {
		if i > 0 {
			out += " "
		}
		out += string(r.Key)
	}
	return out
}

func TestCacheApply(t *testing.T) {
	c := NewCache(2, Euclidean)
	q := []float32{0, 0}
	c.Apply(1, "", "a", []float32{1, 0}, nil)
	c.Apply(2, "", "b", []float32{2, 0}, nil)
	c.Apply(3, "", "c", []float32{3, 0}, nil)
	if got := keys(c.Search("", false, q, 10, nil)); got != "a b c" || c.Len() != 3 {
		t.Fatalf("%q, %d entries", got, c.Len())
	}
	// An update moves b ahead of a.
	c.Apply(4, "", "b", []float32{0.5, 0}, nil)
	// An older change of c arriving late is ignored, put or delete.
	c.Apply(2, "", "c", []float32{0, 0}, nil)
	c.Apply(2, "", "c", nil, nil)
	if got := keys(c.Search("", false, q, 10, nil)); got != "b a c" {
		t.Fatalf("after update: %q", got)
	}
	c.Apply(5, "", "a", nil, nil)
	// An older put after the delete stays deleted; a newer one restores.
	c.Apply(4, "", "a", []float32{0, 0}, nil)
	if got := keys(c.Search("", false, q, 10, nil)); got != "b c" || c.Len() != 2 {
		t.Fatalf("after delete: %q, %d entries", got, c.Len())
	}
	c.Apply(6, "", "a", []float32{0, 0}, nil)
	if got := keys(c.Search("", false, q, 10, nil)); got != "a b c" {
		t.Fatalf("after re-put: %q", got)
	}
	// A delete that arrives before the put it follows.
	c.Apply(9, "", "d", nil, nil)
	c.Apply(8, "", "d", []float32{0, 0}, nil)
	if got := keys(c.Search("", false, q, 10, nil)); got != "a b c" {
		t.Fatalf("delete first: %q", got)
	}
	// The scores are Score's.
	rs := c.Search("", false, []float32{1, 1}, 1, nil)
	if len(rs) != 1 || rs[0].Score != Score(Euclidean, []float32{1, 1}, []float32{0.5, 0}) {
		t.Fatalf("%+v", rs)
	}
	// Same seq is applied again (a retried change).
	c.Apply(6, "", "a", []float32{9, 9}, nil)
	if got := keys(c.Search("", false, q, 10, nil)); got != "b c a" {
		t.Fatalf("same seq: %q", got)
	}
	for _, k := range []int{0, -1} {
		if rs := c.Search("", false, q, k, nil); rs != nil {
			t.Fatalf("k %d: %v", k, rs)
		}
	}
	// Deleting everything leaves nothing behind.
	for _, k := range []string{"a", "b", "c"} {
		c.Apply(100, "", k, nil, nil)
	}
	if c.Len() != 0 || len(c.parts) != 0 || c.Search("", true, q, 10, nil) != nil {
		t.Fatalf("%d entries, %d partitions", c.Len(), len(c.parts))
	}
}

func TestCachePartitions(t *testing.T) {
	c := NewCache(1, DotProduct)
	c.Apply(1, "p1", "a", []float32{1}, nil)
	c.Apply(1, "p1", "b", []float32{2}, nil)
	c.Apply(1, "p2", "c", []float32{3}, nil)
	c.Apply(1, "p2", "d", []float32{4}, nil)
	q := []float32{1}
	for _, tt := range []struct {
		part string
		all  bool
		want string
	}{{"p1", false, "b a"}, {"p2", false, "d c"}, {"p3", false, ""}, {"", false, ""}, {"", true, "d c b a"}, {"p1", true, "d c b a"}} {
		if got := keys(c.Search(tt.part, tt.all, q, 10, nil)); got != tt.want {
			t.Errorf("%q all=%v: %q, want %q", tt.part, tt.all, got, tt.want)
		}
	}
	// A change of HASH value moves the entry.
	c.Apply(2, "p2", "a", []float32{5}, nil)
	if got := keys(c.Search("p1", false, q, 10, nil)); got != "b" {
		t.Errorf("p1 after move: %q", got)
	}
	if got := keys(c.Search("p2", false, q, 10, nil)); got != "a d c" {
		t.Errorf("p2 after move: %q", got)
	}
}

func TestCacheFilters(t *testing.T) {
	c := NewCache(1, Euclidean)
	red := av.Item{"color": {Type: av.TypeS, S: "red"}}
	blue := av.Item{"color": {Type: av.TypeS, S: "blue"}}
	c.Apply(1, "", "a", []float32{1}, red)
	c.Apply(1, "", "b", []float32{2}, blue)
	c.Apply(1, "", "c", []float32{3}, red)
	c.Apply(1, "", "d", []float32{4}, nil)
	isRed := func(f av.Item) bool { return f["color"].S == "red" }
	if got := keys(c.Search("", false, []float32{0}, 10, isRed)); got != "a c" {
		t.Fatalf("%q", got)
	}
	c.Apply(2, "", "a", []float32{1}, blue)
	if got := keys(c.Search("", false, []float32{0}, 10, isRed)); got != "c" {
		t.Fatalf("after refilter: %q", got)
	}
}

func TestCacheTies(t *testing.T) {
	c := NewCache(2, Cosine)
	// Same direction, so the same score; inserted in a scrambled order.
	for i, k := range []string{"k3", "k1", "k4", "k0", "k2"} {
		c.Apply(1, "", k, []float32{float32(i + 1), 0}, nil)
	}
	for range 3 {
		if got := keys(c.Search("", false, []float32{1, 0}, 3, nil)); got != "k0 k1 k2" {
			t.Fatalf("%q", got)
		}
	}
}

func TestCacheLoad(t *testing.T) {
	c := NewCache(1, Euclidean)
	c.Apply(1, "", "old", []float32{7}, nil)
	c.BeginLoad()
	// Changes committed while the store is read.
	c.Apply(5, "", "deleted", nil, nil)
	c.Apply(6, "", "updated", []float32{1}, nil)
	// The read returns the store as it was before them.
	c.Load("", "deleted", []float32{2}, nil)
	c.Load("", "updated", []float32{3}, nil)
	c.Load("", "plain", []float32{4}, nil)
	c.Load("", "old", []float32{8}, nil)
	c.EndLoad()
	rs := c.Search("", false, []float32{0}, 10, nil)
	if got := keys(rs); got != "updated plain old" || rs[0].Score != 1 || rs[2].Score != 8 {
		t.Fatalf("%+v", rs)
	}
	// Out of a load, Load adds only what is neither held nor deleted.
	c.Load("", "updated", []float32{9}, nil)
	c.Load("", "deleted", []float32{9}, nil)
	c.Load("", "new", []float32{9}, nil)
	if got := keys(c.Search("", false, []float32{0}, 10, nil)); got != "updated plain old new" {
		t.Fatalf("%q", got)
	}
	// A loaded entry keeps ordering with later applies.
	c.Apply(0, "", "plain", nil, nil)
	if c.Len() != 3 {
		t.Fatalf("%d entries", c.Len())
	}
}

// TestCacheLoadRace runs a load while deletes and updates are applied:
// whatever the interleaving, a key changed during the load ends as the
// change left it.
func TestCacheLoadRace(t *testing.T) {
	const n = 2000
	c := NewCache(1, Euclidean)
	c.BeginLoad()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range n {
			c.Load("", fmt.Sprintf("k%04d", i), []float32{1}, nil)
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			k := fmt.Sprintf("k%04d", i)
			switch i % 3 {
			case 0:
				c.Apply(uint64(i+1), "", k, nil, nil)
			case 1:
				c.Apply(uint64(i+1), "", k, []float32{2}, nil)
			}
		}
	}()
	wg.Wait()
	c.EndLoad()
	if c.Len() != n-(n+2)/3 {
		t.Fatalf("%d entries", c.Len())
	}
	for _, r := range c.Search("", true, []float32{0}, n, nil) {
		var i int
		fmt.Sscanf(string(r.Key), "k%d", &i)
		want := map[int]float64{1: 2, 2: 1}[i%3]
		if i%3 == 0 || r.Score != want {
			t.Fatalf("%s: score %v, want %v", r.Key, r.Score, want)
		}
	}
}

// reference is the brute-force search: every entry scored with Score,
// sorted, cut at k.
func reference(dist string, vecs map[string][]float32, q []float32, k int, keep func(string) bool) []Result {
	var all []Result
	for key, v := range vecs {
		if keep(key) {
			all = append(all, Result{Key: []byte(key), Score: Score(dist, q, v)})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Score != all[j].Score {
			return Better(dist, all[i].Score, all[j].Score)
		}
		return string(all[i].Key) < string(all[j].Key)
	})
	return all[:min(k, len(all))]
}

func TestCacheRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tt := range []struct{ dims, n int }{{1, 300}, {3, 2000}, {8, 1000}, {17, 500}, {4, 60000}, {64, 300}} {
		for _, dist := range []string{Cosine, Euclidean, DotProduct} {
			c := NewCache(tt.dims, dist)
			vecs := map[string][]float32{}
			part := map[string]string{}
			var seq uint64
			for range tt.n {
				seq++
				key := fmt.Sprintf("k%d", r.IntN(tt.n))
				if r.IntN(5) == 0 {
					c.Apply(seq, part[key], key, nil, nil)
					delete(vecs, key)
					continue
				}
				v := randVec(r, tt.dims)
				if r.IntN(10) == 0 {
					// Duplicates, for ties.
					v = make([]float32, tt.dims)
					v[0] = 1
				}
				p := fmt.Sprintf("p%d", r.IntN(3))
				c.Apply(seq, p, key, v, av.Item{"even": {Type: av.TypeBOOL, Bool: len(key)%2 == 0}})
				vecs[key], part[key] = v, p
			}
			if c.Len() != len(vecs) {
				t.Fatalf("%d entries, want %d", c.Len(), len(vecs))
			}
			for range 5 {
				q := randVec(r, tt.dims)
				k := 1 + r.IntN(100)
				check := func(name string, got, want []Result) {
					t.Helper()
					if len(got) != len(want) {
						t.Fatalf("dims %d %s %s: %d results, want %d", tt.dims, dist, name, len(got), len(want))
					}
					for i := range got {
						if string(got[i].Key) != string(want[i].Key) || got[i].Score != want[i].Score {
							t.Fatalf("dims %d %s %s: result %d = %s %v, want %s %v", tt.dims, dist, name, i, got[i].Key, got[i].Score, want[i].Key, want[i].Score)
						}
					}
				}
				check("all", c.Search("", true, q, k, nil), reference(dist, vecs, q, k, func(string) bool { return true }))
				check("p1", c.Search("p1", false, q, k, nil), reference(dist, vecs, q, k, func(k string) bool { return part[k] == "p1" }))
				even := func(f av.Item) bool { return f["even"].Bool }
				check("even", c.Search("", true, q, k, even), reference(dist, vecs, q, k, func(k string) bool { return len(k)%2 == 0 }))
			}
		}
	}
}

func TestCacheSplit(t *testing.T) {
	p1, p2 := &partition{name: "1"}, &partition{name: "2"}
	segs := []segment{{p1, 0, 7}, {p2, 0, 3}}
	for n := 1; n <= 12; n++ {
		count := 0
		for _, share := range split(segs, 10, n) {
			for _, s := range share {
				if s.lo >= s.hi {
					t.Fatalf("n %d: empty segment %+v", n, s)
				}
				count += s.hi - s.lo
			}
		}
		if count != 10 {
			t.Fatalf("n %d: %d entries", n, count)
		}
	}
}

func TestCacheBytes(t *testing.T) {
	const dims, n = 768, 5000
	r := rand.New(rand.NewPCG(5, 6))
	c := NewCache(dims, Cosine)
	v := randVec(r, dims)
	for i := range n {
		c.Apply(1, "", fmt.Sprintf("key-%08d", i), v, nil)
	}
	raw := int64(n * dims * 4)
	if b := c.Bytes(); b < raw || b > raw*3/2 {
		t.Fatalf("Bytes %d for %d of vectors", b, raw)
	}
	for i := range n - 10 {
		c.Apply(2, "", fmt.Sprintf("key-%08d", i), nil, nil)
	}
	// Shrunk, tombstones counted.
	if b := c.Bytes(); b > 100*dims*4+int64(n)*200 {
		t.Fatalf("Bytes %d after deleting all but 10", b)
	}
	if got := keys(c.Search("", false, v, 2, nil)); got != "key-00004990 key-00004991" {
		t.Fatalf("%q", got)
	}
}

// TestCacheConcurrent runs searches alongside applies (for -race).
func TestCacheConcurrent(t *testing.T) {
	c := NewCache(4, Euclidean)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 25000 {
		c.Apply(1, "", fmt.Sprint(i), randVec(r, 4), nil)
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 20 {
				if rs := c.Search("", true, randVec(r, 4), 10, nil); len(rs) != 10 {
					t.Errorf("%d results", len(rs))
				}
			}
		}()
	}
	for i := range 2000 {
		c.Apply(2, "", fmt.Sprint(i), nil, nil)
		c.Apply(2, "", fmt.Sprint(30000+i), randVec(r, 4), nil)
	}
	wg.Wait()
}

// TestCacheReserve: a cache reserved for the entries it is filled with
// holds their vectors without slack.
func TestCacheReserve(t *testing.T) {
	const dims, n = 256, 1000
	fill := func(reserve bool) int64 {
		c := NewCache(dims, Euclidean)
		if reserve {
			c.Reserve("", n)
		}
		c.BeginLoad()
		for i := 0; i < n; i++ {
			c.Load("", fmt.Sprint(i), make([]float32, dims), nil)
		}
		c.EndLoad()
		if c.Len() != n {
			t.Fatalf("Len %d", c.Len())
		}
		return c.Bytes()
	}
	with, without := fill(true), fill(false)
	if vecs := int64(n * dims * 4); with >= without || with < vecs || with > vecs*2 {
		t.Errorf("reserved %d bytes, grown %d, vectors %d", with, without, vecs)
	}
}
