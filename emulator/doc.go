// Package emulator is the DynamoDB engine and its Go API: namespaces of
// (account, Region) → tables, validation with DynamoDB's errors and messages,
// items, expressions, indexes, transactions, capacity accounting, TTL,
// streams and Kinesis streaming destinations (their records go out through a
// KinesisSink the caller provides), auto scaling of provisioned capacity,
// global tables, backups, exports and imports. Together with the packages
// under emulator/internal it is the one place DynamoDB semantics live: the
// Engine answers every operation, and hands a capability's to its package.
// It stores everything through the kv contract, reads and writes export and
// import objects through the objstore contract, and knows nothing of HTTP.
//
// Snapshot, Restore, Reset and ResetNamespace (snapshot.go) save and
// replace the whole state for test suites: a restore is one store batch
// committed with requests held at the engine's gate (Enter, which the
// wire and the console take once per request) and the background work
// stopped, then every cache is rebuilt from the store, as New does.
//
// # The engine's packages
//
// What each owns, and what it may use (internal/archtest holds the rules;
// docs/adr/0007-engine-layout.md gives the reasons):
//
//   - emulator/api: the API's vocabulary: request and response shapes,
//     Error with its codes and constructors, Namespace and its ARNs.
//     Imports only emulator/av. wire, console, iac, metrics and cmd use it
//     for the vocabulary and this package only to drive the Engine.
//   - emulator/av: attribute values: decoding and encoding, validation,
//     sizes, stored form and key encodings. A leaf.
//   - emulator/expr: condition, filter, key-condition, update and
//     projection expressions: parser, evaluation (metered), the legacy
//     parameters. Imports emulator/av and emulator/work.
//   - emulator/partiql and emulator/ion: the PartiQL parser and the Ion
//     text codec of exports and imports. Import only emulator/av.
//   - emulator/work: the meter of a request's long loops, which stops them
//     when the request's context ends. Standard library only.
//   - emulator/internal/shape: the request shape checks every operation
//     shares (Violations and its member checks, InvalidParam, the early
//     TableName answers), for the engine and its capabilities alike.
//     Imports only emulator/api.
//   - emulator/internal/jobs: the one home of background work: periodic
//     workers (registered in New, run while this process leads), one-shot
//     task groups cancelled by Close, job claims. Standard library only.
//   - emulator/internal/insights: Contributor Insights, the first
//     capability moved out: the stored setting of a table or GSI and its
//     status, the answers of Update/Describe/ListContributorInsights, and
//     the counters of the most accessed and most throttled keys (on the
//     hotkeys sketches) that the engine's capacity accounting feeds.
//     Imports emulator/api, emulator/av and hotkeys.
//   - emulator/internal/partiqlexec: PartiQL execution (ExecuteStatement,
//     BatchExecuteStatement, ExecuteTransaction): statements translated
//     into the classic item operations, the parse cache. Uses the engine
//     through its Core interface (implemented here by pqCore, partiql.go);
//     imports emulator/api, av, expr, partiql and work, never this package.
//   - emulator/internal/ttl: Time to Live: the table's setting (TTL,
//     embedded in tableMeta), the answers of Update/DescribeTimeToLive and
//     the expiry pass the TTL worker runs. Uses the engine through its Core
//     (ttlCore, ttl_core.go); imports emulator/api, av and kv.
//   - emulator/internal/autoscale: auto scaling of provisioned capacity:
//     the settings of a table's or GSI's capacities (Scaling), the answers
//     of Describe/UpdateTableReplicaAutoScaling and the worker pass that
//     turns consumed capacity into UpdateTable changes. Uses the engine
//     through its Core (asCore, autoscale_core.go); imports emulator/api,
//     throttle and zerolog.
//   - emulator/internal/s3io: table export to S3 and import from S3
//     (ExportTableToPointInTime, full and incremental; Describe/ListExports;
//     ImportTable; Describe/ListImports; an import's error log): their
//     stored records, their jobs (data files and manifests from a snapshot;
//     objects read, parsed and loaded) and their recovery at start. Uses the
//     engine through its Core interface (implemented here by s3Core and
//     importTable, s3io_core.go); imports emulator/api, av, ion,
//     internal/jobs, kv and objstore, never this package.
//   - emulator/internal/globaltables: global tables, both versions: the
//     membership each table stores (Membership: the replication group and
//     the legacy record), the ReplicaUpdates rules and group edits, the
//     replication applier, the seeding jobs of new replicas and the
//     disassociation jobs of replicas leaving their group, and the six
//     legacy (2017.11.29) operations. Uses the engine through its Core
//     interface (implemented here by gtCore, globaltables_core.go); imports
//     emulator/api and emulator/av, never this package. The replication
//     derivation (item versions and outbox entries) stays in this package.
//   - emulator/internal/streams: DynamoDB Streams: the stream records
//     staged with each write batch (State.Stage, fed by streamDerivation),
//     their storage, the shards and their rollover, the trim past the
//     retention period, and the answers of ListStreams, DescribeStream,
//     GetShardIterator and GetRecords; the stored setting is streams.Spec.
//     Uses the engine through its Core (streamsCore, streams_core.go);
//     imports emulator/api, emulator/av and kv.
//   - emulator/internal/kinesis: Kinesis Data Streams destinations: the
//     stored Destinations and their statuses, the four operations'
//     answers, the record of an item change queued in the write's batch
//     (Stage, fed by kinesisDerivation) and the Deliverer that sends the
//     queue to the KinesisSink. Uses the engine through its Core
//     (kinesisCore, kinesis_core.go); imports emulator/api, emulator/av and
//     kv.
//   - emulator/internal/capacity: capacity accounting and throttling: the
//     units a read or write consumes and the ConsumedCapacity it returns,
//     the throttle manager (account, table, GSI and partition buckets of
//     package throttle, the account check every request starts with, the
//     test controls behind /_extenddb/throttle), the errors,
//     ThrottlingReasons and cancellation reasons of a refusal, and the
//     Observer. The engine keeps the handles on tableMeta/indexMeta and
//     calls it on the data path with plain values (throttle_engine.go,
//     capacity.go); it needs no Core. Imports emulator/api, av,
//     emulator/internal/shape and throttle.
//   - emulator/internal/txn: transactions' request checks
//     (TransactWriteItems, TransactGetItems) in DynamoDB's order, one
//     operation per item, cancellation reasons, ClientRequestToken
//     idempotency (in process and on a shared store) and the set of items
//     running transactions hold. Uses the engine through its Core (txnCore,
//     txn_core.go); the execution (resolve, stripes, prepare, one batch,
//     capacity) stays in this package's write pipeline (transact.go).
//     Imports emulator/api, av, expr, emulator/internal/shape and kv.
//   - emulator/internal/backups: on-demand backups, point-in-time recovery
//     and their restores: the backup records, Create/Describe/List/
//     DeleteBackup and the copy job (DeleteTable's SYSTEM backup too); the
//     PITR setting (PITR, embedded in tableMeta), the undo log each write
//     adds (fed by pitrDerivation), the as-of reads exports use through
//     the engine, the trim, Update/DescribeContinuousBackups;
//     RestoreTableFromBackup, RestoreTableToPointInTime and the restore job
//     (the table's Restore state is its type). Uses the engine through its
//     Core (bkCore, backups_core.go); imports emulator/api, av,
//     internal/jobs, internal/shape and kv, never this package.
//   - emulator (this package): the Engine (New, Close, one method per
//     operation), the catalog (tableMeta, whose per-capability state is
//     grouped into types named for their owner), the keyspace, the read
//     path and the write pipeline, and, for now, the capabilities not yet
//     moved to packages of their own.
//
// # The write pipeline and its change feed
//
// Every item write, whatever its origin (single-item writes, batches,
// transactions, PartiQL, TTL, import, restore, replication), is staged by
// writeBatch.stage, which hands the change (old image, new image) to each
// registered derivation the table wants, in the order of derivations
// (derive.go): statistics, secondary indexes, the replication queue, the
// Kinesis outbox, PITR history, stream records. Each stages its records in
// the write's own store batch, so a write and what it implies commit
// together. A new kind of derived record is a new derivation and one line
// in that list; the write path itself does not change.
package emulator
