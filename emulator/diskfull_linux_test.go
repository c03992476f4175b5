//go:build linux

package emulator_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/extenddb/extenddb/internal/testserver"
)

// TestFullTmpfsSDK fills a real filesystem: a 16 MiB tmpfs the test
// mounts (it skips where mounting is not permitted). Writes fail with
// InternalServerError once it is full, reads keep working, and removing a
// file the test put there first lets writes through again.
func TestFullTmpfsSDK(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): %v", err)
	}
	// Registered before the server's, so it runs after the store closed.
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
			_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	ballast := filepath.Join(mnt, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 8<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.New(t, testserver.WithDataDir(filepath.Join(mnt, "db")), fullDiskStore(nil))
	c := s.Client
	createDiskTable(t, c)
	if err := putDisk(t, c, "before", 100); err != nil {
		t.Fatal(err)
	}
	// Random 300 KB items. Pebble preallocates its log 4 MiB at a time, so
	// the 8 MiB left runs out within a few.
	fillUntilRefused(t, c, 300<<10, 200)
	if err := getDisk(t, c, "before"); err != nil {
		t.Fatalf("GetItem on a full disk: %v", err)
	}
	if err := getDisk(t, c, "fill0"); err != nil {
		t.Fatalf("GetItem on a full disk: %v", err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	awaitWrites(t, c)
}
