package pebblestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/kv"
)

// A new store's files are synced once, after Open, instead of one by one
// while Pebble creates them. Creating a store on an empty directory
// (the MANIFEST, its marker, the format marker, the log, OPTIONS, and
// the directory after each) is about seven fsyncs in a row; on a shared
// disk each takes 1–25 ms, which made them most of an empty server's
// start-up on disk (issue 36). While Open runs on a fresh directory,
// spaceFS's files and directories skip their syncs (space.deferSyncs);
// Open then syncs every file of the directory and the directory itself
// on a goroutine of its own, and every write of the store (bounded) waits
// for that first: nothing is acknowledged before the store's own files
// are durable. Reads do not wait: an empty store answers them at once.
//
// What it gives up: an operating-system crash (not a process crash: the
// page cache survives those) in the milliseconds between Open and the
// end of those syncs may leave the new directory's files torn. No write
// can have been acknowledged by then; such a directory holds nothing, and
// if Pebble cannot open it, removing it starts afresh.

// freshDir says whether dir is missing or empty: a store created there
// holds nothing before Open returns.
func freshDir(dir string) bool {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err != nil // io.EOF: empty
}

// syncFresh makes the new store's files durable: every regular file of
// dir, then dir and its parent (which may have gained dir). It closes
// s.freshSynced when done; a failure is kept in s.freshErr, and writes
// are refused from then on, as after any failed sync.
func (s *Store) syncFresh(dir string) {
	defer close(s.freshSynced)
	defer s.freshDone.Store(true)
	err := syncDir(dir, true)
	if err == nil {
		err = syncDir(filepath.Dir(dir), false)
	}
	if err != nil {
		s.freshErr = fmt.Errorf("%w: syncing the new store's files failed: %w", kv.ErrUnavailable, err)
	}
}

func syncDir(dir string, files bool) error {
	if files {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			if err := syncFile(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return syncFile(dir)
}

func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // Pebble removed it meanwhile (a temporary file)
		}
		return err
	}
	defer f.Close()
	return f.Sync()
}

// deferredDir is a directory Pebble opened for syncing while Open creates
// a fresh store: its syncs are left to syncFresh until Open returns.
type deferredDir struct {
	vfs.File
	sp *space
}

func (d deferredDir) Sync() error {
	if d.sp.deferSyncs.Load() {
		return nil
	}
	return d.File.Sync()
}

func (fs spaceFS) OpenDir(name string) (vfs.File, error) {
	f, err := fs.FS.OpenDir(name)
	if err != nil || !fs.sp.deferSyncs.Load() {
		return f, err
	}
	return deferredDir{File: f, sp: fs.sp}, nil
}
