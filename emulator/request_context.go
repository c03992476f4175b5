package emulator

import (
	"context"
	"sync"
	"time"
)

// RequestContext is one API request's context in one allocation: the
// request's Usage, its Caller, and its deadline. The engine looks at a
// request's context through Err (work.Meter polls it every 1,024 steps),
// so the deadline is checked against the clock there, and the timer and
// channel context.WithTimeout would make for every request are made only
// for a caller that waits on Done (a PostgreSQL query does).
type RequestContext struct {
	parent   context.Context
	deadline time.Time // zero: none of its own
	usage    Usage
	caller   *Caller

	mu         sync.Mutex
	err        error
	done       chan struct{}
	timer      *time.Timer
	stopParent func() bool
}

// NewRequestContext returns the context of a request made under parent
// that may run for timeout (zero or less: as long as parent lets it).
// Call Release once the request is answered.
func NewRequestContext(parent context.Context, timeout time.Duration) *RequestContext {
	c := &RequestContext{parent: parent}
	if timeout > 0 {
		c.deadline = time.Now().Add(timeout)
	}
	return c
}

// Usage is what the request has consumed so far.
func (c *RequestContext) Usage() *Usage { return &c.usage }

// SetCaller makes the engine authorize the request as caller, as
// WithCaller does; call it before the request runs.
func (c *RequestContext) SetCaller(caller *Caller) { c.caller = caller }

// Release ends the request: its context is cancelled and any timer stopped.
func (c *RequestContext) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.stopParent != nil {
		c.stopParent()
	}
	c.cancelLocked(context.Canceled)
}

// Deadline is the earlier of the request's own deadline and parent's.
func (c *RequestContext) Deadline() (time.Time, bool) {
	d, ok := c.parent.Deadline()
	if !c.deadline.IsZero() && (!ok || c.deadline.Before(d)) {
		return c.deadline, true
	}
	return d, ok
}

// Err is parent's error, or context.DeadlineExceeded once the deadline
// has passed; once non-nil it stays.
func (c *RequestContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		if err := c.parent.Err(); err != nil {
			c.cancelLocked(err)
		} else if !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
			c.cancelLocked(context.DeadlineExceeded)
		}
	}
	return c.err
}

// Done makes, on its first call, the channel closed when Err becomes
// non-nil, and what closes it: a timer for the deadline, and parent.
func (c *RequestContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return c.done
	}
	c.done = make(chan struct{})
	if c.err != nil {
		close(c.done)
		return c.done
	}
	c.stopParent = context.AfterFunc(c.parent, func() { c.cancel(c.parent.Err()) })
	if !c.deadline.IsZero() {
		c.timer = time.AfterFunc(time.Until(c.deadline), func() { c.cancel(context.DeadlineExceeded) })
	}
	return c.done
}

// Value answers the engine's own keys for the request; parent the rest.
func (c *RequestContext) Value(key any) any {
	switch key.(type) {
	case usageKey:
		return &c.usage
	case callerKey:
		if c.caller != nil {
			return c.caller
		}
	}
	return c.parent.Value(key)
}

func (c *RequestContext) cancel(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelLocked(err)
}

func (c *RequestContext) cancelLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
}
