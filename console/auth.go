package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/rs/zerolog"
)

// Authenticator signs a principal in to the console (--auth=sigv4): an
// access key ID and its secret, plus the session token of temporary
// credentials. It returns the principal as the engine's Caller and, for
// temporary credentials, when they expire (zero otherwise); any error
// refuses the sign-in (the error is logged, never shown). cmd wires
// wire.Credentials, which implements it.
type Authenticator interface {
	SignIn(accessKeyID, secret, sessionToken string) (*emulator.Caller, time.Time, error)
}

// Defaults of the sign-in options.
const (
	DefaultSessionTTL   = 8 * time.Hour
	DefaultFailureDelay = time.Second
	// maxBackoff bounds how long one source waits after many failures.
	maxBackoff = time.Minute
	// failureMemory is how long a source's failures are remembered.
	failureMemory = 15 * time.Minute
	// maxSources bounds the failure table: past it, the oldest entries go.
	maxSources = 10000
)

// sessionCookie is the console's session cookie: a random ID of a session
// held in memory, never a credential.
const sessionCookie = "extenddb_console"

// session is one signed-in principal.
type session struct {
	id      string
	caller  *emulator.Caller
	csrf    string
	expires time.Time
	keyID   string
}

// signIns is the console's session store and failed-sign-in table.
type signIns struct {
	auth    Authenticator
	ttl     time.Duration
	delay   time.Duration
	log     zerolog.Logger
	now     func() time.Time
	mu      sync.Mutex
	byID    map[string]*session
	sources map[string]*failures
}

// failures are one source address's recent failed sign-ins.
type failures struct {
	n    int
	last time.Time
	// until is when its next attempt is heard.
	until time.Time
}

func newSignIns(o Options) *signIns {
	s := &signIns{auth: o.Authenticator, ttl: o.SessionTTL, delay: o.FailureDelay, now: time.Now,
		byID: map[string]*session{}, sources: map[string]*failures{}, log: zerolog.Nop()}
	if o.Log != nil {
		s.log = *o.Log
	}
	if s.ttl <= 0 {
		s.ttl = DefaultSessionTTL
	}
	if s.delay <= 0 {
		s.delay = DefaultFailureDelay
	}
	return s
}

func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sourceOf is the address a request came from (its TCP peer: a header
// anyone can set is not trusted).
func sourceOf(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// current is the live session of r's cookie, or nil.
func (s *signIns) current(r *http.Request) *session {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.byID[ck.Value]
	if ss == nil {
		return nil
	}
	if !s.now().Before(ss.expires) {
		delete(s.byID, ss.id)
		return nil
	}
	return ss
}

// wait reports how long source must still wait before a sign-in attempt is
// heard (0: now).
func (s *signIns) wait(source string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.sources[source]; f != nil {
		if d := f.until.Sub(s.now()); d > 0 {
			return d
		}
	}
	return 0
}

// failed records the n-th failed sign-in of source: its next attempt is
// not heard for delay·2^n (the answer itself takes delay), at most
// maxBackoff. Only that source waits.
func (s *signIns) failed(source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	f := s.sources[source]
	if f == nil || now.Sub(f.last) > failureMemory {
		if len(s.sources) >= maxSources {
			s.sweep(now)
		}
		f = &failures{}
		s.sources[source] = f
	}
	f.n++
	f.last = now
	backoff := s.delay << min(f.n, 16)
	f.until = now.Add(min(backoff, maxBackoff))
}

// sweep forgets old failures and expired sessions; with the table still
// full, it forgets the oldest failures (s.mu held).
func (s *signIns) sweep(now time.Time) {
	for k, f := range s.sources {
		if now.Sub(f.last) > failureMemory {
			delete(s.sources, k)
		}
	}
	for len(s.sources) >= maxSources {
		oldest, at := "", now
		for k, f := range s.sources {
			if f.last.Before(at) || oldest == "" {
				oldest, at = k, f.last
			}
		}
		delete(s.sources, oldest)
	}
	for k, ss := range s.byID {
		if !now.Before(ss.expires) {
			delete(s.byID, k)
		}
	}
}

// start opens a session for caller, ending at most at credsExpire.
func (s *signIns) start(source, keyID string, caller *emulator.Caller, credsExpire time.Time) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	delete(s.sources, source)
	s.sweep(now)
	ss := &session{id: randomID(), caller: caller, csrf: randomID(), expires: now.Add(s.ttl), keyID: keyID}
	if !credsExpire.IsZero() && credsExpire.Before(ss.expires) {
		ss.expires = credsExpire
	}
	s.byID[ss.id] = ss
	return ss
}

func (s *signIns) end(ss *session) {
	s.mu.Lock()
	delete(s.byID, ss.id)
	s.mu.Unlock()
}

type sessionKey struct{}

func sessionOf(ctx context.Context) *session {
	ss, _ := ctx.Value(sessionKey{}).(*session)
	return ss
}

// guard serves next to signed-in requests only: it puts the session's
// principal in the context, where the engine authorizes every operation
// as that caller, and refuses a POST whose csrf form field is not the
// session's token (403). The sign-in page and the static files are open.
func (s *signIns) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == Prefix+"/signin" || strings.HasPrefix(p, Prefix+"/static/") {
			next.ServeHTTP(w, r)
			return
		}
		ss := s.current(r)
		if ss == nil {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				if p == Prefix+"/api/timeline" {
					http.Error(w, "401 Unauthorized: sign in to the console first", http.StatusUnauthorized)
					return
				}
				http.Redirect(w, r, Prefix+"/signin?"+url.Values{"next": {r.URL.RequestURI()}}.Encode(), http.StatusSeeOther)
				return
			}
			http.Error(w, "403 Forbidden: not signed in to the console", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost {
			tok := r.PostFormValue("csrf")
			if subtle.ConstantTimeCompare([]byte(tok), []byte(ss.csrf)) != 1 {
				s.log.Warn().Str("path", p).Str("source", sourceOf(r)).Str("principal", ss.caller.ARN).Msg("console: POST without the session's CSRF token refused")
				http.Error(w, "403 Forbidden: the form's CSRF token is missing or wrong; reload the page and try again", http.StatusForbidden)
				return
			}
		}
		caller := *ss.caller
		caller.SourceIP = sourceOf(r)
		ctx := emulator.WithCaller(context.WithValue(r.Context(), sessionKey{}, ss), &caller)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// signInView is the sign-in page's data.
type signInView struct {
	Next        string
	AccessKeyID string
}

// safeNext is where a sign-in goes on: a console path, never elsewhere.
func safeNext(next string) string {
	if strings.HasPrefix(next, Prefix+"/") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return Prefix + "/"
}

func (c *console) signInPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Bare: true,
		Data: signInView{Next: safeNext(r.URL.Query().Get("next"))}})
}

// signIn checks the posted credentials. A failure is logged and answered
// after the failure delay; a source that failed recently is not heard
// again before its backoff ends (429), which holds up no other source.
func (c *console) signIn(w http.ResponseWriter, r *http.Request) {
	s := c.auth
	source := sourceOf(r)
	v := signInView{Next: safeNext(r.PostFormValue("next")), AccessKeyID: strings.TrimSpace(r.PostFormValue("accessKeyId"))}
	p := page{Title: "Sign in", Bare: true, Data: v}
	if d := s.wait(source); d > 0 {
		s.log.Warn().Str("source", source).Str("accessKeyId", v.AccessKeyID).Dur("retryAfter", d).Msg("console: sign-in attempt refused: too many failed sign-ins from this address")
		secs := strconv.Itoa(int((d + time.Second - 1) / time.Second))
		w.Header().Set("Retry-After", secs)
		p.Error = "Too many failed sign-ins from this address: try again in " + secs + " s."
		c.render(w, r, http.StatusTooManyRequests, "signin", p)
		return
	}
	caller, expires, err := s.auth.SignIn(v.AccessKeyID, r.PostFormValue("secretAccessKey"), strings.TrimSpace(r.PostFormValue("sessionToken")))
	if err != nil {
		s.failed(source)
		s.log.Warn().Str("source", source).Str("accessKeyId", v.AccessKeyID).Str("reason", err.Error()).Msg("console: sign-in failed")
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		p.Error = "Sign-in failed: the access key ID, secret access key or session token is not valid."
		c.render(w, r, http.StatusUnauthorized, "signin", p)
		return
	}
	ss := s.start(source, v.AccessKeyID, caller, expires)
	s.log.Info().Str("source", source).Str("accessKeyId", v.AccessKeyID).Str("principal", caller.ARN).Time("expires", ss.expires).Msg("console: signed in")
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: ss.id, Path: Prefix + "/", Expires: ss.expires,
		MaxAge: int(time.Until(ss.expires).Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, v.Next, http.StatusSeeOther)
}

// signOut ends the session server-side and drops the cookie.
func (c *console) signOut(w http.ResponseWriter, r *http.Request) {
	if ss := sessionOf(r.Context()); ss != nil {
		c.auth.end(ss)
		c.auth.log.Info().Str("source", sourceOf(r)).Str("principal", ss.caller.ARN).Msg("console: signed out")
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: Prefix + "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}

// The IAM actions that guard the console's pages (doc.go lists which
// guards which). The extenddb:* actions are the API's own controls'
// (wire's ActionThrottle, ActionGetInsights).
const (
	actionListTables                = "dynamodb:ListTables"
	actionDescribeTable             = "dynamodb:DescribeTable"
	actionDescribeTimeToLive        = "dynamodb:DescribeTimeToLive"
	actionDescribeContinuousBackups = "dynamodb:DescribeContinuousBackups"
	actionListTagsOfResource        = "dynamodb:ListTagsOfResource"
	actionScan                      = "dynamodb:Scan"
	actionQuery                     = "dynamodb:Query"
	actionGetItem                   = "dynamodb:GetItem"
	actionPutItem                   = "dynamodb:PutItem"
	actionDeleteItem                = "dynamodb:DeleteItem"
	actionDescribeStream            = "dynamodb:DescribeStream"
	actionGetShardIterator          = "dynamodb:GetShardIterator"
	actionGetRecords                = "dynamodb:GetRecords"
	actionListBulkOperations        = "dynamodb:ListBulkOperations"
	actionDescribeBulkOperation     = "dynamodb:DescribeBulkOperation"
	// ActionThrottle reads a table's throttle buckets and timeline;
	// ActionGetInsights its hottest keys.
	ActionThrottle    = "extenddb:Throttle"
	ActionGetInsights = "extenddb:GetInsights"
)
