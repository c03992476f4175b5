package kv

// SizedBatcher is implemented by a store that can make a batch with room
// for size bytes of writes up front: a caller that knows it writes a large
// batch at once (a snapshot restore) spares the batch's growth, each a
// copy of everything written so far.
type SizedBatcher interface {
	NewBatchSized(size int) Batch
}
