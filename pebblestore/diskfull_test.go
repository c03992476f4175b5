package pebblestore_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
)

// fullDisk injects ENOSPC into every operation that takes space while on,
// as a full filesystem does (removals and syncs still succeed).
type fullDisk struct{ on atomic.Bool }

func (d *fullDisk) String() string { return "full disk" }

func (d *fullDisk) MaybeError(op errorfs.Op) error {
	if !d.on.Load() {
		return nil
	}
	switch op.Kind {
	case errorfs.OpCreate, errorfs.OpLink, errorfs.OpReuseForWrite, errorfs.OpMkdirAll,
		errorfs.OpFilePreallocate, errorfs.OpFileWrite, errorfs.OpFileWriteAt:
		return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
	}
	return nil
}

// failingSync injects EIO into every fsync while on.
type failingSync struct{ on atomic.Bool }

func (d *failingSync) String() string { return "failing fsync" }

func (d *failingSync) MaybeError(op errorfs.Op) error {
	if !d.on.Load() {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return &os.PathError{Op: "fsync", Path: op.Path, Err: syscall.EIO}
	}
	return nil
}

// within runs f and fails the test if it has not returned after limit: the
// failure this file guards against is a hang.
func within[T any](t *testing.T, limit time.Duration, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(limit):
		t.Fatalf("%s: still blocked after %v", what, limit)
		panic("unreachable")
	}
}

func put(s kv.Store, key string, sync bool) error {
	b := s.NewBatch()
	defer b.Close()
	if err := b.Set([]byte(key), make([]byte, 1000)); err != nil {
		return err
	}
	return b.Commit(sync)
}

func openFaulty(t *testing.T, dir string, inj errorfs.Injector) *pebblestore.Store {
	t.Helper()
	s, err := pebblestore.Open(pebblestore.Options{
		Dir: dir, FS: errorfs.Wrap(vfs.Default, inj),
		// Long, so a test that passes did not rely on the timeout.
		WriteTimeout:  time.Minute,
		DiskFullRetry: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDiskFullRefusesWritesThenRecovers: with the disk full, a commit fails
// promptly with kv.ErrUnavailable wrapping ENOSPC (Pebble would panic, then
// hang every later commit); reads still work; once space returns, commits
// succeed again without reopening, and everything acknowledged survives a
// reopen.
func TestDiskFullRefusesWritesThenRecovers(t *testing.T) {
	for _, sync := range []bool{true, false} {
		t.Run(fmt.Sprintf("sync=%v", sync), func(t *testing.T) {
			dir := t.TempDir()
			disk := &fullDisk{}
			s := openFaulty(t, dir, disk)
			for i := range 10 {
				if err := put(s, fmt.Sprint("before", i), true); err != nil {
					t.Fatal(err)
				}
			}
			disk.on.Store(true)
			// Unsynced commits are taken until Pebble writes its log (a
			// block filled, or the flush loop's sync) and finds the disk
			// full; from then on every commit is refused.
			refused, taken := 0, 0
			for i := 0; refused < 20; i++ {
				start := time.Now()
				err := within(t, 20*time.Second, "commit on a full disk", func() error { return put(s, fmt.Sprint("during", i), sync) })
				if err == nil {
					if refused > 0 || sync || i > 2000 {
						t.Fatalf("commit %d (sync=%v) succeeded on a full disk after %d refusals", i, sync, refused)
					}
					taken++
					time.Sleep(time.Millisecond)
					continue
				}
				if !errors.Is(err, kv.ErrUnavailable) || !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("commit on a full disk: %v; want kv.ErrUnavailable wrapping ENOSPC", err)
				}
				if refused == 0 {
					t.Logf("first refused commit (sync=%v, %d taken before) failed after %v: %v", sync, taken, time.Since(start), err)
				}
				refused++
			}
			v, err := s.Get([]byte("before3"))
			if err != nil || len(v) != 1000 {
				t.Fatalf("Get on a full disk = %d bytes, %v; want the value", len(v), err)
			}
			it, err := s.NewIter(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for ok := it.First(); ok; ok = it.Next() {
				n++
			}
			if err := it.Close(); err != nil || n < 10 {
				t.Fatalf("scan on a full disk saw %d keys, close %v", n, err)
			}

			disk.on.Store(false)
			deadline := time.Now().Add(20 * time.Second)
			for {
				err := within(t, 20*time.Second, "commit after space returned", func() error { return put(s, "after", true) })
				if err == nil {
					break
				}
				if !errors.Is(err, kv.ErrUnavailable) || time.Now().After(deadline) {
					t.Fatalf("commit after space returned: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := within(t, 20*time.Second, "close", s.Close); err != nil {
				t.Fatalf("Close: %v", err)
			}
			s = openFaulty(t, dir, disk)
			defer s.Close()
			for _, k := range []string{"before0", "before9", "after"} {
				if _, err := s.Get([]byte(k)); err != nil {
					t.Errorf("%s after reopen: %v", k, err)
				}
			}
		})
	}
}

// TestDiskFullCloseDoesNotHang: Close on a full disk gives up the writes
// held for space instead of waiting for it, and neither panics nor hangs;
// what was synced before survives.
func TestDiskFullCloseDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	disk := &fullDisk{}
	s := openFaulty(t, dir, disk)
	if err := put(s, "synced", true); err != nil {
		t.Fatal(err)
	}
	disk.on.Store(true)
	for i := range 5 {
		_ = within(t, 20*time.Second, "commit on a full disk", func() error { return put(s, fmt.Sprint("during", i), i%2 == 0) })
	}
	err := within(t, 20*time.Second, "Close on a full disk", s.Close)
	t.Logf("Close on a full disk: %v", err)
	// serve exits 1 on this error and says why; the e2e test checks it.
	if err != nil && !strings.Contains(err.Error(), "closed on a full disk") {
		t.Errorf("Close on a full disk: %v; want nil or an error saying the disk was full", err)
	}
	disk.on.Store(false)
	s = openFaulty(t, dir, disk)
	defer s.Close()
	if _, err := s.Get([]byte("synced")); err != nil {
		t.Fatalf("synced key after Close on a full disk and reopen: %v", err)
	}
	if err := put(s, "next", true); err != nil {
		t.Fatalf("commit after reopen: %v", err)
	}
}

// TestFailedSyncRefusesWritesUntilRestart: a failed fsync is not retried
// (the kernel may have dropped the pages it could not write), and Pebble
// cannot go on; the store answers kv.ErrUnavailable to every write instead
// of panicking, reads still work, Close returns, and a reopen recovers.
func TestFailedSyncRefusesWritesUntilRestart(t *testing.T) {
	dir := t.TempDir()
	inj := &failingSync{}
	s := openFaulty(t, dir, inj)
	if err := put(s, "synced", true); err != nil {
		t.Fatal(err)
	}
	inj.on.Store(true)
	err := within(t, 20*time.Second, "commit with a failing fsync", func() error { return put(s, "x", true) })
	if err == nil {
		t.Fatal("commit with a failing fsync succeeded")
	}
	inj.on.Store(false)
	for i := range 20 {
		err := within(t, 20*time.Second, "commit after a failed fsync", func() error { return put(s, fmt.Sprint("later", i), i%2 == 0) })
		if !errors.Is(err, kv.ErrUnavailable) || !errors.Is(err, syscall.EIO) {
			t.Fatalf("commit %d after a failed fsync: %v; want kv.ErrUnavailable wrapping EIO", i, err)
		}
	}
	if _, err := s.Get([]byte("synced")); err != nil {
		t.Fatalf("Get after a failed fsync: %v", err)
	}
	t.Logf("Close after a failed fsync: %v", within(t, 30*time.Second, "Close after a failed fsync", s.Close))
	s = openFaulty(t, dir, inj)
	defer s.Close()
	if _, err := s.Get([]byte("synced")); err != nil {
		t.Fatalf("synced key after reopen: %v", err)
	}
	if err := put(s, "next", true); err != nil {
		t.Fatalf("commit after reopen: %v", err)
	}
}

// failingManifestSync injects EIO into fsyncs of the MANIFEST while on: a
// background flush then fails where Pebble calls Fatalf.
type failingManifestSync struct{ on atomic.Bool }

func (d *failingManifestSync) String() string { return "failing MANIFEST fsync" }

func (d *failingManifestSync) MaybeError(op errorfs.Op) error {
	if !d.on.Load() || !strings.Contains(op.Path, "MANIFEST") {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return &os.PathError{Op: "fsync", Path: op.Path, Err: syscall.EIO}
	}
	return nil
}

// TestFailedManifestSyncDoesNotEndProcess: Pebble calls Fatalf when a
// flush cannot record its result in the MANIFEST, from a background
// goroutine; that used to panic and end the process. Now the flush fails,
// writes are refused until a restart, reads work, and a reopen recovers.
// Pebble's retries of the flush wait for Close instead of spinning.
func TestFailedManifestSyncDoesNotEndProcess(t *testing.T) {
	dir := t.TempDir()
	inj := &failingManifestSync{}
	logged := &countingLogger{}
	s, err := pebblestore.Open(pebblestore.Options{Dir: dir, FS: errorfs.Wrap(vfs.Default, inj), Logger: logged})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := put(s, fmt.Sprint("k", i), i == 99); err != nil {
			t.Fatal(err)
		}
	}
	inj.on.Store(true)
	err = within(t, 20*time.Second, "Flush with a failing MANIFEST fsync", s.Flush)
	if !errors.Is(err, kv.ErrUnavailable) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("Flush with a failing MANIFEST fsync: %v; want kv.ErrUnavailable wrapping EIO", err)
	}
	inj.on.Store(false)
	// Unchecked, Pebble retried the flush at once, thousands of times in
	// this pause (and, with the fsync working again, wrote a MANIFEST from
	// a state it had given up).
	time.Sleep(300 * time.Millisecond)
	if n := logged.errors.Load(); n > 20 {
		t.Fatalf("%d errors logged after one failed flush; want the retries to wait", n)
	}
	if err := within(t, 20*time.Second, "commit after", func() error { return put(s, "later", true) }); !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("commit after a failed MANIFEST write: %v; want kv.ErrUnavailable", err)
	}
	if _, err := s.Get([]byte("k50")); err != nil {
		t.Fatalf("Get after a failed MANIFEST write: %v", err)
	}
	t.Logf("Close: %v", within(t, 30*time.Second, "Close", s.Close))
	s = openFaulty(t, dir, inj)
	defer s.Close()
	for _, k := range []string{"k0", "k99"} {
		if _, err := s.Get([]byte(k)); err != nil {
			t.Fatalf("%s after reopen: %v", k, err)
		}
	}
	if err := put(s, "next", true); err != nil {
		t.Fatalf("commit after reopen: %v", err)
	}
}

type countingLogger struct{ errors atomic.Int64 }

func (*countingLogger) Infof(string, ...any)    {}
func (l *countingLogger) Errorf(string, ...any) { l.errors.Add(1) }

// stalledDisk blocks every file write while on, as a hung disk does.
type stalledDisk struct {
	on   atomic.Bool
	gate chan struct{} // closed to let the held writes through
}

func (d *stalledDisk) String() string { return "stalled disk" }

func (d *stalledDisk) MaybeError(op errorfs.Op) error {
	if d.on.Load() && (op.Kind == errorfs.OpFileWrite || op.Kind == errorfs.OpFileSyncData || op.Kind == errorfs.OpFileSync) {
		<-d.gate
	}
	return nil
}

// TestStalledWriteTimesOut: a write that does not finish within
// WriteTimeout (here a disk that stopped answering) returns
// kv.ErrUnavailable instead of hanging the caller; once the disk answers,
// writes succeed again.
func TestStalledWriteTimesOut(t *testing.T) {
	dir := t.TempDir()
	disk := &stalledDisk{gate: make(chan struct{})}
	s, err := pebblestore.Open(pebblestore.Options{Dir: dir, FS: errorfs.Wrap(vfs.Default, disk), WriteTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	disk.on.Store(true)
	err = within(t, 20*time.Second, "commit on a stalled disk", func() error { return put(s, "stalled", true) })
	if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "not done within 100ms") {
		t.Fatalf("commit on a stalled disk: %v; want kv.ErrUnavailable after WriteTimeout", err)
	}
	if err := within(t, 20*time.Second, "Sync on a stalled disk", s.Sync); !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("Sync on a stalled disk: %v; want kv.ErrUnavailable", err)
	}
	disk.on.Store(false)
	close(disk.gate)
	if err := within(t, 20*time.Second, "commit after the stall", func() error { return put(s, "after", true) }); err != nil {
		t.Fatalf("commit after the stall: %v", err)
	}
	for _, k := range []string{"stalled", "after"} { // the timed-out write went on
		if _, err := s.Get([]byte(k)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

// noRoomToPreallocate refuses only preallocation, as a disk with room for
// a write but not for the log's next preallocated chunk does.
type noRoomToPreallocate struct{}

func (noRoomToPreallocate) String() string { return "no room to preallocate" }

func (noRoomToPreallocate) MaybeError(op errorfs.Op) error {
	if op.Kind == errorfs.OpFilePreallocate {
		return &os.PathError{Op: "fallocate", Path: op.Path, Err: syscall.ENOSPC}
	}
	return nil
}

// TestFailedPreallocationTakesWrites: Pebble treats preallocating its log as
// a hint and ignores a failure, so the store must not refuse writes that
// still fit on the disk (it once held them as though the disk were full).
func TestFailedPreallocationTakesWrites(t *testing.T) {
	s := openFaulty(t, t.TempDir(), noRoomToPreallocate{})
	defer s.Close()
	for i := range 50 {
		if err := within(t, 20*time.Second, "commit", func() error { return put(s, fmt.Sprint("k", i), true) }); err != nil {
			t.Fatalf("commit %d with no room to preallocate: %v", i, err)
		}
	}
}
