package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/httpfront"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/pgstore"
	kinesissink "github.com/extenddb/extenddb/sink/kinesis"
	"github.com/extenddb/extenddb/wire"
	"github.com/rs/zerolog"
)

// serveConfig is everything `extenddb serve` is told. Each field is one flag
// (see register); defaults live in newServeConfig.
type serveConfig struct {
	storeSettings
	emulatedDelays
	workerIntervals
	addr              string
	defaultAccount    string
	defaultRegion     string
	logLevel          string
	logFormat         string
	legacyGlobal      bool
	shutdownTimeout   time.Duration
	requestTimeout    time.Duration
	accessKeyAccounts accessKeyAccounts
	accountPerKey     bool
	sharedDB          bool
	auth              string
	credentials       string
	cors              string
	pprof             string
	httpFront         string
	kinesisEndpoint   string
	s3Dir             string
	s3Endpoint        string
	snapshot          string
	iac               iacConfig
	throttle          throttleConfig
	web               webConfig
}

// The groups of serveConfig's fields are embedded, so each field is still
// c.name wherever it is read or registered.

// storeSettings is where and how the data is stored.
type storeSettings struct {
	dataDir      string
	inMemory     bool
	store        string
	sync         bool
	cacheSize    byteSize
	memTableSize byteSize
	lease        time.Duration
}

// emulatedDelays are the waits of DynamoDB that ExtendDB reproduces.
type emulatedDelays struct {
	transitionDelay   time.Duration
	policyUpdateBlock time.Duration
	replicationDelay  time.Duration
	pitrLag           time.Duration
}

// workerIntervals are the periods of the background workers.
type workerIntervals struct {
	ttlInterval       time.Duration
	autoScaleInterval time.Duration
	autoScalePoint    time.Duration
}

func newServeConfig(getenv func(string) string) serveConfig {
	return serveConfig{
		storeSettings: storeSettings{
			dataDir:      defaultDataDir(getenv),
			cacheSize:    pebblestore.DefaultCacheSize,
			memTableSize: pebblestore.DefaultMemTableSize,
			lease:        emulator.DefaultLeaseDuration,
		},
		emulatedDelays: emulatedDelays{
			pitrLag: emulator.DefaultPITRLag,
		},
		workerIntervals: workerIntervals{
			ttlInterval:       emulator.DefaultTTLInterval,
			autoScaleInterval: emulator.DefaultAutoScaleInterval,
			autoScalePoint:    time.Minute,
		},
		addr:              defaultAddr,
		defaultAccount:    wire.DefaultAccount,
		defaultRegion:     wire.DefaultRegion,
		logLevel:          "info",
		logFormat:         "console",
		auth:              "off",
		httpFront:         "fast",
		shutdownTimeout:   10 * time.Second,
		requestTimeout:    wire.DefaultRequestTimeout,
		accessKeyAccounts: accessKeyAccounts{},
		iac:               iacConfig{getenv: getenv},
		throttle:          newThrottleConfig(),
		web:               newWebConfig(),
	}
}

// defaultDataDir is $XDG_DATA_HOME/extenddb, else ~/.local/share/extenddb,
// else (no home directory) ./extenddb-data.
func defaultDataDir(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "extenddb")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "extenddb")
	}
	return "extenddb-data"
}

// register declares c's flags on fs, with c's current values as defaults.
func (c *serveConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", c.addr, "`HOST:PORT` to listen on (port 0 picks a free port)")
	fs.StringVar(&c.dataDir, "data-dir", c.dataDir, "`DIR` holding the Pebble store; created if missing, kept across restarts")
	fs.BoolVar(&c.inMemory, "in-memory", c.inMemory, "keep all data in memory (lost on exit); --data-dir is then ignored")
	fs.StringVar(&c.store, "store", c.store, "`URL` of a PostgreSQL, CockroachDB or YugabyteDB database (postgres://user@host:5432/db) holding the data instead of Pebble, shared by every extenddb given the same URL; refused with --in-memory; --data-dir then holds only the S3 folder")
	fs.StringVar(&c.defaultAccount, "default-account", c.defaultAccount, "12-digit `ACCOUNT` of requests whose access key is not mapped")
	fs.StringVar(&c.defaultRegion, "default-region", c.defaultRegion, "`REGION` of requests that carry no SigV4 credential scope")
	fs.StringVar(&c.logLevel, "log-level", c.logLevel, "`LEVEL` of logging: debug (one line per request), info, warn or error")
	fs.StringVar(&c.logFormat, "log-format", c.logFormat, "`FORMAT` of log lines on stderr: console or json")
	fs.BoolVar(&c.sync, "sync", c.sync, "fsync every acknowledged write (durable across a power cut; slower)")
	fs.Var(&c.cacheSize, "cache-size", "`SIZE` of Pebble's block cache (e.g. 64MiB, 1GiB): the stored data it keeps in memory for reads")
	fs.Var(&c.memTableSize, "memtable-size", "`SIZE` of each of Pebble's memtables (e.g. 4MiB, 64MiB): writes held in memory before a flush to disk; up to two are")
	fs.DurationVar(&c.transitionDelay, "transition-delay", c.transitionDelay, "`DURATION` tables and indexes stay CREATING/UPDATING/DELETING (e.g. 2s); 0 is immediate")
	fs.DurationVar(&c.policyUpdateBlock, "policy-update-block", c.policyUpdateBlock, "`DURATION` after a change of a resource-based policy during which further changes are refused, as DynamoDB's 15s (e.g. 15s); 0 is none")
	fs.DurationVar(&c.replicationDelay, "replication-delay", c.replicationDelay, "`DURATION` a global table's write waits before other Regions' replicas apply it (e.g. 1s); 0 is as soon as possible")
	fs.BoolVar(&c.legacyGlobal, "legacy-global-tables", c.legacyGlobal, "serve global tables version 2017.11.29 (CreateGlobalTable and friends) as DynamoDB did; off, they answer as today's DynamoDB, which creates none")
	fs.DurationVar(&c.pitrLag, "pitr-lag", c.pitrLag, "`DURATION` LatestRestorableDateTime trails the clock by, as DynamoDB's 5m; 0 lets a point-in-time restore take the moment just written")
	fs.DurationVar(&c.ttlInterval, "ttl-interval", c.ttlInterval, "`DURATION` between passes of the TTL expiry worker (e.g. 1s); 0 turns expiry off")
	fs.DurationVar(&c.autoScaleInterval, "auto-scale-interval", c.autoScaleInterval, "`DURATION` between passes of the auto scaling worker (e.g. 1s); 0 turns auto scaling off")
	fs.DurationVar(&c.autoScalePoint, "auto-scale-datapoint", c.autoScalePoint, "`DURATION` one auto scaling datapoint covers (the service's is 1m); shorter makes auto scaling react sooner")
	fs.DurationVar(&c.lease, "lease", c.lease, "`DURATION` of the leases of a store several processes share: a dead leader's workers move to another process this long after its last renewal")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", c.shutdownTimeout, "`DURATION` to let in-flight requests finish after SIGINT/SIGTERM")
	fs.DurationVar(&c.requestTimeout, "request-timeout", c.requestTimeout, "`DURATION` one request may run: one still running then stops and is answered 500 InternalServerError, which SDKs retry; 0 is no limit")
	registerKeyFlags(fs, c.accessKeyAccounts, &c.accountPerKey)
	fs.StringVar(&c.auth, "auth", c.auth, "`MODE` of authentication: off (any request is served, as DynamoDB Local) or sigv4 (every request must be signed with a key of --credentials and is authorized by IAM policies)")
	fs.StringVar(&c.credentials, "credentials", c.credentials, "`FILE` (YAML or JSON) of access keys, their accounts, principals and identity policies, and the roles they may assume; needed by --auth=sigv4")
	fs.StringVar(&c.cors, "cors", c.cors, "comma-separated `ORIGINS` browsers may call from (e.g. http://localhost:3000, or * for any); empty: no CORS")
	fs.StringVar(&c.s3Dir, "s3-dir", c.s3Dir, "`DIR` standing in for S3 for exports and imports: bucket B is the folder DIR/B (default: DATA-DIR/s3, or a temporary folder with --in-memory)")
	fs.StringVar(&c.s3Endpoint, "s3-endpoint", c.s3Endpoint, "`URL` of an S3-compatible server (MinIO, LocalStack, …) for exports and imports, path-style; replaces --s3-dir")
	fs.StringVar(&c.pprof, "pprof", c.pprof, "loopback `HOST:PORT` serving Go's CPU, heap and allocation profiles under /debug/pprof/ (e.g. 127.0.0.1:6060); empty: off")
	fs.StringVar(&c.httpFront, "http-front", c.httpFront, "`FRONT` serving HTTP: fast (the API's plain POSTs on a lean HTTP/1.1 path of its own, everything else by net/http) or net/http (all of it by net/http)")
	fs.StringVar(&c.kinesisEndpoint, "kinesis-endpoint", c.kinesisEndpoint, "Kinesis Data Streams `URL` (e.g. http://127.0.0.1:4567) that receives the item changes of tables with a Kinesis streaming destination; empty: destinations are bookkeeping only")
	fs.StringVar(&c.snapshot, "snapshot", c.snapshot, "`FILE` written by `extenddb snapshot save`: start from its state (it replaces what the store holds), kept on the server as \"start\"; --load provisions on top of it")
	c.iac.register(fs, true)
	c.throttle.register(fs)
	c.web.register(fs)
	c.registerAliases(fs)
}

// registerAliases declares DynamoDB Local's flags (they are written with one
// dash and in camel case), so its command lines and scripts work unchanged.
func (c *serveConfig) registerAliases(fs *flag.FlagSet) {
	fs.Var(portFlag{&c.addr}, "port", aliasPrefix+"-port: the same as --addr :`PORT`")
	fs.BoolVar(&c.inMemory, "inMemory", c.inMemory, aliasPrefix+"-inMemory: the same as --in-memory")
	fs.StringVar(&c.dataDir, "dbPath", c.dataDir, aliasPrefix+"-dbPath: the same as --data-dir `DIR`")
	fs.BoolVar(&c.sharedDB, "sharedDb", c.sharedDB, aliasPrefix+"-sharedDb: every request uses --default-account and --default-region, whatever its credentials and Region")
	fs.Var(delayFlag{&c.transitionDelay}, "delayTransientStatuses", aliasPrefix+"-delayTransientStatuses: the same as --transition-delay "+dynamoDBLocalDelay.String())
	fs.Var(noopFlag{}, "optimizeDbBeforeStartup", aliasPrefix+"-optimizeDbBeforeStartup: accepted and ignored (Pebble needs no such step)")
	fs.Var(noopFlag{}, "disableTelemetry", aliasPrefix+"-disableTelemetry: accepted and ignored (ExtendDB sends no telemetry)")
}

// dynamoDBLocalDelay is the transition delay -delayTransientStatuses turns on.
const dynamoDBLocalDelay = time.Second

// portFlag is -port N: it keeps --addr's host and replaces the port.
type portFlag struct{ addr *string }

func (p portFlag) String() string {
	if p.addr == nil {
		return ""
	}
	_, port, _ := net.SplitHostPort(*p.addr)
	return port
}

func (p portFlag) Set(s string) error {
	if n, err := strconv.Atoi(s); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q is not a port number", s)
	}
	host, _, _ := net.SplitHostPort(*p.addr)
	*p.addr = net.JoinHostPort(host, s)
	return nil
}

// delayFlag is the boolean -delayTransientStatuses.
type delayFlag struct{ d *time.Duration }

func (f delayFlag) String() string   { return "false" }
func (f delayFlag) IsBoolFlag() bool { return true }
func (f delayFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if on {
		*f.d = dynamoDBLocalDelay
	}
	return nil
}

// noopFlag is a boolean flag that changes nothing.
type noopFlag struct{}

func (noopFlag) String() string   { return "false" }
func (noopFlag) IsBoolFlag() bool { return true }
func (noopFlag) Set(s string) error {
	_, err := strconv.ParseBool(s)
	return err
}

// validate reports the first invalid setting.
func (c *serveConfig) validate() error {
	if !accounts.IsID(c.defaultAccount) {
		return fmt.Errorf("--default-account %q: must be 12 digits", c.defaultAccount)
	}
	if !accounts.IsRegion(c.defaultRegion) {
		return fmt.Errorf("--default-region %q: must be a Region name such as us-east-1", c.defaultRegion)
	}
	if _, err := zerolog.ParseLevel(c.logLevel); err != nil || !oneOf(c.logLevel, "debug", "info", "warn", "error") {
		return fmt.Errorf("--log-level %q: must be debug, info, warn or error", c.logLevel)
	}
	if !oneOf(c.logFormat, "console", "json") {
		return fmt.Errorf("--log-format %q: must be console or json", c.logFormat)
	}
	if c.kinesisEndpoint != "" {
		if _, err := kinesissink.New(kinesissink.Options{Endpoint: c.kinesisEndpoint}); err != nil {
			return fmt.Errorf("--kinesis-endpoint: %w", err)
		}
	}
	if !oneOf(c.auth, "off", "sigv4") {
		return fmt.Errorf("--auth %q: must be off or sigv4", c.auth)
	}
	if c.auth == "sigv4" && c.credentials == "" {
		return fmt.Errorf("--auth=sigv4 needs --credentials FILE")
	}
	if c.replicationDelay < 0 {
		return fmt.Errorf("--replication-delay %s: must not be negative", c.replicationDelay)
	}
	if c.pitrLag < 0 {
		return fmt.Errorf("--pitr-lag %s: must not be negative", c.pitrLag)
	}
	if c.transitionDelay < 0 {
		return fmt.Errorf("--transition-delay %s: must not be negative", c.transitionDelay)
	}
	if c.policyUpdateBlock < 0 {
		return fmt.Errorf("--policy-update-block %s: must not be negative", c.policyUpdateBlock)
	}
	if c.ttlInterval < 0 {
		return fmt.Errorf("--ttl-interval %s: must not be negative", c.ttlInterval)
	}
	if c.lease < time.Second {
		return fmt.Errorf("--lease %s: must be at least 1s", c.lease)
	}
	if c.autoScaleInterval < 0 {
		return fmt.Errorf("--auto-scale-interval %s: must not be negative", c.autoScaleInterval)
	}
	if c.autoScalePoint <= 0 {
		return fmt.Errorf("--auto-scale-datapoint %s: must be positive", c.autoScalePoint)
	}
	if c.requestTimeout < 0 {
		return fmt.Errorf("--request-timeout %s: must not be negative", c.requestTimeout)
	}
	if c.shutdownTimeout < 0 {
		return fmt.Errorf("--shutdown-timeout %s: must not be negative", c.shutdownTimeout)
	}
	if c.httpFront != "fast" && c.httpFront != "net/http" {
		return fmt.Errorf("--http-front %q: must be fast or net/http", c.httpFront)
	}
	if c.cacheSize < 1<<20 {
		return fmt.Errorf("--cache-size %s: must be at least 1MiB", c.cacheSize)
	}
	// Pebble refuses a memtable of 4 GiB or more.
	if c.memTableSize < 1<<20 || c.memTableSize >= 4<<30 {
		return fmt.Errorf("--memtable-size %s: must be from 1MiB to under 4GiB", c.memTableSize)
	}
	if c.store != "" {
		if err := checkStoreURL(c.store); err != nil {
			return err
		}
		if c.inMemory {
			return errors.New("--store and --in-memory do not go together: the data is in the --store database (drop --in-memory), or in memory (drop --store)")
		}
	}
	if !c.inMemory && c.dataDir == "" {
		return errors.New("--data-dir must not be empty (or use --in-memory)")
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return fmt.Errorf("--addr %q: %w", c.addr, err)
	}
	if c.pprof != "" {
		if err := checkPprofAddr(c.pprof); err != nil {
			return err
		}
	}
	if err := c.throttle.validate(); err != nil {
		return err
	}
	if err := c.web.validate(); err != nil {
		return err
	}
	return c.iac.validate()
}

// checkStoreURL accepts the postgres:// URLs pgx takes; it keeps a typo
// (or a Pebble directory) from becoming a connection attempt.
func checkStoreURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return fmt.Errorf("--store %q: want a postgres://[user[:password]@]host[:port]/database URL", redactURL(s))
	}
	return nil
}

// redactURL hides a password in a --store URL for logs and errors.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func oneOf(s string, set ...string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// registerKeyFlags declares --access-key-account and --account-per-access-key,
// serve's rule for the account of an access key, which validate declares too
// so that it resolves Terraform providers' keys as serve does.
func registerKeyFlags(fs *flag.FlagSet, keys accessKeyAccounts, perKey *bool) {
	fs.Var(keys, "access-key-account", "map access key `AKID=ACCOUNT`: requests signed with it, and the tables of Terraform providers with it, are in ACCOUNT; repeatable, or comma-separated")
	fs.BoolVar(perKey, "account-per-access-key", *perKey, "give every access key that is not 12 digits or mapped an account of its own (derived from the key), as DynamoDB Local separates data per key")
}

// accountRule is the rule the server resolves each request's access key
// with, handed to the loaders for Terraform providers' keys.
func (c *serveConfig) accountRule() accounts.Rule {
	return accounts.Rule{Default: c.defaultAccount, Keys: c.accessKeyAccounts, PerKey: c.accountPerKey}
}

// accessKeyAccounts is the --access-key-account flag: AKID → account.
type accessKeyAccounts map[string]string

func (m accessKeyAccounts) String() string {
	if len(m) == 0 {
		return "none"
	}
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

// Set adds one or more comma-separated AKID=ACCOUNT pairs.
func (m accessKeyAccounts) Set(s string) error {
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		akid, account, ok := strings.Cut(pair, "=")
		if !ok || akid == "" {
			return fmt.Errorf("%q: want AKID=ACCOUNT", pair)
		}
		if !accounts.IsID(account) {
			return fmt.Errorf("%q: account %q must be 12 digits", pair, account)
		}
		m[akid] = account
	}
	return nil
}

// parseServe turns serve's arguments and environment into a valid config.
func parseServe(args []string, getenv func(string) string) (serveConfig, error) {
	c := newServeConfig(getenv)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.register(fs)
	if err := parseFlags(fs, args, getenv); err != nil {
		return c, err
	}
	if err := c.validate(); err != nil {
		return c, usageError{err}
	}
	return c, nil
}

func serveUsage(c *cli, w io.Writer) {
	sc := newServeConfig(c.getenv)
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	sc.register(fs)
	fmt.Fprint(w, "Usage: extenddb serve [flags]\n\nServe the DynamoDB API (JSON 1.0), DynamoDB Streams and STS (GetCallerIdentity; AssumeRole with --auth=sigv4).\nEvery flag can also be set by the environment variable shown.\n\n")
	printGroupedFlags(w, fs, serveFlagGroups)
}

func runServe(ctx context.Context, c *cli, args []string) int {
	cfg, err := parseServe(args, c.getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		serveUsage(c, c.stdout)
		return 0
	case err != nil:
		return usageFailed(c, "serve", err)
	}
	log, logOut := newLogger(c.stderr, cfg.logLevel, cfg.logFormat)
	defer logOut.Close()
	ctx, stop := c.notify(ctx)
	defer stop()
	tuneGC(ctx, c.getenv)
	releaseBinaryPagesWhenIdle(ctx)
	if err := serve(ctx, stop, cfg, log, logOut.flush); err != nil {
		log.Error().Err(err).Msg("extenddb stopped with an error")
		return 1
	}
	return 0
}

// errDataDirLocked is a data directory another process holds.
var errDataDirLocked = errors.New("data directory in use")

// explainOpenError names the usual cause of a failed open: Pebble's LOCK
// file is held by another process (another extenddb on the same directory).
func explainOpenError(dir string, err error) error {
	// Another process: flock's EWOULDBLOCK. The same process (a test, or an
	// embedding program): Pebble's own message, which has no sentinel.
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) || strings.Contains(err.Error(), "lock held by current process") {
		return fmt.Errorf("%w: another extenddb is using %s (it holds %s); stop it, or give this one another directory with --data-dir DIR, or use --in-memory: %w",
			errDataDirLocked, dir, filepath.Join(dir, "LOCK"), err)
	}
	return err
}

// openStore opens the --store database, or else Pebble (in memory or in
// --data-dir); pebble is the Pebble store, for its metrics, or nil.
func openStore(cfg serveConfig, log zerolog.Logger) (store kv.Store, pebble *pebblestore.Store, err error) {
	if cfg.store != "" {
		s, err := pgstore.Open(pgstore.Options{DSN: cfg.store})
		if err != nil {
			return nil, nil, fmt.Errorf("opening --store %s: %w", redactURL(cfg.store), err)
		}
		return s, nil, nil
	}
	storeOpts := pebblestore.Options{InMemory: cfg.inMemory, Logger: pebbleLogger{log},
		CacheSize: int64(cfg.cacheSize), MemTableSize: uint64(cfg.memTableSize)}
	if !cfg.inMemory {
		storeOpts.Dir = cfg.dataDir
		if err := os.MkdirAll(cfg.dataDir, 0o750); err != nil {
			return nil, nil, fmt.Errorf("creating data directory: %w", err)
		}
	}
	ps, err := pebblestore.Open(storeOpts)
	if err != nil {
		return nil, nil, explainOpenError(cfg.dataDir, err)
	}
	return ps, ps, nil
}

// serve runs until ctx is cancelled, then shuts down in order: stop
// accepting and drain in-flight requests, close the engine, close Pebble.
// stop is called once ctx is done, so a second signal kills the process.
func serve(ctx context.Context, stop context.CancelFunc, cfg serveConfig, log zerolog.Logger, flushLog func()) (err error) {
	store, pebble, err := openStore(cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := store.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing store: %w", cerr))
		}
	}()
	engOpts, err := engineOptions(cfg, store, &log)
	if err != nil {
		return err
	}
	objects, cleanup, err := openObjects(cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	engOpts.Objects = objects
	cfg.throttle.apply(&engOpts)
	web := newWeb(cfg.web, cfg.auth == "sigv4")
	engOpts.Observer = web.observer()
	backgroundOptions(&engOpts, cfg)
	eng, err := emulator.New(engOpts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("closing engine: %w", cerr))
		}
	}()
	var creds *wire.Credentials
	if cfg.auth == "sigv4" {
		if creds, err = wire.LoadCredentials(cfg.credentials); err != nil {
			return err
		}
	}
	if cfg.snapshot != "" {
		snap, err := startFromSnapshot(ctx, eng, cfg.snapshot)
		if err != nil {
			return err
		}
		log.Info().Str("file", cfg.snapshot).Int("keys", snap.Keys()).Msg("started from a snapshot")
	}
	var loaded []iac.TableSpec
	if len(cfg.iac.loads) > 0 {
		if loaded, err = provisionLoads(ctx, eng, cfg, creds, log); err != nil {
			return err
		}
	}
	wireOpts := wireOptions(cfg, creds, &log)
	defaultNS := api.Namespace{Account: cfg.defaultAccount, Region: cfg.defaultRegion}
	if err := web.mount(eng, pebble, defaultNS, loaded, &wireOpts); err != nil {
		return err
	}
	handler := wire.CORS(wire.NewHandler(eng, wireOpts), wire.ParseOrigins(cfg.cors))

	if cfg.pprof != "" {
		ps, err := servePprof(cfg.pprof, log)
		if err != nil {
			return err
		}
		defer ps.Close()
	}
	ln, err := listen(cfg.addr)
	if err != nil {
		return err
	}
	srv := newHTTPServer(cfg.httpFront, handler, newStdLogger(log), context.WithoutCancel(ctx))
	logServing(log, cfg, listenAddrs(ln))
	// Scripts wait for this line, or for the port, and then expect the other:
	// the line is out before the first request can be answered.
	flushLog()
	return serveUntilDone(ctx, stop, cfg, log, srv, ln)
}

// engineOptions is the engine's options from cfg, before the object store,
// throttling, observer and background workers are added.
func engineOptions(cfg serveConfig, store kv.Store, log *zerolog.Logger) (emulator.Options, error) {
	engOpts := emulator.Options{
		Store:              store,
		Sync:               cfg.sync,
		TransitionDelay:    cfg.transitionDelay,
		PolicyUpdateBlock:  cfg.policyUpdateBlock,
		ReplicationDelay:   cfg.replicationDelay,
		LegacyGlobalTables: cfg.legacyGlobal,
		Logger:             log,
	}
	if cfg.kinesisEndpoint != "" {
		sink, err := kinesissink.New(kinesissink.Options{Endpoint: cfg.kinesisEndpoint})
		if err != nil {
			return engOpts, err
		}
		engOpts.Kinesis = sink
	}
	return engOpts, nil
}

// backgroundOptions sets the engine's options of its background work: TTL
// expiry, leases, point-in-time recovery and auto scaling.
func backgroundOptions(engOpts *emulator.Options, cfg serveConfig) {
	engOpts.TTLInterval = cfg.ttlInterval
	engOpts.LeaseDuration = cfg.lease
	engOpts.PITRLag = pitrLagOption(cfg.pitrLag)
	if cfg.ttlInterval == 0 {
		engOpts.TTLInterval = -1 // the engine's "off"
	}
	engOpts.AutoScaleInterval = cfg.autoScaleInterval
	engOpts.AutoScaleDatapoint = cfg.autoScalePoint
	if cfg.autoScaleInterval == 0 {
		engOpts.AutoScaleInterval = -1 // the engine's "off"
	}
}

// wireOptions is the API handler's options from cfg.
func wireOptions(cfg serveConfig, creds *wire.Credentials, log *zerolog.Logger) wire.Options {
	// The rule --load resolves Terraform providers' keys with (accountRule).
	rule := cfg.accountRule()
	wireOpts := wire.Options{
		Credentials:         creds,
		DefaultAccount:      rule.Default,
		DefaultRegion:       cfg.defaultRegion,
		AccessKeyAccounts:   rule.Keys,
		AccountPerAccessKey: rule.PerKey,
		SingleNamespace:     cfg.sharedDB,
		Logger:              log,
		RequestTimeout:      cfg.requestTimeout,
	}
	if cfg.requestTimeout == 0 {
		wireOpts.RequestTimeout = -1 // no limit
	}
	return wireOpts
}

// logServing logs that the server listens on addrs (the first is addr,
// every one is in addrs), with where its data is, and warns when a server
// without authentication can be reached from other machines.
func logServing(log zerolog.Logger, cfg serveConfig, addrs []net.Addr) {
	if cfg.auth == "off" && beyondLoopback(addrs) {
		log.Warn().Str("addr", addrs[0].String()).
			Msg("listening beyond this machine with --auth=off: anyone who can reach this address can read and change every table; use --addr localhost:PORT, or --auth=sigv4")
	}
	all := make([]string, len(addrs))
	for i, a := range addrs {
		all[i] = a.String()
	}
	ev := log.Info().Str("addr", addrs[0].String()).Strs("addrs", all)
	switch {
	case cfg.store != "":
		ev = ev.Str("store", redactURL(cfg.store))
	case cfg.inMemory:
		ev = ev.Bool("inMemory", true)
	default:
		ev = ev.Str("dataDir", cfg.dataDir)
	}
	ev.Str("account", cfg.defaultAccount).Str("region", cfg.defaultRegion).
		Bool("sync", cfg.sync).Str("version", versionString()).Msg("extenddb serving")
}

// serveUntilDone serves on ln until ctx is done, then drains in-flight
// requests for at most --shutdown-timeout.
func serveUntilDone(ctx context.Context, stop context.CancelFunc, cfg serveConfig, log zerolog.Logger, srv httpServer, ln net.Listener) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	stop()
	log.Info().Str("timeout", cfg.shutdownTimeout.String()).Msg("shutting down: draining in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Requests still running past the timeout are cut off; the store is
		// closed cleanly regardless, so nothing acknowledged is lost.
		log.Warn().Err(err).Msg("in-flight requests did not finish in time")
		_ = srv.Close()
	}
	<-served
	log.Info().Msg("stopped")
	return nil
}

// httpServer is what serve needs of http.Server, which httpfront.Server
// provides too.
type httpServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
}

// newHTTPServer is the HTTP server of --http-front: both kinds with the
// same timeouts, log and base context.
func newHTTPServer(front string, h http.Handler, errLog *stdlog.Logger, base context.Context) httpServer {
	const (
		readHeaderTimeout = 30 * time.Second
		// A slow or stalled client may hold a connection at most this long
		// per request (headers and body; bodies are at most 16 MB).
		readTimeout = 60 * time.Second
	)
	baseCtx := func(net.Listener) context.Context { return base }
	if front == "net/http" {
		return &http.Server{
			Handler:           h,
			ReadHeaderTimeout: readHeaderTimeout,
			ReadTimeout:       readTimeout,
			IdleTimeout:       serveIdleTimeout,
			ErrorLog:          errLog,
			BaseContext:       baseCtx,
		}
	}
	return &httpfront.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       serveIdleTimeout,
		ErrorLog:          errLog,
		BaseContext:       baseCtx,
	}
}

// serveIdleTimeout is how long an idle keep-alive connection stays open.
// It must exceed the clients' own idle timeout (the Go SDK's 90 s, the
// Java SDK v2's 60 s): a server that closed first could close a
// connection just as a client sent a request on it, which the client sees
// as an EOF or a reset.
const serveIdleTimeout = 2 * time.Minute

// pitrLagOption turns --pitr-lag into Options.PITRLag, whose zero is the
// default (five minutes) and whose "none" is negative.
func pitrLagOption(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
