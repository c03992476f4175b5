package terraform_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The AWS provider spends most of a Terraform command's CPU on work whose
// answer never changes: each provider process it starts builds the schemas
// of some 1,500 resource types, and it rebuilds them for every
// GetProviderSchema and PrepareProviderConfig call (about 2 CPU-seconds
// each; a plan makes three, an apply four or more, per provider block). On
// this 2-core machine that was most of the package's 13 minutes.
//
// providerProxy keeps the real Terraform and the real provider and removes
// only that repetition. Terraform attaches to it through
// TF_REATTACH_PROVIDERS (its documented way of using a provider it did not
// start); the proxy forwards each gRPC call unchanged to a real provider
// process started in debug mode, and answers the calls that depend on
// nothing but their request bytes (the schema, metadata, functions and the
// provider configuration's validation) from the first real answer to the
// same bytes. A provider connection is given a provider process of its own
// when it configures the provider, and keeps it until it closes, so provider
// blocks with different Regions, accounts or endpoints never share a
// configured process; the processes are reused across commands.
// EXTENDDB_TF_DIRECT=1 runs the tests without it (Terraform starts the
// provider itself), for comparison.
const directEnv = "EXTENDDB_TF_DIRECT"

// cachedMethods are the tfplugin5 calls whose answer is a function of the
// request alone.
var cachedMethods = map[string]bool{
	"/tfplugin5.Provider/GetSchema":             true,
	"/tfplugin5.Provider/GetMetadata":           true,
	"/tfplugin5.Provider/GetFunctions":          true,
	"/tfplugin5.Provider/PrepareProviderConfig": true,
}

// configureMethod configures a provider process for its connection.
const configureMethod = "/tfplugin5.Provider/Configure"

type providerProxy struct {
	binary   string   // the provider executable
	env      []string // its environment
	dir      string   // holds the socket and the processes' home
	reattach string   // the TF_REATTACH_PROVIDERS value naming the proxy
	srv      *http.Server
	fwd      *httputil.ReverseProxy

	mu     sync.Mutex
	shared *backend            // answers calls made before Configure
	idle   []*backend          // configured before, free now
	all    []*backend          // every process started, to stop
	conns  map[net.Conn]*pconn // Terraform's open connections
	cache  map[string]*reply
	fetch  map[string]*sync.Mutex // one real call per cache key at a time
}

// pconn is one Terraform connection: one provider instance of one command.
type pconn struct{ b *backend }

// backend is one real provider process serving gRPC on a Unix socket.
type backend struct {
	cmd *exec.Cmd
	rt  *http.Transport
}

// reply is a whole unary gRPC answer.
type reply struct {
	header  http.Header
	body    []byte
	trailer http.Header
}

type connKey struct{}
type backendKey struct{}

var (
	proxyOnce sync.Once
	proxy     *providerProxy
	proxyErr  error
)

// sharedProxy starts the package's proxy for the provider binary of tl on
// first use.
func sharedProxy(tl tools) (*providerProxy, error) {
	proxyOnce.Do(func() { proxy, proxyErr = startProxy(tl) })
	return proxy, proxyErr
}

// stopProxy stops the proxy and its provider processes, if started.
func stopProxy() {
	if proxy == nil {
		return
	}
	proxy.srv.Close()
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	for _, b := range proxy.all {
		b.stop()
	}
	os.RemoveAll(proxy.dir)
}

func startProxy(tl tools) (*providerProxy, error) {
	pattern := filepath.Join(tl.mirror, "registry.terraform.io", "hashicorp", "aws", tl.version, "linux_amd64", "terraform-provider-aws_*")
	bins, _ := filepath.Glob(pattern)
	if len(bins) == 0 {
		return nil, fmt.Errorf("no provider binary matches %s", pattern)
	}
	// A short directory: a Unix socket's path has a small length limit.
	dir, err := os.MkdirTemp("", "tfp")
	if err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		return nil, err
	}
	p := &providerProxy{
		binary: bins[0],
		dir:    dir,
		// What newScenario gives Terraform, which would pass it on to the
		// provider it starts: no AWS credentials, profiles or metadata
		// service from the machine.
		env: []string{
			"PATH=" + os.Getenv("PATH"),
			"HOME=" + home,
			"TMPDIR=" + dir,
			"AWS_CONFIG_FILE=" + filepath.Join(home, "no-aws-config"),
			"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "no-aws-credentials"),
			"AWS_EC2_METADATA_DISABLED=true",
		},
		conns: map[net.Conn]*pconn{},
		cache: map[string]*reply{},
		fetch: map[string]*sync.Mutex{},
	}
	if p.shared, err = p.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p.all = append(p.all, p.shared)
	sock := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		p.shared.stop()
		os.RemoveAll(dir)
		return nil, err
	}
	p.fwd = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "provider"
		},
		Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			return r.Context().Value(backendKey{}).(*backend).rt.RoundTrip(r)
		}),
		FlushInterval: -1,
		// Terraform ends its long-lived streams (stdio, broker) by
		// closing the connection when a command exits: not an error.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				grpcError(w, err)
			}
		},
	}
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	p.srv = &http.Server{
		Handler:   p,
		Protocols: &protos,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			pc := &pconn{}
			p.mu.Lock()
			p.conns[c] = pc
			p.mu.Unlock()
			return context.WithValue(ctx, connKey{}, pc)
		},
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				p.release(c)
			}
		},
	}
	go p.srv.Serve(ln)
	// Test: the proxy's lifetime is the test binary's; Terraform must not
	// try to stop it. The pid is this process's, which outlives every
	// command.
	cfg := map[string]any{"registry.terraform.io/hashicorp/aws": map[string]any{
		"Protocol": "grpc", "ProtocolVersion": 5, "Pid": os.Getpid(), "Test": true,
		"Addr": map[string]string{"Network": "unix", "String": sock},
	}}
	b, _ := json.Marshal(cfg)
	p.reattach = string(b)
	return p, nil
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// start runs a provider process in debug mode and connects to it.
func (p *providerProxy) start() (*backend, error) {
	cmd := exec.Command(p.binary, "-debug")
	cmd.Env = p.env
	cmd.Dir = p.dir
	cmd.Stderr = io.Discard
	setDeathSignal(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &backend{cmd: cmd}
	// The provider prints the reattach configuration naming its socket.
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if i := strings.Index(line, "TF_REATTACH_PROVIDERS='"); i >= 0 && !sent {
				found <- strings.TrimSuffix(line[i+len("TF_REATTACH_PROVIDERS='"):], "'")
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	var raw string
	select {
	case raw = <-found:
	case <-time.After(2 * time.Minute):
	}
	var cfg map[string]struct {
		Addr struct{ Network, String string }
	}
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil || len(cfg) != 1 {
		b.stop()
		return nil, fmt.Errorf("the provider in debug mode printed no reattach configuration (%q: %v)", raw, err)
	}
	var network, addr string
	for _, c := range cfg {
		network, addr = c.Addr.Network, c.Addr.String
	}
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	b.rt = &http.Transport{
		Protocols: &protos,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
	return b, nil
}

func (b *backend) stop() {
	if b.rt != nil {
		b.rt.CloseIdleConnections()
	}
	if b.cmd.Process != nil {
		b.cmd.Process.Kill()
		b.cmd.Wait()
	}
}

// release returns a closed connection's provider process to the pool.
func (p *providerProxy) release(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc := p.conns[c]; pc != nil && pc.b != nil {
		p.idle = append(p.idle, pc.b)
	}
	delete(p.conns, c)
}

// backendFor picks the process for a call on pc: its own once it has
// configured the provider (configure says this call does so), the shared
// unconfigured one before.
func (p *providerProxy) backendFor(pc *pconn, configure bool) (*backend, error) {
	p.mu.Lock()
	if pc.b != nil || !configure {
		defer p.mu.Unlock()
		if pc.b != nil {
			return pc.b, nil
		}
		return p.shared, nil
	}
	if n := len(p.idle); n > 0 {
		pc.b = p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return pc.b, nil
	}
	p.mu.Unlock()
	b, err := p.start()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all = append(p.all, b)
	pc.b = b
	return b, nil
}

func (p *providerProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pc, _ := r.Context().Value(connKey{}).(*pconn)
	if pc == nil {
		http.Error(w, "no connection state", http.StatusInternalServerError)
		return
	}
	if cachedMethods[r.URL.Path] {
		p.serveCached(w, r)
		return
	}
	b, err := p.backendFor(pc, r.URL.Path == configureMethod)
	if err != nil {
		grpcError(w, err)
		return
	}
	p.fwd.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), backendKey{}, b)))
}

// serveCached answers a call from the cache, or makes it on the shared
// process and keeps a successful answer.
func (p *providerProxy) serveCached(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		grpcError(w, err)
		return
	}
	key := r.URL.Path + "\x00" + string(body)
	p.mu.Lock()
	m := p.fetch[key]
	if m == nil {
		m = &sync.Mutex{}
		p.fetch[key] = m
	}
	p.mu.Unlock()
	m.Lock()
	defer m.Unlock()
	p.mu.Lock()
	rep := p.cache[key]
	p.mu.Unlock()
	if rep == nil {
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = "http", "provider", "", ""
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		res, err := p.shared.rt.RoundTrip(out)
		if err != nil {
			grpcError(w, err)
			return
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			grpcError(w, err)
			return
		}
		rep = &reply{header: res.Header.Clone(), body: got, trailer: res.Trailer.Clone()}
		if res.StatusCode == http.StatusOK && rep.trailer.Get("Grpc-Status") == "0" {
			p.mu.Lock()
			p.cache[key] = rep
			p.mu.Unlock()
		}
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	w.Write(rep.body)
	for k, v := range rep.trailer {
		w.Header()[http.TrailerPrefix+k] = v
	}
}

// grpcError answers a call with gRPC status UNAVAILABLE (14).
func grpcError(w http.ResponseWriter, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Grpc-Status", "14")
	w.Header().Set("Grpc-Message", "extenddb terraform proxy: "+err.Error())
	w.WriteHeader(http.StatusOK)
}
