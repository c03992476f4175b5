// Package s3format reads the records of the objects ImportTable and
// StartBulkPutItems load from S3: it undoes the objects' compression
// (GZIP, ZSTD or NONE) and splits DynamoDB JSON (JSON Lines) and Ion text
// into records, each an item with, for a bulk put, its condition.
//
// It is shared by two capabilities (emulator/internal/s3io and
// emulator/internal/bulkput), which may not import each other, so that
// both parse their input the same way (Developer Guide, "DynamoDB data
// import from Amazon S3: formats" and "Bulk put items: input format").
//
// A leaf over the API's values: it imports emulator/av and emulator/ion
// only (internal/archtest holds the rule).
package s3format
