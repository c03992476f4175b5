package pebblestore

import "github.com/extenddb/extenddb/kv"

var _ kv.SizedBatcher = (*Store)(nil)

// NewBatchSized is NewBatch with room for size bytes of writes (Pebble's
// NewBatchWithSize), for a caller that writes a large batch at once.
func (s *Store) NewBatchSized(size int) kv.Batch {
	return &batch{s: s, b: s.db.NewBatchWithSize(size)}
}
