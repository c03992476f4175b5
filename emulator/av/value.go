package av

// Type is the DynamoDB data type of a Value.
type Type uint8

// The ten DynamoDB data types. TypeInvalid is the zero Value's type.
const (
	TypeInvalid Type = iota
	TypeS
	TypeN
	TypeB
	TypeSS
	TypeNS
	TypeBS
	TypeM
	TypeL
	TypeNULL
	TypeBOOL
)

var typeNames = [...]string{"", "S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"}

// String returns the type's wire descriptor ("S", "NS", "BOOL", …).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// Value is one DynamoDB AttributeValue.
//
// S holds the string for TypeS, the decimal text for TypeN and the raw
// (decoded) bytes for TypeB. Set holds the members of SS, NS and BS in the
// same forms. L and M hold lists and maps; Bool holds BOOL (and NULL's
// mandatory true).
type Value struct {
	Type Type
	S    string
	Set  []string
	L    []Value
	M    map[string]Value
	Bool bool
	// Invalid holds DynamoDB's ValidationException message for an
	// AttributeValue that decoded from JSON but that DynamoDB rejects during
	// validation (two types set, {"NULL":false}, …). It is set only when Type
	// is TypeInvalid; a TypeInvalid value with an empty Invalid is the empty
	// AttributeValue {}. Keeping the message here, rather than failing the
	// decode, lets the engine report it in DynamoDB's order of validation.
	Invalid string
}

// Item is a DynamoDB item or key: attribute name → value.
type Item map[string]Value

// Clone returns a deep copy of v: no slice or map is shared with v.
func (v Value) Clone() Value {
	c := v
	if v.Set != nil {
		c.Set = append([]string(nil), v.Set...)
	}
	if v.L != nil {
		c.L = make([]Value, len(v.L))
		for i, e := range v.L {
			c.L[i] = e.Clone()
		}
	}
	if v.M != nil {
		c.M = make(map[string]Value, len(v.M))
		for k, e := range v.M {
			c.M[k] = e.Clone()
		}
	}
	return c
}

// Clone returns a deep copy of it (nil stays nil).
func (it Item) Clone() Item {
	if it == nil {
		return nil
	}
	c := make(Item, len(it))
	for k, v := range it {
		c[k] = v.Clone()
	}
	return c
}
