package emulator

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
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
	tableName string
	key       av.Item
	proj      *expr.Projection
	t         *tableMeta
	k         []byte
}

// TransactGetItems returns the items of up to 100 Get actions, in request
// order, from one consistent snapshot.
func (e *Engine) TransactGetItems(ctx context.Context, ns Namespace, in *TransactGetItemsInput) (*TransactGetItemsOutput, error) {
	if in == nil {
		in = &TransactGetItemsInput{}
	}
	var v violations
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	txListShape(&v, in.TransactItems != nil, len(in.TransactItems))
	if len(in.TransactItems) <= maxTransactItems {
		for i, it := range in.TransactItems {
			base := fmt.Sprintf("transactItems.%d.member.get", i+1)
			g := it.Get
			if g == nil {
				v.null(base)
				continue
			}
			if g.Key == nil {
				v.null(base + ".key")
			}
			v.tableRef(base+".tableName", g.TableName)
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	gets := make([]txGet, len(in.TransactItems))
	for i, it := range in.TransactItems {
		g := it.Get
		if err := checkBareName(*g.TableName); err != nil {
			return nil, err
		}
		exprs := present(g.ProjectionExpression, "ProjectionExpression", nil)
		if err := expr.CheckParameterMix(exprs, nil, nil, g.ExpressionAttributeNames != nil, false); err != nil {
			return nil, exprError(err)
		}
		if err := validateItemValues(g.Key); err != nil {
			return nil, err
		}
		p, err := e.exprParams(g.ExpressionAttributeNames, nil)
		if err != nil {
			return nil, err
		}
		if g.ProjectionExpression != nil {
			if gets[i].proj, err = p.Projection(*g.ProjectionExpression); err != nil {
				return nil, exprError(err)
			}
		}
		if err := p.CheckUnused(); err != nil {
			return nil, exprError(err)
		}
		gets[i].tableName, gets[i].key = *g.TableName, g.Key
	}

	reasons := make([]*CancellationReason, len(gets))
	failed := false
	var first Namespace
	for i := range gets {
		g := &gets[i]
		t, err := e.dataTable(ns, g.tableName)
		if err != nil {
			return nil, e.missingTable(ctx, ns, "dynamodb:GetItem", g.tableName, err)
		}
		if callerFrom(ctx) != nil {
			// IAM checks each item of TransactGetItems as a GetItem.
			if err := e.authorize(ctx, "dynamodb:GetItem", t, "", "", itemAccess(t, g.key)); err != nil {
				return nil, err
			}
		}
		g.t = t
		if i == 0 {
			first = t.ns()
		} else if t.ns() != first {
			reasons[i], failed = &CancellationReason{Code: ReasonValidationError, Message: msgTxOtherNamespace}, true
			continue
		}
		if err := checkKey(t, g.key); err != nil {
			r, rerr := reasonOf(err)
			if rerr != nil {
				return nil, rerr
			}
			reasons[i], failed = r, true
			continue
		}
		g.k = itemKey(t, g.key)
		if r := e.throttleReason(t, throttle.Read, g.k); r != nil {
			reasons[i], failed = r, true
		}
	}
	// The same item twice is refused as in TransactWriteItems.
	seen := make(map[string]struct{}, len(gets))
	for i := range gets {
		if gets[i].k == nil {
			continue
		}
		k := string(gets[i].k)
		if _, dup := seen[k]; dup {
			return nil, Validation(msgTxDuplicateItem)
		}
		seen[k] = struct{}{}
	}
	if failed {
		return nil, cancelled(afterFirstValidationError(reasons))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	snap := e.opts.Store.NewSnapshot()
	defer snap.Close()
	out := &TransactGetItemsOutput{Responses: make([]ItemResponse, len(gets))}
	var capa txCapacity
	for i := range gets {
		g := &gets[i]
		item, err := readItem(snap, g.k)
		if err != nil {
			return nil, err
		}
		u := capacityUse{read: true, table: 2 * ReadUnits(av.ItemSize(item), true)}
		e.chargeThroughput(ctx, g.t, g.k, &u)
		capa.add(g.t, g.tableName, u)
		if item != nil {
			out.Responses[i].Item = g.proj.Project(item)
		}
	}
	out.ConsumedCapacity = capa.render(in.ReturnConsumedCapacity, true)
	return out, nil
}
