package emulator

import (
	"slices"
	"sync"
)

// lockStripes is the number of item lock stripes. Two items share a stripe
// only by hash collision, which costs some parallelism but never
// correctness; 1024 keeps the per-stripe stats records (write_stats.go) few
// enough for DescribeTable to sum cheaply.
const lockStripes = 1024

// itemLocks serialises writes to the same item: a conditional write reads,
// evaluates and commits under its item's stripe, so no other write of that
// item can slip in between.
type itemLocks struct {
	mu [lockStripes]sync.Mutex
}

// stripeOf maps an item's storage key to its stripe.
func stripeOf(key []byte) uint16 {
	return uint16(fnv32(key) % lockStripes)
}

// lock locks the stripes of every key in keys, in ascending stripe order so
// that two callers locking overlapping sets cannot deadlock (transactions
// lock all their items this way). It returns the stripes held, for unlock.
func (l *itemLocks) lock(keys ...[]byte) []uint16 {
	stripes := make([]uint16, 0, len(keys))
	for _, k := range keys {
		stripes = append(stripes, stripeOf(k))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, s := range stripes {
		l.mu[s].Lock()
	}
	return stripes
}

// lockOne is lock for a single key without allocating.
func (l *itemLocks) lockOne(key []byte) uint16 {
	s := stripeOf(key)
	l.mu[s].Lock()
	return s
}

func (l *itemLocks) unlockOne(s uint16) { l.mu[s].Unlock() }

// unlock releases stripes returned by lock.
func (l *itemLocks) unlock(stripes []uint16) {
	for i := len(stripes) - 1; i >= 0; i-- {
		l.mu[stripes[i]].Unlock()
	}
}

// fnv32 is 32-bit FNV-1a, inlined to stay allocation-free on the hot path.
func fnv32(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}
