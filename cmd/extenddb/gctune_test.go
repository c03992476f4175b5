package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
)

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

// TestTuneGC: serve raises the GC target over a small live heap, and leaves
// it alone when GOGC is set.
func TestTuneGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	tuneGC(ctx, func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the GC target became %d", got)
	}
	runtime.GC() // a live heap to read, far under 32 MB in this test
	tuneGC(ctx, func(string) string { return "" })
	if got := debug.SetGCPercent(100); got <= 100 {
		t.Errorf("over a small live heap, the GC target is %d, want more than 100", got)
	}
}

func TestReleaseWhenIdle(t *testing.T) {
	for _, c := range []struct {
		quiet int
		free  uint64
		want  bool
	}{
		{0, 64 << 20, false}, // collecting: under load
		{idleRelease - 1, 64 << 20, false},
		{idleRelease, 64 << 20, true}, // idle, and much held
		{idleRelease + 30, minRelease, true},
		{idleRelease, minRelease - 1, false}, // little held: the scavenger's
	} {
		if got := releaseWhenIdle(c.quiet, c.free); got != c.want {
			t.Errorf("releaseWhenIdle(%d s, %d MB) = %v, want %v", c.quiet, c.free>>20, got, c.want)
		}
	}
}
