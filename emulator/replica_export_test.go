package emulator

import "context"

// WaitReplication waits for every running replica seeding job to end,
// then applies every queued replicated change that is due, so a test can
// read a replica's converged state.
func WaitReplication(e *Engine) error {
	e.repl.WaitSeeds()
	_, err := e.repl.Drain(context.Background(), (*gtCore)(e))
	return err
}
