// Package pebblestore is the ordered key-value store the engine runs on: the
// kv contract over github.com/cockroachdb/pebble/v2, on disk or on an
// in-memory filesystem. It knows nothing of DynamoDB. It keeps a full disk
// or a failed write from reaching Pebble, which would panic or hang
// (diskfull.go): writes are refused with kv.ErrUnavailable instead.
package pebblestore
