package emulator

import (
	"context"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/txn"
	"github.com/extenddb/extenddb/throttle"
)

// TransactGetItems reads up to 100 items as of one instant. Every
// transaction commits in one kv batch, which a store snapshot sees whole
// or not at all, so reading every item from one snapshot never shows a
// part of a transaction (nor of any other write) and needs no locks.
// Validation follows TransactWriteItems: the request's shape and each
// action's expressions fail the request; a missing table is
// ResourceNotFoundException; a key that does not match the schema cancels
// with a ValidationError reason. Transactional reads cost twice a strongly
// consistent read.

type txGet struct {
	txn.Get
	t *tableMeta
	k []byte
}

// TransactGetItems returns the items of up to 100 Get actions, in request
// order, from one consistent snapshot.
func (e *Engine) TransactGetItems(ctx context.Context, ns api.Namespace, in *api.TransactGetItemsInput) (*api.TransactGetItemsOutput, error) {
	if in == nil {
		in = &api.TransactGetItemsInput{}
	}
	gets, err := txn.ValidateGet(txnCore{e}, in, func(g *txGet) *txn.Get { return &g.Get })
	if err != nil {
		return nil, err
	}
	if err := e.resolveTxGets(ctx, ns, gets); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	snap := e.opts.Store.NewSnapshot()
	defer snap.Close()
	out := &api.TransactGetItemsOutput{Responses: make([]api.ItemResponse, len(gets))}
	var capa txCapacity
	for i := range gets {
		g := &gets[i]
		item, err := readItem(snap, g.k)
		if err != nil {
			return nil, err
		}
		u := capacityUse{read: true, table: 2 * ReadUnits(av.ItemSize(item), true)}
		e.chargeThroughput(ctx, g.t, g.k, &u)
		capa.add(g.t, g.TableName, u)
		if item != nil {
			out.Responses[i].Item = g.Proj.Project(item)
		}
	}
	out.ConsumedCapacity = capa.render(in.ReturnConsumedCapacity, true)
	return out, nil
}

// resolveTxGets looks up each Get's table, asks IAM, and checks its key
// and throttling: a Get that fails these cancels the transaction, with a
// reason each.
func (e *Engine) resolveTxGets(ctx context.Context, ns api.Namespace, gets []txGet) error {
	reasons := make([]*api.CancellationReason, len(gets))
	failed := false
	var first api.Namespace
	for i := range gets {
		g := &gets[i]
		t, err := e.dataTable(ns, g.TableName)
		if err != nil {
			return e.missingTable(ctx, ns, "dynamodb:GetItem", g.TableName, err)
		}
		if callerFrom(ctx) != nil {
			// IAM checks each item of TransactGetItems as a GetItem.
			if err := e.authorize(ctx, "dynamodb:GetItem", t, "", "", itemAccess(t, g.Key)); err != nil {
				return err
			}
		}
		g.t = t
		if i == 0 {
			first = t.ns()
		} else if t.ns() != first {
			reasons[i], failed = txn.OtherNamespace(), true
			continue
		}
		if err := checkKey(t, g.Key); err != nil {
			r, rerr := txn.ReasonOf(err)
			if rerr != nil {
				return rerr
			}
			reasons[i], failed = r, true
			continue
		}
		g.k = itemKey(t, g.Key)
		if r := e.throttleReason(t, throttle.Read, g.k); r != nil {
			reasons[i], failed = r, true
		}
	}
	// The same item twice is refused as in TransactWriteItems.
	if err := txn.CheckDuplicates(len(gets), func(i int) []byte { return gets[i].k }); err != nil {
		return err
	}
	if failed {
		return cancelled(txn.AfterFirstValidationError(reasons))
	}
	return nil
}
