package txn

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// TestTokenWindow: a token running answers TransactionInProgress, a
// completed one replays for TokenTTL with its tables counted, other
// parameters are a mismatch, and a failed run leaves no trace.
func TestTokenWindow(t *testing.T) {
	var s State
	ns := api.Namespace{Account: "000000000000", Region: "us-east-1"}
	k := tokenKey{ns: ns, token: "t1"}
	d1, d2 := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	now := time.Unix(1_700_000_000, 0)
	a, b := "a", "b"
	in := &api.TransactWriteItemsInput{TransactItems: []api.TransactWriteItem{
		{Put: &api.TransactPut{TableName: &a}}, {Delete: &api.TransactDelete{TableName: &b}}, {Put: &api.TransactPut{TableName: &a}},
	}}
	code := func(err error) string {
		if e, ok := err.(*api.Error); ok {
			return e.Code
		}
		return ""
	}

	if x, err := s.begin(k, d1, now); x != nil || err != nil {
		t.Fatalf("first begin: %v %v", x, err)
	}
	if !s.Running(ns, "t1") {
		t.Fatal("not running")
	}
	if _, err := s.begin(k, d1, now); code(err) != api.CodeTransactionInProgress {
		t.Fatalf("replay while running: %v", err)
	}
	s.finish(k, &api.TransactWriteItemsOutput{}, in, now)
	x, err := s.begin(k, d1, now.Add(TokenTTL-time.Second))
	if err != nil || x == nil || len(x.tables) != 2 || x.tables[0] != "a" || x.counts[0] != 2 || x.counts[1] != 1 {
		t.Fatalf("replay: %+v %v", x, err)
	}
	if _, err := s.begin(k, d2, now); code(err) != api.CodeIdempotentParameterMismatch {
		t.Fatalf("other parameters: %v", err)
	}
	if x, err := s.begin(k, d2, now.Add(TokenTTL)); x != nil || err != nil {
		t.Fatalf("after the window: %v %v", x, err)
	}
	s.finish(k, nil, in, now.Add(TokenTTL))
	if s.TokenCount() != 0 {
		t.Fatalf("a failed run kept %d tokens", s.TokenCount())
	}
}
