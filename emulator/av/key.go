package av

import (
	"bytes"
	"errors"
)

// ErrMalformedKey is returned by DecodeKey for bytes AppendKey cannot have
// produced.
var ErrMalformedKey = errors.New("av: malformed key encoding")

// Number key encoding: a sign byte, then for non-zero numbers the exponent
// of the leading digit as one byte and the significant digits two per byte
// (10*d1 + d2 + 1, an odd last digit padded with 0), closed by a terminator
// lower than any digit byte. Negative numbers invert exponent and digit
// bytes and use a terminator higher than any, so more negative sorts first.
const (
	numNeg  = 0x01
	numZero = 0x02
	numPos  = 0x03
	negTerm = 0xFF
)

// AppendKey appends an order-preserving, prefix-free encoding of a key value
// (S, N or B) to dst: bytes.Compare on encodings agrees with Compare on
// values, and a concatenation pk||sk sorts by (pk, sk). Strings and binaries
// escape 0x00 as 0x00 0xFF and end with 0x00 0x01. Numbers must be valid
// (ValidateValue); other types append nothing.
func AppendKey(dst []byte, v Value) []byte {
	switch v.Type {
	case TypeS, TypeB:
		return appendEscaped(dst, v.S)
	case TypeN:
		x, _ := parseNumber(v.S)
		return appendNumberKey(dst, &x)
	}
	return dst
}

func appendEscaped(dst []byte, s string) []byte {
	for {
		i := indexZero(s)
		if i < 0 {
			dst = append(dst, s...)
			return append(dst, 0x00, 0x01)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0x00, 0xFF)
		s = s[i+1:]
	}
}

func indexZero(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

func appendNumberKey(dst []byte, x *number) []byte {
	if x.n == 0 {
		return append(dst, numZero)
	}
	e := byte(min(max(x.exp, MinExponent), MaxExponent) - MinExponent)
	d := x.digits()
	if !x.neg {
		dst = append(dst, numPos, e)
		for i := 0; i < len(d); i += 2 {
			dst = append(dst, pairByte(d, i))
		}
		return append(dst, 0x00)
	}
	dst = append(dst, numNeg, 0xFF-e)
	for i := 0; i < len(d); i += 2 {
		dst = append(dst, 101-pairByte(d, i))
	}
	return append(dst, negTerm)
}

// pairByte encodes digits d[i] and d[i+1] (0 past the end) as 1..100.
func pairByte(d string, i int) byte {
	b := (d[i] - '0') * 10
	if i+1 < len(d) {
		b += d[i+1] - '0'
	}
	return b + 1
}

// DecodeKey decodes one key value of type t (S, N or B) from the front of b
// and returns it with the bytes that follow it.
func DecodeKey(b []byte, t Type) (Value, []byte, error) {
	switch t {
	case TypeS, TypeB:
		s, rest, err := decodeEscaped(b)
		if err != nil {
			return Value{}, nil, err
		}
		return Value{Type: t, S: s}, rest, nil
	case TypeN:
		return decodeNumberKey(b)
	}
	return Value{}, nil, ErrMalformedKey
}

// SkipKey returns what follows the key element of type t at the start of
// b: DecodeKey's rest and error, without building the value (a partition
// bucket only needs to know where the partition key ends).
func SkipKey(b []byte, t Type) ([]byte, error) {
	switch t {
	case TypeS, TypeB:
		return skipEscaped(b)
	case TypeN:
		_, rest, err := decodeNumberKey(b)
		return rest, err
	}
	return nil, ErrMalformedKey
}

// skipEscaped is decodeEscaped's rest and error.
func skipEscaped(b []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 || i+1 >= len(b) {
			return nil, ErrMalformedKey
		}
		switch b[i+1] {
		case 0x01:
			return b[i+2:], nil
		case 0xFF:
			b = b[i+2:]
		default:
			return nil, ErrMalformedKey
		}
	}
}

func decodeEscaped(b []byte) (string, []byte, error) {
	i := bytes.IndexByte(b, 0)
	if i < 0 || i+1 >= len(b) {
		return "", nil, ErrMalformedKey
	}
	if b[i+1] == 0x01 {
		// Fast path: nothing escaped.
		return string(b[:i]), b[i+2:], nil
	}
	var out []byte
	for {
		if i < 0 || i+1 >= len(b) {
			return "", nil, ErrMalformedKey
		}
		out = append(out, b[:i]...)
		switch b[i+1] {
		case 0x01:
			return string(out), b[i+2:], nil
		case 0xFF:
			out = append(out, 0)
			b = b[i+2:]
			i = bytes.IndexByte(b, 0)
		default:
			return "", nil, ErrMalformedKey
		}
	}
}

func decodeNumberKey(b []byte) (Value, []byte, error) {
	if len(b) == 0 {
		return Value{}, nil, ErrMalformedKey
	}
	switch b[0] {
	case numZero:
		return Value{Type: TypeN, S: "0"}, b[1:], nil
	case numPos, numNeg:
	default:
		return Value{}, nil, ErrMalformedKey
	}
	if len(b) < 2 {
		return Value{}, nil, ErrMalformedKey
	}
	var x number
	x.neg = b[0] == numNeg
	e := b[1]
	if x.neg {
		e = 0xFF - e
	}
	x.exp = int(e) + MinExponent
	if x.exp > MaxExponent {
		return Value{}, nil, ErrMalformedKey
	}
	term := byte(0x00)
	if x.neg {
		term = negTerm
	}
	i := 2
	for ; i < len(b) && b[i] != term; i++ {
		p := b[i]
		if x.neg {
			p = 101 - p
		}
		if p < 1 || p > 100 || x.n+2 > MaxDigits {
			return Value{}, nil, ErrMalformedKey
		}
		p--
		x.dig[x.n], x.dig[x.n+1] = '0'+p/10, '0'+p%10
		x.n += 2
	}
	if i >= len(b) {
		return Value{}, nil, ErrMalformedKey
	}
	if x.n > 0 && x.dig[x.n-1] == '0' {
		x.n-- // the pad of an odd digit count
	}
	// A canonical encoding starts with a non-zero digit and never ends with
	// a zero digit.
	if x.n == 0 || x.dig[0] == '0' || x.dig[x.n-1] == '0' {
		return Value{}, nil, ErrMalformedKey
	}
	var buf [200]byte
	return Value{Type: TypeN, S: string(x.appendCanonical(buf[:0]))}, b[i+1:], nil
}
