package s3store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/objstore/s3store"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// fake starts gofakes3 with bucket bkt behind wrap (nil: none) and
// returns its backend and URL.
func fake(t *testing.T, wrap func(http.Handler) http.Handler) (*s3mem.Backend, string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	var h http.Handler = gofakes3.New(backend).Server()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return backend, srv.URL
}

func newStore(t *testing.T, opts s3store.Options) *s3store.Store {
	t.Helper()
	s, err := s3store.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s3store.SetBackoff(s, time.Millisecond)
	return s
}

// awkwardKeys need S3's path encoding: a space, '+', '%', '?', '#',
// unicode, nested and doubled slashes, the reserved characters.
var awkwardKeys = []string{
	"sp/a b.json",
	"plus/a+b",
	"pct/100%/a%2Fb%zz",
	"q/what?x=1&y=2",
	"hash/#frag#",
	"uni/héllo/日本語/😀",
	"nest/a/b/c/d/e.json.gz",
	"dbl//slash/",
	"res/!$&'()*,;=:@[]~",
}

// TestAwkwardKeysRoundTrip: every key reaches the server as itself (the
// backend is asked directly, so an encoding both directions agree on but
// S3 does not would fail) and comes back from Get, Open and List.
func TestAwkwardKeysRoundTrip(t *testing.T) {
	backend, url := fake(t, nil)
	s := newStore(t, s3store.Options{Endpoint: url})
	ctx := context.Background()
	for _, k := range awkwardKeys {
		if _, err := s.Put(ctx, "bkt", k, []byte("v:"+k)); err != nil {
			t.Fatalf("Put %q: %v", k, err)
		}
		if _, err := backend.HeadObject("bkt", k); err != nil {
			t.Errorf("the server has no object %q: %v", k, err)
		}
		if b, err := s.Get(ctx, "bkt", k); err != nil || string(b) != "v:"+k {
			t.Errorf("Get %q = %q, %v", k, b, err)
		}
		rc, n, err := s.Open(ctx, "bkt", k)
		if err != nil {
			t.Errorf("Open %q: %v", k, err)
			continue
		}
		b, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil || string(b) != "v:"+k || n != int64(len(b)) {
			t.Errorf("Open %q = %q of size %d, %v", k, b, n, err)
		}
		if keys, err := s.List(ctx, "bkt", k); err != nil || !slices.Contains(keys, k) {
			t.Errorf("List(%q) = %q, %v", k, keys, err)
		}
	}
	want := slices.Clone(awkwardKeys)
	slices.Sort(want)
	if keys, err := s.List(ctx, "bkt", ""); err != nil || !slices.Equal(keys, want) {
		t.Errorf("List() = %q, %v; want %q", keys, err, want)
	}
	for _, k := range awkwardKeys {
		if err := s.Delete(ctx, "bkt", k); err != nil {
			t.Errorf("Delete %q: %v", k, err)
		}
		if _, err := backend.HeadObject("bkt", k); err == nil {
			t.Errorf("%q outlived its Delete", k)
		}
	}
}

// TestRequestPath pins the request line (path style, a key's bytes
// percent-encoded but its slashes, an endpoint's own path kept) and
// Accept-Encoding.
func TestRequestPath(t *testing.T) {
	var mu sync.Mutex
	var uris, encodings []string
	_, url := fake(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			uris = append(uris, r.RequestURI)
			encodings = append(encodings, r.Header.Get("Accept-Encoding"))
			mu.Unlock()
			http.StripPrefix("/base", h).ServeHTTP(w, r)
		})
	})
	s := newStore(t, s3store.Options{Endpoint: url + "/base/"})
	if _, err := s.Put(context.Background(), "bkt", "a b/c+d%é~", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(context.Background(), "bkt", "a b/"); err != nil {
		t.Fatal(err)
	}
	want := []string{"/base/bkt/a%20b/c%2Bd%25%C3%A9~", "/base/bkt?list-type=2&prefix=a%20b%2F"}
	if !slices.Equal(uris, want) {
		t.Errorf("request URIs %q, want %q", uris, want)
	}
	// Objects come back as stored, not gzipped in transit and unzipped by
	// net/http, which would lose Open's size.
	if !slices.Equal(encodings, []string{"identity", "identity"}) {
		t.Errorf("Accept-Encoding %q, want identity", encodings)
	}
}

// TestListPages: List follows continuation tokens to the last page.
func TestListPages(t *testing.T) {
	var listCalls, withToken atomic.Int32
	_, url := fake(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("list-type") == "2" {
				listCalls.Add(1)
				if r.URL.Query().Get("continuation-token") != "" {
					withToken.Add(1)
				}
			}
			h.ServeHTTP(w, r)
		})
	})
	s := newStore(t, s3store.Options{Endpoint: url})
	s3store.SetPageSize(s, 2)
	ctx := context.Background()
	var want []string
	for _, k := range []string{"a", "pg/1", "pg/2", "pg/3", "pg/4", "pg/5", "pg/6", "pg/7", "z"} {
		if _, err := s.Put(ctx, "bkt", k, nil); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(k, "pg/") {
			want = append(want, k)
		}
	}
	keys, err := s.List(ctx, "bkt", "pg/")
	if err != nil || !slices.Equal(keys, want) {
		t.Errorf("List(pg/) = %q, %v; want %q", keys, err, want)
	}
	if n, tok := listCalls.Load(), withToken.Load(); n < 4 || tok != n-1 {
		t.Errorf("%d list requests, %d with a continuation token; want 4 or more, all but the first with one", n, tok)
	}
	if all, err := s.List(ctx, "bkt", ""); err != nil || len(all) != 9 {
		t.Errorf("List() = %q, %v", all, err)
	}
}

// TestSigning: requests carry SigV4 for the configured region and service
// s3, the payload's SHA-256, and a signature that matches what was sent
// (re-signed here from the request as received).
func TestSigning(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}
	var mu sync.Mutex
	var problems []string
	var seen int
	_, url := fake(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			seen++
			problems = append(problems, checkSignature(r, body, creds, "eu-west-3")...)
			mu.Unlock()
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			h.ServeHTTP(w, r)
		})
	})
	s := newStore(t, s3store.Options{Endpoint: url, Region: "eu-west-3",
		AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey})
	ctx := context.Background()
	key := "sig/a b+c%d?é#/x"
	if _, err := s.Put(ctx, "bkt", key, []byte("payload")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "bkt", "sig/empty", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "bkt", key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, "bkt", "sig/a b+"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "bkt", key); err != nil {
		t.Fatal(err)
	}
	if seen != 5 {
		t.Errorf("%d requests, want 5", seen)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// checkSignature checks r's SigV4 headers and signature.
func checkSignature(r *http.Request, body []byte, creds aws.Credentials, region string) []string {
	var problems []string
	bad := func(f string) { problems = append(problems, r.Method+" "+r.RequestURI+": "+f) }
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if len(body) == 0 && hash != s3store.EmptySHA256 {
		bad("EmptySHA256 is not the hash of no bytes")
	}
	if got := r.Header.Get("X-Amz-Content-Sha256"); got != hash {
		bad("X-Amz-Content-Sha256 " + got + ", want " + hash)
	}
	auth := r.Header.Get("Authorization")
	date := r.Header.Get("X-Amz-Date")
	if len(date) < 8 {
		bad("X-Amz-Date " + date)
		return problems
	}
	scope := "AWS4-HMAC-SHA256 Credential=" + creds.AccessKeyID + "/" + date[:8] + "/" + region + "/s3/aws4_request, "
	if !strings.HasPrefix(auth, scope) {
		bad("Authorization " + auth + ", want it to start " + scope)
	}
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	for _, h := range []string{"host", "x-amz-content-sha256", "x-amz-date"} {
		if !slices.Contains(strings.Split(signed, ";"), h) {
			bad("SignedHeaders " + signed + " lacks " + h)
		}
	}
	// Re-sign the request as received, with only its signed headers.
	re, err := http.NewRequest(r.Method, "http://"+r.Host+r.RequestURI, nil)
	if err != nil {
		bad(err.Error())
		return problems
	}
	re.ContentLength = r.ContentLength
	for _, h := range strings.Split(signed, ";") {
		if h != "host" && h != "content-length" {
			re.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	at, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		bad(err.Error())
		return problems
	}
	err = v4.NewSigner().SignHTTP(context.Background(), creds, re, hash, "s3", region, at,
		func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err != nil {
		bad(err.Error())
	} else if want := re.Header.Get("Authorization"); want != auth {
		bad("Authorization " + auth + ", re-signed " + want)
	}
	return problems
}

// TestErrorMapping: S3's codes, with or without a body, map as the SDK's
// did; others stay errors of their own.
func TestErrorMapping(t *testing.T) {
	_, url := fake(t, nil)
	s := newStore(t, s3store.Options{Endpoint: url})
	ctx := context.Background()
	if _, err := s.Get(ctx, "missing-bucket", "k"); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("Get from a missing bucket: %v", err)
	}
	if err := s.Delete(ctx, "missing-bucket", "k"); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("Delete from a missing bucket: %v", err)
	}
	if _, err := s.Get(ctx, "bkt", "missing/key"); !errors.Is(err, objstore.ErrNoSuchKey) {
		t.Errorf("Get of a missing key: %v", err)
	}
	if err := s.Delete(ctx, "bkt", "missing/key"); err != nil {
		t.Errorf("Delete of a missing key: %v", err)
	}

	for _, c := range []struct {
		status int
		body   string
		want   error // nil: none of the sentinels
		text   string
	}{
		{403, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`, objstore.ErrAccessDenied, ""},
		{404, `<Error><Code>NoSuchKey</Code><Message>gone</Message><Key>k</Key></Error>`, objstore.ErrNoSuchKey, ""},
		{404, `<Error><Code>NoSuchBucket</Code><Message>no</Message></Error>`, objstore.ErrNoSuchBucket, ""},
		{404, ``, objstore.ErrNoSuchKey, ""},
		{403, ``, objstore.ErrAccessDenied, ""},
		{400, `<Error><Code>InvalidArgument</Code><Message>bad thing</Message></Error>`, nil, "InvalidArgument: bad thing"},
		{404, `<html>not S3</html`, nil, "UnknownError"},
		{409, ``, nil, "Conflict"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		s := newStore(t, s3store.Options{Endpoint: srv.URL})
		_, err := s.Get(ctx, "bkt", "k")
		srv.Close()
		switch {
		case err == nil:
			t.Errorf("%d %q: no error", c.status, c.body)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%d %q: %v, want %v", c.status, c.body, err, c.want)
		case c.want == nil && (errors.Is(err, objstore.ErrNoSuchKey) || errors.Is(err, objstore.ErrNoSuchBucket) ||
			errors.Is(err, objstore.ErrAccessDenied) || !strings.Contains(err.Error(), c.text)):
			t.Errorf("%d %q: %v, want an error saying %q", c.status, c.body, err, c.text)
		}
	}
}

// TestRetries: throttling and 5xx are retried up to three attempts; a
// client error is not.
func TestRetries(t *testing.T) {
	var calls, fail atomic.Int32
	_, url := fake(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			if fail.Add(-1) >= 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	s := newStore(t, s3store.Options{Endpoint: url})
	ctx := context.Background()

	fail.Store(2)
	if _, err := s.Put(ctx, "bkt", "k", []byte("v")); err != nil || calls.Load() != 3 {
		t.Errorf("Put after two SlowDowns: %v after %d requests, want success after 3", err, calls.Load())
	}
	calls.Store(0)
	fail.Store(3)
	if _, err := s.Get(ctx, "bkt", "k"); err == nil || !strings.Contains(err.Error(), "SlowDown") || calls.Load() != 3 {
		t.Errorf("Get after three SlowDowns: %v after %d requests, want SlowDown after 3", err, calls.Load())
	}
	calls.Store(0)
	fail.Store(0)
	if _, err := s.Get(ctx, "bkt", "nope"); !errors.Is(err, objstore.ErrNoSuchKey) || calls.Load() != 1 {
		t.Errorf("Get of a missing key: %v after %d requests, want ErrNoSuchKey after 1", err, calls.Load())
	}
}

// TestContext: a done context ends a request, and is not retried.
func TestContext(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		<-r.Context().Done()
	}))
	defer srv.Close()
	s := newStore(t, s3store.Options{Endpoint: srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.Get(ctx, "bkt", "k"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Get: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second || calls.Load() != 1 {
		t.Errorf("Get took %v and %d requests", d, calls.Load())
	}
}

// TestRefusedNames: an empty bucket or key would address something else.
func TestRefusedNames(t *testing.T) {
	var calls atomic.Int32
	_, url := fake(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); h.ServeHTTP(w, r) })
	})
	s := newStore(t, s3store.Options{Endpoint: url})
	ctx := context.Background()
	if _, err := s.Put(ctx, "bkt", "", []byte("x")); err == nil {
		t.Error("Put with an empty key: no error")
	}
	if _, err := s.Get(ctx, "", "k"); err == nil {
		t.Error("Get from an empty bucket name: no error")
	}
	if _, err := s.List(ctx, "", ""); err == nil {
		t.Error("List of an empty bucket name: no error")
	}
	if err := s.Delete(ctx, "bkt", ""); err == nil {
		t.Error("Delete with an empty key: no error")
	}
	if calls.Load() != 0 {
		t.Errorf("%d requests sent", calls.Load())
	}
	if _, err := s3store.New(s3store.Options{Endpoint: "127.0.0.1:9000"}); err == nil {
		t.Error("New with an endpoint without a scheme: no error")
	}
}
