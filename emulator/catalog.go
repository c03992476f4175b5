package emulator

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

// The catalog is the table metadata (family 'm') and its cache, e.tables.
// On a store shared by several processes (kv.IsShared) another process may
// change the metadata at any moment, so:
//
//   - every metadata write (putTable, deleteTableMeta) also writes a new
//     catalog generation (family 'g') in the same batch;
//   - lookups read the generation (one Get) and reload the cache from the
//     store when it differs from the one the cache was loaded at;
//   - a write's transaction reads the generation through itself
//     (currentIn), so it conflicts with a metadata change committed
//     meanwhile and reruns with the new schema;
//   - control-plane changes take, besides e.mu, a catalog lock in the store
//     (catalogLock): a key naming the owner process and an expiry, so the
//     validate → persist of one process never interleaves with another's.
//
// On Pebble the process is the only writer: the cache is the truth, nothing
// is read per request, and the lock is e.mu alone.

const (
	// famGen holds the one catalog generation key.
	famGen = 'g'
	// famLease holds the leases: the catalog lock and the workers' leader.
	famLease = 'l'
)

var (
	genKey         = []byte{famGen}
	catalogLockKey = []byte{famLease, 'c'}
	leaderKey      = []byte{famLease, 'L'}
)

// Defaults of the lease Options.
const (
	DefaultLeaseDuration = 10 * time.Second
)

// catalogState is the cache's provenance on a shared store.
type catalogState struct {
	// gen is the generation the cache was loaded at; guarded by e.mu.
	gen uint64
	// reloading is set while a background reload runs (refreshSoon).
	reloading atomic.Bool
}

// bumpGen writes a new catalog generation in b. Generations only need to
// differ from one another (a reader compares for equality), so a random
// value needs no read and two processes never need to agree on a counter.
func bumpGen(b kv.Batch) error {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], rand.Uint64()|1)
	return b.Set(genKey, v[:])
}

// readGen reads the catalog generation (0 on a store that never had one).
func readGen(r kv.Reader) (uint64, error) {
	v, err := r.Get(genKey)
	if errors.Is(err, kv.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("emulator: catalog generation has %d bytes", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// deleteTableMeta deletes table name's metadata in b.
func deleteTableMeta(b kv.Batch, ns api.Namespace, name string) error {
	if err := b.Delete(keyspace.MetaKey(ns, name)); err != nil {
		return err
	}
	return bumpGen(b)
}

// syncCatalog brings the cache up to date with a shared store: one Get,
// and a reload only when the generation moved. A failing store keeps the
// cache (the request's own store access then reports the failure). It
// must not be called with e.mu held.
func (e *Engine) syncCatalog() {
	if !e.isShared {
		return
	}
	if err := e.refreshCatalog(); err != nil {
		e.log.Warn().Err(err).Msg("catalog: reloading table metadata failed; serving the cached copy")
	}
}

func (e *Engine) refreshCatalog() error {
	g, err := readGen(e.opts.Store)
	if err != nil {
		return err
	}
	e.mu.RLock()
	same := g == e.cat.gen
	e.mu.RUnlock()
	if same {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reloadCatalog()
}

// rlockCatalog is e.mu.RLock after syncCatalog: what the control plane's
// readers of e.tables take.
func (e *Engine) rlockCatalog() {
	e.syncCatalog()
	e.mu.RLock()
}

// lockCatalog takes e.mu for writing and, on a shared store, the catalog
// lock, then reloads the cache if another process changed it: a change
// validated under it sees the store's current catalog and no other
// process changes the catalog until unlockCatalog.
func (e *Engine) lockCatalog() {
	e.mu.Lock()
	if !e.isShared {
		return
	}
	e.takeCatalogLock()
	if err := e.reloadCatalog(); err != nil {
		e.log.Warn().Err(err).Msg("catalog: reloading table metadata failed; validating against the cached copy")
	}
}

// unlockCatalog releases what lockCatalog took.
func (e *Engine) unlockCatalog() {
	if e.isShared {
		e.releaseLease(catalogLockKey)
	}
	e.mu.Unlock()
}

// takeCatalogLock waits for the catalog lock. A holder that died frees it
// when its lease expires; after twice the lease duration without it (the
// store is failing) the change goes ahead on e.mu alone, logged, rather
// than hang the request.
func (e *Engine) takeCatalogLock() {
	deadline := time.Now().Add(2 * e.leaseDuration())
	pause := time.Millisecond
	for {
		ok, err := e.tryLease(catalogLockKey)
		if ok {
			return
		}
		if time.Now().After(deadline) || errors.Is(err, kv.ErrClosed) {
			e.log.Error().Err(err).Msg("catalog: lock not taken; changing the catalog without it")
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// reloadCatalog replaces the cache by the store's metadata when the
// generation moved. The caller holds e.mu for writing. The generation and
// the metadata come from one snapshot, so the cache is never newer or
// older than the generation it is marked with.
func (e *Engine) reloadCatalog() error {
	snap := e.opts.Store.NewSnapshot()
	defer snap.Close()
	g, err := readGen(snap)
	if err != nil {
		return err
	}
	if g == e.cat.gen {
		return nil
	}
	fresh, err := readTables(snap)
	if err != nil {
		return err
	}
	seen := map[api.Namespace]map[string]bool{}
	for _, t := range fresh {
		ns := t.ns()
		if seen[ns] == nil {
			seen[ns] = map[string]bool{}
		}
		seen[ns][t.Name] = true
		e.cacheTable(t)
	}
	for ns, m := range e.tables {
		for name := range m {
			if !seen[ns][name] {
				e.uncacheTable(ns, name)
			}
		}
	}
	e.cat.gen = g
	return nil
}

// readTables reads every table's metadata from r.
func readTables(r kv.Reader) ([]*tableMeta, error) {
	it, err := r.NewIter([]byte{keyspace.FamMeta}, []byte{keyspace.FamMeta + 1})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []*tableMeta
	for ok := it.First(); ok; ok = it.Next() {
		t, err := decodeTable(it.Key(), it.Value())
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, it.Error()
}

func decodeTable(k, v []byte) (*tableMeta, error) {
	var t tableMeta
	if err := json.Unmarshal(v, &t); err != nil {
		return nil, fmt.Errorf("emulator: table metadata at %q: %w", k, err)
	}
	if t.Version != metaVersion {
		return nil, fmt.Errorf("emulator: table metadata at %q has version %d, want %d", k, t.Version, metaVersion)
	}
	return &t, nil
}
