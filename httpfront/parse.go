package httpfront

import (
	"bytes"
	"net/textproto"
)

// fastLine is the only request line the fast path takes.
const fastLine = "POST / HTTP/1.1\r\n"

// maxFastHeaders bounds the header lines of a fast request; more go to
// net/http.
const maxFastHeaders = 64

// maxFastBody is the largest Content-Length the fast path takes: the API
// handler's own limit (it answers larger ones itself, through net/http).
const maxFastBody = 16 << 20

// head is a parsed request head. Its strings stay valid after the buffer
// it was parsed from is reused.
type head struct {
	contentLength int64
	host          string
	close         bool // Connection: close
	n             int  // header lines in keys/vals
	keys          [maxFastHeaders]string
	vals          [maxFastHeaders]string
}

// keyCache maps a header name as sent to its canonical form, and
// remembers the last value seen under it, so a connection sending the same
// names and values request after request allocates no strings for them.
type keyCache struct {
	ents []keyEnt
}

type keyEnt struct {
	raw, canon, last string
}

const maxKeyCache = 32

func (kc *keyCache) canon(raw []byte) *keyEnt {
	for i := range kc.ents {
		if kc.ents[i].raw == string(raw) {
			return &kc.ents[i]
		}
	}
	e := keyEnt{raw: string(raw)}
	e.canon = textproto.CanonicalMIMEHeaderKey(e.raw)
	if len(kc.ents) < maxKeyCache {
		kc.ents = append(kc.ents, e)
		return &kc.ents[len(kc.ents)-1]
	}
	return &e
}

func (e *keyEnt) value(v []byte) string {
	if e.last != string(v) {
		e.last = string(v)
	}
	return e.last
}

// findHeadEnd returns the length of the head in b (up to and including
// the blank line), or -1 if b does not hold a whole head yet.
func findHeadEnd(b []byte) int {
	i := bytes.Index(b, []byte("\n\r\n"))
	j := bytes.Index(b, []byte("\n\n"))
	switch {
	case i < 0 && j < 0:
		return -1
	case j < 0 || (i >= 0 && i < j):
		return i + 3
	default:
		return j + 2
	}
}

// parseHead parses a whole request head b (as findHeadEnd delimits it)
// into h, and reports whether the request is one for the fast path. It
// says no, rather than guessing, to anything net/http would read
// differently or refuse: that request is handed to net/http.
func parseHead(b []byte, h *head, kc *keyCache) bool {
	if !bytes.HasPrefix(b, []byte(fastLine)) {
		return false
	}
	b = b[len(fastLine):]
	h.n = 0
	h.contentLength = -1
	h.host = ""
	h.close = false
	haveHost, haveConn := false, false
	for {
		eol := bytes.IndexByte(b, '\n')
		if eol < 1 || b[eol-1] != '\r' {
			return false // bare LF: net/http's reading of it is its own
		}
		line := b[:eol-1]
		b = b[eol+1:]
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return false
		}
		raw := line[:colon]
		for _, c := range raw {
			if !isTokenByte(c) {
				return false
			}
		}
		v := line[colon+1:]
		for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
			v = v[1:]
		}
		for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
			v = v[:len(v)-1]
		}
		for _, c := range v {
			if (c < ' ' && c != '\t') || c >= 0x7f {
				return false
			}
		}
		e := kc.canon(raw)
		switch e.canon {
		case "Host":
			if haveHost || !validHost(v) {
				return false
			}
			haveHost = true
			h.host = e.value(v)
			continue // net/http moves Host out of the header map
		case "Content-Length":
			if h.contentLength >= 0 {
				return false
			}
			n, ok := parseLength(v)
			if !ok || n > maxFastBody {
				return false
			}
			h.contentLength = n
		case "Connection":
			if haveConn {
				return false
			}
			haveConn = true
			switch {
			case bytes.EqualFold(v, []byte("close")):
				h.close = true
			case bytes.EqualFold(v, []byte("keep-alive")):
			default:
				return false
			}
		case "Transfer-Encoding", "Expect", "Upgrade", "Trailer", "Pragma", "Http2-Settings", "Te":
			return false
		}
		if h.n == maxFastHeaders {
			return false
		}
		h.keys[h.n] = e.canon
		h.vals[h.n] = e.value(v)
		h.n++
	}
	return haveHost && h.contentLength >= 0 && len(b) == 0
}

// parseLength parses a Content-Length value: digits only, no leading
// zero unless it is 0.
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 10 || (v[0] == '0' && len(v) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// validHost accepts a host[:port] of plain characters (names, IPv4,
// bracketed IPv6); anything else is net/http's to judge.
func validHost(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.' || c == ':' || c == '-' || c == '_' || c == '[' || c == ']':
		default:
			return false
		}
	}
	return true
}

// isTokenByte reports whether c may appear in a header name (RFC 7230
// token).
func isTokenByte(c byte) bool { return tokenTable[c] }

var tokenTable = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range []byte("!#$%&'*+-.^_`|~") {
		t[c] = true
	}
	return t
}()
