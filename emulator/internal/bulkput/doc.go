// Package bulkput is bulk put from S3: the operations StartBulkPutItems,
// DescribeBulkOperation, ListBulkOperations and CancelBulkOperation, the
// stored record of each bulk operation (the key family Op), and its job,
// which runs in one jobs.Group (Jobs.Tasks) like every one-shot job of the
// engine.
//
// The job lists the objects under the input prefix, streams each one
// through its decompression (emulator/internal/s3format, shared with
// ImportTable), parses its records (an item and an optional per-item
// condition) and writes them in chunks through the engine's write
// pipeline (Table.Write), so indexes, streams, Kinesis destinations and
// point-in-time history follow as for any write. Each chunk's commit also
// stages the operation's progress (the next record to read, the counts,
// the usage) and the chunk's report lines (the key family Report), so a
// kill -9 at any point resumes at the first record not committed: no
// record is written twice. At the end the report lines are written to the
// output location as the ERROR and CONDITION_CHECK_FAILURE reports, then
// the final status is stored (Developer Guide, "Bulk put items from
// Amazon S3"; API Reference, StartBulkPutItems and
// BulkOperationDescription; docs/differences.md lists what the
// documentation leaves open and what ExtendDB chose).
//
// MaxWriteRequestUnits is a token bucket over the write units of the
// items the job writes (one second of burst).
//
// It uses the engine through Core, the narrow interface it declares; the
// engine (emulator/bulkput_core.go) checks the requests' shapes and the
// table's restrictions and implements Core. This package imports
// emulator/api, emulator/av, emulator/internal/jobs,
// emulator/internal/s3format, kv and objstore, never emulator nor another
// capability (internal/archtest holds the rule).
package bulkput
