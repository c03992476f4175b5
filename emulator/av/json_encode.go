package av

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"
)

// AppendJSON appends v's wire form to dst.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.Type {
	case TypeS:
		dst = append(dst, `{"S":`...)
		dst = appendString(dst, v.S)
	case TypeN:
		dst = append(dst, `{"N":`...)
		dst = appendString(dst, v.S)
	case TypeB:
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, unsafeBytes(v.S))
		dst = append(dst, '"')
	case TypeSS, TypeNS:
		if v.Type == TypeSS {
			dst = append(dst, `{"SS":[`...)
		} else {
			dst = append(dst, `{"NS":[`...)
		}
		for i, s := range v.Set {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		dst = append(dst, ']')
	case TypeBS:
		dst = append(dst, `{"BS":[`...)
		for i, s := range v.Set {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, unsafeBytes(s))
			dst = append(dst, '"')
		}
		dst = append(dst, ']')
	case TypeL:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, e)
		}
		dst = append(dst, ']')
	case TypeM:
		dst = append(dst, `{"M":`...)
		dst = AppendItemJSON(dst, Item(v.M))
	case TypeNULL:
		return append(dst, `{"NULL":true}`...)
	case TypeBOOL:
		if v.Bool {
			return append(dst, `{"BOOL":true}`...)
		}
		return append(dst, `{"BOOL":false}`...)
	default:
		// An invalid value never reaches a response; {} keeps output valid JSON.
		return append(dst, "{}"...)
	}
	return append(dst, '}')
}

// AppendItemJSON appends it as a JSON object with its names sorted, so equal
// items encode to equal bytes.
func AppendItemJSON(dst []byte, it Item) []byte {
	dst = append(dst, '{')
	switch len(it) {
	case 0:
	case 1:
		for k, v := range it {
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = AppendJSON(dst, v)
		}
	default:
		var buf [16]string
		keys := buf[:0]
		for k := range it {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = AppendJSON(dst, it[k])
		}
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped as AppendItemJSON
// escapes names (for encoders that write the members around items).
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string: like encoding/json without HTML
// escaping (invalid UTF-8 becomes U+FFFD, U+2028/2029 are escaped).
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Whole words that need no escape at a time: item values are
		// mostly plain ASCII.
		if n := PlainStringPrefix(unsafeBytes(s[i:])); n > 0 {
			i += n
			continue
		}
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
