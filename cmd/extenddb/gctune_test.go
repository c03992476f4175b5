package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, maxGCPercent},
		{1 << 20, maxGCPercent}, // 32 MB / 1 MB = 3200%, capped
		{2 << 20, maxGCPercent}, // 1600%: the heap may reach 34 MB
		{8 << 20, 400},          // 8 MB live, 32 MB more
		{32 << 20, 100},         // Go's default from here on
		{500 << 20, 100},        // never below it
	} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
