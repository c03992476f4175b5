package httpfront

import (
	"fmt"
	"io"
	"net/http"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// response is the http.ResponseWriter of the fast path. The body is
// buffered whole; finish writes the status line, headers and body in one
// write, by net/http's rules (chunkWriter.writeHeader) for what to add.
type response struct {
	c             *conn
	req           *http.Request
	header        http.Header // the handler's, reused
	snap          http.Header // header as of WriteHeader, if changed after
	wroteHeader   bool
	status        int
	contentLength int64 // declared by the handler, or -1
	written       int64
	out           []byte   // interim (1xx) responses, then the whole answer
	buf           []byte   // the body
	closeWrite    bool     // close the write side and linger before closing
	keys          []string // appendHeader's scratch
}

func (w *response) reset(r *http.Request) {
	w.req = r
	if w.header == nil {
		w.header = make(http.Header, 8)
	} else {
		clear(w.header)
	}
	w.snap = nil
	w.wroteHeader = false
	w.status = 0
	w.contentLength = -1
	w.written = 0
	w.out = w.out[:0]
	w.buf = w.buf[:0]
	w.closeWrite = false
}

func (w *response) Header() http.Header {
	if w.wroteHeader && w.snap == nil {
		// net/http sends the header as it was at WriteHeader.
		w.snap = w.header.Clone()
	}
	return w.header
}

func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.wroteHeader {
		caller := relevantCaller()
		w.c.srv.logf("http: superfluous response.WriteHeader call from %s (%s:%d)", caller.Function, path.Base(caller.File), caller.Line)
		return
	}
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		w.out = appendStatusLine(w.out, code)
		w.out = w.appendHeader(w.out, w.header, excludedNoBody)
		w.out = append(w.out, "\r\n"...)
		return
	}
	w.wroteHeader = true
	w.status = code
	if cl := w.header.Get("Content-Length"); cl != "" {
		v, err := strconv.ParseInt(cl, 10, 64)
		if err == nil && v >= 0 {
			w.contentLength = v
		} else {
			// net/http drops it from the handler's map but still sends
			// what it cloned at WriteHeader: the answer is then chunked
			// with no Content-Length, which finish reproduces by leaving
			// it in place.
			w.c.srv.logf("http: invalid Content-Length of %q", cl)
		}
	}
}

func (w *response) Write(p []byte) (int, error) {
	if err := w.accept(len(p)); err != nil || len(p) == 0 {
		return 0, err
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *response) WriteString(s string) (int, error) {
	if err := w.accept(len(s)); err != nil || len(s) == 0 {
		return 0, err
	}
	w.buf = append(w.buf, s...)
	return len(s), nil
}

// accept writes the header if it is not yet written and checks that n
// more body bytes may follow, as net/http does before it buffers them.
func (w *response) accept(n int) error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if n == 0 {
		return nil
	}
	if !bodyAllowedForStatus(w.status) {
		return http.ErrBodyNotAllowed
	}
	w.written += int64(n)
	if w.contentLength != -1 && w.written > w.contentLength {
		return http.ErrContentLength
	}
	return nil
}

var (
	excludedNoBody = map[string]bool{"Content-Length": true, "Transfer-Encoding": true}
)

// finish writes the answer after the handler returned and reports whether
// the connection stays open.
func (w *response) finish() bool {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	c := w.c
	p := finishPlan{keepAlives: c.srv.doKeepAlives(), header: w.header}
	if w.snap != nil {
		p.header = w.snap
	}
	w.plan(&p)
	// The set of headers left out is built here, not in plan: a map that
	// does not leave finish can stay on its stack.
	var exclude map[string]bool
	del := func(k string) {
		if _, ok := p.header[k]; !ok {
			return
		}
		if exclude == nil {
			exclude = make(map[string]bool)
		}
		exclude[k] = true
	}
	for k := range p.header {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			del(k)
		}
	}
	if !bodyAllowedForStatus(p.code) {
		for _, k := range suppressedHeaders(p.code) {
			del(k)
		}
	}
	if p.drop&dropContentLength != 0 {
		del("Content-Length")
	}
	if p.drop&dropTransferEncoding != 0 {
		del("Transfer-Encoding")
	}
	if p.drop&dropConnection != 0 {
		del("Connection")
	}
	out := w.appendAnswer(w.out, &p, exclude)
	_, werr := c.rwc.Write(out)
	if cap(out) <= keepBufSize {
		w.out = out[:0]
	} else {
		w.out = nil
	}
	if cap(w.buf) > keepBufSize {
		w.buf = nil
	}
	if werr != nil || p.closeAfter || c.body.earlyClose {
		if c.body.earlyClose {
			w.closeWrite = true
		}
		return false
	}
	if w.contentLength != -1 && bodyAllowedForStatus(p.code) && w.contentLength != w.written {
		return false // the handler wrote less than it declared
	}
	return true
}

// finishPlan is what finish decided to send: the handler's header less
// the ones drop names, plus the headers of ex. It lives on finish's stack;
// its phases take a pointer to it, so splitting finish costs no allocation.
type finishPlan struct {
	header     http.Header
	drop       uint8 // dropContentLength, ...
	keepAlives bool
	code       int
	closeAfter bool
	chunking   bool
	haveDate   bool
	ex         struct {
		contentType, connection, transferEncoding string
		contentLength                             int64
	}
}

// The handler's headers that plan leaves out, if the handler set them.
const (
	dropContentLength = 1 << iota
	dropTransferEncoding
	dropConnection
)

// plan decides the answer's framing and the headers to add or leave out.
func (w *response) plan(p *finishPlan) {
	header := p.header
	p.ex.contentLength = -1
	te := header.Get("Transfer-Encoding")
	hasTE := te != ""
	code := w.status
	p.code = code
	if !hasTE && bodyAllowedForStatus(code) && !has(header, "Content-Length") {
		// The whole body is here, so its length is known (net/http knows
		// it only for a body under 2 KB, and chunks a longer one).
		w.contentLength = int64(len(w.buf))
		p.ex.contentLength = w.contentLength
	}
	hasCL := w.contentLength != -1
	p.closeAfter = w.req.Close
	if header.Get("Connection") == "close" || !p.keepAlives {
		p.closeAfter = true
	}
	if w.req.ContentLength != 0 && !p.closeAfter {
		w.finishBody(p)
	}
	if bodyAllowedForStatus(code) {
		_, haveType := header["Content-Type"]
		if header.Get("Content-Encoding") == "" && !haveType && !hasTE && len(w.buf) > 0 {
			p.ex.contentType = http.DetectContentType(w.buf)
		}
	}
	_, p.haveDate = header["Date"]
	if hasCL && hasTE && te != "identity" {
		w.c.srv.logf("http: WriteHeader called with both Transfer-Encoding of %q and a Content-Length of %d", te, w.contentLength)
		p.drop |= dropContentLength
		hasCL = false
	}
	switch {
	case !bodyAllowedForStatus(code) || code == http.StatusNoContent:
		p.drop |= dropTransferEncoding
	case hasCL:
		p.drop |= dropTransferEncoding
	case hasTE && te == "identity":
		p.closeAfter = true
		p.drop |= dropTransferEncoding
	default:
		p.chunking = true
		p.ex.transferEncoding = "chunked"
		if te == "chunked" {
			p.drop |= dropTransferEncoding
		}
	}
	if p.chunking {
		p.drop |= dropContentLength
	}
	if p.closeAfter && (!p.keepAlives || !hasToken(header.Get("Connection"), "close")) &&
		!(code == http.StatusSwitchingProtocols && header.Get("Upgrade") != "") {
		p.drop |= dropConnection
		p.ex.connection = "close"
	}
}

// finishBody deals with what the handler left of the request's body before
// the connection takes the next request: a short rest is read and dropped,
// a long one closes the connection.
func (w *response) finishBody(p *finishPlan) {
	b := &w.c.body
	discard, tooBig := false, false
	switch {
	case b.closed:
		if !b.sawEOF {
			p.closeAfter = true
		}
	case b.remaining >= maxPostHandlerReadBytes:
		tooBig = true
	default:
		discard = true
	}
	if discard {
		// Less than maxPostHandlerReadBytes is left (checked above).
		if err := discardBody(b); err != nil {
			p.closeAfter = true
		} else {
			b.closed = true
		}
	}
	if tooBig {
		p.closeAfter = true
		w.closeWrite = true
		p.drop |= dropConnection
		p.ex.connection = "close"
	}
}

// appendAnswer appends the status line, headers (less exclude) and body
// that p planned.
func (w *response) appendAnswer(out []byte, p *finishPlan, exclude map[string]bool) []byte {
	out = appendStatusLine(out, p.code)
	out = w.appendHeader(out, p.header, exclude)
	if !p.haveDate {
		out = append(out, "Date: "...)
		out = appendDate(out)
		out = append(out, "\r\n"...)
	}
	if p.ex.contentLength >= 0 {
		out = append(out, "Content-Length: "...)
		out = strconv.AppendInt(out, p.ex.contentLength, 10)
		out = append(out, "\r\n"...)
	}
	for i, v := range [3]string{p.ex.contentType, p.ex.connection, p.ex.transferEncoding} {
		if v != "" {
			out = append(out, [3]string{"Content-Type", "Connection", "Transfer-Encoding"}[i]...)
			out = append(out, ": "...)
			out = append(out, v...)
			out = append(out, "\r\n"...)
		}
	}
	out = append(out, "\r\n"...)
	if bodyAllowedForStatus(p.code) {
		if p.chunking && len(w.buf) > 0 {
			out = strconv.AppendInt(out, int64(len(w.buf)), 16)
			out = append(out, "\r\n"...)
		}
		out = append(out, w.buf...)
		if p.chunking {
			if len(w.buf) > 0 {
				out = append(out, "\r\n"...)
			}
			out = append(out, "0\r\n\r\n"...)
		}
	}
	return out
}

// discardBody reads and drops what is left of b (bufio's Discard, no
// scratch buffer): nil at its end, io.ErrUnexpectedEOF if the client
// stopped short, or the read's error.
func discardBody(b *body) error {
	if b.sawEOF {
		return nil
	}
	n, err := b.br.Discard(int(b.remaining))
	b.remaining -= int64(n)
	if err == io.EOF && b.remaining > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err == nil || err == io.ErrUnexpectedEOF {
		b.sawEOF = true
		b.hitEOF()
	}
	return err
}

func has(h http.Header, k string) bool {
	_, ok := h[k]
	return ok
}

func appendStatusLine(b []byte, code int) []byte {
	b = append(b, "HTTP/1.1 "...)
	if text := http.StatusText(code); text != "" {
		b = strconv.AppendInt(b, int64(code), 10)
		b = append(b, ' ')
		b = append(b, text...)
		return append(b, "\r\n"...)
	}
	return fmt.Appendf(b, "%03d status code %d\r\n", code, code)
}

// appendHeader appends h as http.Header.WriteSubset writes it: keys
// sorted, invalid names dropped, values trimmed and their CR and LF made
// spaces (WriteSubset's own sort, through an interface, was 3% of a
// GetItem's CPU).
func (w *response) appendHeader(b []byte, h http.Header, exclude map[string]bool) []byte {
	keys := w.keys[:0]
	for k := range h {
		if !exclude[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !validName(k) {
			continue
		}
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			v = strings.Trim(v, " \t\r\n")
			for i := 0; i < len(v); i++ {
				if c := v[i]; c == '\r' || c == '\n' {
					b = append(b, ' ')
				} else {
					b = append(b, c)
				}
			}
			b = append(b, "\r\n"...)
		}
	}
	clear(keys)
	w.keys = keys[:0]
	return b
}

// validName is httpguts.ValidHeaderFieldName: a non-empty token.
func validName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isTokenByte(k[i]) {
			return false
		}
	}
	return true
}

func bodyAllowedForStatus(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == 204:
		return false
	case status == 304:
		return false
	}
	return true
}

func suppressedHeaders(status int) []string {
	switch {
	case status == 304:
		return []string{"Content-Type", "Content-Length", "Transfer-Encoding"}
	case !bodyAllowedForStatus(status):
		return []string{"Content-Length", "Transfer-Encoding"}
	}
	return nil
}

// hasToken reports whether v holds token (case-insensitively) as one of
// its comma-separated elements.
func hasToken(v, token string) bool {
	for f := range strings.SplitSeq(v, ",") {
		if strings.EqualFold(strings.Trim(f, " \t"), token) {
			return true
		}
	}
	return false
}

// relevantCaller is the first caller outside net/http and this package,
// for the superfluous-WriteHeader log line, as net/http finds it.
func relevantCaller() runtime.Frame {
	pc := make([]uintptr, 16)
	n := runtime.Callers(1, pc)
	frames := runtime.CallersFrames(pc[:n])
	var frame runtime.Frame
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "net/http.") && !strings.Contains(f.Function, "/httpfront.") {
			return f
		}
		frame = f
		if !more {
			break
		}
	}
	return frame
}
