package pgstore_test

import (
	"encoding/binary"
	"testing"

	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pgstore"
)

// The figures are one client on loopback: each operation is dominated by
// its round trips to the server (see ADR 0006).

func benchStore(b *testing.B, n int) *pgstore.Store {
	b.Helper()
	s, err := pgstore.Open(pgstore.Options{DSN: pgtest.DSN(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
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
	return s
}

func key(i int) []byte { return binary.BigEndian.AppendUint64([]byte("item/"), uint64(i)) }

// BenchmarkGet: one point read, one round trip.
func BenchmarkGet(b *testing.B) {
	const n = 1000
	s := benchStore(b, n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Get(key(i % n)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkUpdate: read one key and write it back, the shape of a
// conditional PutItem: BEGIN+SELECT, then the write+COMMIT.
func BenchmarkUpdate(b *testing.B) {
	const n = 1000
	s := benchStore(b, n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := key(i % n)
		err := s.Update(false, func(tx kv.Txn) error {
			v, err := tx.Get(k)
			if err != nil {
				return err
			}
			return tx.Batch().Set(k, v)
		})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkUpdateContended: every goroutine (GOMAXPROCS×4) increments the
// same key, so most tries are refused (40001) and run again: the cost of
// the retry loop under the worst contention.
func BenchmarkUpdateContended(b *testing.B) {
	s := benchStore(b, 1)
	k := key(0)
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			err := s.Update(false, func(tx kv.Txn) error {
				v, err := tx.Get(k)
				if err != nil {
					return err
				}
				return tx.Batch().Set(k, append(v[:0:0], v...))
			})
			if err != nil {
				b.Error(err) // not Fatal: this is not the benchmark's goroutine
				return
			}
		}
	})
}

// BenchmarkCommit: batches of one write (a PutItem) and of four (an item
// and its index entries), each one round trip.
func BenchmarkCommit(b *testing.B) {
	for _, size := range []int{1, 4} {
		b.Run(map[int]string{1: "1", 4: "4"}[size], func(b *testing.B) {
			s := benchStore(b, 0)
			val := make([]byte, 256)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bt := s.NewBatch()
				for range size {
					if err := bt.Set(key(i), val); err != nil {
						b.Fatal(err)
					}
					i++
				}
				if err := bt.Commit(false); err != nil {
					b.Fatal(err)
				}
				bt.Close()
			}
		})
	}
}

// BenchmarkScan100 reads 100 consecutive keys (a Query page): one
// statement, since 100 rows fit in one chunk.
func BenchmarkScan100(b *testing.B) {
	const n = 10000
	s := benchStore(b, n)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := (i * 100) % (n - 100)
		it, err := s.NewIter(key(start), key(start+100))
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for ok := it.First(); ok; ok = it.Next() {
			got++
		}
		if err := it.Close(); err != nil || got != 100 {
			b.Fatalf("%d keys, %v", got, err)
		}
		i++
	}
}
