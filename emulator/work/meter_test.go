package work

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestMeterStopsOnceContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var total atomic.Uint64
	m := New(ctx, &total)
	for range 10 * checkEvery {
		if !m.Step(1) {
			t.Fatal("stopped before the context ended")
		}
	}
	if got := total.Load(); got != 10*checkEvery {
		t.Errorf("total = %d, want %d", got, 10*checkEvery)
	}
	cancel()
	steps := 0
	for m.Step(1) {
		steps++
		if steps > checkEvery {
			t.Fatalf("still going %d steps after the cancel", steps)
		}
	}
	if !errors.Is(m.Err(), context.Canceled) {
		t.Errorf("Err = %v, want context.Canceled", m.Err())
	}
	if m.Step(1) {
		t.Error("went on after stopping")
	}
}

func TestMeterCheckLooksAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, nil)
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := m.Check(); !errors.Is(err, context.Canceled) {
		t.Errorf("Check after cancel = %v, want context.Canceled", err)
	}
}

func TestNilMeterNeverStops(t *testing.T) {
	var m *Meter
	if !m.Step(1<<20) || m.Check() != nil || m.Err() != nil {
		t.Error("a nil meter stopped")
	}
	var z Meter
	if !z.Step(1<<20) || z.Check() != nil {
		t.Error("a zero meter stopped")
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	var total atomic.Uint64
	m := New(context.Background(), &total)
	if n := testing.AllocsPerRun(1000, func() { m.Step(7) }); n != 0 {
		t.Errorf("Step allocates %v times", n)
	}
}
