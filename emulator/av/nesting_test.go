package av

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// nestedTree builds a value depth levels deep (a scalar inside depth-1 M or
// L), width elements at each level, with an invalid number in bad leaves
// chosen at random; it returns the value and how many nodes it has.
func nestedTree(r *rand.Rand, depth, width int, badShare float64) (Value, int) {
	if depth == 1 {
		if r.Float64() < badShare {
			return Value{Type: TypeN, S: "abc"}, 1
		}
		return Value{Type: TypeN, S: "1"}, 1
	}
	nodes := 1
	if r.IntN(2) == 0 {
		m := map[string]Value{}
		for i := range width {
			v, n := nestedTree(r, depth-1, 1+r.IntN(width), badShare)
			m[fmt.Sprintf("k%d", i)] = v
			nodes += n
		}
		return Value{Type: TypeM, M: m}, nodes
	}
	l := make([]Value, 0, width)
	for range width {
		v, n := nestedTree(r, depth-1, 1+r.IntN(width), badShare)
		l = append(l, v)
		nodes += n
	}
	return Value{Type: TypeL, L: l}, nodes
}

// TestValidationWorkIsLinear: validating a value costs work in proportion
// to its size whatever its depth and width, and wherever the invalid
// numbers are. Work is counted in allocations (every failing number
// allocates its error); a validation that revisits subtrees (a value
// validated again at each level) makes them grow with 2^depth.
func TestValidationWorkIsLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for depth := 1; depth <= MaxDepth; depth++ {
		for _, width := range []int{1, 2, 3} {
			if width > 1 && depth > 8 {
				// Keep the tree small: deep and wide is covered by the
				// narrow chains below and the random shapes above.
				width = 1
			}
			for _, bad := range []float64{0, 0.1, 1} {
				v, nodes := nestedTree(r, depth, width, bad)
				allocs := testing.AllocsPerRun(5, func() { _ = ValidateValue(v) })
				if allocs > float64(2*nodes+4) {
					t.Fatalf("depth %d width %d bad share %v: %v allocations for %d nodes; want at most %d",
						depth, width, bad, allocs, nodes, 2*nodes+4)
				}
			}
		}
	}
	// The number 32 levels down is still found, and the message names it
	// (here, after the linear check: exponentially it would run for hours).
	v := Value{Type: TypeN, S: "abc"}
	for range MaxDepth - 1 {
		v = Value{Type: TypeM, M: map[string]Value{"b": {Type: TypeS, S: "x"}, "a": v}}
	}
	err := ValidateItem(Item{"v": v})
	if err == nil || err.Error() != "The parameter cannot be converted to a numeric value: abc" {
		t.Fatalf("ValidateItem = %v", err)
	}
}

// FuzzValidateNesting: the fuzzer picks the depth, the width at each
// level, the seed of the shape and the share of invalid leaves; validation
// costs at most a constant number of allocations per node, and an invalid
// leaf anywhere is found.
func FuzzValidateNesting(f *testing.F) {
	f.Add(uint8(32), uint8(1), uint64(1), uint8(255))
	f.Add(uint8(10), uint8(3), uint64(2), uint8(20))
	f.Add(uint8(5), uint8(6), uint64(3), uint8(0))
	f.Fuzz(func(t *testing.T, depth, width uint8, seed uint64, bad uint8) {
		d := int(depth)%MaxDepth + 1
		w := int(width)%6 + 1
		if d > 6 {
			w = min(w, 2) // bounded size: 2^32 nodes would be the fuzzer's problem, not ours
		}
		if d > 16 {
			w = 1
		}
		share := float64(bad) / 255
		v, nodes := nestedTree(rand.New(rand.NewPCG(seed, 7)), d, w, share)
		allocs := testing.AllocsPerRun(1, func() { _ = ValidateValue(v) })
		if allocs > float64(2*nodes+4) {
			t.Fatalf("depth %d width %d: %v allocations for %d nodes", d, w, allocs, nodes)
		}
		if share == 1 && ValidateValue(v) == nil {
			t.Fatalf("depth %d width %d: every leaf invalid, no error", d, w)
		}
		if share == 0 && ValidateValue(v) != nil {
			t.Fatalf("depth %d width %d: no leaf invalid, error %v", d, w, ValidateValue(v))
		}
	})
}
