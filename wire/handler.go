package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/gorilla/mux"
	"github.com/rs/zerolog"
)

// Options configures the handler.
type Options struct {
	// DefaultAccount is the account of requests whose access key maps to
	// none; default "000000000000".
	DefaultAccount string
	// DefaultRegion is the Region of unsigned requests; default "us-east-1".
	DefaultRegion string
	// AccessKeyAccounts maps access key IDs to accounts. A key that is itself
	// a 12-digit account ID needs no entry: it is that account.
	AccessKeyAccounts map[string]string
	// AccountPerAccessKey gives every other access key an account of its
	// own, derived from the key (DerivedAccount), as DynamoDB Local keeps
	// separate data per key. Off: such keys share DefaultAccount.
	AccountPerAccessKey bool
	// SingleNamespace puts every request in (DefaultAccount, DefaultRegion)
	// whatever its credentials, like DynamoDB Local's -sharedDb.
	SingleNamespace bool
	// Logger defaults to a disabled logger.
	Logger *zerolog.Logger
	// Mounts are served before the API, each on its path prefix (the
	// console, /metrics); a POST under a mounted prefix is theirs.
	Mounts []Mount
	// OnRequest, when set, is called after each DynamoDB and DynamoDB
	// Streams response is written (mounts.go).
	OnRequest func(RequestDone)
	// Credentials, when set, turn on --auth=sigv4: every request must be
	// signed with a key they know, acts in that key's account, and is
	// authorized against its identity policies and the resource policies.
	Credentials *Credentials
	// RequestTimeout bounds the work of one DynamoDB or Streams request:
	// one still running then stops and is answered InternalServerError
	// (HTTP 500, which SDKs retry). Zero means DefaultRequestTimeout,
	// negative no deadline.
	RequestTimeout time.Duration
}

// DefaultRequestTimeout is Options.RequestTimeout's default.
const DefaultRequestTimeout = 30 * time.Second

// Why a request stopped before its work was done (RequestDone.Stopped).
const (
	// StoppedCancelled: its client went away; it was not answered.
	StoppedCancelled = "cancelled"
	// StoppedDeadline: it ran past Options.RequestTimeout.
	StoppedDeadline = "deadline"
)

// msgDeadline is the InternalServerError message of a request that ran
// past its deadline (DynamoDB's own 500s say only "Internal server error").
const msgDeadline = "Internal server error: the request ran past the server's request timeout (--request-timeout)"

// contentTypeJSON10 is the media type of DynamoDB's JSON 1.0 protocol.
const contentTypeJSON10 = "application/x-amz-json-1.0"

type handler struct {
	eng     *emulator.Engine
	opts    Options
	log     zerolog.Logger
	dynamo  map[string]operation
	streams map[string]operation
	bufs    bufferPool // request bodies and responses of serveAPI
	bodies  *bodyBudget
	trim    memoryTrim
}

// NewHandler returns the HTTP handler serving the DynamoDB, DynamoDB Streams
// and STS APIs over eng.
func NewHandler(eng *emulator.Engine, opts Options) http.Handler {
	return newHandler(eng, opts).routes()
}

func newHandler(eng *emulator.Engine, opts Options) *handler {
	if opts.DefaultAccount == "" {
		opts.DefaultAccount = DefaultAccount
	}
	if opts.DefaultRegion == "" {
		opts.DefaultRegion = DefaultRegion
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	h := &handler{
		eng:     eng,
		opts:    opts,
		log:     zerolog.Nop(),
		dynamo:  dynamoDBOperations(),
		streams: streamsOperations(),
		bodies:  newBodyBudget(bodyBudgetBytes),
	}
	if opts.Logger != nil {
		h.log = *opts.Logger
	}
	return h
}

func (h *handler) routes() http.Handler {
	// Every SDK posts to "/", which no mount or admin route serves: those
	// requests skip the router's matching and the request copy it makes.
	// The router is built on the first request that needs it: its routes'
	// patterns compile to regular expressions, which every start paid for
	// before its first answer (issue 36).
	api := serverHeader(refuseOversized(refuseBrowsers(http.HandlerFunc(h.serveAPI))))
	router := sync.OnceValue(h.router)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.URL.Path == "/" {
			api.ServeHTTP(w, req)
			return
		}
		router().ServeHTTP(w, req)
	})
}

// router serves everything but the API's POST /: health checks, mounts
// (the console, /metrics), the admin controls and snapshots.
func (h *handler) router() *mux.Router {
	r := mux.NewRouter()
	// No path cleaning: "POST //" is served like "POST /", not redirected.
	r.SkipClean(true)
	r.Use(serverHeader, refuseOversized, refuseBrowsers)
	r.Methods(http.MethodGet).Path("/").HandlerFunc(h.health)
	for _, m := range h.opts.Mounts {
		r.PathPrefix(m.Prefix).Handler(m.Handler)
	}
	h.adminRoutes(r)
	h.snapshotRoutes(r)
	// DynamoDB ignores the path of a POST; so do we.
	r.Methods(http.MethodPost).HandlerFunc(h.serveAPI)
	r.NotFoundHandler = http.HandlerFunc(h.notFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(h.notFound)
	return r
}

// health answers DynamoDB's load-balancer health check (and a presigned
// STS query, which is a GET with an Action).
func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("Action") != "" {
		if h.opts.Credentials != nil {
			// Presigned requests are not verified: refuse them as unsigned.
			h.refuse(w, authError(CodeMissingAuthenticationToken, msgMissingToken), false, true, "", time.Now())
			return
		}
		h.serveSTSQuery(w, r, h.opts.namespace(requestScope(r)), nil, nil, time.Now())
		return
	}
	region := requestScope(r).Region
	if region == "" {
		region = regionFromHost(r.Host)
	}
	if region == "" {
		region = h.opts.DefaultRegion
	}
	ns := api.Namespace{Region: region}
	body := "healthy: dynamodb." + region + "." + dnsSuffix(ns.Partition()) + " "
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body)
}

// regionFromHost reads the Region of a dynamodb.REGION.amazonaws.com host.
func regionFromHost(host string) string {
	rest, ok := strings.CutPrefix(strings.ToLower(host), "dynamodb.")
	if !ok {
		return ""
	}
	region, _, ok := strings.Cut(rest, ".")
	if !ok || !validToken(region) {
		return ""
	}
	return region
}

func dnsSuffix(partition string) string {
	if partition == "aws-cn" {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}

// notFound is DynamoDB's answer to a method or content type it does not
// serve.
func (h *handler) notFound(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("x-amzn-RequestId", newRequestID())
	writeBody(w, http.StatusNotFound, "", []byte("<UnknownOperationException/>\n"))
}

// writeBody sends body with Content-Length and DynamoDB's x-amz-crc32.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	hd := w.Header()
	switch contentType {
	case "":
	case contentTypeJSON10:
		hd["Content-Type"] = contentTypeJSON10Value
	default:
		hd.Set("Content-Type", contentType)
	}
	// Canonical keys set directly: Header.Set would canonicalize them anew
	// on every response. Both values are cut from one string and both
	// value slices from one array: two allocations rather than four.
	var digits [32]byte
	d := strconv.AppendUint(digits[:0], uint64(crc32.ChecksumIEEE(body)), 10)
	crcLen := len(d)
	d = strconv.AppendInt(d, int64(len(body)), 10)
	both := string(d)
	vals := [2]string{both[:crcLen], both[crcLen:]}
	vs := vals[:]
	hd["X-Amz-Crc32"] = vs[0:1:1]
	hd["Content-Length"] = vs[1:2:2]
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// requestIDHeader is x-amzn-RequestId in net/http's canonical form.
const requestIDHeader = "X-Amzn-Requestid"

// Header values shared by every response: net/http never writes into a
// value slice, and one appended to gets a new array (len == cap).
var (
	serverValue            = []string{"Server"}
	contentTypeJSON10Value = []string{contentTypeJSON10}
)

const requestIDAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// newRequestID returns a DynamoDB-style request ID: 52 upper-case
// alphanumerics. An ID must be unique, not secret: math/rand/v2's
// generator (ChaCha8 per thread, seeded by the runtime) serves it without
// the getrandom call crypto/rand makes for every request.
func newRequestID() string {
	var b [52]byte
	for i := 0; i < len(b); {
		// 12 base-36 digits per draw: 36^12 < 2^64.
		r := rand.Uint64()
		for j := 0; j < 12 && i < len(b); j++ {
			b[i] = requestIDAlphabet[r%uint64(len(requestIDAlphabet))]
			r /= uint64(len(requestIDAlphabet))
			i++
		}
	}
	return string(b[:])
}

// errTooLarge is a request body over MaxRequestBytes.
var errTooLarge = errors.New("request body over 16 MB")

// readBody reads the request body into buf (reused when large enough),
// refusing one over MaxRequestBytes (errTooLarge) without reading it all.
func readBody(r *http.Request, buf []byte) ([]byte, error) {
	if r.ContentLength > MaxRequestBytes {
		return nil, errTooLarge
	}
	if n := r.ContentLength; n >= 0 {
		// The declared length, read into a buffer of exactly that size
		// (io.ReadAll would grow one to about twice the body); a body
		// shorter than declared is an error, and net/http stops a longer one.
		var body []byte
		if int64(cap(buf)) >= n {
			body = buf[:n]
		} else {
			body = make([]byte, n)
		}
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxRequestBytes {
		return nil, errTooLarge
	}
	return body, nil
}

// serveAPI serves every POST: DynamoDB and DynamoDB Streams by X-Amz-Target,
// STS by its form-encoded Action (or JSON target).
func (h *handler) serveAPI(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if n := bodyReservation(r.ContentLength); n > 0 {
		if err := h.bodies.acquire(r.Context(), n); err != nil {
			panic(http.ErrAbortHandler) // the client left while it waited
		}
		defer h.bodies.release(n)
	}
	bodyBuf := h.bufs.get()
	body, err := readBody(r, bodyBuf.b)
	// Whatever reads the body (decoders, authentication, the log line)
	// is done with it when serveAPI returns.
	defer func() { h.bufs.put(bodyBuf, body) }()
	if errors.Is(err, errTooLarge) {
		h.refuseTooLarge(w, r, start)
		return
	}
	if err != nil {
		// A body cut short (Content-Length not reached, broken chunking)
		// was not executed: drop the connection rather than let net/http
		// send an empty 200 the client would take for a success.
		h.log.Debug().Err(err).Msg("reading request body")
		panic(http.ErrAbortHandler)
	}
	scope := requestScope(r)
	ns := h.opts.namespace(scope)
	target := r.Header.Get("X-Amz-Target")
	mediaType := requestMediaType(r.Header.Get("Content-Type"))
	stsJSON := strings.HasPrefix(target, targetSTSJSON)
	stsQuery := !stsJSON && target == "" && (mediaType == "application/x-www-form-urlencoded" || scope.Service == "sts")
	kms := strings.HasPrefix(target, targetKMS)
	var id *Identity
	if h.opts.Credentials != nil {
		service := "dynamodb"
		switch {
		case stsJSON || stsQuery:
			service = "sts"
		case kms:
			service = "kms"
		}
		var aerr *api.Error
		id, scope, aerr = h.authenticate(r, body, service, h.now())
		if aerr != nil {
			h.refuse(w, aerr, stsJSON, stsQuery, target, start)
			if !stsJSON && !stsQuery && !kms {
				h.refused(target, ns, body, aerr, w.Header().Get("x-amzn-RequestId"), start)
			}
			return
		}
		ns = api.Namespace{Account: id.Account, Region: scope.Region}
	}

	switch {
	case stsJSON:
		h.serveSTSJSON(w, r, ns, id, body, strings.TrimPrefix(target, targetSTSJSON), start)
	case stsQuery:
		h.serveSTSQuery(w, r, ns, id, body, start)
	case kms:
		h.serveKMS(w, ns, body, strings.TrimPrefix(target, targetKMS), start)
	default:
		h.serveDynamoDB(w, r, ns, id, body, target, mediaType, start)
	}
}

// refuseTooLarge answers a body over MaxRequestBytes without reading it:
// HTTP 413, as DynamoDB refuses it, with an error an SDK can show (the
// limit in its message), and a log line.
func (h *handler) refuseTooLarge(w http.ResponseWriter, r *http.Request, start time.Time) {
	msg := "Request body exceeds the 16 MB (16,777,216 bytes) limit of a DynamoDB request"
	if r.ContentLength > MaxRequestBytes {
		msg = "Request body of " + strconv.FormatInt(r.ContentLength, 10) + " bytes exceeds the 16 MB (16,777,216 bytes) limit of a DynamoDB request"
	}
	e := &api.Error{Code: CodeRequestEntityTooLarge, Message: msg}
	status, resp, _ := encodeError(e)
	requestID := newRequestID()
	w.Header()[requestIDHeader] = []string{requestID}
	writeBody(w, status, contentTypeJSON10, resp)
	target := r.Header.Get("X-Amz-Target")
	if h.opts.OnRequest != nil {
		op, known := h.targetOp(target)
		h.requestDone(RequestDone{Operation: op, Status: status, ErrorCode: e.Code}, known, start)
	}
	h.log.Warn().Int64("contentLength", r.ContentLength).Str("target", target).Str("requestId", requestID).Msg("refused: " + msg)
}

// requestMediaType is the media type of a Content-Type header, without
// its parameters.
func requestMediaType(ct string) string {
	if ct == contentTypeJSON10 {
		return ct // what every SDK sends, without parameters to parse
	}
	if ct == "" {
		return ""
	}
	mediaType, _, _ := mime.ParseMediaType(ct)
	if mediaType == "" {
		mediaType = strings.ToLower(strings.TrimSpace(ct))
	}
	return mediaType
}

// serveDynamoDB runs a DynamoDB or DynamoDB Streams operation, answers
// and logs it (serveAPI's tail, once the request is read and
// authenticated).
func (h *handler) serveDynamoDB(w http.ResponseWriter, r *http.Request, ns api.Namespace, id *Identity, body []byte, target, mediaType string, start time.Time) {
	respType := contentTypeJSON10
	reason := "" // for the log line: what about the request is unusual
	switch mediaType {
	case contentTypeJSON10:
	case "":
		if len(body) > 0 {
			reason = "no Content-Type: the body is read as " + contentTypeJSON10
		}
	case "application/json":
		// DynamoDB answers in the media type it was asked in.
		respType = "application/json"
	default:
		if len(body) > 0 {
			h.notFound(w, r)
			h.log.Warn().Str("contentType", r.Header.Get("Content-Type")).Str("target", target).
				Msg("refused with 404 UnknownOperationException, as DynamoDB does: the Content-Type is not " + contentTypeJSON10 + " or application/json")
			return
		}
	}

	requestID := newRequestID()
	w.Header()[requestIDHeader] = []string{requestID}
	var opFn operation
	var opName string
	switch {
	case strings.HasPrefix(target, targetDynamoDB):
		opName = target[len(targetDynamoDB):]
		opFn = h.dynamo[opName]
	case strings.HasPrefix(target, targetStreams):
		opName = target[len(targetStreams):]
		opFn = h.streams[opName]
	}

	var out any
	var err error
	rc := emulator.NewRequestContext(r.Context(), h.opts.RequestTimeout)
	defer rc.Release()
	usage := rc.Usage()
	if id != nil {
		rc.SetCaller(callerOf(id, r))
	}
	var ctx context.Context = rc
	switch {
	case opFn != nil && id != nil && !engineAuthorized[opName]:
		if err = h.authorizeOp(ctx, ns, opName, body); err == nil {
			out, err = h.run(ctx, opFn, ns, body, target)
		}
	case opFn != nil:
		out, err = h.run(ctx, opFn, ns, body, target)
	case len(body) > 0 && !json.Valid(body):
		// DynamoDB parses the body before it looks at the target.
		err = serializationError("")
	default:
		err = unknownOperation(target)
	}

	stopped := ""
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		if r.Context().Err() != nil {
			// The client went away: nobody reads an answer.
			h.stopped(StoppedCancelled, opFn != nil, opName, target, requestID, ns, body, usage, start)
			panic(http.ErrAbortHandler)
		}
		stopped = StoppedDeadline
		err = &api.Error{Code: api.CodeInternalServerError, Message: msgDeadline}
	}
	a := h.encodeAnswer(out, err, target, requestID)
	if a.failed != nil && a.failed.Code == api.CodeSerialization && !json.Valid(body) {
		reason = "the request body is not JSON"
	}
	writeBody(w, a.status, respType, a.resp)
	if len(body) >= largeRequest || len(a.resp) >= largeRequest {
		h.trim.largeDone()
	}
	if a.buf != nil {
		h.bufs.put(a.buf, a.pooled) // Write copied it
	}
	if h.opts.OnRequest != nil {
		errCode := ""
		if a.failed != nil {
			errCode = a.failed.Code
		}
		h.requestDone(RequestDone{Operation: opName, Status: a.status, ErrorCode: errCode, Stopped: stopped}, opFn != nil, start)
	}
	h.logRequest(requestLog{target: target, requestID: requestID, ns: ns, body: body, usage: usage, status: a.status, err: a.failed, stopped: stopped, reason: reason, start: start})
}

// answer is an operation's encoded answer.
type answer struct {
	status int
	resp   []byte
	failed *api.Error // nil on success
	// buf, when set, is the pooled buffer resp was encoded in, to put back
	// (with pooled, its contents) once resp is written.
	buf    *pooledBuffer
	pooled []byte
}

// encodeAnswer encodes the operation's output, or its error; an output
// that does not encode is an internal error.
func (h *handler) encodeAnswer(out any, err error, target, requestID string) answer {
	a := answer{status: http.StatusOK}
	if err == nil {
		a.buf = h.bufs.get()
		a.resp, err = appendOutput(a.buf.b, out)
		a.pooled = a.resp
		if err != nil {
			h.log.Error().Err(err).Str("target", target).Str("requestId", requestID).Msg("encoding response")
		}
	}
	if err != nil {
		var failed *api.Error
		if !errors.As(err, &failed) {
			h.log.Error().Err(err).Str("target", target).Str("requestId", requestID).Msg("internal error")
			failed = internalError()
		}
		a.status, a.resp, err = encodeError(failed)
		if err != nil {
			h.log.Error().Err(err).Str("target", target).Str("requestId", requestID).Msg("encoding error response")
			failed = internalError()
			a.status, a.resp, _ = encodeError(failed)
		}
		a.failed = failed
	}
	return a
}

// stopped reports a request whose client went away before it was done:
// a log line and RequestDone, no answer.
func (h *handler) stopped(why string, known bool, op, target, requestID string, ns api.Namespace, body []byte, usage *emulator.Usage, start time.Time) {
	if h.opts.OnRequest != nil {
		h.requestDone(RequestDone{Operation: op, Stopped: why}, known, start)
	}
	h.logRequest(requestLog{target: target, requestID: requestID, ns: ns, body: body, usage: usage, stopped: why, start: start})
}

// run calls an operation, turning a panic into InternalServerError so one
// bad request never takes the server down.
func (h *handler) run(ctx context.Context, fn operation, ns api.Namespace, body []byte, target string) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			h.log.Error().Str("target", target).Str("panic", fmt.Sprint(p)).Bytes("stack", debug.Stack()).Msg("panic in operation")
			out, err = nil, internalError()
		}
	}()
	// A snapshot restore or reset waits for the request, or the request
	// for it: it sees the state before or after, never a mix.
	h.eng.Enter()
	defer h.eng.Leave()
	return fn(ctx, h.eng, ns, body)
}

// serverHeader names the server as DynamoDB does ("Server: Server").
func serverHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Server"] = serverValue
		next.ServeHTTP(w, r)
	})
}

// Request-line and header limits of DynamoDB's front end; a request over
// either is refused with 400 before it is read.
const (
	MaxHeaderBytes = 16 << 10
	MaxURLBytes    = 16 << 10
)

// refuseOversized answers 400 with no body to a request whose URL or
// headers are over DynamoDB's limits (net/http itself only refuses
// headers over http.Server.MaxHeaderBytes, with 431).
func refuseOversized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > MaxURLBytes || headerBytes(r) > MaxHeaderBytes {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerBytes is the size of r's header block as sent ("Name: value\r\n"
// per line; Host is a header on the wire though net/http moves it out).
func headerBytes(r *http.Request) int {
	n := 0
	if r.Host != "" {
		n += len("Host: \r\n") + len(r.Host)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// refuseBrowsers answers 403 to a request carrying an Origin header that
// is not a loopback origin. SDKs and the CLI never send Origin; browsers
// send it with every cross-site or scripted POST, so this stops a web page
// from reaching the server through DNS rebinding (Host cannot be checked:
// Docker users reach the server by container name), while a page served
// from localhost (a local admin UI) and origins allowed by CORS still work.
func refuseBrowsers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) && !corsAllowed(r) {
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
