package jobs

import (
	"context"
	"sync"
)

// Group is the one-shot background tasks an owner runs (exports, backups,
// restores…): each in its own goroutine under the group's context, which
// Cancel cancels (at Close, or when the process stops leading) and Wait
// waits out. Its zero value is ready to use. Its methods are safe for
// concurrent use.
//
// A task started after Cancel runs under the cancelled context, so it sees
// at once that it must stop, until Restart gives the group a fresh one.
type Group struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// initLocked makes the context on first use; the caller holds g.mu.
func (g *Group) initLocked() {
	if g.ctx == nil {
		g.ctx, g.cancel = context.WithCancel(context.Background())
	}
}

// Go runs f in a new goroutine with the group's current context.
func (g *Group) Go(f func(ctx context.Context)) {
	g.mu.Lock()
	g.initLocked()
	ctx := g.ctx
	g.wg.Add(1)
	g.mu.Unlock()
	go func() {
		defer g.wg.Done()
		f(ctx)
	}()
}

// Context is the context the group's tasks run under.
func (g *Group) Context() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	return g.ctx
}

// Cancel cancels the group's context without waiting for its tasks.
func (g *Group) Cancel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	g.cancel()
}

// Wait waits for every task started so far to return.
func (g *Group) Wait() { g.wg.Wait() }

// Stop cancels the group's context and waits for its tasks.
func (g *Group) Stop() {
	g.Cancel()
	g.Wait()
}

// Restart gives the group a fresh context, for tasks started after a
// Cancel (the process keeps serving after it stopped leading).
func (g *Group) Restart() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancel != nil {
		g.cancel()
	}
	g.ctx, g.cancel = context.WithCancel(context.Background())
}
