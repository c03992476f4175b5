package streams

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// Core is what streams use of the engine: the clock and options, the
// store, the table lookups and the engine's answers to store failures.
type Core interface {
	// Now is the engine's clock.
	Now() time.Time
	// Store is the engine's store; Sync is whether its commits fsync.
	Store() kv.Store
	Sync() bool
	// Shared reports whether other processes share the store: the
	// in-memory copy of a table's streams is then re-read in every
	// transaction.
	Shared() bool
	// ShardRollover is how long a shard stays open before a child takes
	// over (Options.StreamShardRollover, or its default).
	ShardRollover() time.Duration
	// Prefix returns a new slice holding the prefix of table id's stream
	// keys (its family of the keyspace).
	Prefix(id [16]byte) []byte
	// Table looks up the live table name of ns (nil when there is none).
	Table(ns api.Namespace, name string, now time.Time) *Table
	// Tables returns every live table of ns, in no particular order.
	Tables(ns api.Namespace, now time.Time) []*Table
	// StreamTable resolves a stream ARN (of ns or, through a resource
	// policy, of another account) to its live table and the stream's
	// label: ValidationException for an ARN that does not parse,
	// ResourceNotFoundException (NotFound) for one naming no table.
	StreamTable(ns api.Namespace, arn string, now time.Time) (*Table, string, error)
	// InternalError is the engine's answer to an unexpected store
	// failure; WriteError to a failed store transaction.
	InternalError(err error) error
	WriteError(err error) error
}

// Spec is a table's stream setting, stored with the table's metadata
// (the engine embeds it in its table struct; the JSON names are the
// stored ones).
type Spec struct {
	StreamEnabled  bool   `json:"streamOn,omitempty"`
	StreamViewType string `json:"streamView,omitempty"`
	// StreamLabel is the latest stream's label; it outlives a disable, as
	// DynamoDB keeps LatestStreamArn/Label after the stream is turned off.
	StreamLabel string `json:"streamLabel,omitempty"`
}

// LabelLayout is a stream label's format (LatestStreamLabel): ISO-8601
// UTC with milliseconds.
const LabelLayout = "2006-01-02T15:04:05.000"

// Table is what streams read of a table's metadata.
type Table struct {
	ID     [16]byte
	Name   string
	Region string
	// ARN is the table's ARN; a stream's is ARN + "/stream/" + label.
	ARN string
	// Key is the key schema, in the table's order.
	Key []KeyElem
	Spec
}

// KeyElem is one attribute of a key schema.
type KeyElem struct {
	Name    string
	KeyType string // HASH or RANGE
}

// Change is one item change of a write batch.
type Change struct {
	Table    *Table
	Old, New av.Item
	// ByTTL marks a TTL delete: the record names the service as deleter.
	ByTTL bool
	// Quiet marks a new replica's seeding copy: it has no record.
	Quiet bool
}

// NotFound is the answer to a stream ARN that names no stream.
func NotFound(arn string) error {
	return api.ResourceNotFoundError("Requested resource not found: Stream: %s not found", arn)
}
