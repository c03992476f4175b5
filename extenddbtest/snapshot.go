package extenddbtest

import (
	"context"
	"fmt"
	"os"

	"github.com/extenddb/extenddb/emulator"
)

// Snapshot is a saved state of a server: every namespace's tables with
// their items, indexes, stream records, PITR history and settings, and the
// backups. Restore it as often as needed, into this server or another;
// WriteTo writes it as a file that `extenddb serve --snapshot FILE` and
// WithSnapshot start from.
type Snapshot = emulator.Snapshot

// Snapshot saves the server's whole state, typically once the fixtures a
// suite shares are written, to Restore before each test.
func (s *Server) Snapshot() (*Snapshot, error) {
	return s.Engine.Snapshot(context.Background())
}

// Restore puts the server back in snap's state, atomically: a request sees
// the state before or after, never a mix. DynamoDB Streams iterators taken
// before are expired; background work (TTL, jobs) carries on from the
// restored state, as after a restart (docs/configuration.md, "Snapshots
// and resets").
func (s *Server) Restore(snap *Snapshot) error {
	return s.Engine.Restore(context.Background(), snap)
}

// Reset drops every table of the server (every account and Region), with
// its items and backups: the state of a new server.
func (s *Server) Reset() error {
	return s.Engine.Reset(context.Background())
}

// WithSnapshot starts the server from the snapshot file at path (written by
// Snapshot.WriteTo or `extenddb snapshot save`), as `serve --snapshot`
// does; WithLoad's tables are provisioned on top of it.
func WithSnapshot(path string) Option {
	return func(o *options) { o.snapshot = path }
}

// readSnapshotFile reads the snapshot file at path.
func readSnapshotFile(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	defer f.Close()
	snap, err := emulator.ReadSnapshot(f)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return snap, nil
}
