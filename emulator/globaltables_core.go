package emulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

// gtCore is the engine as global tables use it (globaltables.Core): the
// clock and options, the catalog with its lock, tables as plain views, and
// UpdateTable. A conversion of *Engine, so the engine's public Go API does
// not grow.
type gtCore Engine

var _ globaltables.Core = (*gtCore)(nil)

func (c *gtCore) Now() time.Time                 { return (*Engine)(c).now() }
func (c *gtCore) LegacyEnabled() bool            { return c.opts.LegacyGlobalTables }
func (c *gtCore) TransitionDelay() time.Duration { return c.opts.TransitionDelay }
func (c *gtCore) LockCatalog()                   { (*Engine)(c).lockCatalog() }
func (c *gtCore) UnlockCatalog()                 { (*Engine)(c).unlockCatalog() }
func (c *gtCore) RLockCatalog()                  { (*Engine)(c).rlockCatalog() }
func (c *gtCore) RUnlockCatalog()                { c.mu.RUnlock() }

func (c *gtCore) UpdateTable(ctx context.Context, ns api.Namespace, in *api.UpdateTableInput) (*api.UpdateTableOutput, error) {
	return (*Engine)(c).UpdateTable(ctx, ns, in)
}

func (c *gtCore) Table(account, region, name string, now time.Time) *globaltables.Table {
	t := (*Engine)(c).lookup(api.Namespace{Account: account, Region: region}, name, now)
	if t == nil {
		return nil
	}
	return gtTable(t, now)
}

func (c *gtCore) LegacyTables(account, name string, now time.Time) []*globaltables.Table {
	var out []*globaltables.Table
	add := func(t *tableMeta) {
		if t != nil && t.Legacy != nil && !t.Deleting && !t.gone(now) {
			out = append(out, gtTable(t, now))
		}
	}
	for ns, m := range c.tables {
		if ns.Account != account {
			continue
		}
		if name != "" {
			add(m[name])
			continue
		}
		for _, t := range m {
			add(t)
		}
	}
	return out
}

func (c *gtCore) HasItems(t *globaltables.Table) (bool, error) {
	p := keyspace.ItemPrefix(keyspace.TableID(t.ID))
	keys, err := nextKeys(c.opts.Store, p, kv.PrefixEnd(p), 1)
	if err != nil {
		return false, internalError(err)
	}
	return len(keys) > 0, nil
}

func (c *gtCore) SaveMemberships(ts []*globaltables.Table) error {
	out := make([]*tableMeta, len(ts))
	for i, v := range ts {
		nt := v.Ref.(*tableMeta).clone()
		nt.Membership = v.Membership
		out[i] = nt
	}
	return (*Engine)(c).saveTables(out)
}

// gtTable is the view of t global tables read, at now.
func gtTable(t *tableMeta, now time.Time) *globaltables.Table {
	v := &globaltables.Table{
		Account: t.Account, Region: t.Region, Name: t.Name, ID: globaltables.TableID(t.ID),
		Membership: t.Membership, Deleting: t.Deleting,
		StreamEnabled: t.StreamEnabled, StreamViewType: t.StreamViewType,
		// Quoted, so equal summaries mean equal schemas, whatever the names.
		KeySchema: fmt.Sprintf("%q", t.KeySchema), BillingMode: t.BillingMode,
		Read: t.Throughput.Read, Write: t.Throughput.Write, LastPayPerRequest: t.LastPayPerRequest,
		TableClass: t.TableClass, TableClassUpdate: t.TableClassUpdate,
		Ref: t,
	}
	index := func(ix *indexMeta) globaltables.Index {
		return globaltables.Index{Name: ix.Name, KeySchema: fmt.Sprint(ix.KeySchema), Status: ix.status(now),
			Read: ix.Throughput.Read, Write: ix.Throughput.Write}
	}
	for _, ix := range t.GSIs {
		if !ix.Deleted {
			v.GSIs = append(v.GSIs, index(ix))
		}
	}
	for _, ix := range t.LSIs {
		if !ix.Deleted {
			v.LSIs = append(v.LSIs, index(ix))
		}
	}
	return v
}

// --- replication and seeding ---

func (c *gtCore) Logger() *zerolog.Logger         { return &c.log }
func (c *gtCore) ReplicationDelay() time.Duration { return c.opts.ReplicationDelay }
func (c *gtCore) DropQueued(key []byte) error     { return (*Engine)(c).deleteKey(key) }
func (c *gtCore) ClaimJob(key string) bool        { return (*Engine)(c).claimJob(key) }
func (c *gtCore) ReleaseJob(key string)           { (*Engine)(c).releaseJob(key) }
func (c *gtCore) FinishSeed(rt *globaltables.Table) error {
	return seedErr((*Engine)(c).finishSeed(rt.Ref.(*tableMeta)))
}

func (c *gtCore) Outbox(after []byte, n int) ([]globaltables.Queued, error) {
	lower := []byte{famOutbox}
	if after != nil {
		lower = append(after, 0)
	}
	keys, vals, err := nextEntries(c.opts.Store, lower, []byte{famOutbox + 1}, n)
	if err != nil {
		return nil, err
	}
	out := make([]globaltables.Queued, len(keys))
	for i, k := range keys {
		out[i] = globaltables.Queued{Key: k, Value: vals[i]}
		copy(out[i].Dst[:], k[1:17])
	}
	return out, nil
}

// gtDestinations is every cached table not being deleted, by ID.
type gtDestinations struct {
	e      *Engine
	tables map[keyspace.TableID]*tableMeta
}

func (d gtDestinations) Apply(dst globaltables.TableID, en *replEntry, key []byte) error {
	return d.e.applyReplicated(d.tables[keyspace.TableID(dst)], en, key)
}

func (c *gtCore) Destinations() globaltables.Destinations {
	e := (*Engine)(c)
	e.rlockCatalog()
	defer e.mu.RUnlock()
	out := map[keyspace.TableID]*tableMeta{}
	for _, m := range e.tables {
		for _, t := range m {
			if !t.Deleting {
				out[t.ID] = t
			}
		}
	}
	return gtDestinations{e: e, tables: out}
}

func (c *gtCore) SeedingTables() []*globaltables.Table {
	return c.localMembers(func(r *globaltables.Replica) bool { return r.Seeding })
}

// localMembers lists the tables, not being deleted, whose own replica
// entry satisfies want.
func (c *gtCore) localMembers(want func(*globaltables.Replica) bool) []*globaltables.Table {
	e := (*Engine)(c)
	var out []*globaltables.Table
	e.rlockCatalog()
	defer e.mu.RUnlock()
	now := e.now()
	for _, m := range e.tables {
		for _, t := range m {
			if r := t.Member(t.Region); r != nil && want(r) && !t.Deleting {
				out = append(out, gtTable(t, now))
			}
		}
	}
	return out
}

func (c *gtCore) SeedCursor(rt *globaltables.Table) ([]byte, error) {
	cur, err := c.opts.Store.Get(seedCursorKey(keyspace.TableID(rt.ID)))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	return cur, err
}

func (c *gtCore) ItemKeys(src *globaltables.Table, after []byte, n int) ([][]byte, error) {
	p := keyspace.ItemPrefix(keyspace.TableID(src.ID))
	lower := p
	if after != nil {
		lower = append(after, 0)
	}
	return nextKeys(c.opts.Store, lower, kv.PrefixEnd(p), n)
}

func (c *gtCore) SeedItem(rt, src *globaltables.Table, key []byte) error {
	return seedErr((*Engine)(c).seedOne(rt.Ref.(*tableMeta), src.Ref.(*tableMeta), key))
}

func (c *gtCore) SaveSeedCursor(rt *globaltables.Table, last []byte) error {
	t := rt.Ref.(*tableMeta)
	return seedErr((*Engine)(c).saveCursor(t, seedCursorKey(t.ID), last))
}

// seedErr is err with the engine's errTableGone as the seeding job knows
// it.
func seedErr(err error) error {
	if errors.Is(err, errTableGone) {
		return globaltables.ErrTableGone
	}
	return err
}

// stampLegacy adds a legacy global table's aws:rep:* attributes to nw, a
// local write's new item (globaltables.StampLegacyRep), and keeps the item
// as written in ch.unstamped for the stream; other tables' items are left
// as they are.
func (e *Engine) stampLegacy(t *tableMeta, nw av.Item, ch *itemChange) av.Item {
	if t.Legacy == nil {
		return nw
	}
	ch.unstamped = nw
	return globaltables.StampLegacyRep(nw, t.Region, e.now())
}
