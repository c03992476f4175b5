package emulator

import (
	"context"
	"strconv"

	"github.com/extenddb/extenddb/emulator/partiql"
)

// ExecuteTransaction runs on TransactWriteItems (writes and EXISTS
// condition checks) or TransactGetItems (reads): the same locking,
// conflicts, idempotency and cancellation reasons.

const (
	msgTxReturning   = "RETURNING clause is not supported in ExecuteTransaction."
	msgTxIndexRead   = "Reads on indices are not supported within transactions."
	msgTxSelectKey   = "Select statements within ExecuteTransaction must specify the primary key in the where clause."
	msgTxExists      = "EXISTS() must contain a single item read with additional condition"
	msgTxMixed       = "ExecuteTransaction API does not support both read and write operations in the same request."
	reasonDuplicate  = "DuplicateItem"
	txStatementsPath = "transactStatements"
)

// txStatementError prefixes a statement's validation error with its place.
func txStatementError(i int, err error) error {
	if ee, ok := err.(*Error); ok && ee.Code == CodeValidation {
		return Validation("Validation failed in TransactStatements[%d]: %s", i, ee.Message)
	}
	return err
}

// ExecuteTransaction runs up to 100 PartiQL statements atomically.
func (e *Engine) ExecuteTransaction(ctx context.Context, ns Namespace, in *ExecuteTransactionInput) (*ExecuteTransactionOutput, error) {
	ctx = partiqlContext(ctx)
	if in == nil {
		in = &ExecuteTransactionInput{}
	}
	var v violations
	statementListShape(&v, txStatementsPath, in.TransactStatements != nil, len(in.TransactStatements), maxTransactItems)
	for i, s := range in.TransactStatements {
		statementShape(&v, txStatementsPath+"."+strconv.Itoa(i+1)+".member.statement", s.Statement)
		v.enum(txStatementsPath+"."+strconv.Itoa(i+1)+".member.returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, "ALL_OLD", "NONE")
	}
	if in.ClientRequestToken != nil {
		v.length("clientRequestToken", *in.ClientRequestToken, 1, 36)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, "INDEXES", "TOTAL", "NONE")
	if err := v.err(); err != nil {
		return nil, err
	}
	preps := make([]*pqPrepared, len(in.TransactStatements))
	reads, writes := false, false
	for i, s := range in.TransactStatements {
		p, err := e.pqPrepare(*s.Statement, s.Parameters)
		if err != nil {
			return nil, txStatementError(i, err)
		}
		st := p.st
		switch {
		case st.Returning != "":
			return nil, txStatementError(i, Validation(msgTxReturning))
		case st.Kind == partiql.Select && st.Index != "":
			return nil, txStatementError(i, Validation(msgTxIndexRead))
		case st.Kind == partiql.Exists && (st.Index != "" || st.Where == nil):
			return nil, txStatementError(i, Validation(msgTxExists))
		}
		if st.Kind == partiql.Select {
			reads = true
		} else {
			writes = true
		}
		preps[i] = p
	}
	if reads && writes {
		return nil, Validation(msgTxMixed)
	}
	if reads {
		return e.txRead(ctx, ns, in, preps)
	}
	return e.txWriteStatements(ctx, ns, in, preps)
}

// txRead runs a read transaction through TransactGetItems.
func (e *Engine) txRead(ctx context.Context, ns Namespace, in *ExecuteTransactionInput, preps []*pqPrepared) (*ExecuteTransactionOutput, error) {
	reads := make([]*pqKeyRead, len(preps))
	get := &TransactGetItemsInput{ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	for i, p := range preps {
		r, err := e.keyRead(ctx, ns, p, msgTxSelectKey)
		if err != nil {
			return nil, txStatementError(i, err)
		}
		reads[i] = r
		get.TransactItems = append(get.TransactItems, TransactGetItem{Get: &Get{TableName: &p.st.Table, Key: r.key}})
	}
	out, err := e.TransactGetItems(ctx, ns, get)
	if err != nil {
		return nil, err
	}
	res := &ExecuteTransactionOutput{Responses: make([]ItemResponse, len(reads)), ConsumedCapacity: out.ConsumedCapacity}
	for i, r := range out.Responses {
		if i < len(reads) {
			res.Responses[i].Item = reads[i].result(r.Item)
		}
	}
	return res, nil
}

// txWriteStatements runs a write transaction through TransactWriteItems.
func (e *Engine) txWriteStatements(ctx context.Context, ns Namespace, in *ExecuteTransactionInput, preps []*pqPrepared) (*ExecuteTransactionOutput, error) {
	tw := &TransactWriteItemsInput{ClientRequestToken: in.ClientRequestToken, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	for i, p := range preps {
		retOnFail := in.TransactStatements[i].ReturnValuesOnConditionCheckFailure
		if p.st.Kind == partiql.Exists {
			cc, err := e.existsCheck(ctx, ns, p, retOnFail)
			if err != nil {
				return nil, txStatementError(i, err)
			}
			tw.TransactItems = append(tw.TransactItems, TransactWriteItem{ConditionCheck: cc})
			continue
		}
		w, err := e.translateWrite(ctx, ns, p, retOnFail)
		if err != nil {
			return nil, txStatementError(i, err)
		}
		var item TransactWriteItem
		switch {
		case w.put != nil:
			item.Put = &TransactPut{TableName: w.put.TableName, Item: w.put.Item, ConditionExpression: w.put.ConditionExpression,
				ExpressionAttributeNames: w.put.ExpressionAttributeNames, ReturnValuesOnConditionCheckFailure: retOnFail}
		case w.update != nil:
			u := w.update
			item.Update = &TransactUpdate{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
				ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: retOnFail}
		default:
			d := w.del
			item.Delete = &TransactDelete{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
				ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: retOnFail}
		}
		tw.TransactItems = append(tw.TransactItems, item)
	}
	out, err := e.TransactWriteItems(ctx, ns, tw)
	if err != nil {
		return nil, duplicateReasons(err, preps)
	}
	return &ExecuteTransactionOutput{Responses: []ItemResponse{}, ConsumedCapacity: replayReads(out.ConsumedCapacity)}, nil
}

// replayReads: a replayed write transaction reports reads only (it writes
// nothing); ExecuteTransaction's replay was captured reporting them as
// transactional reads, 2 units per statement, where TransactWriteItems'
// replay reports 1.
func replayReads(ccs []ConsumedCapacity) []ConsumedCapacity {
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
func (e *Engine) existsCheck(ctx context.Context, ns Namespace, p *pqPrepared, retOnFail *string) (*TransactConditionCheck, error) {
	t, err := e.pqTable(ctx, ns, p.st)
	if err != nil {
		return nil, err
	}
	key, rest, err := p.itemKey(t)
	if err != nil || len(rest) == 0 {
		if err != nil && !hasCode(err, CodeValidation) {
			return nil, err
		}
		return nil, Validation(msgTxExists)
	}
	c := p.newCond()
	cond, err := c.andText(rest)
	if err != nil {
		return nil, err
	}
	full := "attribute_exists(" + c.name(t.hashKey().Name) + ") AND " + group(cond)
	return &TransactConditionCheck{TableName: &p.st.Table, Key: key, ConditionExpression: &full,
		ExpressionAttributeNames: c.namesOrNil(), ExpressionAttributeValues: c.valuesOrNil(),
		ReturnValuesOnConditionCheckFailure: retOnFail}, nil
}

// duplicateReasons reports an INSERT whose key exists as DuplicateItem in
// the cancellation reasons (its put's condition is what failed).
func duplicateReasons(err error, preps []*pqPrepared) error {
	ee, ok := err.(*Error)
	if !ok || ee.Code != CodeTransactionCanceled || len(ee.CancellationReasons) != len(preps) {
		return err
	}
	reasons := make([]*CancellationReason, len(preps))
	for i := range ee.CancellationReasons {
		r := ee.CancellationReasons[i]
		if r.Code == ReasonNone {
			continue
		}
		if preps[i].st.Kind == partiql.Insert && r.Code == ReasonConditionalCheckFailed {
			r = CancellationReason{Code: reasonDuplicate, Message: msgDuplicateItem}
		}
		reasons[i] = &r
	}
	return cancelled(reasons)
}
