package emulator

// Transactions: the request checks, the plan's rules, the cancellation
// reasons and ClientRequestToken idempotency are emulator/internal/txn;
// txnCore is the engine as the package uses it. Running a validated
// transaction (tables, locks, prepare, one batch) is the write pipeline's
// and stays in transact.go.

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/txn"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

// Cancellation reason codes.
const (
	ReasonNone                   = txn.ReasonNone
	ReasonConditionalCheckFailed = txn.ReasonConditionalCheckFailed
	ReasonValidationError        = txn.ReasonValidationError
	ReasonTransactionConflict    = txn.ReasonTransactionConflict
)

const (
	// maxTransactItems is the most actions one transaction may have.
	maxTransactItems = txn.MaxItems
	msgTxConflict    = txn.MsgConflict
)

// txState is the engine's transaction state; its zero value is ready.
// txState is the engine's transaction state (tokens, held items), owned
// by the txn package; engine.go holds it as Engine.tx.
type txState = txn.State

func cancelled(reasons []*api.CancellationReason) *api.Error { return txn.Cancelled(reasons) }

func txListValue(n int) string { return txn.ListValue(n) }

// TransactWriteItems applies up to 100 writes and condition checks
// atomically: all of them or none.
func (e *Engine) TransactWriteItems(ctx context.Context, ns api.Namespace, in *api.TransactWriteItemsInput) (*api.TransactWriteItemsOutput, error) {
	if in == nil {
		in = &api.TransactWriteItemsInput{}
	}
	actions, err := txn.Validate(txnCore{e}, in, func(a *txAction) *txn.Action { return &a.Action })
	if err != nil {
		return nil, err
	}
	if in.ClientRequestToken != nil {
		return e.tx.Idempotent(txnCore{e}, ns, in, func(tok *txn.Token) (*api.TransactWriteItemsOutput, error) {
			return e.txWrite(ctx, ns, in, actions, tok)
		})
	}
	return e.txWrite(ctx, ns, in, actions, nil)
}

// txnCore is the engine as emulator/internal/txn uses it.
type txnCore struct{ e *Engine }

func (c txnCore) ExprParams(names map[string]string, values map[string]av.Value) (*expr.Params, error) {
	return c.e.exprParams(names, values)
}
func (txnCore) ExprError(err error) error     { return exprError(err) }
func (txnCore) InternalError(err error) error { return internalError(err) }
func (c txnCore) Now() time.Time              { return c.e.now() }
func (c txnCore) Shared() bool                { return c.e.shared() }
func (c txnCore) Store() kv.Store             { return c.e.opts.Store }
func (c txnCore) Log() *zerolog.Logger        { return &c.e.log }
