package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// recordingWriter records each Write; with gate set, the first Write waits
// until the gate is closed.
type recordingWriter struct {
	mu      sync.Mutex
	writes  []string
	gate    chan struct{}
	entered chan struct{}
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.gate != nil {
		g := w.gate
		w.gate = nil // only the goroutine writes here before the gate opens
		close(w.entered)
		<-g
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *recordingWriter) snapshot() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// TestAsyncLogBatchesLinesWhileWriting: lines that arrive while a write is
// in progress go out together in one Write, in order, and Close writes
// what is pending.
func TestAsyncLogBatchesLinesWhileWriting(t *testing.T) {
	gate := make(chan struct{})
	out := &recordingWriter{gate: gate, entered: make(chan struct{})}
	l := newAsyncLog(out, false)
	_, _ = l.Write([]byte("line 0\n"))
	<-out.entered // the timer is writing line 0 and stays there
	var want strings.Builder
	want.WriteString("line 0\n")
	buf := make([]byte, 0, 16)
	for i := 1; i <= 100; i++ {
		buf = fmt.Appendf(buf[:0], "line %d\n", i)
		_, _ = l.Write(buf)
		clear(buf) // zerolog reuses its buffer: the line must have been copied
		fmt.Fprintf(&want, "line %d\n", i)
	}
	close(gate)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.snapshot()
	if strings.Join(got, "") != want.String() {
		t.Fatalf("wrote %q", got)
	}
	if len(got) > 3 {
		t.Errorf("101 lines took %d writes; lines queued behind a write should share the next", len(got))
	}
}

// TestAsyncLogWritesErrorsAtOnce: an error line (and what is queued before
// it) is written before WriteLevel returns.
func TestAsyncLogWritesErrorsAtOnce(t *testing.T) {
	out := &recordingWriter{}
	l := newAsyncLog(out, false)
	defer l.Close()
	l.mu.Lock() // queued without arming the timer, which could take it first
	l.pending = append(l.pending, "info\n"...)
	l.mu.Unlock()
	_, _ = l.WriteLevel(zerolog.ErrorLevel, []byte("error\n"))
	if got := strings.Join(out.snapshot(), ""); got != "info\nerror\n" {
		t.Errorf("after an error line, out has %q", got)
	}
}

// TestAsyncLogAfterClose: a line logged after Close is written directly.
func TestAsyncLogAfterClose(t *testing.T) {
	out := &recordingWriter{}
	l := newAsyncLog(out, false)
	_ = l.Close()
	_, _ = l.Write([]byte("late\n"))
	if got := out.snapshot(); len(got) != 1 || got[0] != "late\n" {
		t.Errorf("after Close, out has %q", got)
	}
	_ = l.Close() // twice is harmless
}

// TestAsyncLogIdleLineGoesOutPromptly: an idle server's line is written
// without waiting for more lines or for Close.
func TestAsyncLogIdleLineGoesOutPromptly(t *testing.T) {
	out := &recordingWriter{}
	l := newAsyncLog(out, false)
	defer l.Close()
	_, _ = l.Write([]byte("alone\n"))
	deadline := time.Now().Add(10 * time.Second)
	for len(out.snapshot()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the line was never written")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestConsoleLoggerLinePerEvent: the console writer parses one event per
// Write, so batched events reach it one at a time and all show.
func TestConsoleLoggerLinePerEvent(t *testing.T) {
	var out bytes.Buffer
	log, logOut := newLogger(&out, "info", "console")
	for i := range 50 {
		log.Info().Int("n", i).Msg("request")
	}
	_ = logOut.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 50 || !strings.Contains(lines[49], "n=49") {
		t.Errorf("console output has %d lines: %q", len(lines), out.String())
	}
}

// BenchmarkRequestLogLine is one request line through the serve logger
// into a discarding writer (JSON and console), as a request pays for it.
func BenchmarkRequestLogLine(b *testing.B) {
	for _, format := range []string{"json", "console"} {
		b.Run(format, func(b *testing.B) {
			log, logOut := newLogger(io.Discard, "info", format)
			defer logOut.Close()
			b.ReportAllocs()
			for b.Loop() {
				log.Info().Str("op", "GetItem").Str("table", "loadgen").Int("status", 200).Float64("rcu", 0.5).
					Float64("ms", 0.41).Str("account", "000000000000").Str("region", "us-east-1").
					Str("requestId", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEF").Msg("request")
			}
		})
	}
}
