// Package keyspace is the layout of the engine's keys in the kv store: the
// family bytes, TableID and the prefixes of a table's metadata, items,
// index entries and stream records (keys.go, whose comment maps every
// family and its owner), and the striped locks of items (ItemLocks,
// StripeOf), which the write pipeline holds across a commit. A leaf:
// it imports only emulator/api (for Namespace).
package keyspace
