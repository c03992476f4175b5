package expr

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/work"
)

// TestParseWorkIsLinear: parsing costs work in proportion to the text,
// however deeply it nests and wherever it fails. Work is counted in the
// parser's steps (operands and conditions parsed, retries included) and in
// allocations: a parser that parses the same operands again at each level
// of parentheses (backtracking without memory) takes quadratic steps.
func TestParseWorkIsLinear(t *testing.T) {
	shapes := map[string]struct {
		m    mode
		text func(n int) string
	}{
		"open parentheses":     {mCond, func(n int) string { return strings.Repeat("(", n) + "x" }},
		"nested operands":      {mCond, func(n int) string { return strings.Repeat("(", n) + "a" + strings.Repeat(")", n) + " = :v" }},
		"nested conditions":    {mCond, func(n int) string { return strings.Repeat("(a = :v AND ", n) + "b = :v" + strings.Repeat(")", n) }},
		"unclosed conditions":  {mCond, func(n int) string { return strings.Repeat("(a = :v AND ", n) + "x" }},
		"nested functions":     {mCond, func(n int) string { return strings.Repeat("size(", n) + "a" + strings.Repeat(")", n) + " > :v" }},
		"negations":            {mCond, func(n int) string { return strings.Repeat("NOT ", n) + "(" }},
		"long path":            {mProj, func(n int) string { return "a" + strings.Repeat(".b[1]", n) + "." }},
		"update operand nests": {mUpdate, func(n int) string { return "SET a = " + strings.Repeat("(", n) + "b" }},
	}
	for name, sh := range shapes {
		prev := 0.0
		for n := 32; n <= 1024; n *= 2 {
			text := sh.text(n)
			allocs := testing.AllocsPerRun(3, func() { parseMode(sh.m, text) })
			if prev > 0 && allocs > 2.5*prev+16 {
				t.Errorf("%s: %v allocations at %d levels, %v at %d: growing faster than the text", name, allocs, n, prev, n/2)
			}
			_, steps := parseSteps(sh.m, text)
			if steps > 4*len(text)+16 {
				t.Errorf("%s: %d steps for %d bytes at %d levels: growing faster than the text", name, steps, len(text), n)
			}
			prev = allocs
		}
	}
}

// TestEvalMeteredStops: a condition evaluated under a meter whose context
// has ended stops and says why, however much is left to evaluate.
func TestEvalMeteredStops(t *testing.T) {
	list := make([]av.Value, 50000)
	for i := range list {
		list[i] = av.Value{Type: av.TypeN, S: "1"}
	}
	item := av.Item{"l": {Type: av.TypeL, L: list}}
	text := strings.TrimSuffix(strings.Repeat("contains(l, :x) OR ", 100), " OR ")
	c, err := NewParams(nil, map[string]av.Value{":x": {Type: av.TypeN, S: "2"}}, nil).Condition(text)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var steps atomic.Uint64
	m := work.New(ctx, &steps)
	if ok, err := c.EvalMetered(item, &m); ok || err != nil {
		t.Fatalf("running meter: %v, %v; want false, nil", ok, err)
	}
	if m.Check(); steps.Load() < 100*50000 {
		t.Fatalf("the whole evaluation counted %d steps, want at least %d", steps.Load(), 100*50000)
	}
	cancel()
	steps.Store(0)
	m = work.New(ctx, &steps)
	if _, err := c.EvalMetered(item, &m); err != context.Canceled {
		t.Fatalf("a cancelled meter's evaluation: %v, want context.Canceled", err)
	}
	if n := steps.Load(); n > 100000 {
		t.Errorf("a cancelled evaluation went on for %d steps", n)
	}
}

// FuzzNesting: the fuzzer picks a fragment, how deeply it nests (up to
// 600 levels) and how many times it repeats side by side at each level;
// whatever the shape, the parser's work stays within a constant factor of
// the text's length and the answer is an expression or an *Error.
func FuzzNesting(f *testing.F) {
	f.Add("(", ")", "a = :s", uint16(64), uint8(1), uint8(0))
	f.Add("(a = :s AND ", ")", "b = :n", uint16(300), uint8(2), uint8(0))
	f.Add("size(", ")", "a", uint16(100), uint8(1), uint8(0))
	f.Add("NOT ", "", "(", uint16(200), uint8(3), uint8(0))
	f.Add("SET a = (", "", "b", uint16(200), uint8(1), uint8(1))
	f.Add("a.b[1]", "", ".", uint16(200), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, open, close, leaf string, depth uint16, width uint8, grammar uint8) {
		depth %= 600
		if len(open)+len(close)+len(leaf) > 40 {
			return
		}
		var sb strings.Builder
		for range depth {
			sb.WriteString(open)
		}
		for i := range int(width%8) + 1 {
			if i > 0 {
				sb.WriteString(" OR ")
			}
			sb.WriteString(leaf)
		}
		for range depth {
			sb.WriteString(close)
		}
		text := sb.String()
		m := []mode{mCond, mUpdate, mProj}[int(grammar)%3]
		_, steps := parseSteps(m, text)
		if steps > 4*len(text)+16 {
			t.Fatalf("%d steps for %d bytes (%q nested %d deep): more than linear", steps, len(text), open, depth)
		}
		if _, err := NewParams(fuzzNames, fuzzValues, nil).Condition(text); err != nil {
			checkErr(t, err)
		}
	})
}
