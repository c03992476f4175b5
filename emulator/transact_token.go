package emulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/extenddb/extenddb/kv"
)

// ClientRequestToken idempotency. A token names one successful transaction
// in its namespace for tokenTTL after it completed: a replay with the same
// parameters returns the first result and writes nothing; the same token
// with other parameters is IdempotentParameterMismatchException; a replay
// while the first is still running is TransactionInProgressException. A
// failed transaction leaves no trace, so a retry (the SDKs resend the same
// token when they retry a conflict) runs again.
//
// On a store shared by several processes the completed entries live in
// the store too (txToken, family 't'), written in the transaction's own
// store transaction, so a replay to another process answers the same. A
// process that runs the token's transaction reads the record in that
// store transaction: two processes racing with one token conflict in the
// store, and the one rerun finds the other's record and answers as a
// replay. A run in progress is known only to its own process: another
// process's replay waits for it in the store instead of getting
// TransactionInProgressException (docs/differences.md).

const tokenTTL = 10 * time.Minute

const (
	msgTokenMismatch   = "Request has the same client token as a previous request with different parameters"
	msgTokenInProgress = "Transaction with the given request token is already in progress."
)

// txState is the engine's transaction state; its zero value is ready.
type txState struct {
	mu sync.Mutex
	// swept is when sweepTokens last ran.
	swept  time.Time
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
	now := e.now()
	replay, err := e.tx.begin(k, digest, now)
	if err != nil {
		return nil, err
	}
	if replay != nil {
		return replayOutput(replay, in), nil
	}
	var out *TransactWriteItemsOutput
	defer func() { e.tx.finish(k, out, actions, e.now()) }()
	var tok *txToken
	if e.shared() {
		// Another process may have run it: its record answers first,
		// without locks; the transaction checks again as it commits.
		tok = &txToken{key: tokenStoreKey(k), digest: digest, now: now, mode: in.ReturnItemCollectionMetrics}
		if err := tok.check(e, e.opts.Store); err != nil {
			return tokenAnswer(err, in)
		}
		defer e.sweepTokens(now)
	}
	out, err = e.txWrite(ctx, ns, in, actions, tok)
	if err != nil {
		res, err := tokenAnswer(err, in)
		return res, err // out stays nil: this process keeps no entry
	}
	return out, nil
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

// famToken holds the completed ClientRequestToken entries on a shared
// store (keys.go):
//
//	't' <account> 0x00 <region> 0x00 <token> → JSON storedToken
const famToken = 't'

func tokenStoreKey(k tokenKey) []byte {
	b := make([]byte, 0, 3+len(k.ns.Account)+len(k.ns.Region)+len(k.token))
	b = append(b, famToken)
	b = append(append(b, k.ns.Account...), 0)
	b = append(append(b, k.ns.Region...), 0)
	return append(b, k.token...)
}

// storedToken is a completed entry as the store keeps it.
type storedToken struct {
	Digest  []byte                             `json:"d"`
	Expires int64                              `json:"x"` // Unix nanoseconds
	Tables  []string                           `json:"t"`
	Counts  []int                              `json:"c"`
	Metrics map[string][]ItemCollectionMetrics `json:"m,omitempty"`
}

// txToken is a ClientRequestToken's record in a shared store, checked and
// written by the token's transaction. A nil *txToken does nothing.
type txToken struct {
	key    []byte
	digest [sha256.Size]byte
	now    time.Time
	mode   *string // ReturnItemCollectionMetrics
}

// tokenReplay is check's answer when the token's transaction already ran:
// what to answer instead.
type tokenReplay struct{ entry *tokenEntry }

func (tokenReplay) Error() string { return "emulator: transaction token replayed" }

// tokenAnswer turns check's tokenReplay into the replay's output; other
// errors pass.
func tokenAnswer(err error, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	var r tokenReplay
	if errors.As(err, &r) {
		return replayOutput(r.entry, in), nil
	}
	return nil, err
}

// check reads the token's record through r: a live one with the same
// parameters is a tokenReplay, with others IdempotentParameterMismatch.
func (t *txToken) check(e *Engine, r kv.Reader) error {
	if t == nil {
		return nil
	}
	b, err := r.Get(t.key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil
	}
	if err != nil {
		return internalError(err)
	}
	var st storedToken
	if err := json.Unmarshal(b, &st); err != nil {
		return internalError(err)
	}
	if !t.now.Before(time.Unix(0, st.Expires)) {
		return nil // expired: the token is free again
	}
	if !bytes.Equal(st.Digest, t.digest[:]) {
		return NewError(CodeIdempotentParameterMismatch, msgTokenMismatch)
	}
	return tokenReplay{entry: &tokenEntry{tables: st.Tables, counts: st.Counts, metrics: st.Metrics}}
}

// stage writes the token's record for the transaction of actions into b.
func (t *txToken) stage(b kv.Batch, actions []*txAction) error {
	if t == nil {
		return nil
	}
	st := storedToken{Digest: t.digest[:], Expires: t.now.Add(tokenTTL).UnixNano(), Metrics: txMetrics(actions, t.mode)}
	for _, a := range actions {
		i := 0
		for i < len(st.Tables) && st.Tables[i] != a.tableName {
			i++
		}
		if i == len(st.Tables) {
			st.Tables = append(st.Tables, a.tableName)
			st.Counts = append(st.Counts, 0)
		}
		st.Counts[i]++
	}
	v, err := json.Marshal(&st)
	if err != nil {
		return internalError(err)
	}
	if err := b.Set(t.key, v); err != nil {
		return internalError(err)
	}
	return nil
}

// tokenSweepEvery is how often a process deletes the expired token
// records of a shared store (any process may; deleting is idempotent).
const tokenSweepEvery = time.Minute

// sweepTokens deletes the expired token records, at most once per
// tokenSweepEvery. Each record is read in the deleting transaction, so a
// record rewritten meanwhile by a new run of its token is not lost.
func (e *Engine) sweepTokens(now time.Time) {
	e.tx.mu.Lock()
	due := now.Sub(e.tx.swept) >= tokenSweepEvery
	if due {
		e.tx.swept = now
	}
	e.tx.mu.Unlock()
	if !due {
		return
	}
	err := e.opts.Store.Update(false, func(tx kv.Txn) error {
		it, err := tx.NewIter([]byte{famToken}, []byte{famToken + 1})
		if err != nil {
			return err
		}
		defer it.Close()
		for ok := it.First(); ok; ok = it.Next() {
			var st storedToken
			if json.Unmarshal(it.Value(), &st) == nil && now.Before(time.Unix(0, st.Expires)) {
				continue
			}
			if err := tx.Batch().Delete(append([]byte(nil), it.Key()...)); err != nil {
				return err
			}
		}
		return it.Error()
	})
	if err != nil {
		e.log.Warn().Err(err).Msg("sweeping expired transaction tokens")
	}
}
