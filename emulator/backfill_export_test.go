package emulator

// WaitBackfills waits for every running index backfill job to end, so a
// test can rely on an index added by UpdateTable being complete.
func WaitBackfills(e *Engine) { e.bf.tasks.Wait() }
