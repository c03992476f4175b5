package partiqlexec

import (
	"context"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/work"
)

// Core is what PartiQL execution uses of the engine: the classic item
// operations a statement is translated into, the lookup (and authorization)
// of a statement's table, and the engine's shared expression cache, work
// meter and transaction-cancellation error.
type Core interface {
	GetItem(ctx context.Context, ns api.Namespace, in *api.GetItemInput) (*api.GetItemOutput, error)
	Query(ctx context.Context, ns api.Namespace, in *api.QueryInput) (*api.ReadManyOutput, error)
	Scan(ctx context.Context, ns api.Namespace, in *api.ScanInput) (*api.ReadManyOutput, error)
	PutItem(ctx context.Context, ns api.Namespace, in *api.PutItemInput) (*api.WriteItemOutput, error)
	UpdateItem(ctx context.Context, ns api.Namespace, in *api.UpdateItemInput) (*api.WriteItemOutput, error)
	DeleteItem(ctx context.Context, ns api.Namespace, in *api.DeleteItemInput) (*api.WriteItemOutput, error)
	TransactGetItems(ctx context.Context, ns api.Namespace, in *api.TransactGetItemsInput) (*api.TransactGetItemsOutput, error)
	TransactWriteItems(ctx context.Context, ns api.Namespace, in *api.TransactWriteItemsInput) (*api.TransactWriteItemsOutput, error)

	// Table looks up the table a statement names (a name or an ARN) and,
	// when the request has a caller, authorizes action (IAM's
	// dynamodb:PartiQLSelect/Insert/Update/Delete) on it and on index. A
	// missing table is ResourceNotFoundException naming no table, as
	// PartiQL answers; so is a name over 255 characters.
	Table(ctx context.Context, ns api.Namespace, action, name, index string) (Table, error)
	// ExprCache is the engine's parse cache of expression text.
	ExprCache() *expr.Cache
	// Meter is a work meter of ctx adding to the engine's WorkDone.
	Meter(ctx context.Context) work.Meter
	// Cancelled builds TransactionCanceledException from one reason per
	// action (nil for an action that did not fail).
	Cancelled(reasons []*api.CancellationReason) *api.Error
}

// Table is what a statement reads of its table's schema.
type Table struct {
	// ID is the table's unique id: two names (a name and an ARN) of one
	// table have the same.
	ID [16]byte
	// Hash and Range are the key attributes; Range is "" for a hash-only
	// table.
	Hash, Range string
	// Index is the live index the lookup named, nil when it named none or
	// the table has no such index.
	Index *Index
}

// Index is what a SELECT reads of a secondary index.
type Index struct {
	Name  string
	Local bool
	// Key is the index's key schema, HASH attributes first (a GSI's key
	// may have several of each).
	Key []KeyAttr
	// Projects holds the attributes the index projects (its table's and
	// its own key, and its non-key attributes); nil: ProjectionType ALL.
	Projects map[string]bool
}

// KeyAttr is one attribute of a key schema.
type KeyAttr struct {
	Name  string
	Range bool
}

// keyCount is the number of key attributes of the table.
func (t *Table) keyCount() int {
	if t.Range == "" {
		return 1
	}
	return 2
}

// isKey reports whether a is one of the table's key attributes.
func (t *Table) isKey(a string) bool {
	return a == t.Hash || t.Range != "" && a == t.Range
}

// Executor runs PartiQL statements; it owns the cache of parsed
// statements. Its zero value is ready.
type Executor struct {
	pq partiqlState
}

// engine is one request's view of the engine: the core and the executor's
// state.
type engine struct {
	Core
	pq *partiqlState
}

func (x *Executor) on(c Core) engine { return engine{Core: c, pq: &x.pq} }

// ExecuteStatement runs one PartiQL statement whose request has passed the
// shape checks; ctx carries the caller as the core's Table expects.
func (x *Executor) ExecuteStatement(ctx context.Context, c Core, ns api.Namespace, in *api.ExecuteStatementInput) (*api.ExecuteStatementOutput, error) {
	out, err := x.on(c).executeStatement(ctx, ns, in)
	return out, bareOperandError(err)
}

// bareOperandError drops the expression name the classic operation puts
// before "Incorrect operand type …": a statement has no expressions, and
// DynamoDB's PartiQL answers the bare text.
func bareOperandError(err error) error {
	if ee, ok := err.(*api.Error); ok && ee.Code == api.CodeValidation {
		if m := bareOperand(ee.Message); m != ee.Message {
			return api.Validation("%s", m)
		}
	}
	return err
}

func bareOperand(msg string) string {
	for _, p := range []string{"Invalid ConditionExpression: ", "Invalid UpdateExpression: "} {
		msg = strings.Replace(msg, p+"Incorrect operand type for operator or function", "Incorrect operand type for operator or function", 1)
	}
	return msg
}

// BatchExecuteStatement runs up to 25 statements, all reads or all writes,
// each answered on its own; the request has passed the shape checks.
func (x *Executor) BatchExecuteStatement(ctx context.Context, c Core, ns api.Namespace, in *api.BatchExecuteStatementInput) (*api.BatchExecuteStatementOutput, error) {
	return x.on(c).batchExecuteStatement(ctx, ns, in)
}

// ExecuteTransaction runs up to 100 statements atomically; the request has
// passed the shape checks.
func (x *Executor) ExecuteTransaction(ctx context.Context, c Core, ns api.Namespace, in *api.ExecuteTransactionInput) (*api.ExecuteTransactionOutput, error) {
	out, err := x.on(c).executeTransaction(ctx, ns, in)
	return out, bareOperandError(err)
}
