package ion

import (
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/emulator/av"
)

// maxDepth bounds nesting, as DynamoDB bounds an item's (32 levels).
const maxDepth = 64

// Decoder reads top-level Ion text values one by one.
type Decoder struct {
	s []byte
	i int
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{s: b} }

// Offset is how far the decoder has read.
func (d *Decoder) Offset() int { return d.i }

// Next returns the next top-level value as an AttributeValue, skipping Ion
// version markers; io.EOF at the end. After an error the rest of the input
// is not usable (the caller abandons it).
func (d *Decoder) Next() (av.Value, error) {
	for {
		if err := d.ws(); err != nil {
			return av.Value{}, err
		}
		if d.i >= len(d.s) {
			return av.Value{}, io.EOF
		}
		if d.s[d.i] == '$' && d.hasPrefix("$ion_1_0") && !d.symbolCharAt(d.i+len("$ion_1_0")) {
			d.i += len("$ion_1_0")
			continue
		}
		return d.value(0)
	}
}

func (d *Decoder) hasPrefix(p string) bool {
	return strings.HasPrefix(string(d.s[d.i:min(len(d.s), d.i+len(p))]), p)
}

func (d *Decoder) symbolCharAt(i int) bool {
	if i >= len(d.s) {
		return false
	}
	c := d.s[i]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$'
}

func (d *Decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("ion: at offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

// ws skips white space and comments.
func (d *Decoder) ws() error {
	for d.i < len(d.s) {
		switch c := d.s[d.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			d.i++
		case c == '/' && d.i+1 < len(d.s) && d.s[d.i+1] == '/':
			for d.i < len(d.s) && d.s[d.i] != '\n' {
				d.i++
			}
		case c == '/' && d.i+1 < len(d.s) && d.s[d.i+1] == '*':
			end := strings.Index(string(d.s[d.i+2:]), "*/")
			if end < 0 {
				return d.errorf("unterminated comment")
			}
			d.i += end + 4
		default:
			return nil
		}
	}
	return nil
}

func (d *Decoder) value(depth int) (av.Value, error) {
	if depth > maxDepth {
		return av.Value{}, d.errorf("nesting too deep")
	}
	if err := d.ws(); err != nil {
		return av.Value{}, err
	}
	var annot string
	// Annotations: symbol '::' (the last one is kept).
	for {
		save := d.i
		sym, ok, err := d.symbol()
		if err != nil {
			return av.Value{}, err
		}
		if !ok {
			break
		}
		if err := d.ws(); err != nil {
			return av.Value{}, err
		}
		if d.hasPrefix("::") {
			d.i += 2
			annot = sym
			if err := d.ws(); err != nil {
				return av.Value{}, err
			}
			continue
		}
		d.i = save
		break
	}
	if d.i >= len(d.s) {
		return av.Value{}, d.errorf("unexpected end of input")
	}
	switch c := d.s[d.i]; {
	case c == '{' && d.hasPrefix("{{"):
		b, err := d.blob()
		return av.Value{Type: av.TypeB, S: b}, err
	case c == '{':
		m, err := d.structure(depth)
		return av.Value{Type: av.TypeM, M: m}, err
	case c == '[':
		l, err := d.list(depth)
		if err != nil {
			return av.Value{}, err
		}
		if t, ok := setType(annot); ok {
			return toSet(t, l)
		}
		return av.Value{Type: av.TypeL, L: l}, nil
	case c == '"' || d.hasPrefix("'''"):
		s, err := d.str()
		return av.Value{Type: av.TypeS, S: s}, err
	case c == '-' || c == '+' || '0' <= c && c <= '9':
		n, err := d.number()
		return av.Value{Type: av.TypeN, S: n}, err
	}
	save := d.i
	sym, ok, err := d.symbol()
	if err != nil {
		return av.Value{}, err
	}
	if ok && d.s[save] != '\'' {
		switch {
		case sym == "true" || sym == "false":
			return av.Value{Type: av.TypeBOOL, Bool: sym == "true"}, nil
		case sym == "null" || strings.HasPrefix(sym, "null"):
			return av.Value{Type: av.TypeNULL, Bool: true}, nil
		case sym == "nan":
			return av.Value{}, d.errorf("nan is not a DynamoDB number")
		}
	}
	if ok {
		return av.Value{Type: av.TypeS, S: sym}, nil
	}
	return av.Value{}, d.errorf("unexpected %q", d.s[d.i])
}

// null.struct and friends: symbol() reads "null" then ".struct" here.
func setType(annot string) (av.Type, bool) {
	switch annot {
	case "$dynamodb_SS":
		return av.TypeSS, true
	case "$dynamodb_NS":
		return av.TypeNS, true
	case "$dynamodb_BS":
		return av.TypeBS, true
	}
	return 0, false
}

func toSet(t av.Type, l []av.Value) (av.Value, error) {
	want := map[av.Type]av.Type{av.TypeSS: av.TypeS, av.TypeNS: av.TypeN, av.TypeBS: av.TypeB}[t]
	v := av.Value{Type: t, Set: make([]string, 0, len(l))}
	for _, e := range l {
		if e.Type != want {
			return av.Value{}, fmt.Errorf("ion: a %s member is not a %s", t, want)
		}
		v.Set = append(v.Set, e.S)
	}
	return v, nil
}

// symbol reads an identifier or a 'quoted' symbol; ok is false when there
// is none here.
func (d *Decoder) symbol() (string, bool, error) {
	if d.i >= len(d.s) {
		return "", false, nil
	}
	c := d.s[d.i]
	if c == '\'' && !d.hasPrefix("'''") {
		d.i++
		s, err := d.quoted('\'')
		return s, err == nil, err
	}
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$') {
		return "", false, nil
	}
	start := d.i
	for d.symbolCharAt(d.i) {
		d.i++
	}
	s := string(d.s[start:d.i])
	if s == "null" && d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		for d.symbolCharAt(d.i) {
			d.i++
		}
		s = string(d.s[start:d.i])
	}
	return s, true, nil
}

func (d *Decoder) structure(depth int) (map[string]av.Value, error) {
	d.i++ // {
	m := map[string]av.Value{}
	for {
		if err := d.ws(); err != nil {
			return nil, err
		}
		if d.i >= len(d.s) {
			return nil, d.errorf("unterminated struct")
		}
		if d.s[d.i] == '}' {
			d.i++
			return m, nil
		}
		var name string
		if d.s[d.i] == '"' || d.hasPrefix("'''") {
			s, err := d.str()
			if err != nil {
				return nil, err
			}
			name = s
		} else {
			s, ok, err := d.symbol()
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, d.errorf("expected a field name")
			}
			name = s
		}
		if err := d.ws(); err != nil {
			return nil, err
		}
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.errorf("expected ':' after field %q", name)
		}
		d.i++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[name] = v
		if err := d.ws(); err != nil {
			return nil, err
		}
		if d.i < len(d.s) && d.s[d.i] == ',' {
			d.i++
		} else if d.i < len(d.s) && d.s[d.i] != '}' {
			return nil, d.errorf("expected ',' or '}'")
		}
	}
}

func (d *Decoder) list(depth int) ([]av.Value, error) {
	d.i++ // [
	l := []av.Value{}
	for {
		if err := d.ws(); err != nil {
			return nil, err
		}
		if d.i >= len(d.s) {
			return nil, d.errorf("unterminated list")
		}
		if d.s[d.i] == ']' {
			d.i++
			return l, nil
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		if err := d.ws(); err != nil {
			return nil, err
		}
		if d.i < len(d.s) && d.s[d.i] == ',' {
			d.i++
		} else if d.i < len(d.s) && d.s[d.i] != ']' {
			return nil, d.errorf("expected ',' or ']'")
		}
	}
}

// str reads a "short" string or one or more adjacent ”'long”' strings.
func (d *Decoder) str() (string, error) {
	if d.s[d.i] == '"' {
		d.i++
		return d.quoted('"')
	}
	var b strings.Builder
	for d.hasPrefix("'''") {
		d.i += 3
		end := strings.Index(string(d.s[d.i:]), "'''")
		if end < 0 {
			return "", d.errorf("unterminated long string")
		}
		sub := &Decoder{s: append(append([]byte(nil), d.s[d.i:d.i+end]...), 0)}
		s, err := sub.quoted(0)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		d.i += end + 3
		if err := d.ws(); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// quoted reads up to the closing quote q, unescaping.
func (d *Decoder) quoted(q byte) (string, error) {
	var b []byte
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == q:
			d.i++
			if !utf8.Valid(b) {
				return "", d.errorf("invalid UTF-8")
			}
			return string(b), nil
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return "", d.errorf("unterminated escape")
			}
			e := d.s[d.i+1]
			d.i += 2
			switch e {
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			case '0':
				b = append(b, 0)
			case 'a':
				b = append(b, 7)
			case 'b':
				b = append(b, 8)
			case 'v':
				b = append(b, 11)
			case 'f':
				b = append(b, 12)
			case '\n':
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if d.i+n > len(d.s) {
					return "", d.errorf("short \\%c escape", e)
				}
				r, err := strconv.ParseUint(string(d.s[d.i:d.i+n]), 16, 32)
				if err != nil {
					return "", d.errorf("bad \\%c escape", e)
				}
				d.i += n
				b = utf8.AppendRune(b, rune(r))
			default:
				b = append(b, e)
			}
		default:
			b = append(b, c)
			d.i++
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *Decoder) blob() (string, error) {
	d.i += 2
	end := strings.Index(string(d.s[d.i:]), "}}")
	if end < 0 {
		return "", d.errorf("unterminated blob")
	}
	txt := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, string(d.s[d.i:d.i+end]))
	d.i += end + 2
	if strings.HasPrefix(txt, `"`) {
		return "", d.errorf("clobs are not DynamoDB values")
	}
	b, err := base64.StdEncoding.DecodeString(txt)
	if err != nil {
		return "", d.errorf("bad blob: %v", err)
	}
	return string(b), nil
}

// number reads an Ion int, decimal or float as DynamoDB number text:
// "101." → "101", "2d1" → "2E1", "1.5e0" → "1.5E0".
func (d *Decoder) number() (string, error) {
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		if '0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'd' || c == 'D' || c == 'e' || c == 'E' || c == '_' {
			d.i++
			continue
		}
		break
	}
	raw := strings.ReplaceAll(string(d.s[start:d.i]), "_", "")
	mant, exp, hasExp := strings.Cut(strings.Map(func(r rune) rune {
		if r == 'd' || r == 'D' || r == 'e' {
			return 'E'
		}
		return r
	}, raw), "E")
	mant = strings.TrimPrefix(mant, "+")
	mant = strings.TrimSuffix(mant, ".")
	if mant == "" || mant == "-" {
		return "", d.errorf("bad number %q", raw)
	}
	if _, err := strconv.ParseFloat(mant, 64); err != nil {
		return "", d.errorf("bad number %q", raw)
	}
	if !hasExp {
		return mant, nil
	}
	if _, err := strconv.Atoi(exp); err != nil {
		return "", d.errorf("bad number %q", raw)
	}
	return mant + "E" + exp, nil
}
