package av

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

func TestKeyOrderNumbers(t *testing.T) {
	ordered := []string{
		"-9.9999999999999999999999999999999999999E+125", "-1e125", "-100", "-12", "-10", "-2", "-1.5", "-1.01", "-1",
		"-0.5", "-1e-130", "0", "1e-130", "0.001", "0.5", "1", "1.01", "1.5", "2", "10", "12", "100", "101", "123",
		"1e125", "9.9999999999999999999999999999999999999E+125",
	}
	var prev []byte
	for i, s := range ordered {
		enc := AppendKey(nil, Value{Type: TypeN, S: s})
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("key(%s) = %x not after key(%s) = %x", s, enc, ordered[i-1], prev)
		}
		prev = enc
		got, rest, err := DecodeKey(enc, TypeN)
		want, _ := CanonicalNumber(s)
		if err != nil || len(rest) != 0 || got.S != want {
			t.Errorf("DecodeKey(key(%s)) = %q, rest %x, %v; want %q", s, got.S, rest, err, want)
		}
	}
	// Equal numbers encode identically.
	if !bytes.Equal(AppendKey(nil, Value{Type: TypeN, S: "1.0"}), AppendKey(nil, Value{Type: TypeN, S: "1e0"})) {
		t.Error("1.0 and 1e0 encode differently")
	}
}

func TestKeyStringsEscapedAndPrefixFree(t *testing.T) {
	ordered := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "\x01", "a", "a\x00", "a\x00b", "a\x01", "ab", "b", "\xff", "\xff\xff"}
	var prev []byte
	for i, s := range ordered {
		enc := AppendKey(nil, Value{Type: TypeB, S: s})
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("key(%q) = %x not after key(%q) = %x", s, enc, ordered[i-1], prev)
		}
		prev = enc
		got, rest, err := DecodeKey(append(enc, "tail"...), TypeB)
		if err != nil || got.S != s || string(rest) != "tail" {
			t.Errorf("DecodeKey(key(%q)) = %q, %q, %v", s, got.S, rest, err)
		}
	}
}

// pk||sk must sort by (pk, sk) even when one pk is a prefix of another.
func TestKeyConcatenationOrder(t *testing.T) {
	type pair struct{ pk, sk Value }
	s := func(x string) Value { return Value{Type: TypeS, S: x} }
	n := func(x string) Value { return Value{Type: TypeN, S: x} }
	pairs := []pair{
		{s("a"), n("-5")}, {s("a"), n("0")}, {s("a"), n("7")}, {s("a"), n("70")},
		{s("a\x00"), n("-1")}, {s("ab"), n("-100")}, {s("ab"), n("1")}, {s("b"), n("0")},
	}
	var prev []byte
	for i, p := range pairs {
		enc := AppendKey(AppendKey(nil, p.pk), p.sk)
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("pair %d (%q,%s) does not sort after pair %d", i, p.pk.S, p.sk.S, i-1)
		}
		prev = enc
		pk, rest, err := DecodeKey(enc, TypeS)
		if err != nil {
			t.Fatal(err)
		}
		sk, rest, err := DecodeKey(rest, TypeN)
		if err != nil || len(rest) != 0 || pk.S != p.pk.S || CompareNumbers(sk.S, p.sk.S) != 0 {
			t.Errorf("decode pair %d: %q %q %v", i, pk.S, sk.S, err)
		}
	}
}

func TestDecodeKeyMalformed(t *testing.T) {
	bad := []struct {
		b []byte
		t Type
	}{
		{nil, TypeS}, {[]byte("abc"), TypeS}, {[]byte("a\x00"), TypeS}, {[]byte("a\x00\x02"), TypeB},
		{[]byte("a\x00\xffb"), TypeS}, {nil, TypeN}, {[]byte{0x09}, TypeN}, {[]byte{numPos}, TypeN},
		{[]byte{numPos, 130}, TypeN}, {[]byte{numPos, 130, 0}, TypeN}, {[]byte{numPos, 130, 101, 0}, TypeN},
		{[]byte{numPos, 130, 1, 0}, TypeN}, {[]byte{numPos, 130, 11, 1, 0}, TypeN}, {[]byte{numNeg, 130, 90}, TypeN},
		{[]byte{0x03}, TypeBOOL},
	}
	for _, tt := range bad {
		if _, _, err := DecodeKey(tt.b, tt.t); !errors.Is(err, ErrMalformedKey) {
			t.Errorf("DecodeKey(%x, %v) err = %v", tt.b, tt.t, err)
		}
		checkSkipKey(t, tt.b, tt.t)
	}
	for _, tt := range []struct {
		b []byte
		t Type
	}{
		{[]byte("a\x00\x01rest"), TypeS}, {[]byte("a\x00\xffb\x00\xff\x00\x01\x02"), TypeB}, {[]byte("\x00\x01"), TypeS},
		{AppendKey(nil, Value{Type: TypeN, S: "-12.5"}), TypeN}, {append(AppendKey(nil, Value{Type: TypeN, S: "7"}), 'x'), TypeN},
	} {
		checkSkipKey(t, tt.b, tt.t)
	}
}

// checkSkipKey fails unless SkipKey finds DecodeKey's rest and error.
func checkSkipKey(t *testing.T, b []byte, ty Type) {
	t.Helper()
	_, want, werr := DecodeKey(b, ty)
	got, err := SkipKey(b, ty)
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) || (err == nil && len(got) != len(want)) {
		t.Fatalf("SkipKey(%x, %v) = %x, %v; DecodeKey's rest %x, %v", b, ty, got, err, want, werr)
	}
}

func TestSkipKeyAllocations(t *testing.T) {
	b := []byte("partition\x00key\x00\x01sort")
	if n := testing.AllocsPerRun(100, func() { _, _ = SkipKey(b, TypeS) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

func FuzzKeyNumber(f *testing.F) {
	f.Add("1", "2")
	f.Add("-1.5", "-1.50")
	f.Add("1e-130", "0")
	f.Add("123456789", "-9.99e125")
	f.Fuzz(func(t *testing.T, a, b string) {
		ca, erra := CanonicalNumber(a)
		cb, errb := CanonicalNumber(b)
		if erra != nil || errb != nil {
			return
		}
		va, vb := Value{Type: TypeN, S: a}, Value{Type: TypeN, S: b}
		ea, eb := AppendKey(nil, va), AppendKey(nil, vb)
		c, _ := Compare(va, vb)
		if bytes.Compare(ea, eb) != c {
			t.Fatalf("order: Compare(%s, %s) = %d but keys %x %x", a, b, c, ea, eb)
		}
		da, rest, err := DecodeKey(ea, TypeN)
		if err != nil || len(rest) != 0 || da.S != ca {
			t.Fatalf("round trip %s: %q %x %v want %q", a, da.S, rest, err, ca)
		}
		// Concatenations stay ordered by the first component.
		if c != 0 {
			x := AppendKey(slices.Clone(ea), vb)
			y := AppendKey(slices.Clone(eb), va)
			if bytes.Compare(x, y) != c {
				t.Fatalf("concatenation order broken for %s, %s", a, b)
			}
		}
		_ = cb
	})
}

func FuzzKeyBytes(f *testing.F) {
	f.Add([]byte("a"), []byte("a\x00"))
	f.Add([]byte{0, 0xff}, []byte{0, 1})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		va, vb := Value{Type: TypeB, S: string(a)}, Value{Type: TypeB, S: string(b)}
		ea, eb := AppendKey(nil, va), AppendKey(nil, vb)
		c, _ := Compare(va, vb)
		if bytes.Compare(ea, eb) != c {
			t.Fatalf("order: %x vs %x: Compare %d, keys %x %x", a, b, c, ea, eb)
		}
		got, rest, err := DecodeKey(append(ea, eb...), TypeB)
		if err != nil || got.S != string(a) || !bytes.Equal(rest, eb) {
			t.Fatalf("round trip %x: %x %x %v", a, got.S, rest, err)
		}
		if c != 0 {
			x := AppendKey(slices.Clone(ea), vb)
			y := AppendKey(slices.Clone(eb), va)
			if bytes.Compare(x, y) != c {
				t.Fatalf("concatenation order broken for %x, %x", a, b)
			}
		}
	})
}

func FuzzDecodeKey(f *testing.F) {
	f.Add([]byte{numPos, 130, 11, 0}, uint8(TypeN))
	f.Add([]byte("a\x00\x01"), uint8(TypeS))
	f.Fuzz(func(t *testing.T, b []byte, ty uint8) {
		checkSkipKey(t, b, Type(ty))
		v, rest, err := DecodeKey(b, Type(ty))
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to the bytes consumed.
		enc := AppendKey(nil, v)
		if !bytes.Equal(enc, b[:len(b)-len(rest)]) {
			t.Fatalf("DecodeKey(%x) = %q re-encodes to %x", b, v.S, enc)
		}
	})
}
