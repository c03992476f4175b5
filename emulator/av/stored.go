package av

import (
	"encoding/base64"
	"unsafe"
)

// The functions here read an item in its stored form (AppendItem's bytes)
// without building an Item: a read that returns the whole item can size it
// and write its JSON straight from the bytes the store gave it.

// storedReader reads b (AppendItem's output) without copying it; nothing
// read from it may outlive b.
func storedReader(b []byte) (itemReader, error) {
	if len(b) < 2 || b[0] != itemFormat {
		return itemReader{}, ErrMalformedItem
	}
	return itemReader{s: unsafe.String(&b[1], len(b)-1)}, nil
}

// AppendStoredItemJSON appends the JSON wire form of the item stored in b:
// exactly what AppendItemJSON appends for DecodeItem(b).
func AppendStoredItemJSON(dst, b []byte) ([]byte, error) {
	r, err := storedReader(b)
	if err != nil {
		return dst, err
	}
	if dst, err = r.appendMapJSON(dst, 0); err != nil {
		return dst, err
	}
	if r.i != len(r.s) {
		return dst, ErrMalformedItem
	}
	return dst, nil
}

// StoredItemSize is ItemSize(DecodeItem(b)).
func StoredItemSize(b []byte) (int, error) {
	r, err := storedReader(b)
	if err != nil {
		return 0, err
	}
	n, err := r.mapSize(0, false)
	if err != nil {
		return 0, err
	}
	if r.i != len(r.s) {
		return 0, ErrMalformedItem
	}
	return n, nil
}

func (r *itemReader) appendMapJSON(dst []byte, depth int) ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		k, err := r.bytes()
		if err != nil {
			return dst, err
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		if dst, err = r.appendValueJSON(dst, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendValueJSON mirrors AppendJSON over readValue's input.
func (r *itemReader) appendValueJSON(dst []byte, depth int) ([]byte, error) {
	if depth > maxJSONDepth || r.i >= len(r.s) {
		return dst, ErrMalformedItem
	}
	t := Type(r.s[r.i])
	r.i++
	switch t {
	case TypeS, TypeN:
		s, err := r.bytes()
		if err != nil {
			return dst, err
		}
		if t == TypeS {
			dst = append(dst, `{"S":`...)
		} else {
			dst = append(dst, `{"N":`...)
		}
		dst = appendString(dst, s)
	case TypeB:
		s, err := r.bytes()
		if err != nil {
			return dst, err
		}
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, unsafeBytes(s))
		dst = append(dst, '"')
	case TypeSS, TypeNS, TypeBS:
		n, err := r.uvarint()
		if err != nil {
			return dst, err
		}
		switch t {
		case TypeSS:
			dst = append(dst, `{"SS":[`...)
		case TypeNS:
			dst = append(dst, `{"NS":[`...)
		default:
			dst = append(dst, `{"BS":[`...)
		}
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			s, err := r.bytes()
			if err != nil {
				return dst, err
			}
			if t == TypeBS {
				dst = append(dst, '"')
				dst = base64.StdEncoding.AppendEncode(dst, unsafeBytes(s))
				dst = append(dst, '"')
			} else {
				dst = appendString(dst, s)
			}
		}
		dst = append(dst, ']')
	case TypeL:
		n, err := r.uvarint()
		if err != nil {
			return dst, err
		}
		dst = append(dst, `{"L":[`...)
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = r.appendValueJSON(dst, depth+1); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	case TypeM:
		dst = append(dst, `{"M":`...)
		var err error
		if dst, err = r.appendMapJSON(dst, depth); err != nil {
			return dst, err
		}
	case TypeBOOL:
		if r.i >= len(r.s) || r.s[r.i] > 1 {
			return dst, ErrMalformedItem
		}
		r.i++
		if r.s[r.i-1] == 1 {
			return append(dst, `{"BOOL":true}`...), nil
		}
		return append(dst, `{"BOOL":false}`...), nil
	case TypeNULL:
		return append(dst, `{"NULL":true}`...), nil
	case TypeInvalid:
		// As AppendJSON: an invalid value never reaches a response.
		if _, err := r.bytes(); err != nil {
			return dst, err
		}
		return append(dst, "{}"...), nil
	default:
		return dst, ErrMalformedItem
	}
	return append(dst, '}'), nil
}

// mapSize is ItemSize (nested false) or the Size of an M (nested true) of
// the map at r.
func (r *itemReader) mapSize(depth int, nested bool) (int, error) {
	n, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	size := 0
	if nested {
		size = 3
	}
	for range n {
		k, err := r.bytes()
		if err != nil {
			return 0, err
		}
		v, err := r.valueSize(depth + 1)
		if err != nil {
			return 0, err
		}
		size += len(k) + v
		if nested {
			size++
		}
	}
	return size, nil
}

// valueSize mirrors Size over readValue's input.
func (r *itemReader) valueSize(depth int) (int, error) {
	if depth > maxJSONDepth || r.i >= len(r.s) {
		return 0, ErrMalformedItem
	}
	t := Type(r.s[r.i])
	r.i++
	switch t {
	case TypeS, TypeB, TypeN, TypeInvalid:
		s, err := r.bytes()
		switch {
		case err != nil:
			return 0, err
		case t == TypeN:
			return numberSize(s), nil
		case t == TypeInvalid:
			return 0, nil
		}
		return len(s), nil
	case TypeSS, TypeNS, TypeBS:
		n, err := r.uvarint()
		if err != nil {
			return 0, err
		}
		size := 0
		for range n {
			s, err := r.bytes()
			if err != nil {
				return 0, err
			}
			if t == TypeNS {
				size += numberSize(s)
			} else {
				size += len(s)
			}
		}
		return size, nil
	case TypeL:
		n, err := r.uvarint()
		if err != nil {
			return 0, err
		}
		size := 3
		for range n {
			e, err := r.valueSize(depth + 1)
			if err != nil {
				return 0, err
			}
			size += 1 + e
		}
		return size, nil
	case TypeM:
		return r.mapSize(depth, true)
	case TypeBOOL:
		if r.i >= len(r.s) || r.s[r.i] > 1 {
			return 0, ErrMalformedItem
		}
		r.i++
		return 1, nil
	case TypeNULL:
		return 1, nil
	}
	return 0, ErrMalformedItem
}
