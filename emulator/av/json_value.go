package av

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
