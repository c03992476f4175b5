package txn

import (
	"crypto/sha256"
	"encoding/json"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// ClientRequestToken idempotency. A token names one successful transaction
// in its namespace for TokenTTL after it completed: a replay with the same
// parameters returns the first result and writes nothing; the same token
// with other parameters is IdempotentParameterMismatchException; a replay
// while the first is still running is TransactionInProgressException. A
// failed transaction leaves no trace, so a retry (the SDKs resend the same
// token when they retry a conflict) runs again.
//
// On a store shared by several processes the completed entries live in
// the store too (Token, family FamToken), written in the transaction's
// own store transaction, so a replay to another process answers the same.
// A process that runs the token's transaction reads the record in that
// store transaction: two processes racing with one token conflict in the
// store, and the one rerun finds the other's record and answers as a
// replay. A run in progress is known only to its own process: another
// process's replay waits for it in the store instead of getting
// TransactionInProgressException (docs/differences.md).

// TokenTTL is how long a completed token answers replays.
const TokenTTL = 10 * time.Minute

const (
	msgTokenMismatch   = "Request has the same client token as a previous request with different parameters"
	msgTokenInProgress = "Transaction with the given request token is already in progress."
)

type tokenKey struct {
	ns    api.Namespace
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
	metrics map[string][]api.ItemCollectionMetrics
}

// digest fingerprints the parameters a replay must repeat: the actions
// and ReturnItemCollectionMetrics. ReturnConsumedCapacity may differ, since
// a replay reports different capacity anyway.
func digest(c Core, in *api.TransactWriteItemsInput) ([sha256.Size]byte, error) {
	b, err := json.Marshal(struct {
		I []api.TransactWriteItem
		M *string
	}{in.TransactItems, in.ReturnItemCollectionMetrics})
	if err != nil {
		return [sha256.Size]byte{}, c.InternalError(err)
	}
	return sha256.Sum256(b), nil
}

// begin registers a run of token, or returns the entry a replay answers
// from, or the error of a mismatch or a run in progress.
func (s *State) begin(k tokenKey, digest [sha256.Size]byte, now time.Time) (replay *tokenEntry, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if s.tokens == nil {
		s.tokens = map[tokenKey]*tokenEntry{}
	}
	if x := s.tokens[k]; x != nil {
		switch {
		case x.digest != digest:
			return nil, api.NewError(api.CodeIdempotentParameterMismatch, msgTokenMismatch)
		case x.running:
			return nil, api.NewError(api.CodeTransactionInProgress, msgTokenInProgress)
		}
		return x, nil
	}
	s.tokens[k] = &tokenEntry{key: k, digest: digest, running: true}
	return nil, nil
}

// tableCounts lists the tables of a validated request's actions (request
// names, in order of first appearance) with the number of actions on each.
func tableCounts(items []api.TransactWriteItem) (tables []string, counts []int) {
	for i := range items {
		_, _, p := itemParams(&items[i])
		j := 0
		for j < len(tables) && tables[j] != *p.table {
			j++
		}
		if j == len(tables) {
			tables = append(tables, *p.table)
			counts = append(counts, 0)
		}
		counts[j]++
	}
	return tables, counts
}

// finish records the outcome of the run begin registered: a success is
// kept for TokenTTL, a failure forgotten.
func (s *State) finish(k tokenKey, out *api.TransactWriteItemsOutput, in *api.TransactWriteItemsInput, now time.Time) {
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
	x.expires = now.Add(TokenTTL)
	x.metrics = out.ItemCollectionMetrics
	x.tables, x.counts = tableCounts(in.TransactItems)
	s.done = append(s.done, x)
}

// expire drops the completed entries whose window has passed.
func (s *State) expire(now time.Time) {
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

// Running reports whether a transaction with token is running in ns.
func (s *State) Running(ns api.Namespace, token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.tokens[tokenKey{ns: ns, token: token}]
	return x != nil && x.running
}

// TokenCount is how many tokens the process keeps (running or completed).
func (s *State) TokenCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tokens)
}

// Idempotent runs the validated transaction of in, which carries a
// ClientRequestToken, through run, unless the token answers a replay or
// refuses the request. run gets the token's record in a shared store (nil
// on a store of this process's own) to check and stage in the
// transaction's store transaction.
func (s *State) Idempotent(c Core, ns api.Namespace, in *api.TransactWriteItemsInput,
	run func(tok *Token) (*api.TransactWriteItemsOutput, error)) (*api.TransactWriteItemsOutput, error) {
	digest, err := digest(c, in)
	if err != nil {
		return nil, err
	}
	k := tokenKey{ns: ns, token: *in.ClientRequestToken}
	now := c.Now()
	replay, err := s.begin(k, digest, now)
	if err != nil {
		return nil, err
	}
	if replay != nil {
		return replayOutput(replay, in), nil
	}
	var out *api.TransactWriteItemsOutput
	defer func() { s.finish(k, out, in, c.Now()) }()
	var tok *Token
	if c.Shared() {
		// Another process may have run it: its record answers first,
		// without locks; the transaction checks again as it commits.
		tok = &Token{c: c, key: tokenStoreKey(k), digest: digest, now: now, items: in.TransactItems, Mode: in.ReturnItemCollectionMetrics}
		if err := tok.Check(c.Store()); err != nil {
			return tokenAnswer(err, in)
		}
		defer s.sweepTokens(c, now)
	}
	out, err = run(tok)
	if err != nil {
		res, err := tokenAnswer(err, in)
		return res, err // out stays nil: this process keeps no entry
	}
	return out, nil
}

// replayOutput is a replay's answer. Writing nothing, a replay reports the
// reads that found the transaction already applied: one strongly
// consistent read unit per action, on each table.
func replayOutput(x *tokenEntry, in *api.TransactWriteItemsInput) *api.TransactWriteItemsOutput {
	out := &api.TransactWriteItemsOutput{ItemCollectionMetrics: x.metrics}
	if m := in.ReturnConsumedCapacity; m != nil && (*m == "TOTAL" || *m == "INDEXES") {
		for i, name := range x.tables {
			u := float64(x.counts[i])
			cc := api.ConsumedCapacity{TableName: name, CapacityUnits: f64(u), ReadCapacityUnits: f64(u)}
			if *m == "INDEXES" {
				cc.Table = &api.Capacity{CapacityUnits: f64(u), ReadCapacityUnits: f64(u)}
			}
			out.ConsumedCapacity = append(out.ConsumedCapacity, cc)
		}
	}
	return out
}

func f64(v float64) *float64 { return &v }
