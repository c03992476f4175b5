package main

import (
	"fmt"
	"io"
	stdlog "log"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// newLogger builds the process logger, writing through out; out.flush
// writes what is pending now, out.Close too and makes later lines direct.
// level and format were validated.
func newLogger(w io.Writer, level, format string) (log zerolog.Logger, out *asyncLog) {
	perLine := false
	if format == "console" {
		// Formatted on the log goroutine, off the request path.
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339, NoColor: !isTerminal(w)}
		perLine = true
	}
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	aw := newAsyncLog(w, perLine)
	return zerolog.New(aw).Level(lvl).With().Timestamp().Logger(), aw
}

// isTerminal reports whether w is a character device, so colour codes are
// not written into files and CI logs.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newStdLogger routes net/http's own messages (TLS noise, handler panics)
// into zerolog at warn.
func newStdLogger(log zerolog.Logger) *stdlog.Logger {
	return stdlog.New(lineWriter{log}, "", 0)
}

type lineWriter struct{ log zerolog.Logger }

func (w lineWriter) Write(p []byte) (int, error) {
	w.log.Warn().Str("component", "http").Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}

// pebbleLogger adapts zerolog to pebblestore.Logger. Pebble's info messages
// (flushes, compactions) are debug detail for us.
type pebbleLogger struct{ log zerolog.Logger }

func (l pebbleLogger) Infof(format string, args ...any) {
	ev := l.log.Debug()
	if strings.HasPrefix(format, "pebblestore: ") {
		// The store's own news (disk space returned) is for the operator.
		ev = l.log.Info()
	}
	ev.Str("component", "pebble").Msg(fmt.Sprintf(format, args...))
}

func (l pebbleLogger) Errorf(format string, args ...any) {
	l.log.Error().Str("component", "pebble").Msg(fmt.Sprintf(format, args...))
}
