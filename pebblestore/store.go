package pebblestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/kv"
)

// ErrBatchCommitted is returned by a write to, or a second Commit of, a batch
// that was already committed. Pebble itself panics on reuse.
var ErrBatchCommitted = errors.New("pebblestore: batch already committed")

// ErrInvalidRange is returned for a range whose start sorts after its end.
var ErrInvalidRange = errors.New("pebblestore: range start after end")

// Options configures Open.
type Options struct {
	// Dir is the data directory (created if missing). Required unless
	// InMemory is set and FS is nil.
	Dir string
	// InMemory keeps everything on vfs.NewMem(): nothing survives Close.
	InMemory bool
	// FS overrides the filesystem (tests use it to reopen a vfs.MemFS
	// store after a simulated crash). Nil means the OS filesystem, or a fresh
	// vfs.NewMem() with InMemory.
	FS vfs.FS
	// CacheSize is Pebble's block cache in bytes; 0 means
	// DefaultCacheSize.
	CacheSize int64
	// MemTableSize is the size of each of Pebble's memtables in bytes; 0
	// means DefaultMemTableSize. Writes fill a second one while the first
	// is flushed, so they take up to twice this in memory.
	MemTableSize uint64
	// Logger receives Pebble's informational and error messages, and the
	// store's own (disk full, space returned); nil discards them. Pebble's
	// fatal errors panic, except those a full disk or a failed write
	// causes: the store then refuses writes instead (see DiskFullRetry).
	Logger Logger
	// WALFlushInterval bounds how long a write committed without sync
	// stays in process memory: Pebble keeps a partly filled WAL block in
	// memory until the next synced commit, so a process crash (kill -9)
	// would lose every unsynced write since then. A background loop syncs
	// the WAL this often while unsynced writes are pending. Zero means
	// DefaultWALFlushInterval; negative disables the loop.
	WALFlushInterval time.Duration
	// CloseWait bounds how long Close waits for iterators and snapshots
	// still open (a request cut off by shutdown is closing them), and for
	// Pebble to close once a write failed or the disk was full; zero means
	// 5s.
	CloseWait time.Duration
	// WriteTimeout bounds how long Commit, Sync and Flush wait for Pebble
	// (a write stall, a slow disk); past it they return kv.ErrUnavailable,
	// and the write may still be applied later. Zero means
	// DefaultWriteTimeout. An InMemory store without FS has no disk to
	// wait for, and commits without this bound (or its cost).
	WriteTimeout time.Duration
	// DiskFullRetry is how often a disk write that failed with ENOSPC is
	// tried again. Until one succeeds, commits fail at once with
	// kv.ErrUnavailable (wrapping the ENOSPC) and reads carry on; the
	// first success resumes writes, without a restart. Zero means
	// DefaultDiskFullRetry.
	DiskFullRetry time.Duration
}

// The defaults of Options.CacheSize and Options.MemTableSize (Pebble's own
// memtable default): a server that idles in a developer's laptop most of
// the day should not hold more, and these keep a 1M-item table's reads
// and loads fast (docs/performance.md, "Memory").
const (
	DefaultCacheSize    = 64 << 20
	DefaultMemTableSize = 4 << 20
)

// DefaultWALFlushInterval is Options.WALFlushInterval's default: a write
// acknowledged without sync reaches the operating system (and the disk)
// within about this long.
const DefaultWALFlushInterval = 100 * time.Millisecond

// Logger is the subset of pebble.Logger a caller can supply (for example an
// adapter over the process's structured logger).
type Logger interface {
	Infof(format string, args ...any)
	Errorf(format string, args ...any)
}

// Store is a kv.Store over Pebble. It is safe for concurrent use. Every
// operation after Close returns kv.ErrClosed instead of Pebble's panic.
type Store struct {
	db *pebble.DB
	// mu guards closed: operations hold it shared so Close (exclusive) never
	// runs under a live call into Pebble, which would panic.
	mu     sync.RWMutex
	closed bool

	// unsynced is set by a commit without sync and cleared by the flush
	// loop before it syncs the WAL.
	unsynced atomic.Bool
	stopLoop chan struct{}
	loopDone chan struct{}

	// readers counts open iterators and snapshots; Close waits for them,
	// since closing Pebble under one panics.
	readers   sync.WaitGroup
	closeWait time.Duration
	dbClosed  atomic.Bool

	space        *space
	writeTimeout time.Duration
	// inline is set for a store on a memory filesystem of its own, which
	// cannot fill up or stall: its writes skip bounded's goroutine. Such
	// a store has no write-ahead log either (Pebble's DisableWAL): nothing
	// of it survives Close, so the log could never be replayed, and
	// writing it was a copy of every write into a growing in-memory file
	// (a tenth of the server's CPU under the test-suite workload, and up
	// to a memtable's size of memory; issue 36). Syncs are then no-ops.
	inline  bool
	waiters sync.Pool // of *waiter, saving bounded two allocations
	// idle hands a write to a writer goroutine waiting for one;
	// stopWriters ends them at Close.
	idle        chan job
	stopWriters chan struct{}
	// freshSynced, when not nil, is closed once a store created by Open
	// on an empty directory has its files synced (syncFresh); writes wait
	// for it. freshErr is that sync's failure, read after the close.
	freshSynced chan struct{}
	freshDone   atomic.Bool // set with the close, after freshErr
	freshErr    error
}

// job is a write handed to a writer goroutine, and where its error goes.
type job struct {
	wr   write
	done chan<- error
}

// writerIdle is how long a writer goroutine waits for another write
// before it ends: a burst of concurrent writes leaves no crowd behind.
const writerIdle = 10 * time.Second

// waiter is what bounded waits on; reused once its write has answered.
type waiter struct {
	done chan error
	t    *time.Timer
}

var _ kv.Store = (*Store)(nil)

// Open opens (creating if needed) the store described by opts.
func Open(opts Options) (*Store, error) {
	fs := opts.FS
	dir := opts.Dir
	switch {
	case fs == nil && opts.InMemory:
		fs, dir = vfs.NewMem(), ""
	case fs == nil:
		fs = vfs.Default
		fallthrough
	default:
		if dir == "" {
			return nil, errors.New("pebblestore: a data directory is required unless in memory")
		}
	}
	cacheSize := opts.CacheSize
	if cacheSize <= 0 {
		cacheSize = DefaultCacheSize
	}
	memTableSize := opts.MemTableSize
	if memTableSize == 0 {
		memTableSize = DefaultMemTableSize
	}
	cache := pebble.NewCache(cacheSize)
	// The DB takes its own reference; ours is released once Open returns.
	defer cache.Unref()
	sp := newSpace(opts.DiskFullRetry, opts.Logger)
	// A new store on the real disk: its files are synced once Open
	// returns, not one by one (freshsync.go).
	fresh := opts.FS == nil && !opts.InMemory && freshDir(dir)
	sp.deferSyncs.Store(fresh)
	inline := opts.InMemory && opts.FS == nil
	po := &pebble.Options{FS: spaceFS{FS: fs, sp: sp}, Cache: cache, Logger: fatalLogger{opts.Logger, sp}, MemTableSize: memTableSize,
		DisableWAL: inline}
	// Every PutItem, UpdateItem and DeleteItem reads the item it replaces,
	// and GetItem reads one key: Bloom filters let such a read skip the
	// files that do not hold the key instead of searching each.
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, po)
	sp.deferSyncs.Store(false)
	if err != nil {
		return nil, fmt.Errorf("pebblestore: open %q: %w", dir, err)
	}
	s := &Store{db: db, closeWait: opts.CloseWait, space: sp, writeTimeout: opts.WriteTimeout,
		inline: inline, idle: make(chan job), stopWriters: make(chan struct{})}
	if s.closeWait <= 0 {
		s.closeWait = 5 * time.Second
	}
	if s.writeTimeout <= 0 {
		s.writeTimeout = DefaultWriteTimeout
	}
	if fresh {
		s.freshSynced = make(chan struct{})
		go s.syncFresh(dir)
	}
	s.waiters.New = func() any {
		t := time.NewTimer(time.Hour)
		t.Stop()
		return &waiter{done: make(chan error, 1), t: t}
	}
	every := opts.WALFlushInterval
	if every == 0 {
		every = DefaultWALFlushInterval
	}
	if every > 0 && !opts.InMemory {
		s.stopLoop, s.loopDone = make(chan struct{}), make(chan struct{})
		go s.flushLoop(every)
	}
	return s, nil
}

// flushLoop syncs the WAL every interval while unsynced commits are
// pending. A sync writes out the partly filled block Pebble holds in
// memory; one fsync per interval costs little next to one per commit.
func (s *Store) flushLoop(every time.Duration) {
	defer close(s.loopDone)
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		select {
		case <-s.stopLoop:
			return
		case <-tk.C:
			// While the disk is full the sync would only wait; the
			// writes stay pending until space returns.
			if s.space.refuse() == nil && s.unsynced.Swap(false) {
				// A failure (full disk) is seen by the next commit too;
				// try again next tick.
				if err := s.Sync(); err != nil && !errors.Is(err, kv.ErrClosed) {
					s.unsynced.Store(true)
				}
			}
		}
	}
}

// Sync makes every write committed so far durable: it forces the WAL,
// including writes committed without sync, to stable storage. Concurrent
// callers share fsyncs (Pebble groups the sync requests queued while one
// is running).
func (s *Store) Sync() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return kv.ErrClosed
	}
	if s.inline {
		return nil // no log: nothing to make durable
	}
	_, err := s.bounded(writeFunc(func() error { return s.db.LogData(nil, pebble.Sync) }))
	return err
}

// write is a write into Pebble that bounded runs.
type write interface {
	run() error
	// abandoned runs once run ends, if bounded stopped waiting for it: it
	// owns what run uses (the batch) from then on.
	abandoned()
}

type writeFunc func() error

func (f writeFunc) run() error { return f() }
func (writeFunc) abandoned()   {}

// bounded runs a write into Pebble, which may block indefinitely (a full
// disk holds its writes, a write stall holds commits), and returns its
// error, or kv.ErrUnavailable as soon as the disk is full or after
// writeTimeout. The write then carries on alone (abandoned). The caller
// holds s.mu shared.
func (s *Store) bounded(wr write) (abandoned bool, err error) {
	if err := s.space.refuse(); err != nil {
		return false, err
	}
	if s.freshSynced != nil {
		// An atomic flag once done: a receive from the closed channel
		// takes its lock, which every concurrent writer would share.
		if !s.freshDone.Load() {
			<-s.freshSynced
		}
		if s.freshErr != nil {
			return false, s.freshErr
		}
	}
	if s.inline {
		return false, wr.run()
	}
	full := s.space.full()
	w := s.waiters.Get().(*waiter)
	done := w.done
	select {
	case s.idle <- job{wr, done}:
	default:
		go s.writer(job{wr, done})
	}
	w.t.Reset(s.writeTimeout)
	select {
	case err := <-done:
		w.t.Stop()
		s.waiters.Put(w)
		// Pebble returns nil from a commit whose log write failed once its
		// Fatalf returns, so a failed write anywhere makes this one suspect.
		if err != nil || s.space.failedWrites() {
			if rerr := s.space.refuse(); rerr != nil {
				return false, rerr
			}
			if err == nil {
				err = fmt.Errorf("%w: the store is closing and a write to disk failed", kv.ErrUnavailable)
			}
		}
		return false, err
	case <-full:
		err = s.space.refuse()
		if err == nil { // space returned meanwhile; the write goes on
			err = fmt.Errorf("%w: disk full", kv.ErrUnavailable)
		}
	case <-w.t.C:
		err = fmt.Errorf("%w: write not done within %v", kv.ErrUnavailable, s.writeTimeout)
	}
	w.t.Stop() // w is not reused: done is still to be sent on
	go func() { <-done; wr.abandoned() }()
	return true, err
}

// writer runs bounded's writes: the one it was started for, then those
// handed to it while it waits. Pebble's commit path is deep, and a new
// goroutine per write grew its stack on every commit (copying it: 6% of a
// PutItem's CPU under load); a waiting writer keeps the stack it grew.
func (s *Store) writer(j job) {
	idle := time.NewTimer(writerIdle)
	defer idle.Stop()
	for {
		s.run(j.wr, j.done)
		idle.Reset(writerIdle)
		select {
		case j = <-s.idle:
		case <-idle.C:
			return
		case <-s.stopWriters:
			return
		}
	}
}

// run runs one write for bounded.
func (s *Store) run(wr write, done chan<- error) {
	defer func() {
		// A panic here would end the process; Pebble panics on a write
		// error it cannot recover from, which leaves the store refusing
		// writes (space.fail) but reads working.
		if p := recover(); p != nil {
			err := fmt.Errorf("pebblestore: write panicked: %v", p)
			s.space.fail(err)
			done <- err
		}
	}()
	done <- wr.run()
}

// Get implements kv.Reader.
func (s *Store) Get(key []byte) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, kv.ErrClosed
	}
	return get(s.db, key)
}

// AppendValue implements kv.ValueAppender.
func (s *Store) AppendValue(dst, key []byte) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return dst, kv.ErrClosed
	}
	return appendValue(s.db, dst, key)
}

// NewIter implements kv.Reader.
func (s *Store) NewIter(lower, upper []byte) (kv.Iterator, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, kv.ErrClosed
	}
	return newIter(s, s.db, lower, upper)
}

// NewBatch implements kv.Store. A batch made after Close fails on Commit.
func (s *Store) NewBatch() kv.Batch { return &batch{s: s, b: s.db.NewBatch()} }

// Update implements kv.Transactor. Only one process can open a Pebble
// store, so fn runs once, reading the store itself: the caller's own locks
// (the engine's item stripes) are what make a read-check-write atomic.
func (s *Store) Update(sync bool, fn func(kv.Txn) error) error {
	b := &batch{s: s, b: s.db.NewBatch()}
	defer b.Close()
	// The view lives in the batch: an Update costs no allocation of its own.
	b.tx = txn{s: s, b: b}
	if err := fn(&b.tx); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	return b.Commit(sync)
}

// txn is an Update's view: reads go to the store, writes to the batch.
type txn struct {
	s *Store
	b *batch
}

func (t *txn) Get(key []byte) ([]byte, error)                   { return t.s.Get(key) }
func (t *txn) AppendValue(dst, key []byte) ([]byte, error)      { return t.s.AppendValue(dst, key) }
func (t *txn) NewIter(lower, upper []byte) (kv.Iterator, error) { return t.s.NewIter(lower, upper) }
func (t *txn) Batch() kv.Batch                                  { return t.b }

// NewSnapshot implements kv.Store. A snapshot made after Close returns
// kv.ErrClosed from every read.
func (s *Store) NewSnapshot() kv.Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return &snapshot{st: s, closed: true}
	}
	s.readers.Add(1)
	return &snapshot{st: s, s: s.db.NewSnapshot()}
}

// Close closes the database. The write-ahead log is synced, so every
// committed write survives a reopen. New operations fail with kv.ErrClosed
// at once; iterators and snapshots still open are waited for up to
// Options.CloseWait (a request cut off by shutdown is finishing), and if
// some are still open then (leaks), the log is synced, the database is left
// open for the process to exit, and an error says so: Pebble would panic.
// A second Close returns kv.ErrClosed.
func (s *Store) Close() error {
	if s.freshSynced != nil {
		<-s.freshSynced // the new store's files are synced before it closes
	}
	// Writes held for want of space give up first: the flush loop and
	// commits may be waiting on them, holding s.mu shared.
	s.space.close()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return kv.ErrClosed
	}
	s.closed = true
	s.mu.Unlock()        // commits in flight finish; new ones see closed
	close(s.stopWriters) // none is handed a write after closed is set
	if s.stopLoop != nil {
		close(s.stopLoop)
		<-s.loopDone
	}
	drained := make(chan struct{})
	go func() { s.readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(s.closeWait):
		if s.inline {
			return errors.New("pebblestore: close: iterators or snapshots still open (leaked); the store was not closed")
		}
		if err := s.db.LogData(nil, pebble.Sync); err != nil {
			return fmt.Errorf("pebblestore: close: iterators or snapshots still open, and syncing the log failed: %w", err)
		}
		return errors.New("pebblestore: close: iterators or snapshots still open (leaked); the log is synced but the store was not closed")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dbClosed.Store(true)
	if s.space.broken.Load() == nil && !s.space.wasFull.Load() {
		return s.db.Close()
	}
	// After a write failed for good, or Close gave up writes held for
	// space, a commit may have panicked inside Pebble's commit pipeline,
	// leaving it locked, and Pebble's Close would hang: bound it, since the
	// process is exiting anyway.
	closed := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				closed <- fmt.Errorf("pebblestore: close panicked: %v", p)
			}
		}()
		closed <- s.db.Close()
	}()
	select {
	case err := <-closed:
		if errors.Is(err, syscall.ENOSPC) {
			// Pebble's own last writes (the log's tail) found no space.
			return fmt.Errorf("pebblestore: closed on a full disk: writes not yet on disk were given up: %w", err)
		}
		return err
	case <-time.After(s.closeWait):
		cause := errors.New("the disk was full")
		if p := s.space.broken.Load(); p != nil {
			cause = *p
		}
		return fmt.Errorf("pebblestore: close: not done within %v after a failed write: %w", s.closeWait, cause)
	}
}

// Flush writes the memtable to sstables, so a reopen need not replay the log.
func (s *Store) Flush() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return kv.ErrClosed
	}
	_, err := s.bounded(writeFunc(s.db.Flush))
	return err
}

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
	// v is only valid until closer.Close; an empty value stays non-nil so
	// callers can tell it from a missing one.
	out := make([]byte, len(v))
	copy(out, v)
	return out, closer.Close()
}

// appendValue is get appending to dst instead of allocating.
func appendValue(r reader, dst, key []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, kv.ErrNotFound
	}
	if err != nil {
		return dst, err
	}
	dst = append(dst, v...)
	return dst, closer.Close()
}

func newIter(st *Store, r reader, lower, upper []byte) (kv.Iterator, error) {
	if lower != nil && upper != nil && bytes.Compare(lower, upper) > 0 {
		return nil, fmt.Errorf("%w: iterator bounds [%q, %q)", ErrInvalidRange, lower, upper)
	}
	// Pebble copies the bounds, so the caller may reuse its slices.
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	st.readers.Add(1)
	return &iter{it: it, st: st}, nil
}

type snapshot struct {
	st     *Store
	s      *pebble.Snapshot
	closed bool
}

func (s *snapshot) Get(key []byte) ([]byte, error) {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	if s.closed || s.st.closed {
		return nil, kv.ErrClosed
	}
	return get(s.s, key)
}

// AppendValue implements kv.ValueAppender.
func (s *snapshot) AppendValue(dst, key []byte) ([]byte, error) {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	if s.closed || s.st.closed {
		return dst, kv.ErrClosed
	}
	return appendValue(s.s, dst, key)
}

func (s *snapshot) NewIter(lower, upper []byte) (kv.Iterator, error) {
	s.st.mu.RLock()
	defer s.st.mu.RUnlock()
	if s.closed || s.st.closed {
		return nil, kv.ErrClosed
	}
	return newIter(s.st, s.s, lower, upper)
}

// Close releases the snapshot; a second Close is a no-op.
func (s *snapshot) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.st.dbClosed.Load() {
		// The DB is gone (and reported the leak); nothing to release.
		return nil
	}
	defer s.st.readers.Done()
	return s.s.Close()
}

// batch guards Pebble's batch against reuse: Pebble panics on a write after
// Commit and dereferences nil after Close.
type batch struct {
	s         *Store
	b         *pebble.Batch
	opts      *pebble.WriteOptions // of Commit, for run
	committed bool
	closed    bool
	tx        txn // the view of an Update running on this batch
}

// run and abandoned make the batch's commit a write for Store.bounded.
func (b *batch) run() error { return b.b.Commit(b.opts) }
func (b *batch) abandoned() { _ = b.b.Close() }

func (b *batch) check() error {
	switch {
	case b.closed:
		return kv.ErrClosed
	case b.committed:
		return ErrBatchCommitted
	}
	return nil
}

func (b *batch) Set(key, value []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	return b.b.Set(key, value, nil)
}

func (b *batch) Delete(key []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	return b.b.Delete(key, nil)
}

func (b *batch) DeleteRange(start, end []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	switch c := bytes.Compare(start, end); {
	case c > 0:
		return fmt.Errorf("%w: DeleteRange [%q, %q)", ErrInvalidRange, start, end)
	case c == 0:
		return nil // empty range: nothing to delete
	}
	return b.b.DeleteRange(start, end, nil)
}

func (b *batch) Empty() bool { return b.closed || b.b.Empty() }

func (b *batch) Commit(sync bool) error {
	if err := b.check(); err != nil {
		return err
	}
	b.s.mu.RLock()
	defer b.s.mu.RUnlock()
	if b.s.closed {
		return kv.ErrClosed
	}
	if err := b.s.space.refuse(); err != nil {
		return err
	}
	b.committed = true
	b.opts = pebble.NoSync
	if sync && !b.s.inline { // Pebble refuses a synced commit without a log
		b.opts = pebble.Sync
	}
	abandoned, err := b.s.bounded(b)
	if !sync {
		// Flagged after the commit, so the loop's next sync covers it.
		b.s.unsynced.Store(true)
	}
	if abandoned {
		// The commit is still running and closes the Pebble batch itself.
		b.closed = true
	}
	return err
}

func (b *batch) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	return b.b.Close()
}

type iter struct {
	it     *pebble.Iterator
	st     *Store
	err    error
	closed bool
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
func (i *iter) Close() error {
	if i.closed {
		return nil
	}
	i.closed = true
	if i.st.dbClosed.Load() {
		return nil
	}
	defer i.st.readers.Done()
	return i.it.Close()
}

// fatalLogger adapts a Logger (nil: discard) to pebble.Logger. Pebble's
// default Fatalf exits the process; a panic at least unwinds deferred
// clean-up. A fatal error that a full disk or a failed write explains is
// only logged: the store refuses writes already, and Pebble returns the
// error after Fatalf.
type fatalLogger struct {
	l  Logger
	sp *space
}

func (l fatalLogger) Infof(format string, args ...any) {
	if l.l != nil {
		l.l.Infof(format, args...)
	}
}

func (l fatalLogger) Errorf(format string, args ...any) {
	if l.l != nil {
		l.l.Errorf(format, args...)
	}
}

func (l fatalLogger) Fatalf(format string, args ...any) {
	l.Errorf(format, args...)
	if l.sp.tolerateFatal() {
		return
	}
	panic(fmt.Sprintf(format, args...))
}
