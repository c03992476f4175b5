// Package s3io is table export to S3 and import from S3: the operations
// ExportTableToPointInTime (full and incremental exports, either filtered
// by a FilterSpecification, filter.go), DescribeExport,
// ListExports, ImportTable, DescribeImport and ListImports, plus an
// import's error log (ExtendDB's stand-in for its CloudWatch log stream);
// the stored records of exports and imports (the key families Export and
// Import); and their jobs, which run in one jobs.Group (Jobs): an export
// writes the data files (DynamoDB JSON or Ion, gzipped) and manifests of
// an AWS export from a store snapshot, an import reads, decompresses and
// parses every object under a prefix (DynamoDB JSON, Ion or CSV) and
// writes the valid items. At the engine's start an export left
// IN_PROGRESS fails (its snapshot is gone) and an import left IN_PROGRESS
// runs again from its first object.
//
// Export and import are one package because they are two directions of
// one capability: they share their job group and test hooks, the S3
// failure codes, the records' keyspace and scanning, and the formats.
//
// It uses the engine through Core, the narrow interface it declares: the
// clock, store, object store and logger, the catalog lock, the job claims
// of a shared store, the table an export names with its point-in-time
// history (read from the request's snapshot), and the table an import
// creates (Table: built by CreateTable's rules, its items checked and
// written through the engine's write path, made ACTIVE or dropped at the
// end). The engine (emulator) checks the requests' shapes and implements
// Core (s3io_core.go). This package imports emulator/api, emulator/av,
// emulator/expr (a filtered export's expressions), emulator/ion,
// emulator/internal/jobs, kv and objstore, never emulator
// nor another capability (internal/archtest holds the rule).
package s3io
