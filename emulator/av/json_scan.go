package av

import (
	"encoding/binary"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder is a hand-written JSON reader specialised for AttributeValues: no
// reflection and no map[string]any detour. s is b as a string, so strings
// without escapes are substrings of one allocation rather than one each.
type decoder struct {
	b []byte
	s string
	i int
}

func (d *decoder) syntaxErr() error {
	if d.i >= len(d.b) {
		return &SerializationError{Message: "Unexpected end of JSON input"}
	}
	return &SerializationError{Message: "Unexpected character (" + strconv.QuoteRune(rune(d.b[d.i])) + ") at offset " + strconv.Itoa(d.i)}
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at end of input.
func (d *decoder) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

func (d *decoder) literal(lit string) error {
	if len(d.b)-d.i < len(lit) || d.s[d.i:d.i+len(lit)] != lit {
		return d.syntaxErr()
	}
	d.i += len(lit)
	return nil
}

// wrongType is the SerializationException for a JSON value starting with c
// where a value of the member kind described by the arguments was expected.
func wrongTypeScalar(c byte, target string) error {
	switch {
	case c == '{':
		return &SerializationError{Message: serStartMap}
	case c == '[':
		return &SerializationError{Message: serStartList}
	case c == 't' || c == 'f':
		return &SerializationError{Message: serBoolTo + target}
	default:
		return &SerializationError{Message: serNumberTo + target}
	}
}

// str reads a JSON string at d.i (which must be '"').
func (d *decoder) str() (string, error) {
	d.i++ // opening quote
	start := d.i
	// Eight bytes at a time while none is special: most of an item's bytes
	// are plain ASCII string contents.
	d.i += PlainStringPrefix(d.b[d.i:])
	ascii := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.s[start:d.i]
			d.i++
			if !ascii && !utf8.ValidString(s) {
				return toValidUTF8(s), nil
			}
			return s, nil
		case c == '\\':
			return d.strSlow(start)
		case c < 0x20:
			return "", d.syntaxErr()
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return "", d.syntaxErr()
}

// PlainStringPrefix returns the length of b's prefix, in whole 8-byte
// words, in which no byte needs a look inside a JSON string: none is '"',
// '\\', a control character or non-ASCII. Scanners of JSON strings (this
// decoder, the wire's request scanner) skip long values with it. The tests
// are the hasless and haszero bit tricks of "Bit Twiddling Hacks": they
// may stop a word early, never pass a special byte.
func PlainStringPrefix(b []byte) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	n := 0
	for len(b)-n >= 8 {
		w := binary.LittleEndian.Uint64(b[n:])
		q := w ^ (ones * '"')
		bs := w ^ (ones * '\\')
		special := w | ((w - ones*0x20) &^ w) | ((q - ones) &^ q) | ((bs - ones) &^ bs)
		if special&highs != 0 {
			break
		}
		n += 8
	}
	return n
}

func toValidUTF8(s string) string {
	var out []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		out = utf8.AppendRune(out, r)
		i += size
	}
	return string(out)
}

// strSlow decodes a string containing escapes, starting over at start.
func (d *decoder) strSlow(start int) (string, error) {
	out := make([]byte, 0, d.i-start+16)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(out) {
				return toValidUTF8(string(out)), nil
			}
			return string(out), nil
		case c < 0x20:
			return "", d.syntaxErr()
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.b) {
			return "", d.syntaxErr()
		}
		e := d.b[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.syntaxErr()
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate followed by \uDC00-\uDFFF is one rune; a lone
				// surrogate becomes U+FFFD as in encoding/json.
				r2 := utf8.RuneError
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					lo, ok := d.hex4()
					if !ok {
						return "", d.syntaxErr()
					}
					if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
						r2 = dec
					} else {
						d.i = save
					}
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			d.i--
			return "", d.syntaxErr()
		}
	}
	return "", d.syntaxErr()
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// skip skips any JSON value.
func (d *decoder) skip(depth int) error {
	if depth > maxJSONDepth {
		return &SerializationError{Message: "JSON nesting too deep"}
	}
	switch c := d.peek(); c {
	case '"':
		_, err := d.str()
		return err
	case '{':
		d.i++
		if d.peek() == '}' {
			d.i++
			return nil
		}
		for {
			if d.peek() != '"' {
				return d.syntaxErr()
			}
			if _, err := d.str(); err != nil {
				return err
			}
			if d.peek() != ':' {
				return d.syntaxErr()
			}
			d.i++
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.peek() {
			case ',':
				d.i++
			case '}':
				d.i++
				return nil
			default:
				return d.syntaxErr()
			}
		}
	case '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			return nil
		}
		for {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				return nil
			default:
				return d.syntaxErr()
			}
		}
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		return d.number()
	}
}

// number skips a JSON number, checking its grammar.
func (d *decoder) number() error {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		d.i = start
		return d.syntaxErr()
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return d.syntaxErr()
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return d.syntaxErr()
		}
	}
	return nil
}
