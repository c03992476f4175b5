package txn

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/kv"
)

// FamToken holds the completed ClientRequestToken entries on a shared
// store (emulator/internal/keyspace's keys.go lists the families):
//
//	't' <account> 0x00 <region> 0x00 <token> → JSON storedToken
const FamToken = 't'

func tokenStoreKey(k tokenKey) []byte {
	b := make([]byte, 0, 3+len(k.ns.Account)+len(k.ns.Region)+len(k.token))
	b = append(b, FamToken)
	b = append(append(b, k.ns.Account...), 0)
	b = append(append(b, k.ns.Region...), 0)
	return append(b, k.token...)
}

// storedToken is a completed entry as the store keeps it.
type storedToken struct {
	Digest  []byte                                 `json:"d"`
	Expires int64                                  `json:"x"` // Unix nanoseconds
	Tables  []string                               `json:"t"`
	Counts  []int                                  `json:"c"`
	Metrics map[string][]api.ItemCollectionMetrics `json:"m,omitempty"`
}

// Token is a ClientRequestToken's record in a shared store, checked and
// written by the token's transaction. A nil *Token does nothing.
type Token struct {
	c      Core
	key    []byte
	digest [sha256.Size]byte
	now    time.Time
	// items are the transaction's actions, whose tables the record counts.
	items []api.TransactWriteItem
	// Mode is the request's ReturnItemCollectionMetrics, whose metrics
	// the record keeps for replays.
	Mode *string
}

// tokenReplay is Check's answer when the token's transaction already ran:
// what to answer instead.
type tokenReplay struct{ entry *tokenEntry }

func (tokenReplay) Error() string { return "emulator: transaction token replayed" }

// IsReplay reports whether err is Check's answer that the token's
// transaction already ran (Idempotent answers it as a replay).
func IsReplay(err error) bool {
	var r tokenReplay
	return errors.As(err, &r)
}

// tokenAnswer turns Check's tokenReplay into the replay's output; other
// errors pass.
func tokenAnswer(err error, in *api.TransactWriteItemsInput) (*api.TransactWriteItemsOutput, error) {
	var r tokenReplay
	if errors.As(err, &r) {
		return replayOutput(r.entry, in), nil
	}
	return nil, err
}

// Check reads the token's record through r: a live one with the same
// parameters is a replay (IsReplay), with others
// IdempotentParameterMismatch.
func (t *Token) Check(r kv.Reader) error {
	if t == nil {
		return nil
	}
	b, err := r.Get(t.key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil
	}
	if err != nil {
		return t.c.InternalError(err)
	}
	var st storedToken
	if err := json.Unmarshal(b, &st); err != nil {
		return t.c.InternalError(err)
	}
	if !t.now.Before(time.Unix(0, st.Expires)) {
		return nil // expired: the token is free again
	}
	if !bytes.Equal(st.Digest, t.digest[:]) {
		return api.NewError(api.CodeIdempotentParameterMismatch, msgTokenMismatch)
	}
	return tokenReplay{entry: &tokenEntry{tables: st.Tables, counts: st.Counts, metrics: st.Metrics}}
}

// Stage writes the token's record for its transaction, with the
// transaction's item collection metrics, into b.
func (t *Token) Stage(b kv.Batch, metrics map[string][]api.ItemCollectionMetrics) error {
	if t == nil {
		return nil
	}
	st := storedToken{Digest: t.digest[:], Expires: t.now.Add(TokenTTL).UnixNano(), Metrics: metrics}
	st.Tables, st.Counts = tableCounts(t.items)
	v, err := json.Marshal(&st)
	if err != nil {
		return t.c.InternalError(err)
	}
	if err := b.Set(t.key, v); err != nil {
		return t.c.InternalError(err)
	}
	return nil
}

// tokenSweepEvery is how often a process deletes the expired token
// records of a shared store (any process may; deleting is idempotent).
const tokenSweepEvery = time.Minute

// sweepTokens deletes the expired token records, at most once per
// tokenSweepEvery. Each record is read in the deleting transaction, so a
// record rewritten meanwhile by a new run of its token is not lost.
func (s *State) sweepTokens(c Core, now time.Time) {
	s.mu.Lock()
	due := now.Sub(s.swept) >= tokenSweepEvery
	if due {
		s.swept = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	err := c.Store().Update(false, func(tx kv.Txn) error {
		it, err := tx.NewIter([]byte{FamToken}, []byte{FamToken + 1})
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
		log := c.Log()
		log.Warn().Err(err).Msg("sweeping expired transaction tokens")
	}
}
