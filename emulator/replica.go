package emulator

// Global tables, version 2019.11.21 (MREC): the engine's side of the
// replication group, whose entries and rules are
// emulator/internal/globaltables'. Every member's metadata carries the whole
// group (tableMeta embeds globaltables.Membership), so its writers know
// where to send their changes (replicate.go) without another lookup; a
// change of the group, or of a setting the group keeps in step, rewrites
// every member's metadata in one batch: they share the store.

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
)

// replicaMeta is one member of a replication group.
type replicaMeta = globaltables.Replica

// replicas returns the other members of t's group not yet gone at now.
func (t *tableMeta) replicas(now time.Time) []*replicaMeta { return t.Replicas(t.Region, now) }

// saveGrouped persists nt and, when it has replicas, applies change to
// every other live member too, in one batch: the settings a group keeps in
// step (TTL) change everywhere at once. The caller holds e.mu for writing.
func (e *Engine) saveGrouped(nt *tableMeta, change func(*tableMeta)) error {
	now := e.now()
	all := []*tableMeta{nt}
	var others []*replicaMeta
	if nt.Legacy == nil {
		// A legacy (2017.11.29) member's settings are its own: only items
		// replicate (emulator/internal/globaltables, legacy.go).
		others = nt.replicas(now)
	}
	for _, r := range others {
		if r.Deleting {
			continue
		}
		m := e.liveMember(nt, r, now)
		if m == nil {
			continue
		}
		m = m.clone()
		change(m)
		all = append(all, m)
	}
	return e.saveTables(all)
}

// liveMember returns the live table of t's group member r (t's name in r's
// Region, the table r names, not being deleted), or nil. The caller holds
// e.mu.
func (e *Engine) liveMember(t *tableMeta, r *replicaMeta, now time.Time) *tableMeta {
	m := e.lookup(api.Namespace{Account: t.Account, Region: r.Region}, t.Name, now)
	if m == nil || m.ID != keyspace.TableID(r.ID) || m.Deleting {
		return nil
	}
	return m
}

// saveTables stores and caches ts in one batch. The caller holds e.mu.
func (e *Engine) saveTables(ts []*tableMeta) error {
	b := e.opts.Store.NewBatch()
	for _, t := range ts {
		if err := putTable(b, t); err != nil {
			_ = b.Close()
			return err
		}
	}
	if err := e.commit(b); err != nil {
		return err
	}
	for _, t := range ts {
		e.cacheTable(t)
	}
	return nil
}
