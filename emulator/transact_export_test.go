package emulator

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/txn"
)

// The token records' family and window, as the shared-store tests read
// them.
const (
	famToken = txn.FamToken
	tokenTTL = txn.TokenTTL
)

// Hooks for the external transaction tests (transact_sdk_test.go), which
// drive the engine through the SDK but need to stage a busy item.

// SetTxLockWait changes how long a transaction waits for a busy item.
func SetTxLockWait(e *Engine, d time.Duration) { e.tx.Wait = d }

// HoldItem takes the lock stripe of the item with key in table, as a
// transaction or a write in flight would, and returns its release.
func HoldItem(e *Engine, ns api.Namespace, table string, key av.Item) func() {
	t, err := e.dataTable(ns, table)
	if err != nil {
		panic(err)
	}
	s := e.items.locks.LockOne(itemKey(t, key))
	return func() { e.items.locks.UnlockOne(s) }
}

// HoldItemInTx is HoldItem as a transaction holds the item.
func HoldItemInTx(e *Engine, ns api.Namespace, table string, key av.Item) func() {
	t, err := e.dataTable(ns, table)
	if err != nil {
		panic(err)
	}
	k := itemKey(t, key)
	held := e.items.locks.Lock(k)
	e.tx.Mark([][]byte{k}, true)
	return func() {
		e.tx.Mark([][]byte{k}, false)
		e.items.locks.Unlock(held)
	}
}

// TokenRunning reports whether a transaction with token is running in ns.
func TokenRunning(e *Engine, ns api.Namespace, token string) bool {
	return e.tx.Running(ns, token)
}

// SetAfterPrepare makes every write of e run f in its store transaction
// after its reads (shared-store tests widen the conflict window with it).
func SetAfterPrepare(e *Engine, f func()) { e.items.afterPrepare = f }
