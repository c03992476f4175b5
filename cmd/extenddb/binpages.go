package main

import (
	"context"
	"time"
)

const (
	// binaryTick is how often releaseBinaryPagesWhenIdle looks at the
	// process's CPU time.
	binaryTick = 500 * time.Millisecond
	// idleCPU is the CPU time a tick below which the server counts as idle
	// (2% of a core): an idle server's timers and the runtime's own
	// wake-ups use 3–8 ms a second here, one request 0.1–0.5 ms, start-up
	// 60–80 ms.
	idleCPU = 10 * time.Millisecond
	// idleTicks is how many idle ticks in a row, after activity, release
	// the binary's pages: one second.
	idleTicks = 2
	// reReleaseTicks is how many idle ticks after a release release again
	// while the server stays idle (a minute): its timers and the runtime's
	// periodic collection map about 3 MB back in two minutes.
	reReleaseTicks = 120
)

// binaryRelease decides, one tick at a time, when to release the binary's
// pages (releaseBinaryPages): after a second of idleness that follows
// activity (start-up counts), and then every minute while the server
// stays idle; any busy tick arms it again. A release costs the next
// request a few hundred minor faults (the pages are still in the page
// cache: a few milliseconds of CPU in all); once per idle spell bounds
// that.
type binaryRelease struct {
	armed bool
	idle  int
}

// tick says whether to release now, given the CPU time of the last tick.
func (r *binaryRelease) tick(cpu time.Duration) bool {
	if cpu >= idleCPU {
		r.armed, r.idle = true, 0
		return false
	}
	r.idle++
	if r.armed && r.idle >= idleTicks || !r.armed && r.idle >= reReleaseTicks {
		r.armed, r.idle = false, 0
		return true
	}
	return false
}

// releaseBinaryPagesWhenIdle releases the binary's pages when the server
// has been idle for a second after a busy spell, and every minute while it
// stays idle, until ctx ends.
// Where the process's CPU time cannot be read (processCPU is 0) or the
// pages cannot be released, it does nothing.
func releaseBinaryPagesWhenIdle(ctx context.Context) {
	last, ok := processCPU()
	if !ok {
		return
	}
	r := binaryRelease{armed: true}
	go func() {
		t := time.NewTicker(binaryTick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now, _ := processCPU()
			if r.tick(now - last) {
				releaseBinaryPages()
				now, _ = processCPU() // the release's own CPU is not activity
			}
			last = now
		}
	}()
}
