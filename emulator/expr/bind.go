package expr

import (
	"strconv"

	"github.com/extenddb/extenddb/emulator/av"
)

// The binding pass: placeholders are resolved against one request's
// ExpressionAttributeNames/Values and the checks that need them run, walking
// the expression in DynamoDB's order and stopping at the first problem. It
// produces the bound tree that evaluation uses (parentheses dropped).

// MaxPathDepth is the deepest document path DynamoDB accepts.
const MaxPathDepth = 32

type bindFail struct{ msg string }

type binder struct {
	names  map[string]string
	values map[string]av.Value
	used   *usage
}

func (b *binder) fail(msg string) { panic(bindFail{msg}) }

// run calls f and turns a bindFail into its message.
func (b *binder) run(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			bf, ok := r.(bindFail)
			if !ok {
				panic(r)
			}
			msg = bf.msg
		}
	}()
	f()
	return ""
}

func undefinedName(n string) string {
	return "An expression attribute name used in the document path is not defined; attribute name: " + n
}

// checkNames reports undefined #names in a path without marking any used.
func (b *binder) checkNames(syn []synElem) {
	for _, e := range syn {
		if e.isName {
			if _, ok := b.names[e.text]; !ok {
				b.fail(undefinedName(e.text))
			}
		}
	}
}

// resolve turns a written path into a Path; mark records the #names used.
func (b *binder) resolve(syn []synElem, mark bool) Path {
	p := make(Path, len(syn))
	for i, e := range syn {
		switch {
		case e.isIdx:
			p[i] = PathElem{Index: e.idx, IsIndex: true}
		case e.isName:
			n, ok := b.names[e.text]
			if !ok {
				b.fail(undefinedName(e.text))
			}
			if mark {
				b.used.names[e.text] = struct{}{}
			}
			p[i] = PathElem{Name: n}
		default:
			p[i] = PathElem{Name: e.text}
		}
	}
	if len(p) > MaxPathDepth {
		b.fail("The document path has too many nesting levels; nesting levels: " + strconv.Itoa(len(p)))
	}
	return p
}

// operandNames reports undefined #names anywhere in an operand.
func (b *binder) operandNames(o *operand) {
	if o.kind == opPath {
		b.checkNames(o.syn)
		return
	}
	for _, a := range o.args {
		b.operandNames(a)
	}
}

func (b *binder) operand(o *operand) *operand {
	switch o.kind {
	case opPath:
		return &operand{kind: opPath, path: b.resolve(o.syn, true)}
	case opValue:
		v, ok := b.values[o.ref]
		if !ok {
			b.fail("An expression attribute value used in expression is not defined; attribute value: " + o.ref)
		}
		b.used.values[o.ref] = struct{}{}
		return &operand{kind: opValue, ref: o.ref, val: v}
	case opParen:
		return b.operand(o.args[0])
	case opPlus, opMinus:
		n := &operand{kind: o.kind, args: []*operand{b.operand(o.args[0]), b.operand(o.args[1])}}
		op := "+"
		if o.kind == opMinus {
			op = "-"
		}
		for _, a := range n.args {
			if t := staticType(a); t != "" && t != "N" {
				b.fail(typeProblem(op, t))
			}
		}
		return n
	}
	return b.call(o.fn, o.args)
}

// staticType is the type an operand has before any item is read ("" when
// it depends on the item).
func staticType(o *operand) string {
	switch {
	case o.kind == opValue:
		return o.val.Type.String()
	case o.kind == opFunc && o.fn == "size":
		return "N"
	}
	return ""
}

func typeProblem(op, typ string) string {
	return "Incorrect operand type for operator or function; operator or function: " + op + ", operand type: " + typ
}

// distinct refuses a first operand that is the same path as a later one.
func (b *binder) distinct(op string, first *operand, rest []*operand) {
	if first.kind != opPath {
		return
	}
	for _, r := range rest {
		if r.kind == opPath && first.path.equal(r.path) {
			b.fail("The first operand must be distinct from the remaining operands for this operator or function; operator: " +
				op + ", first operand: " + first.path.String())
		}
	}
}

// anyTypeName is DynamoDB's list of every type it knows, as it prints it
// when attribute_type's second operand is not a value.
const anyTypeName = "{SS,M,DECIMAL,DOUBLESET,HDS,N,B,DICT,INTSET,BOOL,HD,BS,INT,DECIMALSET,NULL,FLOAT,FS,S,L,NS,DOUBLE}"

func (b *binder) call(name string, args []*operand) *operand {
	if len(args) != funcArity(name) {
		// Conditions count operands in the static pass; updates here.
		b.fail(wrongOperandCount(name, len(args)))
	}
	n := &operand{kind: opFunc, fn: name, args: make([]*operand, len(args))}
	for i, a := range args {
		n.args[i] = b.operand(a)
	}
	switch name {
	case "attribute_exists", "attribute_not_exists", "attribute_type", "if_not_exists":
		// attribute_type also takes a value placeholder first (DynamoDB
		// compares the value's own type).
		if n.args[0].kind != opPath && !(name == "attribute_type" && n.args[0].kind == opValue) {
			b.fail("Operator or function requires a document path; operator or function: " + name)
		}
	}
	if name != "size" && name != "list_append" {
		b.distinct(name, n.args[0], n.args[1:])
	}
	switch name {
	case "size":
		switch t := staticType(n.args[0]); t {
		case "", "S", "B", "SS", "NS", "BS", "L", "M":
		default:
			b.fail(typeProblem(name, t))
		}
	case "begins_with":
		for _, a := range n.args {
			if t := staticType(a); t != "" && t != "S" && t != "B" {
				b.fail(typeProblem(name, t))
			}
		}
	case "attribute_type":
		second := n.args[1]
		if second.kind != opValue {
			t := anyTypeName
			if second.kind == opFunc && second.fn == "size" {
				t = "N"
			}
			b.fail(typeProblem(name, t))
		}
		if second.val.Type != av.TypeS {
			b.fail(typeProblem(name, second.val.Type.String()))
		}
		if av.TypeByName(second.val.S) == av.TypeInvalid {
			b.fail("Invalid attribute type name found; type: " + second.val.S + ", valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}")
		}
	case "list_append":
		for _, a := range n.args {
			if t := staticType(a); t != "" && t != "L" {
				b.fail(typeProblem(name, t))
			}
		}
	}
	return n
}

// boundText renders a BETWEEN bound as DynamoDB prints it.
func boundText(v av.Value) string {
	switch v.Type {
	case av.TypeB:
		n := strconv.Itoa(len(v.S))
		return "AttributeValue: {B:java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]}"
	case av.TypeS, av.TypeN:
		return "AttributeValue: {" + v.Type.String() + ":" + v.S + "}"
	}
	return "AttributeValue: {" + v.Type.String() + ":" + string(av.AppendJSON(nil, v)) + "}"
}

func scalarType(t string) bool { return t == "" || t == "S" || t == "N" || t == "B" }

func (b *binder) cond(c *cond) *cond {
	switch c.kind {
	case cAnd, cOr:
		l := b.cond(c.l)
		return &cond{kind: c.kind, l: l, r: b.cond(c.r)}
	case cNot:
		return &cond{kind: cNot, l: b.cond(c.l)}
	case cParen:
		return b.cond(c.l)
	case cFunc:
		n := b.call(c.fn, c.args)
		return &cond{kind: cFunc, fn: c.fn, args: n.args}
	}
	args := make([]*operand, len(c.args))
	for i, a := range c.args {
		args[i] = b.operand(a)
	}
	n := &cond{kind: c.kind, cmp: c.cmp, args: args}
	switch c.kind {
	case cCmp:
		b.distinct(cmpText(c.cmp), args[0], args[1:])
		if c.cmp != tEq && c.cmp != tNe {
			for _, a := range args {
				if t := staticType(a); !scalarType(t) {
					b.fail(typeProblem(cmpText(c.cmp), t))
				}
			}
		}
	case cBetween:
		b.distinct("BETWEEN", args[0], args[1:])
		for _, a := range args {
			if t := staticType(a); !scalarType(t) {
				b.fail(typeProblem("BETWEEN", t))
			}
		}
		lo, hi := args[1], args[2]
		if lo.kind == opValue && hi.kind == opValue {
			bounds := "lower bound operand: " + boundText(lo.val) + ", upper bound operand: " + boundText(hi.val)
			if lo.val.Type != hi.val.Type {
				b.fail("The BETWEEN operator requires same data type for lower and upper bounds; " + bounds)
			}
			if r, ok := av.Compare(lo.val, hi.val); ok && r > 0 {
				b.fail("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; " + bounds)
			}
		}
	case cIn:
		if n := len(args) - 1; n > MaxINOperands {
			b.fail("The IN operator is provided with too many operands; number of operands: " + strconv.Itoa(n))
		}
		b.distinct("IN", args[0], args[1:])
	}
	return n
}

// longType is how ADD and DELETE errors name a type.
func longType(t av.Type) string {
	return [...]string{"", "STRING", "NUMBER", "BINARY", "STRING_SET", "NUMBER_SET", "BINARY_SET", "MAP", "LIST", "NULL", "BOOLEAN"}[t]
}

// updateActions binds an update: #names of the target paths, overlapping
// paths, then each action from the last to the first (names, then values
// and types), as DynamoDB does.
func (b *binder) updateActions(acts []action) []action {
	out := make([]action, len(acts))
	for _, a := range acts {
		b.checkNames(a.syn)
	}
	paths := make([]Path, len(acts))
	for i, a := range acts {
		paths[i] = b.resolve(a.syn, false)
	}
	b.checkOverlaps(paths)
	for i := len(acts) - 1; i >= 0; i-- {
		b.checkNames(acts[i].syn)
		if acts[i].val != nil {
			b.operandNames(acts[i].val)
		}
	}
	for i := len(acts) - 1; i >= 0; i-- {
		a := acts[i]
		n := action{kind: a.kind, clause: a.clause, path: b.resolve(a.syn, true)}
		if a.val != nil {
			n.val = b.operand(a.val)
		}
		if a.kind == uAdd || a.kind == uDelete {
			t := n.val.val.Type
			ok := t == av.TypeSS || t == av.TypeNS || t == av.TypeBS || a.kind == uAdd && t == av.TypeN
			if !ok {
				op := "ADD"
				if a.kind == uDelete {
					op = "DELETE"
				}
				b.fail("Incorrect operand type for operator or function; operator: " + op + ", operand type: " +
					longType(t) + ", typeSet: ALLOWED_FOR_" + op + "_OPERAND")
			}
		}
		out[i] = n
	}
	return out
}

// checkOverlaps refuses two paths that are the same, one inside the other,
// or that use one attribute both as a map and as a list.
func (b *binder) checkOverlaps(paths []Path) {
	for i := 1; i < len(paths); i++ {
		for j := 0; j < i; j++ {
			b.checkPair(paths[j], paths[i])
		}
	}
}

func (b *binder) checkPair(p1, p2 Path) {
	for i := 0; i < len(p1) && i < len(p2); i++ {
		if p1[i].IsIndex != p2[i].IsIndex {
			b.fail("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: " +
				p1.String() + ", path two: " + p2.String())
		}
		if p1[i] != p2[i] {
			return
		}
	}
	b.fail("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: " +
		p1.String() + ", path two: " + p2.String())
}
