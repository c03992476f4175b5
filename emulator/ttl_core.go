package emulator

// Time to Live (emulator/internal/ttl): the operations hand over to the
// package after the shape checks; ttlCore is the engine as the package
// uses it; ttlPass is the TTL worker's pass (registered in New).

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/ttl"
	"github.com/extenddb/extenddb/kv"
)

// DefaultTTLInterval is the TTL worker's period when Options.TTLInterval
// is zero.
const DefaultTTLInterval = 5 * time.Second

// UpdateTimeToLive enables or disables TTL on a table.
func (e *Engine) UpdateTimeToLive(ctx context.Context, ns api.Namespace, in *api.UpdateTimeToLiveInput) (*api.UpdateTimeToLiveOutput, error) {
	if in == nil {
		in = &api.UpdateTimeToLiveInput{}
	}
	var v shape.Violations
	v.TableRef("tableName", in.TableName)
	spec := in.TimeToLiveSpecification
	if spec == nil {
		v.Null("timeToLiveSpecification")
	} else {
		if spec.Enabled == nil {
			v.Null("timeToLiveSpecification.enabled")
		}
		if spec.AttributeName == nil {
			v.Null("timeToLiveSpecification.attributeName")
		} else {
			v.Length("timeToLiveSpecification.attributeName", *spec.AttributeName, 1, 255)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	return ttl.Update(ttlCore{e}, tns, name, *spec.Enabled, *spec.AttributeName)
}

// DescribeTimeToLive reports a table's TTL setting.
func (e *Engine) DescribeTimeToLive(ctx context.Context, ns api.Namespace, in *api.DescribeTimeToLiveInput) (*api.DescribeTimeToLiveOutput, error) {
	if in == nil {
		in = &api.DescribeTimeToLiveInput{}
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	return ttl.Describe(ttlCore{e}, tns, name)
}

// ttlPass is one pass of the TTL worker (registered in New): expire the
// items whose TTL has passed.
func (e *Engine) ttlPass(ctx context.Context) {
	if _, err := e.ExpireTTL(ctx); err != nil && ctx.Err() == nil {
		e.log.Warn().Err(err).Msg("ttl expiry pass failed")
	}
}

// ExpireTTL runs one expiry pass over every table with TTL enabled, at the
// engine clock's now, and returns how many items it deleted. The worker
// calls it every TTLInterval; tests call it directly.
func (e *Engine) ExpireTTL(ctx context.Context) (int, error) {
	return ttl.Expire(ctx, ttlCore{e}, e.now())
}

// ttlCore implements ttl.Core.
type ttlCore struct{ e *Engine }

func (c ttlCore) Setting(ns api.Namespace, name string) (ttl.TTL, string, error) {
	e := c.e
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(ns, name, now)
	e.mu.RUnlock()
	if t == nil {
		return ttl.TTL{}, "", api.TableNotFound(name)
	}
	return t.TTL, t.status(now), nil
}

func (c ttlCore) Change(ns api.Namespace, name string, change func(ttl.TTL) (ttl.TTL, error)) error {
	e := c.e
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(ns, name, now)
	if t == nil {
		return api.TableNotFound(name)
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return inUse(t, s)
	}
	next, err := change(t.TTL)
	if err != nil {
		return err
	}
	set := func(m *tableMeta) { m.TTL = next }
	nt := t.clone()
	set(nt)
	// A global table's members share their TTL setting.
	if err := e.saveGrouped(nt, set); err != nil {
		return internalError(err)
	}
	return nil
}

func (c ttlCore) Expiring(now time.Time) []ttl.Table {
	e := c.e
	var tables []ttl.Table
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if t.TTLEnabled && !t.gone(now) && !t.Deleting {
				p := keyspace.ItemPrefix(t.ID)
				tables = append(tables, ttl.Table{ARN: t.ARN(), Attr: t.TTLAttr, From: p, End: kv.PrefixEnd(p), Ref: t})
			}
		}
	}
	e.mu.RUnlock()
	return tables
}

func (c ttlCore) Items(from, end []byte) (kv.Iterator, error) {
	it, err := c.e.opts.Store.NewIter(from, end)
	if err != nil {
		return nil, internalError(err)
	}
	return it, nil
}

// Delete deletes the item at key if it is still expired, under its
// stripe, through prepare/stage/commit like DeleteItem; TTL deletes
// consume no capacity and are never throttled.
func (c ttlCore) Delete(ctx context.Context, tt ttl.Table, key []byte, now time.Time) (bool, error) {
	e, t := c.e, tt.Ref.(*tableMeta)
	stripe, err := e.lockForWrite(key)
	if err != nil {
		return false, nil // a transaction holds it: next pass
	}
	defer e.items.locks.UnlockOne(stripe)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	err = e.update(false, func(wb *writeBatch) error {
		cur, err := e.currentIn(wb.r, t)
		if err != nil || !cur.TTLEnabled {
			return ttl.ErrGone
		}
		if len(cur.replicas(now)) > 0 {
			// One member expires an item, the one that wrote it last,
			// and the delete replicates: the other Regions' stream
			// records carry no TTL identity (Developer Guide, "Throughput
			// capacity planning for DynamoDB global tables";
			// docs/differences.md, "Global tables").
			v, err := readVersion(wb.r, key)
			if err != nil {
				return err
			}
			if v.region != "" && v.region != cur.Region {
				return ttl.ErrNotExpired
			}
		}
		attr := cur.TTLAttr
		pw, err := e.prepare(wb.r, &writeSpec{t: cur, key: key, build: func(old av.Item) (av.Item, error) {
			if old == nil || !ttl.Expired(old, attr, now) {
				return nil, ttl.ErrNotExpired
			}
			return nil, nil
		}})
		if err != nil {
			return err
		}
		pw.change.ByTTL = true
		return wb.stage(pw)
	})
	switch {
	case errors.Is(err, ttl.ErrNotExpired):
		return false, nil
	case errors.Is(err, ttl.ErrGone):
		return false, err
	case err != nil:
		return false, writeError(err)
	}
	return true, nil
}
