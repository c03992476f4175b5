package httpfront

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// patience bounds every wait in these tests; nothing is asserted about
// how long a wait took.
const patience = 10 * time.Second

// waitFor polls cond until it holds, failing the test after patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after %v", what, patience)
		}
		time.Sleep(time.Millisecond)
	}
}

// serveBoth serves h on a front Server and on a plain http.Server.
func serveBoth(t *testing.T, h http.Handler) (front *Server, std *http.Server, faddr, saddr string) {
	t.Helper()
	ln1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front, std = &Server{Handler: h}, &http.Server{Handler: h}
	go func() { _ = front.Serve(ln1) }()
	go func() { _ = std.Serve(ln2) }()
	t.Cleanup(func() { _ = front.Close(); _ = std.Close() })
	return front, std, ln1.Addr().String(), ln2.Addr().String()
}

// onlyConn is the front's one connection (the tests make one at a time).
func onlyConn(t *testing.T, s *Server) *conn {
	t.Helper()
	var c *conn
	waitFor(t, "the connection", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for c = range s.conns {
			return true
		}
		return false
	})
	return c
}

// crState reads c's background read state under its lock.
func crState(c *conn) (inRead, hasByte bool) {
	c.cr.mu.Lock()
	defer c.cr.mu.Unlock()
	return c.cr.inRead, c.cr.hasByte
}

type ctxResult struct {
	fast       bool
	err, cause error
}

// blockUntilDone is a handler that reads the body, reports that it
// started, then waits for its context to be done and reports how.
func blockUntilDone(started chan<- struct{}, res chan<- ctxResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, fast := w.(*response)
		_, _ = io.Copy(io.Discard, r.Body)
		started <- struct{}{}
		ctx := r.Context()
		<-ctx.Done()
		res <- ctxResult{fast, ctx.Err(), context.Cause(ctx)}
	})
}

// TestClientGoneCancels: a handler waiting on its context is released
// with context.Canceled when the client closes its connection, on the
// fast path (with and without a body) as net/http does (the hand-over
// path, and net/http itself).
func TestClientGoneCancels(t *testing.T) {
	started := make(chan struct{}, 1)
	res := make(chan ctxResult, 1)
	front, _, faddr, saddr := serveBoth(t, blockUntilDone(started, res))
	chunked := "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
	for _, tc := range []struct {
		name, addr, req string
		fast            bool
	}{
		{"fast", faddr, sdk(`{"TableName":"T"}`), true},
		{"fast no body", faddr, sdk(""), true},
		{"handed over", faddr, chunked, false},
		{"net/http", saddr, sdk(`{"TableName":"T"}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clientGone(t, tc.addr, tc.req, tc.fast, started, res)
		})
	}
	// The watcher stops once no handler runs, and the next request
	// starts it again: its client is still watched.
	waitFor(t, "the watcher to stop", func() bool { return !front.watching.Load() })
	clientGone(t, faddr, sdk("{}"), true, started, res)
}

func clientGone(t *testing.T, addr, req string, fast bool, started <-chan struct{}, res <-chan ctxResult) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(patience):
		t.Fatal("handler not started")
	}
	_ = c.Close()
	select {
	case r := <-res:
		if r.fast != fast {
			t.Errorf("fast path: %v, want %v", r.fast, fast)
		}
		if r.err != context.Canceled || r.cause != context.Canceled {
			t.Errorf("Err %v, Cause %v; want context.Canceled", r.err, r.cause)
		}
	case <-time.After(patience):
		t.Fatal("handler still waiting on its context after the client left")
	}
}

// TestCloseCancels: Close stops a handler in flight through its context,
// on the front as on net/http.
func TestCloseCancels(t *testing.T) {
	started := make(chan struct{}, 1)
	res := make(chan ctxResult, 1)
	front, std, faddr, saddr := serveBoth(t, blockUntilDone(started, res))
	for _, tc := range []struct {
		name  string
		addr  string
		close func() error
	}{
		{"front", faddr, front.Close},
		{"net/http", saddr, std.Close},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, _ = io.WriteString(c, sdk("{}"))
			<-started
			_ = tc.close()
			select {
			case r := <-res:
				if r.err != context.Canceled {
					t.Errorf("Err %v, want context.Canceled", r.err)
				}
			case <-time.After(patience):
				t.Fatal("handler still waiting on its context after Close")
			}
		})
	}
}

// TestContextDoneAfterHandler: a request's context is done once its
// handler returned (the next request on the connection gets a new one,
// and the old one stays done), and carries the server and local address.
func TestContextDoneAfterHandler(t *testing.T) {
	ctxs := make(chan context.Context, 2)
	_, _, faddr, saddr := serveBoth(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if err := r.Context().Err(); err != nil {
			t.Errorf("context done in the handler: %v", err)
		}
		ctxs <- r.Context()
		_, _ = io.WriteString(w, "ok")
	}))
	for _, addr := range []string{faddr, saddr} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		var first context.Context
		for i := range 2 {
			if _, err := io.WriteString(c, sdk("{}")); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			ctx := <-ctxs
			select {
			case <-ctx.Done():
			case <-time.After(patience):
				t.Fatalf("%s: context not done after the handler returned", addr)
			}
			if ctx.Err() != context.Canceled {
				t.Errorf("%s: Err %v", addr, ctx.Err())
			}
			if _, ok := ctx.Value(http.ServerContextKey).(*http.Server); !ok {
				t.Errorf("%s: ServerContextKey %v", addr, ctx.Value(http.ServerContextKey))
			}
			if a, ok := ctx.Value(http.LocalAddrContextKey).(net.Addr); !ok || a.String() != addr {
				t.Errorf("%s: LocalAddrContextKey %v", addr, ctx.Value(http.LocalAddrContextKey))
			}
			if i == 0 {
				first = ctx
			} else if ctx == first || first.Err() == nil {
				t.Errorf("%s: the second request's context is the first's, or undid it", addr)
			}
		}
	}
}

// TestPipelinedDuringBackgroundRead: requests pipelined while a handler
// runs with its client watched are all answered, as by net/http: the
// byte the background read takes is kept for the next request (on the
// fast path, and when that request is handed to net/http), and it does
// not cancel the running handler's context.
func TestPipelinedDuringBackgroundRead(t *testing.T) {
	get := `{"TableName":"T"}`
	chunked := "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
	for _, tc := range []struct {
		name         string
		first, later string // later is written while the first handler runs
	}{
		// Both in one write: the background read waits on the socket
		// and is aborted after the first handler.
		{"one write", sdk(get, "X-Wait: 1\r\n") + sdk(`{"a":1}`), ""},
		// The second arrives during the read: its first byte is kept.
		{"arrives during the read", sdk(get, "X-Wait: 1\r\n"), sdk(`{"a":1}`)},
		// The second is net/http's and buffered whole; the byte taken
		// is the third's, and goes to net/http after the second.
		{"kept byte handed over", sdk(get, "X-Wait: 1\r\n") + chunked, sdk(`{"b":2}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{}, 1) // a token per waiting handler
			started := make(chan struct{}, 1)
			checked := make(chan struct{}, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Wait") != "" {
					_, _ = io.Copy(io.Discard, r.Body)
					started <- struct{}{}
					<-release
					if err := r.Context().Err(); err != nil {
						t.Errorf("the first handler's context: %v", err)
					}
					checked <- struct{}{}
				}
				echo(w, r)
			})
			front, _, faddr, saddr := serveBoth(t, h)
			var outs [2]string
			for i, addr := range []string{faddr, saddr} {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				got := make(chan string, 1)
				go func() {
					_ = c.SetReadDeadline(time.Now().Add(patience))
					b, _ := io.ReadAll(c)
					got <- string(b)
				}()
				_, _ = io.WriteString(c, tc.first)
				// Until the handler runs, a read in progress is the
				// one for the request itself, not the background one.
				<-started
				if i == 0 {
					fc := onlyConn(t, front)
					waitFor(t, "the background read", func() bool { in, _ := crState(fc); return in })
					if tc.later != "" {
						_, _ = io.WriteString(c, tc.later)
						waitFor(t, "the read to take a byte", func() bool { _, has := crState(fc); return has })
					}
				} else if tc.later != "" {
					_, _ = io.WriteString(c, tc.later)
				}
				release <- struct{}{}
				// The client's EOF would cancel the handler's context:
				// only once it has looked.
				<-checked
				_ = c.(*net.TCPConn).CloseWrite()
				outs[i] = normalize(<-got)
			}
			if outs[0] != outs[1] {
				t.Errorf("front:\n%s\nnet/http:\n%s", outs[0], outs[1])
			}
			want := 2
			if tc.name == "kept byte handed over" {
				want = 3
			}
			if n := strings.Count(outs[0], "HTTP/1.1 200 OK\r\n"); n != want {
				t.Errorf("%d answers, want %d:\n%s", n, want, outs[0])
			}
		})
	}
}

// TestConnReaderKeepsByte: a byte the background read took is the next
// one read, and an aborted read cancels nothing.
func TestConnReaderKeepsByte(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cr connReader
	cr.init(&Server{}, a, cancel)
	for i, send := range []string{"xyz", ""} {
		cr.startBackgroundRead()
		// The first tick sees the want, the second starts the read.
		for tick := range 2 {
			if !cr.tick() {
				t.Fatalf("tick %d: no read wanted", tick)
			}
		}
		waitFor(t, "the background read", func() bool { cr.mu.Lock(); defer cr.mu.Unlock(); return cr.inRead })
		if send != "" {
			go func() { _, _ = io.WriteString(b, send) }()
			waitFor(t, "the byte", func() bool { cr.mu.Lock(); defer cr.mu.Unlock(); return cr.hasByte })
		}
		cr.abortPendingRead()
		if err := ctx.Err(); err != nil {
			t.Fatalf("round %d: context %v", i, err)
		}
		if send != "" {
			// net.Pipe has no buffer: what the read did not take is
			// still on its way.
			_ = a.SetReadDeadline(time.Time{})
			p := make([]byte, 3)
			if _, err := io.ReadFull(&cr, p); err != nil || string(p) != send {
				t.Fatalf("read %q, %v; want %q", p, err, send)
			}
		}
	}
	// A read that fails (the peer closed) cancels the context.
	cr.startBackgroundRead()
	cr.tick()
	cr.tick()
	_ = b.Close()
	waitFor(t, "the cancel", func() bool { return ctx.Err() != nil })
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("Cause %v", context.Cause(ctx))
	}
	cr.abortPendingRead()
}
