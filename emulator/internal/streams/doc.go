// Package streams is DynamoDB Streams: the stream records written
// atomically with the item changes they describe, their format
// (api.StreamRecord) and storage, the streams and shards of a table (a
// shard rolls over on a schedule; records and closed shards are trimmed
// after the retention period), and the answers of ListStreams,
// DescribeStream, GetShardIterator and GetRecords.
//
// A table's stream setting (Spec) is stored in the table's metadata,
// which the engine owns; the streams and shards derived from it are stored
// under the table's stream family of the keyspace, whose prefix the engine
// gives. The engine checks the requests' shapes, resolves stream ARNs and
// looks tables up (Core, the narrow interface this package declares and the
// engine implements), and hands the write pipeline's changes over once per
// batch (State.Stage), so records commit with their writes.
//
// It imports emulator/api, emulator/av and kv, never the engine
// (internal/archtest holds the rule).
package streams
