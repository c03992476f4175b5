// Package emulator is the DynamoDB engine and its Go API: namespaces of
// (account, Region) → tables, validation with DynamoDB's errors and messages,
// items, expressions (emulator/expr), indexes, transactions, capacity
// accounting, TTL, streams and Kinesis streaming destinations (their records
// go out through a KinesisSink the caller provides), auto scaling of
// provisioned capacity, backups, exports and imports. It is the one place
// DynamoDB semantics live. It stores everything through the kv contract,
// reads and writes export and import objects through the objstore contract,
// and knows nothing of HTTP.
package emulator
