package emulator

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
)

// stripeMates returns two distinct hash keys of table whose items share a
// lock stripe.
func stripeMates(t *testing.T, e *Engine, table string) (a, b av.Item) {
	tm, err := e.dataTable(testNS, table)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint16]string{}
	for i := 0; ; i++ {
		pk := strconv.Itoa(i)
		s := keyspace.StripeOf(itemKey(tm, av.Item{"pk": avS(pk)}))
		if o, ok := seen[s]; ok {
			return av.Item{"pk": avS(o)}, av.Item{"pk": avS(pk)}
		}
		seen[s] = pk
	}
}

// TestConflictsArePerItem: a transaction holding an item must not make a
// write or a transaction on another item that merely shares its lock
// stripe fail with a conflict; they wait. The same item still conflicts.
func TestConflictsArePerItem(t *testing.T) {
	e, _ := itemEngine(t)
	if _, err := e.CreateTable(context.Background(), testNS, simpleTable("peritem")); err != nil {
		t.Fatal(err)
	}
	SetTxLockWait(e, 2*time.Millisecond)
	a, b := stripeMates(t, e, "peritem")
	release := HoldItemInTx(e, testNS, "peritem", a)
	// Held well past the lock wait, then released.
	go func() { time.Sleep(50 * time.Millisecond); release() }()

	done := make(chan error, 2)
	go func() {
		_, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: sp("peritem"), Item: b})
		done <- err
	}()
	go func() {
		_, err := e.TransactWriteItems(context.Background(), testNS, &api.TransactWriteItemsInput{TransactItems: []api.TransactWriteItem{
			{Put: &api.TransactPut{TableName: sp("peritem"), Item: av.Item{"pk": b["pk"], "v": avS("tx")}}}}})
		done <- err
	}()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("write to another item of the stripe: %v", err)
		}
	}

	// The same item: still a conflict.
	release = HoldItemInTx(e, testNS, "peritem", a)
	defer release()
	_, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: sp("peritem"), Item: a})
	if de, ok := err.(*api.Error); !ok || de.Code != api.CodeTransactionConflict {
		t.Fatalf("write to the held item: %v, want TransactionConflictException", err)
	}
}
