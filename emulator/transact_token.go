package emulator

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"
)

// ClientRequestToken idempotency. A token names one successful transaction
// in its namespace for tokenTTL after it completed: a replay with the same
// parameters returns the first result and writes nothing; the same token
// with other parameters is IdempotentParameterMismatchException; a replay
// while the first is still running is TransactionInProgressException. A
// failed transaction leaves no trace, so a retry (the SDKs resend the same
// token when they retry a conflict) runs again.

const tokenTTL = 10 * time.Minute

const (
	msgTokenMismatch   = "Request has the same client token as a previous request with different parameters"
	msgTokenInProgress = "Transaction with the given request token is already in progress."
)

// txState is the engine's transaction state; its zero value is ready.
type txState struct {
	mu     sync.Mutex
	tokens map[tokenKey]*tokenEntry
	// done holds completed entries in completion order, for expiry.
	done []*tokenEntry
	// wait overrides txLockWait (tests).
	wait time.Duration
	// items holds the storage keys of the items running transactions
	// hold (transact_lock.go): only these conflict.
	items sync.Map
}

func (s *txState) lockWait() time.Duration {
	if s.wait > 0 {
		return s.wait
	}
	return txLockWait
}

type tokenKey struct {
	ns    Namespace
	token string
}

type tokenEntry struct {
	key     tokenKey
	digest  [sha256.Size]byte
	running bool
	expires time.Time
	// What a replay answers: the tables (request names, in order) with the
	// number of actions on each, and the original item collection metrics.
	tables  []string
	counts  []int
	metrics map[string][]ItemCollectionMetrics
}

// txDigest fingerprints the parameters a replay must repeat: the actions
// and ReturnItemCollectionMetrics. ReturnConsumedCapacity may differ, since
// a replay reports different capacity anyway.
func txDigest(in *TransactWriteItemsInput) ([sha256.Size]byte, error) {
	b, err := json.Marshal(struct {
		I []TransactWriteItem
		M *string
	}{in.TransactItems, in.ReturnItemCollectionMetrics})
	if err != nil {
		return [sha256.Size]byte{}, internalError(err)
	}
	return sha256.Sum256(b), nil
}

// begin registers a run of token, or returns the entry a replay answers
// from, or the error of a mismatch or a run in progress.
func (s *txState) begin(k tokenKey, digest [sha256.Size]byte, now time.Time) (replay *tokenEntry, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if s.tokens == nil {
		s.tokens = map[tokenKey]*tokenEntry{}
	}
	if x := s.tokens[k]; x != nil {
		switch {
		case x.digest != digest:
			return nil, NewError(CodeIdempotentParameterMismatch, msgTokenMismatch)
		case x.running:
			return nil, NewError(CodeTransactionInProgress, msgTokenInProgress)
		}
		return x, nil
	}
	s.tokens[k] = &tokenEntry{key: k, digest: digest, running: true}
	return nil, nil
}

// finish records the outcome of the run begin registered: a success is
// kept for tokenTTL, a failure forgotten.
func (s *txState) finish(k tokenKey, out *TransactWriteItemsOutput, actions []*txAction, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.tokens[k]
	if x == nil {
		return
	}
	if out == nil {
		delete(s.tokens, k)
		return
	}
	x.running = false
	x.expires = now.Add(tokenTTL)
	x.metrics = out.ItemCollectionMetrics
	for _, a := range actions {
		i := 0
		for i < len(x.tables) && x.tables[i] != a.tableName {
			i++
		}
		if i == len(x.tables) {
			x.tables = append(x.tables, a.tableName)
			x.counts = append(x.counts, 0)
		}
		x.counts[i]++
	}
	s.done = append(s.done, x)
}

// expire drops the completed entries whose window has passed.
func (s *txState) expire(now time.Time) {
	n := 0
	for n < len(s.done) && !now.Before(s.done[n].expires) {
		if s.tokens[s.done[n].key] == s.done[n] {
			delete(s.tokens, s.done[n].key)
		}
		n++
	}
	if n > 0 {
		s.done = append(s.done[:0], s.done[n:]...)
	}
}

// txIdempotent runs a transaction that carries a ClientRequestToken.
func (e *Engine) txIdempotent(ctx context.Context, ns Namespace, in *TransactWriteItemsInput, actions []*txAction) (*TransactWriteItemsOutput, error) {
	digest, err := txDigest(in)
	if err != nil {
		return nil, err
	}
	k := tokenKey{ns: ns, token: *in.ClientRequestToken}
	replay, err := e.tx.begin(k, digest, e.now())
	if err != nil {
		return nil, err
	}
	if replay != nil {
		return replayOutput(replay, in), nil
	}
	var out *TransactWriteItemsOutput
	defer func() { e.tx.finish(k, out, actions, e.now()) }()
	out, err = e.txWrite(ctx, ns, in, actions)
	return out, err
}

// replayOutput is a replay's answer. Writing nothing, a replay reports the
// reads that found the transaction already applied: one strongly
// consistent read unit per action, on each table.
func replayOutput(x *tokenEntry, in *TransactWriteItemsInput) *TransactWriteItemsOutput {
	out := &TransactWriteItemsOutput{ItemCollectionMetrics: x.metrics}
	if m := in.ReturnConsumedCapacity; m != nil && (*m == "TOTAL" || *m == "INDEXES") {
		for i, name := range x.tables {
			u := float64(x.counts[i])
			cc := ConsumedCapacity{TableName: name, CapacityUnits: f64(u), ReadCapacityUnits: f64(u)}
			if *m == "INDEXES" {
				cc.Table = &Capacity{CapacityUnits: f64(u), ReadCapacityUnits: f64(u)}
			}
			out.ConsumedCapacity = append(out.ConsumedCapacity, cc)
		}
	}
	return out
}
