package emulator

// WaitExports waits for every running export and import job to end.
func WaitExports(e *Engine) { e.ex.Tasks.Wait() }

// SetExportHooks sets how many items an export writes per data file and a
// hook run after each data file an export writes ("export") or each object
// an import reads ("import"); set them while no job runs.
func SetExportHooks(e *Engine, fileItems int, afterFile func(job string, n int)) {
	e.ex.FileItems, e.ex.AfterFile = fileItems, afterFile
}

// CancelJobs cancels every running export and import job as a process
// exit would: their records stay as they are until the next New.
func CancelJobs(e *Engine) { e.ex.Tasks.Cancel() }
