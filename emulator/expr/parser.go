package expr

import (
	"strconv"
	"strings"
)

// mode selects the grammar: keywords differ between conditions and updates.
type mode uint8

const (
	mCond mode = iota
	mUpdate
	mProj
)

// staticErrs holds the first error of each category that depends only on
// the expression text. DynamoDB reports categories in a fixed order, after
// syntax errors and before errors that depend on names and values.
type staticErrs struct {
	parens, unknownFn, misusedFn, reserved, section string
}

type parser struct {
	src  string
	toks []token
	pos  int
	far  int // farthest token index at which parsing failed
	mode mode
	st   staticErrs
}

// parsed is what the cache keeps for one expression text: the syntax tree
// with placeholders unresolved, or the text-only error.
type parsed struct {
	cond    *cond
	actions []action
	paths   [][]synElem
	err     string // message without the "Invalid XExpression: " prefix
	// parens is the redundant-parentheses error, kept apart because
	// DynamoDB reports it for conditions and filters but accepts
	// "((k = :v))" in a KeyConditionExpression. It takes precedence over
	// the other text-only errors, which follow in err.
	parens string
}

type pstate struct {
	pos int
	st  staticErrs
}

func (p *parser) save() pstate     { return pstate{p.pos, p.st} }
func (p *parser) restore(s pstate) { p.pos, p.st = s.pos, s.st }
func (p *parser) peek() token      { return p.toks[p.pos] }
func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) text(t token) string { return p.src[t.start:t.end] }

func (p *parser) fail() {
	if p.pos > p.far {
		p.far = p.pos
	}
}

func (p *parser) isKeyword(t token) bool {
	if t.kind != tIdent {
		return false
	}
	var kws []string
	switch p.mode {
	case mCond:
		kws = []string{"AND", "OR", "NOT", "BETWEEN", "IN"}
	case mUpdate:
		kws = []string{"SET", "REMOVE", "ADD", "DELETE"}
	default:
		return false
	}
	s := p.text(t)
	for _, k := range kws {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

func newParser(src string, m mode) *parser {
	return &parser{src: src, toks: lex(src), mode: m}
}

func (p *parser) syntaxErr() string { return syntaxError(p.src, p.toks, p.far) }

// parseCondition parses a condition, filter or key-condition expression.
func parseCondition(src string) *parsed {
	p := newParser(src, mCond)
	c, ok := p.orCond()
	if ok && p.peek().kind != tEOF {
		p.fail()
		ok = false
	}
	if !ok {
		return &parsed{err: p.syntaxErr()}
	}
	out := &parsed{cond: c, parens: p.st.parens}
	for _, e := range []string{p.st.unknownFn, p.st.misusedFn, p.st.reserved} {
		if e != "" {
			out.err = e
			break
		}
	}
	return out
}

// parseUpdate parses an update expression.
func parseUpdate(src string) *parsed {
	p := newParser(src, mUpdate)
	acts, ok := p.update()
	if !ok {
		return &parsed{err: p.syntaxErr()}
	}
	for _, e := range []string{p.st.reserved, p.st.unknownFn, p.st.misusedFn, p.st.section, p.st.parens} {
		if e != "" {
			return &parsed{err: e}
		}
	}
	return &parsed{actions: acts}
}

// parseProjection parses a projection expression.
func parseProjection(src string) *parsed {
	p := newParser(src, mProj)
	var paths [][]synElem
	for {
		path, ok := p.path()
		if !ok {
			return &parsed{err: p.syntaxErr()}
		}
		paths = append(paths, path)
		if p.peek().kind != tComma {
			break
		}
		p.pos++
	}
	if p.peek().kind != tEOF {
		p.fail()
		return &parsed{err: p.syntaxErr()}
	}
	if p.st.reserved != "" {
		return &parsed{err: p.st.reserved}
	}
	return &parsed{paths: paths}
}

// ---- document paths ----

func (p *parser) pathElem() (synElem, bool) {
	t := p.peek()
	switch {
	case t.kind == tName:
		p.pos++
		return synElem{text: p.text(t), isName: true}, true
	case t.kind == tIdent && !p.isKeyword(t):
		p.pos++
		s := p.text(t)
		if p.st.reserved == "" && IsReserved(s) {
			p.st.reserved = "Attribute name is a reserved keyword; reserved keyword: " + s
		}
		return synElem{text: s, isIdent: true}, true
	}
	p.fail()
	return synElem{}, false
}

func (p *parser) path() ([]synElem, bool) {
	first, ok := p.pathElem()
	if !ok {
		return nil, false
	}
	elems := []synElem{first}
	for {
		switch p.peek().kind {
		case tDot:
			p.pos++
			e, ok := p.pathElem()
			if !ok {
				return nil, false
			}
			elems = append(elems, e)
		case tLBrack:
			p.pos++
			t := p.peek()
			if t.kind != tNumber {
				p.fail()
				return nil, false
			}
			n, err := strconv.Atoi(p.text(t))
			if err != nil || n > 1<<30 {
				p.fail()
				return nil, false
			}
			p.pos++
			if p.peek().kind != tRBrack {
				p.fail()
				return nil, false
			}
			p.pos++
			elems = append(elems, synElem{idx: n, isIdx: true})
		default:
			return elems, true
		}
	}
}

// ---- operands ----

func (p *parser) isFuncStart() bool {
	t := p.peek()
	return t.kind == tIdent && !p.isKeyword(t) && p.peekAt(1).kind == tLParen
}

func (p *parser) operand() (*operand, bool) {
	t := p.peek()
	switch {
	case t.kind == tValue:
		p.pos++
		return &operand{kind: opValue, ref: p.text(t)}, true
	case p.isFuncStart():
		return p.funcCall()
	case t.kind == tName || t.kind == tIdent:
		path, ok := p.path()
		if !ok {
			return nil, false
		}
		return &operand{kind: opPath, syn: path}, true
	}
	p.fail()
	return nil, false
}

// operandParens parses an operand optionally wrapped in parentheses; two or
// more pairs are redundant for DynamoDB.
func (p *parser) operandParens() (*operand, bool) {
	n := 0
	save := p.save()
	for p.peek().kind == tLParen {
		p.pos++
		n++
	}
	o, ok := p.operand()
	if !ok {
		p.restore(save)
		return nil, false
	}
	for i := 0; i < n; i++ {
		if p.peek().kind != tRParen {
			p.fail()
			p.restore(save)
			return nil, false
		}
		p.pos++
	}
	if n >= 2 && p.st.parens == "" {
		p.st.parens = "The expression has redundant parentheses;"
	}
	return o, true
}

func (p *parser) funcCall() (*operand, bool) {
	name := p.text(p.peek())
	p.pos += 2 // name and "("
	var args []*operand
	for {
		a, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		args = append(args, a)
		if p.peek().kind != tComma {
			break
		}
		p.pos++
	}
	if p.peek().kind != tRParen {
		p.fail()
		return nil, false
	}
	p.pos++
	p.checkFuncName(name)
	if p.mode == mCond {
		p.checkMisusedArgs(args)
	}
	return &operand{kind: opFunc, fn: name, args: args}, true
}

func (p *parser) checkFuncName(name string) {
	if p.st.unknownFn != "" {
		return
	}
	if !isConditionFunc(name) && !isUpdateFunc(name) {
		p.st.unknownFn = "Invalid function name; function: " + name
		return
	}
	if p.st.misusedFn == "" && (p.mode == mCond && isUpdateFunc(name) || p.mode == mUpdate && isConditionFunc(name)) {
		p.st.misusedFn = misused(name)
	}
}

func misused(name string) string {
	return "The function is not allowed to be used this way in an expression; function: " + name
}

// checkMisusedArgs flags functions other than size used where a value is
// expected (comparison operands and function arguments).
func (p *parser) checkMisusedArgs(args []*operand) {
	for _, a := range args {
		if a.kind == opFunc && a.fn != "size" && p.st.misusedFn == "" {
			p.st.misusedFn = misused(a.fn)
		}
	}
}

// ---- conditions ----

func (p *parser) orCond() (*cond, bool) {
	l, ok := p.andCond()
	if !ok {
		return nil, false
	}
	for p.isKw("OR") {
		p.pos++
		r, ok := p.andCond()
		if !ok {
			return nil, false
		}
		l = &cond{kind: cOr, l: l, r: r}
	}
	return l, true
}

func (p *parser) andCond() (*cond, bool) {
	l, ok := p.notCond()
	if !ok {
		return nil, false
	}
	for p.isKw("AND") {
		p.pos++
		r, ok := p.notCond()
		if !ok {
			return nil, false
		}
		l = &cond{kind: cAnd, l: l, r: r}
	}
	return l, true
}

func (p *parser) isKw(kw string) bool { return keyword(p.src, p.peek(), kw) }

func (p *parser) notCond() (*cond, bool) {
	if p.isKw("NOT") {
		p.pos++
		c, ok := p.primary()
		if !ok {
			return nil, false
		}
		return &cond{kind: cNot, l: c}, true
	}
	return p.primary()
}

func (p *parser) startsComparison() bool {
	switch p.peek().kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		return true
	}
	return p.isKw("BETWEEN") || p.isKw("IN")
}

func (p *parser) primary() (*cond, bool) {
	if p.peek().kind == tLParen {
		save := p.save()
		p.pos++
		c, ok := p.orCond()
		if ok && p.peek().kind == tRParen {
			p.pos++
			if !p.startsComparison() {
				if c.paren && p.st.parens == "" {
					p.st.parens = "The expression has redundant parentheses;"
				}
				// Copy so that marking does not leak into cached subtrees.
				cc := *c
				cc.paren = true
				return &cc, true
			}
		} else if ok {
			p.fail()
		}
		p.restore(save)
	}
	return p.comparison()
}

func (p *parser) comparison() (*cond, bool) {
	var left *operand
	var ok bool
	if p.isFuncStart() {
		left, ok = p.funcCall()
		if !ok {
			return nil, false
		}
		if !p.startsComparison() {
			if left.fn == "size" && p.st.misusedFn == "" {
				p.st.misusedFn = misused("size")
			}
			return &cond{kind: cFunc, fn: left.fn, args: left.args}, true
		}
	} else {
		left, ok = p.operandParens()
		if !ok {
			return nil, false
		}
	}
	t := p.peek()
	switch t.kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		p.pos++
		right, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		p.checkMisusedArgs([]*operand{left, right})
		return &cond{kind: cCmp, cmp: t.kind, args: []*operand{left, right}}, true
	}
	if p.isKw("BETWEEN") {
		p.pos++
		lo, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		if !p.isKw("AND") {
			p.fail()
			return nil, false
		}
		p.pos++
		hi, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		args := []*operand{left, lo, hi}
		p.checkMisusedArgs(args)
		return &cond{kind: cBetween, args: args}, true
	}
	if p.isKw("IN") {
		p.pos++
		if p.peek().kind != tLParen {
			p.fail()
			return nil, false
		}
		p.pos++
		args := []*operand{left}
		for {
			a, ok := p.operandParens()
			if !ok {
				return nil, false
			}
			args = append(args, a)
			if p.peek().kind != tComma {
				break
			}
			p.pos++
		}
		if p.peek().kind != tRParen {
			p.fail()
			return nil, false
		}
		p.pos++
		p.checkMisusedArgs(args)
		return &cond{kind: cIn, args: args}, true
	}
	p.fail()
	return nil, false
}

// ---- updates ----

func (p *parser) update() ([]action, bool) {
	var seen [4]bool
	var acts []action
	for {
		t := p.peek()
		var k updKind
		switch {
		case keyword(p.src, t, "SET"):
			k = uSet
		case keyword(p.src, t, "REMOVE"):
			k = uRemove
		case keyword(p.src, t, "ADD"):
			k = uAdd
		case keyword(p.src, t, "DELETE"):
			k = uDelete
		default:
			p.fail()
			return nil, false
		}
		p.pos++
		if seen[k] && p.st.section == "" {
			p.st.section = `The "` + strings.ToUpper(p.text(t)) + `" section can only be used once in an update expression;`
		}
		seen[k] = true
		for {
			a, ok := p.updAction(k)
			if !ok {
				return nil, false
			}
			acts = append(acts, a)
			if p.peek().kind != tComma {
				break
			}
			p.pos++
		}
		if p.peek().kind == tEOF {
			return acts, true
		}
	}
}

func (p *parser) updAction(k updKind) (action, bool) {
	path, ok := p.path()
	if !ok {
		return action{}, false
	}
	a := action{kind: k, syn: path}
	switch k {
	case uSet:
		if p.peek().kind != tEq {
			p.fail()
			return action{}, false
		}
		p.pos++
		v, ok := p.setValue()
		if !ok {
			return action{}, false
		}
		a.val = v
	case uAdd, uDelete:
		t := p.peek()
		if t.kind != tValue {
			p.fail()
			return action{}, false
		}
		p.pos++
		a.val = &operand{kind: opValue, ref: p.text(t)}
	}
	return a, true
}

func (p *parser) setValue() (*operand, bool) {
	if p.peek().kind == tLParen {
		save := p.save()
		p.pos++
		v, ok := p.setValueInner()
		if ok && p.peek().kind == tRParen {
			p.pos++
			if k := p.peek().kind; k != tPlus && k != tMinus {
				return v, true
			}
		} else if ok {
			p.fail()
		}
		p.restore(save)
	}
	return p.setValueInner()
}

func (p *parser) setValueInner() (*operand, bool) {
	a, ok := p.operandParens()
	if !ok {
		return nil, false
	}
	switch p.peek().kind {
	case tPlus, tMinus:
		k := opPlus
		if p.peek().kind == tMinus {
			k = opMinus
		}
		p.pos++
		b, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		return &operand{kind: k, args: []*operand{a, b}}, true
	}
	return a, true
}
