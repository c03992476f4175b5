package jobs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestInterval(t *testing.T) {
	for _, c := range []struct{ set, def, want time.Duration }{
		{0, time.Second, time.Second},
		{-1, time.Second, 0},
		{time.Minute, time.Second, time.Minute},
	} {
		if got := Interval(c.set, c.def); got != c.want {
			t.Errorf("Interval(%v, %v) = %v, want %v", c.set, c.def, got, c.want)
		}
	}
}

func TestWorkersRunStopRestart(t *testing.T) {
	var w Workers
	var n, off atomic.Int32
	w.Register(Periodic{Name: "a", Every: time.Millisecond, Pass: func(context.Context) { n.Add(1) }})
	w.Register(Periodic{Name: "off", Every: 0, Pass: func(context.Context) { off.Add(1) }})
	if got := w.Names(); len(got) != 2 || got[0] != "a" || got[1] != "off" {
		t.Fatalf("Names = %v", got)
	}
	if n.Load() != 0 {
		t.Fatal("a pass ran before Start")
	}
	w.Start()
	w.Start() // no second loop
	waitFor(t, func() bool { return n.Load() >= 3 })
	w.Stop()
	w.Stop()
	stopped := n.Load()
	time.Sleep(10 * time.Millisecond)
	if n.Load() != stopped {
		t.Fatal("a pass ran after Stop")
	}
	if off.Load() != 0 {
		t.Fatal("a worker with no period ran")
	}
	w.Start()
	waitFor(t, func() bool { return n.Load() > stopped })
	w.Stop()
}

func TestWorkersFirstPassAfterOnePeriod(t *testing.T) {
	var w Workers
	ran := make(chan time.Time, 1)
	start := time.Now()
	w.Register(Periodic{Name: "p", Every: 30 * time.Millisecond, Pass: func(context.Context) {
		select {
		case ran <- time.Now():
		default:
		}
	}})
	w.Start()
	defer w.Stop()
	if at := <-ran; at.Sub(start) < 30*time.Millisecond {
		t.Fatalf("first pass after %v, want a period", at.Sub(start))
	}
}

func TestWorkersMayRun(t *testing.T) {
	var lead atomic.Bool
	w := Workers{MayRun: lead.Load}
	var n atomic.Int32
	w.Register(Periodic{Name: "p", Every: time.Millisecond, Pass: func(context.Context) { n.Add(1) }})
	w.Start()
	defer w.Stop()
	time.Sleep(10 * time.Millisecond)
	if n.Load() != 0 {
		t.Fatal("a pass ran while MayRun refused")
	}
	lead.Store(true)
	waitFor(t, func() bool { return n.Load() > 0 })
}

func TestWorkersStopCancelsPass(t *testing.T) {
	var w Workers
	in := make(chan struct{}, 1)
	w.Register(Periodic{Name: "p", Every: time.Millisecond, Pass: func(ctx context.Context) {
		select {
		case in <- struct{}{}:
		default:
		}
		<-ctx.Done()
	}})
	w.Start()
	<-in
	w.Stop() // returns once the pass saw its context cancelled
}

func TestGroup(t *testing.T) {
	var g Group
	release := make(chan struct{})
	var done atomic.Int32
	g.Go(func(ctx context.Context) {
		<-ctx.Done()
		done.Add(1)
	})
	g.Go(func(context.Context) {
		<-release
		done.Add(1)
	})
	close(release)
	g.Stop()
	if done.Load() != 2 {
		t.Fatalf("%d tasks done after Stop, want 2", done.Load())
	}
	// After Stop a task sees a cancelled context, until Restart.
	g.Go(func(ctx context.Context) {
		if ctx.Err() == nil {
			t.Error("task after Stop: context not cancelled")
		}
	})
	g.Wait()
	g.Restart()
	if g.Context().Err() != nil {
		t.Fatal("context cancelled after Restart")
	}
	g.Cancel()
	if g.Context().Err() == nil {
		t.Fatal("context not cancelled after Cancel")
	}
}

func TestClaims(t *testing.T) {
	var c Claims
	if c.Running("a") {
		t.Fatal("empty claims running a")
	}
	if !c.Claim("a") || c.Claim("a") || !c.Running("a") {
		t.Fatal("claim a once")
	}
	c.Release("a")
	if c.Running("a") || !c.Claim("a") {
		t.Fatal("release a")
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
