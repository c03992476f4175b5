package testserver_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

func noThrottle() testserver.Option {
	return testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true })
}

func seedLarge(t *testing.T, s *testserver.Server) *testserver.LargeResponses {
	t.Helper()
	cfg := s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID)
	l, err := testserver.SeedLargeResponses(t.Context(), dynamodb.NewFromConfig(cfg), dynamodbstreams.NewFromConfig(cfg), "big")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// clients returns the DynamoDB and Streams clients of s over hc, one
// attempt each.
func clients(s *testserver.Server, hc aws.HTTPClient) (*dynamodb.Client, *dynamodbstreams.Client) {
	cfg := s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID)
	cfg.HTTPClient = hc
	return dynamodb.NewFromConfig(cfg), dynamodbstreams.NewFromConfig(cfg)
}

// closeWatch wraps each request body the SDK hands over so the test knows
// when the SDK closes it; it keeps the body's Read and WriteTo as they are.
type closeWatch struct {
	next   aws.HTTPClient
	mu     sync.Mutex
	closed chan struct{} // of the latest request
}

func (w *closeWatch) Do(req *http.Request) (*http.Response, error) {
	ch := make(chan struct{})
	w.mu.Lock()
	w.closed = ch
	w.mu.Unlock()
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = &watchedBody{ReadCloser: req.Body, closed: ch}
	}
	return w.next.Do(req)
}

func (w *closeWatch) latest() chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

type watchedBody struct {
	io.ReadCloser
	once   sync.Once
	closed chan struct{}
}

// WriteTo is the SDK body's own: net/http's io.Copy takes it.
func (b *watchedBody) WriteTo(w io.Writer) (int64, error) {
	return b.ReadCloser.(io.WriterTo).WriteTo(w)
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { close(b.closed) })
	return err
}

// stallConn holds the transport's write loop right after it has written
// a whole request until the SDK has closed that request's body, and reads
// the response slowly meanwhile and for a while after (as a slow network
// would): the schedule under which the client closes its own connection
// mid-response, made certain. It only delays; it changes no byte.
type stallConn struct {
	net.Conn
	watch     *closeWatch
	out       []byte       // the request written so far
	slowUntil atomic.Int64 // UnixNano
}

func (c *stallConn) Write(p []byte) (int, error) {
	c.out = append(c.out, p...)
	last := requestComplete(c.out)
	if last {
		// Before the bytes go: the answer may come back at once.
		c.slowUntil.Store(math.MaxInt64)
	}
	n, err := c.Conn.Write(p)
	if last {
		c.out = c.out[:0]
		select {
		case <-c.watch.latest():
		case <-time.After(5 * time.Second):
		}
		// The write loop acts within microseconds of its release.
		c.slowUntil.Store(time.Now().Add(200 * time.Millisecond).UnixNano())
	}
	return n, err
}

// Read hands over at most 1 KB a millisecond while the write loop is held
// and for a while after, so that the response is still being read when
// the write loop does what it does.
func (c *stallConn) Read(p []byte) (int, error) {
	if time.Now().UnixNano() < c.slowUntil.Load() {
		time.Sleep(time.Millisecond)
		p = p[:min(len(p), 1024)]
	}
	return c.Conn.Read(p)
}

// requestComplete reports whether b holds a whole request with a
// Content-Length body.
func requestComplete(b []byte) bool {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return false
	}
	for _, line := range bytes.Split(b[:end], []byte("\r\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(k, []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			return err == nil && len(b) >= end+4+n
		}
	}
	return true
}

// TestSDKBodyCloseRace shows the cause of the client's "use of closed
// network connection" on large responses, and that SDKHTTPClient removes
// it. With the transport's write loop held (only delayed) until the SDK has
// closed the request body, the bare SDK client fails every large read:
// the write loop ends the request with io.EOF and closes the connection
// itself. With its body copied by SDKHTTPClient, the same schedule
// succeeds. If the bare client stops failing, the SDK or net/http changed
// and ownedBodyClient may go.
func TestSDKBodyCloseRace(t *testing.T) {
	s := testserver.New(t, noThrottle())
	l := seedLarge(t, s)
	for _, tc := range []struct {
		name   string
		wrap   func(*http.Client) aws.HTTPClient
		broken bool
	}{
		{"bare SDK client", func(c *http.Client) aws.HTTPClient { return c }, true},
		{"SDKHTTPClient", testserver.SDKHTTPClient, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watch := &closeWatch{}
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &stallConn{Conn: c, watch: watch}, nil
			}}
			defer tr.CloseIdleConnections()
			watch.next = tc.wrap(&http.Client{Transport: tr})
			db, st := clients(s, watch)
			for _, op := range testserver.LargeResponseOps {
				var wr testserver.WriteResult
				err := l.Round(wr.Context(t.Context()), db, st, op)
				_, werr := wr.Get()
				switch {
				case tc.broken && (!errors.Is(err, net.ErrClosed) || !errors.Is(werr, io.EOF)):
					t.Errorf("%s: err %v, write loop %v; want the client's own close (net.ErrClosed after io.EOF)", op, err, werr)
				case !tc.broken && (err != nil || werr != nil):
					t.Errorf("%s: err %v, write loop %v", op, err, werr)
				}
			}
		})
	}
}

// TestLargeResponsesConcurrently: about 100 KB Query pages, BatchGetItem
// and GetRecords answers, many at once over keep-alive connections, through
// the in-process server (see cmd/extenddb's TestServeLargeResponses for the
// real listener and its http.Server settings).
func TestLargeResponsesConcurrently(t *testing.T) {
	s := testserver.New(t, noThrottle())
	l := seedLarge(t, s)
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	l.Check(t, rounds, func(hc aws.HTTPClient) (*dynamodb.Client, *dynamodbstreams.Client) { return clients(s, hc) })
}
