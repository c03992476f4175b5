package emulator

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/autoscale"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/bulkput"
	"github.com/extenddb/extenddb/emulator/internal/capacity"
	"github.com/extenddb/extenddb/emulator/internal/insights"
	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/emulator/internal/kinesis"
	"github.com/extenddb/extenddb/emulator/internal/partiqlexec"
	"github.com/extenddb/extenddb/emulator/internal/s3io"
	"github.com/extenddb/extenddb/emulator/internal/streams"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/rs/zerolog"
)

// Clock tells the engine the time, so tests can replay timelines.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// SystemClock is the wall clock.
var SystemClock Clock = systemClock{}

// Options configures an Engine. The zero value of every field but Store is a
// documented default.
type Options struct {
	// Store holds all data. Required.
	Store kv.Store
	// Clock defaults to SystemClock.
	Clock Clock
	// Sync makes every acknowledged write durable (fsync per commit).
	Sync bool
	// TransitionDelay is how long tables and indexes stay in CREATING,
	// UPDATING and DELETING. Zero makes transitions immediate.
	TransitionDelay time.Duration
	// Logger defaults to a disabled logger.
	Logger *zerolog.Logger
	// Limits are the capacity quotas DescribeLimits reports and CreateTable
	// and UpdateTable enforce; zero fields take the current AWS defaults
	// (80,000 per account, 40,000 per table, for reads and writes).
	Limits api.DescribeLimitsOutput
	// Throttle configures the throttle manager (see ThrottleOptions); the
	// account and per-table figures it uses are Limits'.
	Throttle ThrottleOptions
	// StreamShardRollover is how long a stream shard stays open before it
	// is closed and a child opened; zero means four hours (emulator/internal/streams).
	StreamShardRollover time.Duration
	// TTLInterval is the period of the TTL expiry worker (ttl_core.go); zero
	// means DefaultTTLInterval, negative disables the worker.
	TTLInterval time.Duration
	// PolicyUpdateBlock, when positive, refuses a change to a resource's
	// resource-based policy (ResourceInUseException) within this long of
	// the previous change, as DynamoDB blocks updates for 15 seconds. Zero
	// (the default) lets changes follow each other at once.
	PolicyUpdateBlock time.Duration
	// Observer, when set, is told of consumed capacity and throttle
	// refusals (emulator/internal/capacity); nil costs nothing.
	Observer Observer
	// ReplicationDelay holds each change to a global table back this long
	// before another Region's replica applies it (replicate.go). Zero
	// applies it as soon as possible.
	ReplicationDelay time.Duration
	// Insights sizes the Contributor Insights counters (insights.go).
	Insights InsightsOptions
	// Kinesis, when set, receives the change records of every table with
	// a Kinesis streaming destination (emulator/internal/kinesis); nil
	// keeps the destinations as bookkeeping only.
	Kinesis KinesisSink
	// LegacyGlobalTables serves global tables version 2017.11.29
	// (CreateGlobalTable and its five siblings) as DynamoDB did; off, they
	// answer as today's DynamoDB does, which creates none
	// (globaltable_legacy.go).
	LegacyGlobalTables bool
	// AutoScaleInterval is the period of the auto scaling worker
	// (autoscale_core.go); zero means DefaultAutoScaleInterval,
	// negative disables the worker.
	AutoScaleInterval time.Duration
	// AutoScaleDatapoint is how much of the clock one auto scaling
	// datapoint covers: zero means a minute, the service's CloudWatch
	// period. Shorter makes auto scaling react that much sooner (2
	// datapoints above the target, 15 below), for tests that watch it.
	AutoScaleDatapoint time.Duration
	// PITRLag is how far LatestRestorableDateTime trails the clock (backups.PITR.Window):
	// zero means DefaultPITRLag (DynamoDB's five minutes), negative means
	// none, so a test can restore the moment it just wrote.
	PITRLag time.Duration
	// PITRTrimInterval is the period of the worker that trims the
	// point-in-time recovery history; zero means DefaultPITRTrimInterval,
	// negative disables the worker.
	PITRTrimInterval time.Duration
	// StreamTrimInterval is the period of the worker that deletes stream
	// records past the 24-hour retention; zero means
	// DefaultStreamTrimInterval, negative disables the worker. It runs
	// whatever TTLInterval says.
	StreamTrimInterval time.Duration
	// Objects is the S3 stand-in exports write to and imports read from
	// (emulator/internal/s3io); nil makes every bucket missing, so exports
	// and imports end FAILED with S3NoSuchBucket.
	Objects objstore.Store
	// LeaseDuration is how long the leases of a shared store (the
	// catalog lock and the workers' leader, lease.go) last unless renewed:
	// a dead leader's workers move to another process this long after it
	// last renewed. Zero means DefaultLeaseDuration (10 s). Unused on
	// Pebble.
	LeaseDuration time.Duration
	// LeaseRenewInterval is how often a process sharing a store renews
	// (or tries to take) the leader lease and, while leading, polls for
	// jobs other processes created; zero means a third of LeaseDuration.
	LeaseRenewInterval time.Duration
}

// Engine is the DynamoDB engine. Its methods are safe for concurrent use.
type Engine struct {
	opts Options
	log  zerolog.Logger

	// isShared is kv.IsShared(opts.Store), fixed at New.
	isShared bool
	// cat is the cache's generation on a shared store (catalog.go).
	cat catalogState
	// lease is the leader election and job claims (lease.go).
	lease leaseState
	// workers is the periodic workers (TTL, auto scaling, PITR trim),
	// registered in New and run while this process leads (lease.go).
	workers jobs.Workers

	// mu guards tables, the cache of every table's metadata. Control-plane
	// changes hold it for writing across validate → persist → swap, so they
	// are serialised; lookups take it for reading only.
	mu     sync.RWMutex
	tables map[api.Namespace]namespaceTables

	// items is the data plane's state (lock stripes, expression cache,
	// stats memo); its zero value is ready to use. See write.go.
	items itemState

	// tx is the transactions' state (ClientRequestToken idempotency, see
	// transact_token.go); its zero value is ready to use.
	tx txState

	// thr is the throttle manager (emulator/internal/capacity; wired in
	// throttle_engine.go).
	thr *capacity.Manager

	// streams is the stream records' state (emulator/internal/streams;
	// streams_core.go hands the API and the write batches over).
	streams streams.State

	// pq runs PartiQL statements and caches their parses
	// (emulator/internal/partiqlexec; partiql.go hands them over).
	pq partiqlexec.Executor

	// bf is the GSI backfill jobs (backfill.go).
	bf backfillState

	// repl is global-table replication: the applier and the seeding of
	// new replicas (replicate.go, replica_seed.go).
	repl replState
	// bk is the backup and restore jobs (emulator/internal/backups;
	// backups_core.go).
	bk backups.Jobs
	// ci is the Contributor Insights counters (insights.go).
	ci insights.Registry
	// kds delivers change records to Kinesis (emulator/internal/kinesis;
	// kinesis_core.go).
	kds kinesis.Deliverer
	// as is the auto scaling worker's datapoints (emulator/internal/autoscale).
	as autoscale.State
	// pitr orders the point-in-time recovery history's records of one
	// clock tick (pitr.go, emulator/internal/backups).
	pitr backups.Seq
	// ex is the export and import jobs (s3io_core.go,
	// emulator/internal/s3io).
	ex s3io.Jobs
	// bp is the bulk put jobs (bulkput_core.go, emulator/internal/bulkput).
	bp bulkput.Jobs
	// vec is the vector indexes' in-memory copies (vector_write.go).
	vec vectorCaches

	// work counts the steps requests' long loops have taken (WorkDone).
	work atomic.Uint64

	// gate holds requests while a snapshot restore or a reset replaces
	// the state (snapshot.go).
	gate gate
	// kept is the snapshots saved on the server by name (snapshot.go).
	kept keptSnapshots
}

// WorkDone is how many steps the long loops of requests (pages read, items
// of batches and transactions, expression evaluation) have taken since New:
// a request stopped by its context no longer moves it.
func (e *Engine) WorkDone() uint64 { return e.work.Load() }

// New returns an engine over opts.Store. Close the store after the engine.
func New(opts Options) (*Engine, error) {
	if opts.Clock == nil {
		opts.Clock = SystemClock
	}
	if opts.Store == nil {
		return nil, fmt.Errorf("emulator: Options.Store is required")
	}
	lim := &opts.Limits
	if lim.AccountMaxReadCapacityUnits == 0 {
		lim.AccountMaxReadCapacityUnits = 80000
	}
	if lim.AccountMaxWriteCapacityUnits == 0 {
		lim.AccountMaxWriteCapacityUnits = 80000
	}
	if lim.TableMaxReadCapacityUnits == 0 {
		lim.TableMaxReadCapacityUnits = 40000
	}
	if lim.TableMaxWriteCapacityUnits == 0 {
		lim.TableMaxWriteCapacityUnits = 40000
	}
	e := &Engine{opts: opts, log: zerolog.Nop(), tables: map[api.Namespace]namespaceTables{}}
	e.ci.Options = opts.Insights
	if opts.Logger != nil {
		e.log = *opts.Logger
	}
	if err := e.initThrottle(); err != nil {
		return nil, err
	}
	e.isShared = kv.IsShared(opts.Store)
	e.lease.owner.Store(newOwnerID())
	if err := e.loadTables(); err != nil {
		return nil, err
	}
	// The periodic workers: each its interval (zero the default, negative
	// off) and one pass, the first one period after the workers start.
	// startWorkers starts them when this process leads, stopWorkers (Close,
	// or leadership lost) stops them; a pass runs only while it leads.
	e.workers.MayRun = e.leading
	e.workers.Register(jobs.Periodic{Name: "ttl", Every: jobs.Interval(opts.TTLInterval, DefaultTTLInterval), Pass: e.ttlPass})
	e.workers.Register(jobs.Periodic{Name: "autoscale", Every: jobs.Interval(opts.AutoScaleInterval, DefaultAutoScaleInterval), Pass: e.autoScalePass})
	e.workers.Register(jobs.Periodic{Name: "pitr-trim", Every: jobs.Interval(opts.PITRTrimInterval, DefaultPITRTrimInterval), Pass: e.pitrTrimPass})
	e.workers.Register(jobs.Periodic{Name: "stream-trim", Every: jobs.Interval(opts.StreamTrimInterval, DefaultStreamTrimInterval), Pass: e.streamTrimPass})
	if e.isShared {
		// Any process writes: the queues' sequences are set here, the
		// workers start when this process takes the leader lease.
		e.initQueueSeqs()
		e.startLeaseLoop()
		return e, nil
	}
	e.lease.leading.Store(true)
	if err := e.startWorkers(); err != nil {
		e.stopWorkers()
		return nil, err
	}
	return e, nil
}

// Close stops the engine's background work (an unfinished index backfill
// or restore resumes at the next New; an unfinished backup fails there, see
// emulator/internal/backups). It does not close the store.
func (e *Engine) Close() error {
	e.stopLeaseLoop()
	e.stopWorkers()
	// A process that does not lead may still run the backups and exports
	// it took.
	e.bk.Tasks.Stop()
	e.ex.Tasks.Stop()
	e.bp.Tasks.Stop()
	return nil
}

func (e *Engine) now() time.Time { return e.opts.Clock.Now() }
