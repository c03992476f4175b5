package pebblestore_test

import (
	"encoding/binary"
	"testing"

	"github.com/extenddb/extenddb/pebblestore"
)

func benchStore(b *testing.B, inMemory bool) *pebblestore.Store {
	b.Helper()
	o := pebblestore.Options{InMemory: inMemory}
	if !inMemory {
		o.Dir = b.TempDir()
	}
	s, err := pebblestore.Open(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func key(i int) []byte { return binary.BigEndian.AppendUint64([]byte("item/"), uint64(i)) }

// commitOne commits a batch of one Set, the shape of a PutItem.
func commitOne(b testing.TB, s *pebblestore.Store, k, val []byte, sync bool) {
	bt := s.NewBatch()
	if err := bt.Set(k, val); err != nil {
		b.Fatal(err)
	}
	if err := bt.Commit(sync); err != nil {
		b.Fatal(err)
	}
	bt.Close()
}

// BenchmarkCommit measures one-item batches, the shape of a PutItem: the
// cost of --sync is the gap between the disk/nosync and disk/sync rows.
func BenchmarkCommit(b *testing.B) {
	val := make([]byte, 256)
	for _, c := range []struct {
		name     string
		inMemory bool
		sync     bool
	}{{"mem", true, false}, {"disk/nosync", false, false}, {"disk/sync", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			s := benchStore(b, c.inMemory)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				commitOne(b, s, key(i), val, c.sync)
				i++
			}
		})
	}
}

func fill(b *testing.B, s *pebblestore.Store, n int) {
	b.Helper()
	val := make([]byte, 256)
	bt := s.NewBatch()
	for i := range n {
		if err := bt.Set(key(i), val); err != nil {
			b.Fatal(err)
		}
	}
	if err := bt.Commit(false); err != nil {
		b.Fatal(err)
	}
	bt.Close()
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkGet(b *testing.B) {
	const n = 100_000
	s := benchStore(b, true)
	fill(b, s, n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Get(key(i % n)); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}

// BenchmarkScan100 is a Query-sized range read: seek, then 100 keys.
func BenchmarkScan100(b *testing.B) {
	const n = 100_000
	s := benchStore(b, true)
	fill(b, s, n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := (i * 7919) % (n - 100)
		it, err := s.NewIter(key(start), nil)
		if err != nil {
			b.Fatal(err)
		}
		c := 0
		for ok := it.First(); ok && c < 100; ok = it.Next() {
			_ = it.Value()
			c++
		}
		it.Close()
		i++
	}
}

// BenchmarkOverwrite is the store's part of loadgen's PutItem on the
// default on-disk store: read the old value, then commit the new one, on
// keys of 1 KB overwritten at random, so the reads go through memtables,
// L0 files and compacted levels as they do under that load. The get rows
// are the same keys read alone, GetItem's part. 10k is loadgen's table
// (10 MB, within the 64 MiB block cache); 200k (200 MB) is not.
func BenchmarkOverwrite(b *testing.B) {
	val := make([]byte, 1000)
	for _, c := range []struct {
		name  string
		n     int
		write bool
	}{{"10k/get", 10_000, false}, {"10k/get+commit", 10_000, true}, {"200k/get", 200_000, false}, {"200k/get+commit", 200_000, true}} {
		b.Run(c.name, func(b *testing.B) {
			s := benchStore(b, false)
			n := c.n
			rng := uint64(1)
			next := func() int {
				rng = rng*6364136223846793005 + 1442695040888963407
				return int(rng>>33) % n
			}
			for i := 0; i < n; i += 1000 {
				bt := s.NewBatch()
				for j := i; j < i+1000; j++ {
					if err := bt.Set(key(j), val); err != nil {
						b.Fatal(err)
					}
				}
				if err := bt.Commit(false); err != nil {
					b.Fatal(err)
				}
				bt.Close()
			}
			for range 40_000 {
				commitOne(b, s, key(next()), val, false)
			}
			b.ReportAllocs()
			for b.Loop() {
				k := key(next())
				if _, err := s.Get(k); err != nil {
					b.Fatal(err)
				}
				if c.write {
					commitOne(b, s, k, val, false)
				}
			}
		})
	}
}
