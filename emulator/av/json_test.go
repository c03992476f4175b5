package av

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUnmarshalValid(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{`{"S":"x"}`, Value{Type: TypeS, S: "x"}},
		{`{"S":""}`, Value{Type: TypeS, S: ""}},
		{`{"S":"a\"b\\c\n\u00e9\ud83d\ude00"}`, Value{Type: TypeS, S: "a\"b\\c\né😀"}},
		{`{"S":"\ud800"}`, Value{Type: TypeS, S: "\uFFFD"}},
		{`{"N":"1.5"}`, Value{Type: TypeN, S: "1.5"}},
		{`{"B":"aGVsbG8="}`, Value{Type: TypeB, S: "hello"}},
		{`{"B":""}`, Value{Type: TypeB, S: ""}},
		{`{"SS":["a","b"]}`, Value{Type: TypeSS, Set: []string{"a", "b"}}},
		{`{"NS":["1","2"]}`, Value{Type: TypeNS, Set: []string{"1", "2"}}},
		{`{"BS":["YQ==","Yg=="]}`, Value{Type: TypeBS, Set: []string{"a", "b"}}},
		{`{"M":{"a":{"S":"x"},"b":{"NULL":true}}}`, Value{Type: TypeM, M: map[string]Value{"a": {Type: TypeS, S: "x"}, "b": {Type: TypeNULL, Bool: true}}}},
		{`{"M":{}}`, Value{Type: TypeM, M: map[string]Value{}}},
		{`{"L":[{"N":"1"},{"BOOL":false}]}`, Value{Type: TypeL, L: []Value{{Type: TypeN, S: "1"}, {Type: TypeBOOL}}}},
		{`{"L":[]}`, Value{Type: TypeL, L: []Value{}}},
		{`{"NULL":true}`, Value{Type: TypeNULL, Bool: true}},
		{`{"BOOL":false}`, Value{Type: TypeBOOL, Bool: false}},
		{`{"BOOL":true}`, Value{Type: TypeBOOL, Bool: true}},
		// DynamoDB coerces these strings to Boolean.
		{`{"BOOL":"yes"}`, Value{Type: TypeBOOL, Bool: true}},
		{`{"BOOL":"False"}`, Value{Type: TypeBOOL, Bool: false}},
		{`{"NULL":"1"}`, Value{Type: TypeNULL, Bool: true}},
		// null members are absent; unknown members are ignored.
		{` { "S" : "x" , "N" : null, "Z": {"deep":[1,2,{"x":null}]} } `, Value{Type: TypeS, S: "x"}},
		{`null`, Value{}},
		{`{}`, Value{}},
		{`{"a":""}`, Value{}},
		{`{"S":null}`, Value{}},
	}
	for _, tt := range tests {
		var v Value
		if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if !deepEqual(v, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.in, v, tt.want)
		}
	}
}

// deepEqual is exact structural equality (unlike Equal, which compares
// numbers by value).
func deepEqual(a, b Value) bool {
	if a.Type != b.Type || a.S != b.S || a.Bool != b.Bool || a.Invalid != b.Invalid ||
		len(a.Set) != len(b.Set) || len(a.L) != len(b.L) || len(a.M) != len(b.M) ||
		(a.Set == nil) != (b.Set == nil) || (a.L == nil) != (b.L == nil) || (a.M == nil) != (b.M == nil) {
		return false
	}
	for i := range a.Set {
		if a.Set[i] != b.Set[i] {
			return false
		}
	}
	for i := range a.L {
		if !deepEqual(a.L[i], b.L[i]) {
			return false
		}
	}
	for k, v := range a.M {
		w, ok := b.M[k]
		if !ok || !deepEqual(v, w) {
			return false
		}
	}
	return true
}

// Shapes DynamoDB rejects with ValidationException decode, and ValidateValue
// reports DynamoDB's message for them.
func TestUnmarshalInvalidThenValidate(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`{}`, msgEmptyAV},
		{`{"a":""}`, msgEmptyAV},
		{`{"M":{"a":{}}}`, msgEmptyAV},
		{`{"L":[{}]}`, msgEmptyAV},
		{`{"L":[{"a":{}}]}`, msgEmptyAV},
		{`{"L":[null]}`, msgEmptyAV},
		{`{"S":"a","N":"1"}`, msgMultipleTypes},
		{`{"NULL":false}`, msgNullNotTrue},
		{`{"NULL":"no"}`, msgNullNotTrue},
		{`{"SS":[]}`, msgEmptySS},
		{`{"NS":[]}`, msgEmptyNS},
		{`{"BS":[]}`, msgEmptyBS},
		{`{"SS":["a","a"]}`, "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{`{"BS":["Yg==","Yg=="]}`, "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates."},
		{`{"NS":["1","1"]}`, msgNSDuplicates},
		{`{"NS":["1","1.0"]}`, msgNSDuplicates},
		{`{"NS":["1",""]}`, msgNotNumber},
		{`{"NS":["1","b"]}`, msgNotNumber + ": b"},
		{`{"NS":["1",null]}`, msgNotNumber},
		{`{"SS":["a",null]}`, msgNullInSS},
		{`{"BS":["YQ==",null]}`, msgNullInBS},
		// DynamoDB checks each member before "more than one datatypes".
		{`{"S":"","N":""}`, msgNotNumber},
		{`{"S":"a","N":""}`, msgNotNumber},
		{`{"S":"a","N":"b"}`, msgNotNumber + ": b"},
		{`{"N":"b","S":"a"}`, msgNotNumber + ": b"},
		{`{"S":"a","NULL":false}`, msgNullNotTrue},
		{`{"SS":[],"S":"a"}`, msgEmptySS},
		{`{"N":"1","M":{"x":{}}}`, msgEmptyAV},
		{`{"N":"1","BOOL":true}`, msgMultipleTypes},
		{`{"N":"123456789012345678901234567890123456789"}`, msgTooManyDigits},
		{`{"N":"-1.23456789012345678901234567890123456789"}`, msgTooManyDigits},
		{`{"N":"1e126"}`, msgOverflow},
		{`{"N":"-1e126"}`, msgOverflow},
		{`{"N":"1e-131"}`, msgUnderflow},
		{`{"N":"-1e-131"}`, msgUnderflow},
		{`{"M":{"a":{"S":"x"},"b":{"NULL":false}}}`, msgNullNotTrue},
	}
	for _, tt := range tests {
		var v Value
		if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
			t.Errorf("%s: decode error %v", tt.in, err)
			continue
		}
		err := ValidateValue(v)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: got %v, want ValidationError %q", tt.in, err, tt.msg)
			continue
		}
		if ve.Message != tt.msg {
			t.Errorf("%s:\n got %q\nwant %q", tt.in, ve.Message, tt.msg)
		}
	}
}

func TestUnmarshalSerializationErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`{"S":1}`, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{`{"S":true}`, "class java.lang.Boolean can not be converted to an String"},
		{`{"S":{}}`, "Start of structure or map found where not expected."},
		{`{"S":[]}`, "Start of list found where not expected"},
		{`{"N":1.5}`, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{`{"B":false}`, "class java.lang.Boolean can not be converted to a Blob"},
		{`{"B":12}`, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to a Blob"},
		{`{"B":"abc"}`, "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
		{`{"B":"ab!d"}`, "'ab!d' can not be converted to a Blob: Invalid Base64 character: '!'"},
		{`{"B":"a=cd"}`, "'a=cd' can not be converted to a Blob: Invalid Base64 character: '='"},
		{`{"B":"YR=="}`, "'YR==' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"},
		{`{"B":"===="}`, "'====' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"},
		{`{"BOOL":1}`, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an Boolean"},
		{`{"BOOL":"maybe"}`, "'MAYBE' can not be converted to an Boolean"},
		{`{"NULL":[]}`, "Start of list found where not expected"},
		{`{"SS":"a"}`, "Expected list or null"},
		{`{"SS":{}}`, "Start of structure or map found where not expected."},
		{`{"SS":[1]}`, "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String"},
		{`{"BS":["abc"]}`, "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
		{`{"L":true}`, "Expected list or null"},
		{`{"L":[1]}`, "Expected null"},
		{`{"L":[[]]}`, "Start of list found where not expected"},
		{`{"M":"x"}`, "Expected map or null"},
		{`{"M":[]}`, "Start of list found where not expected"},
		{`{"M":{"a":"x"}}`, "Expected null"},
		{`"x"`, "Expected null"},
		{`[]`, "Start of list found where not expected"},
	}
	for _, tt := range tests {
		var v Value
		err := v.UnmarshalJSON([]byte(tt.in))
		var se *SerializationError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want SerializationError", tt.in, err)
			continue
		}
		if se.Message != tt.msg {
			t.Errorf("%s:\n got %q\nwant %q", tt.in, se.Message, tt.msg)
		}
		// encoding/json hands the error back unchanged.
		if err := json.Unmarshal([]byte(`{"a":`+tt.in+`}`), new(Item)); !errors.As(err, &se) {
			t.Errorf("%s via encoding/json: %v", tt.in, err)
		}
	}
}

func TestUnmarshalSyntaxErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"S"`, `{"S":"x"`, `{"S":"x",}`, `{"S" "x"}`, `{"S":"x"}}`, `{"S":"\x"}`, `{"S":"\u12"}`,
		`{"L":[{"S":"x"},]}`, `{"L":[`, `{"M":{"a":}}`, `{"Z":01}`, `{"Z":-}`, `{"Z":1.}`, `{"Z":tru}`, "{\"S\":\"a\x01\"}"} {
		var v Value
		err := v.UnmarshalJSON([]byte(in))
		var se *SerializationError
		if !errors.As(err, &se) {
			t.Errorf("%q: got %v, want SerializationError", in, err)
		}
	}
}

func TestMarshal(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{Value{Type: TypeS, S: "x\"\\\n\x01<\u2028"}, `{"S":"x\"\\\n\u0001<\u2028"}`},
		{Value{Type: TypeS, S: "\xff"}, `{"S":"\ufffd"}`},
		{Value{Type: TypeN, S: "1.5"}, `{"N":"1.5"}`},
		{Value{Type: TypeB, S: "hello"}, `{"B":"aGVsbG8="}`},
		{Value{Type: TypeSS, Set: []string{"a", "b"}}, `{"SS":["a","b"]}`},
		{Value{Type: TypeNS, Set: []string{"1"}}, `{"NS":["1"]}`},
		{Value{Type: TypeBS, Set: []string{"a", "b"}}, `{"BS":["YQ==","Yg=="]}`},
		{Value{Type: TypeL, L: []Value{{Type: TypeNULL, Bool: true}, {Type: TypeBOOL}}}, `{"L":[{"NULL":true},{"BOOL":false}]}`},
		{Value{Type: TypeL}, `{"L":[]}`},
		{Value{Type: TypeM, M: map[string]Value{"b": {Type: TypeBOOL, Bool: true}, "a": {Type: TypeS, S: "x"}}}, `{"M":{"a":{"S":"x"},"b":{"BOOL":true}}}`},
		{Value{Type: TypeM}, `{"M":{}}`},
		{Value{}, `{}`},
	}
	for _, tt := range tests {
		got := string(AppendJSON(nil, tt.v))
		if got != tt.want {
			t.Errorf("AppendJSON(%#v):\n got %s\nwant %s", tt.v, got, tt.want)
		}
	}
}

// The engine's API structs use av.Item and av.Value with encoding/json.
func TestEncodingJSONIntegration(t *testing.T) {
	type req struct {
		Item   Item             `json:"Item,omitempty"`
		Values map[string]Value `json:"Values,omitempty"`
		Ptr    *Value           `json:"Ptr,omitempty"`
		List   []Item           `json:"List"`
	}
	in := `{"Item":{"pk":{"S":"a"},"n":{"N":"1"}},"Values":{":v":{"SS":["x"]}},"Ptr":{"BOOL":true},"List":[{"a":{"NULL":true}},null]}`
	var r req
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.Item["pk"].S != "a" || r.Values[":v"].Set[0] != "x" || !r.Ptr.Bool || r.List[0]["a"].Type != TypeNULL || r.List[1] != nil {
		t.Fatalf("decoded %#v", r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Item":{"n":{"N":"1"},"pk":{"S":"a"}},"Values":{":v":{"SS":["x"]}},"Ptr":{"BOOL":true},"List":[{"a":{"NULL":true}},null]}`
	if string(out) != want {
		t.Fatalf("Marshal:\n got %s\nwant %s", out, want)
	}
}

func TestItemJSONRoundTrip(t *testing.T) {
	it := sampleItem()
	b := AppendItemJSON(nil, it)
	got, err := DecodeItemJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	if !EqualItems(it, got) {
		t.Fatalf("round trip:\n%s\n%s", b, AppendItemJSON(nil, got))
	}
	if b2 := AppendItemJSON(nil, got); string(b2) != string(b) {
		t.Fatalf("re-encoding differs:\n%s\n%s", b, b2)
	}
}

func sampleItem() Item {
	return Item{
		"pk":    {Type: TypeS, S: "user#123"},
		"sk":    {Type: TypeN, S: "42"},
		"bin":   {Type: TypeB, S: "\x00\x01\xff"},
		"tags":  {Type: TypeSS, Set: []string{"a", "b", "c"}},
		"nums":  {Type: TypeNS, Set: []string{"1", "-2.5", "1000"}},
		"blobs": {Type: TypeBS, Set: []string{"x", "y"}},
		"ok":    {Type: TypeBOOL, Bool: true},
		"none":  {Type: TypeNULL, Bool: true},
		"list":  {Type: TypeL, L: []Value{{Type: TypeS, S: "é"}, {Type: TypeN, S: "0.001"}, {Type: TypeL, L: []Value{}}}},
		"map": {Type: TypeM, M: map[string]Value{
			"inner": {Type: TypeM, M: map[string]Value{"deep": {Type: TypeBOOL}}},
			"s":     {Type: TypeS, S: "quote\" and \\ and \n"},
		}},
	}
}

// The hand-written string decoder agrees with encoding/json.
func FuzzJSONStringDifferential(f *testing.F) {
	for _, s := range []string{`abc`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\ud800\u0041`, `\udc00\ud800`, "\xff", `\n\t\/\b\f\r\"\\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc := []byte(`{"S":"` + string(raw) + `"}`)
		var ref struct{ S string }
		refErr := json.Unmarshal(doc, &ref)
		var v Value
		err := v.UnmarshalJSON(doc)
		if (refErr == nil) != (err == nil) {
			t.Fatalf("%q: encoding/json err %v, ours %v", doc, refErr, err)
		}
		if err == nil && v.S != ref.S {
			t.Fatalf("%q: encoding/json %q, ours %q", doc, ref.S, v.S)
		}
	})
}

func TestTypeByName(t *testing.T) {
	for ty := TypeS; ty <= TypeBOOL; ty++ {
		if got := TypeByName(ty.String()); got != ty {
			t.Errorf("TypeByName(%q) = %v", ty.String(), got)
		}
	}
	for _, s := range []string{"", "s", "Bool", "X"} {
		if TypeByName(s) != TypeInvalid {
			t.Errorf("TypeByName(%q) valid", s)
		}
	}
}

// PlainStringPrefix never passes a byte a JSON string decoder must look
// at, and stops only at word boundaries.
func FuzzPlainStringPrefix(f *testing.F) {
	for _, s := range []string{"", "abcdefgh", "abc\"efgh", "abc\\efgh", "abc\x01efgh", "abc\xffefgh", "abcdefghijklmnop\"", "abc\\defghijklmn", "abcdefg\x1f", "abcdefgh\xc3\xa9", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f!"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := PlainStringPrefix(b)
		if n%8 != 0 || n > len(b) {
			t.Fatalf("PlainStringPrefix(%q) = %d", b, n)
		}
		for i, c := range b[:n] {
			if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				t.Fatalf("PlainStringPrefix(%q) = %d passes byte %d (%#x)", b, n, i, c)
			}
		}
		// A word of plain bytes is never refused.
		if len(b)-n >= 8 {
			plain := true
			for _, c := range b[n : n+8] {
				plain = plain && c != '"' && c != '\\' && c >= 0x20 && c < 0x80
			}
			if plain {
				t.Fatalf("PlainStringPrefix(%q) = %d stops before a plain word", b, n)
			}
		}
	})
}

// appendStringBytewise is appendString before its word-at-a-time skip: the
// reference the faster one must match byte for byte.
func appendStringBytewise(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// The string encoder writes what the byte-at-a-time one wrote, and
// encoding/json reads it back as the string (each invalid UTF-8 byte as
// U+FFFD, as encoding/json itself writes it).
func FuzzAppendStringMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "plain ascii text longer than a word", "quote\" in the middle of words", "back\\slash and \n\t\r\b\f\x00\x1f",
		"é ü 😀 mixed with ascii words", "\u2028\u2029 separators", "bad \xff\xfe utf8 \xc3", strings.Repeat("x", 1000),
		"abcdefgh\"ijklmnop", "abcdefgh\nij", "abcdefgh\xffij", "abcdefgh\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		if want := appendStringBytewise(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, byte at a time %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("encoding/json cannot read %s: %v", got, err)
		}
		var want []rune
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			want = append(want, r)
			i += size
		}
		if back != string(want) {
			t.Fatalf("appendString(%q) reads back as %q", s, back)
		}
	})
}
