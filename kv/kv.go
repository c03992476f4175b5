package kv

import "errors"

// ErrNotFound is returned by Get when the key is absent.
var ErrNotFound = errors.New("kv: not found")

// ErrClosed is returned by operations on a closed store.
var ErrClosed = errors.New("kv: closed")

// ErrUnavailable is returned (wrapped, with the cause) by a write the store
// cannot take now: the disk is full, or the write did not finish in the
// store's time bound. Reads keep working. A write that got it may still be
// applied later, as with any timed-out request; retrying is the remedy.
var ErrUnavailable = errors.New("kv: unavailable")

// Reader is the read side shared by a store and its snapshots.
type Reader interface {
	// Get returns a copy of the value stored under key, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	// NewIter returns an iterator over keys in [lower, upper). A nil bound
	// is open. The iterator sees a consistent view of the data.
	NewIter(lower, upper []byte) (Iterator, error)
}

// Iterator walks keys in byte order. It is not safe for concurrent use.
// Positioning methods report whether the iterator is on a key.
type Iterator interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	// SeekGE moves to the first key >= key.
	SeekGE(key []byte) bool
	// SeekLT moves to the last key < key.
	SeekLT(key []byte) bool
	Valid() bool
	// Key and Value are valid until the next positioning call; copy to keep.
	Key() []byte
	Value() []byte
	Error() error
	Close() error
}

// Batch collects writes that are applied atomically by Commit.
type Batch interface {
	Set(key, value []byte) error
	Delete(key []byte) error
	// DeleteRange deletes every key in [start, end).
	DeleteRange(start, end []byte) error
	// Empty reports whether the batch holds no writes.
	Empty() bool
	// Commit applies the batch atomically. With sync, it returns only once
	// the writes are durable.
	Commit(sync bool) error
	// Close releases the batch; it is safe after Commit.
	Close() error
}

// Snapshot is a point-in-time, read-only view of the store.
type Snapshot interface {
	Reader
	Close() error
}

// Store is an ordered key-value store with atomic batches and snapshots.
type Store interface {
	Reader
	NewBatch() Batch
	NewSnapshot() Snapshot
	Close() error
}

// Syncer is implemented by a store that can make every write committed so
// far durable at once. A caller that commits several batches without sync
// and then calls Sync gets the durability of syncing each, for one fsync.
type Syncer interface {
	Sync() error
}
