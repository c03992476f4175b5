package main

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

const (
	// asyncLogDelay is how long a line may wait for company before it is
	// written: short enough for someone watching the log, long enough
	// that a busy server writes its lines by the dozen.
	asyncLogDelay = 5 * time.Millisecond
	// asyncLogMax bounds the bytes waiting: the writer that reaches it
	// writes them itself (some 200 request lines in one write), so the
	// buffers stay small and reused, and a stalled stderr slows requests
	// down rather than grow the process.
	asyncLogMax = 64 << 10
)

// asyncLog takes log lines off the request path: Write copies the line,
// and a timer writes everything pending in one call at most asyncLogDelay
// later, instead of one write(2) per request line (3–6% of the server's
// CPU at info). Lines keep their order. Errors and worse are written
// before WriteLevel returns, so a crash that follows one cannot lose it;
// Close writes the rest.
type asyncLog struct {
	out io.Writer
	// perLine: out takes one event per Write (zerolog.ConsoleWriter parses
	// only the first JSON object it is given).
	perLine bool

	mu      sync.Mutex // guards pending, closed and arming timer
	pending []byte
	closed  bool
	timer   *time.Timer

	writeMu sync.Mutex // held while writing to out, so lines stay in order
	spare   []byte     // the last batch's buffer, reused; guarded by writeMu
}

func newAsyncLog(out io.Writer, perLine bool) *asyncLog {
	l := &asyncLog{out: out, perLine: perLine}
	l.timer = time.AfterFunc(time.Hour, l.flush)
	l.timer.Stop()
	return l
}

// Write queues p, one log event.
func (l *asyncLog) Write(p []byte) (int, error) {
	return l.WriteLevel(zerolog.NoLevel, p)
}

// WriteLevel queues p, or writes it (and everything before it) at once if
// it is an error or worse, or once Close has been called.
func (l *asyncLog) WriteLevel(level zerolog.Level, p []byte) (int, error) {
	l.mu.Lock()
	first := len(l.pending) == 0
	// zerolog reuses p once Write returns: copy it.
	l.pending = append(l.pending, p...)
	now := l.closed || level >= zerolog.ErrorLevel && level <= zerolog.PanicLevel || len(l.pending) >= asyncLogMax
	if first && !now {
		l.timer.Reset(asyncLogDelay)
	}
	l.mu.Unlock()
	if now {
		l.flush()
	}
	return len(p), nil
}

// flush writes everything pending, before it returns.
func (l *asyncLog) flush() {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.mu.Lock()
	b := l.pending
	l.pending = l.spare
	l.spare = nil
	l.mu.Unlock()
	if len(b) > 0 {
		l.emit(b)
	}
	if cap(b) <= 2*asyncLogMax { // a rare larger buffer is left to the GC
		l.spare = b[:0]
	}
}

// emit writes b to out, line by line when out needs it. Write errors are
// dropped: there is nowhere left to report them.
func (l *asyncLog) emit(b []byte) {
	if !l.perLine {
		_, _ = l.out.Write(b)
		return
	}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		_, _ = l.out.Write(line)
		b = b[len(line):]
	}
}

// Close writes what is pending; later lines are written directly.
func (l *asyncLog) Close() error {
	l.mu.Lock()
	l.closed = true
	l.timer.Stop()
	l.mu.Unlock()
	l.flush()
	return nil
}
