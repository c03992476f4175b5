package ttl

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/kv"
)

// Core is what Time to Live uses of the engine.
type Core interface {
	// Setting returns the TTL setting and the status (CREATING, ACTIVE…)
	// of the table name in ns; an absent table is
	// ResourceNotFoundException.
	Setting(ns api.Namespace, name string) (TTL, string, error)
	// Change looks up the table name in ns under the catalog's lock,
	// refuses one CREATING or DELETING (ResourceInUseException), calls
	// change with its setting and stores what change returns on the table
	// and on every member of its global table, which share it. An error
	// of change is returned as it is and nothing is stored.
	Change(ns api.Namespace, name string, change func(cur TTL) (TTL, error)) error
	// Expiring lists the tables with TTL enabled that are live and not
	// being deleted at now, in any order.
	Expiring(now time.Time) []Table
	// Items iterates over the stored items in [from, end); an error is
	// the engine's answer to a failing store.
	Items(from, end []byte) (kv.Iterator, error)
	// Delete deletes t's item at key through the engine's write pipeline,
	// as the service's TTL delete, if in the write that deletes it the
	// table still has TTL enabled and the item is still expired at now
	// (Expired on the table's current attribute); for a member of a
	// global table, only if this Region wrote the item last. It reports
	// false, nil when the item is left (not expired any more, written
	// elsewhere, or held by a transaction: a later pass sees it again)
	// and ErrGone when the table is gone or its TTL disabled.
	Delete(ctx context.Context, t Table, key []byte, now time.Time) (bool, error)
}

// Table is a table an expiry pass visits.
type Table struct {
	// ARN orders the pass.
	ARN string
	// Attr is the table's TTL attribute.
	Attr string
	// From and End bound the table's stored items.
	From, End []byte
	// Ref is the engine's own handle on the table, handed back to
	// Core.Delete.
	Ref any
}

// ErrGone stops a pass over a table deleted, or whose TTL was disabled,
// meanwhile.
var ErrGone = errors.New("emulator: table gone")

// ErrNotExpired aborts a TTL delete whose item changed under it (Core's
// implementation returns it from inside its write).
var ErrNotExpired = errors.New("emulator: item no longer expired")
