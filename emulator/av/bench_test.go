package av

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// benchItem is a ~1 KB item of mixed types, typical of an application row.
func benchItem() Item {
	it := Item{
		"pk":        {Type: TypeS, S: "customer#0001234567"},
		"sk":        {Type: TypeS, S: "order#2026-12-02T11:28:43Z#98765"},
		"total":     {Type: TypeN, S: "1234.56"},
		"count":     {Type: TypeN, S: "42"},
		"paid":      {Type: TypeBOOL, Bool: true},
		"note":      {Type: TypeNULL, Bool: true},
		"tags":      {Type: TypeSS, Set: []string{"priority", "gift", "express", "fragile"}},
		"scores":    {Type: TypeNS, Set: []string{"1", "2.5", "-3", "1000000", "0.001"}},
		"signature": {Type: TypeB, S: strings.Repeat("\x01\x02\x03\x04", 16)},
		"address": {Type: TypeM, M: map[string]Value{
			"street":  {Type: TypeS, S: "123 Example Street, Apartment 4B"},
			"city":    {Type: TypeS, S: "Springfield"},
			"zip":     {Type: TypeS, S: "12345-6789"},
			"country": {Type: TypeS, S: "US"},
			"geo":     {Type: TypeL, L: []Value{{Type: TypeN, S: "40.712776"}, {Type: TypeN, S: "-74.005974"}}},
		}},
		"description": {Type: TypeS, S: strings.Repeat("Lorem ipsum dolor sit amet, \"quoted\" text. ", 4)},
	}
	var lines []Value
	for i := range 5 {
		lines = append(lines, Value{Type: TypeM, M: map[string]Value{
			"sku":   {Type: TypeS, S: "SKU-" + strconv.Itoa(1000+i)},
			"qty":   {Type: TypeN, S: strconv.Itoa(i + 1)},
			"price": {Type: TypeN, S: "19.99"},
		}})
	}
	it["lines"] = Value{Type: TypeL, L: lines}
	return it
}

func BenchmarkJSONDecodeItem(b *testing.B) {
	js := AppendItemJSON(nil, benchItem())
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeItemJSON(js); err != nil {
			b.Fatal(err)
		}
	}
}

// Through encoding/json, as the engine's API structs are decoded.
func BenchmarkJSONDecodeItemViaEncodingJSON(b *testing.B) {
	js := AppendItemJSON(nil, benchItem())
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var it Item
		if err := json.Unmarshal(js, &it); err != nil {
			b.Fatal(err)
		}
	}
}

// Baseline: encoding/json into generic maps (the detour the codec avoids).
func BenchmarkJSONDecodeItemGenericBaseline(b *testing.B) {
	js := AppendItemJSON(nil, benchItem())
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(js, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONEncodeItem(b *testing.B) {
	it := benchItem()
	buf := AppendItemJSON(nil, it)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItemJSON(buf[:0], it)
	}
}

func BenchmarkBinaryEncodeItem(b *testing.B) {
	it := benchItem()
	buf := AppendItem(nil, it)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItem(buf[:0], it)
	}
}

func BenchmarkBinaryDecodeItem(b *testing.B) {
	buf := AppendItem(nil, benchItem())
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeItem(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateItem(b *testing.B) {
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateItem(it); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkItemSize(b *testing.B) {
	it := benchItem()
	b.ReportAllocs()
	for b.Loop() {
		_ = ItemSize(it)
	}
}

func BenchmarkAppendKey(b *testing.B) {
	pk := Value{Type: TypeS, S: "customer#0001234567"}
	sk := Value{Type: TypeN, S: "-12345.678"}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendKey(AppendKey(buf[:0], pk), sk)
	}
}

func BenchmarkDecodeKey(b *testing.B) {
	enc := AppendKey(AppendKey(nil, Value{Type: TypeS, S: "customer#0001234567"}), Value{Type: TypeN, S: "-12345.678"})
	b.ReportAllocs()
	for b.Loop() {
		_, rest, err := DecodeKey(enc, TypeS)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := DecodeKey(rest, TypeN); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCanonicalNumber(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CanonicalNumber("-12345.678"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONDecodeLoadgenItem decodes the load generator's PutItem item:
// two key attributes and a 1 KB ASCII string, mostly string contents.
func BenchmarkJSONDecodeLoadgenItem(b *testing.B) {
	js := []byte(`{"pk":{"S":"p0000123"},"sk":{"N":"7"},"data":{"S":"` + strings.Repeat("x", 1004) + `"}}`)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeItemJSON(js); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONEncodeLoadgenItem and BenchmarkStoredLoadgenItemJSON encode
// the load generator's item (a 1 KB ASCII string) as Query and GetItem do.
func BenchmarkJSONEncodeLoadgenItem(b *testing.B) {
	it := loadgenItem()
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = AppendItemJSON(buf[:0], it)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkStoredLoadgenItemJSON(b *testing.B) {
	stored := AppendItem(nil, loadgenItem())
	b.ReportAllocs()
	var buf []byte
	var err error
	for b.Loop() {
		if buf, err = AppendStoredItemJSON(buf[:0], stored); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func loadgenItem() Item {
	return Item{"pk": {Type: TypeS, S: "p0000123"}, "sk": {Type: TypeN, S: "7"}, "data": {Type: TypeS, S: strings.Repeat("x", 1004)}}
}

// BenchmarkAddNumbers is UpdateItem's ADD and SET a + b: a counter, and two
// numbers of many digits far apart.
func BenchmarkAddNumbers(b *testing.B) {
	for _, c := range []struct{ name, a, b string }{
		{"counter", "41", "1"},
		{"wide", "1234567890.123456789", "-0.0000000000987654321"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := AddNumbers(c.a, c.b); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
