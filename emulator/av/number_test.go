package av

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonicalNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"1", "1"},
		{"1.0", "1"},
		{"1e2", "100"},
		{"1E2", "100"},
		{"1e+2", "100"},
		{"0.00", "0"},
		{"-0", "0"},
		{"-0.000e5", "0"},
		{"0e125", "0"},
		{"0e-130", "0"},
		{"0.0e126", "0"},
		{"1e-130", "0." + strings.Repeat("0", 129) + "1"},
		{"12300", "12300"},
		{"+5", "5"},
		{".5", "0.5"},
		{"5.", "5"},
		{"-0.0100", "-0.01"},
		{"00012.3400e1", "123.4"},
		{"1.5e-1", "0.15"},
		{"123.456", "123.456"},
		{"-123.456e2", "-12345.6"},
		{"1E-130", "0." + strings.Repeat("0", 129) + "1"},
		{"-1E-130", "-0." + strings.Repeat("0", 129) + "1"},
		{"1e125", "1" + strings.Repeat("0", 125)},
		{"9.9999999999999999999999999999999999999E+125", "99999999999999999999999999999999999999" + strings.Repeat("0", 88)},
		{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
		{"1234567890123456789012345678901234567800000", "1234567890123456789012345678901234567800000"},
		{"0.12345678901234567890123456789012345678", "0.12345678901234567890123456789012345678"},
	}
	for _, tt := range tests {
		got, err := CanonicalNumber(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestCanonicalNumberErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", msgNotNumber},
		{"abc", msgNotNumber + ": abc"},
		{"1e", msgNotNumber + ": 1e"},
		{"1.2.3", msgNotNumber + ": 1.2.3"},
		{"--1", msgNotNumber + ": --1"},
		{"1e+", msgNotNumber + ": 1e+"},
		{".", msgNotNumber + ": ."},
		{"e5", msgNotNumber + ": e5"},
		{" 1", msgNotNumber + ":  1"},
		{"1 ", msgNotNumber + ": 1 "},
		{"NaN", msgNotNumber + ": NaN"},
		{"Infinity", msgNotNumber + ": Infinity"},
		{"0x10", msgNotNumber + ": 0x10"},
		{"123456789012345678901234567890123456789", msgTooManyDigits},
		{"1.23456789012345678901234567890123456789", msgTooManyDigits},
		{"1e126", msgOverflow},
		{"10e125", msgOverflow},
		{"-1e126", msgOverflow},
		{"1e-131", msgUnderflow},
		{"0.1e-130", msgUnderflow},
		{"-1e-131", msgUnderflow},
		// An exponent past a 32-bit integer is still read: out of range. One
		// past a 64-bit integer cannot be converted (as DynamoDB answers).
		{"1e2147483648", msgOverflow},
		{"1e99999999999", msgOverflow},
		{"1e-99999999999", msgUnderflow},
		{"1e9223372036854775807", msgOverflow},
		{"1e-9223372036854775808", msgUnderflow},
		{"1e9223372036854775808", msgNotNumber + ": 1e9223372036854775808"},
		{"1e99999999999999999999", msgNotNumber + ": 1e99999999999999999999"},
		{"1e-99999999999999999999", msgNotNumber + ": 1e-99999999999999999999"},
		// Zero is range-checked by the exponent it is written with.
		{"0e126", msgOverflow},
		{"0e-131", msgUnderflow},
		{"0e-500", msgUnderflow},
		{"-0.00e-129", msgUnderflow},
		// Range is checked before precision, as DynamoDB does.
		{"1234567890123456789012345678901234567891e200", msgOverflow},
	}
	for _, tt := range tests {
		_, err := CanonicalNumber(tt.in)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Message != tt.msg {
			t.Errorf("CanonicalNumber(%q) error = %v; want %q", tt.in, err, tt.msg)
		}
	}
}

func TestCanonicalNumberNoAllocWhenCanonical(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if _, err := CanonicalNumber("-123.456"); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("allocs = %v, want 0", n)
	}
}

func TestCompareNumbers(t *testing.T) {
	ordered := []string{
		"-9.9999999999999999999999999999999999999E+125", "-1e125", "-100", "-10", "-2", "-1.5", "-1.01", "-1", "-0.5",
		"-1e-130", "0", "1e-130", "0.001", "0.5", "1", "1.01", "1.5", "2", "10", "12", "100", "123", "1e125",
		"9.9999999999999999999999999999999999999E+125",
	}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := CompareNumbers(a, b); got != want {
				t.Errorf("CompareNumbers(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, eq := range [][2]string{{"1", "1.0"}, {"1", "1e0"}, {"100", "1e2"}, {"0", "-0"}, {"0.5", ".5"}, {"-0.010", "-1e-2"}} {
		if CompareNumbers(eq[0], eq[1]) != 0 {
			t.Errorf("CompareNumbers(%s, %s) != 0", eq[0], eq[1])
		}
	}
}

func TestAddSubtractNumbers(t *testing.T) {
	tests := []struct{ a, b, sum, diff string }{
		{"1", "2", "3", "-1"},
		{"1.5", "1.5", "3", "0"},
		{"0.1", "0.2", "0.3", "-0.1"},
		{"-5", "3", "-2", "-8"},
		{"1e10", "1", "10000000001", "9999999999"},
		{"99999999999999999999999999999999999999", "0", "99999999999999999999999999999999999999", "99999999999999999999999999999999999999"},
		{"1e-130", "1e-130", "0." + strings.Repeat("0", 129) + "2", "0"},
	}
	for _, tt := range tests {
		if got, err := AddNumbers(tt.a, tt.b); err != nil || got != tt.sum {
			t.Errorf("AddNumbers(%s, %s) = %s, %v; want %s", tt.a, tt.b, got, err, tt.sum)
		}
		if got, err := SubtractNumbers(tt.a, tt.b); err != nil || got != tt.diff {
			t.Errorf("SubtractNumbers(%s, %s) = %s, %v; want %s", tt.a, tt.b, got, err, tt.diff)
		}
	}
	errs := []struct {
		a, b string
		sub  bool
		msg  string
	}{
		{"9.9999999999999999999999999999999999999E+125", "1E+125", false, msgOverflow},
		{"-9.9999999999999999999999999999999999999E+125", "1E+125", true, msgOverflow},
		{"99999999999999999999999999999999999999", "0.1", false, msgOverflow},
		{"1e20", "1e-20", false, msgOverflow},
		{"1e50", "1", true, msgOverflow},
		{"1e-130", "1.1e-130", true, msgUnderflow},
		{"x", "1", false, msgNotNumber + ": x"},
		{"1", "", true, msgNotNumber},
	}
	for _, tt := range errs {
		var err error
		if tt.sub {
			_, err = SubtractNumbers(tt.a, tt.b)
		} else {
			_, err = AddNumbers(tt.a, tt.b)
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Message != tt.msg {
			t.Errorf("arith(%s, %s, sub=%v) error = %v; want %q", tt.a, tt.b, tt.sub, err, tt.msg)
		}
	}
}

func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range []string{"0", "1.0", "-1e-130", "9.9e125", "abc", "1e", ".5", "+00012.3400e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CanonicalNumber(s)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%q: error %T", s, err)
			}
			return
		}
		// Canonical text is a fixed point and equal in value to the input.
		c2, err := CanonicalNumber(c)
		if err != nil || c2 != c {
			t.Fatalf("%q → %q → %q, %v", s, c, c2, err)
		}
		if CompareNumbers(s, c) != 0 {
			t.Fatalf("%q and canonical %q compare unequal", s, c)
		}
	})
}

func TestCanonicalValue(t *testing.T) {
	in := Item{
		"n":  {Type: TypeN, S: "1.50"},
		"ns": {Type: TypeNS, Set: []string{"1", "2.0", "3e1"}},
		"l":  {Type: TypeL, L: []Value{{Type: TypeS, S: "1.0"}, {Type: TypeN, S: "0100"}}},
		"m":  {Type: TypeM, M: map[string]Value{"x": {Type: TypeN, S: "-0"}, "y": {Type: TypeBOOL}}},
		"s":  {Type: TypeS, S: "1.0"},
	}
	before := string(AppendItemJSON(nil, in))
	got := in.Canonical()
	want := `{"l":{"L":[{"S":"1.0"},{"N":"100"}]},"m":{"M":{"x":{"N":"0"},"y":{"BOOL":false}}},"n":{"N":"1.5"},"ns":{"NS":["1","2","30"]},"s":{"S":"1.0"}}`
	if s := string(AppendItemJSON(nil, got)); s != want {
		t.Fatalf("Canonical:\n got %s\nwant %s", s, want)
	}
	if string(AppendItemJSON(nil, in)) != before {
		t.Fatal("Canonical modified its input")
	}
	// Already canonical: returned as is, no allocation.
	allocs := testing.AllocsPerRun(50, func() { _ = got.Canonical() })
	if allocs != 0 {
		t.Fatalf("allocs on canonical input = %v", allocs)
	}
}
