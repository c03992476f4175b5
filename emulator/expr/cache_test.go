package expr

import (
	"strconv"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

func TestCacheReusesParse(t *testing.T) {
	c := NewCache(2)
	first := c.parse(mCond, "a = :v")
	if again := c.parse(mCond, "a = :v"); again != first {
		t.Error("same text parsed twice")
	}
	// The same text in another grammar is another entry.
	if u := c.parse(mUpdate, "a = :v"); u == first {
		t.Error("update and condition share an entry")
	}
	c.parse(mCond, "a = :v") // touch: the update is now least recently used
	c.parse(mProj, "a")      // evicts the update
	if n := c.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
	if again := c.parse(mCond, "a = :v"); again != first {
		t.Error("recently used entry was evicted")
	}
	if u := c.parse(mUpdate, "a = :v"); c.Len() != 2 || u == nil {
		t.Error("re-parsing the evicted entry failed")
	}
	// Syntax errors are cached too and keep their message.
	e1 := c.parse(mCond, "a =")
	if e2 := c.parse(mCond, "a ="); e2 != e1 || e1.err == "" {
		t.Errorf("error entry %+v / %+v", e1, e2)
	}
}

func TestCacheBindsPerRequest(t *testing.T) {
	c := NewCache(0)
	item := av.Item{"x": S("1"), "y": S("2")}
	for _, tc := range []struct {
		names map[string]string
		want  bool
	}{
		{map[string]string{"#f": "x"}, true},
		{map[string]string{"#f": "y"}, false},
	} {
		p := NewParams(tc.names, map[string]av.Value{":v": S("1")}, c)
		cond, err := p.Condition("#f = :v")
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := cond.Eval(item); got != tc.want {
			t.Errorf("names %v: %v", tc.names, got)
		}
		if err := p.CheckUnused(); err != nil {
			t.Error(err)
		}
	}
	// An undefined name is reported even though the text is cached.
	p := NewParams(map[string]string{"#g": "x"}, map[string]av.Value{":v": S("1")}, c)
	if _, err := p.Condition("#f = :v"); errMsg(t, err) == "" {
		t.Error("cached text skipped binding checks")
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := NewCache(16)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				text := "a" + strconv.Itoa(i%40) + " = :v"
				p := NewParams(nil, map[string]av.Value{":v": S("1")}, c)
				cond, err := p.Condition(text)
				if err != nil {
					t.Error(err)
					return
				}
				if ok, _ := cond.Eval(av.Item{"a" + strconv.Itoa(i%40): S("1")}); !ok {
					t.Errorf("%q false", text)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if n := c.Len(); n > 16 {
		t.Errorf("cache grew to %d", n)
	}
}
