package emulator

import (
	"encoding/hex"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

// goldenTable is a table with a fixed ID and one index of each key shape,
// so the storage keys below can be pinned byte for byte.
func goldenTable() *tableMeta {
	t := &tableMeta{
		KeySchema: []keyElem{{Name: "pk", KeyType: keyHash, Type: "S"}, {Name: "sk", KeyType: keyRange, Type: "N"}},
	}
	for i := range t.ID {
		t.ID[i] = byte(i + 1)
	}
	return t
}

// TestIndexKeyGolden pins the storage keys of single-attribute index
// entries: stores written by earlier binaries hold exactly these bytes, so
// the encoding of a one-HASH, at-most-one-RANGE index must never change.
func TestIndexKeyGolden(t *testing.T) {
	tm := goldenTable()
	item := av.Item{"pk": avS("p1"), "sk": avN("42"), "g": avS("gv"), "r": avN("-1.5"), "x": avS("other")}
	cases := []struct {
		name string
		ix   *indexMeta
		want string
	}{
		{"hash only", &indexMeta{ID: 7, KeySchema: []keyElem{{Name: "g", KeyType: keyHash, Type: "S"}}}, "780102030405060708090a0b0c0d0e0f1000000007620f9463677600017031000103832b00"},
		{"hash and range", &indexMeta{ID: 8, KeySchema: []keyElem{{Name: "g", KeyType: keyHash, Type: "S"}, {Name: "r", KeyType: keyRange, Type: "N"}}}, "780102030405060708090a0b0c0d0e0f1000000008620f946367760001017d55ff7031000103832b00"},
	}
	for _, c := range cases {
		_, k := indexEntry(tm, c.ix, item)
		if got := hex.EncodeToString(k); got != c.want {
			t.Errorf("%s: index key %s, want %s", c.name, got, c.want)
		}
		if got := hex.EncodeToString(storageKeyOf(tm, c.ix, item)); got != c.want {
			t.Errorf("%s: start key %s, want %s", c.name, got, c.want)
		}
	}
}

// BenchmarkIndexEntryKey measures building an index entry's storage key,
// done twice per index on every write (old and new item).
func BenchmarkIndexEntryKey(b *testing.B) {
	tm := goldenTable()
	item := av.Item{"pk": avS("p1"), "sk": avN("42"), "g": avS("gv"), "r": avN("-1.5"),
		"h2": avN("7"), "r2": avS("upper"), "r3": avN("12345")}
	single := &indexMeta{ID: 8, ProjectionType: "ALL", KeySchema: []keyElem{{Name: "g", KeyType: keyHash, Type: "S"}, {Name: "r", KeyType: keyRange, Type: "N"}}}
	multi := &indexMeta{ID: 9, ProjectionType: "ALL", KeySchema: []keyElem{{Name: "g", KeyType: keyHash, Type: "S"}, {Name: "h2", KeyType: keyHash, Type: "N"},
		{Name: "r", KeyType: keyRange, Type: "N"}, {Name: "r2", KeyType: keyRange, Type: "S"}, {Name: "r3", KeyType: keyRange, Type: "N"}}}
	for _, c := range []struct {
		name string
		ix   *indexMeta
	}{{"1H1R", single}, {"2H3R", multi}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, k := indexEntry(tm, c.ix, item); k == nil {
					b.Fatal("not in the index")
				}
			}
		})
	}
}
