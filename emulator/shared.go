package emulator

import "github.com/extenddb/extenddb/kv"

// A store shared by several ExtendDB processes (kv.IsShared) can change
// under this one at any moment: every cached fact must be re-validated
// against the store before it is served. Pebble is opened by one process
// only, so there the caches are the truth.

// shared reports whether other processes may write the engine's store.
func (e *Engine) shared() bool { return kv.IsShared(e.opts.Store) }

// currentIn is current for a write running in transaction r: the table's
// metadata as of r, so a write that commits maintains exactly the indexes
// and streams the table had when it committed.
func (e *Engine) currentIn(r kv.Reader, t *tableMeta) (*tableMeta, error) {
	_ = r
	return e.current(t)
}
