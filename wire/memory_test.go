package wire

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBodyBudgetBoundsLargeBodies: past the budget a large body waits for
// bytes to come back, or stops with its client.
func TestBodyBudgetBoundsLargeBodies(t *testing.T) {
	b := newBodyBudget(10)
	ctx := context.Background()
	if err := b.acquire(ctx, 6); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- b.acquire(ctx, 6) }()
	select {
	case err := <-got:
		t.Fatalf("acquired past the budget: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.release(6)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- b.acquire(cctx, 6) }()
	cancel()
	if err := <-got; err != context.Canceled {
		t.Fatalf("a waiter whose client left: %v, want context.Canceled", err)
	}
	for n, want := range map[int64]int64{-1: MaxRequestBytes, 0: 0, largeRequest - 1: 0, largeRequest: largeRequest, MaxRequestBytes + 1: 0} {
		if got := bodyReservation(n); got != want {
			t.Errorf("bodyReservation(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestLargeRequestsTrimMemory: once large requests stop for trimQuiet,
// the handler hands the memory back, once for the whole burst; small
// requests never do.
func TestLargeRequestsTrimMemory(t *testing.T) {
	h := newTestHandler(t, Options{})
	var trims atomic.Int32
	h.trim.free = func() { trims.Add(1) }
	routes := h.routes()
	for range 20 {
		do(routes, http.MethodPost, "DynamoDB_20120810.ListTables", contentTypeJSON10, `{}`)
	}
	time.Sleep(trimQuiet + 200*time.Millisecond)
	if n := trims.Load(); n != 0 {
		t.Fatalf("small requests trimmed %d times", n)
	}
	large := `{"TableName":"` + strings.Repeat("x", largeRequest) + `"}`
	for range 5 {
		do(routes, http.MethodPost, "DynamoDB_20120810.DescribeTable", contentTypeJSON10, large)
	}
	deadline := time.Now().Add(10 * time.Second)
	for trims.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no trim after a burst of large requests")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(trimQuiet + 200*time.Millisecond)
	if n := trims.Load(); n != 1 {
		t.Errorf("%d trims after one burst, want 1", n)
	}
}
