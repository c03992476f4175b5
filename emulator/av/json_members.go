package av

import (
	"encoding/base64"
	"strconv"
)

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
