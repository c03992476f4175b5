package sdkhttp_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/sdkhttp"
)

// closable is a body that, like smithy-go's safeReadCloser, reads nothing
// once closed.
type closable struct {
	r      io.Reader
	closed bool
}

func (c *closable) Read(p []byte) (int, error) {
	if c.closed {
		return 0, io.EOF
	}
	return c.r.Read(p)
}

func (c *closable) Close() error { c.closed = true; return nil }

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestBodyOutlivesTheCallersClose: the transport still reads the whole body
// after the caller closed its own (what the SDK does once Do returns, while
// net/http's write loop may still be copying), and can read it again.
func TestBodyOutlivesTheCallersClose(t *testing.T) {
	const payload = `{"TableName":"t"}`
	orig := &closable{r: strings.NewReader(payload)}
	var got, again string
	c := sdkhttp.OwnedBody(&http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		orig.closed = true
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		got = string(b)
		rb, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		b, _ = io.ReadAll(rb)
		again = string(b)
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})})
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", orig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(req); err != nil {
		t.Fatal(err)
	}
	if got != payload || again != payload {
		t.Fatalf("transport read %q, then %q; want %q both times", got, again, payload)
	}
	if !orig.closed {
		t.Error("the caller's body was not closed")
	}
}

// TestNilClientIsDefault: a nil client sends through http.DefaultClient
// (here: refused by a closed port, not a nil dereference).
func TestNilClientIsDefault(t *testing.T) {
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdkhttp.OwnedBody(nil).Do(req); err == nil || errors.Is(err, http.ErrUseLastResponse) {
		t.Fatalf("Do to a closed port: %v; want a connection error", err)
	}
}
