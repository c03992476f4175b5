package emulator

import "context"

// Leading reports whether e runs the workers (lease.go).
func Leading(e *Engine) bool { return e.leading() }

// SetBackfillAfterChunk installs f to run after each saved backfill chunk.
func SetBackfillAfterChunk(e *Engine, f func(visited int)) { e.bf.afterChunk = f }

// BackfillContext is the context e's backfill jobs run under, cancelled
// when they must stop.
func BackfillContext(e *Engine) context.Context { return e.bf.tasks.Context() }

// BackupContext is the context e's backup jobs run under.
func BackupContext(e *Engine) context.Context { return e.bk.Tasks.Context() }

// LoseLead makes e give up leading as if its lease had run out while it
// lived (the store unreachable for longer than the lease).
func LoseLead(e *Engine) { e.loseLead() }
