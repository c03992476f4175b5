package partiql

import (
	"math"
	"strconv"
	"strings"
)

// reserved are the PartiQL keywords DynamoDB refuses as bare names (they
// may still be written as "quoted" identifiers).
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ALL AND ANY AS ASC BETWEEN BY CASE CAST CROSS DELETE DESC
		DISTINCT ELSE END EXCEPT EXISTS FALSE FROM FULL GROUP HAVING IN INNER INSERT INTERSECT INTO
		IS JOIN LEFT LIKE LIMIT MISSING MODIFIED NEW NOT NULL OFFSET OLD ON OR ORDER OUTER PIVOT
		REMOVE RETURNING RIGHT SELECT SET THEN TRUE UNION UNPIVOT UPDATE VALUE VALUES WHEN WHERE WITH`) {
		m[w] = true
	}
	return m
}()

// operatorWords are keywords that are infix operators: seeing one where a
// term should start is "Unexpected operator".
var operatorWords = map[string]bool{"AND": true, "OR": true, "IS": true, "IN": true, "BETWEEN": true, "LIKE": true}

// typeNames are the names IS accepts, mapped to DynamoDB type descriptors
// ("MISSING" and "NULL" are kept as such).
var typeNames = map[string]string{
	"MISSING": "MISSING", "NULL": "NULL",
	"BOOL": "BOOL", "BOOLEAN": "BOOL",
	"STRING": "S", "VARCHAR": "S", "CHAR": "S",
	"NUMBER": "N", "INT": "N", "INTEGER": "N", "DECIMAL": "N", "FLOAT": "N", "DOUBLE": "N", "NUMERIC": "N",
	"BLOB": "B", "BINARY": "B",
	"LIST": "L", "TUPLE": "M", "STRUCT": "M", "MAP": "M",
	"BAG": "BAG", "SEXP": "SEXP",
}

// TypeDescriptor maps an IS type name to its DynamoDB descriptor.
func TypeDescriptor(name string) string { return typeNames[name] }

func isReserved(t token) bool { return t.kind == kIdent && reserved[strings.ToUpper(t.text)] }

// parser is a recursive-descent parser over the token list.
type parser struct {
	toks   []token
	i      int
	params int
}

// Parse parses one statement.
func Parse(src string) (st *Statement, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	for _, t := range toks {
		if t.kind == kBad {
			return nil, malformed(MsgUnexpectedTerm)
		}
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			st, err = nil, e
		}
	}()
	st = p.statement()
	st.Params = p.params
	if st.Deferred != nil && st.Index == "" {
		return nil, st.Deferred
	}
	return st, nil
}

// skipCall passes over name( … ) with its parentheses balanced; one left
// open is the statement's end, as for any other unclosed parenthesis.
func (p *parser) skipCall() {
	p.next()
	p.next()
	for depth := 1; depth > 0; {
		t := p.next()
		switch {
		case t.kind == kEOF:
			p.fail(malformed(MsgUnexpectedTerm))
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		}
	}
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != kEOF {
		p.i++
	}
	return t
}
func (p *parser) fail(e *Error) { panic(e) }

func (p *parser) acceptKeyword(kw string) bool {
	if p.peek().keyword(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) accept(sym string) bool {
	if p.peek().is(sym) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKeyword(kw, detail string) {
	if !p.acceptKeyword(kw) {
		p.fail(malformed(detail))
	}
}

func (p *parser) expect(sym, detail string) {
	if !p.accept(sym) {
		p.fail(malformed(detail))
	}
}

func (p *parser) statement() *Statement {
	t := p.peek()
	switch {
	case t.keyword("SELECT"):
		p.next()
		return p.selectStmt(false)
	case t.keyword("INSERT"):
		p.next()
		return p.insertStmt()
	case t.keyword("UPDATE"):
		p.next()
		return p.updateStmt()
	case t.keyword("DELETE"):
		p.next()
		return p.deleteStmt()
	case t.keyword("FROM"):
		p.next()
		return p.fromFirstStmt()
	case t.keyword("EXISTS") && p.peekAt(1).is("("):
		p.next()
		p.next()
		if !p.acceptKeyword("SELECT") {
			p.fail(malformed(MsgUnexpectedTerm))
		}
		st := p.selectStmt(true)
		st.Kind = Exists
		p.expect(")", MsgUnexpectedTerm)
		p.end()
		return st
	}
	p.fail(malformed(MsgExpectedDML))
	return nil
}

// end requires the end of the statement.
func (p *parser) end() {
	if p.peek().kind != kEOF {
		p.fail(malformed(MsgTrailingToken))
	}
}

func (p *parser) selectStmt(inExists bool) *Statement {
	st := &Statement{Kind: Select}
	seen := map[string]bool{}
	for {
		t := p.peek()
		if t.is("*") {
			p.next()
			if len(st.Projection) > 0 || st.Star {
				p.fail(refused(MsgStarAndNames, nil))
			}
			st.Star = true
		} else {
			if st.Star {
				p.fail(refused(MsgStarAndNames, nil))
			}
			if (t.kind == kIdent || t.kind == kQuoted) && p.peekAt(1).is("(") {
				// A function in the list is refused once the statement has
				// parsed (a later syntax error wins) and, for an index read,
				// once the index is known to be readable (Deferred).
				if st.Deferred == nil {
					st.Deferred = refused("Unexpected path component", &t.pos)
				}
				p.skipCall()
				if !p.accept(",") {
					break
				}
				continue
			}
			if t.kind == kEOF || isReserved(t) && !t.keyword("FROM") {
				p.fail(malformed(MsgUnexpectedTerm))
			}
			if t.keyword("FROM") {
				p.fail(malformed(MsgUnexpectedTerm))
			}
			path := p.path()
			key := pathKey(path)
			if seen[key] {
				p.fail(refused("Duplicate identifiers in select clause: "+key, nil))
			}
			seen[key] = true
			st.Projection = append(st.Projection, path)
		}
		if !p.accept(",") {
			break
		}
	}
	if !p.acceptKeyword("FROM") {
		p.fail(malformed(MsgUnexpectedTerm))
	}
	p.from(st, MsgUnexpectedTerm)
	if p.acceptKeyword("WHERE") {
		st.Where = p.expr()
	}
	if p.acceptKeyword("ORDER") {
		p.expectKeyword("BY", MsgUnexpectedTerm)
		for {
			o := Order{Path: p.path()}
			if p.acceptKeyword("DESC") {
				o.Desc = true
			} else {
				p.acceptKeyword("ASC")
			}
			st.OrderBy = append(st.OrderBy, o)
			if !p.accept(",") {
				break
			}
		}
	}
	if !inExists {
		p.end()
	} else if !p.peek().is(")") {
		p.fail(malformed(MsgTrailingToken))
	}
	return st
}

// pathKey is a path's text, for duplicate checks and messages.
func pathKey(p Path) string {
	var b strings.Builder
	for i, e := range p.Elems {
		if e.IsIndex {
			b.WriteString("[" + itoa(e.Index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.Name)
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

// from parses the table (and optional index) of a FROM clause and refuses
// an alias after it. missing is the detail when no name follows.
func (p *parser) from(st *Statement, missing string) {
	var comps []string
	for {
		comps = append(comps, p.name(missing).text)
		if !p.accept(".") {
			break
		}
	}
	if len(comps) > 2 {
		p.fail(refused(MsgFromTooLong, nil))
	}
	st.Table = comps[0]
	if len(comps) == 2 {
		st.Index = comps[1]
	}
	if t := p.peek(); t.keyword("AS") || t.kind == kIdent && !isReserved(t) || t.kind == kQuoted {
		if st.Kind == Insert {
			// INSERT INTO "t" alias: DynamoDB reads a leftover token.
			p.fail(malformed(MsgTrailingToken))
		}
		p.fail(refused(MsgAliasing, nil))
	}
}

func (p *parser) insertStmt() *Statement {
	st := &Statement{Kind: Insert}
	p.expectKeyword("INTO", MsgUnexpectedTerm)
	p.from(st, MsgExpectedPath)
	if st.Index != "" {
		p.fail(refused("FROM clause may only contain a single table name in data manipulation statements", nil))
	}
	p.expectKeyword("VALUE", MsgUnexpectedTerm)
	st.Value = p.expr()
	if p.peek().keyword("RETURNING") {
		p.fail(refused(MsgInsertReturning, nil))
	}
	p.end()
	return st
}

func (p *parser) updateStmt() *Statement {
	st := &Statement{Kind: Update}
	p.from(st, MsgExpectedPath)
	p.updateClauses(st)
	if p.acceptKeyword("WHERE") {
		st.Where = p.expr()
	}
	p.returning(st)
	p.end()
	return st
}

// fromFirstStmt is FROM "t" WHERE … SET …|REMOVE …, an UPDATE.
func (p *parser) fromFirstStmt() *Statement {
	st := &Statement{Kind: Update}
	p.from(st, MsgExpectedPath)
	if p.acceptKeyword("WHERE") {
		st.Where = p.expr()
	}
	p.updateClauses(st)
	p.returning(st)
	p.end()
	return st
}

// updateClauses parses one or more SET/REMOVE clauses.
func (p *parser) updateClauses(st *Statement) {
	n := 0
	for {
		switch {
		case p.acceptKeyword("SET"):
			for {
				path := p.path()
				p.expect("=", MsgUnexpectedTerm)
				st.Sets = append(st.Sets, Assign{Path: path, Value: p.additive()})
				if !p.accept(",") {
					break
				}
			}
		case p.acceptKeyword("REMOVE"):
			for {
				st.Removes = append(st.Removes, p.path())
				if !p.accept(",") {
					break
				}
			}
		default:
			if n == 0 {
				p.fail(malformed(MsgUnexpectedTerm))
			}
			return
		}
		n++
	}
}

func (p *parser) deleteStmt() *Statement {
	st := &Statement{Kind: Delete}
	p.expectKeyword("FROM", MsgExpectedPath)
	p.from(st, MsgExpectedPath)
	if p.acceptKeyword("WHERE") {
		st.Where = p.expr()
	}
	p.returning(st)
	p.end()
	return st
}

// returning parses RETURNING (ALL|MODIFIED) (OLD|NEW) *.
func (p *parser) returning(st *Statement) {
	t := p.peek()
	if !p.acceptKeyword("RETURNING") {
		return
	}
	a, b := p.next(), p.next()
	if !(a.keyword("ALL") || a.keyword("MODIFIED")) || !(b.keyword("OLD") || b.keyword("NEW")) {
		p.fail(malformed(MsgUnexpectedTerm))
	}
	p.expect("*", MsgUnexpectedTerm)
	st.Returning = strings.ToUpper(a.text) + " " + strings.ToUpper(b.text)
	st.ReturningPos = t.pos
}

// name reads a quoted or bare (non-keyword) name; missing is the detail
// when there is none.
func (p *parser) name(missing string) token {
	t := p.peek()
	switch {
	case t.kind == kQuoted:
		if t.text == "" {
			p.fail(refused(MsgEmptyComponent, nil))
		}
	case t.kind == kIdent && !isReserved(t):
	default:
		p.fail(malformed(missing))
	}
	return p.next()
}

// path parses name { .name | [n] }.
func (p *parser) path() Path {
	t := p.name(MsgExpectedPath)
	path := Path{Elems: []PathElem{{Name: t.text}}, Pos: t.pos}
	p.pathRest(&path)
	return path
}

func (p *parser) pathRest(path *Path) {
	for {
		switch {
		case p.peek().is("."):
			p.next()
			path.Elems = append(path.Elems, PathElem{Name: p.name(MsgInvalidDotPath).text})
		case p.peek().is("["):
			p.next()
			neg := p.accept("-")
			t := p.next()
			n, ok := smallInt(t)
			if !ok {
				p.fail(malformed(MsgUnexpectedTerm))
			}
			if neg && n != 0 {
				// DynamoDB reads [-0] as [0] and refuses any other negative
				// index at the number after the minus.
				p.fail(refused("List index is not within the allowable range; index: [-"+itoa(n)+"]", &t.pos))
			}
			p.expect("]", MsgUnexpectedTerm)
			path.Elems = append(path.Elems, PathElem{Index: n, IsIndex: true})
		default:
			return
		}
		last := p.toks[p.i-1].pos
		if last.Line == path.Pos.Line {
			path.Pos.Len = last.Col + last.Len - path.Pos.Col
		}
	}
}

// smallInt reads a list index: digits that fit an int32.
func smallInt(t token) (int, bool) {
	if t.kind != kNumber || t.text == "" {
		return 0, false
	}
	n := 0
	for _, c := range t.text {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > 1<<31-1 {
			return 0, false
		}
	}
	return n, true
}

// Expressions, loosest first: OR, AND, NOT, comparison, + -, primary.

func (p *parser) expr() Expr { return p.or() }

// rhs parses the right operand of an infix operator with f.
func (p *parser) rhs(f func() Expr) Expr {
	if p.peek().kind == kEOF {
		p.fail(malformed(MsgMissingRHS))
	}
	return f()
}

func (p *parser) or() Expr { return p.logical("OR", p.and) }

func (p *parser) and() Expr { return p.logical("AND", p.not) }

// logical parses operand { kw operand }, left-associative.
func (p *parser) logical(kw string, operand func() Expr) Expr {
	l := operand()
	for p.peek().keyword(kw) {
		t := p.next()
		l = &Binary{Op: kw, L: l, R: p.rhs(operand), Pos: t.pos}
	}
	return l
}

func (p *parser) not() Expr {
	if t := p.peek(); t.keyword("NOT") {
		p.next()
		return &Not{X: p.not(), Pos: t.pos}
	}
	return p.comparison()
}

func (p *parser) comparison() Expr {
	l := p.additive()
	t := p.peek()
	neg := false
	if t.keyword("NOT") && (p.peekAt(1).keyword("IN") || p.peekAt(1).keyword("BETWEEN")) {
		p.next()
		neg = true
		t = p.peek()
	}
	var e Expr
	switch {
	case t.kind == kPunct && (t.text == "=" || t.text == "<>" || t.text == "!=" || t.text == "<" ||
		t.text == "<=" || t.text == ">" || t.text == ">="):
		p.next()
		op := t.text
		if op == "!=" {
			op = "<>"
		}
		return &Binary{Op: op, L: l, R: p.rhs(p.additive), Pos: t.pos}
	case t.keyword("BETWEEN"):
		p.next()
		lo := p.rhs(p.additive)
		p.expectKeyword("AND", MsgMissingRHS)
		hi := p.rhs(p.additive)
		e = &Between{X: l, Lo: lo, Hi: hi, Pos: t.pos}
	case t.keyword("IN"):
		p.next()
		in := &In{X: l, Pos: t.pos}
		closer := "]"
		if p.accept("(") {
			closer = ")"
		} else if !p.accept("[") {
			p.fail(malformed(MsgUnexpectedTerm))
		}
		in.List = p.items(closer, p.additive)
		e = in
	case t.keyword("IS"):
		p.next()
		is := &Is{X: l, Pos: t.pos}
		is.Neg = p.acceptKeyword("NOT")
		tt := p.next()
		name := strings.ToUpper(tt.text)
		if tt.kind != kIdent || typeNames[name] == "" {
			p.fail(malformed(MsgExpectedType))
		}
		is.Type = name
		return is
	default:
		return l
	}
	if neg {
		return &Not{X: e, Pos: t.pos}
	}
	return e
}

func (p *parser) additive() Expr {
	l := p.primary()
	for {
		t := p.peek()
		if !t.is("+") && !t.is("-") {
			return l
		}
		p.next()
		l = &Binary{Op: t.text, L: l, R: p.rhs(p.primary), Pos: t.pos}
	}
}

// numberFits refuses a number literal whose exponent, or whose scale (the
// digits after the point less the exponent), does not fit a 32-bit
// integer: DynamoDB's reader cannot read it, and says nothing after the
// "wasn't well formed" colon.
func (p *parser) numberFits(text string) {
	mant, exp := text, ""
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mant, exp = text[:i], text[i+1:]
	}
	var e int64
	if exp != "" {
		var err error
		if e, err = strconv.ParseInt(exp, 10, 32); err != nil {
			p.fail(malformed(""))
		}
	}
	frac := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		frac = len(mant) - i - 1
	}
	if scale := int64(frac) - e; scale < math.MinInt32 || scale > math.MaxInt32 {
		p.fail(malformed(""))
	}
}

func (p *parser) primary() Expr {
	t := p.peek()
	switch t.kind {
	case kEOF:
		p.fail(malformed(MsgUnexpectedTerm))
	case kString:
		p.next()
		return &Lit{Kind: LitString, Text: t.text, Pos: t.pos}
	case kNumber:
		p.next()
		p.numberFits(t.text)
		return &Lit{Kind: LitNumber, Text: t.text, Pos: t.pos}
	case kParam:
		p.next()
		p.params++
		return &Param{N: p.params - 1, Pos: t.pos}
	case kQuoted:
		return &PathExpr{Path: p.path()}
	case kIdent:
		up := strings.ToUpper(t.text)
		switch up {
		case "TRUE", "FALSE":
			p.next()
			return &Lit{Kind: LitBool, Text: strings.ToLower(up), Pos: t.pos}
		case "NULL":
			p.next()
			return &Lit{Kind: LitNull, Pos: t.pos}
		case "MISSING":
			p.next()
			return &Lit{Kind: LitMissing, Pos: t.pos}
		}
		if p.peekAt(1).is("(") {
			return p.call()
		}
		if reserved[up] {
			if operatorWords[up] {
				p.fail(malformed(MsgUnexpectedOp))
			}
			p.fail(malformed(MsgUnexpectedKeyword))
		}
		return &PathExpr{Path: p.path()}
	case kPunct:
		switch t.text {
		case "(":
			p.next()
			e := p.expr()
			p.expect(")", MsgUnexpectedTerm)
			return e
		case "-", "+":
			if n := p.peekAt(1); n.kind == kNumber {
				p.next()
				p.next()
				text := n.text
				if t.text == "-" {
					text = "-" + text
				}
				pos := t.pos
				pos.Len = n.pos.Col + n.pos.Len - t.pos.Col
				p.numberFits(n.text)
				return &Lit{Kind: LitNumber, Text: text, Pos: pos}
			}
		case "[":
			p.next()
			return &List{Elems: p.items("]", p.expr), Pos: t.pos}
		case "<<":
			p.next()
			return &Set{Elems: p.items(">>", p.additive), Pos: t.pos}
		case "{":
			p.next()
			m := &Map{Pos: t.pos}
			if !p.accept("}") {
				for {
					k := p.next()
					if k.kind != kString {
						p.fail(malformed(MsgUnexpectedTerm))
					}
					p.expect(":", MsgUnexpectedTerm)
					m.Keys = append(m.Keys, k.text)
					m.Vals = append(m.Vals, p.expr())
					if !p.accept(",") {
						break
					}
				}
				p.expect("}", MsgUnexpectedTerm)
			}
			return m
		}
	}
	p.fail(malformed(MsgUnexpectedTerm))
	return nil
}

// call parses name(args).
func (p *parser) call() Expr {
	t := p.next()
	p.next() // (
	c := &Call{Name: strings.ToLower(t.text), Pos: t.pos}
	c.Args = p.items(")", p.expr)
	return c
}

// items parses a comma-separated, possibly empty list of elem up to closer
// (the opening bracket already read).
func (p *parser) items(closer string, elem func() Expr) []Expr {
	var out []Expr
	if p.accept(closer) {
		return out
	}
	for {
		out = append(out, elem())
		if !p.accept(",") {
			break
		}
	}
	p.expect(closer, MsgUnexpectedTerm)
	return out
}
