package av

import (
	"bytes"
	"errors"
	"testing"
)

func TestItemRoundTrip(t *testing.T) {
	it := sampleItem()
	it["num"] = Value{Type: TypeN, S: "1.50e1"}
	it["invalid"] = Value{Invalid: msgNullNotTrue}
	b := AppendItem(nil, it)
	got, err := DecodeItem(b)
	if err != nil {
		t.Fatal(err)
	}
	// Deterministic: equal items, equal bytes.
	if b2 := AppendItem(nil, got); !bytes.Equal(b, b2) {
		t.Errorf("re-encoding differs")
	}
	if got["invalid"].Invalid != msgNullNotTrue {
		t.Errorf("invalid value lost its message: %#v", got["invalid"])
	}
	delete(it, "invalid")
	delete(got, "invalid")
	if !EqualItems(it, got) {
		t.Fatalf("round trip differs:\n%s\n%s", AppendItemJSON(nil, it), AppendItemJSON(nil, got))
	}
	// Numbers are stored canonical.
	if got["num"].S != "15" {
		t.Errorf("stored number %q, want canonical 15", got["num"].S)
	}
	// The decoded item does not alias the input buffer.
	for i := range b {
		b[i] = 0
	}
	if got["pk"].S != "user#123" {
		t.Errorf("decoded item aliases the input")
	}
}

func TestDecodeItemMalformed(t *testing.T) {
	good := AppendItem(nil, sampleItem())
	for i := 0; i < len(good); i++ {
		if _, err := DecodeItem(good[:i]); !errors.Is(err, ErrMalformedItem) {
			t.Fatalf("truncated at %d: err = %v", i, err)
		}
	}
	for _, b := range [][]byte{
		{0x02, 0},                       // unknown format
		{itemFormat, 0, 0},              // trailing byte
		{itemFormat, 1, 1, 'a', 0x42},   // unknown type
		{itemFormat, 1, 1, 'a', 10, 2},  // BOOL out of range
		{itemFormat, 0xff, 0xff, 0xff},  // count beyond input
		{itemFormat, 1, 1, 'a', 1, 100}, // length beyond input
	} {
		if _, err := DecodeItem(b); !errors.Is(err, ErrMalformedItem) {
			t.Errorf("DecodeItem(%x) err = %v", b, err)
		}
	}
}

func FuzzItemRoundTrip(f *testing.F) {
	f.Add([]byte(`{"a":{"S":"x"},"b":{"N":"1.0"}}`))
	f.Add(AppendItemJSON(nil, sampleItem()))
	f.Fuzz(func(t *testing.T, js []byte) {
		it, err := DecodeItemJSON(js)
		if err != nil {
			return
		}
		b := AppendItem(nil, it)
		got, err := DecodeItem(b)
		if err != nil {
			t.Fatalf("DecodeItem: %v", err)
		}
		if ValidateItem(it) == nil && !EqualItems(it, got) {
			t.Fatalf("round trip differs for %s", js)
		}
		if b2 := AppendItem(nil, got); !bytes.Equal(b, b2) {
			t.Fatalf("re-encoding differs for %s", js)
		}
	})
}

func FuzzDecodeItem(f *testing.F) {
	f.Add(AppendItem(nil, sampleItem()))
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := DecodeItem(b)
		if err != nil {
			return
		}
		_ = AppendItem(nil, it)
	})
}
