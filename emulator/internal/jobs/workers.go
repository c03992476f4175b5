package jobs

import (
	"context"
	"sync"
	"time"
)

// Periodic is one periodic worker.
type Periodic struct {
	// Name names the worker (for Names and the reader).
	Name string
	// Every is the period; zero or negative turns the worker off. The
	// first pass runs one period after Start.
	Every time.Duration
	// Pass is one pass of the worker. It does its own logging; ctx is
	// cancelled by Stop, and a pass should return soon after.
	Pass func(ctx context.Context)
}

// Interval is the period of a worker whose option is set: set itself when
// positive, def when zero, and 0 (off) when negative.
func Interval(set, def time.Duration) time.Duration {
	switch {
	case set == 0:
		return def
	case set < 0:
		return 0
	}
	return set
}

// Workers is a set of periodic workers started and stopped together. Its
// zero value is an empty, stopped set. Its methods are safe for
// concurrent use.
type Workers struct {
	// MayRun, if set, is asked before each pass: a pass it refuses is
	// skipped (the engine's "this process leads"). Set it before Start.
	MayRun func() bool

	mu      sync.Mutex
	list    []Periodic
	running []*loop // in registration order, while started
	started bool
}

// loop is one started worker.
type loop struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Register adds p to the set; if the set is started, p starts now.
func (w *Workers) Register(p Periodic) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, p)
	if w.started {
		w.startOne(p)
	}
}

// Names lists the registered workers, in registration order.
func (w *Workers) Names() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, len(w.list))
	for i, p := range w.list {
		out[i] = p.Name
	}
	return out
}

// Start starts every registered worker whose period is positive, in
// registration order. Starting a started set does nothing.
func (w *Workers) Start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return
	}
	w.started = true
	for _, p := range w.list {
		w.startOne(p)
	}
}

// Stop stops the workers in registration order, each cancelled and waited
// for before the next. Stopping a stopped set does nothing; a stopped set
// can be started again.
func (w *Workers) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		return
	}
	w.started = false
	for _, l := range w.running {
		l.cancel()
		<-l.done
	}
	w.running = nil
}

// Running reports whether the set is started.
func (w *Workers) Running() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started
}

// startOne starts p's loop; the caller holds w.mu.
func (w *Workers) startOne(p Periodic) {
	if p.Every <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &loop{cancel: cancel, done: make(chan struct{})}
	w.running = append(w.running, l)
	mayRun := w.MayRun
	go func() {
		defer close(l.done)
		tk := time.NewTicker(p.Every)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
				if mayRun != nil && !mayRun() {
					continue
				}
				p.Pass(ctx)
			}
		}
	}()
}
