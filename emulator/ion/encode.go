package ion

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/emulator/av"
)

// AppendItemLine appends "$ion_1_0 {Item:{…}}" for it (no newline).
func AppendItemLine(dst []byte, it av.Item) []byte {
	dst = append(dst, "$ion_1_0 {Item:"...)
	dst = appendStruct(dst, it)
	return append(dst, '}')
}

// Part is one member of a record line: a name and the item it holds.
type Part struct {
	Name string
	Item av.Item
}

// AppendRecordLine appends "$ion_1_0 {Name:{…},…}" for parts, in their
// order (an incremental export's Metadata, Keys, NewImage, OldImage).
func AppendRecordLine(dst []byte, parts []Part) []byte {
	dst = append(dst, "$ion_1_0 {"...)
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendSymbol(dst, p.Name)
		dst = append(dst, ':')
		dst = appendStruct(dst, p.Item)
	}
	return append(dst, '}')
}

func appendStruct(dst []byte, m map[string]av.Value) []byte {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	dst = append(dst, '{')
	for i, k := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendSymbol(dst, k)
		dst = append(dst, ':')
		dst = AppendValue(dst, m[k])
	}
	return append(dst, '}')
}

// AppendValue appends v's Ion text.
func AppendValue(dst []byte, v av.Value) []byte {
	switch v.Type {
	case av.TypeS:
		return appendString(dst, v.S)
	case av.TypeN:
		return AppendDecimal(dst, v.S)
	case av.TypeB:
		return appendBlob(dst, v.S)
	case av.TypeBOOL:
		return strconv.AppendBool(dst, v.Bool)
	case av.TypeNULL:
		return append(dst, "null"...)
	case av.TypeSS, av.TypeNS, av.TypeBS:
		dst = append(dst, "$dynamodb_"...)
		dst = append(dst, v.Type.String()...)
		dst = append(dst, "::["...)
		for i, s := range v.Set {
			if i > 0 {
				dst = append(dst, ',')
			}
			switch v.Type {
			case av.TypeSS:
				dst = appendString(dst, s)
			case av.TypeNS:
				dst = AppendDecimal(dst, s)
			default:
				dst = appendBlob(dst, s)
			}
		}
		return append(dst, ']')
	case av.TypeL:
		dst = append(dst, '[')
		for i, e := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValue(dst, e)
		}
		return append(dst, ']')
	case av.TypeM:
		return appendStruct(dst, v.M)
	}
	return append(dst, "null"...)
}

// AppendDecimal appends DynamoDB number text n as an Ion decimal: an
// integer gets a trailing '.', an exponent is written with 'd' (1.5E3 →
// 1.5d3), so a reader never takes it for an Ion int or float.
func AppendDecimal(dst []byte, n string) []byte {
	mant, exp, hasExp := strings.Cut(strings.ToLower(n), "e")
	dst = append(dst, mant...)
	if hasExp {
		dst = append(dst, 'd')
		return append(dst, strings.TrimPrefix(exp, "+")...)
	}
	if !strings.Contains(mant, ".") {
		dst = append(dst, '.')
	}
	return dst
}

func appendBlob(dst []byte, b string) []byte {
	dst = append(dst, "{{"...)
	dst = base64.StdEncoding.AppendEncode(dst, []byte(b))
	return append(dst, "}}"...)
}

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s, '"')
	return append(dst, '"')
}

func appendEscaped(dst []byte, s string, quote byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == quote || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'x', hexDigit(c>>4), hexDigit(c&15))
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return dst
}

func hexDigit(b byte) byte { return "0123456789abcdef"[b] }

// appendSymbol writes a field name bare when Ion allows it, else quoted.
func appendSymbol(dst []byte, s string) []byte {
	if isIdentifier(s) {
		return append(dst, s...)
	}
	dst = append(dst, '\'')
	dst = appendEscaped(dst, s, '\'')
	return append(dst, '\'')
}

// isIdentifier: [A-Za-z_][A-Za-z0-9_$]*, not a keyword. '$' first is left
// quoted: $10 would be a symbol ID.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	switch s {
	case "null", "true", "false", "nan":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '$')) {
			return false
		}
	}
	return true
}
