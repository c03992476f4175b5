package throttle

import (
	"testing"
	"time"
)

func TestAdminControls(t *testing.T) {
	m, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	tb, err := m.Register(now, "000000000000", "us-east-1", "T", ProvisionedThroughput(5, 5))
	if err != nil {
		t.Fatal(err)
	}
	if s := tb.State(now); s.Write.Rate != 5 || s.Write.Balance != 5 || s.Write.Ceiling != 5*300 || s.Write.Pinned {
		t.Fatalf("new table: %+v", s)
	}
	tb.Drain(now, Write)
	if _, ok := tb.Admit(now.Add(time.Millisecond), Write, "k"); ok {
		t.Error("a drained bucket admitted a write")
	}
	if _, ok := tb.Admit(now.Add(time.Millisecond), Read, "k"); !ok {
		t.Error("draining writes refused a read")
	}
	if s := tb.State(now); s.Write.Debt < 4.99 || s.Write.Balance != -s.Write.Debt {
		t.Errorf("after drain: %+v", s.Write)
	}
	tb.Reset(now)
	if _, ok := tb.Admit(now, Write, "k"); !ok {
		t.Error("a reset bucket refused a write")
	}
	if err := tb.Pin(now, Write, 100); err != nil {
		t.Fatal(err)
	}
	// A throughput change (UpdateTable) keeps the pin.
	if _, err := m.Register(now, "000000000000", "us-east-1", "T", ProvisionedThroughput(10, 10)); err != nil {
		t.Fatal(err)
	}
	if s := tb.State(now); s.Write.Rate != 100 || !s.Write.Pinned || s.Read.Rate != 10 {
		t.Errorf("pinned across an update: %+v", s)
	}
	tb.Unpin(now, Write)
	if s := tb.State(now); s.Write.Rate != 10 || s.Write.Pinned {
		t.Errorf("unpinned: %+v", s.Write)
	}
	for _, bad := range []float64{0, -1, 1e13} {
		if err := tb.Pin(now, Read, bad); err != ErrBadRate {
			t.Errorf("Pin(%v) = %v", bad, err)
		}
	}
}
