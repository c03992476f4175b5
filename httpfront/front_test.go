package httpfront

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// echo answers with what it saw of the request; request headers steer
// it (X-Status, X-Panic, X-No-Read, X-Set-CL, X-No-Type, X-Big).
func echo(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Panic") == "abort" {
		panic(http.ErrAbortHandler)
	}
	if r.Header.Get("X-Panic") != "" {
		panic("boom")
	}
	var b bytes.Buffer
	if r.Header.Get("X-No-Read") == "" {
		body, err := io.ReadAll(r.Body)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			b.WriteString("body: timeout\n")
		case err != nil:
			b.WriteString("body: " + err.Error() + "\n")
		}
		if len(body) > 1000 {
			fmt.Fprintf(&b, "body of %d bytes\n", len(body))
		} else {
			fmt.Fprintf(&b, "body %q\n", body)
		}
	}
	fmt.Fprintf(&b, "%s %s %s %q %q %d %v %v\n", r.Method, r.RequestURI, r.Proto, r.URL.String(), r.Host, r.ContentLength, r.Close, r.TransferEncoding)
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q\n", k, r.Header[k])
	}
	fmt.Fprintf(&b, "ctx %v %v\n", r.Context().Value(http.ServerContextKey) != nil, r.Context().Value(http.LocalAddrContextKey) != nil)
	if r.Header.Get("X-Big") != "" {
		b.WriteString(strings.Repeat("x", 1000))
	}
	h := w.Header()
	if r.Header.Get("X-No-Type") == "" {
		h.Set("Content-Type", "text/plain")
	}
	h.Set("X-Amzn-Requestid", "R1")
	h["x-lower"] = []string{"a\nb", " \r\n\tc\rd \t"}
	h["Bad Key"] = []string{"dropped"}
	h["X-Empty"] = []string{""}
	if v := r.Header.Get("X-Set-CL"); v != "" {
		h.Set("Content-Length", v)
	}
	if v := r.Header.Get("X-Status"); v != "" {
		n, _ := strconv.Atoi(v)
		w.WriteHeader(n)
	}
	_, _ = w.Write(b.Bytes())
}

type pair struct {
	front, std string
	flog, slog *syncBuf
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startPair serves h on the front and on a plain http.Server, with the
// same settings.
func startPair(t testing.TB, h http.Handler, rht, rt, it time.Duration) pair {
	t.Helper()
	var p pair
	p.flog, p.slog = &syncBuf{}, &syncBuf{}
	ln1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &Server{Handler: h, ReadHeaderTimeout: rht, ReadTimeout: rt, IdleTimeout: it, ErrorLog: log.New(p.flog, "", 0)}
	s := &http.Server{Handler: h, ReadHeaderTimeout: rht, ReadTimeout: rt, IdleTimeout: it, ErrorLog: log.New(p.slog, "", 0)}
	go func() { _ = f.Serve(ln1) }()
	go func() { _ = s.Serve(ln2) }()
	t.Cleanup(func() { _ = f.Close(); _ = s.Close() })
	p.front, p.std = ln1.Addr().String(), ln2.Addr().String()
	return p
}

// exchange writes the chunks (pausing between them), half-closes, and
// returns everything read until the server closes.
func exchange(t testing.TB, addr string, pause time.Duration, chunks ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.Copy(&out, c)
	}()
	for i, ch := range chunks {
		if i > 0 {
			time.Sleep(pause)
		}
		if _, err := io.WriteString(c, ch); err != nil {
			break // the server may close first (Connection: close)
		}
	}
	time.Sleep(pause)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
	return out.String()
}

var dateRE = regexp.MustCompile(`(?m)^Date: [^\r]*\r$`)

func normalize(s string) string { return dateRE.ReplaceAllString(s, "Date: X\r") }

const sdkHead = "POST / HTTP/1.1\r\n" +
	"Host: 127.0.0.1:8000\r\n" +
	"User-Agent: aws-sdk-go-v2/1.39.2 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/dynamodb#1.50.0 m/E\r\n" +
	"Content-Length: %d\r\n" +
	"Accept-Encoding: identity\r\n" +
	"Amz-Sdk-Invocation-Id: 0b5a2d9e-4b1c-4e51-9a55-5f6d4f1c1a11\r\n" +
	"Amz-Sdk-Request: attempt=1; max=3\r\n" +
	"Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261203/us-east-1/dynamodb/aws4_request, SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target, Signature=abc\r\n" +
	"Content-Type: application/x-amz-json-1.0\r\n" +
	"X-Amz-Date: 20261203T160000Z\r\n" +
	"X-Amz-Target: DynamoDB_20120810.GetItem\r\n%s\r\n%s"

func sdk(body string, extra ...string) string {
	return fmt.Sprintf(sdkHead, len(body), strings.Join(extra, ""), body)
}

func diffCases() []struct {
	name   string
	pause  time.Duration
	chunks []string
} {
	get := `{"TableName":"T","Key":{"pk":{"S":"a"}}}`
	return []struct {
		name   string
		pause  time.Duration
		chunks []string
	}{
		{"sdk", 0, []string{sdk(get)}},
		{"sdk big response", 0, []string{sdk(get, "X-Big: 1\r\n")}},
		{"pipelined", 0, []string{sdk(get) + sdk(`{}`) + sdk(get, "X-Status: 400\r\n")}},
		{"keep-alive reuse", 50 * time.Millisecond, []string{sdk(get), sdk(`{"a":1}`), sdk("")}},
		{"split head and body", 30 * time.Millisecond, []string{"POST / HTTP/1.1\r\nHost: h\r\n", "Content-Length: 3\r\n\r\nab", "c"}},
		{"connection close", 0, []string{sdk(get, "Connection: close\r\n") + sdk(get)}},
		{"connection keep-alive", 0, []string{sdk(get, "Connection: Keep-Alive\r\n")}},
		{"connection other", 0, []string{sdk(get, "Connection: foo\r\n")}},
		{"chunked", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + sdk(get)}},
		{"expect", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", "abc"}},
		{"http/1.0", 0, []string{"POST / HTTP/1.0\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"}},
		{"http/1.0 keep-alive", 0, []string{"POST / HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc" + sdk(get)}},
		{"get", 0, []string{"GET / HTTP/1.1\r\nHost: h\r\n\r\n" + sdk(get)}},
		{"other path", 0, []string{"POST /x?y=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"}},
		{"upgrade", 0, []string{sdk(get, "Upgrade: websocket\r\n")}},
		{"pragma", 0, []string{sdk(get, "Pragma: no-cache\r\n")}},
		{"header over the buffer", 0, []string{sdk(get, "X-Long: "+strings.Repeat("v", 10000)+"\r\n")}},
		{"header over net/http's limit", 0, []string{sdk(get, "X-Long: "+strings.Repeat("v", 1<<20+8192)+"\r\n")}},
		{"bad request line", 0, []string{"FOO\r\n\r\n"}},
		{"bad request line 2", 0, []string{"POST / HTTP/1.1 x\r\nHost: h\r\n\r\n"}},
		{"bad version", 0, []string{"POST / HTTP/9.9\r\nHost: h\r\nContent-Length: 0\r\n\r\n"}},
		{"lowercase names", 0, []string{"POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 2\r\nx-amz-target: t\r\nx-AMZ-target: u\r\n\r\n{}"}},
		{"no host", 0, []string{"POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"}},
		{"two hosts", 0, []string{"POST / HTTP/1.1\r\nHost: a\r\nHost: b\r\nContent-Length: 2\r\n\r\n{}"}},
		{"odd host", 0, []string{"POST / HTTP/1.1\r\nHost: a/b\r\nContent-Length: 2\r\n\r\n{}"}},
		{"no content-length", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\n\r\n"}},
		{"two content-lengths", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"}},
		{"bad content-length", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -2\r\n\r\n{}"}},
		{"bare LF", 0, []string{"POST / HTTP/1.1\nHost: h\nContent-Length: 2\n\n{}"}},
		{"space before colon", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nX-A : b\r\nContent-Length: 2\r\n\r\n{}"}},
		{"folded header", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nX-A: b\r\n c\r\nContent-Length: 2\r\n\r\n{}"}},
		{"control in value", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nX-A: b\x01c\r\nContent-Length: 2\r\n\r\n{}"}},
		{"truncated body", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc"}},
		{"truncated head", 0, []string{"POST / HTTP/1.1\r\nHost: h\r\nContent-Le"}},
		{"empty", 0, nil},
		{"panic", 0, []string{sdk(get, "X-Panic: 1\r\n") + sdk(get)}},
		{"abort", 0, []string{sdk(get, "X-Panic: abort\r\n") + sdk(get)}},
		{"status 204 with body", 0, []string{sdk(get, "X-Status: 204\r\n")}},
		{"status 304", 0, []string{sdk(get, "X-Status: 304\r\n")}},
		{"status without text", 0, []string{sdk(get, "X-Status: 299\r\n")}},
		{"sniffed type", 0, []string{sdk(get, "X-No-Type: 1\r\n")}},
		{"declared length too short", 0, []string{sdk(get, "X-Set-CL: 5\r\n") + sdk(get)}},
		{"declared length too long", 0, []string{sdk(get, "X-Set-CL: 50000\r\n") + sdk(get)}},
		{"declared length bad", 0, []string{sdk(get, "X-Set-CL: x\r\n")}},
		{"body unread small", 0, []string{sdk(get, "X-No-Read: 1\r\n") + sdk(get)}},
		{"body unread large", 0, []string{sdk(strings.Repeat("z", 300<<10), "X-No-Read: 1\r\n") + sdk(get)}},
		{"body 1 MB", 0, []string{sdk(strings.Repeat("z", 1<<20))}},
	}
}

// fastCases are the cases whose first request the fast path serves.
var fastCases = map[string]bool{
	"sdk": true, "sdk big response": true, "pipelined": true, "keep-alive reuse": true,
	"split head and body": true, "connection close": true, "connection keep-alive": true,
	"lowercase names": true, "truncated body": true, "panic": true, "abort": true,
	"status 204 with body": true, "status 304": true, "status without text": true,
	"sniffed type": true, "declared length too short": true, "declared length too long": true,
	"declared length bad": true, "body unread small": true, "body unread large": true,
	"body 1 MB": true,
}

// TestDifferential: the front answers every byte stream exactly as
// net/http does (Date aside), whether it serves it or hands it over.
func TestDifferential(t *testing.T) {
	var fast atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(*response); ok {
			fast.Add(1)
		}
		echo(w, r)
	})
	p := startPair(t, h, 5*time.Second, 5*time.Second, 5*time.Second)
	for _, tc := range diffCases() {
		t.Run(tc.name, func(t *testing.T) {
			n0 := fast.Load()
			got := normalize(exchange(t, p.front, tc.pause, tc.chunks...))
			// The cases meant for the fast path must take it, or the
			// comparison proves nothing about it.
			if want, took := fastCases[tc.name], fast.Load() > n0; want != took {
				t.Errorf("fast path taken: %v, want %v", took, want)
			}
			want := normalize(exchange(t, p.std, tc.pause, tc.chunks...))
			if got != want {
				t.Errorf("front:\n%.3000s\nnet/http:\n%.3000s", got, want)
			}
		})
	}
	// Panics are logged by both alike; ErrAbortHandler by neither.
	if f, s := strings.Count(p.flog.String(), "http: panic serving"), strings.Count(p.slog.String(), "http: panic serving"); f != 1 || s != 1 {
		t.Errorf("panic lines: front %d, net/http %d; front log:\n%s", f, s, p.flog)
	}
	for _, l := range []string{"superfluous", "invalid Content-Length"} {
		if strings.Contains(p.slog.String(), l) != strings.Contains(p.flog.String(), l) {
			t.Errorf("log line %q: front %v, net/http %v", l, strings.Contains(p.flog.String(), l), strings.Contains(p.slog.String(), l))
		}
	}
}

// TestDifferentialTimeouts: stalled heads and bodies meet the same
// timeouts on both.
func TestDifferentialTimeouts(t *testing.T) {
	p := startPair(t, http.HandlerFunc(echo), 200*time.Millisecond, 400*time.Millisecond, 300*time.Millisecond)
	for _, tc := range []struct {
		name   string
		chunks []string
	}{
		{"stalled head", []string{"POST / HTTP/1.1\r\nHost: h\r\n"}},
		{"stalled body", []string{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc"}},
		{"idle after a request", []string{sdk("{}")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			got := normalize(exchange(t, p.front, time.Second, tc.chunks...))
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("front took %v", d)
			}
			want := normalize(exchange(t, p.std, time.Second, tc.chunks...))
			if got != want {
				t.Errorf("front:\n%s\nnet/http:\n%s", got, want)
			}
		})
	}
}

// TestIdleTimeoutCloses: an idle keep-alive connection is closed after
// IdleTimeout, while the client waits.
func TestIdleTimeoutCloses(t *testing.T) {
	p := startPair(t, http.HandlerFunc(echo), 5*time.Second, 5*time.Second, 200*time.Millisecond)
	c, err := net.Dial("tcp", p.front)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, sdk("{}")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	start := time.Now()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("read after idle: %v, want EOF", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > time.Second {
		t.Errorf("closed after %v, want about 200ms", d)
	}
}

// TestShutdownDrains: Shutdown waits for a request in flight on the fast
// path and for one handed to net/http, closes idle connections at once,
// and Serve returns http.ErrServerClosed.
func TestShutdownDrains(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Wait") != "" {
			started <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Handler: h}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	addr := ln.Addr().String()

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	_, _ = io.WriteString(idle, sdk("{}"))
	idleR := bufio.NewReader(idle)
	if res, err := http.ReadResponse(idleR, nil); err != nil {
		t.Fatal(err)
	} else {
		_, _ = io.Copy(io.Discard, res.Body)
	}

	answers := make(chan string, 2)
	for _, req := range []string{
		sdk("{}", "X-Wait: 1\r\n"), // fast path
		"POST /slow HTTP/1.1\r\nHost: h\r\nX-Wait: 1\r\nContent-Length: 0\r\n\r\n", // net/http
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = io.WriteString(c, req)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		go func() {
			b, _ := io.ReadAll(c)
			answers <- string(b)
		}()
	}
	<-started
	<-started
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	_ = idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idleR.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: %v, want EOF at Shutdown", err)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with requests in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for range 2 {
		a := <-answers
		if !strings.HasPrefix(a, "HTTP/1.1 200 OK\r\n") || !strings.Contains(a, "Connection: close\r\n") || !strings.HasSuffix(a, "done") {
			t.Errorf("answer during shutdown: %q", a)
		}
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown still waiting after the requests were answered")
	}
	if err := <-served; err != http.ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("still accepting after Shutdown")
	}
}

// TestShutdownTimeout: a request that outlives ctx makes Shutdown return
// ctx's error; Close then cuts it off.
func TestShutdownTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Handler: h}
	go func() { _ = s.Serve(ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, sdk("{}"))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown: %v, want deadline exceeded", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("connection open after Close")
	}
}

// TestWholeBodyGetsContentLength: a body over net/http's 2 KB chunking
// threshold with no Content-Length from the handler goes out with one
// (the documented difference: the front buffers the whole answer).
func TestWholeBodyGetsContentLength(t *testing.T) {
	p := startPair(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("a", 5000))
	}), time.Second, time.Second, time.Second)
	got := exchange(t, p.front, 0, sdk("{}"))
	if !strings.Contains(got, "Content-Length: 5000\r\n") || strings.Contains(got, "chunked") {
		t.Errorf("front answered:\n%.300s", got)
	}
}

// TestShutdownClosesSilentConnection: a connection that never sent a byte
// counts as idle after 5 s, as in net/http, so Shutdown does not wait on
// it for its whole timeout.
func TestShutdownClosesSilentConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 5 s")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Handler: http.HandlerFunc(echo)}
	go func() { _ = s.Serve(ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond) // accepted
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v after %v", err, time.Since(start))
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
}

// FuzzFrontMatchesNetHTTP: any byte stream a client sends (then
// half-closes) gets the same bytes back from the front as from net/http,
// Date aside.
func FuzzFrontMatchesNetHTTP(f *testing.F) {
	for _, tc := range diffCases() {
		if s := strings.Join(tc.chunks, ""); len(s) < 8<<10 {
			f.Add([]byte(s))
		}
	}
	p := startPair(f, http.HandlerFunc(echo), 5*time.Second, 5*time.Second, 5*time.Second)
	f.Fuzz(func(t *testing.T, b []byte) {
		t0 := time.Now()
		got := normalize(exchange(t, p.front, 0, string(b)))
		t1 := time.Now()
		want := normalize(exchange(t, p.std, 0, string(b)))
		if got != want {
			t.Errorf("%q\nfront:\n%s\nnet/http:\n%s", b, got, want)
		}
		// Nor does the front keep the client waiting longer.
		if df, ds := t1.Sub(t0), time.Since(t1); df > ds+time.Second {
			t.Errorf("%q: front took %v, net/http %v", b, df, ds)
		}
	})
}
