package httpfront

import (
	"context"
	"errors"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server serves Handler on the listeners given to Serve: plain POSTs on
// its own fast path, everything else through an http.Server with the same
// settings. Its fields mean what http.Server's do; set them before Serve.
type Server struct {
	Handler           http.Handler // nil: http.DefaultServeMux
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	BaseContext       func(net.Listener) context.Context
	ErrorLog          *log.Logger

	inShutdown atomic.Bool
	mu         sync.Mutex
	listeners  map[*net.Listener]struct{}
	conns      map[*conn]struct{}
	std        *http.Server // the fallback, made by the first Serve
	handed     *chanListener
	watching   atomic.Bool // the watcher goroutine runs
}

// Serve accepts connections on ln and serves them until Shutdown or Close,
// then returns http.ErrServerClosed; any other error from Accept that is
// not temporary ends it too.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.inShutdown.Load() {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	if s.listeners == nil {
		s.listeners = make(map[*net.Listener]struct{})
		s.conns = make(map[*conn]struct{})
	}
	s.listeners[&ln] = struct{}{}
	if s.std == nil {
		s.startStd(ln)
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, &ln)
		s.mu.Unlock()
	}()

	base := context.Background()
	if s.BaseContext != nil {
		if base = s.BaseContext(ln); base == nil {
			panic("BaseContext returned a nil context")
		}
	}
	base = context.WithValue(base, http.ServerContextKey, s.std)
	var delay time.Duration
	for {
		rw, err := ln.Accept()
		if err != nil {
			if s.inShutdown.Load() {
				return http.ErrServerClosed
			}
			var ne net.Error
			//lint:ignore SA1019 net/http's accept loop retries exactly these
			if errors.As(err, &ne) && ne.Temporary() {
				if delay == 0 {
					delay = 5 * time.Millisecond
				} else if delay *= 2; delay > time.Second {
					delay = time.Second
				}
				s.logf("http: Accept error: %v; retrying in %v", err, delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		// The connection's context, as net/http's: a read error
		// cancels it (connReader), and Close; each request's derives
		// from it, so requests register with it, not with BaseContext's.
		ctx, cancel := context.WithCancel(context.WithValue(base, http.LocalAddrContextKey, rw.LocalAddr()))
		c := &conn{srv: s, rwc: rw, ctx: ctx, cancelCtx: cancel}
		c.setState(stateNew)
		if !s.track(c) {
			cancel()
			_ = rw.Close()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

// watchTick is the watcher's period: a handler still running one to two
// ticks after its body was read has its client watched (connReader).
const watchTick = 10 * time.Millisecond

// watchQuietTicks is how many ticks with no handler running the watcher
// waits before it stops (the next request starts it again).
const watchQuietTicks = 100

// watch makes sure the watcher runs; a request calls it after it set
// its want, so either it sees the watcher stopping and starts another,
// or the stopping watcher's last look sees that want.
func (s *Server) watch() {
	if !s.watching.Load() && s.watching.CompareAndSwap(false, true) {
		go s.watcher()
	}
}

func (s *Server) watcher() {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	quiet := 0
	for range t.C {
		if s.watchConns() {
			quiet = 0
			continue
		}
		if quiet++; quiet < watchQuietTicks && !s.inShutdown.Load() {
			continue
		}
		s.watching.Store(false)
		if !s.watchConns() || !s.watching.CompareAndSwap(false, true) {
			return
		}
		quiet = 0
	}
}

// watchConns ticks every connection and reports whether a handler on one
// has its body read and its client not yet watched.
func (s *Server) watchConns() bool {
	wanting := false
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.cr.tick() {
			wanting = true
		}
	}
	return wanting
}

// startStd makes the fallback http.Server and serves it the connections
// handed over. s.mu is held.
func (s *Server) startStd(ln net.Listener) {
	s.std = &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: s.ReadHeaderTimeout,
		ReadTimeout:       s.ReadTimeout,
		IdleTimeout:       s.IdleTimeout,
		ErrorLog:          s.ErrorLog,
		BaseContext:       s.BaseContext,
	}
	if s.BaseContext != nil {
		// BaseContext is given the real listener, as it would be.
		s.std.BaseContext = func(net.Listener) context.Context { return s.BaseContext(ln) }
	}
	s.handed = newChanListener(ln.Addr())
	std, handed := s.std, s.handed
	go func() { _ = std.Serve(handed) }()
}

// handOver gives c's connection, with the bytes already buffered in front,
// to net/http. c is no longer tracked here.
func (s *Server) handOver(c *conn, nc net.Conn) {
	s.untrack(c)
	if !s.handed.give(nc) {
		_ = nc.Close()
	}
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inShutdown.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *Server) doKeepAlives() bool { return !s.inShutdown.Load() }

func (s *Server) readHeaderTimeout() time.Duration {
	if s.ReadHeaderTimeout != 0 {
		return s.ReadHeaderTimeout
	}
	return s.ReadTimeout
}

func (s *Server) idleTimeout() time.Duration {
	if s.IdleTimeout != 0 {
		return s.IdleTimeout
	}
	return s.ReadTimeout
}

func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

// Shutdown stops accepting, closes idle connections and waits for the
// requests in flight to finish (on both paths), as http.Server.Shutdown
// does; ctx bounds the wait.
func (s *Server) Shutdown(ctx context.Context) error {
	s.inShutdown.Store(true)
	s.mu.Lock()
	lnerr := s.closeListenersLocked()
	std := s.std
	s.mu.Unlock()

	stdErr := make(chan error, 1)
	if std != nil {
		go func() { stdErr <- std.Shutdown(ctx) }()
	} else {
		stdErr <- nil
	}
	base := time.Millisecond
	timer := time.NewTimer(base)
	defer timer.Stop()
	for !s.closeIdleConns() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			// net/http's poll: doubling, 10% jitter, at most 500 ms.
			if base *= 2; base > 500*time.Millisecond {
				base = 500 * time.Millisecond
			}
			timer.Reset(base + rand.N(base/10+1))
		}
	}
	if err := <-stdErr; err != nil {
		return err
	}
	return lnerr
}

// Close closes the listeners and every connection at once, as
// http.Server.Close does.
func (s *Server) Close() error {
	s.inShutdown.Store(true)
	s.mu.Lock()
	err := s.closeListenersLocked()
	for c := range s.conns {
		// The handler in flight stops, as net/http's does when its
		// background read fails on the closed connection (here it may
		// not have begun: connReader).
		c.cancelCtx()
		_ = c.rwc.Close()
		delete(s.conns, c)
	}
	std := s.std
	s.mu.Unlock()
	if std != nil {
		if e := std.Close(); err == nil {
			err = e
		}
	}
	return err
}

func (s *Server) closeListenersLocked() error {
	var err error
	for ln := range s.listeners {
		if e := (*ln).Close(); e != nil && err == nil {
			err = e
		}
	}
	if s.handed != nil {
		s.handed.Close()
	}
	return err
}

// closeIdleConns closes the idle connections and reports whether none is
// left (net/http's rule: a new connection silent for 5 s counts as idle).
func (s *Server) closeIdleConns() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	quiet := true
	now := time.Now().Unix()
	for c := range s.conns {
		st, since := c.getState()
		if st == stateNew && since < now-5 {
			st = stateIdle
		}
		if st != stateIdle {
			quiet = false
			continue
		}
		_ = c.rwc.Close()
		delete(s.conns, c)
	}
	return quiet
}

// chanListener is the net.Listener the fallback http.Server accepts the
// handed-over connections from.
type chanListener struct {
	addr   net.Addr
	ch     chan net.Conn
	done   chan struct{}
	closed sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *chanListener) give(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.closed.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }
