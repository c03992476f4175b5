package wire

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rawRequest sends req on a fresh connection, half-closes it, and returns
// what the server answered (empty if it closed the connection).
func rawRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	b, _ := io.ReadAll(bufio.NewReader(c))
	return string(b)
}

// TestTruncatedBodyNeverSucceeds: a body shorter than its Content-Length,
// or a malformed chunked body, must not be answered 200.
func TestTruncatedBodyNeverSucceeds(t *testing.T) {
	srv := httptest.NewServer(newTestHandler(t, Options{}).routes())
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	hdr := "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Type: application/x-amz-json-1.0\r\n"
	for name, req := range map[string]string{
		"short":   hdr + "Content-Length: 100\r\n\r\n{}",
		"chunked": hdr + "Transfer-Encoding: chunked\r\n\r\n5\r\n{}",
	} {
		if got := rawRequest(t, addr, req); strings.HasPrefix(got, "HTTP/1.1 200") {
			t.Errorf("%s body answered %q", name, got)
		}
	}
	// The complete request is served.
	if got := rawRequest(t, addr, hdr+"Content-Length: 2\r\n\r\n{}"); !strings.HasPrefix(got, "HTTP/1.1 200") {
		t.Errorf("complete body answered %q", got)
	}
}

// TestPostAnyPath: DynamoDB ignores a POST's path; no redirect.
func TestPostAnyPath(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	for _, p := range []string{"//", "/a/../", "/x/y"} {
		r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", strings.NewReader("{}"))
		r.URL.Path = p
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Errorf("POST %s: %d", p, w.Code)
		}
	}
}

// TestBrowserOriginRefused: a request a web page makes (Origin not a
// loopback one, as after DNS rebinding) is refused; SDK requests (no
// Origin) and pages on localhost are served.
func TestBrowserOriginRefused(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	for origin, want := range map[string]int{
		"":                      http.StatusOK,
		"http://localhost:3000": http.StatusOK,
		"http://127.0.0.1:8001": http.StatusOK,
		"http://[::1]:8001":     http.StatusOK,
		"http://evil.example":   http.StatusForbidden,
		"null":                  http.StatusForbidden,
	} {
		r := do(h, http.MethodPost, "DynamoDB_20120810.ListTables", "application/x-amz-json-1.0", "{}", "Origin", origin)
		if origin == "" {
			r = do(h, http.MethodPost, "DynamoDB_20120810.ListTables", "application/x-amz-json-1.0", "{}")
		}
		if r.status != want {
			t.Errorf("Origin %q: %d, want %d", origin, r.status, want)
		}
	}
}
