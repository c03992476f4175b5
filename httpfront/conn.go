package httpfront

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// readBufSize is the read buffer of a connection; a request head must fit
// in it to take the fast path (SDK heads are under 2 KB; a session token
// adds about 1 KB).
const readBufSize = 8 << 10

// keepBufSize is the largest response buffer a connection keeps between
// requests.
const keepBufSize = 64 << 10

// maxPostHandlerReadBytes is how much of a body the handler left unread
// is read and discarded to keep the connection (net/http's figure).
const maxPostHandlerReadBytes = 256 << 10

const (
	stateNew uint64 = iota
	stateActive
	stateIdle
)

// conn is one client connection on the fast path.
type conn struct {
	srv   *Server
	rwc   net.Conn
	ctx   context.Context // the connection's, made by Serve
	state atomic.Uint64   // state<<8 | unix seconds<<... see setState

	// cancelCtx cancels ctx, and so the request in flight, when a read
	// from the client fails (it left), at Close and when the connection
	// ends.
	cancelCtx context.CancelFunc
	cr        connReader
	br        *bufio.Reader // over cr

	h      head
	kc     keyCache
	req    http.Request // the zero template
	cur    http.Request // the request handed to the handler
	url    url.URL
	header http.Header
	vals   []string
	body   body
	w      response
	remote string
}

func (c *conn) setState(st uint64) {
	c.state.Store(uint64(time.Now().Unix())<<8 | st)
}

func (c *conn) getState() (uint64, int64) {
	v := c.state.Load()
	return v & 0xff, int64(v >> 8)
}

// bufConn is a connection handed to net/http: reads drain the bytes the
// fast path had buffered (and the byte a background read took after
// them) before reaching the socket again.
type bufConn struct {
	net.Conn
	br    *bufio.Reader
	b1    byte
	hasB1 bool
}

func (b *bufConn) Read(p []byte) (int, error) {
	if b.br != nil {
		if b.br.Buffered() > 0 {
			return b.br.Read(p)
		}
		b.br = nil
	}
	if b.hasB1 && len(p) > 0 {
		p[0], b.hasB1 = b.b1, false
		return 1, nil
	}
	return b.Conn.Read(p)
}

// aLongTimeAgo is a read deadline in the past, to end a pending read at
// once (net/http's).
var aLongTimeAgo = time.Unix(1, 0)

// connReader is the reader under a connection's bufio.Reader, as
// net/http's connReader is: it sees the client leave while a handler
// runs. Once the request body is consumed, a background read takes one
// byte ahead on another goroutine; an error (EOF: the client closed)
// cancels the connection's context and with it the request's; a byte (a
// pipelined request) is kept and given to the next Read. After the
// handler, abortPendingRead stops the read with a deadline in the past.
//
// Unlike net/http, the read does not begin as the body is consumed but at
// the Server's watcher's second tick after (watchTick, 10 to 20 ms): a
// goroutine (or a timer) per request wakes an idle thread every time,
// which made BenchmarkServe 45% slower (17 µs to 25 µs a request), for
// handlers that mostly end long before a client could leave.
type connReader struct {
	srv     *Server
	rwc     net.Conn
	cancel  context.CancelFunc // the connection's context
	mu      sync.Mutex         // guards the fields below
	cond    sync.Cond          // on mu: the background read ended
	hasByte bool
	byteBuf [1]byte
	want    bool // the handler runs with the body consumed; no read yet
	seen    bool // a watcher tick saw want
	spawned bool // a backgroundRead goroutine is on its way for want
	inRead  bool // a read (background or not) is in progress
	aborted bool // abortPendingRead set the past deadline
}

func (cr *connReader) init(srv *Server, rwc net.Conn, cancel context.CancelFunc) {
	cr.srv, cr.rwc, cr.cancel = srv, rwc, cancel
	cr.cond.L = &cr.mu
}

func (cr *connReader) Read(p []byte) (int, error) {
	cr.mu.Lock()
	if cr.inRead || cr.want {
		cr.mu.Unlock()
		panic("httpfront: invalid concurrent Body.Read call")
	}
	if len(p) == 0 {
		cr.mu.Unlock()
		return 0, nil
	}
	if cr.hasByte {
		p[0], cr.hasByte = cr.byteBuf[0], false
		cr.mu.Unlock()
		return 1, nil
	}
	cr.inRead = true
	cr.mu.Unlock()
	n, err := cr.rwc.Read(p)
	cr.mu.Lock()
	cr.inRead = false
	if err != nil {
		// Any read error means the connection is dead (net/http's
		// handleReadErrorLocked).
		cr.cancel()
	}
	cr.mu.Unlock()
	return n, err
}

// startBackgroundRead asks for the read ahead; the request body must be
// consumed (nothing else reads until abortPendingRead).
func (cr *connReader) startBackgroundRead() {
	cr.mu.Lock()
	if cr.inRead || cr.want {
		cr.mu.Unlock()
		panic("httpfront: invalid concurrent Body.Read call")
	}
	if cr.hasByte {
		cr.mu.Unlock()
		return
	}
	cr.want, cr.seen, cr.spawned = true, false, false
	cr.mu.Unlock()
	cr.srv.watch()
}

// tick is the watcher's look at cr: a request it saw wanting at the
// previous tick too gets its read. It reports whether one is wanting.
func (cr *connReader) tick() bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if !cr.want {
		return false
	}
	if cr.seen && !cr.spawned {
		cr.spawned = true
		go cr.backgroundRead()
	}
	cr.seen = true
	return true
}

// backgroundRead is the goroutine of a background read. One whose
// request ended first may still be on its way; any one that finds want
// set makes the read, the others just return.
func (cr *connReader) backgroundRead() {
	cr.mu.Lock()
	if !cr.want {
		cr.mu.Unlock()
		return
	}
	cr.want, cr.inRead = false, true
	// No deadline: a handler may run longer than ReadTimeout, and a
	// timeout here would cancel its context. Cleared under mu, so
	// abortPendingRead's deadline comes after.
	_ = cr.rwc.SetReadDeadline(time.Time{})
	cr.mu.Unlock()

	n, err := cr.rwc.Read(cr.byteBuf[:])
	cr.mu.Lock()
	if n == 1 {
		// A pipelined request: kept, and (as net/http since Go 1.11)
		// no cancel.
		cr.hasByte = true
	}
	// A type assertion, not errors.As: &ne would escape, an allocation
	// per read (the poller's timeout error is a net.Error itself).
	if ne, ok := err.(net.Error); ok && cr.aborted && ne.Timeout() {
		// abortPendingRead's own deadline.
	} else if err != nil {
		cr.cancel()
	}
	cr.aborted = false
	cr.inRead = false
	cr.mu.Unlock()
	cr.cond.Broadcast()
}

// abortPendingRead calls off or ends the background read, if one was
// asked for, and waits for it to end. The read deadline may be left in
// the past: the caller sets the next one before it reads.
func (cr *connReader) abortPendingRead() {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.want {
		cr.want = false
		return
	}
	if !cr.inRead {
		return
	}
	cr.aborted = true
	_ = cr.rwc.SetReadDeadline(aLongTimeAgo)
	for cr.inRead {
		cr.cond.Wait()
	}
}

func (c *conn) serve() {
	s := c.srv
	c.remote = c.rwc.RemoteAddr().String()
	c.cr.init(c.srv, c.rwc, c.cancelCtx)
	c.br = bufio.NewReaderSize(&c.cr, readBufSize)
	c.header = make(http.Header, 16)
	c.w.c = c
	handed := false
	defer func() {
		// Also unregisters ctx from BaseContext's, on every path.
		c.cancelCtx()
		if handed {
			return
		}
		if err := recover(); err != nil && err != http.ErrAbortHandler {
			buf := make([]byte, 64<<10)
			buf = buf[:runtime.Stack(buf, false)]
			s.logf("http: panic serving %v: %v\n%s", c.remote, err, buf)
		}
		_ = c.rwc.Close()
		s.untrack(c)
	}()
	first := true
	for {
		if !first {
			// Idle between requests, as net/http: the idle timeout to
			// the first bytes of the next one.
			c.setState(stateIdle)
			if d := s.idleTimeout(); d > 0 {
				_ = c.rwc.SetReadDeadline(time.Now().Add(d))
			} else {
				_ = c.rwc.SetReadDeadline(time.Time{})
			}
			// Four bytes, as net/http waits for: fewer then EOF closes
			// without an answer.
			peek, err := c.br.Peek(4)
			if err != nil {
				return
			}
			// After a POST net/http drops up to four CR or LF bytes a
			// buggy client may send after the body (RFC 7230 section 3);
			// every request here is a POST.
			n := 0
			for n < len(peek) && (peek[n] == '\r' || peek[n] == '\n') {
				n++
			}
			_, _ = c.br.Discard(n)
			if !s.doKeepAlives() {
				// Shutdown began while idle; net/http would close here too.
				return
			}
		}
		t0 := time.Now()
		var hdrDeadline, wholeDeadline time.Time
		if d := s.readHeaderTimeout(); d > 0 {
			hdrDeadline = t0.Add(d)
		}
		if d := s.ReadTimeout; d > 0 {
			wholeDeadline = t0.Add(d)
		}
		// Deadlines are set only before reads that need them: a request
		// already whole in the buffer (the usual case) reads nothing more,
		// and each SetReadDeadline resets a runtime timer.
		deadlineSet := first
		if first {
			_ = c.rwc.SetReadDeadline(hdrDeadline)
			// A connection is new until its first byte, as in net/http:
			// Shutdown closes one silent for 5 s rather than wait for it.
			if _, err := c.br.Peek(1); err != nil {
				return
			}
			first = false
		}
		c.setState(stateActive)
		fast, closeNow := c.readHead(hdrDeadline, deadlineSet)
		if closeNow {
			return
		}
		if !fast {
			handed = true
			// No background read is pending between requests; a byte
			// one took is the next after br's.
			s.handOver(c, &bufConn{Conn: c.rwc, br: c.br, b1: c.cr.byteBuf[0], hasB1: c.cr.hasByte})
			return
		}
		if int64(c.br.Buffered()) < c.h.contentLength {
			_ = c.rwc.SetReadDeadline(wholeDeadline)
		}
		if !c.serveOne() {
			if c.w.closeWrite {
				// As net/http: let the client read the answer before a
				// reset could drop it.
				if cw, ok := c.rwc.(interface{ CloseWrite() error }); ok {
					_ = cw.CloseWrite()
				}
				time.Sleep(500 * time.Millisecond)
			}
			return
		}
	}
}

// readHead buffers a whole request head and parses it. fast says the
// request is for the fast path; closeNow that the connection ended (or
// timed out) before a request began, which net/http closes silently.
func (c *conn) readHead(deadline time.Time, deadlineSet bool) (fast, closeNow bool) {
	searched := 0
	for {
		b, _ := c.br.Peek(c.br.Buffered())
		// Anything but the fast request line goes to net/http at once.
		if n := min(len(b), len(fastLine)); string(b[:n]) != fastLine[:n] {
			return false, false
		}
		if end := findHeadEnd(b[max(0, searched-2):]); end >= 0 {
			end += max(0, searched-2)
			if !parseHead(b[:end], &c.h, &c.kc) {
				return false, false
			}
			_, _ = c.br.Discard(end)
			return true, false
		}
		searched = len(b)
		if len(b) == readBufSize {
			return false, false // a head this large is net/http's
		}
		if !deadlineSet {
			_ = c.rwc.SetReadDeadline(deadline)
			deadlineSet = true
		}
		if _, err := c.br.Peek(len(b) + 1); err != nil {
			if c.br.Buffered() == 0 {
				return false, true
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return false, true
			}
			// A partial head then EOF: net/http answers it.
			return false, false
		}
	}
}

// serveOne runs the handler on the parsed request and writes its answer;
// it reports whether the connection stays open.
func (c *conn) serveOne() bool {
	h := &c.h
	clear(c.header)
	c.vals = c.vals[:0]
	c.vals = append(c.vals, h.vals[:h.n]...)
	for i := 0; i < h.n; i++ {
		k := h.keys[i]
		if old, ok := c.header[k]; ok {
			c.header[k] = append(old, c.vals[i])
		} else {
			c.header[k] = c.vals[i : i+1 : i+1]
		}
	}
	c.url = url.URL{Path: "/"}
	// The request's own context, cancelled when the handler returns (or
	// panics), or before if the connection's is (the client left).
	// WithContext is inlined: its copy of c.req stays on the stack.
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	c.cur = *c.req.WithContext(ctx)
	r := &c.cur
	r.Method = http.MethodPost
	r.URL = &c.url
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.Header = c.header
	r.ContentLength = h.contentLength
	r.Close = h.close
	r.Host = h.host
	r.RemoteAddr = c.remote
	r.RequestURI = "/"
	if h.contentLength == 0 {
		r.Body = http.NoBody
		c.body = body{}
		// Nothing left to read of this request: the client may be
		// watched from now on.
		c.cr.startBackgroundRead()
	} else {
		// The body starts the background read when it is consumed.
		c.body = body{br: c.br, cr: &c.cr, remaining: h.contentLength}
		r.Body = &c.body
	}
	w := &c.w
	w.reset(r)
	c.srv.handlerOrDefault().ServeHTTP(w, r)
	cancel()
	keep := w.finish()
	c.cr.abortPendingRead()
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll() // its temporary files, as net/http
	}
	return keep
}

func (s *Server) handlerOrDefault() http.Handler {
	if s.Handler == nil {
		return http.DefaultServeMux
	}
	return s.Handler
}

// body is a request body read straight from the connection's buffer, as
// net/http's is: io.ErrUnexpectedEOF if the client stops short. Reaching
// its end (or an error) starts cr's background read, as net/http's
// onHitEOF does.
type body struct {
	br         *bufio.Reader
	cr         *connReader
	remaining  int64
	sawEOF     bool
	closed     bool
	earlyClose bool
}

func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.read(p)
}

func (b *body) read(p []byte) (int, error) {
	if b.sawEOF {
		return 0, io.EOF
	}
	if b.remaining <= 0 {
		b.sawEOF = true
		return 0, io.EOF
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.br.Read(p)
	b.remaining -= int64(n)
	if err == io.EOF {
		b.sawEOF = true
		if b.remaining > 0 {
			err = io.ErrUnexpectedEOF
		}
	}
	if err == nil && b.remaining == 0 {
		b.sawEOF = true
		err = io.EOF
	}
	if b.sawEOF {
		b.hitEOF()
	}
	return n, err
}

func (b *body) hitEOF() {
	if b.cr != nil {
		b.cr.startBackgroundRead()
	}
}

func (b *body) Close() error {
	if b.closed {
		return nil
	}
	var err error
	if !b.sawEOF {
		if b.remaining > maxPostHandlerReadBytes {
			// Too much to read: the connection is closed after the
			// answer instead.
			b.earlyClose = true
		} else {
			err = discardBody(b)
		}
	}
	b.closed = true
	return err
}

// Date values as net/http writes them, made once a second.
var dateCache atomic.Pointer[dateVal]

type dateVal struct {
	sec int64
	b   []byte
}

func appendDate(b []byte) []byte {
	now := time.Now()
	d := dateCache.Load()
	if d == nil || d.sec != now.Unix() {
		d = &dateVal{sec: now.Unix(), b: now.UTC().AppendFormat(nil, http.TimeFormat)}
		dateCache.Store(d)
	}
	return append(b, d.b...)
}
