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
)

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
// live heap every second until ctx ends, unless GOGC is set: the user's
// choice wins.
func tuneGC(ctx context.Context, getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	current := 0
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		// Only a change of a tenth or more: each call re-paces the collector.
		if p := gcPercentFor(sample[0].Value.Uint64()); p*10 < current*9 || p*10 > current*11 {
			debug.SetGCPercent(p)
			current = p
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
