package partiql

import (
	"strings"
	"testing"
)

// TestParseWorkIsLinear: parsing a statement costs work (counted in
// allocations) in proportion to its length, however deeply it nests and
// wherever it fails: doubling the nesting at most doubles the work.
func TestParseWorkIsLinear(t *testing.T) {
	shapes := map[string]func(n int) string{
		"parentheses": func(n int) string {
			return "SELECT * FROM T WHERE " + strings.Repeat("(", n) + "a = 1" + strings.Repeat(")", n)
		},
		"open parentheses":   func(n int) string { return "SELECT * FROM T WHERE " + strings.Repeat("(", n) + "a = 1" },
		"unclosed condition": func(n int) string { return "SELECT * FROM T WHERE " + strings.Repeat("(a = 1 AND ", n) + "x" },
		"maps": func(n int) string {
			return "INSERT INTO T VALUE " + strings.Repeat("{'a':", n) + "1" + strings.Repeat("}", n)
		},
		"open maps": func(n int) string { return "INSERT INTO T VALUE " + strings.Repeat("{'a':", n) + "1" },
		"lists": func(n int) string {
			return "INSERT INTO T VALUE {'a':" + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "}"
		},
		"negations": func(n int) string { return "SELECT * FROM T WHERE " + strings.Repeat("NOT ", n) + "a = 1" },
		"long path": func(n int) string { return "SELECT * FROM T WHERE a" + strings.Repeat(".b[1]", n) + " = 1" },
		"nested functions": func(n int) string {
			return "SELECT * FROM T WHERE " + strings.Repeat("size(", n) + "a" + strings.Repeat(")", n) + " = 1"
		},
	}
	for name, text := range shapes {
		prev := 0.0
		for n := 32; n <= 2048; n *= 2 {
			s := text(n)
			allocs := testing.AllocsPerRun(2, func() { _, _ = Parse(s) })
			if prev > 0 && allocs > 2.2*prev+16 {
				t.Errorf("%s: %v allocations at %d levels, %v at %d: growing faster than the text", name, allocs, n, prev, n/2)
			}
			prev = allocs
		}
	}
}

// FuzzNesting: the fuzzer picks a fragment, how deeply it nests and how
// many times the innermost part repeats; parsing costs allocations linear
// in the statement's length, and never panics.
func FuzzNesting(f *testing.F) {
	f.Add("SELECT * FROM T WHERE ", "(", ")", "a = 1", uint16(300), uint8(1))
	f.Add("INSERT INTO T VALUE ", "{'a':", "}", "1", uint16(300), uint8(1))
	f.Add("INSERT INTO T VALUE {'a':", "[", "]", "1", uint16(300), uint8(3))
	f.Add("SELECT * FROM T WHERE ", "(a = 1 AND ", "", "x", uint16(300), uint8(1))
	f.Fuzz(func(t *testing.T, head, open, close, leaf string, depth uint16, width uint8) {
		depth %= 1000
		if len(head)+len(open)+len(close)+len(leaf) > 60 {
			return
		}
		inner := strings.Repeat(leaf+", ", int(width%8)) + leaf
		s := head + strings.Repeat(open, int(depth)) + inner + strings.Repeat(close, int(depth))
		allocs := testing.AllocsPerRun(1, func() { _, _ = Parse(s) })
		if allocs > float64(4*len(s)+64) {
			t.Fatalf("%v allocations for %d bytes (%q nested %d deep): more than linear", allocs, len(s), open, depth)
		}
	})
}
