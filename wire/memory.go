package wire

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Memory of large requests. A request body may be 16 MB and its decoded
// form several times that; a 1 MB page or a 16 MB BatchGetItem answer is
// built in memory before it is written. Two things keep a burst of them
// from holding the process's memory at its peak:
//   - bodyBudget bounds the bytes of large bodies being read and served at
//     once: past it a request waits (or stops, if its client leaves)
//     before it reads its body;
//   - memoryTrim hands the memory back to the operating system once a
//     second has passed with no large request. Go's runtime would do it
//     only after its next collection, which an idle server does not
//     trigger for two minutes, and then gradually.

const (
	// largeRequest is the size of body or answer from which a request
	// counts as large: below it, requests pay nothing for either.
	largeRequest = 64 << 10
	// bodyBudgetBytes is how many bytes of large bodies may be held at
	// once: two of the largest (MaxRequestBytes). A local server gains
	// nothing from decoding more of them side by side on a few cores.
	bodyBudgetBytes = 2 * MaxRequestBytes
	// trimQuiet is how long no large request must have finished before
	// the memory is handed back.
	trimQuiet = time.Second
)

// bodyBudget is a weighted semaphore over body bytes.
type bodyBudget struct {
	mu    sync.Mutex
	free  int64
	freed chan struct{} // closed (and replaced) when bytes come back
}

func newBodyBudget(n int64) *bodyBudget {
	return &bodyBudget{free: n, freed: make(chan struct{})}
}

// acquire takes n bytes, waiting while fewer are free, or returns ctx's
// error if it ends first. n is at most the budget's whole size.
func (b *bodyBudget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives back n bytes taken by acquire.
func (b *bodyBudget) release(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// bodyReservation is how many bytes of the budget a request's body needs:
// 0 for a small one, its declared length, or the most a body may be when
// it is chunked (length unknown, -1).
func bodyReservation(contentLength int64) int64 {
	switch {
	case contentLength < 0:
		return MaxRequestBytes
	case contentLength < largeRequest || contentLength > MaxRequestBytes:
		// Over the limit: refused with 413 without being read.
		return 0
	}
	return contentLength
}

// memoryTrim returns the heap a burst of large requests grew to the
// operating system once the burst is over.
type memoryTrim struct {
	// finished counts large requests finished; the trimmer waits until it
	// stays still for trimQuiet.
	finished atomic.Uint64
	pending  atomic.Bool
	// free is debug.FreeOSMemory; tests count the calls.
	free func()
}

// largeDone notes that a large request finished, and starts a trimmer if
// none is waiting.
func (m *memoryTrim) largeDone() {
	m.finished.Add(1)
	if m.pending.CompareAndSwap(false, true) {
		go m.trimWhenQuiet()
	}
}

func (m *memoryTrim) trimWhenQuiet() {
	for {
		seen := m.finished.Load()
		time.Sleep(trimQuiet)
		if m.finished.Load() == seen {
			break
		}
	}
	// A large request finishing from here on starts the next trimmer.
	m.pending.Store(false)
	if m.free != nil {
		m.free()
	} else {
		debug.FreeOSMemory()
	}
}
