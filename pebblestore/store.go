package pebblestore

import (
	"errors"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/kv"
)

// Options configures Open.
type Options struct {
	// Dir is the data directory (created if missing). Ignored with InMemory.
	Dir string
	// InMemory keeps everything on vfs.NewMem(): nothing survives Close.
	InMemory bool
	// FS overrides the filesystem (tests use it to reopen a vfs.NewMem
	// store after a simulated crash). Nil means disk, or memory with InMemory.
	FS vfs.FS
	// CacheSize is Pebble's block cache in bytes; 0 means 64 MiB.
	CacheSize int64
}

// Store is a kv.Store over Pebble.
type Store struct {
	db *pebble.DB
}

var _ kv.Store = (*Store)(nil)

// Open opens (creating if needed) the store described by opts.
func Open(opts Options) (*Store, error) {
	fs := opts.FS
	dir := opts.Dir
	if fs == nil {
		if opts.InMemory {
			fs = vfs.NewMem()
		} else {
			fs = vfs.Default
		}
	}
	if opts.InMemory && opts.FS == nil {
		dir = ""
	} else if dir == "" {
		return nil, errors.New("pebblestore: a data directory is required unless in memory")
	}
	cacheSize := opts.CacheSize
	if cacheSize <= 0 {
		cacheSize = 64 << 20
	}
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref()
	po := &pebble.Options{FS: fs, Cache: cache, Logger: quietLogger{}}
	db, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("pebblestore: open %q: %w", dir, err)
	}
	return &Store{db: db}, nil
}

// Get implements kv.Reader.
func (s *Store) Get(key []byte) ([]byte, error) { return get(s.db, key) }

// NewIter implements kv.Reader.
func (s *Store) NewIter(lower, upper []byte) (kv.Iterator, error) {
	return newIter(s.db, lower, upper)
}

// NewBatch implements kv.Store.
func (s *Store) NewBatch() kv.Batch { return &batch{b: s.db.NewBatch()} }

// NewSnapshot implements kv.Store.
func (s *Store) NewSnapshot() kv.Snapshot { return &snapshot{s: s.db.NewSnapshot()} }

// Close flushes and closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Flush writes the memtable to disk (used by tests and clean shutdown).
func (s *Store) Flush() error { return s.db.Flush() }

type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func get(r reader, key []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, kv.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...)
	return out, closer.Close()
}

func newIter(r reader, lower, upper []byte) (kv.Iterator, error) {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	return &iter{it: it}, nil
}

type snapshot struct{ s *pebble.Snapshot }

func (s *snapshot) Get(key []byte) ([]byte, error) { return get(s.s, key) }
func (s *snapshot) NewIter(lower, upper []byte) (kv.Iterator, error) {
	return newIter(s.s, lower, upper)
}
func (s *snapshot) Close() error { return s.s.Close() }

type batch struct {
	b      *pebble.Batch
	closed bool
}

func (b *batch) Set(key, value []byte) error   { return b.b.Set(key, value, nil) }
func (b *batch) Delete(key []byte) error       { return b.b.Delete(key, nil) }
func (b *batch) DeleteRange(s, e []byte) error { return b.b.DeleteRange(s, e, nil) }
func (b *batch) Empty() bool                   { return b.b.Empty() }
func (b *batch) Commit(sync bool) error {
	if sync {
		return b.b.Commit(pebble.Sync)
	}
	return b.b.Commit(pebble.NoSync)
}
func (b *batch) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	return b.b.Close()
}

type iter struct {
	it  *pebble.Iterator
	err error
}

func (i *iter) First() bool            { return i.it.First() }
func (i *iter) Last() bool             { return i.it.Last() }
func (i *iter) Next() bool             { return i.it.Next() }
func (i *iter) Prev() bool             { return i.it.Prev() }
func (i *iter) SeekGE(key []byte) bool { return i.it.SeekGE(key) }
func (i *iter) SeekLT(key []byte) bool { return i.it.SeekLT(key) }
func (i *iter) Valid() bool            { return i.it.Valid() }
func (i *iter) Key() []byte            { return i.it.Key() }
func (i *iter) Value() []byte {
	v, err := i.it.ValueAndErr()
	if err != nil && i.err == nil {
		i.err = err
	}
	return v
}
func (i *iter) Error() error {
	if i.err != nil {
		return i.err
	}
	return i.it.Error()
}
func (i *iter) Close() error { return i.it.Close() }

type quietLogger struct{}

func (quietLogger) Infof(string, ...interface{})  {}
func (quietLogger) Errorf(string, ...interface{}) {}
func (quietLogger) Fatalf(format string, args ...interface{}) {
	panic(fmt.Sprintf(format, args...))
}
