package av

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func nest(levels int, leaf Value, list bool) Value {
	v := leaf
	for range levels {
		if list {
			v = Value{Type: TypeL, L: []Value{v}}
		} else {
			v = Value{Type: TypeM, M: map[string]Value{"a": v}}
		}
	}
	return v
}

func TestValidateItemDepth(t *testing.T) {
	leaf := Value{Type: TypeS, S: "x"}
	for _, list := range []bool{false, true} {
		// 31 wraps around a scalar is level 32: accepted; 32 wraps rejected.
		if err := ValidateItem(Item{"d": nest(31, leaf, list)}); err != nil {
			t.Errorf("31 wraps (list=%v): %v", list, err)
		}
		err := ValidateItem(Item{"d": nest(32, leaf, list)})
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Message != msgNestingTooDeep {
			t.Errorf("32 wraps (list=%v): %v", list, err)
		}
	}
	if got := Depth(nest(3, Value{Type: TypeM, M: map[string]Value{}}, true)); got != 4 {
		t.Errorf("Depth = %d, want 4", got)
	}
}

func TestValidateItemReportsValueErrorsFirstInNameOrder(t *testing.T) {
	it := Item{
		"b": {Type: TypeSS},
		"a": {Type: TypeN, S: "x"},
		"c": {Type: TypeS, S: ""},
	}
	err := ValidateItem(it)
	if err == nil || err.Error() != msgNotNumber+": x" {
		t.Fatalf("got %v", err)
	}
	if err := ValidateItem(Item{"s": {Type: TypeS}, "b": {Type: TypeB}, "ss": {Type: TypeSS, Set: []string{""}}}); err != nil {
		t.Fatalf("empty non-key string/binary and empty string in a set are valid: %v", err)
	}
}

func TestValidateLargeSets(t *testing.T) {
	var ss, ns []string
	for i := range 100 {
		ss = append(ss, strings.Repeat("x", i))
		ns = append(ns, strings.Repeat("1", i%38+1)+"e"+string(rune('0'+i/38)))
	}
	if err := ValidateValue(Value{Type: TypeSS, Set: ss}); err != nil {
		t.Fatal(err)
	}
	if err := ValidateValue(Value{Type: TypeNS, Set: ns}); err != nil {
		t.Fatal(err)
	}
	if !Equal(Value{Type: TypeNS, Set: ns}, Value{Type: TypeNS, Set: ns}) {
		t.Fatal("large NS not equal to itself")
	}
	if Equal(Value{Type: TypeNS, Set: ns}, Value{Type: TypeNS, Set: ns[1:]}) || Equal(Value{Type: TypeSS, Set: ss}, Value{Type: TypeSS, Set: append(ss[1:], "other")}) {
		t.Fatal("large sets with different members are equal")
	}
	ssRev := slices.Clone(ss)
	slices.Reverse(ssRev)
	if !Equal(Value{Type: TypeSS, Set: ss}, Value{Type: TypeSS, Set: ssRev}) {
		t.Fatal("large SS not equal to its reverse")
	}
	nsAlt := slices.Clone(ns)
	nsAlt[5], _ = CanonicalNumber(ns[5])
	nsAlt[5] += ".000"
	if !Equal(Value{Type: TypeNS, Set: ns}, Value{Type: TypeNS, Set: nsAlt}) {
		t.Fatal("large NS with a member written differently not equal")
	}
	if err := ValidateValue(Value{Type: TypeNS, Set: append(ns, "1.0e0")}); err == nil || err.Error() != msgNSDuplicates {
		t.Fatalf("large NS with 1 and 1.0e0: %v", err)
	}
	if err := ValidateValue(Value{Type: TypeSS, Set: append(ss, "x")}); err == nil || !strings.Contains(err.Error(), "contains duplicates.") {
		t.Fatalf("large SS duplicate: %v", err)
	}
}

func TestValidateKeyAttr(t *testing.T) {
	s := func(x string) Value { return Value{Type: TypeS, S: x} }
	tests := []struct {
		name    string
		want    Type
		role    KeyRole
		v       Value
		present bool
		msg     string
	}{
		{"pk", TypeS, HashKey, s("a"), true, ""},
		{"pk", TypeS, HashKey, Value{}, false, "One or more parameter values were invalid: Missing the key pk in the item"},
		{"pk", TypeS, HashKey, Value{Type: TypeN, S: "1"}, true, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"sk", TypeN, RangeKey, Value{Type: TypeSS, Set: []string{"a"}}, true, "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: SS"},
		{"pk", TypeS, HashKey, s(""), true, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"pk", TypeB, HashKey, Value{Type: TypeB}, true, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: pk"},
		{"pk", TypeS, HashKey, s(strings.Repeat("a", 2048)), true, ""},
		{"pk", TypeS, HashKey, s(strings.Repeat("a", 2049)), true, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{"sk", TypeS, RangeKey, s(strings.Repeat("a", 1024)), true, ""},
		{"sk", TypeS, RangeKey, s(strings.Repeat("a", 1025)), true, "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
	}
	for _, tt := range tests {
		err := ValidateKeyAttr(tt.name, tt.want, tt.role, tt.v, tt.present)
		got := ""
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%T", err)
			}
			got = ve.Message
		}
		if got != tt.msg {
			t.Errorf("ValidateKeyAttr(%s, %v):\n got %q\nwant %q", tt.name, tt.v.Type, got, tt.msg)
		}
	}
}

func TestSize(t *testing.T) {
	n := func(s string) Value { return Value{Type: TypeN, S: s} }
	tests := []struct {
		v    Value
		want int
	}{
		{Value{Type: TypeS, S: "abc"}, 3},
		{Value{Type: TypeS, S: "é😀"}, 6}, // UTF-8 bytes, not UTF-16 units
		{Value{Type: TypeB, S: "\x00\x01"}, 2},
		{Value{Type: TypeNULL, Bool: true}, 1},
		{Value{Type: TypeBOOL}, 1},
		// Numbers: the 23 literals measured on live DynamoDB (eu-west-2, 2026).
		{n("0"), 1}, {n("1"), 2}, {n("12"), 2}, {n("123"), 3}, {n("1234"), 3},
		{n("12345678901234567890123456789012345678"), 20}, {n("0042"), 2}, {n("100"), 2}, {n("1010"), 3},
		{n("0.0000001"), 2}, {n("1E125"), 2}, {n("1E-100"), 2}, {n("1.5"), 3}, {n("15"), 2}, {n("1.2"), 3},
		{n("1.200"), 3}, {n("1.234"), 4}, {n("3.14159"), 5}, {n("123456"), 4}, {n("100.5"), 4}, {n("0.15"), 2},
		{n("-42"), 3}, {n("-0"), 1},
		// dynalite's item-size gate tests (live DynamoDB).
		{n("1" + strings.Repeat("0", 125)), 2}, {n("11" + strings.Repeat("0", 124)), 2},
		{n("11111" + strings.Repeat("0", 121)), 4}, {n("111111" + strings.Repeat("0", 120)), 4},
		{n("1111111" + strings.Repeat("0", 119)), 5}, {n(strings.Repeat("1", 38) + strings.Repeat("0", 88)), 20},
		{Value{Type: TypeSS, Set: []string{"ab", "c"}}, 3},
		{Value{Type: TypeBS, Set: []string{"ab", ""}}, 2},
		{Value{Type: TypeNS, Set: []string{"1", "-42"}}, 5},
		{Value{Type: TypeL}, 3},
		{Value{Type: TypeL, L: []Value{{Type: TypeS, S: "ab"}, {Type: TypeNULL}}}, 3 + (1 + 2) + (1 + 1)},
		{Value{Type: TypeM}, 3},
		{Value{Type: TypeM, M: map[string]Value{"key": {Type: TypeS, S: "ab"}, "é": {Type: TypeBOOL}}}, 3 + (1 + 3 + 2) + (1 + 2 + 1)},
		{Value{}, 0},
	}
	for _, tt := range tests {
		if got := Size(tt.v); got != tt.want {
			t.Errorf("Size(%s) = %d, want %d", AppendJSON(nil, tt.v), got, tt.want)
		}
	}
	it := Item{"pk": {Type: TypeS, S: "abc"}, "n": n("123"), "é": {Type: TypeNULL}}
	if got := ItemSize(it); got != (2+3)+(1+3)+(2+1) {
		t.Errorf("ItemSize = %d", got)
	}
}

func TestEqualAndCompare(t *testing.T) {
	n := func(s string) Value { return Value{Type: TypeN, S: s} }
	s := func(x string) Value { return Value{Type: TypeS, S: x} }
	eq := [][2]Value{
		{n("1"), n("1.0")}, {n("1"), n("1e0")}, {s("a"), s("a")}, {{Type: TypeNULL}, {Type: TypeNULL, Bool: true}},
		{{Type: TypeSS, Set: []string{"a", "b"}}, {Type: TypeSS, Set: []string{"b", "a"}}},
		{{Type: TypeNS, Set: []string{"1", "2.0"}}, {Type: TypeNS, Set: []string{"2", "1e0"}}},
		{{Type: TypeL, L: []Value{n("1"), s("x")}}, {Type: TypeL, L: []Value{n("1.00"), s("x")}}},
		{{Type: TypeM, M: map[string]Value{"a": n("5")}}, {Type: TypeM, M: map[string]Value{"a": n("5.0")}}},
		{{Type: TypeBOOL, Bool: true}, {Type: TypeBOOL, Bool: true}},
	}
	for _, p := range eq {
		if !Equal(p[0], p[1]) || !Equal(p[1], p[0]) {
			t.Errorf("Equal(%s, %s) = false", AppendJSON(nil, p[0]), AppendJSON(nil, p[1]))
		}
	}
	ne := [][2]Value{
		{n("1"), s("1")}, {s("a"), s("b")}, {{Type: TypeB, S: "a"}, s("a")},
		{{Type: TypeSS, Set: []string{"a", "b"}}, {Type: TypeSS, Set: []string{"a", "c"}}},
		{{Type: TypeSS, Set: []string{"a"}}, {Type: TypeSS, Set: []string{"a", "b"}}},
		{{Type: TypeL, L: []Value{n("1")}}, {Type: TypeL, L: []Value{n("1"), n("1")}}},
		{{Type: TypeL, L: []Value{n("1"), n("2")}}, {Type: TypeL, L: []Value{n("2"), n("1")}}},
		{{Type: TypeM, M: map[string]Value{"a": n("5")}}, {Type: TypeM, M: map[string]Value{"b": n("5")}}},
		{{Type: TypeBOOL, Bool: true}, {Type: TypeBOOL}}, {Value{}, Value{}},
	}
	for _, p := range ne {
		if Equal(p[0], p[1]) || Equal(p[1], p[0]) {
			t.Errorf("Equal(%s, %s) = true", AppendJSON(nil, p[0]), AppendJSON(nil, p[1]))
		}
	}
	cmp := []struct {
		a, b Value
		c    int
		ok   bool
	}{
		{s("a"), s("b"), -1, true}, {s("b"), s("a"), 1, true}, {s("a"), s("a"), 0, true},
		{s("Z"), s("a"), -1, true}, {s("é"), s("z"), 1, true}, // UTF-8 bytes
		{n("10"), n("9"), 1, true}, {n("-10"), n("9"), -1, true}, {n("1.0"), n("1"), 0, true},
		{Value{Type: TypeB, S: "\x01"}, Value{Type: TypeB, S: "\xff"}, -1, true},
		{s("1"), n("1"), 0, false}, {Value{Type: TypeBOOL}, Value{Type: TypeBOOL}, 0, false},
	}
	for _, tt := range cmp {
		c, ok := Compare(tt.a, tt.b)
		if c != tt.c || ok != tt.ok {
			t.Errorf("Compare(%s, %s) = %d, %v; want %d, %v", AppendJSON(nil, tt.a), AppendJSON(nil, tt.b), c, ok, tt.c, tt.ok)
		}
	}
}

func TestClone(t *testing.T) {
	it := sampleItem()
	c := it.Clone()
	if !EqualItems(it, c) {
		t.Fatal("clone differs")
	}
	c["tags"].Set[0] = "changed"
	c["list"].L[0] = Value{Type: TypeS, S: "changed"}
	c["map"].M["s"] = Value{Type: TypeS, S: "changed"}
	c["new"] = Value{Type: TypeNULL}
	if it["tags"].Set[0] != "a" || it["list"].L[0].S != "é" || it["map"].M["s"].S == "changed" || len(it) == len(c) {
		t.Fatal("clone shares memory with the original")
	}
	if Item(nil).Clone() != nil {
		t.Fatal("nil clone")
	}
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`{"S":"x"}`, `{"N":"1"}`, `{"B":"YQ=="}`, `{"SS":["a"]}`, `{"M":{"a":{"L":[{"NULL":true}]}}}`,
		`{"S":"a","N":"b"}`, `{"BOOL":"yes"}`, `{"S":"\u00e9\ud83d\ude00"}`, `{"NS":["1",null]}`, `[`, `{"B":"YR=="}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v Value
		if err := v.UnmarshalJSON(b); err != nil {
			var se *SerializationError
			if !errors.As(err, &se) {
				t.Fatalf("error type %T", err)
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		// Validation never panics and answers with a ValidationError.
		if err := ValidateValue(v); err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("validation error type %T", err)
			}
			return
		}
		_ = Size(v)
		// A valid value survives an encode/decode round trip.
		enc := AppendJSON(nil, v)
		var w Value
		if err := w.UnmarshalJSON(enc); err != nil {
			t.Fatalf("re-decode %s: %v", enc, err)
		}
		if !Equal(v, w) {
			t.Fatalf("round trip differs: %s vs %s", enc, AppendJSON(nil, w))
		}
	})
}
