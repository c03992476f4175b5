package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveLines runs `serve args...` in-process until it logs that it serves,
// and returns that line's addresses and every line logged so far.
func serveLines(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	c := &cli{stdout: io.Discard, stderr: logs, getenv: env("HOME", t.TempDir()), notify: context.WithCancel}
	done := make(chan int, 1)
	go func() { done <- c.main(ctx, append([]string{"serve", "--in-memory", "--log-format", "json"}, args...)) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var line struct {
				Message string
				Addrs   []string
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "extenddb serving" {
				return line.Addrs, logs.String()
			}
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d before listening:\n%s", code, logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("serve never logged its address:\n%s", logs.String())
	return nil, ""
}

// TestServeDefaultIsLoopback: without --addr, serve listens on this
// machine's loopback addresses only (both, where it has IPv6), answers
// on each, and warns of nothing.
func TestServeDefaultIsLoopback(t *testing.T) {
	addrs, logs := serveLines(t, "-port", "0")
	if len(addrs) == 0 {
		t.Fatalf("no addresses logged:\n%s", logs)
	}
	for _, a := range addrs {
		ta, err := net.ResolveTCPAddr("tcp", a)
		if err != nil || !ta.IP.IsLoopback() {
			t.Errorf("the default listens on %s, beyond loopback (%v)", a, err)
			continue
		}
		resp, err := http.Get("http://" + a + "/")
		if err != nil {
			t.Errorf("GET on %s: %v", a, err)
			continue
		}
		resp.Body.Close()
	}
	if l6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		l6.Close()
		if len(addrs) != 2 {
			t.Errorf("this machine has [::1] but the default listens on %v, want 127.0.0.1 and [::1]", addrs)
		}
	}
	if strings.Contains(logs, `"level":"warn"`) {
		t.Errorf("a warning on loopback:\n%s", logs)
	}
}

// TestServeWarnsBeyondLoopbackWithoutAuth: every interface with
// --auth=off is served, with a warning.
func TestServeWarnsBeyondLoopbackWithoutAuth(t *testing.T) {
	_, logs := serveLines(t, "--addr", "0.0.0.0:0")
	if !strings.Contains(logs, "listening beyond this machine with --auth=off") {
		t.Errorf("no warning for 0.0.0.0 with --auth=off:\n%s", logs)
	}
}

func TestBeyondLoopback(t *testing.T) {
	for _, c := range []struct {
		addrs []string
		want  bool
	}{
		{[]string{"127.0.0.1:1"}, false},
		{[]string{"127.0.0.1:1", "[::1]:1"}, false},
		{[]string{"0.0.0.0:1"}, true},
		{[]string{"[::]:1"}, true},
		{[]string{"127.0.0.1:1", "192.0.2.1:1"}, true},
	} {
		var addrs []net.Addr
		for _, a := range c.addrs {
			ta, err := net.ResolveTCPAddr("tcp", a)
			if err != nil {
				t.Fatal(err)
			}
			addrs = append(addrs, ta)
		}
		if got := beyondLoopback(addrs); got != c.want {
			t.Errorf("beyondLoopback(%v) = %v, want %v", c.addrs, got, c.want)
		}
	}
}

// TestServingLineFirst: the first line serve logs is the "serving" line
// the README promises (the S3 folder's line is at debug).
func TestServingLineFirst(t *testing.T) {
	_, logs := serveLines(t, "--addr", "127.0.0.1:0")
	first, _, _ := strings.Cut(logs, "\n")
	if !strings.Contains(first, `"message":"extenddb serving"`) {
		t.Errorf("the first line is not the serving line:\n%s", logs)
	}
}
