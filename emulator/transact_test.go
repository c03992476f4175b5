package emulator

import (
	"context"
	"errors"
	"fmt"
	randv2 "math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/pebblestore"
)

func txS(s string) av.Value { return av.Value{Type: av.TypeS, S: s} }
func txN(s string) av.Value { return av.Value{Type: av.TypeN, S: s} }

func acctKey(i int) av.Item { return av.Item{"pk": txS(fmt.Sprintf("a%03d", i))} }

// transfer moves amt from account from to each account of to, as one
// transaction that also counts the move on every account it touches.
func transfer(table string, from int, to []int, amt int) *api.TransactWriteItemsInput {
	vals := map[string]av.Value{":a": txN(strconv.Itoa(amt * len(to))), ":one": txN("1")}
	in := &api.TransactWriteItemsInput{TransactItems: []api.TransactWriteItem{{Update: &api.TransactUpdate{
		TableName: sp(table), Key: acctKey(from), UpdateExpression: sp("SET bal = bal - :a, n = n + :one"),
		ConditionExpression: sp("bal >= :a"), ExpressionAttributeValues: vals,
	}}}}
	for _, t := range to {
		in.TransactItems = append(in.TransactItems, api.TransactWriteItem{Update: &api.TransactUpdate{
			TableName: sp(table), Key: acctKey(t), UpdateExpression: sp("SET bal = bal + :a, n = n + :one"),
			ExpressionAttributeValues: map[string]av.Value{":a": txN(strconv.Itoa(amt)), ":one": txN("1")},
		}})
	}
	return in
}

func seedAccounts(t *testing.T, e *Engine, n, bal int) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.CreateTable(ctx, nsA, simpleTable("bank")); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		it := acctKey(i)
		it["bal"], it["n"] = txN(strconv.Itoa(bal)), txN("0")
		if _, err := e.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bank"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// bankState reads every account: the sum of balances and of move counts.
func bankState(t *testing.T, e *Engine, n int) (sum, moves int) {
	t.Helper()
	for i := range n {
		out, err := e.GetItem(context.Background(), nsA, &api.GetItemInput{TableName: sp("bank"), Key: acctKey(i), ConsistentRead: bl(true)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := strconv.Atoi(out.Item["bal"].S)
		m, _ := strconv.Atoi(out.Item["n"].S)
		if b < 0 {
			t.Errorf("account %d at %d", i, b)
		}
		sum += b
		moves += m
	}
	return sum, moves
}

// TestTransactCrashAtomicity crashes the store while transactions commit,
// keeping a random share of what was not synced, and reopens it: every
// transaction is there whole or not at all. A transfer from one account to
// k others adds k+1 to the accounts' move counts in total, so a torn one
// would break either the sum of balances or the moves' divisibility... and
// the sum alone catches any debit without its credits.
func TestTransactCrashAtomicity(t *testing.T) {
	const accounts, bal = 20, 1000
	for seed := range int64(6) {
		fs := vfs.NewCrashableMem()
		st, err := pebblestore.Open(pebblestore.Options{FS: fs, Dir: "db"})
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Options{Store: st, Sync: seed%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		seedAccounts(t, e, accounts, bal)
		// Make the table and the seed durable: the crash is about the
		// transactions that follow.
		b := st.NewBatch()
		if err := b.Set([]byte("\xfftest-sync"), nil); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(true); err != nil {
			t.Fatal(err)
		}

		var stop atomic.Bool
		var committed atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := randv2.New(randv2.NewPCG(uint64(seed), uint64(w)))
				for !stop.Load() {
					from := r.IntN(accounts)
					// Three receivers: each transaction writes four items.
					to := make([]int, 0, 3)
					for len(to) < 3 {
						x := r.IntN(accounts)
						if x != from && !contains(to, x) {
							to = append(to, x)
						}
					}
					_, err := e.TransactWriteItems(context.Background(), nsA, transfer("bank", from, to, 1+r.IntN(5)))
					var de *api.Error
					if err != nil && !(errors.As(err, &de) && de.Code == api.CodeTransactionCanceled) {
						if !stop.Load() {
							t.Errorf("transfer: %v", err)
						}
						return
					}
					if err == nil {
						committed.Add(1)
					}
				}
			}()
		}
		// Let some transactions commit, then crash in the middle of others.
		for committed.Load() < 50+seed*20 {
			time.Sleep(time.Millisecond)
		}
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: int(seed * 20), RNG: randv2.New(randv2.NewPCG(uint64(seed), 1))})
		stop.Store(true)
		wg.Wait()
		_ = e.Close()
		_ = st.Close()

		st2, err := pebblestore.Open(pebblestore.Options{FS: crashed, Dir: "db"})
		if err != nil {
			t.Fatalf("seed %d: reopen: %v", seed, err)
		}
		e2, err := New(Options{Store: st2})
		if err != nil {
			t.Fatal(err)
		}
		sum, moves := bankState(t, e2, accounts)
		if sum != accounts*bal || moves%4 != 0 {
			t.Errorf("seed %d: after the crash the balances sum to %d (want %d) and the moves to %d (want a multiple of 4): a transaction was torn", seed, sum, accounts*bal, moves)
		}
		t.Logf("seed %d: %d transactions committed before the crash, %d survived", seed, committed.Load(), moves/4)
		_ = e2.Close()
		_ = st2.Close()
	}
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestTransactNoDeadlock: transactions lock overlapping items given in
// opposite orders, with a wait long enough never to give up: they all
// finish (a deadlock would hang the test) and nothing is lost.
func TestTransactNoDeadlock(t *testing.T) {
	te := newTestEngine(t)
	e := te.Engine
	e.tx.Wait = time.Minute
	const accounts = 6
	seedAccounts(t, e, accounts, 1000)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Few enough to stay within the items' partition throughput.
			for i := range 30 {
				to := []int{1, 2, 3, 4, 5}
				from := 0
				if (w+i)%2 == 1 {
					from, to = 5, []int{4, 3, 2, 1, 0}
				}
				if _, err := e.TransactWriteItems(context.Background(), nsA, transfer("bank", from, to, 1)); err != nil {
					var de *api.Error
					if !errors.As(err, &de) || de.Code != api.CodeTransactionCanceled || de.CancellationReasons[0].Code != ReasonConditionalCheckFailed {
						t.Errorf("transfer: %v", err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if sum, moves := bankState(t, e, accounts); sum != accounts*1000 || moves%6 != 0 {
		t.Errorf("sum %d, moves %d", sum, moves)
	}
}

// TestTransactTokenExpiry: a token is remembered for ten minutes after its
// transaction completed, then it names a new transaction.
func TestTransactTokenExpiry(t *testing.T) {
	te := newTestEngine(t)
	e := te.Engine
	seedAccounts(t, e, 2, 100)
	in := transfer("bank", 0, []int{1}, 1)
	in.ClientRequestToken = sp("tok")
	run := func() {
		t.Helper()
		if _, err := e.TransactWriteItems(context.Background(), nsA, in); err != nil {
			t.Fatal(err)
		}
	}
	run()
	te.clock.Add(tokenTTL - time.Second)
	run() // a replay
	if _, moves := bankState(t, e, 2); moves != 2 {
		t.Fatalf("moves %d after a replay, want 2", moves)
	}
	// Other Regions and accounts have their own tokens.
	if _, err := e.CreateTable(context.Background(), nsB, simpleTable("bank")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.TransactWriteItems(context.Background(), nsB, &api.TransactWriteItemsInput{ClientRequestToken: sp("tok"), TransactItems: in.TransactItems}); err == nil {
		t.Fatal("the token was shared with another Region: its replay found no items to fail on")
	}
	te.clock.Add(time.Second)
	run() // expired: runs again
	if _, moves := bankState(t, e, 2); moves != 4 {
		t.Fatalf("moves %d after expiry, want 4", moves)
	}
	n := e.tx.TokenCount()
	if n != 1 {
		t.Errorf("%d tokens remembered, want 1 (expired ones are dropped)", n)
	}
}

// TestTransactLockOrder: many lockers take overlapping sets of stripes
// given in random orders, yielding while they hold them, with a wait long
// enough that giving up can only mean a deadlock.
func TestTransactLockOrder(t *testing.T) {
	te := newTestEngine(t)
	e := te.Engine
	e.tx.Wait = 5 * time.Second
	keys := make([][]byte, 6)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("item-%d", i))
	}
	var wg sync.WaitGroup
	var failed atomic.Bool
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := randv2.New(randv2.NewPCG(uint64(w), 3))
			for range 2000 {
				set := slices.Clone(keys)
				r.Shuffle(len(set), func(i, j int) { set[i], set[j] = set[j], set[i] })
				held, _, ok := e.lockTimed(set[:2+r.IntN(4)])
				if !ok {
					failed.Store(true)
					return
				}
				runtime.Gosched()
				e.items.locks.Unlock(held)
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		t.Fatal("a locker waited 5 s for a stripe: lock order is not fixed")
	}
}
