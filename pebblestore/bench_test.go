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
				bt := s.NewBatch()
				if err := bt.Set(key(i), val); err != nil {
					b.Fatal(err)
				}
				if err := bt.Commit(c.sync); err != nil {
					b.Fatal(err)
				}
				bt.Close()
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
