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

// ValueAppender is implemented by a reader that can append a value to a
// caller's buffer instead of allocating a copy: a caller that reads one
// value per request and keeps nothing of it reuses one buffer.
type ValueAppender interface {
	// AppendValue appends the value stored under key to dst and returns
	// the extended buffer, or dst and ErrNotFound.
	AppendValue(dst, key []byte) ([]byte, error)
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
	Transactor
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

// ErrConflict is returned (wrapped) by Update when the store kept refusing
// the transaction because other writers' commits conflicted with it, after
// the store's own retries. The transaction wrote nothing; retrying is the
// remedy.
var ErrConflict = errors.New("kv: transaction conflict")

// Txn is what an Update's function runs against. Reads see the store as the
// transaction does; they do not see the transaction's own writes, which
// stay buffered in the Batch (the caller must not Commit or Close it) and
// are applied atomically when the function returns nil.
type Txn interface {
	Reader
	// Batch collects the transaction's writes.
	Batch() Batch
}

// Transactor runs read-check-write transactions. A store shared by several
// processes makes each one atomic against every other writer of the store
// (serializable isolation, or locks): a transaction whose reads another
// commit has made stale is refused and run again, so fn may run more than
// once and must have no effect outside its Txn until Update returns. A
// store only one process can open (pebblestore) runs fn once, reading the
// store directly: its caller's in-process locks make it atomic.
type Transactor interface {
	// Update runs fn and commits what it wrote (with sync, durably). An
	// error from fn is returned as it is and nothing is written.
	Update(sync bool, fn func(Txn) error) error
}

// Shared is implemented by a store that several processes may open at
// once. Such a store can change under a process at any moment, so the
// engine caches nothing it does not re-validate against it.
type Shared interface {
	// SharedStore is a marker; it reports true.
	SharedStore() bool
}

// IsShared reports whether s is shared by several processes.
func IsShared(s Store) bool {
	sh, ok := s.(Shared)
	return ok && sh.SharedStore()
}
