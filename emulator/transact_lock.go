package emulator

import (
	"slices"
	"sync"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/txn"
)

// sortUnique sorts s and drops repeated stripes.
func sortUnique(s *[]uint16) {
	slices.Sort(*s)
	*s = slices.Compact(*s)
}

// waitItem locks mu, a busy stripe. While conflicting reports that the
// item wanted is held by a transaction, it waits at most the transaction
// lock wait and gives up (false); otherwise the stripe is merely shared
// with other items and it waits as long as it takes.
func (e *Engine) waitItem(mu *sync.Mutex, conflicting func() bool) bool {
	for {
		if !conflicting() {
			// Blocking here cannot deadlock: multi-stripe holders take
			// stripes in ascending order and single writers hold one.
			mu.Lock()
			return true
		}
		if txn.WaitLock(mu, e.tx.LockWait()) {
			return true
		}
		if conflicting() {
			return false
		}
	}
}

// lockForWrite takes the stripe of a single-item write. If a committing
// transaction holds this very item, the write waits as long as a
// transaction would, then gets TransactionConflictException, as DynamoDB
// answers a write to an item a transaction is working on. A stripe busy
// for any other reason is simply waited for.
func (e *Engine) lockForWrite(key []byte) (uint16, error) {
	s := keyspace.StripeOf(key)
	mu := &e.items.locks.Mu[s]
	if mu.TryLock() {
		return s, nil
	}
	if e.waitItem(mu, func() bool { return e.tx.Holds(key) }) {
		return s, nil
	}
	return 0, api.NewError(api.CodeTransactionConflict, msgTxConflict)
}
