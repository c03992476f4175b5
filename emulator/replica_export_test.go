package emulator

import "context"

// WaitReplication waits for every running replica seeding job to end,
// then applies every queued replicated change that is due, so a test can
// read a replica's converged state.
func WaitReplication(e *Engine) error {
	e.repl.seeds.Wait()
	_, err := e.drainOutboxes(context.Background())
	return err
}
