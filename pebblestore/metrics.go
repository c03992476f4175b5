package pebblestore

import "github.com/cockroachdb/pebble/v2"

// Metrics returns Pebble's own metrics (compactions, memtables, block
// cache), or nil once the store is closed.
func (s *Store) Metrics() *pebble.Metrics {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil
	}
	return s.db.Metrics()
}
