package testserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/httpfront"
	"github.com/extenddb/extenddb/internal/sdkhttp"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
)

// Default credentials of Server.Client.
const (
	DefaultRegion      = "us-east-1"
	DefaultAccessKeyID = "AKIAIOSFODNN7EXAMPLE"
	DefaultSecretKey   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// Option configures New.
type Option func(*config)

type config struct {
	dataDir string
	engine  emulator.Options
	wire    wire.Options
	wiring  func(*emulator.Engine, *pebblestore.Store, *wire.Options)
	store   func(*pebblestore.Options)
	fast    bool
}

// WithFastFront serves through httpfront, the HTTP front `extenddb serve`
// runs by default, instead of net/http's server.
func WithFastFront() Option { return func(c *config) { c.fast = true } }

// WithDataDir keeps the store on disk in dir instead of in memory.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithStoreOptions lets fn adjust the store options on every open (Dir and
// FS are set already: FS is nil for the OS filesystem with WithDataDir),
// for example to wrap the filesystem in an error injector.
func WithStoreOptions(fn func(*pebblestore.Options)) Option {
	return func(c *config) { c.store = fn }
}

// WithClock sets the engine's clock.
func WithClock(clk emulator.Clock) Option { return func(c *config) { c.engine.Clock = clk } }

// WithTransitionDelay sets how long tables and indexes stay in transitional states.
func WithTransitionDelay(d time.Duration) Option {
	return func(c *config) { c.engine.TransitionDelay = d }
}

// WithEngineOptions lets fn adjust the engine options (Store is set by the server).
func WithEngineOptions(fn func(*emulator.Options)) Option {
	return func(c *config) { fn(&c.engine) }
}

// WithDefaultAccount sets the account of requests whose key maps to none.
func WithDefaultAccount(account string) Option {
	return func(c *config) { c.wire.DefaultAccount = account }
}

// WithDefaultRegion sets the Region of unsigned requests.
func WithDefaultRegion(region string) Option {
	return func(c *config) { c.wire.DefaultRegion = region }
}

// WithAccessKeyAccount maps an access key ID to an account.
func WithAccessKeyAccount(accessKeyID, account string) Option {
	return func(c *config) {
		if c.wire.AccessKeyAccounts == nil {
			c.wire.AccessKeyAccounts = map[string]string{}
		}
		c.wire.AccessKeyAccounts[accessKeyID] = account
	}
}

// WithWireOptions lets fn adjust the wire options.
func WithWireOptions(fn func(*wire.Options)) Option {
	return func(c *config) { fn(&c.wire) }
}

// WithWiring lets fn adjust the wire options once the engine and store
// exist (on every open, Restart included): mounting the console or
// /metrics, which read them.
func WithWiring(fn func(*emulator.Engine, *pebblestore.Store, *wire.Options)) Option {
	return func(c *config) { c.wiring = fn }
}

// Server is a running in-process ExtendDB.
type Server struct {
	// URL is the base endpoint, e.g. http://127.0.0.1:PORT.
	URL string
	// Client is a DynamoDB client for us-east-1 with static credentials and
	// no retries, so a test sees every error as it is.
	Client *dynamodb.Client

	t     testing.TB
	cfg   config
	memFS vfs.FS
	srv   *httptest.Server
	// front and httpClient replace srv under WithFastFront.
	front      *httpfront.Server
	httpClient *http.Client

	mu      sync.RWMutex
	engine  *emulator.Engine
	store   *pebblestore.Store
	handler http.Handler
	closed  bool
}

// memDir is the directory of an in-memory store inside its vfs.
const memDir = "/extenddb"

// New starts a server and registers its shutdown with t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t}
	for _, o := range opts {
		o(&s.cfg)
	}
	if s.cfg.dataDir == "" {
		// Kept across Restart so an in-memory store survives it like a disk would.
		s.memFS = vfs.NewMem()
	}
	if err := s.open(); err != nil {
		t.Fatalf("testserver: %v", err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Held for the whole request so Restart waits for requests in flight.
		s.mu.RLock()
		defer s.mu.RUnlock()
		s.handler.ServeHTTP(w, r)
	})
	if s.cfg.fast {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("testserver: %v", err)
		}
		s.front = &httpfront.Server{Handler: h}
		go func() { _ = s.front.Serve(ln) }()
		s.URL = "http://" + ln.Addr().String()
		s.httpClient = &http.Client{Transport: &http.Transport{}}
	} else {
		s.srv = httptest.NewServer(h)
		s.URL = s.srv.URL
		s.httpClient = s.srv.Client()
	}
	s.Client = s.ClientFor(DefaultRegion, DefaultAccessKeyID)
	t.Cleanup(s.close)
	return s
}

func (s *Server) open() error {
	po := pebblestore.Options{Dir: s.cfg.dataDir}
	if s.memFS != nil {
		po = pebblestore.Options{Dir: memDir, FS: s.memFS}
	}
	if s.cfg.store != nil {
		s.cfg.store(&po)
	}
	st, err := pebblestore.Open(po)
	if err != nil {
		return err
	}
	eo := s.cfg.engine
	eo.Store = st
	eng, err := emulator.New(eo)
	if err != nil {
		_ = st.Close()
		return err
	}
	wo := s.cfg.wire
	if s.cfg.wiring != nil {
		s.cfg.wiring(eng, st, &wo)
	}
	s.mu.Lock()
	s.store, s.engine = st, eng
	s.handler = wire.NewHandler(eng, wo)
	s.mu.Unlock()
	return nil
}

func (s *Server) shutdown() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	eerr := s.engine.Close()
	serr := s.store.Close()
	if eerr != nil {
		return eerr
	}
	return serr
}

// Engine returns the current engine (a new one after Restart).
func (s *Server) Engine() *emulator.Engine {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.engine
}

// Store returns the current store (a new one after Restart).
func (s *Server) Store() *pebblestore.Store {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.store
}

// Restart closes the engine and the store and reopens them on the same data
// (directory or in-memory filesystem) behind a new handler, as a process
// restart would. The URL and clients stay valid.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.shutdown(); err != nil {
		s.t.Fatalf("testserver: restart: close: %v", err)
	}
	if err := s.open(); err != nil {
		s.t.Fatalf("testserver: restart: open: %v", err)
	}
}

func (s *Server) close() {
	if s.front != nil {
		_ = s.front.Close()
		s.httpClient.CloseIdleConnections()
	} else {
		s.srv.Close()
	}
	if s.closed {
		return
	}
	s.closed = true
	if err := s.shutdown(); err != nil {
		s.t.Errorf("testserver: close: %v", err)
	}
}

// ClientFor returns a DynamoDB client signing for region with accessKeyID
// (so requests land in that Region and in the key's account), no retries.
func (s *Server) ClientFor(region, accessKeyID string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           region,
		BaseEndpoint:     aws.String(s.URL),
		Credentials:      credentials.NewStaticCredentialsProvider(accessKeyID, DefaultSecretKey, ""),
		RetryMaxAttempts: 1,
		HTTPClient:       sdkhttp.OwnedBody(s.httpClient),
	})
}

// AWSConfig returns an aws.Config for region and accessKeyID pointed at the
// server, for building other service clients (STS, DynamoDB Streams).
func (s *Server) AWSConfig(region, accessKeyID string) aws.Config {
	return aws.Config{
		Region:           region,
		BaseEndpoint:     aws.String(s.URL),
		Credentials:      credentials.NewStaticCredentialsProvider(accessKeyID, DefaultSecretKey, ""),
		RetryMaxAttempts: 1,
		HTTPClient:       sdkhttp.OwnedBody(s.httpClient),
	}
}

// Context returns a context for one request, cancelled with the test.
func (s *Server) Context() context.Context { return s.t.Context() }

// SDKHTTPClient returns c as an aws-sdk-go-v2 HTTP client that hands net/http
// a private copy of each request body (sdkhttp.OwnedBody: without it the
// client sometimes fails a large response with "use of closed network
// connection", see TestSDKBodyCloseRace), for tests that point the SDK at a
// server of their own with retries off. A nil c is http.DefaultClient.
func SDKHTTPClient(c *http.Client) aws.HTTPClient { return sdkhttp.OwnedBody(c) }

// ConfigWith returns an aws.Config for region signing with creds (static
// keys of a credentials file, or temporary ones from STS), for servers
// started with --auth=sigv4 (wire.Options.Credentials).
func (s *Server) ConfigWith(region string, creds aws.CredentialsProvider) aws.Config {
	cfg := s.AWSConfig(region, DefaultAccessKeyID)
	cfg.Credentials = creds
	return cfg
}

// ClientWith returns a DynamoDB client for region signing with creds.
func (s *Server) ClientWith(region string, creds aws.CredentialsProvider) *dynamodb.Client {
	return dynamodb.NewFromConfig(s.ConfigWith(region, creds))
}

// HTTPClient is the HTTP client of the server's listener, for raw requests.
func (s *Server) HTTPClient() *http.Client { return s.httpClient }
