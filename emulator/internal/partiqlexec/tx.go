package partiqlexec

import (
	"context"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/partiql"
)

// ExecuteTransaction runs on TransactWriteItems (writes and EXISTS
// condition checks) or TransactGetItems (reads): the same locking,
// conflicts, idempotency and cancellation reasons.

const (
	msgTxReturning  = "RETURNING clause is not supported in ExecuteTransaction."
	msgTxIndexRead  = "Reads on indices are not supported within transactions."
	msgTxSelectKey  = "Select statements within ExecuteTransaction must specify the primary key in the where clause."
	msgTxExists     = "EXISTS() must contain a single item read with additional condition"
	msgTxMixed      = "ExecuteTransaction API does not support both read and write operations in the same request."
	reasonDuplicate = "DuplicateItem"
	// The cancellation reason codes of TransactWriteItems (the engine's
	// ReasonNone and ReasonConditionalCheckFailed).
	reasonNone                   = "None"
	reasonConditionalCheckFailed = "ConditionalCheckFailed"
)

// txStatementError prefixes a statement's validation error with its place.
func txStatementError(i int, err error) error {
	if ee, ok := err.(*api.Error); ok && ee.Code == api.CodeValidation {
		return api.Validation("Validation failed in TransactStatements[%d]: %s", i, ee.Message)
	}
	return err
}

// executeTransaction runs up to 100 PartiQL statements atomically.
func (e engine) executeTransaction(ctx context.Context, ns api.Namespace, in *api.ExecuteTransactionInput) (*api.ExecuteTransactionOutput, error) {
	preps := make([]*pqPrepared, len(in.TransactStatements))
	reads, writes := false, false
	for i, s := range in.TransactStatements {
		p, param, err := e.pqPrepareParts(*s.Statement, s.Parameters, false)
		if err != nil {
			if param {
				// A parameter's value is refused as ExecuteStatement
				// refuses it, without the statement's place.
				return nil, err
			}
			return nil, txStatementError(i, err)
		}
		st := p.st
		switch {
		case st.Returning != "":
			return nil, txStatementError(i, api.Validation(msgTxReturning))
		case st.Kind == partiql.Select && st.Index != "":
			return nil, txStatementError(i, api.Validation(msgTxIndexRead))
		case st.Kind == partiql.Exists && (st.Index != "" || st.Where == nil):
			return nil, txStatementError(i, api.Validation(msgTxExists))
		}
		if st.Kind == partiql.Select {
			reads = true
		} else {
			writes = true
		}
		preps[i] = p
	}
	if reads && writes {
		return nil, api.Validation(msgTxMixed)
	}
	if reads {
		return e.txRead(ctx, ns, in, preps)
	}
	return e.txWriteStatements(ctx, ns, in, preps)
}

// txRead runs a read transaction through TransactGetItems.
func (e engine) txRead(ctx context.Context, ns api.Namespace, in *api.ExecuteTransactionInput, preps []*pqPrepared) (*api.ExecuteTransactionOutput, error) {
	reads := make([]*pqKeyRead, len(preps))
	get := &api.TransactGetItemsInput{ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	for i, p := range preps {
		r, err := e.keyRead(ctx, ns, p, msgTxSelectKey)
		if err != nil {
			return nil, txStatementError(i, err)
		}
		reads[i] = r
		get.TransactItems = append(get.TransactItems, api.TransactGetItem{Get: &api.Get{TableName: &p.st.Table, Key: r.key}})
	}
	out, err := e.TransactGetItems(ctx, ns, get)
	if err != nil {
		return nil, err
	}
	res := &api.ExecuteTransactionOutput{Responses: make([]api.ItemResponse, len(reads)), ConsumedCapacity: out.ConsumedCapacity}
	m := e.Meter(ctx)
	for i, r := range out.Responses {
		if i < len(reads) {
			if res.Responses[i].Item, err = reads[i].result(r.Item, &m); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// txWriteStatements runs a write transaction through TransactWriteItems.
func (e engine) txWriteStatements(ctx context.Context, ns api.Namespace, in *api.ExecuteTransactionInput, preps []*pqPrepared) (*api.ExecuteTransactionOutput, error) {
	tw := &api.TransactWriteItemsInput{ClientRequestToken: in.ClientRequestToken, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	for i, p := range preps {
		retOnFail := in.TransactStatements[i].ReturnValuesOnConditionCheckFailure
		if p.st.Kind == partiql.Exists {
			cc, err := e.existsCheck(ctx, ns, p, retOnFail)
			if err != nil {
				return nil, txStatementError(i, err)
			}
			tw.TransactItems = append(tw.TransactItems, api.TransactWriteItem{ConditionCheck: cc})
			continue
		}
		w, err := e.translateWrite(ctx, ns, p, retOnFail)
		if err != nil {
			return nil, txStatementError(i, err)
		}
		var item api.TransactWriteItem
		switch {
		case w.put != nil:
			item.Put = &api.TransactPut{TableName: w.put.TableName, Item: w.put.Item, ConditionExpression: w.put.ConditionExpression,
				ExpressionAttributeNames: w.put.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: retOnFail}
		case w.update != nil:
			u := w.update
			item.Update = &api.TransactUpdate{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
				ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: retOnFail}
		default:
			d := w.del
			item.Delete = &api.TransactDelete{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
				ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: retOnFail}
		}
		tw.TransactItems = append(tw.TransactItems, item)
	}
	out, err := e.TransactWriteItems(ctx, ns, tw)
	if err != nil {
		return nil, e.duplicateReasons(err, preps)
	}
	return &api.ExecuteTransactionOutput{Responses: []api.ItemResponse{}, ConsumedCapacity: replayReads(out.ConsumedCapacity)}, nil
}

// replayReads: a replayed write transaction reports reads only (it writes
// nothing); ExecuteTransaction's replay was captured reporting them as
// transactional reads, 2 units per statement, where TransactWriteItems'
// replay reports 1.
func replayReads(ccs []api.ConsumedCapacity) []api.ConsumedCapacity {
	for i := range ccs {
		cc := &ccs[i]
		if cc.ReadCapacityUnits == nil {
			continue
		}
		for _, u := range []**float64{&cc.CapacityUnits, &cc.ReadCapacityUnits} {
			if *u != nil {
				*u = f64(2 * **u)
			}
		}
		if cc.Table != nil {
			t := *cc.Table
			for _, u := range []**float64{&t.CapacityUnits, &t.ReadCapacityUnits} {
				if *u != nil {
					*u = f64(2 * **u)
				}
			}
			cc.Table = &t
		}
	}
	return ccs
}

// existsCheck turns EXISTS(SELECT … WHERE <key> AND <condition>) into a
// ConditionCheck: the item must exist and meet the condition.
func (e engine) existsCheck(ctx context.Context, ns api.Namespace, p *pqPrepared, retOnFail *string) (*api.TransactConditionCheck, error) {
	t, err := e.pqTable(ctx, ns, p.st)
	if err != nil {
		return nil, err
	}
	key, rest, err := p.itemKey(&t)
	if err != nil || len(rest) == 0 {
		if err != nil && !hasCode(err, api.CodeValidation) {
			return nil, err
		}
		return nil, api.Validation(msgTxExists)
	}
	c := p.newCond()
	cond, err := c.andText(rest)
	if err != nil {
		return nil, err
	}
	full := "attribute_exists(" + c.name(t.Hash) + ") AND " + group(cond)
	return &api.TransactConditionCheck{TableName: &p.st.Table, Key: key, ConditionExpression: &full,
		ExpressionAttributeNames: c.namesOrNil(), ExpressionAttributeValues: c.valuesOrNil(),
		ReturnValuesOnConditionCheckFailure: retOnFail}, nil
}

// duplicateReasons reports an INSERT whose key exists as DuplicateItem in
// the cancellation reasons (its put's condition is what failed).
func (e engine) duplicateReasons(err error, preps []*pqPrepared) error {
	ee, ok := err.(*api.Error)
	if !ok || ee.Code != api.CodeTransactionCanceled || len(ee.CancellationReasons) != len(preps) {
		return err
	}
	reasons := make([]*api.CancellationReason, len(preps))
	for i := range ee.CancellationReasons {
		r := ee.CancellationReasons[i]
		if r.Code == reasonNone {
			continue
		}
		if preps[i].st.Kind == partiql.Insert && r.Code == reasonConditionalCheckFailed {
			r = api.CancellationReason{Code: reasonDuplicate, Message: msgDuplicateItem}
		}
		reasons[i] = &r
	}
	return e.Cancelled(reasons)
}
