package emulator

// WaitBulk waits for every running bulk put job to end.
func WaitBulk(e *Engine) { e.bp.Tasks.Wait() }

// SetBulkHooks sets how many records a bulk put job writes per commit and
// a hook run after each commit (with the records processed so far); set
// them while no job runs.
func SetBulkHooks(e *Engine, chunk int, afterChunk func(processed int64)) {
	e.bp.Chunk, e.bp.AfterChunk = chunk, afterChunk
}
