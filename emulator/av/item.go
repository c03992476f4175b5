package av

import (
	"encoding/binary"
	"errors"
	"slices"
)

// itemFormat is the first byte of every encoded item, so the stored format
// can evolve without guessing.
const itemFormat = 0x01

// ErrMalformedItem is returned by DecodeItem for bytes AppendItem cannot
// have produced.
var ErrMalformedItem = errors.New("av: malformed item encoding")

// AppendItem appends the compact binary form of it to dst: a format byte, the
// attribute count, then name and value per attribute in name order (so equal
// items encode to equal bytes). A value is its type byte followed by
// length-prefixed payloads; numbers are stored in canonical text.
func AppendItem(dst []byte, it Item) []byte {
	dst = append(dst, itemFormat)
	return appendMap(dst, it)
}

func appendMap(dst []byte, m map[string]Value) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(m)))
	switch len(m) {
	case 0:
		return dst
	case 1:
		for k, v := range m {
			dst = appendBytes(dst, k)
			dst = appendValue(dst, v)
		}
		return dst
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = appendBytes(dst, k)
		dst = appendValue(dst, m[k])
	}
	return dst
}

func appendBytes(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendValue(dst []byte, v Value) []byte {
	dst = append(dst, byte(v.Type))
	switch v.Type {
	case TypeS, TypeB:
		dst = appendBytes(dst, v.S)
	case TypeN:
		dst = appendBytes(dst, canonicalOrRaw(v.S))
	case TypeSS, TypeBS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Set)))
		for _, s := range v.Set {
			dst = appendBytes(dst, s)
		}
	case TypeNS:
		dst = binary.AppendUvarint(dst, uint64(len(v.Set)))
		for _, s := range v.Set {
			dst = appendBytes(dst, canonicalOrRaw(s))
		}
	case TypeL:
		dst = binary.AppendUvarint(dst, uint64(len(v.L)))
		for _, e := range v.L {
			dst = appendValue(dst, e)
		}
	case TypeM:
		dst = appendMap(dst, v.M)
	case TypeBOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case TypeNULL:
	default:
		dst = appendBytes(dst, v.Invalid)
	}
	return dst
}

func canonicalOrRaw(s string) string {
	if c, err := CanonicalNumber(s); err == nil {
		return c
	}
	return s
}

// DecodeItem decodes bytes written by AppendItem. Strings in the result share
// one allocation holding a copy of b, so b may be reused afterwards.
func DecodeItem(b []byte) (Item, error) {
	if len(b) == 0 || b[0] != itemFormat {
		return nil, ErrMalformedItem
	}
	r := itemReader{s: string(b[1:])}
	m, err := r.readMap(0)
	if err != nil {
		return nil, err
	}
	if r.i != len(r.s) {
		return nil, ErrMalformedItem
	}
	return m, nil
}

type itemReader struct {
	s string
	i int
}

func (r *itemReader) uvarint() (int, error) {
	var x uint64
	var shift uint
	for j := 0; j < binary.MaxVarintLen64; j++ {
		if r.i >= len(r.s) {
			return 0, ErrMalformedItem
		}
		c := r.s[r.i]
		r.i++
		if c < 0x80 {
			x |= uint64(c) << shift
			// Any count or length is bounded by the bytes that remain.
			if x > uint64(len(r.s)-r.i) {
				return 0, ErrMalformedItem
			}
			return int(x), nil
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, ErrMalformedItem
}

func (r *itemReader) bytes() (string, error) {
	n, err := r.uvarint()
	if err != nil {
		return "", err
	}
	s := r.s[r.i : r.i+n]
	r.i += n
	return s, nil
}

func (r *itemReader) readMap(depth int) (map[string]Value, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	m := make(map[string]Value, n)
	for range n {
		k, err := r.bytes()
		if err != nil {
			return nil, err
		}
		v, err := r.readValue(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, nil
}

func (r *itemReader) readValue(depth int) (Value, error) {
	if depth > maxJSONDepth || r.i >= len(r.s) {
		return Value{}, ErrMalformedItem
	}
	t := Type(r.s[r.i])
	r.i++
	v := Value{Type: t}
	var err error
	switch t {
	case TypeS, TypeB, TypeN:
		v.S, err = r.bytes()
	case TypeSS, TypeNS, TypeBS:
		var n int
		if n, err = r.uvarint(); err != nil {
			return Value{}, err
		}
		v.Set = make([]string, n)
		for i := range v.Set {
			if v.Set[i], err = r.bytes(); err != nil {
				return Value{}, err
			}
		}
	case TypeL:
		var n int
		if n, err = r.uvarint(); err != nil {
			return Value{}, err
		}
		v.L = make([]Value, n)
		for i := range v.L {
			if v.L[i], err = r.readValue(depth + 1); err != nil {
				return Value{}, err
			}
		}
	case TypeM:
		v.M, err = r.readMap(depth)
	case TypeBOOL:
		if r.i >= len(r.s) || r.s[r.i] > 1 {
			return Value{}, ErrMalformedItem
		}
		v.Bool = r.s[r.i] == 1
		r.i++
	case TypeNULL:
		v.Bool = true
	case TypeInvalid:
		v.Invalid, err = r.bytes()
	default:
		return Value{}, ErrMalformedItem
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}
