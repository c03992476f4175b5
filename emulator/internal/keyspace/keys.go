package keyspace

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"

	"github.com/extenddb/extenddb/emulator/api"
)

// Keyspace layout of the kv store. Every key starts with a one-byte family
// tag; table IDs are fixed-length (16 random bytes), so no separator is needed
// after them and a prefix of one table never covers another's keys.
//
//	'm' <account> 0x00 <region> 0x00 <table name>   → JSON tableMeta (control plane)
//	'i' <tableID:16> <encoded primary key>          → item (data plane)
//	'x' <tableID:16> <indexID:4 BE> <encoded key>   → index entry (data plane)
//	's' <tableID:16> <stream-defined suffix>        → stream records (streams)
//	'v' <tableID:16> <encoded primary key>          → item version (global tables, replicate.go)
//	'q' <tableID:16> <seq:8>                        → replication outbox of that table (replicate.go)
//	'k' <tableID:16> <seq:8>                        → Kinesis delivery queue of that table (kinesis_core.go)
//	'g'                                             → catalog generation, moved by every metadata write (catalog.go)
//	'l' 'c' | 'L' | 'p' <owner>                     → catalog lock, leader lease, process heartbeats (shared store, lease.go)
//	'b' <account> 0x00 <region> 0x00 <backup id>    → JSON backups.Meta (emulator/internal/backups)
//	'c' <dataID:16> <encoded primary key>           → backed-up item (emulator/internal/backups)
//	'p' <tableID:16> <encoded primary key> <at:8> <seq:8> → the item before a write at `at` (PITR undo log, emulator/internal/backups)
//	'e' <account> 0x00 <region> 0x00 <export id>    → JSON export record (emulator/internal/s3io)
//	'j' <account> 0x00 <region> 0x00 <import id>    → JSON import record (emulator/internal/s3io)
//	't' <account> 0x00 <region> 0x00 <token>        → completed ClientRequestToken, shared stores only (internal/txn)
//	'u' <account> 0x00 <region> 0x00 <operation id> → JSON bulk operation record (emulator/internal/bulkput)
//	'w' <operation id> 0x00 <kind> <object:4> <record:8> → a bulk operation's report line until its end (emulator/internal/bulkput)
//
// Backups live outside every table's families, so DeleteTable's range
// deletes never touch them and they outlive the table
// (emulator/internal/backups).
//
// The table ID is allocated at CreateTable (it is also the TableId UUID that
// DescribeTable reports), so DeleteTable is one DeleteRange per family over
// the table's ID and a re-created table of the same name never sees old data.
// Index IDs are allocated per table from tableMeta.NextIndexID and never
// reused, so a GSI deleted and re-created under the same name starts empty.
// Account and Region never contain 0x00 (they come from SigV4 scopes and
// configuration), so the meta prefix of one namespace is never a prefix of
// another's.
const (
	FamMeta   = 'm'
	FamItem   = 'i'
	FamIndex  = 'x'
	FamStream = 's'
)

// tableID identifies one incarnation of a table.
type TableID [16]byte

// newTableID returns a random table ID (a version-4 UUID's bits).
func NewTableID() (TableID, error) {
	var id TableID
	if _, err := rand.Read(id[:]); err != nil {
		return id, err
	}
	id[6] = (id[6] & 0x0f) | 0x40
	id[8] = (id[8] & 0x3f) | 0x80
	return id, nil
}

// UUID formats the ID as DynamoDB's TableId.
func (id TableID) UUID() string { return api.UUIDString(id) }

// MarshalText keeps the ID readable in stored metadata.
func (id TableID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(id[:])), nil }

// UnmarshalText is the inverse of MarshalText.
func (id *TableID) UnmarshalText(b []byte) error {
	_, err := hex.Decode(id[:], b)
	return err
}

// metaPrefix is the prefix of every table metadata key of ns.
func MetaPrefix(ns api.Namespace) []byte {
	k := make([]byte, 0, 3+len(ns.Account)+len(ns.Region))
	k = append(k, FamMeta)
	k = append(k, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	k = append(k, 0)
	return k
}

// metaKey is the key of table name's metadata in ns.
func MetaKey(ns api.Namespace, name string) []byte {
	return append(MetaPrefix(ns), name...)
}

// itemPrefix is the prefix under which the data plane stores the items of
// table id: the key of an item is itemPrefix(id) + its encoded primary key.
func ItemPrefix(id TableID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, FamItem)
	return append(k, id[:]...)
}

// indexPrefix is the prefix of the entries of index indexID of table id.
func IndexPrefix(id TableID, indexID uint32) []byte {
	k := make([]byte, 0, 21)
	k = append(k, FamIndex)
	k = append(k, id[:]...)
	return binary.BigEndian.AppendUint32(k, indexID)
}

// indexesPrefix covers every index of table id.
func IndexesPrefix(id TableID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, FamIndex)
	return append(k, id[:]...)
}

// streamPrefix is the prefix of the stream records of table id.
func StreamPrefix(id TableID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, FamStream)
	return append(k, id[:]...)
}
