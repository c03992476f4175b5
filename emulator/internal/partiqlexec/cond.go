package partiqlexec

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/partiql"
)

// PartiQL runs on the classic operations: a statement is parsed (once per
// text, see partiqlState), checked, and translated into expression text
// with #names and :values for Query, Scan, PutItem, UpdateItem, DeleteItem,
// TransactWriteItems and TransactGetItems. Validation, capacity, throttling,
// streams and indexes are therefore those of the classic API.

// CodeDuplicateItem is what INSERT of an existing key answers.
const CodeDuplicateItem = "DuplicateItemException"

const (
	msgDuplicateItem  = "Duplicate primary key exists in table"
	msgMandatoryKeyEq = "Where clause does not contain a mandatory equality on all key attributes"
	msgNotOnIndex     = "This operation is not supported on an index"
	msgNoSuchIndex    = "The table does not have the specified index"
	msgGSIConsistent  = "Strongly consistent read is not supported on Global Secondary Indexes"
	msgMissingIsOnly  = "MISSING must be compared using IS operator"
	// partiqlCacheSize bounds the statement cache; it is emptied when full.
	partiqlCacheSize = 4096
)

// partiqlState caches parsed statements (and parse errors) by text; its
// zero value is ready. Statements are immutable once parsed.
type partiqlState struct {
	mu    sync.RWMutex
	cache map[string]partiqlParsed
}

type partiqlParsed struct {
	st  *partiql.Statement
	err error
}

// parseStatement parses text through the cache.
func (e engine) parseStatement(text string) (*partiql.Statement, error) {
	s := e.pq
	s.mu.RLock()
	p, ok := s.cache[text]
	s.mu.RUnlock()
	if ok {
		return p.st, p.err
	}
	st, err := partiql.Parse(text)
	s.mu.Lock()
	if s.cache == nil || len(s.cache) >= partiqlCacheSize {
		s.cache = make(map[string]partiqlParsed)
	}
	s.cache[text] = partiqlParsed{st: st, err: err}
	s.mu.Unlock()
	return st, err
}

// pqError turns a parser or binder error into the engine's error.
func pqError(err error) error {
	if pe, ok := err.(*partiql.Error); ok {
		return api.Validation("%s", pe.Message)
	}
	return exprError(err)
}

// pqPrepared is a statement with its parameters checked.
type pqPrepared struct {
	st     *partiql.Statement
	params []av.Value
}

// prepare parses text and binds params: the count must match and every
// value must be valid.
func (e engine) pqPrepare(text string, params []av.Value) (*pqPrepared, error) {
	p, _, err := e.pqPrepareParts(text, params, false)
	return p, err
}

// pqPrepareLate is pqPrepare leaving an index read's Deferred refusal to
// planSelect, which reports it once the index resolves (ExecuteStatement).
func (e engine) pqPrepareLate(text string, params []av.Value) (*pqPrepared, error) {
	p, _, err := e.pqPrepareParts(text, params, true)
	return p, err
}

// pqPrepareParts is pqPrepare telling also whether the error is a
// parameter's value, which ExecuteTransaction reports without the
// statement's place; late is pqPrepareLate's.
func (e engine) pqPrepareParts(text string, params []av.Value, late bool) (p *pqPrepared, param bool, err error) {
	// A parameter's value is checked before the statement is read, as
	// DynamoDB does (a duplicate set member is reported for a statement
	// that does not parse).
	for _, v := range params {
		if err := av.ValidateParam(v); err != nil {
			return nil, true, exprError(err)
		}
	}
	st, err := e.parseStatement(text)
	if err != nil {
		return nil, false, pqError(err)
	}
	if st.Deferred != nil && !late {
		return nil, false, pqError(st.Deferred)
	}
	if st.Params != len(params) {
		return nil, false, api.Validation(partiql.MsgParamCount)
	}
	p = &pqPrepared{st: st, params: params}
	if st.Where != nil {
		// Operand types and functions are checked before the table is
		// looked up, as DynamoDB does.
		if _, err := p.newCond().cond(st.Where); err != nil {
			return nil, false, err
		}
	}
	return p, false, nil
}

// condText builds DynamoDB expression text from PartiQL trees.
type condText struct {
	p      *pqPrepared
	names  map[string]string
	byName map[string]string
	values map[string]av.Value
}

func (p *pqPrepared) newCond() *condText {
	return &condText{p: p, names: map[string]string{}, byName: map[string]string{}, values: map[string]av.Value{}}
}

// namesOrNil and valuesOrNil give the maps as a request carries them.
func (c *condText) namesOrNil() map[string]string {
	if len(c.names) == 0 {
		return nil
	}
	return c.names
}

func (c *condText) valuesOrNil() map[string]av.Value {
	if len(c.values) == 0 {
		return nil
	}
	return c.values
}

func (c *condText) name(n string) string {
	if ph, ok := c.byName[n]; ok {
		return ph
	}
	ph := "#n" + strconv.Itoa(len(c.names))
	c.names[ph] = n
	c.byName[n] = ph
	return ph
}

func (c *condText) value(v av.Value) string {
	ph := ":v" + strconv.Itoa(len(c.values))
	c.values[ph] = v
	return ph
}

func (c *condText) path(p partiql.Path) string {
	var b strings.Builder
	for i, el := range p.Elems {
		if el.IsIndex {
			b.WriteString("[" + strconv.Itoa(el.Index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(c.name(el.Name))
	}
	return b.String()
}

// exprPath converts a PartiQL path to the expression package's.
func exprPath(p partiql.Path) expr.Path {
	out := make(expr.Path, len(p.Elems))
	for i, el := range p.Elems {
		out[i] = expr.PathElem{Name: el.Name, Index: el.Index, IsIndex: el.IsIndex}
	}
	return out
}

func pos(p partiql.Pos) string { return " at " + p.String() }

// literal evaluates a value expression.
func (c *condText) literal(x partiql.Expr) (av.Value, error) {
	v, err := partiql.Value(x, c.p.params)
	if err != nil {
		return av.Value{}, pqError(err)
	}
	return v, nil
}

// operand writes a value position of a condition.
func (c *condText) operand(x partiql.Expr) (string, error) {
	switch o := x.(type) {
	case *partiql.PathExpr:
		return c.path(o.Path), nil
	case *partiql.Lit:
		if o.Kind == partiql.LitMissing {
			return "", api.Validation(msgMissingIsOnly)
		}
	case *partiql.Call:
		if o.Name == "size" {
			if len(o.Args) != 1 {
				return "", api.Validation("Incorrect number of operands for operator or function; operator or function: size, number of operands: %d", len(o.Args))
			}
			pe, ok := o.Args[0].(*partiql.PathExpr)
			if !ok {
				return "", api.Validation("Operator or function requires a document path; operator or function: size")
			}
			return "size(" + c.path(pe.Path) + ")", nil
		}
		return "", c.unknownFunc(o)
	case *partiql.Binary:
		if o.Op == "+" || o.Op == "-" {
			return "", api.Validation("Unsupported operator in a condition: %s%s", o.Op, pos(o.Pos))
		}
		return "", api.Validation(partiql.MalformedPrefix + partiql.MsgUnexpectedTerm)
	}
	return c.literalValue(x)
}

// literalValue writes a value expression as a :placeholder.
func (c *condText) literalValue(x partiql.Expr) (string, error) {
	if !partiql.IsLiteral(x) {
		return "", api.Validation(partiql.MalformedPrefix + partiql.MsgUnexpectedTerm)
	}
	v, err := c.literal(x)
	if err != nil {
		return "", err
	}
	return c.value(v), nil
}

func (c *condText) unknownFunc(f *partiql.Call) error {
	return api.Validation("Unrecognized function: %s%s", f.Name, pos(f.Pos))
}

// orderedOperand is an operand of < <= > >= BETWEEN: a value must be S, N or B.
func (c *condText) orderedOperand(x partiql.Expr, op string) (string, error) {
	s, err := c.operand(x)
	if err != nil {
		return "", err
	}
	if v, ok := c.values[s]; ok && v.Type != av.TypeS && v.Type != av.TypeN && v.Type != av.TypeB {
		return "", api.Validation("Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, v.Type)
	}
	return s, nil
}

// boolConst reports whether x is TRUE or FALSE.
func boolConst(x partiql.Expr) (val, ok bool) {
	if l, is := x.(*partiql.Lit); is && l.Kind == partiql.LitBool {
		return l.Text == "true", true
	}
	return false, false
}

// cond writes a boolean expression.
func (c *condText) cond(x partiql.Expr) (string, error) {
	switch n := x.(type) {
	case *partiql.Binary:
		switch n.Op {
		case "AND", "OR":
			l, err := c.cond(n.L)
			if err != nil {
				return "", err
			}
			r, err := c.cond(n.R)
			if err != nil {
				return "", err
			}
			return group(l) + " " + n.Op + " " + group(r), nil
		case "=", "<>":
			// attribute_exists(x) = true and the like.
			for _, pair := range [][2]partiql.Expr{{n.L, n.R}, {n.R, n.L}} {
				if f, ok := pair[0].(*partiql.Call); ok && f.Name != "size" {
					if b, isBool := boolConst(pair[1]); isBool {
						s, err := c.cond(f)
						if err != nil {
							return "", err
						}
						if b == (n.Op == "=") {
							return s, nil
						}
						return "NOT " + group(s), nil
					}
				}
			}
			fallthrough
		case "<", "<=", ">", ">=":
			get := c.operand
			if n.Op != "=" && n.Op != "<>" {
				get = func(x partiql.Expr) (string, error) { return c.orderedOperand(x, n.Op) }
			}
			l, err := get(n.L)
			if err != nil {
				return "", err
			}
			r, err := get(n.R)
			if err != nil {
				return "", err
			}
			out := l + " " + n.Op + " " + r
			if n.Op == "<>" {
				// An absent attribute matches neither = nor <>.
				for _, x := range []partiql.Expr{n.L, n.R} {
					if pe, ok := x.(*partiql.PathExpr); ok {
						out = group(out) + " AND attribute_exists(" + c.path(pe.Path) + ")"
					}
				}
			}
			return out, nil
		}
		return "", api.Validation(partiql.MalformedPrefix + partiql.MsgUnexpectedTerm)
	case *partiql.Not:
		s, err := c.cond(n.X)
		if err != nil {
			return "", err
		}
		return "NOT " + group(s), nil
	case *partiql.Between:
		var parts [3]string
		for i, o := range []partiql.Expr{n.X, n.Lo, n.Hi} {
			s, err := c.orderedOperand(o, "BETWEEN")
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return parts[0] + " BETWEEN " + parts[1] + " AND " + parts[2], nil
	case *partiql.In:
		l, err := c.operand(n.X)
		if err != nil {
			return "", err
		}
		if len(n.List) == 0 {
			return "", api.Validation(partiql.MalformedPrefix + partiql.MsgUnexpectedTerm)
		}
		items := make([]string, len(n.List))
		for i, o := range n.List {
			if items[i], err = c.operand(o); err != nil {
				return "", err
			}
		}
		return l + " IN (" + strings.Join(items, ", ") + ")", nil
	case *partiql.Is:
		pe, ok := n.X.(*partiql.PathExpr)
		if !ok {
			return "", api.Validation("Operator or function requires a document path; operator or function: IS")
		}
		p := c.path(pe.Path)
		var s string
		switch t := partiql.TypeDescriptor(n.Type); t {
		case "MISSING":
			s = "attribute_not_exists(" + p + ")"
		case "BAG", "SEXP":
			s = "attribute_type(" + p + ", " + c.value(av.Value{Type: av.TypeS, S: "SS"}) + ") AND NOT (attribute_exists(" + p + "))"
		default:
			s = "attribute_type(" + p + ", " + c.value(av.Value{Type: av.TypeS, S: t}) + ")"
		}
		if n.Neg {
			return "NOT " + group(s), nil
		}
		return s, nil
	case *partiql.Call:
		return c.function(n)
	}
	return "", api.Validation(partiql.MalformedPrefix + partiql.MsgUnexpectedTerm)
}

// function writes a boolean function call.
func (c *condText) function(f *partiql.Call) (string, error) {
	want := map[string]int{"begins_with": 2, "contains": 2, "attribute_type": 2, "attribute_exists": 1, "attribute_not_exists": 1}[f.Name]
	if want == 0 {
		return "", c.unknownFunc(f)
	}
	if len(f.Args) != want {
		return "", api.Validation("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", f.Name, len(f.Args))
	}
	args := make([]string, len(f.Args))
	for i, a := range f.Args {
		if i == 0 {
			pe, ok := a.(*partiql.PathExpr)
			if !ok {
				return "", api.Validation("Operator or function requires a document path; operator or function: %s", f.Name)
			}
			args[i] = c.path(pe.Path)
			continue
		}
		s, err := c.operand(a)
		if err != nil {
			return "", err
		}
		args[i] = s
	}
	return f.Name + "(" + strings.Join(args, ", ") + ")", nil
}

// group parenthesizes s unless it already is one parenthesized group (the
// expression parser refuses redundant parentheses).
func group(s string) string {
	if len(s) > 1 && s[0] == '(' {
		depth := 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					if i == len(s)-1 {
						return s
					}
					return "(" + s + ")"
				}
			}
		}
	}
	return "(" + s + ")"
}

// conjuncts flattens the top-level ANDs of x.
func conjuncts(x partiql.Expr, out []partiql.Expr) []partiql.Expr {
	if b, ok := x.(*partiql.Binary); ok && b.Op == "AND" {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	return append(out, x)
}

// disjuncts flattens the top-level ORs of x.
func disjuncts(x partiql.Expr, out []partiql.Expr) []partiql.Expr {
	if b, ok := x.(*partiql.Binary); ok && b.Op == "OR" {
		return disjuncts(b.R, disjuncts(b.L, out))
	}
	return append(out, x)
}

// attrOf returns the attribute a term's path names when the path is a
// single top-level name.
func attrOf(x partiql.Expr) (string, bool) {
	pe, ok := x.(*partiql.PathExpr)
	if !ok || len(pe.Path.Elems) != 1 || pe.Path.Elems[0].IsIndex {
		return "", false
	}
	return pe.Path.Elems[0].Name, true
}

// keyEquality returns (attribute, value expression) for a term attr = literal.
func keyEquality(x partiql.Expr) (string, partiql.Expr, bool) {
	b, ok := x.(*partiql.Binary)
	if !ok || b.Op != "=" {
		return "", nil, false
	}
	if a, ok := attrOf(b.L); ok && partiql.IsLiteral(b.R) {
		return a, b.R, true
	}
	if a, ok := attrOf(b.R); ok && partiql.IsLiteral(b.L) {
		return a, b.L, true
	}
	return "", nil, false
}

// itemKey splits a write's WHERE into the item's key (an equality on every
// key attribute) and the remaining terms, which become the condition.
func (p *pqPrepared) itemKey(t *Table) (av.Item, []partiql.Expr, error) {
	return p.itemKeyOf(t, false)
}

// itemKeyOf is itemKey; with sameTwice a key equality written again with
// the same value is redundant, and with another value the key is not
// named (msgMandatoryKeyEq), as a SELECT in a transaction or batch reads
// them.
func (p *pqPrepared) itemKeyOf(t *Table, sameTwice bool) (av.Item, []partiql.Expr, error) {
	if p.st.Where == nil {
		return nil, nil, api.Validation(msgMandatoryKeyEq)
	}
	key := av.Item{}
	var rest []partiql.Expr
	for _, term := range conjuncts(p.st.Where, nil) {
		a, vx, ok := keyEquality(term)
		if ok && t.isKey(a) {
			prev, dup := key[a]
			if dup && !sameTwice {
				return nil, nil, api.Validation("Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported", a)
			}
			v, err := partiql.Value(vx, p.params)
			if err != nil {
				return nil, nil, pqError(err)
			}
			if dup {
				if prev.Type != v.Type || string(av.AppendKey(nil, prev)) != string(av.AppendKey(nil, v)) {
					return nil, nil, api.Validation(msgMandatoryKeyEq)
				}
				continue
			}
			key[a] = v
			continue
		}
		rest = append(rest, term)
	}
	if len(key) != t.keyCount() {
		return nil, nil, api.Validation(msgMandatoryKeyEq)
	}
	return key, rest, nil
}

// andText writes terms joined by AND ("" for none).
func (c *condText) andText(terms []partiql.Expr) (string, error) {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		s, err := c.cond(t)
		if err != nil {
			return "", err
		}
		parts = append(parts, group(s))
	}
	return strings.Join(parts, " AND "), nil
}

// pqTable looks up a statement's table; PartiQL's missing-table message
// names no table. With a caller (--auth=sigv4) the statement is authorized
// as IAM does PartiQL: dynamodb:PartiQLSelect/Insert/Update/Delete on the
// table (or index) it names, without cross-account access.
func (e engine) pqTable(ctx context.Context, ns api.Namespace, st *partiql.Statement) (Table, error) {
	return e.Table(ctx, ns, pqActions[st.Kind], st.Table, st.Index)
}

// pqActions are IAM's PartiQL actions of the statement kinds (whole
// strings: a concatenation would be an allocation per statement).
var pqActions = map[partiql.Kind]string{partiql.Select: "dynamodb:PartiQLSelect", partiql.Insert: "dynamodb:PartiQLInsert",
	partiql.Update: "dynamodb:PartiQLUpdate", partiql.Delete: "dynamodb:PartiQLDelete", partiql.Exists: "dynamodb:PartiQLSelect"}

// exprError turns an expression or attribute-value failure into DynamoDB's
// ValidationException; other errors pass through (as the engine's).
func exprError(err error) error { return api.AsValidation(err) }

// hasCode reports whether err is an *Error with code.
func hasCode(err error, code string) bool {
	ee, ok := err.(*api.Error)
	return ok && ee.Code == code
}
