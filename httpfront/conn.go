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
	ctx   context.Context
	state atomic.Uint64 // state<<8 | unix seconds<<... see setState

	br     *bufio.Reader
	h      head
	kc     keyCache
	req    http.Request // the template: context set once
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
// fast path had buffered before reaching the socket again.
type bufConn struct {
	net.Conn
	br *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) {
	if b.br != nil {
		if b.br.Buffered() > 0 {
			return b.br.Read(p)
		}
		b.br = nil
	}
	return b.Conn.Read(p)
}

func (c *conn) serve() {
	s := c.srv
	c.remote = c.rwc.RemoteAddr().String()
	c.br = bufio.NewReaderSize(c.rwc, readBufSize)
	c.header = make(http.Header, 16)
	c.req = *(&http.Request{}).WithContext(c.ctx)
	c.w.c = c
	handed := false
	defer func() {
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
			s.handOver(c, &bufConn{Conn: c.rwc, br: c.br})
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
	c.cur = c.req
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
	} else {
		c.body = body{br: c.br, remaining: h.contentLength}
		r.Body = &c.body
	}
	w := &c.w
	w.reset(r)
	c.srv.handlerOrDefault().ServeHTTP(w, r)
	keep := w.finish()
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
// net/http's is: io.ErrUnexpectedEOF if the client stops short.
type body struct {
	br         *bufio.Reader
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
	return n, err
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
