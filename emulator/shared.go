package emulator

import (
	"errors"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

// A store shared by several ExtendDB processes (kv.IsShared) can change
// under this one at any moment: every cached fact must be re-validated
// against the store before it is served (catalog.go, lease.go). Pebble is
// opened by one process only, so there the caches are the truth.

// shared reports whether other processes may write the engine's store.
func (e *Engine) shared() bool { return e.isShared }

// currentIn is current for a write running in transaction r: the table's
// metadata as of r, so a write that commits maintains exactly the indexes
// and streams the table had when it committed. On a shared store it reads
// the catalog generation through r: a metadata change committed after r
// read it makes r's commit conflict, and the write reruns with the new
// schema.
func (e *Engine) currentIn(r kv.Reader, t *tableMeta) (*tableMeta, error) {
	if !e.shared() {
		return e.current(t)
	}
	g, err := readGen(r)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.mu.RLock()
	atG := g == e.cat.gen
	c := e.lookup(t.ns(), t.Name, now)
	e.mu.RUnlock()
	if atG {
		if c == nil || c.ID != t.ID {
			return nil, api.ResourceNotFound()
		}
		return c, nil
	}
	// The cache is not at r's generation: serve the table as r sees it,
	// read through r (a reload here would take a second connection while
	// r holds one, and under load the pool would run dry), with the
	// cache's throttle and insights handles; the reload happens beside.
	e.refreshSoon()
	v, err := r.Get(keyspace.MetaKey(t.ns(), t.Name))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, api.ResourceNotFound()
	}
	if err != nil {
		return nil, err
	}
	m, err := decodeTable(keyspace.MetaKey(t.ns(), t.Name), v)
	if err != nil {
		return nil, err
	}
	if m.ID != t.ID || m.gone(now) {
		return nil, api.ResourceNotFound()
	}
	if c != nil && c.ID == m.ID {
		adoptHandles(m, c)
	} else {
		adoptHandles(m, t)
	}
	return m, nil
}

// refreshSoon reloads the cache in the background, one reload at a time.
func (e *Engine) refreshSoon() {
	if !e.cat.reloading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer e.cat.reloading.Store(false)
		e.syncCatalog()
	}()
}

// adoptHandles gives m, read from the store, the in-memory handles of c,
// the cached metadata of the same table.
func adoptHandles(m, c *tableMeta) {
	m.thr, m.ci = c.thr, c.ci
	for _, ix := range m.GSIs {
		for _, cx := range c.GSIs {
			if cx.ID == ix.ID {
				ix.thr, ix.ci = cx.thr, cx.ci
			}
		}
	}
}
