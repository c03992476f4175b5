package extenddbtest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/internal/sdkhttp"
	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/throttle"
	"github.com/extenddb/extenddb/wire"
)

// Defaults of the configuration Start returns.
const (
	DefaultRegion      = "us-east-1"
	DefaultAccessKeyID = "test"
	DefaultSecretKey   = "test"
)

// Option configures Start.
type Option func(*options)

type options struct {
	region, accessKeyID string
	dataDir             string
	throttleOff         bool
	initialBurst        *float64
	transitionDelay     time.Duration
	replicationDelay    time.Duration
	legacyGlobalTables  bool
	autoScaleDatapoint  time.Duration
	pitrLag             *time.Duration
	s3Dir               string
	wire                wire.Options
	loads               []string
	load                iac.Options
	snapshot            string
}

// WithRegion sets the Region of Server.Config (default us-east-1).
func WithRegion(region string) Option { return func(o *options) { o.region = region } }

// WithAccessKey sets the access key ID of Server.Config (default "test").
// A 12-digit key is its own account; any other key is in the default
// account 000000000000.
func WithAccessKey(accessKeyID string) Option {
	return func(o *options) { o.accessKeyID = accessKeyID }
}

// WithDefaultAccount sets the account of requests whose access key is not 12
// digits, and of loaded tables that declare none (default 000000000000).
func WithDefaultAccount(account string) Option {
	return func(o *options) { o.wire.DefaultAccount, o.load.DefaultAccount = account, account }
}

// WithAccountPerAccessKey gives every access key that is not 12 digits (or
// mapped by WithAccessKeyAccount) an account of its own, as `serve
// --account-per-access-key` does; WithLoad's Terraform providers resolve
// their access keys the same way.
func WithAccountPerAccessKey() Option {
	return func(o *options) { o.wire.AccountPerAccessKey, o.load.AccountPerAccessKey = true, true }
}

// WithAccessKeyAccount maps an access key ID to a 12-digit account, as
// `serve --access-key-account KEY=ACCOUNT` does: requests signed with the
// key act in account, and so do the tables WithLoad provisions through a
// Terraform provider with that access_key. Repeatable.
func WithAccessKeyAccount(accessKeyID, account string) Option {
	return func(o *options) {
		if o.wire.AccessKeyAccounts == nil {
			o.wire.AccessKeyAccounts = map[string]string{}
		}
		o.wire.AccessKeyAccounts[accessKeyID] = account
		o.load.AccessKeyAccounts = o.wire.AccessKeyAccounts
	}
}

// WithDataDir keeps the data in dir (for example t.TempDir()) instead of in
// memory, so a later Start on the same dir finds it.
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithoutThrottling computes and reports consumed capacity but never
// refuses a request, as `serve --throttle off`.
func WithoutThrottling() Option { return func(o *options) { o.throttleOff = true } }

// WithThrottleInitialBurst makes a new table's buckets start with seconds
// (from 1 to 300) of their rate instead of one, as `serve
// --throttle-initial-burst` does: for tests that create a small
// provisioned table and at once write or read more than a second of its
// capacity. Out of range fails Start.
func WithThrottleInitialBurst(seconds float64) Option {
	return func(o *options) { o.initialBurst = &seconds }
}

// WithTransitionDelay keeps tables and indexes CREATING, UPDATING and
// DELETING for d, so waiters in the code under test are exercised.
func WithTransitionDelay(d time.Duration) Option {
	return func(o *options) { o.transitionDelay = d }
}

// WithReplicationDelay makes a global table's writes reach the replicas in
// its other Regions d after they are made (serve's --replication-delay), so
// code that must tolerate replication lag is tested against it.
func WithReplicationDelay(d time.Duration) Option {
	return func(o *options) { o.replicationDelay = d }
}

// WithLegacyGlobalTables serves global tables version 2017.11.29
// (CreateGlobalTable and friends; serve's --legacy-global-tables), for code
// that still uses them. Without it they answer as today's DynamoDB, which
// creates none.
func WithLegacyGlobalTables() Option {
	return func(o *options) { o.legacyGlobalTables = true }
}

// WithAutoScaleDatapoint makes one auto scaling datapoint d instead of a
// minute (serve's --auto-scale-datapoint), so a table given auto scaling by
// UpdateTableReplicaAutoScaling scales out after 2d of sustained use above
// its target and in after 15d below it: auto scaling a test can watch.
func WithAutoScaleDatapoint(d time.Duration) Option {
	return func(o *options) { o.autoScaleDatapoint = d }
}

// WithPITRLag sets how far a table's LatestRestorableDateTime trails the
// clock (serve's --pitr-lag; DynamoDB's five minutes by default). With 0 a
// test can restore, with RestoreTableToPointInTime, the moment it just
// wrote.
func WithPITRLag(d time.Duration) Option {
	return func(o *options) { o.pitrLag = &d }
}

// WithS3Dir makes dir the S3 stand-in of exports and imports (serve's
// --s3-dir): bucket B is the folder dir/B. By default it is a temporary
// folder of the test, Server.S3Dir.
func WithS3Dir(dir string) Option { return func(o *options) { o.s3Dir = dir } }

// WithLoad provisions the tables of Terraform directories, CloudFormation
// or SAM templates and cdk.out directories before Start returns, as
// `serve --load` does. Repeatable.
func WithLoad(paths ...string) Option {
	return func(o *options) { o.loads = append(o.loads, paths...) }
}

// WithTerraformVars sets Terraform variables (NAME=VALUE) for WithLoad.
func WithTerraformVars(vars ...string) Option {
	return func(o *options) { o.load.Vars = append(o.load.Vars, vars...) }
}

// WithStackParameters sets CloudFormation parameters (KEY=VALUE) for WithLoad.
func WithStackParameters(params ...string) Option {
	return func(o *options) { o.load.Params = append(o.load.Params, params...) }
}

// Server is a running ExtendDB.
type Server struct {
	// Endpoint is the server's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Config is an aws-sdk-go-v2 configuration for the server: the Region,
	// static credentials and BaseEndpoint set, so every client built from
	// it (dynamodb.NewFromConfig, dynamodbstreams, sts) talks to ExtendDB.
	// Retries are the SDK's defaults, as in production.
	Config aws.Config
	// Engine is the engine behind the server, for tests that want to
	// call it directly.
	Engine *emulator.Engine
	// S3Dir is the folder standing in for S3 (WithS3Dir): create the
	// folder S3Dir/B before exporting to or importing from bucket B.
	S3Dir string
}

// Start starts a server and registers its shutdown with t.Cleanup. Any
// failure, including an invalid definition given to WithLoad, fails t.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := options{region: DefaultRegion, accessKeyID: DefaultAccessKeyID}
	for _, opt := range opts {
		opt(&o)
	}
	if o.load.DefaultAccount == "" {
		o.load.DefaultAccount = wire.DefaultAccount
	}
	if o.load.DefaultRegion == "" {
		o.load.DefaultRegion = o.region
	}
	if o.load.Getenv == nil {
		// Loaded definitions must not depend on the developer's shell.
		o.load.Getenv = func(string) (string, bool) { return "", false }
	}
	o.wire.DefaultRegion = o.region

	var initialBurst float64
	if o.initialBurst != nil {
		// Checked here: the engine would take 0 for its default.
		if v := *o.initialBurst; !(v >= 1 && v <= throttle.DefaultBurstSeconds) {
			t.Fatalf("extenddbtest: WithThrottleInitialBurst(%v): must be from 1 to %d seconds", v, throttle.DefaultBurstSeconds)
		}
		initialBurst = *o.initialBurst
	}

	if o.s3Dir == "" {
		o.s3Dir = t.TempDir()
	}
	store, err := pebblestore.Open(pebblestore.Options{Dir: o.dataDir, InMemory: o.dataDir == ""})
	if err != nil {
		t.Fatalf("extenddbtest: %v", err)
	}
	eng, err := emulator.New(emulator.Options{
		Store:              store,
		TransitionDelay:    o.transitionDelay,
		ReplicationDelay:   o.replicationDelay,
		LegacyGlobalTables: o.legacyGlobalTables,
		PITRLag:            pitrLag(o.pitrLag),
		// Passes ten times a datapoint, so a finished one is seen soon.
		AutoScaleDatapoint: o.autoScaleDatapoint,
		AutoScaleInterval:  o.autoScaleDatapoint / 10,
		Throttle:           emulator.ThrottleOptions{Off: o.throttleOff, InitialBurstSeconds: initialBurst},
		Objects:            objstore.Dir{Root: o.s3Dir},
	})
	if err != nil {
		_ = store.Close()
		t.Fatalf("extenddbtest: %v", err)
	}
	// Registered first so it runs last: the HTTP server stops before the
	// engine and the store close.
	t.Cleanup(func() {
		if err := eng.Close(); err != nil {
			t.Errorf("extenddbtest: closing the engine: %v", err)
		}
		if err := store.Close(); err != nil {
			t.Errorf("extenddbtest: closing the store: %v", err)
		}
	})
	if o.snapshot != "" {
		snap, err := readSnapshotFile(o.snapshot)
		if err == nil {
			err = eng.Restore(t.Context(), snap)
		}
		if err != nil {
			t.Fatalf("extenddbtest: %v", err)
		}
	}
	if len(o.loads) > 0 {
		if err := load(t.Context(), eng, o); err != nil {
			t.Fatalf("extenddbtest: %v", err)
		}
	}
	srv := httptest.NewServer(wire.NewHandler(eng, o.wire))
	t.Cleanup(srv.Close)
	return &Server{
		Endpoint: srv.URL,
		Engine:   eng,
		S3Dir:    o.s3Dir,
		Config: aws.Config{
			Region:       o.region,
			BaseEndpoint: aws.String(srv.URL),
			Credentials:  credentials.NewStaticCredentialsProvider(o.accessKeyID, DefaultSecretKey, ""),
			HTTPClient:   sdkhttp.OwnedBody(srv.Client()),
		},
	}
}

// DynamoDB returns a DynamoDB client built from s.Config.
func (s *Server) DynamoDB() *dynamodb.Client { return dynamodb.NewFromConfig(s.Config) }

// load provisions o.loads into eng, failing on any error diagnostic.
func load(ctx context.Context, eng *emulator.Engine, o options) error {
	specs, diags := iac.Load(o.loads, o.load)
	if !diags.HasErrors() {
		diags = append(diags, iac.Provision(ctx, eng, specs)...)
	}
	if !diags.HasErrors() {
		return nil
	}
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.String())
	}
	return fmt.Errorf("loading %s:\n%s", strings.Join(o.loads, ", "), strings.Join(lines, "\n"))
}

// pitrLag is WithPITRLag's setting as Options.PITRLag (whose zero is the
// default and whose "none" is negative).
func pitrLag(d *time.Duration) time.Duration {
	switch {
	case d == nil:
		return 0
	case *d <= 0:
		return -1
	}
	return *d
}
