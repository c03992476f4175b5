// Package kv declares the ordered key-value contract the engine runs on:
// point reads, ordered iteration, atomic batches and snapshots. It holds
// interfaces, sentinel errors and two small helpers (IsShared, PrefixEnd), so
// the engine and any store (pebblestore today, a distributed ordered KV
// later) meet here without importing each other. See docs/adr/0001-kv-contract-package.md.
package kv
