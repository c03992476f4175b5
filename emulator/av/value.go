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
}

// Item is a DynamoDB item or key: attribute name → value.
type Item map[string]Value
