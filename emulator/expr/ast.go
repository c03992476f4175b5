package expr

import (
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/av"
)

// PathElem is one step of a document path: an attribute or map key name, or
// a list index.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path with its placeholders resolved, such as
// a.b[2] = {a}, {b}, {[2]}.
type Path []PathElem

// String formats the path as DynamoDB does in its messages: [a, b, [2]].
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.IsIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		} else {
			b.WriteString(e.Name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

func (p Path) equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// synElem is a path element as written: an identifier, a #placeholder or
// an index.
type synElem struct {
	text    string // identifier, #placeholder, or the index digits
	idx     int
	isIdx   bool
	isName  bool // #placeholder
	isIdent bool
}

// opKind classifies operands (and update value expressions).
type opKind uint8

const (
	opPath opKind = iota
	opValue
	opFunc
	opPlus  // update only: args[0] + args[1]
	opMinus // update only: args[0] - args[1]
	opParen // (args[0]); kept so DynamoDB's checks can see parentheses
)

// operand is a value-producing node. The parser fills syn/ref; binding
// produces a copy with path and val set.
type operand struct {
	kind opKind
	syn  []synElem
	ref  string // :placeholder
	fn   string
	args []*operand

	path Path
	val  av.Value
}

// condKind classifies condition nodes.
type condKind uint8

const (
	cAnd condKind = iota
	cOr
	cNot
	cCmp
	cBetween
	cIn
	cFunc
	cParen // (l)
	cTrue  // legacy: no conditions at all
)

// cond is a boolean node of a condition, filter or key condition.
type cond struct {
	kind condKind
	cmp  tokKind // for cCmp
	l, r *cond
	args []*operand
	fn   string // for cFunc
}

func cmpText(k tokKind) string {
	switch k {
	case tEq:
		return "="
	case tNe:
		return "<>"
	case tLt:
		return "<"
	case tLe:
		return "<="
	case tGt:
		return ">"
	case tGe:
		return ">="
	}
	return ""
}

// updKind is the clause an update action belongs to.
type updKind uint8

const (
	uSet updKind = iota
	uRemove
	uAdd
	uDelete
)

type action struct {
	kind   updKind
	clause int // index of the SET/REMOVE/ADD/DELETE clause, in text order
	syn    []synElem
	path   Path
	val    *operand // SET: value expression; ADD/DELETE: the :value
}

// funcArity returns the number of operands a function takes, 0 for a name
// DynamoDB does not know.
func funcArity(name string) int {
	switch name {
	case "attribute_exists", "attribute_not_exists", "size":
		return 1
	case "attribute_type", "begins_with", "contains", "if_not_exists", "list_append":
		return 2
	}
	return 0
}

// isConditionFunc reports the functions that are conditions by themselves
// (size is an operand).
func isConditionFunc(name string) bool {
	switch name {
	case "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains":
		return true
	}
	return false
}

func isUpdateFunc(name string) bool {
	return name == "if_not_exists" || name == "list_append"
}
