package pgstore_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/pgstore"
)

// TestIteratorMatchesPebble drives pgstore's chunked iterator and
// Pebble's with the same random moves over the same random keys, with
// chunks of 1 to 3 rows so that every move crosses chunk boundaries, in
// both directions, from inside and outside the bounds.
func TestIteratorMatchesPebble(t *testing.T) {
	dsn := pgtest.DSN(t)
	rng := rand.New(rand.NewPCG(21, 0))
	alphabet := []byte("ab\x00\xff")
	randKey := func() []byte {
		k := make([]byte, 1+rng.IntN(3))
		for i := range k {
			k[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return k
	}
	for chunk := 1; chunk <= 3; chunk++ {
		pg, err := pgstore.Open(pgstore.Options{DSN: dsn, Table: fmt.Sprintf("kv_chunk%d", chunk), ScanChunk: chunk})
		if err != nil {
			t.Fatal(err)
		}
		peb, err := pebblestore.Open(pebblestore.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		for round := range 40 {
			// New contents: clear both, then the same random keys.
			for _, s := range []kv.Store{pg, peb} {
				b := s.NewBatch()
				must(t, b.DeleteRange([]byte{}, []byte{0xff, 0xff, 0xff, 0xff}))
				must(t, b.Commit(false))
				must(t, b.Close())
			}
			n := rng.IntN(12)
			var keys [][]byte
			for range n {
				keys = append(keys, randKey())
			}
			for _, s := range []kv.Store{pg, peb} {
				b := s.NewBatch()
				for i, k := range keys {
					must(t, b.Set(k, fmt.Append(nil, i)))
				}
				must(t, b.Commit(false))
				must(t, b.Close())
			}
			var lower, upper []byte
			if rng.IntN(2) == 0 {
				lower = randKey()
			}
			if rng.IntN(2) == 0 {
				upper = randKey()
			}
			if lower != nil && upper != nil && bytes.Compare(lower, upper) > 0 {
				lower, upper = upper, lower
			}
			compareIters(t, rng, randKey, pg, peb, lower, upper, fmt.Sprintf("chunk %d round %d [%q, %q) keys %q", chunk, round, lower, upper, keys))
		}
		must(t, pg.Close())
		must(t, peb.Close())
	}
}

func compareIters(t *testing.T, rng *rand.Rand, randKey func() []byte, pg, peb kv.Store, lower, upper []byte, where string) {
	t.Helper()
	a, err := pg.NewIter(lower, upper)
	must(t, err)
	defer a.Close()
	b, err := peb.NewIter(lower, upper)
	must(t, err)
	defer b.Close()
	var trace []string
	for range 60 {
		var okA, okB bool
		var move string
		switch rng.IntN(6) {
		case 0:
			move, okA, okB = "First", a.First(), b.First()
		case 1:
			move, okA, okB = "Last", a.Last(), b.Last()
		case 2:
			k := randKey()
			move, okA, okB = fmt.Sprintf("SeekGE(%q)", k), a.SeekGE(k), b.SeekGE(k)
		case 3:
			k := randKey()
			move, okA, okB = fmt.Sprintf("SeekLT(%q)", k), a.SeekLT(k), b.SeekLT(k)
		case 4:
			if !b.Valid() {
				continue // Pebble's Next on an unpositioned iterator is undefined
			}
			move, okA, okB = "Next", a.Next(), b.Next()
		default:
			if !b.Valid() {
				continue
			}
			move, okA, okB = "Prev", a.Prev(), b.Prev()
		}
		trace = append(trace, move)
		if okA != okB || okA && (!bytes.Equal(a.Key(), b.Key()) || !bytes.Equal(a.Value(), b.Value())) {
			t.Fatalf("%s: after %q: pgstore %v %q=%q, pebble %v %q=%q", where, trace, okA, a.Key(), a.Value(), okB, b.Key(), b.Value())
		}
	}
	must(t, a.Error())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
