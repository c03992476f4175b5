package httpfront

import (
	"bufio"
	"bytes"
	"net/http"
	"net/textproto"
	"reflect"
	"testing"
)

// FuzzParseHeadMatchesNetHTTP: whatever head the fast path takes,
// net/http reads the same way (method, URI, protocol, Host, headers,
// Content-Length, Close) and accepts as a server would; what it does not
// take is net/http's anyway.
func FuzzParseHeadMatchesNetHTTP(f *testing.F) {
	for _, s := range []string{
		sdk(""),
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
		"POST / HTTP/1.1\r\nhost: h:1\r\ncontent-length: 12\r\nconnection: CLOSE\r\nx-a: \t b \r\nX-A: c\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 3\r\nConnection: keep-alive\r\nX_Y: z\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 03\r\n\r\n",
		"POST / HTTP/1.1\nHost: h\nContent-Length: 3\n\n",
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nX: a\r\n b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		end := findHeadEnd(b)
		if end < 0 {
			return
		}
		var h head
		var kc keyCache
		if !parseHead(b[:end], &h, &kc) {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b[:end])))
		if err != nil {
			t.Fatalf("fast path took %q; net/http: %v", b[:end], err)
		}
		if req.Method != "POST" || req.RequestURI != "/" || req.URL.Path != "/" || req.Proto != "HTTP/1.1" {
			t.Fatalf("%q: net/http read %s %s %s", b[:end], req.Method, req.RequestURI, req.Proto)
		}
		// ReadRequest moves Host out of the header map, as the server does.
		if req.Host != h.host || req.Header["Host"] != nil {
			t.Fatalf("%q: Host %q, fast %q", b[:end], req.Host, h.host)
		}
		got := http.Header{}
		for i := 0; i < h.n; i++ {
			got[h.keys[i]] = append(got[h.keys[i]], h.vals[i])
		}
		if !reflect.DeepEqual(map[string][]string(got), map[string][]string(req.Header)) {
			t.Fatalf("%q: headers\nfast     %q\nnet/http %q", b[:end], got, req.Header)
		}
		for k, vs := range req.Header {
			if textproto.CanonicalMIMEHeaderKey(k) != k {
				t.Fatalf("%q: key %q not canonical", b[:end], k)
			}
			for _, v := range vs {
				for _, c := range []byte(v) {
					if c < ' ' && c != '\t' || c == 0x7f {
						t.Fatalf("%q: value %q has a control byte", b[:end], v)
					}
				}
			}
		}
		if req.ContentLength != h.contentLength || req.Close != h.close || len(req.TransferEncoding) != 0 {
			t.Fatalf("%q: net/http length %d close %v TE %q; fast %d %v", b[:end], req.ContentLength, req.Close, req.TransferEncoding, h.contentLength, h.close)
		}
	})
}

// TestKeyCacheReusesStrings: a connection sending the same names and
// values allocates no strings for them the second time.
func TestKeyCacheReusesStrings(t *testing.T) {
	b := []byte(sdk(""))
	b = b[:findHeadEnd(b)]
	var h head
	var kc keyCache
	if !parseHead(b, &h, &kc) {
		t.Fatal("SDK head not taken")
	}
	if n := testing.AllocsPerRun(100, func() { parseHead(b, &h, &kc) }); n != 0 {
		t.Errorf("%v allocations parsing a head seen before, want 0", n)
	}
}
