package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// gcHeadroom is the heap growth serve lets every collection wait for
	// at least. The live heap under load is small (about 2 MB: items live
	// in Pebble's cache and memtables, outside the Go heap unless built
	// without cgo), and Go's default (GOGC=100, a 4 MB minimum goal)
	// collected every hundred or so PutItems: 5–6% of the server's CPU in
	// collections and assists. 32 MB more than the live heap, at most,
	// costs little memory and collects about ten times less often.
	gcHeadroom = 32 << 20
	// maxGCPercent bounds the target when the live heap is tiny.
	maxGCPercent = 1600
	// idleRelease is how many seconds without a collection make the
	// server idle: it then returns its free heap to the system at once
	// (releaseWhenIdle).
	idleRelease = 5
	// minRelease is the free heap (not yet returned) worth that: less is
	// left to Go's background scavenger.
	minRelease = 4 << 20
)

// releaseWhenIdle says whether the heap should be returned to the system
// now: no collection for idleRelease seconds (nothing allocates: the
// server is idle) and at least minRelease bytes free but still held. The
// headroom above lets the heap grow to about 35 MB between collections
// under load, and Go's scavenger keeps what is free up to that goal: a
// server a test suite had just used held 55–75 MB for good (issue 36).
func releaseWhenIdle(quietSeconds int, free uint64) bool {
	return quietSeconds >= idleRelease && free >= minRelease
}

// gcPercentFor is the GOGC that lets the heap grow by gcHeadroom beyond
// live bytes before the next collection, but never less than Go's default
// of 100: a large live heap (Pebble's cache in a cgo-less build) is
// collected exactly as before.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return maxGCPercent
	}
	p := uint64(100) * gcHeadroom / live
	return int(min(max(p, 100), maxGCPercent))
}

// tuneGC keeps the GC target at gcPercentFor(live heap), re-reading the
// live heap every second until ctx ends, and returns the free heap to the
// system when the server has gone idle (releaseWhenIdle); unless GOGC is
// set: the user's choice wins.
func tuneGC(ctx context.Context, getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}, {Name: "/memory/classes/heap/free:bytes"}}
	current := 0
	var cycles uint64
	quiet := 0
	set := func() {
		metrics.Read(sample)
		for _, s := range sample {
			if s.Value.Kind() != metrics.KindUint64 {
				return
			}
		}
		// Only a change of a tenth or more: each call re-paces the collector.
		if p := gcPercentFor(sample[0].Value.Uint64()); p*10 < current*9 || p*10 > current*11 {
			debug.SetGCPercent(p)
			current = p
		}
		if c := sample[1].Value.Uint64(); c != cycles {
			cycles, quiet = c, 0
			return
		}
		quiet++
		if releaseWhenIdle(quiet, sample[2].Value.Uint64()) {
			debug.FreeOSMemory() // a collection: the next tick starts a new quiet spell
		}
	}
	set()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				set()
			}
		}
	}()
}
