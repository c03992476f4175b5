package txn

import (
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

// Core is what the package uses of the engine.
type Core interface {
	// ExprParams starts an action's expression context: the placeholder
	// maps themselves, then every value's validity (ValidationException).
	ExprParams(names map[string]string, values map[string]av.Value) (*expr.Params, error)
	// ExprError turns an expression or attribute-value failure into
	// ValidationException; other errors pass through.
	ExprError(err error) error
	// InternalError wraps an unexpected store failure (a 500).
	InternalError(err error) error
	// Now is the engine's clock.
	Now() time.Time
	// Shared reports whether other processes share the store, so a
	// token's completed run must be recorded there.
	Shared() bool
	// Store is the engine's store.
	Store() kv.Store
	// Log is the engine's logger.
	Log() *zerolog.Logger
}
