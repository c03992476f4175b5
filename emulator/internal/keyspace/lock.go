package keyspace

import (
	"slices"
	"sync"
)

// lockStripes is the number of item lock stripes. Two items share a stripe
// only by hash collision, which costs some parallelism but never
// correctness; 1024 keeps the per-stripe stats records (write_stats.go) few
// enough for DescribeTable to sum cheaply.
const LockStripes = 1024

// itemLocks serialises writes to the same item: a conditional write reads,
// evaluates and commits under its item's stripe, so no other write of that
// item can slip in between.
type ItemLocks struct {
	Mu [LockStripes]sync.Mutex
}

// stripeOf maps an item's storage key to its stripe.
func StripeOf(key []byte) uint16 {
	return uint16(Fnv32(key) % LockStripes)
}

// lock locks the stripes of every key in keys, in ascending stripe order so
// that two callers locking overlapping sets cannot deadlock (transactions
// lock all their items this way). It returns the stripes held, for unlock.
func (l *ItemLocks) Lock(keys ...[]byte) []uint16 {
	stripes := make([]uint16, 0, len(keys))
	for _, k := range keys {
		stripes = append(stripes, StripeOf(k))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, s := range stripes {
		l.Mu[s].Lock()
	}
	return stripes
}

// lockOne is lock for a single key without allocating.
func (l *ItemLocks) LockOne(key []byte) uint16 {
	s := StripeOf(key)
	l.Mu[s].Lock()
	return s
}

func (l *ItemLocks) UnlockOne(s uint16) { l.Mu[s].Unlock() }

// unlock releases stripes returned by lock.
func (l *ItemLocks) Unlock(stripes []uint16) {
	for i := len(stripes) - 1; i >= 0; i-- {
		l.Mu[stripes[i]].Unlock()
	}
}

// fnv32 is 32-bit FNV-1a, inlined to stay allocation-free on the hot path.
func Fnv32(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}
