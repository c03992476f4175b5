package partiqlexec

import (
	"context"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/partiql"
	"github.com/extenddb/extenddb/emulator/work"
)

const (
	msgBatchMixed     = "Read and write requests together in the same batch is not supported."
	msgBatchSelectKey = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
	// msgBatchDuplicates is BatchGetItem's message for the same key twice.
	msgBatchDuplicates = "Provided list of item keys contains duplicates"
)

// shortCodes are the Error.Code values of BatchExecuteStatement responses.
var shortCodes = map[string]string{
	api.CodeConditionalCheckFailed:        "ConditionalCheckFailed",
	api.CodeItemCollectionSizeLimit:       "ItemCollectionSizeLimitExceeded",
	api.CodeRequestLimitExceeded:          "RequestLimitExceeded",
	api.CodeValidation:                    "ValidationError",
	api.CodeProvisionedThroughputExceeded: "ProvisionedThroughputExceeded",
	api.CodeTransactionConflict:           "TransactionConflict",
	api.CodeThrottling:                    "ThrottlingError",
	api.CodeInternalServerError:           "InternalServerError",
	api.CodeResourceNotFound:              "ResourceNotFound",
	CodeDuplicateItem:                     "DuplicateItem",
}

// pqKeyRead is a SELECT of one item by its full primary key: the key, the
// other WHERE terms as a condition on the item, and the projection.
type pqKeyRead struct {
	st     *partiql.Statement
	t      Table
	key    av.Item
	filter *expr.Condition
}

// keyRead plans a single-item SELECT; msg is the error for one that does
// not name the whole key (or reads an index).
func (e engine) keyRead(ctx context.Context, ns api.Namespace, p *pqPrepared, msg string) (*pqKeyRead, error) {
	t, err := e.pqTable(ctx, ns, p.st)
	if err != nil {
		return nil, err
	}
	if p.st.Index != "" {
		if t.Index != nil && !singleKey(t.Index.Key) {
			return nil, api.Validation(msgMultiKeyIndex)
		}
		return nil, api.Validation("%s", msg)
	}
	key, rest, err := p.itemKeyOf(&t, true)
	if err != nil {
		if hasCode(err, api.CodeValidation) && err.(*api.Error).Message == msgMandatoryKeyEq {
			return nil, api.Validation("%s", msg)
		}
		return nil, err
	}
	// A SELECT in a transaction or a batch is a single-item Get: WHERE
	// holds the key and nothing else.
	if len(rest) > 0 {
		return nil, api.Validation("%s", msg)
	}
	return &pqKeyRead{st: p.st, t: t, key: key}, nil
}

// result filters and projects the item read (nil when absent). The
// filter counts its steps on m: 25 statements of 300 operators over 400 KB
// items are seconds of work, which stop with the request (m's error).
func (r *pqKeyRead) result(item av.Item, m *work.Meter) (av.Item, error) {
	if item == nil {
		return nil, nil
	}
	if r.filter != nil {
		ok, err := r.filter.EvalMetered(item, m)
		if merr := m.Err(); merr != nil {
			return nil, merr
		}
		if err != nil || !ok {
			return nil, nil
		}
	}
	return project(r.st, item), nil
}

// itemID names one item of one table, for duplicate checks.
func itemID(t *Table, key av.Item) string {
	b := append([]byte(nil), t.ID[:]...)
	b = append(b, 0)
	b = av.AppendKey(b, key[t.Hash])
	if t.Range != "" {
		b = append(b, 0)
		b = av.AppendKey(b, key[t.Range])
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

// batchExecuteStatement runs up to 25 PartiQL statements, all reads or all
// writes, each answered on its own.
func (e engine) batchExecuteStatement(ctx context.Context, ns api.Namespace, in *api.BatchExecuteStatementInput) (*api.BatchExecuteStatementOutput, error) {
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
			en.err = api.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
		default:
			writes = true
			en.err = checkWriteStatic(en.p.st)
		}
	}
	if reads && writes {
		return nil, api.Validation(msgBatchMixed)
	}
	seen := map[string]bool{}
	for i, s := range in.Statements {
		en := &entries[i]
		if en.err != nil {
			continue
		}
		en.named = true
		var t *Table
		var key av.Item
		if en.p.st.Kind == partiql.Select {
			if en.read, en.err = e.keyRead(ctx, ns, en.p, msgBatchSelectKey); en.err == nil {
				t, key = &en.read.t, en.read.key
			}
		} else if en.write, en.err = e.translateWrite(ctx, ns, en.p, s.ReturnValuesOnConditionCheckFailure); en.err == nil {
			t, key = &en.write.t, en.write.key
		}
		if en.err != nil {
			continue
		}
		id := itemID(t, key)
		if seen[id] {
			return nil, api.Validation(msgBatchDuplicates)
		}
		seen[id] = true
	}
	out := &api.BatchExecuteStatementOutput{Responses: make([]api.BatchStatementResponse, len(entries))}
	caps := map[string][]*api.ConsumedCapacity{}
	var order []string
	m := e.Meter(ctx)
	for i, s := range in.Statements {
		// A statement's error is its own, in the answer; a request
		// stopped by its context stops whole.
		if err := m.Check(); err != nil {
			return nil, err
		}
		en := &entries[i]
		r := &out.Responses[i]
		if en.named {
			r.TableName = en.p.st.Table
		}
		var cc *api.ConsumedCapacity
		switch {
		case en.err != nil:
		case en.read != nil:
			var g *api.GetItemOutput
			g, en.err = e.GetItem(ctx, ns, &api.GetItemInput{TableName: &en.p.st.Table, Key: en.read.key,
				ConsistentRead: s.ConsistentRead, ReturnConsumedCapacity: in.ReturnConsumedCapacity})
			if en.err == nil {
				cc = g.ConsumedCapacity
				if r.Item, en.err = en.read.result(g.Item, &m); m.Err() != nil {
					return nil, m.Err()
				}
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
func batchError(err error) *api.BatchStatementError {
	ee, ok := err.(*api.Error)
	if !ok {
		return &api.BatchStatementError{Code: "InternalServerError", Message: "Internal server error"}
	}
	code := shortCodes[ee.Code]
	if code == "" {
		code = ee.Code
	}
	return &api.BatchStatementError{Code: code, Message: bareOperand(ee.Message)}
}
