package partiql

import (
	"errors"
	"strings"

	"github.com/extenddb/extenddb/emulator/av"
)

// Value turns a literal expression (scalars, ?, lists, maps, <<sets>>) into
// an AttributeValue, binding ? from params. where names the value in number
// messages ("root", "root.x", "root[1]"), as DynamoDB does.
func Value(e Expr, params []av.Value) (av.Value, error) {
	return value(e, params, "root")
}

// ItemValue is Value for an INSERT's item: each attribute's value is named
// "root" in messages, as DynamoDB names it ({'m': {'x': 1e126}} overflows
// "under root.x").
func ItemValue(e Expr, params []av.Value) (av.Value, error) {
	x, ok := e.(*Map)
	if !ok {
		return Value(e, params)
	}
	m := make(map[string]av.Value, len(x.Keys))
	for i, k := range x.Keys {
		if _, dup := m[k]; dup {
			return av.Value{}, &Error{Message: "Duplicate keys in tuple. Key: " + k + " under root"}
		}
		v, err := value(x.Vals[i], params, "root")
		if err != nil {
			return av.Value{}, err
		}
		m[k] = v
	}
	return av.Value{Type: av.TypeM, M: m}, nil
}

// IsLiteral reports whether e is a value (no document path or function).
func IsLiteral(e Expr) bool {
	switch x := e.(type) {
	case *Lit:
		return x.Kind != LitMissing
	case *Param:
		return true
	case *List:
		for _, el := range x.Elems {
			if !IsLiteral(el) {
				return false
			}
		}
		return true
	case *Map:
		for _, el := range x.Vals {
			if !IsLiteral(el) {
				return false
			}
		}
		return true
	case *Set:
		for _, el := range x.Elems {
			if !IsLiteral(el) {
				return false
			}
		}
		return true
	}
	return false
}

func value(e Expr, params []av.Value, where string) (av.Value, error) {
	switch x := e.(type) {
	case *Lit:
		switch x.Kind {
		case LitString:
			return av.Value{Type: av.TypeS, S: x.Text}, nil
		case LitNumber:
			return number(x.Text, where)
		case LitBool:
			return av.Value{Type: av.TypeBOOL, Bool: x.Text == "true"}, nil
		case LitNull:
			return av.Value{Type: av.TypeNULL, Bool: true}, nil
		}
	case *Param:
		if x.N < len(params) {
			return params[x.N], nil
		}
		return av.Value{}, &Error{Message: MsgParamCount}
	case *List:
		l := make([]av.Value, 0, len(x.Elems))
		for i, el := range x.Elems {
			v, err := value(el, params, where+"["+itoa(i)+"]")
			if err != nil {
				return av.Value{}, err
			}
			l = append(l, v)
		}
		return av.Value{Type: av.TypeL, L: l}, nil
	case *Map:
		m := make(map[string]av.Value, len(x.Keys))
		for i, k := range x.Keys {
			if _, dup := m[k]; dup {
				return av.Value{}, &Error{Message: "Duplicate keys in tuple. Key: " + k + " under " + where}
			}
			v, err := value(x.Vals[i], params, where+"."+k)
			if err != nil {
				return av.Value{}, err
			}
			m[k] = v
		}
		return av.Value{Type: av.TypeM, M: m}, nil
	case *Set:
		return set(x, params, where)
	case *Call:
		return av.Value{}, refused("Unsupported data type: "+x.Name+" under key "+where, ptr(x.Pos))
	}
	return av.Value{}, malformed(MsgUnexpectedTerm)
}

func ptr(p Pos) *Pos { return &p }

// MsgParamCount is the error for a ? without a value (or a value without a ?).
const MsgParamCount = "Number of parameters in request and statement don't match."

func number(text, where string) (av.Value, error) {
	n, err := av.CanonicalNumber(text)
	if err != nil {
		var ve *av.ValidationError
		if errors.As(err, &ve) && strings.HasPrefix(ve.Message, "Number ") || strings.HasPrefix(err.Error(), "Attempting") {
			return av.Value{}, &Error{Message: err.Error() + " under " + where}
		}
		return av.Value{}, malformed("")
	}
	return av.Value{Type: av.TypeN, S: n}, nil
}

// set builds an SS or NS from <<…>>; members must be all strings or all
// numbers, distinct, and there must be at least one.
func set(x *Set, params []av.Value, where string) (av.Value, error) {
	if len(x.Elems) == 0 {
		return av.Value{}, &Error{Message: "Empty bags are not supported"}
	}
	var t av.Type
	members := make([]string, 0, len(x.Elems))
	written := make([]string, 0, len(x.Elems)) // number members as written
	for _, el := range x.Elems {
		v, err := value(el, params, where)
		if err != nil {
			return av.Value{}, err
		}
		var mt av.Type
		switch v.Type {
		case av.TypeS:
			mt = av.TypeSS
		case av.TypeN:
			mt = av.TypeNS
		case av.TypeB:
			mt = av.TypeBS
		default:
			return av.Value{}, &Error{Message: "Unsupported data type in a set: " + v.Type.String()}
		}
		if t != 0 && t != mt {
			return av.Value{}, &Error{Message: "Set members must all be of the same type"}
		}
		t = mt
		members = append(members, v.S)
		if lit, ok := el.(*Lit); ok && lit.Kind == LitNumber {
			written = append(written, lit.Text)
		}
	}
	if dupes(members) {
		// Numbers written alike are refused as strings are; numbers
		// written differently that are equal (2 and 2.0) get DynamoDB's
		// other text, which names them as written and the value's place.
		if t == av.TypeNS && len(written) == len(members) && !dupes(written) {
			return av.Value{}, &Error{Message: "One or more parameter values were invalid: Input collection [" +
				strings.Join(written, ", ") + "] contains duplicates! under " + where}
		}
		return av.Value{}, &Error{Message: "One or more parameter values were invalid: Input collection [" +
			strings.Join(members, ", ") + "] contains duplicates."}
	}
	return av.Value{Type: t, Set: members}, nil
}

// dupes reports whether ss holds a string twice.
func dupes(ss []string) bool {
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		if seen[s] {
			return true
		}
		seen[s] = true
	}
	return false
}
