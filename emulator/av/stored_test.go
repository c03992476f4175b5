package av

import (
	"bytes"
	"errors"
	"testing"
)

// checkStored fails unless reading b directly agrees with decoding it:
// the same JSON, the same size, or the same refusal.
func checkStored(t *testing.T, b []byte) {
	t.Helper()
	it, derr := DecodeItem(b)
	js, jerr := AppendStoredItemJSON([]byte("prefix"), b)
	size, serr := StoredItemSize(b)
	if derr != nil {
		if !errors.Is(jerr, ErrMalformedItem) || !errors.Is(serr, ErrMalformedItem) {
			t.Fatalf("%x: DecodeItem refuses (%v) but JSON %v, size %v", b, derr, jerr, serr)
		}
		return
	}
	if !bytes.Equal(AppendItem(nil, it), b) {
		// Bytes AppendItem never writes (names out of order, repeated,
		// numbers not canonical) decode, but need not read alike directly.
		return
	}
	if jerr != nil || serr != nil {
		t.Fatalf("%x: decodes, but JSON %v, size %v", b, jerr, serr)
	}
	if want := AppendItemJSON([]byte("prefix"), it); !bytes.Equal(js, want) {
		t.Fatalf("stored JSON differs:\n got %s\nwant %s", js, want)
	}
	if want := ItemSize(it); size != want {
		t.Fatalf("stored size %d, want %d", size, want)
	}
}

func TestStoredItemMatchesDecoded(t *testing.T) {
	it := sampleItem()
	it["invalid"] = Value{Invalid: msgNullNotTrue}
	it["deep"] = Value{Type: TypeL, L: []Value{{Type: TypeM, M: map[string]Value{"n": {Type: TypeN, S: "-12.3400"}, "f": {Type: TypeBOOL}}}}}
	it["esc"] = Value{Type: TypeS, S: "<&> \u2028 \x01 \xff 😀"}
	for _, item := range []Item{{}, {"a": {Type: TypeNULL, Bool: true}}, sampleItem(), it} {
		b := AppendItem(nil, item)
		checkStored(t, b)
		for i := range b { // every truncation is refused by all three
			checkStored(t, b[:i])
		}
	}
	for _, b := range [][]byte{
		{0x02, 0}, {itemFormat, 0, 0}, {itemFormat, 1, 1, 'a', 0x42},
		{itemFormat, 1, 1, 'a', 10, 2}, {itemFormat, 0xff, 0xff, 0xff}, {itemFormat, 1, 1, 'a', 1, 100},
	} {
		checkStored(t, b)
	}
}

func TestStoredItemJSONAllocations(t *testing.T) {
	b := AppendItem(nil, sampleItem())
	dst := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() {
		_, _ = AppendStoredItemJSON(dst[:0], b)
		_, _ = StoredItemSize(b)
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

func FuzzStoredItem(f *testing.F) {
	f.Add(AppendItem(nil, sampleItem()))
	f.Add([]byte{itemFormat, 1, 1, 'a', 10, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkStored(t, b)
		if it, err := DecodeItem(b); err == nil {
			checkStored(t, AppendItem(nil, it))
		}
	})
}

func BenchmarkStoredItemJSON(b *testing.B) {
	stored := AppendItem(nil, sampleItem())
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := StoredItemSize(stored); err != nil {
			b.Fatal(err)
		}
		if _, err := AppendStoredItemJSON(dst[:0], stored); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodedItemJSON is the path BenchmarkStoredItemJSON replaces.
func BenchmarkDecodedItemJSON(b *testing.B) {
	stored := AppendItem(nil, sampleItem())
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		it, err := DecodeItem(stored)
		if err != nil {
			b.Fatal(err)
		}
		_ = ItemSize(it)
		_ = AppendItemJSON(dst[:0], it)
	}
}
