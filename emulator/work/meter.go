package work

import (
	"context"
	"sync/atomic"
)

// checkEvery is how many steps pass between two looks at the context: a
// step is small (an item read, an element compared), so a look every
// 1,024 of them costs nothing measurable and still comes within
// milliseconds.
const checkEvery = 1 << 10

// Meter counts the steps of one request's work. Its zero value, and a nil
// *Meter, count nothing and never stop. A Meter is used by one goroutine.
type Meter struct {
	ctx   context.Context
	total *atomic.Uint64
	n     int
	err   error
}

// New returns a meter that stops once ctx is done and adds its steps to
// total (nil: counted nowhere).
func New(ctx context.Context, total *atomic.Uint64) Meter {
	return Meter{ctx: ctx, total: total}
}

// Step counts n steps and reports whether the work may go on: false once
// the context is done (Err says why), and from then on.
func (m *Meter) Step(n int) bool {
	if m == nil || m.ctx == nil {
		return true
	}
	if m.err != nil {
		return false
	}
	m.n += n
	if m.n >= checkEvery {
		m.flush()
		m.err = m.ctx.Err()
	}
	return m.err == nil
}

// Check looks at the context now, whatever the count, and returns its
// error once it is done: for the start of each item of a batch.
func (m *Meter) Check() error {
	if m == nil || m.ctx == nil {
		return nil
	}
	m.flush()
	if m.err == nil {
		m.err = m.ctx.Err()
	}
	return m.err
}

// Err is the context's error once Step has returned false, else nil.
func (m *Meter) Err() error {
	if m == nil {
		return nil
	}
	return m.err
}

func (m *Meter) flush() {
	if m.total != nil && m.n > 0 {
		m.total.Add(uint64(m.n))
	}
	m.n = 0
}
