package emulator

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRequestContextDeadlineWithoutDone(t *testing.T) {
	c := NewRequestContext(context.Background(), time.Millisecond)
	defer c.Release()
	if err := c.Err(); err != nil {
		t.Fatalf("Err before the deadline: %v", err)
	}
	if d, ok := c.Deadline(); !ok || time.Until(d) > time.Millisecond {
		t.Fatalf("Deadline = %v, %v", d, ok)
	}
	time.Sleep(5 * time.Millisecond)
	// Nobody asked for Done: the deadline is seen through Err alone.
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err after the deadline = %v, want DeadlineExceeded", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done is open after Err reported the deadline")
	}
}

func TestRequestContextDoneClosesAtDeadline(t *testing.T) {
	c := NewRequestContext(context.Background(), 5*time.Millisecond)
	defer c.Release()
	child, cancel := context.WithCancel(c)
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a child of the request context never saw its deadline")
	}
	if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want DeadlineExceeded", err)
	}
}

func TestRequestContextFollowsParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	c := NewRequestContext(parent, time.Hour)
	defer c.Release()
	done := c.Done()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Done stayed open after the parent was cancelled")
	}
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err = %v, want Canceled", err)
	}

	// Without Done, Err still follows the parent.
	parent2, cancel2 := context.WithCancel(context.Background())
	c2 := NewRequestContext(parent2, 0)
	defer c2.Release()
	if _, ok := c2.Deadline(); ok {
		t.Fatal("a request without a timeout has a deadline")
	}
	cancel2()
	if err := c2.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err = %v, want Canceled", err)
	}
}

func TestRequestContextReleaseAndValues(t *testing.T) {
	type key struct{}
	parent := context.WithValue(context.Background(), key{}, "v")
	c := NewRequestContext(parent, time.Hour)
	caller := &Caller{Account: "111111111111"}
	c.SetCaller(caller)
	if got := callerFrom(c); got != caller {
		t.Fatalf("callerFrom = %v, want the caller set", got)
	}
	if got, _ := c.Value(usageKey{}).(*Usage); got != c.Usage() {
		t.Fatal("the usage key does not answer the request's Usage")
	}
	if c.Value(key{}) != "v" {
		t.Fatal("a parent's value is lost")
	}
	recordUsage(c, "Orders", &capacityUse{read: true})
	recordUsage(c, "Orders", &capacityUse{read: true})
	recordUsage(c, "Other", &capacityUse{})
	if got := c.Usage().TableList(); got != "Orders,Other" {
		t.Fatalf("TableList = %q", got)
	}
	done := c.Done()
	c.Release()
	select {
	case <-done:
	default:
		t.Fatal("Release left Done open")
	}
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err after Release = %v, want Canceled", err)
	}
}
