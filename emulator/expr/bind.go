package expr

import (
	"encoding/base64"
	"strconv"

	"github.com/extenddb/extenddb/emulator/av"
)

// binder resolves placeholders against one request's
// ExpressionAttributeNames/Values and performs the checks that depend on
// them, keeping the first error of each category so that the reported one
// follows DynamoDB's order.
type binder struct {
	names  map[string]string
	values map[string]av.Value
	used   *usage
	update bool

	errName, errVal, errOverlap, errConflict, errOperand, errDistinct, errFunction string
}

func setFirst(dst *string, msg string) {
	if *dst == "" {
		*dst = msg
	}
}

func (b *binder) nameErr(msg string) { setFirst(&b.errName, msg) }

func (b *binder) valErr(msg string) {
	if b.update {
		setFirst(&b.errVal, msg)
	} else {
		// Conditions report undefined names and values in one category.
		setFirst(&b.errName, msg)
	}
}

func (b *binder) condErr() string {
	for _, e := range []string{b.errName, b.errOperand, b.errDistinct, b.errFunction} {
		if e != "" {
			return e
		}
	}
	return ""
}

func (b *binder) updateErr() string {
	for _, e := range []string{b.errName, b.errVal, b.errOverlap, b.errConflict, b.errOperand, b.errFunction} {
		if e != "" {
			return e
		}
	}
	return ""
}

func (b *binder) path(syn []synElem) Path {
	p := make(Path, len(syn))
	for i, e := range syn {
		switch {
		case e.isIdx:
			p[i] = PathElem{Index: e.idx, IsIndex: true}
		case e.isName:
			n, ok := b.names[e.text]
			if !ok {
				b.nameErr("An expression attribute name used in the document path is not defined; attribute name: " + e.text)
			} else {
				b.used.names[e.text] = struct{}{}
			}
			p[i] = PathElem{Name: n}
		default:
			p[i] = PathElem{Name: e.text}
		}
	}
	return p
}

func (b *binder) value(ref string) av.Value {
	v, ok := b.values[ref]
	if !ok {
		b.valErr("An expression attribute value used in expression is not defined; attribute value: " + ref)
		return av.Value{}
	}
	b.used.values[ref] = struct{}{}
	return v
}

func (b *binder) operand(o *operand) *operand {
	switch o.kind {
	case opPath:
		return &operand{kind: opPath, path: b.path(o.syn)}
	case opValue:
		return &operand{kind: opValue, ref: o.ref, val: b.value(o.ref)}
	}
	n := &operand{kind: o.kind, fn: o.fn, args: make([]*operand, len(o.args))}
	for i, a := range o.args {
		n.args[i] = b.operand(a)
	}
	switch {
	case o.kind == opPlus || o.kind == opMinus:
		b.checkArith(n)
	case b.update:
		b.checkUpdateFunc(n)
	default:
		b.checkCondFunc(n.fn, n.args)
	}
	return n
}

// staticType is the type an operand is known to have before any item is
// read ("" when it depends on the item), as DynamoDB uses it in checks.
func staticType(o *operand) string {
	switch o.kind {
	case opValue:
		return o.val.Type.String()
	case opPlus, opMinus:
		return "N"
	case opFunc:
		switch o.fn {
		case "size":
			return "N"
		case "begins_with", "attribute_type", "contains":
			return "BOOL"
		case "list_append":
			return "L"
		case "if_not_exists":
			if len(o.args) == 2 {
				return staticType(o.args[1])
			}
		}
	}
	return ""
}

func immediateType(o *operand) string {
	if o.kind == opValue {
		return o.val.Type.String()
	}
	return ""
}

func incorrectOperand(fn, typ string) string {
	return "Incorrect operand type for operator or function; operator or function: " + fn + ", operand type: " + typ
}

func (b *binder) checkDistinct(op string, args []*operand) {
	if len(args) != 2 || args[0].kind != opPath || args[1].kind != opPath || !args[0].path.equal(args[1].path) {
		return
	}
	setFirst(&b.errDistinct, "The first operand must be distinct from the remaining operands for this operator or function; operator: "+
		op+", first operand: "+args[0].path.String())
}

func (b *binder) checkCondFunc(name string, args []*operand) {
	want := 2
	switch name {
	case "attribute_exists", "attribute_not_exists", "size":
		want = 1
	}
	if len(args) != want {
		setFirst(&b.errOperand, "Incorrect number of operands for operator or function; operator or function: "+
			name+", number of operands: "+strconv.Itoa(len(args)))
		return
	}
	b.checkDistinct(name, args)
	if b.errFunction != "" {
		return
	}
	switch name {
	case "attribute_exists", "attribute_not_exists":
		if args[0].kind != opPath {
			b.errFunction = "Operator or function requires a document path; operator or function: " + name
		}
	case "begins_with":
		for _, a := range args {
			if t := staticType(a); t != "" && t != "S" && t != "B" {
				b.errFunction = incorrectOperand(name, t)
				return
			}
		}
	case "attribute_type":
		t := staticType(args[1])
		if t != "S" {
			if t == "" {
				t = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"
			}
			b.errFunction = incorrectOperand(name, t)
			return
		}
		if av.TypeByName(args[1].val.S) == av.TypeInvalid {
			b.errFunction = "Invalid attribute type name found; type: " + args[1].val.S +
				", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"
		}
	case "size":
		switch t := staticType(args[0]); t {
		case "N", "BOOL", "NULL":
			b.errFunction = incorrectOperand(name, t)
		}
	}
}

func (b *binder) checkUpdateFunc(n *operand) {
	if b.errFunction != "" {
		return
	}
	if len(n.args) != 2 {
		b.errFunction = "Incorrect number of operands for operator or function; operator or function: " +
			n.fn + ", number of operands: " + strconv.Itoa(len(n.args))
		return
	}
	switch n.fn {
	case "if_not_exists":
		if n.args[0].kind != opPath {
			b.errFunction = "Operator or function requires a document path; operator or function: " + n.fn
		}
	case "list_append":
		for _, a := range n.args {
			if t := immediateType(a); t != "" && t != "L" {
				b.errFunction = incorrectOperand(n.fn, t)
				return
			}
		}
	}
}

func (b *binder) checkArith(n *operand) {
	if b.errFunction != "" {
		return
	}
	op := "+"
	if n.kind == opMinus {
		op = "-"
	}
	for _, a := range n.args {
		if t := immediateType(a); t != "" && t != "N" {
			b.errFunction = incorrectOperand(op, t)
			return
		}
	}
}

// formatAV renders a value as DynamoDB does inside BETWEEN messages.
func formatAV(v av.Value) string {
	s := v.S
	if v.Type == av.TypeB {
		s = base64.StdEncoding.EncodeToString([]byte(v.S))
	}
	return "AttributeValue: {" + v.Type.String() + ":" + s + "}"
}

func (b *binder) cond(c *cond) *cond {
	switch c.kind {
	case cAnd, cOr:
		return &cond{kind: c.kind, l: b.cond(c.l), r: b.cond(c.r)}
	case cNot:
		return &cond{kind: cNot, l: b.cond(c.l)}
	case cFunc:
		n := b.operand(&operand{kind: opFunc, fn: c.fn, args: c.args})
		return &cond{kind: cFunc, fn: c.fn, args: n.args}
	}
	args := make([]*operand, len(c.args))
	for i, a := range c.args {
		args[i] = b.operand(a)
	}
	n := &cond{kind: c.kind, cmp: c.cmp, args: args}
	switch c.kind {
	case cCmp:
		b.checkDistinct(cmpText(c.cmp), args)
	case cBetween:
		lo, hi := args[1], args[2]
		if b.errFunction == "" && lo.kind == opValue && hi.kind == opValue && lo.val.Type != av.TypeInvalid && hi.val.Type != av.TypeInvalid {
			bounds := "lower bound operand: " + formatAV(lo.val) + ", upper bound operand: " + formatAV(hi.val)
			if lo.val.Type != hi.val.Type {
				b.errFunction = "The BETWEEN operator requires same data type for lower and upper bounds; " + bounds
			} else if r, ok := av.Compare(lo.val, hi.val); ok && r > 0 {
				b.errFunction = "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; " + bounds
			}
		}
	case cIn:
		if len(args)-1 > MaxINOperands {
			setFirst(&b.errOperand, "Too many operands for the IN operator; operator: IN, number of operands: "+strconv.Itoa(len(args)-1)+", maximum: "+strconv.Itoa(MaxINOperands))
		}
	}
	return n
}

// updateActions binds the actions of an update expression and checks
// overlapping paths and operand types.
func (b *binder) updateActions(acts []action) []action {
	out := make([]action, len(acts))
	for i, a := range acts {
		n := action{kind: a.kind, path: b.path(a.syn)}
		if a.val != nil {
			n.val = b.operand(a.val)
		}
		for j := 0; j < i && b.errOverlap == "" && b.errConflict == ""; j++ {
			b.checkPaths(out[j].path, n.path)
		}
		if a.kind == uAdd || a.kind == uDelete {
			b.checkAddDelete(a.kind, n.val)
		}
		out[i] = n
	}
	return out
}

func (b *binder) checkPaths(p1, p2 Path) {
	for i := 0; i < len(p1) && i < len(p2); i++ {
		if p1[i].IsIndex != p2[i].IsIndex {
			setFirst(&b.errConflict, "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: "+
				p1.String()+", path two: "+p2.String())
			return
		}
		if p1[i] != p2[i] {
			return
		}
	}
	setFirst(&b.errOverlap, "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: "+
		p1.String()+", path two: "+p2.String())
}

func (b *binder) checkAddDelete(k updKind, v *operand) {
	if b.errOperand != "" || v.val.Type == av.TypeInvalid {
		return
	}
	op := "ADD"
	if k == uDelete {
		op = "DELETE"
	}
	var name string
	switch v.val.Type {
	case av.TypeS:
		name = "STRING"
	case av.TypeN:
		if k == uAdd {
			return
		}
		name = "NUMBER"
	case av.TypeB:
		name = "BINARY"
	case av.TypeNULL:
		name = "NULL"
	case av.TypeBOOL:
		name = "BOOLEAN"
	case av.TypeL:
		name = "LIST"
	case av.TypeM:
		name = "MAP"
	default:
		return
	}
	b.errOperand = "Incorrect operand type for operator or function; operator: " + op + ", operand type: " + name
}
