package av

import (
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds recursion on hostile input. DynamoDB's own limit (32
// levels) is a ValidationException the engine reports; this one only keeps
// the decoder's stack finite.
const maxJSONDepth = 10000

// Messages of DynamoDB's SerializationException for members of the wrong
// JSON type (DynamoDB's service is Java; the class names are its own).
const (
	serStartMap   = "Start of structure or map found where not expected."
	serStartList  = "Start of list found where not expected"
	serBoolTo     = "class java.lang.Boolean can not be converted to "
	serNumberTo   = "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to "
	serExpectList = "Expected list or null"
	serExpectMap  = "Expected map or null"
	serExpectNull = "Expected null"
	toString      = "an String"
	toBlob        = "a Blob"
	toBoolean     = "an Boolean"
)

// MarshalJSON encodes v in DynamoDB's wire form, e.g. {"S":"x"}.
func (v Value) MarshalJSON() ([]byte, error) {
	return AppendJSON(nil, v), nil
}

// UnmarshalJSON decodes one AttributeValue. Shapes DynamoDB rejects with
// ValidationException decode without error into a TypeInvalid value (see
// Value.Invalid); wrong JSON types return *SerializationError.
func (v *Value) UnmarshalJSON(b []byte) error {
	d := decoder{b: b, s: string(b)}
	d.ws()
	val, err := d.attrValue(0)
	if err != nil {
		return err
	}
	d.ws()
	if d.i != len(d.b) {
		return d.syntaxErr()
	}
	*v = val
	return nil
}

// MarshalJSON encodes it as a JSON object of AttributeValues, names sorted.
func (it Item) MarshalJSON() ([]byte, error) {
	if it == nil {
		return []byte("null"), nil
	}
	return AppendItemJSON(nil, it), nil
}

// UnmarshalJSON decodes a JSON object of AttributeValues.
func (it *Item) UnmarshalJSON(b []byte) error {
	d := decoder{b: b, s: string(b)}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		d.ws()
		if d.i != len(d.b) {
			return d.syntaxErr()
		}
		*it = nil
		return nil
	}
	m, err := d.avMap(0, serExpectMap)
	if err != nil {
		return err
	}
	d.ws()
	if d.i != len(d.b) {
		return d.syntaxErr()
	}
	*it = m
	return nil
}

// DecodeItemJSON decodes a JSON object of AttributeValues (an Item, Key or
// ExpressionAttributeValues map) without going through encoding/json.
func DecodeItemJSON(b []byte) (Item, error) {
	var it Item
	err := it.UnmarshalJSON(b)
	return it, err
}

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

// isNull consumes a JSON null if one is next.
func (d *decoder) isNull() (bool, error) {
	if d.peek() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

// stringMember reads a member DynamoDB models as a String.
func (d *decoder) stringMember(target string) (string, error) {
	c := d.peek()
	if c != '"' {
		if c == 0 {
			return "", d.syntaxErr()
		}
		if err := d.skip(0); err != nil {
			return "", err
		}
		return "", wrongTypeScalar(c, target)
	}
	return d.str()
}

// blobMember reads a base64 member and returns the decoded bytes, with
// DynamoDB's SerializationException texts for bad base64.
func (d *decoder) blobMember() (string, error) {
	s, err := d.stringMember(toBlob)
	if err != nil {
		return "", err
	}
	return decodeBase64(s)
}

func decodeBase64(s string) (string, error) {
	if len(s)%4 != 0 {
		return "", &SerializationError{Message: "'" + s + "' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: " + strconv.Itoa(len(s))}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/'
		if c == '=' {
			ok = i+1 == len(s) || s[i+1] == '='
		}
		if !ok {
			// For "=x" DynamoDB names the '=' (the start of the bad run).
			return "", &SerializationError{Message: "'" + s + "' can not be converted to a Blob: Invalid Base64 character: '" + string(rune(c)) + "'"}
		}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Strict().Decode(out, unsafeBytes(s))
	if err != nil {
		return "", &SerializationError{Message: "'" + s + "' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"}
	}
	return string(out[:n]), nil
}

// boolMember reads a member DynamoDB models as a Boolean. Like DynamoDB it
// accepts the strings true/1/yes and false/0/no in any case.
func (d *decoder) boolMember() (bool, error) {
	switch c := d.peek(); c {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case '"':
		s, err := d.str()
		if err != nil {
			return false, err
		}
		up := toUpperASCII(s)
		switch up {
		case "TRUE", "1", "YES":
			return true, nil
		case "FALSE", "0", "NO":
			return false, nil
		}
		return false, &SerializationError{Message: "'" + up + "' can not be converted to an Boolean"}
	case 0:
		return false, d.syntaxErr()
	default:
		if err := d.skip(0); err != nil {
			return false, err
		}
		return false, wrongTypeScalar(c, toBoolean)
	}
}

func toUpperASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'a' <= b[j] && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// listStart checks that a List member starts here and consumes '['.
func (d *decoder) listStart() error {
	c := d.peek()
	switch c {
	case '[':
		d.i++
		return nil
	case 0:
		return d.syntaxErr()
	case '{':
		if err := d.skip(0); err != nil {
			return err
		}
		return &SerializationError{Message: serStartMap}
	default:
		if err := d.skip(0); err != nil {
			return err
		}
		return &SerializationError{Message: serExpectList}
	}
}

// listNext is called after an element: it consumes ',' (true) or ']' (false).
func (d *decoder) listNext() (bool, error) {
	switch d.peek() {
	case ',':
		d.i++
		return true, nil
	case ']':
		d.i++
		return false, nil
	default:
		return false, d.syntaxErr()
	}
}

// setMember reads SS, NS or BS. A JSON null element is recorded by returning
// hasNull, since a set of strings cannot hold it.
func (d *decoder) setMember(t Type) (set []string, hasNull bool, err error) {
	if err := d.listStart(); err != nil {
		return nil, false, err
	}
	set = []string{}
	if d.peek() == ']' {
		d.i++
		return set, false, nil
	}
	for {
		null, err := d.isNull()
		if err != nil {
			return nil, false, err
		}
		if null {
			hasNull = true
		} else {
			var s string
			if t == TypeBS {
				s, err = d.blobMember()
			} else {
				s, err = d.stringMember(toString)
			}
			if err != nil {
				return nil, false, err
			}
			set = append(set, s)
		}
		more, err := d.listNext()
		if err != nil {
			return nil, false, err
		}
		if !more {
			return set, hasNull, nil
		}
	}
}

// listMember reads L.
func (d *decoder) listMember(depth int) ([]Value, error) {
	if err := d.listStart(); err != nil {
		return nil, err
	}
	l := []Value{}
	if d.peek() == ']' {
		d.i++
		return l, nil
	}
	for {
		v, err := d.attrValue(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		more, err := d.listNext()
		if err != nil {
			return nil, err
		}
		if !more {
			return l, nil
		}
	}
}

// avMap reads a JSON object of AttributeValues (M, or a whole item). scalarMsg
// is the SerializationException text when a scalar stands in its place.
func (d *decoder) avMap(depth int, scalarMsg string) (map[string]Value, error) {
	c := d.peek()
	switch c {
	case '{':
		d.i++
	case 0:
		return nil, d.syntaxErr()
	case '[':
		if err := d.skip(0); err != nil {
			return nil, err
		}
		return nil, &SerializationError{Message: serStartList}
	default:
		if err := d.skip(0); err != nil {
			return nil, err
		}
		return nil, &SerializationError{Message: scalarMsg}
	}
	m := map[string]Value{}
	if d.peek() == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.peek() != '"' {
			return nil, d.syntaxErr()
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.peek() != ':' {
			return nil, d.syntaxErr()
		}
		d.i++
		v, err := d.attrValue(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.syntaxErr()
		}
	}
}

// avParts collects the members of one AttributeValue object before deciding
// what it is: DynamoDB reads every member, then validates them type by type.
type avParts struct {
	has     [TypeBOOL + 1]bool
	s, n, b string
	boolV   bool
	nullV   bool
	sets    [3][]string // SS, NS, BS
	setNull [3]bool
	l       []Value
	m       map[string]Value
}

// attrValue reads one AttributeValue object.
func (d *decoder) attrValue(depth int) (Value, error) {
	if depth > maxJSONDepth {
		return Value{}, &SerializationError{Message: "JSON nesting too deep"}
	}
	c := d.peek()
	switch c {
	case '{':
		d.i++
	case 'n':
		// A null AttributeValue is one with no member set.
		return Value{}, d.literal("null")
	case '[':
		if err := d.skip(depth); err != nil {
			return Value{}, err
		}
		return Value{}, &SerializationError{Message: serStartList}
	case 0:
		return Value{}, d.syntaxErr()
	default:
		if err := d.skip(depth); err != nil {
			return Value{}, err
		}
		return Value{}, &SerializationError{Message: serExpectNull}
	}
	var p avParts
	if d.peek() == '}' {
		d.i++
		return Value{}, nil
	}
	for {
		if d.peek() != '"' {
			return Value{}, d.syntaxErr()
		}
		k, err := d.str()
		if err != nil {
			return Value{}, err
		}
		if d.peek() != ':' {
			return Value{}, d.syntaxErr()
		}
		d.i++
		if err := d.member(&p, k, depth); err != nil {
			return Value{}, err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return p.value(), nil
		default:
			return Value{}, d.syntaxErr()
		}
	}
}

// member reads the value of member k into p. A JSON null leaves the member
// unset, as DynamoDB treats null members as absent; unknown members are
// skipped.
func (d *decoder) member(p *avParts, k string, depth int) error {
	t := typeOfName(k)
	if t == TypeInvalid {
		return d.skip(depth + 1)
	}
	null, err := d.isNull()
	if err != nil || null {
		return err
	}
	switch t {
	case TypeS:
		p.s, err = d.stringMember(toString)
	case TypeN:
		p.n, err = d.stringMember(toString)
	case TypeB:
		p.b, err = d.blobMember()
	case TypeBOOL:
		p.boolV, err = d.boolMember()
	case TypeNULL:
		p.nullV, err = d.boolMember()
	case TypeSS, TypeNS, TypeBS:
		i := t - TypeSS
		p.sets[i], p.setNull[i], err = d.setMember(t)
	case TypeL:
		p.l, err = d.listMember(depth)
	case TypeM:
		p.m, err = d.avMap(depth, serExpectMap)
	}
	if err != nil {
		return err
	}
	p.has[t] = true
	return nil
}

// TypeByName returns the type of a wire descriptor ("S", "NS", "BOOL", …),
// or TypeInvalid for anything else.
func TypeByName(name string) Type { return typeOfName(name) }

func typeOfName(k string) Type {
	switch k {
	case "S":
		return TypeS
	case "N":
		return TypeN
	case "B":
		return TypeB
	case "SS":
		return TypeSS
	case "NS":
		return TypeNS
	case "BS":
		return TypeBS
	case "M":
		return TypeM
	case "L":
		return TypeL
	case "NULL":
		return TypeNULL
	case "BOOL":
		return TypeBOOL
	}
	return TypeInvalid
}

// validationOrder is the order in which DynamoDB checks the members of an
// AttributeValue that has several set (observed: a bad N is reported before
// "more than one datatypes" even when S is also set).
func validationOrder() [10]Type {
	return [...]Type{TypeS, TypeB, TypeN, TypeBOOL, TypeNULL, TypeBS, TypeNS, TypeSS, TypeL, TypeM}
}

// single returns member t of p as a Value, or TypeInvalid with the message
// for a shape the Value type cannot hold.
func (p *avParts) single(t Type) Value {
	switch t {
	case TypeS:
		return Value{Type: TypeS, S: p.s}
	case TypeN:
		return Value{Type: TypeN, S: p.n}
	case TypeB:
		return Value{Type: TypeB, S: p.b}
	case TypeBOOL:
		return Value{Type: TypeBOOL, Bool: p.boolV}
	case TypeNULL:
		if !p.nullV {
			return Value{Invalid: msgNullNotTrue}
		}
		return Value{Type: TypeNULL, Bool: true}
	case TypeSS, TypeNS, TypeBS:
		i := t - TypeSS
		if p.setNull[i] {
			switch t {
			case TypeSS:
				return Value{Invalid: msgNullInSS}
			case TypeNS:
				return Value{Invalid: msgNotNumber}
			default:
				return Value{Invalid: msgNullInBS}
			}
		}
		return Value{Type: t, Set: p.sets[i]}
	case TypeL:
		return Value{Type: TypeL, L: p.l}
	case TypeM:
		return Value{Type: TypeM, M: p.m}
	}
	return Value{}
}

func (p *avParts) value() Value {
	n, last := 0, TypeInvalid
	for t, h := range p.has {
		if h {
			n++
			last = Type(t)
		}
	}
	switch n {
	case 0:
		return Value{}
	case 1:
		return p.single(last)
	}
	for _, t := range validationOrder() {
		if !p.has[t] {
			continue
		}
		v := p.single(t)
		if v.Type == TypeInvalid {
			return v
		}
		if err := ValidateValue(v); err != nil {
			return Value{Invalid: err.Error()}
		}
	}
	return Value{Invalid: msgMultipleTypes}
}
