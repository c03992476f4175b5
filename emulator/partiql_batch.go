package emulator

import (
	"context"
	"strconv"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/partiql"
)

const (
	maxBatchStatements = 25
	msgBatchMixed      = "Read and write requests together in the same batch is not supported."
	msgBatchSelectKey  = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
)

// shortCodes are the Error.Code values of BatchExecuteStatement responses.
var shortCodes = map[string]string{
	CodeConditionalCheckFailed:        "ConditionalCheckFailed",
	CodeItemCollectionSizeLimit:       "ItemCollectionSizeLimitExceeded",
	CodeRequestLimitExceeded:          "RequestLimitExceeded",
	CodeValidation:                    "ValidationError",
	CodeProvisionedThroughputExceeded: "ProvisionedThroughputExceeded",
	CodeTransactionConflict:           "TransactionConflict",
	CodeThrottling:                    "ThrottlingError",
	CodeInternalServerError:           "InternalServerError",
	CodeResourceNotFound:              "ResourceNotFound",
	CodeDuplicateItem:                 "DuplicateItem",
}

// pqKeyRead is a SELECT of one item by its full primary key: the key, the
// other WHERE terms as a condition on the item, and the projection.
type pqKeyRead struct {
	st     *partiql.Statement
	t      *tableMeta
	key    av.Item
	filter *expr.Condition
}

// keyRead plans a single-item SELECT; msg is the error for one that does
// not name the whole key (or reads an index).
func (e *Engine) keyRead(ctx context.Context, ns Namespace, p *pqPrepared, msg string) (*pqKeyRead, error) {
	t, err := e.pqTable(ctx, ns, p.st)
	if err != nil {
		return nil, err
	}
	if p.st.Index != "" {
		return nil, Validation("%s", msg)
	}
	key, rest, err := p.itemKey(t)
	if err != nil {
		if hasCode(err, CodeValidation) && err.(*Error).Message == msgMandatoryKeyEq {
			return nil, Validation("%s", msg)
		}
		return nil, err
	}
	r := &pqKeyRead{st: p.st, t: t, key: key}
	if len(rest) > 0 {
		c := p.newCond()
		text, err := c.andText(rest)
		if err != nil {
			return nil, err
		}
		if r.filter, err = expr.NewParams(c.namesOrNil(), c.valuesOrNil(), e.exprCache()).Condition(text); err != nil {
			return nil, exprError(err)
		}
	}
	return r, nil
}

// result filters and projects the item read (nil when absent).
func (r *pqKeyRead) result(item av.Item) av.Item {
	if item == nil {
		return nil
	}
	if r.filter != nil {
		if ok, err := r.filter.Eval(item); err != nil || !ok {
			return nil
		}
	}
	return project(r.st, item)
}

// itemID names one item of one table, for duplicate checks.
func itemID(t *tableMeta, key av.Item) string {
	b := []byte(t.ID.UUID())
	for _, k := range t.KeySchema {
		b = append(b, 0)
		b = av.AppendKey(b, key[k.Name])
	}
	return string(b)
}

// batchEntry is one statement of a batch as it goes through the stages.
type batchEntry struct {
	p     *pqPrepared
	read  *pqKeyRead
	write *pqWrite
	err   error
	// named: the error is reported with the statement's TableName.
	named bool
}

// BatchExecuteStatement runs up to 25 PartiQL statements, all reads or all
// writes, each answered on its own.
func (e *Engine) BatchExecuteStatement(ctx context.Context, ns Namespace, in *BatchExecuteStatementInput) (*BatchExecuteStatementOutput, error) {
	ctx = partiqlContext(ctx)
	if in == nil {
		in = &BatchExecuteStatementInput{}
	}
	var v violations
	statementListShape(&v, "statements", in.Statements != nil, len(in.Statements), maxBatchStatements)
	for i, s := range in.Statements {
		statementShape(&v, "statements."+strconv.Itoa(i+1)+".member.statement", s.Statement)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, "INDEXES", "TOTAL", "NONE")
	if err := v.err(); err != nil {
		return nil, err
	}
	entries := make([]batchEntry, len(in.Statements))
	reads, writes := false, false
	for i, s := range in.Statements {
		en := &entries[i]
		if en.p, en.err = e.pqPrepare(*s.Statement, s.Parameters); en.err != nil {
			continue
		}
		switch en.p.st.Kind {
		case partiql.Select:
			reads = true
		case partiql.Exists:
			en.err = Validation("EXISTS can only be used in ExecuteTransaction write requests.")
		default:
			writes = true
			en.err = checkWriteStatic(en.p.st)
		}
	}
	if reads && writes {
		return nil, Validation(msgBatchMixed)
	}
	seen := map[string]bool{}
	for i, s := range in.Statements {
		en := &entries[i]
		if en.err != nil {
			continue
		}
		en.named = true
		var t *tableMeta
		var key av.Item
		if en.p.st.Kind == partiql.Select {
			if en.read, en.err = e.keyRead(ctx, ns, en.p, msgBatchSelectKey); en.err == nil {
				t, key = en.read.t, en.read.key
			}
		} else if en.write, en.err = e.translateWrite(ctx, ns, en.p, s.ReturnValuesOnConditionCheckFailure); en.err == nil {
			t, _ = e.table(ns, en.p.st.Table)
			key = en.write.key
		}
		if en.err != nil || t == nil {
			continue
		}
		id := itemID(t, key)
		if seen[id] {
			return nil, Validation(msgBatchDuplicates)
		}
		seen[id] = true
	}
	out := &BatchExecuteStatementOutput{Responses: make([]BatchStatementResponse, len(entries))}
	caps := map[string][]*ConsumedCapacity{}
	var order []string
	for i, s := range in.Statements {
		en := &entries[i]
		r := &out.Responses[i]
		if en.named {
			r.TableName = en.p.st.Table
		}
		var cc *ConsumedCapacity
		switch {
		case en.err != nil:
		case en.read != nil:
			var g *GetItemOutput
			g, en.err = e.GetItem(ctx, ns, &GetItemInput{TableName: &en.p.st.Table, Key: en.read.key,
				ConsistentRead: s.ConsistentRead, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
			if en.err == nil {
				r.Item, cc = en.read.result(g.Item), g.ConsumedCapacity
			}
		default:
			r.Item, cc, en.err = e.runWrite(ctx, ns, en.write, in.ReturnConsumedCapacity)
		}
		if en.err != nil {
			r.Error = batchError(en.err)
			continue
		}
		if cc != nil {
			if caps[cc.TableName] == nil {
				order = append(order, cc.TableName)
			}
			caps[cc.TableName] = append(caps[cc.TableName], cc)
		}
	}
	for _, name := range order {
		out.ConsumedCapacity = append(out.ConsumedCapacity, *sumCapacity(caps[name]))
	}
	return out, nil
}

// batchError is a statement's error in its short-code form.
func batchError(err error) *BatchStatementError {
	ee, ok := err.(*Error)
	if !ok {
		return &BatchStatementError{Code: "InternalServerError", Message: "Internal server error"}
	}
	code := shortCodes[ee.Code]
	if code == "" {
		code = ee.Code
	}
	return &BatchStatementError{Code: code, Message: ee.Message}
}
