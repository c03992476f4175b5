package console_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/extenddb/extenddb/console"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
	"github.com/rs/zerolog"
)

// consoleCredentials: the SDK client's key may do anything; the reader
// may list, describe and read but not write; the lister may only list
// tables. The role is assumable by the account's principals.
var consoleCredentials = `users:
  - accessKeyId: ` + testserver.DefaultAccessKeyID + `
    secretAccessKey: ` + testserver.DefaultSecretKey + `
    account: "111111111111"
    policies:
      - {Statement: [{Effect: Allow, Action: "*", Resource: "*"}]}
  - accessKeyId: AKIAREADER
    secretAccessKey: reader-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/reader
    policies:
      - Statement:
          - Effect: Allow
            Action: [dynamodb:ListTables, dynamodb:DescribeTable, dynamodb:Scan, dynamodb:Query, dynamodb:GetItem]
            Resource: "*"
  - accessKeyId: AKIALISTER
    secretAccessKey: lister-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/lister
    policies:
      - {Statement: [{Effect: Allow, Action: dynamodb:ListTables, Resource: "*"}]}
roles:
  - arn: arn:aws:iam::111111111111:role/writer
    trust: ["111111111111"]
    policies:
      - {Statement: [{Effect: Allow, Action: "dynamodb:*", Resource: "*"}]}
`

// authEnv is a server under --auth=sigv4 with the console asking for a
// sign-in; log collects the console's log lines.
type authEnv struct {
	*env
	log *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newAuthEnv(t *testing.T, failureDelay time.Duration) *authEnv {
	t.Helper()
	creds, err := wire.ParseCredentials([]byte(consoleCredentials))
	if err != nil {
		t.Fatal(err)
	}
	buf := &syncBuffer{}
	log := zerolog.New(buf)
	e := newEnvWith(t, func(o *console.Options) {
		o.Authenticator, o.Log, o.FailureDelay = creds, &log, failureDelay
	}, testserver.WithWireOptions(func(o *wire.Options) { o.Credentials = creds }))
	return &authEnv{env: e, log: buf}
}

// signIn posts the sign-in form and returns the response (body read).
func (e *authEnv) signIn(key, secret, token string) (*http.Response, string) {
	e.t.Helper()
	resp, err := noRedirect.PostForm(e.s.URL+console.Prefix+"/signin",
		url.Values{"accessKeyId": {key}, "secretAccessKey": {secret}, "sessionToken": {token}, "next": {"/console/"}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// session signs in and returns the session cookie.
func (e *authEnv) session(key, secret, token string) *http.Cookie {
	e.t.Helper()
	resp, body := e.signIn(key, secret, token)
	if resp.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign-in as %s: %d\n%s", key, resp.StatusCode, body)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "extenddb_console" {
			return c
		}
	}
	e.t.Fatalf("sign-in as %s set no session cookie: %v", key, resp.Header["Set-Cookie"])
	return nil
}

// do sends a request with the session cookie (nil: none).
func (e *authEnv) do(method, path string, form url.Values, ck *http.Cookie) (int, string, http.Header) {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, e.s.URL+console.Prefix+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if ck != nil {
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the session's form token from a page.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in\n%s", page)
	}
	return m[1]
}

// TestSignInSession: under --auth=sigv4 every console page asks for a
// sign-in; a good one sets a random session ID in an HttpOnly,
// SameSite=Strict, expiring cookie for /console/ only (never the secret),
// and the pages then act as that principal; sign-out ends the session on
// the server.
func TestSignInSession(t *testing.T) {
	e := newAuthEnv(t, 10*time.Millisecond)
	for _, p := range []string{"/", "/table?t=Orders&ns=" + url.QueryEscape(e.ns), "/items?t=Orders", "/iac"} {
		code, _, h := e.do("GET", p, nil, nil)
		if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/console/signin?next=") {
			t.Errorf("GET %s unsigned: %d %s", p, code, h.Get("Location"))
		}
	}
	if code, _, _ := e.do("GET", "/api/timeline?t=Orders", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("timeline unsigned: %d", code)
	}
	if code, _, _ := e.do("POST", "/item", url.Values{"ns": {e.ns}, "t": {"Orders"}, "action": {"create"}, "item": {`{"pk":{"S":"x"},"sk":{"N":"1"}}`}}, nil); code != http.StatusForbidden {
		t.Errorf("POST /item unsigned: %d", code)
	}
	if code, body, _ := e.do("GET", "/signin", nil, nil); code != 200 || !strings.Contains(body, `id="secretAccessKey"`) {
		t.Errorf("sign-in page: %d\n%s", code, body)
	}

	resp, _ := e.signIn("AKIAREADER", "reader-secret", "")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/" {
		t.Fatalf("sign-in: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	set := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"extenddb_console=", "Path=/console/", "HttpOnly", "SameSite=Strict", "Max-Age=", "Expires="} {
		if !strings.Contains(set, want) {
			t.Errorf("Set-Cookie %q has no %s", set, want)
		}
	}
	ck := resp.Cookies()[0]
	if strings.Contains(set, "reader-secret") || strings.Contains(set, "AKIAREADER") || len(ck.Value) < 40 {
		t.Errorf("cookie value %q: want a long random ID, not the credentials", ck.Value)
	}
	if d := time.Until(ck.Expires); d < 7*time.Hour || d > 8*time.Hour+time.Minute {
		t.Errorf("cookie expires in %s, want 8h", d)
	}
	if ck2 := e.session("AKIAREADER", "reader-secret", ""); ck2.Value == ck.Value {
		t.Error("two sign-ins share a session ID")
	}

	code, body, _ := e.do("GET", "/", nil, ck)
	mustContain(t, "home signed in", body, "Orders", "arn:aws:iam::111111111111:user/reader", `id="signout"`)
	if code != 200 {
		t.Errorf("home signed in: %d", code)
	}

	// Sign-out without the form's token is refused and ends nothing.
	if code, _, _ := e.do("POST", "/signout", url.Values{}, ck); code != http.StatusForbidden {
		t.Errorf("sign-out without CSRF token: %d", code)
	}
	if code, _, _ := e.do("GET", "/", nil, ck); code != 200 {
		t.Errorf("after a refused sign-out: %d", code)
	}
	code, _, h := e.do("POST", "/signout", url.Values{"csrf": {csrf(t, body)}}, ck)
	if code != http.StatusSeeOther || h.Get("Location") != "/console/signin" || !strings.Contains(h.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("sign-out: %d %v", code, h)
	}
	// The old cookie, replayed, no longer opens anything.
	if code, _, h := e.do("GET", "/", nil, ck); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/console/signin") {
		t.Errorf("the signed-out session still works: %d %s", code, h.Get("Location"))
	}
	if !strings.Contains(e.log.String(), `"message":"console: signed in"`) || !strings.Contains(e.log.String(), `"message":"console: signed out"`) {
		t.Errorf("log:\n%s", e.log)
	}
}

// TestSignInAuthorized: every page and action is authorized as the
// signed-in principal, refused with the API's AccessDeniedException text
// naming the action (403); temporary credentials of an assumed role sign
// in with their session token.
func TestSignInAuthorized(t *testing.T) {
	e := newAuthEnv(t, 10*time.Millisecond)
	e.put("a", 1, "first")
	ns := url.QueryEscape(e.ns)
	lister := e.session("AKIALISTER", "lister-secret", "")
	reader := e.session("AKIAREADER", "reader-secret", "")
	for _, c := range []struct {
		ck     *http.Cookie
		path   string
		status int
		want   string
	}{
		{lister, "/", 200, "Orders"},
		{lister, "/table?t=Orders&ns=" + ns, 403, "AccessDeniedException: User: arn:aws:iam::111111111111:user/lister is not authorized to perform: dynamodb:DescribeTable on resource: arn:aws:dynamodb:us-east-1:111111111111:table/Orders"},
		{lister, "/items?t=Orders&ns=" + ns, 403, "dynamodb:Scan"},
		{lister, "/query?t=Orders&ns=" + ns, 403, "dynamodb:Query"},
		{lister, "/item?t=Orders&ns=" + ns + "&key=" + url.QueryEscape(`{"pk":{"S":"a"},"sk":{"N":"1"}}`), 403, "dynamodb:GetItem"},
		{lister, "/throttle?t=Orders&ns=" + ns, 403, "extenddb:Throttle"},
		{lister, "/stream?t=Orders&ns=" + ns, 403, "dynamodb:DescribeTable"},
		{lister, "/iac", 200, "Infrastructure"},
		{reader, "/items?t=Orders&ns=" + ns, 200, "first"},
		{reader, "/new?t=Orders&ns=" + ns, 403, "dynamodb:PutItem"},
		{reader, "/throttle?t=Orders&ns=" + ns, 403, "extenddb:Throttle"},
		{reader, "/stream?t=Orders&ns=" + ns, 403, "dynamodb:DescribeStream"},
		// Another account's namespace: its tables cannot be listed.
		{reader, "/?ns=" + url.QueryEscape("000000000000/us-east-1"), 403, "dynamodb:ListTables on resource: arn:aws:dynamodb:us-east-1:000000000000:table/*"},
	} {
		code, body, _ := e.do("GET", c.path, nil, c.ck)
		if code != c.status || !strings.Contains(body, c.want) {
			t.Errorf("GET %s as %s: %d, want %d with %q\n%s", c.path, map[bool]string{true: "lister", false: "reader"}[c.ck == lister], code, c.status, c.want, body)
		}
	}
	// A refused save writes nothing.
	_, page, _ := e.do("GET", "/item?t=Orders&ns="+ns+"&key="+url.QueryEscape(`{"pk":{"S":"a"},"sk":{"N":"1"}}`), nil, reader)
	form := url.Values{"ns": {e.ns}, "t": {"Orders"}, "action": {"save"}, "csrf": {csrf(t, page)},
		"seen": {`{"pk":{"S":"a"},"sk":{"N":"1"},"note":{"S":"first"}}`}, "item": {`{"pk":{"S":"a"},"sk":{"N":"1"},"note":{"S":"changed"}}`}}
	if code, body, _ := e.do("POST", "/item", form, reader); code != 403 || !strings.Contains(body, "not authorized to perform: dynamodb:PutItem") {
		t.Errorf("save without dynamodb:PutItem: %d\n%s", code, body)
	}
	if n, _ := e.note("a", 1); n != "first" {
		t.Errorf("refused save wrote %q", n)
	}

	// An assumed role's temporary credentials sign in with their token.
	out, err := sts.NewFromConfig(e.s.ConfigWith("us-east-1", credentials.NewStaticCredentialsProvider(testserver.DefaultAccessKeyID, testserver.DefaultSecretKey, ""))).
		AssumeRole(context.Background(), &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::111111111111:role/writer"), RoleSessionName: aws.String("web")})
	if err != nil {
		t.Fatal(err)
	}
	tc := out.Credentials
	if resp, _ := e.signIn(*tc.AccessKeyId, *tc.SecretAccessKey, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("temporary credentials without their token: %d", resp.StatusCode)
	}
	time.Sleep(50 * time.Millisecond) // the failure's backoff
	writer := e.session(*tc.AccessKeyId, *tc.SecretAccessKey, *tc.SessionToken)
	if d := time.Until(writer.Expires); d > time.Hour+time.Minute {
		t.Errorf("a session of 1-hour credentials expires in %s", d)
	}
	_, page, _ = e.do("GET", "/item?t=Orders&ns="+ns+"&key="+url.QueryEscape(`{"pk":{"S":"a"},"sk":{"N":"1"}}`), nil, writer)
	mustContain(t, "assumed role's item page", page, "arn:aws:sts::111111111111:assumed-role/writer/web")
	form.Set("csrf", csrf(t, page))
	if code, body, _ := e.do("POST", "/item", form, writer); code != http.StatusSeeOther {
		t.Errorf("save as the role: %d\n%s", code, body)
	}
	if n, _ := e.note("a", 1); n != "changed" {
		t.Errorf("after the role's save: %q", n)
	}
}

// TestSignInCSRF: a POST that carries the session cookie but not the
// session's form token (a forged form) is refused with 403 and writes
// nothing; another session's token does not do either.
func TestSignInCSRF(t *testing.T) {
	e := newAuthEnv(t, 10*time.Millisecond)
	ck := e.session(testserver.DefaultAccessKeyID, testserver.DefaultSecretKey, "")
	other := e.session(testserver.DefaultAccessKeyID, testserver.DefaultSecretKey, "")
	_, otherPage, _ := e.do("GET", "/", nil, other)
	form := url.Values{"ns": {e.ns}, "t": {"Orders"}, "action": {"create"}, "item": {`{"pk":{"S":"forged"},"sk":{"N":"1"}}`}}
	for _, tok := range []string{"", "bogus", csrf(t, otherPage)} {
		if tok != "" {
			form.Set("csrf", tok)
		}
		if code, body, _ := e.do("POST", "/item", form, ck); code != http.StatusForbidden || !strings.Contains(body, "CSRF") {
			t.Errorf("POST with csrf %q: %d %s", tok, code, body)
		}
	}
	if _, ok := e.note("forged", 1); ok {
		t.Fatal("a forged form wrote an item")
	}
	_, page, _ := e.do("GET", "/new?t=Orders&ns="+url.QueryEscape(e.ns), nil, ck)
	form.Set("csrf", csrf(t, page))
	if code, body, _ := e.do("POST", "/item", form, ck); code != http.StatusSeeOther {
		t.Errorf("POST with the session's token: %d %s", code, body)
	}
	if _, ok := e.note("forged", 1); !ok {
		t.Error("the genuine form wrote nothing")
	}
	if !strings.Contains(e.log.String(), "CSRF token refused") {
		t.Errorf("log:\n%s", e.log)
	}
}

// TestSignInFailuresSlowed: a failed sign-in is logged (without the
// secret) and answered only after the failure delay; the same address is
// then not heard until its backoff ends (429, answered at once), while
// another address signs in undelayed.
func TestSignInFailuresSlowed(t *testing.T) {
	const delay = 300 * time.Millisecond
	e := newAuthEnv(t, delay)
	post := func(addr, key, secret string) (*httptest.ResponseRecorder, time.Duration) {
		form := url.Values{"accessKeyId": {key}, "secretAccessKey": {secret}}
		req := httptest.NewRequest("POST", console.Prefix+"/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = addr
		w := httptest.NewRecorder()
		start := time.Now()
		e.h.ServeHTTP(w, req)
		return w, time.Since(start)
	}
	w, took := post("192.0.2.1:1000", "AKIAREADER", "wrong-secret")
	if w.Code != http.StatusUnauthorized || took < delay || !strings.Contains(w.Body.String(), "Sign-in failed") {
		t.Errorf("wrong secret: %d after %s", w.Code, took)
	}
	if w.Header().Get("Set-Cookie") != "" {
		t.Error("a failed sign-in set a cookie")
	}
	log := e.log.String()
	for _, want := range []string{`"message":"console: sign-in failed"`, `"source":"192.0.2.1"`, `"accessKeyId":"AKIAREADER"`, `"reason":"the secret access key does not match"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log has no %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "wrong-secret") {
		t.Error("the log holds the secret tried")
	}
	// The same address, at once: not heard, even with the right secret.
	w, took = post("192.0.2.1:1001", "AKIAREADER", "reader-secret")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || took > delay/2 {
		t.Errorf("retry within the backoff: %d after %s (Retry-After %q)", w.Code, took, w.Header().Get("Retry-After"))
	}
	// Another address is neither delayed nor refused.
	w, took = post("192.0.2.2:1000", "AKIAREADER", "reader-secret")
	if w.Code != http.StatusSeeOther || took > delay/2 {
		t.Errorf("another address: %d after %s", w.Code, took)
	}
	// An unknown key fails the same way, after the delay.
	w, took = post("192.0.2.3:1000", "AKIANOBODY", "x")
	if w.Code != http.StatusUnauthorized || took < delay || !strings.Contains(e.log.String(), `"reason":"the access key ID is not in the credentials file`) {
		t.Errorf("unknown key: %d after %s", w.Code, took)
	}
	// After the backoff (2 × delay from the failure) the first address is heard again.
	time.Sleep(2 * delay)
	if w, _ = post("192.0.2.1:1002", "AKIAREADER", "reader-secret"); w.Code != http.StatusSeeOther {
		t.Errorf("after the backoff: %d", w.Code)
	}
}
