package pebblestore

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/kv"
)

// A full disk must not reach Pebble: it treats a failed WAL or MANIFEST write
// as fatal (it panics, or wedges its commit pipeline so every later commit
// and Close hang). spaceFS therefore holds a write that fails with ENOSPC and
// retries it until it succeeds (space returned) or the store closes; while
// one is held the store refuses new commits at once and reads carry on.

// DefaultDiskFullRetry is Options.DiskFullRetry's default.
const DefaultDiskFullRetry = 500 * time.Millisecond

// DefaultWriteTimeout is Options.WriteTimeout's default.
const DefaultWriteTimeout = 5 * time.Second

// space is the store's view of its disk: how many writes are held for want
// of space, and whether an unrecoverable write error (a failed fsync)
// stopped writes until a restart.
type space struct {
	every time.Duration
	log   Logger

	held      atomic.Int32
	mu        sync.Mutex
	fullCh    atomic.Pointer[chan struct{}] // closed while writes are refused (signalled)
	signalled bool
	cause     error // the ENOSPC that made held > 0
	broken    atomic.Pointer[error]
	closing   chan struct{} // closed by Store.Close: held writes give up
	closed    bool
	gaveUp    atomic.Bool // a held write failed because Close gave it up
	wasFull   atomic.Bool // a write was ever held for space
	// deferSyncs is set while Open creates a fresh store: files' and
	// directories' syncs are skipped, Open syncs them all after (see
	// freshsync.go).
	deferSyncs atomic.Bool
}

func newSpace(every time.Duration, log Logger) *space {
	if every <= 0 {
		every = DefaultDiskFullRetry
	}
	s := &space{every: every, log: log, closing: make(chan struct{})}
	ch := make(chan struct{})
	s.fullCh.Store(&ch)
	return s
}

// refuse says why a write cannot be taken now, or nil.
func (s *space) refuse() error {
	if p := s.broken.Load(); p != nil {
		return fmt.Errorf("%w: a write to disk failed, writes are refused until a restart: %w", kv.ErrUnavailable, *p)
	}
	if s.held.Load() > 0 {
		s.mu.Lock()
		cause := s.cause
		s.mu.Unlock()
		if cause != nil {
			return fmt.Errorf("%w: disk full: %w", kv.ErrUnavailable, cause)
		}
	}
	return nil
}

// full returns a channel closed once writes are refused (the disk is
// found full, or a write failed for good), so a write already inside
// Pebble stops waiting for it.
func (s *space) full() <-chan struct{} { return *s.fullCh.Load() }

// failedWrites reports whether Pebble may have been handed a write error
// (a write failed for good, or Close gave up the held writes). Pebble then
// calls Fatalf, and a commit can return nil though its write failed.
func (s *space) failedWrites() bool {
	return s.broken.Load() != nil || s.gaveUp.Load()
}

// tolerateFatal reports whether Pebble's fatal errors are expected: the
// store already refuses writes, so a panic would only end the process.
func (s *space) tolerateFatal() bool {
	return s.failedWrites() || s.held.Load() > 0
}

func (s *space) hold(err error) {
	s.wasFull.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held.Add(1) == 1 {
		s.cause = err
		s.logf(true, "pebblestore: disk full, writes are refused until space returns: %v", err)
	}
	s.signalLocked()
}

func (s *space) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held.Add(-1) == 0 {
		s.cause = nil
		if !s.closed { // else Close gave the writes up
			s.logf(false, "pebblestore: disk space returned, writes resume")
		}
	}
	s.signalLocked()
}

// signalLocked makes fullCh closed exactly while writes are refused.
func (s *space) signalLocked() {
	refused := s.held.Load() > 0 || s.broken.Load() != nil
	switch {
	case refused && !s.signalled:
		close(*s.fullCh.Load())
	case !refused && s.signalled:
		ch := make(chan struct{})
		s.fullCh.Store(&ch)
	}
	s.signalled = refused
}

// fail records an unrecoverable write error: Pebble cannot go on after a
// failed fsync (the kernel may have dropped the data it did not write),
// nor after a failed MANIFEST write.
func (s *space) fail(err error) {
	if s.broken.CompareAndSwap(nil, &err) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.logf(true, "pebblestore: write failed, writes are refused until a restart: %v", err)
		s.signalLocked()
	}
}

// latched returns an error once Pebble may have been handed a write error:
// its state in memory may then disagree with the disk (it would have
// exited), so nothing more of it may reach the disk; a restart recovers
// from what is there. Until Close it first waits: Pebble retries a failed
// flush at once, and would spin.
func (s *space) latched() error {
	if !s.failedWrites() {
		return nil
	}
	<-s.closing
	if p := s.broken.Load(); p != nil {
		return fmt.Errorf("pebblestore: writes stopped after a failed write: %w", *p)
	}
	return errors.New("pebblestore: closed on a full disk: writes not yet on disk were given up")
}

// close makes held writes, and any later ENOSPC, fail at once, so Close does
// not wait for space that may never come.
func (s *space) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
}

func (s *space) logf(isErr bool, format string, args ...any) {
	if s.log == nil {
		return
	}
	if isErr {
		s.log.Errorf(format, args...)
	} else {
		s.log.Infof(format, args...)
	}
}

// retry runs op until it does not fail with ENOSPC, waiting s.every between
// attempts, or until the store closes (then the last error is returned).
func (s *space) retry(op func() error) error {
	if err := s.latched(); err != nil {
		return err
	}
	err := op()
	if err == nil || !vfs.IsNoSpaceError(err) {
		return err
	}
	s.hold(err)
	defer s.release()
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-s.closing:
			s.gaveUp.Store(true)
			return err
		case <-t.C:
		}
		if err = op(); err == nil || !vfs.IsNoSpaceError(err) {
			return err
		}
	}
}

// spaceFS is a vfs.FS whose space-taking operations go through space.retry.
// Removals pass straight through (they free space) unless latched.
type spaceFS struct {
	vfs.FS
	sp *space
}

func (fs spaceFS) Remove(name string) error {
	if err := fs.sp.latched(); err != nil {
		return err
	}
	return fs.FS.Remove(name)
}

func (fs spaceFS) RemoveAll(name string) error {
	if err := fs.sp.latched(); err != nil {
		return err
	}
	return fs.FS.RemoveAll(name)
}

func (fs spaceFS) Unwrap() vfs.FS { return fs.FS }

func (fs spaceFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &spaceFile{File: f, sp: fs.sp}, nil
}

func (fs spaceFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	var f vfs.File
	err := fs.sp.retry(func() (err error) { f, err = fs.FS.Create(name, category); return err })
	return fs.wrap(f, err)
}

func (fs spaceFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	var f vfs.File
	err := fs.sp.retry(func() (err error) { f, err = fs.FS.OpenReadWrite(name, category, opts...); return err })
	return fs.wrap(f, err)
}

func (fs spaceFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	var f vfs.File
	err := fs.sp.retry(func() (err error) { f, err = fs.FS.ReuseForWrite(oldname, newname, category); return err })
	return fs.wrap(f, err)
}

func (fs spaceFS) Link(oldname, newname string) error {
	return fs.sp.retry(func() error { return fs.FS.Link(oldname, newname) })
}

func (fs spaceFS) Rename(oldname, newname string) error {
	return fs.sp.retry(func() error { return fs.FS.Rename(oldname, newname) })
}

func (fs spaceFS) MkdirAll(dir string, perm os.FileMode) error {
	return fs.sp.retry(func() error { return fs.FS.MkdirAll(dir, perm) })
}

// spaceFile retries writes that fail for want of space, from the first byte
// not written. A failed sync is not retried: after one the kernel may have
// dropped the pages it could not write, so a later success would lie.
type spaceFile struct {
	vfs.File
	sp *space
}

func (f *spaceFile) Write(p []byte) (int, error) {
	n := 0
	err := f.sp.retry(func() error {
		m, err := f.File.Write(p[n:])
		n += m
		return err
	})
	f.check(err)
	return n, err
}

func (f *spaceFile) WriteAt(p []byte, off int64) (int, error) {
	n := 0
	err := f.sp.retry(func() error {
		m, err := f.File.WriteAt(p[n:], off+int64(n))
		n += m
		return err
	})
	f.check(err)
	return n, err
}

// Preallocate is not held for space: Pebble ignores its failure (the log's
// next chunk is only a hint), so a disk too full for a whole chunk must not
// refuse writes that still fit; the write itself is held if they do not.
func (f *spaceFile) Preallocate(offset, length int64) error {
	if err := f.sp.latched(); err != nil {
		return err
	}
	return f.File.Preallocate(offset, length)
}

func (f *spaceFile) Sync() error {
	if err := f.sp.latched(); err != nil {
		return err
	}
	if f.sp.deferSyncs.Load() {
		return nil
	}
	err := f.File.Sync()
	f.check(err)
	return err
}

func (f *spaceFile) SyncData() error {
	if err := f.sp.latched(); err != nil {
		return err
	}
	if f.sp.deferSyncs.Load() {
		return nil
	}
	err := f.File.SyncData()
	f.check(err)
	return err
}

func (f *spaceFile) SyncTo(length int64) (bool, error) {
	if err := f.sp.latched(); err != nil {
		return false, err
	}
	if f.sp.deferSyncs.Load() {
		return false, nil
	}
	full, err := f.File.SyncTo(length)
	f.check(err)
	return full, err
}

// check marks the store broken on a write or sync error Pebble will treat
// as fatal, unless Close caused it by giving up a held write.
func (f *spaceFile) check(err error) {
	if err == nil {
		return
	}
	select {
	case <-f.sp.closing:
		return
	default:
	}
	if errors.Is(err, os.ErrClosed) {
		return
	}
	f.sp.fail(err)
}
