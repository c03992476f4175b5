package emulator

// Running a validated TransactWriteItems (emulator/internal/txn checks
// the request first, in DynamoDB's order):
//
//  1. Tables and keys: every action's table is resolved
//     (ResourceNotFoundException) and its key checked. An empty key value is
//     a ValidationException for the request; a key that does not match the
//     schema cancels the transaction with a ValidationError reason, as the
//     service does. Two actions on one item are a ValidationException.
//  2. Under the locks: the stripes of every item are taken in ascending
//     order (no deadlock whatever the request order), each with a short
//     bounded wait; a stripe still held when the wait runs out cancels the
//     transaction with a TransactionConflict reason instead of queueing
//     forever. Then every action is prepared (read, condition, new item).
//  3. Commit: if every action passed, all writes are staged into one kv
//     batch and committed once, so a crash never leaves a transaction half
//     applied and no reader (GetItem, TransactGetItems, Query) ever sees a
//     part of it. Otherwise nothing is written and the
//     TransactionCanceledException lists one reason per action.
//
// This phase stays in the engine: it is the write pipeline itself
// (prepare, stage, stripes, capacity, throttling).
//
// Transactional writes cost twice the WCUs of the same single-item writes.

import (
	"context"
	"errors"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/txn"
	"github.com/extenddb/extenddb/emulator/work"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// txAction is one action of a TransactWriteItems request on its way
// through the stages.
type txAction struct {
	txn.Action
	t    *tableMeta
	spec *writeSpec
	pw   *pendingWrite
	// reason is set when the action cancels the transaction.
	reason *api.CancellationReason
}

// resolve finds the action's table and checks its key; a schema mismatch
// becomes the action's cancellation reason.
func (e *Engine) txResolve(ctx context.Context, ns api.Namespace, a *txAction) error {
	t, err := e.dataTable(ns, a.TableName)
	if err != nil {
		return e.missingTable(ctx, ns, "dynamodb:"+a.Kind+"Item", a.TableName, err)
	}
	if callerFrom(ctx) != nil {
		// Each action needs its own permission (dynamodb:ConditionCheckItem
		// for a ConditionCheck), as IAM checks TransactWriteItems.
		action := "dynamodb:" + a.Kind + "Item"
		if err := e.authorize(ctx, action, t, "", "", itemAccess(t, a.Key)); err != nil {
			return err
		}
	}
	a.t = t
	var kerr error
	if a.Kind == "Put" {
		kerr = checkItemKeys(t, a.Key)
		if kerr == nil {
			kerr = validateIndexKeys(t, a.Key)
		}
	} else {
		kerr = checkKey(t, a.Key)
	}
	if kerr != nil {
		r, err := txn.ReasonOf(kerr)
		if err != nil {
			return err
		}
		a.reason = r
		return nil
	}
	if a.Upd != nil {
		keyNames := []string{t.hashKey().Name}
		if rk, ok := t.rangeKey(); ok {
			keyNames = append(keyNames, rk.Name)
		}
		if err := a.Upd.CheckKeys(keyNames...); err != nil {
			return exprError(err)
		}
	}
	a.spec = a.writeSpec(t)
	return nil
}

// writeSpec builds the single-item write the action performs.
func (a *txAction) writeSpec(t *tableMeta) *writeSpec {
	s := &writeSpec{t: t, key: itemKey(t, a.Key), cond: a.Cond, sizeMsg: msgItemTooLarge, returnOldOnFail: a.RetOld}
	switch a.Kind {
	case "ConditionCheck":
		s.build = func(old av.Item) (av.Item, error) { return old, nil }
	case "Delete":
		s.build = func(av.Item) (av.Item, error) { return nil, nil }
	case "Put":
		item := a.Key
		s.build = func(av.Item) (av.Item, error) { return item, nil }
	case "Update":
		key, upd := a.Key, a.Upd
		s.sizeMsg = msgUpdateTooLarge
		s.build = func(old av.Item) (av.Item, error) {
			base := old
			if base == nil {
				base = key
			}
			if upd == nil {
				return base, nil
			}
			applied, err := upd.ApplyPaths(base)
			if err != nil {
				return nil, exprError(err)
			}
			if old == nil && upd.OnlyRemoves() {
				return nil, nil // as UpdateItem: nothing to remove, no item
			}
			for _, v := range applied.Item {
				if av.Depth(v) > av.MaxDepth {
					return nil, api.Validation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")
				}
			}
			return applied.Item, nil
		}
	}
	return s
}

// txMetrics is the ItemCollectionMetrics of a committed transaction.
func txMetrics(actions []*txAction, mode *string) map[string][]api.ItemCollectionMetrics {
	if !isMode(mode, "SIZE") {
		return nil
	}
	var out map[string][]api.ItemCollectionMetrics
	for _, a := range actions {
		if a.Kind == "ConditionCheck" {
			continue
		}
		if m := collectionMetrics(a.t, a.Key, mode); m != nil {
			if out == nil {
				out = map[string][]api.ItemCollectionMetrics{}
			}
			out[a.TableName] = append(out[a.TableName], *m)
		}
	}
	return out
}

// txWrite runs stages 1 to 3 of a validated transaction; tok, when not
// nil, is its ClientRequestToken's record in a shared store.
func (e *Engine) txWrite(ctx context.Context, ns api.Namespace, in *api.TransactWriteItemsInput, actions []*txAction, tok *txn.Token) (*api.TransactWriteItemsOutput, error) {
	var first api.Namespace
	reasons := make([]*api.CancellationReason, len(actions))
	failed := false
	for i, a := range actions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := e.txResolve(ctx, ns, a); err != nil {
			return nil, err
		}
		if a.spec != nil {
			// A condition stopped by the request's end fails the whole
			// transaction before anything commits.
			a.spec.meter = work.New(ctx, &e.work)
		}
		if i == 0 {
			first = a.t.ns()
		} else if a.t.ns() != first && a.reason == nil {
			a.reason = txn.OtherNamespace()
		}
		if a.reason == nil {
			a.reason = e.throttleReason(a.t, throttle.Write, a.spec.key)
		}
		if a.reason != nil {
			reasons[i], failed = a.reason, true
		}
	}
	if err := txn.CheckDuplicates(len(actions), func(i int) []byte {
		if actions[i].spec == nil {
			return nil
		}
		return actions[i].spec.key
	}); err != nil {
		return nil, err
	}
	if failed {
		return nil, cancelled(txn.AfterFirstValidationError(reasons))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	keys := make([][]byte, len(actions))
	for i, a := range actions {
		keys[i] = a.spec.key
	}
	stripes, conflict, ok := e.lockTimed(keys)
	if !ok {
		for _, i := range conflict {
			reasons[i] = txn.Conflict()
		}
		return nil, cancelled(reasons)
	}
	e.tx.Mark(keys, true)
	err := e.txPrepareCommit(actions, reasons, tok)
	e.tx.Mark(keys, false)
	e.items.locks.Unlock(stripes)
	// What the actions consumed is charged whether or not the transaction
	// committed, as for a failed single-item condition.
	var capa txCapacity
	for _, a := range actions {
		if a.pw != nil {
			u := a.pw.use.doubled()
			e.chargeThroughput(ctx, a.t, a.pw.change.Key, &u)
			capa.add(a.t, a.TableName, u)
		}
	}
	if err != nil {
		return nil, err
	}
	out := &api.TransactWriteItemsOutput{ConsumedCapacity: capa.render(in.ReturnConsumedCapacity, false),
		ItemCollectionMetrics: txMetrics(actions, in.ReturnItemCollectionMetrics)}
	return out, nil
}

// txPrepareCommit prepares every action and, if all pass, commits them in
// one store transaction (with tok's record, when the request carries a
// ClientRequestToken on a shared store). The caller holds every action's
// stripe.
func (e *Engine) txPrepareCommit(actions []*txAction, reasons []*api.CancellationReason, tok *txn.Token) error {
	err := e.update(false, func(wb *writeBatch) error {
		clear(reasons)
		for _, a := range actions {
			a.pw = nil
		}
		if err := tok.Check(wb.r); err != nil {
			return err
		}
		failed, throttled := false, false
		for i, a := range actions {
			t, err := e.currentIn(wb.r, a.t)
			if err != nil {
				return err
			}
			a.t, a.spec.t = t, t
			pw, err := e.prepare(wb.r, a.spec)
			a.pw = pw
			if err != nil {
				r, rerr := txn.ReasonOf(err)
				if rerr != nil {
					return rerr
				}
				reasons[i], failed = r, true
				if r.Code == ReasonValidationError {
					break // DynamoDB stops there: the rest are None
				}
				continue
			}
			// A GSI the action touches that has no capacity cancels the
			// transaction, as the table's own capacity would have.
			if c, _, ok := e.throttleShares(t, pw.use.shares, throttle.Write); !ok {
				r := ThrottleCancellationReason(c)
				reasons[i], failed, throttled = &r, true, true
			}
		}
		if throttled {
			// Refused for capacity, as when the table refuses before this
			// stage: nothing is charged.
			for _, a := range actions {
				a.pw = nil
			}
		}
		if failed {
			return cancelled(reasons)
		}
		if f := e.items.afterPrepare; f != nil {
			f()
		}
		for _, a := range actions {
			if a.Kind == "ConditionCheck" {
				continue
			}
			if err := wb.stage(a.pw); err != nil {
				return err
			}
		}
		if tok == nil {
			return nil
		}
		return tok.Stage(wb.b, txMetrics(actions, tok.Mode))
	})
	if txn.IsReplay(err) {
		return err
	}
	if errors.Is(err, kv.ErrConflict) {
		// Other processes' commits kept invalidating this one's reads:
		// the transaction did nothing, and DynamoDB's answer to a
		// transaction that met another is a cancellation the SDKs'
		// callers retry.
		for i := range reasons {
			reasons[i] = txn.Conflict()
		}
		for _, a := range actions {
			a.pw = nil
		}
		return cancelled(reasons)
	}
	if err != nil {
		return writeError(err)
	}
	return nil
}

// lockTimed locks the stripes of keys in ascending order. A stripe busy
// because another transaction holds one of these very items is waited for
// at most the transaction lock wait; a stripe busy for any other reason (a different item
// that hashes to it, a single-item write) is waited for until it is free,
// so only the same item ever conflicts. On success it returns the stripes
// held (for unlock); otherwise it holds nothing and returns the indexes in
// keys of the items that conflicted.
func (e *Engine) lockTimed(keys [][]byte) (held []uint16, conflict []int, ok bool) {
	stripes := make([]uint16, 0, len(keys))
	for _, k := range keys {
		stripes = append(stripes, keyspace.StripeOf(k))
	}
	sortUnique(&stripes)
	mu := &e.items.locks.Mu
	for n, s := range stripes {
		if mu[s].TryLock() {
			continue
		}
		busy := func() bool {
			conflict = conflict[:0]
			for i, k := range keys {
				if keyspace.StripeOf(k) == s && e.tx.Holds(k) {
					conflict = append(conflict, i)
				}
			}
			return len(conflict) > 0
		}
		if e.waitItem(&mu[s], busy) {
			continue
		}
		e.items.locks.Unlock(stripes[:n])
		return nil, conflict, false
	}
	return stripes, nil, true
}

// doubled is the capacity of the same writes done transactionally.
func (c capacityUse) doubled() capacityUse {
	// Vector bytes are not doubled: they are the bytes written.
	out := capacityUse{read: c.read, table: 2 * c.table, vec: c.vec}
	if c.gsi != nil {
		out.gsi = make(map[string]float64, len(c.gsi))
		for k, u := range c.gsi {
			out.gsi[k] = 2 * u
		}
	}
	if c.lsi != nil {
		out.lsi = make(map[string]float64, len(c.lsi))
		for k, u := range c.lsi {
			out.lsi[k] = 2 * u
		}
	}
	if c.shares != nil {
		out.shares = make([]gsiShare, len(c.shares))
		for i, sh := range c.shares {
			sh.units *= 2
			out.shares[i] = sh
		}
	}
	return out
}

// txCapacity sums a transaction's capacity per table, in the order the
// tables first appear in the request.
type txCapacity struct {
	ids   []keyspace.TableID
	names []string
	uses  []capacityUse
}

func (c *txCapacity) add(t *tableMeta, name string, u capacityUse) {
	i := 0
	for i < len(c.ids) && c.ids[i] != t.ID {
		i++
	}
	if i == len(c.ids) {
		c.ids = append(c.ids, t.ID)
		c.names = append(c.names, name)
		c.uses = append(c.uses, capacityUse{read: u.read})
	}
	s := &c.uses[i]
	s.table += u.table
	for k, v := range u.gsi {
		if s.gsi == nil {
			s.gsi = map[string]float64{}
		}
		s.gsi[k] += v
	}
	for k, v := range u.lsi {
		if s.lsi == nil {
			s.lsi = map[string]float64{}
		}
		s.lsi[k] += v
	}
}

// render answers ReturnConsumedCapacity: one entry per table with
// CapacityUnits and its read or write split, as transactions report it.
func (c *txCapacity) render(mode *string, read bool) []api.ConsumedCapacity {
	if mode == nil || (*mode != "TOTAL" && *mode != "INDEXES") {
		return nil
	}
	out := make([]api.ConsumedCapacity, 0, len(c.uses))
	for i := range c.uses {
		cc := c.uses[i].consumed(c.names[i], mode)
		split(cc.CapacityUnits, &cc.ReadCapacityUnits, &cc.WriteCapacityUnits, read)
		if cc.Table != nil {
			split(cc.Table.CapacityUnits, &cc.Table.ReadCapacityUnits, &cc.Table.WriteCapacityUnits, read)
		}
		for _, m := range []map[string]api.Capacity{cc.GlobalSecondaryIndexes, cc.LocalSecondaryIndexes} {
			for k, x := range m {
				split(x.CapacityUnits, &x.ReadCapacityUnits, &x.WriteCapacityUnits, read)
				m[k] = x
			}
		}
		out = append(out, *cc)
	}
	return out
}

func split(units *float64, readUnits, writeUnits **float64, read bool) {
	if units == nil {
		return
	}
	if read {
		*readUnits = f64(*units)
	} else {
		*writeUnits = f64(*units)
	}
}
