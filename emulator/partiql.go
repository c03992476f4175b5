package emulator

import (
	"context"
	"fmt"
	"strconv"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/partiqlexec"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/work"
)

// PartiQL runs in emulator/internal/partiqlexec on the classic operations
// (Query, Scan, PutItem, UpdateItem, DeleteItem, TransactWriteItems,
// TransactGetItems), so validation, capacity, throttling, streams and
// indexes are those of the classic API. This file checks the requests'
// shapes, as every operation's, and hands the statements over with pqCore,
// the core as PartiQL uses it.

// CodeDuplicateItem is what INSERT of an existing key answers.
const CodeDuplicateItem = partiqlexec.CodeDuplicateItem

const (
	maxStatementLength = 8192
	maxBatchStatements = 25
	txStatementsPath   = "transactStatements"
)

// ExecuteStatement runs one PartiQL statement.
func (e *Engine) ExecuteStatement(ctx context.Context, ns api.Namespace, in *api.ExecuteStatementInput) (*api.ExecuteStatementOutput, error) {
	ctx = partiqlContext(ctx)
	if in == nil {
		in = &api.ExecuteStatementInput{}
	}
	var v shape.Violations
	statementShape(&v, "statement", in.Statement)
	if in.Parameters != nil && len(in.Parameters) == 0 {
		v.Add("[]", "parameters", "Member must have length greater than or equal to 1")
	}
	if in.NextToken != nil {
		v.Length("nextToken", *in.NextToken, 1, 32768)
	}
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, "INDEXES", "TOTAL", "NONE")
	v.Min("limit", in.Limit, 1)
	v.Enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, "ALL_OLD", "NONE")
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.pq.ExecuteStatement(ctx, (*pqCore)(e), ns, in)
}

// BatchExecuteStatement runs up to 25 PartiQL statements, all reads or all
// writes, each answered on its own.
func (e *Engine) BatchExecuteStatement(ctx context.Context, ns api.Namespace, in *api.BatchExecuteStatementInput) (*api.BatchExecuteStatementOutput, error) {
	ctx = partiqlContext(ctx)
	if in == nil {
		in = &api.BatchExecuteStatementInput{}
	}
	var v shape.Violations
	statementListShape(&v, "statements", in.Statements != nil, len(in.Statements), maxBatchStatements)
	for i, s := range in.Statements {
		statementShape(&v, "statements."+strconv.Itoa(i+1)+".member.statement", s.Statement)
	}
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, "INDEXES", "TOTAL", "NONE")
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.pq.BatchExecuteStatement(ctx, (*pqCore)(e), ns, in)
}

// ExecuteTransaction runs up to 100 PartiQL statements atomically.
func (e *Engine) ExecuteTransaction(ctx context.Context, ns api.Namespace, in *api.ExecuteTransactionInput) (*api.ExecuteTransactionOutput, error) {
	ctx = partiqlContext(ctx)
	if in == nil {
		in = &api.ExecuteTransactionInput{}
	}
	var v shape.Violations
	statementListShape(&v, txStatementsPath, in.TransactStatements != nil, len(in.TransactStatements), maxTransactItems)
	for i, s := range in.TransactStatements {
		statementShape(&v, txStatementsPath+"."+strconv.Itoa(i+1)+".member.statement", s.Statement)
		v.Enum(txStatementsPath+"."+strconv.Itoa(i+1)+".member.returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, "ALL_OLD", "NONE")
	}
	if in.ClientRequestToken != nil {
		v.Length("clientRequestToken", *in.ClientRequestToken, 1, 36)
	}
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, "INDEXES", "TOTAL", "NONE")
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.pq.ExecuteTransaction(ctx, (*pqCore)(e), ns, in)
}

// statementShape checks a statement member's presence and length.
func statementShape(v *shape.Violations, path string, s *string) {
	if s == nil {
		v.Null(path)
		return
	}
	v.Length(path, *s, 1, maxStatementLength)
}

// statementListShape checks a list of statements' presence and length.
func statementListShape(v *shape.Violations, path string, present bool, n, hi int) {
	switch {
	case !present:
		v.Null(path)
	case n < 1:
		v.Add("'[]'", path, "Member must have length greater than or equal to 1")
	case n > hi:
		v.Add(txListValue(n), path, fmt.Sprintf("Member must have length less than or equal to %d", hi))
	}
}

// pqCore is the engine as PartiQL execution uses it (partiqlexec.Core): a
// type of its own, so the Engine's Go API does not grow.
type pqCore Engine

func (c *pqCore) GetItem(ctx context.Context, ns api.Namespace, in *api.GetItemInput) (*api.GetItemOutput, error) {
	return (*Engine)(c).GetItem(ctx, ns, in)
}

func (c *pqCore) Query(ctx context.Context, ns api.Namespace, in *api.QueryInput) (*api.ReadManyOutput, error) {
	return (*Engine)(c).Query(ctx, ns, in)
}

func (c *pqCore) Scan(ctx context.Context, ns api.Namespace, in *api.ScanInput) (*api.ReadManyOutput, error) {
	return (*Engine)(c).Scan(ctx, ns, in)
}

func (c *pqCore) PutItem(ctx context.Context, ns api.Namespace, in *api.PutItemInput) (*api.WriteItemOutput, error) {
	return (*Engine)(c).PutItem(ctx, ns, in)
}

func (c *pqCore) UpdateItem(ctx context.Context, ns api.Namespace, in *api.UpdateItemInput) (*api.WriteItemOutput, error) {
	return (*Engine)(c).UpdateItem(ctx, ns, in)
}

func (c *pqCore) DeleteItem(ctx context.Context, ns api.Namespace, in *api.DeleteItemInput) (*api.WriteItemOutput, error) {
	return (*Engine)(c).DeleteItem(ctx, ns, in)
}

func (c *pqCore) TransactGetItems(ctx context.Context, ns api.Namespace, in *api.TransactGetItemsInput) (*api.TransactGetItemsOutput, error) {
	return (*Engine)(c).TransactGetItems(ctx, ns, in)
}

func (c *pqCore) TransactWriteItems(ctx context.Context, ns api.Namespace, in *api.TransactWriteItemsInput) (*api.TransactWriteItemsOutput, error) {
	return (*Engine)(c).TransactWriteItems(ctx, ns, in)
}

func (c *pqCore) ExprCache() *expr.Cache { return (*Engine)(c).exprCache() }

func (c *pqCore) Meter(ctx context.Context) work.Meter { return work.New(ctx, &c.work) }

func (c *pqCore) Cancelled(reasons []*api.CancellationReason) *api.Error { return cancelled(reasons) }

// Table looks up a statement's table; PartiQL's missing-table message
// names no table. With a caller (--auth=sigv4) the statement is authorized
// as IAM does PartiQL: action on the table (or index) it names, without
// cross-account access.
func (c *pqCore) Table(ctx context.Context, ns api.Namespace, action, name, index string) (partiqlexec.Table, error) {
	e := (*Engine)(c)
	if err := shape.CheckBareName(name); err != nil {
		return partiqlexec.Table{}, api.ResourceNotFound()
	}
	actx := pqCallerContext(ctx)
	t, err := e.table(ns, name)
	if err != nil {
		if ee, ok := err.(*api.Error); ok && ee.Code == api.CodeResourceNotFound {
			if actx != nil {
				if aerr := e.Authorize(actx, ns, action, name, index); aerr != nil {
					return partiqlexec.Table{}, aerr
				}
			}
			return partiqlexec.Table{}, api.ResourceNotFound()
		}
		return partiqlexec.Table{}, err
	}
	if actx != nil {
		if err := e.authorize(actx, action, t, index, "", nil); err != nil {
			return partiqlexec.Table{}, err
		}
	}
	out := partiqlexec.Table{ID: t.ID, Hash: t.hashKey().Name}
	if rk, ok := t.rangeKey(); ok {
		out.Range = rk.Name
	}
	if index != "" {
		if ix, ok := t.index(index, e.now()); ok {
			keys := make([]partiqlexec.KeyAttr, len(ix.KeySchema))
			for i, k := range ix.KeySchema {
				keys[i] = partiqlexec.KeyAttr{Name: k.Name, Range: k.KeyType != keyHash}
			}
			out.Index = &partiqlexec.Index{Name: ix.Name, Local: ix.Local, Key: keys}
			if ix.ProjectionType != "ALL" {
				out.Index.Projects = projectedSet(t, ix)
			}
		}
	}
	return out, nil
}
