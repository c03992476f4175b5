package pebblestore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/kv"
)

func TestFreshDir(t *testing.T) {
	dir := t.TempDir()
	if !freshDir(filepath.Join(dir, "missing")) || !freshDir(dir) {
		t.Error("a missing or empty directory is not fresh")
	}
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if freshDir(dir) {
		t.Error("a directory with a file in it is fresh")
	}
}

// TestFreshStoreSyncsBeforeWrites: a store created on an empty directory
// defers its files' syncs to after Open, and no write is acknowledged
// before they are done; a store opened on existing files syncs as usual.
func TestFreshStoreSyncsBeforeWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.freshSynced == nil {
		t.Fatal("a store created on a missing directory does not sync its files after Open")
	}
	if s.space.deferSyncs.Load() {
		t.Error("syncs are still deferred after Open")
	}
	if err := s.Update(true, func(tx kv.Txn) error { return tx.Batch().Set([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.freshSynced:
	default:
		t.Error("a write was acknowledged before the new store's files were synced")
	}
	if s.freshErr != nil {
		t.Errorf("syncing the new store: %v", s.freshErr)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.freshSynced != nil {
		t.Error("a store opened on existing files deferred its syncs")
	}
	if v, err := s.Get([]byte("k")); err != nil || string(v) != "v" {
		t.Errorf("after a reopen: %q, %v", v, err)
	}
	for _, o := range []Options{{InMemory: true}} {
		m, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		if m.freshSynced != nil {
			t.Error("an in-memory store defers syncs")
		}
		m.Close()
	}
}
