package main

import (
	"runtime"
	"testing"
	"time"
)

// TestBinaryReleaseTicks: the pages are released once after start-up's
// busy tick and two idle ones, not again while idle, and again after the
// next busy spell; light use below idleCPU does not re-arm it.
func TestBinaryReleaseTicks(t *testing.T) {
	r := binaryRelease{armed: true}
	busy, idle := 60*time.Millisecond, time.Millisecond
	steps := []struct {
		cpu  time.Duration
		want bool
	}{
		{busy, false}, // start-up
		{idle, false},
		{idle, true}, // a second idle: released
		{idle, false},
		{idle, false},
		{idleCPU - time.Microsecond, false}, // a few requests: still idle
		{idle, false},
		{busy, false}, // a test suite
		{busy, false},
		{idle, false},
		{busy, false}, // one idle tick is not enough
		{idle, false},
		{idle, true},
		{idle, false},
	}
	for i, s := range steps {
		if got := r.tick(s.cpu); got != s.want {
			t.Fatalf("tick %d (%v): %v, want %v", i, s.cpu, got, s.want)
		}
	}
	// Still idle: again a minute after each release (the last step above
	// was the first idle tick after one).
	for round, want := range []int{reReleaseTicks - 1, reReleaseTicks} {
		n := 1
		for !r.tick(idle) {
			n++
		}
		if n != want {
			t.Fatalf("round %d: released after %d more idle ticks, want %d", round, n, want)
		}
	}
}

// TestReleaseBinaryPages: on Linux the test binary's read-only pages are
// released, and the process goes on running its code (refaulted from the
// page cache).
func TestReleaseBinaryPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("releases only on Linux")
	}
	if n := releaseBinaryPages(); n <= 0 {
		t.Fatalf("released %d bytes, want some", n)
	}
	if _, ok := processCPU(); !ok {
		t.Fatal("processCPU: not read")
	}
	// Code and tables all over the binary, after the release.
	if got := gcPercentFor(8 << 20); got != 400 {
		t.Fatalf("gcPercentFor after the release: %d", got)
	}
	runtime.GC()
	if n := releaseBinaryPages(); n < 0 {
		t.Fatalf("second release: %d", n)
	}
}
