package expr

import (
	"strconv"
)

// mode selects the grammar.
type mode uint8

const (
	mCond mode = iota
	mUpdate
	mProj
)

// parsed is what the cache keeps for one expression text: the syntax tree
// with placeholders unresolved, or the first error that depends on the text
// alone (syntax, redundant parentheses, then the checks of the static pass).
type parsed struct {
	cond    *cond
	actions []action
	paths   [][]synElem
	err     string // message without the "Invalid XExpression: " prefix
}

// The parser reports a failure by setting failAt (the token where parsing
// failed) and returning; every caller returns at once when failed() says
// so. It once unwound with panics, but a panic costs time in proportion to
// the depth of the stack, and an expression of nested parentheses panics
// at every level: quadratic in its length. DynamoDB reports redundant
// parentheses as soon as it reads them, even inside an alternative that
// would otherwise be abandoned, so redundant is never cleared by choose.
const msgRedundantParens = "The expression has redundant parentheses;"

type parser struct {
	src  string
	toks []token
	pos  int
	// failAt is the token position of the failure, -1 while none.
	failAt int
	// redundant is a failure for redundant parentheses (failAt is set too).
	redundant bool
	// steps counts the operands and conditions parsed, retries included:
	// the work, which tests hold to the text's length.
	steps int
	// memo keeps each operand parsed since the first choose, by token
	// position: "((((x" is tried as a condition and as an operand at every
	// parenthesis, and without it the operands inside would be parsed
	// again at each one.
	memo []operandMemo
}

type operandMemo struct {
	set    bool
	op     *operand
	end    int // p.pos after it
	failAt int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) is(k tokKind) bool   { return p.toks[p.pos].kind == k }
func (p *parser) text(t token) string { return p.src[t.start:t.end] }
func (p *parser) failed() bool        { return p.failAt >= 0 }

// fail records a syntax failure at the current token.
func (p *parser) fail() {
	if p.failAt < 0 {
		p.failAt = p.pos
	}
}

// failRedundant records redundant parentheses, which no alternative undoes.
func (p *parser) failRedundant() {
	p.fail()
	p.redundant = true
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

// expect consumes a token of kind k, or fails; callers check failed().
func (p *parser) expect(k tokKind) token {
	if !p.is(k) {
		p.fail()
		return token{}
	}
	return p.next()
}

// choose tries each alternative from the same place and keeps the first
// that parses; when none does, it fails where the one that got furthest
// failed.
func (p *parser) choose(alts ...func() *cond) *cond {
	at, best := p.pos, -1
	if p.memo == nil {
		p.memo = make([]operandMemo, len(p.toks))
	}
	for _, alt := range alts {
		p.pos, p.failAt = at, -1
		c := alt()
		if !p.failed() {
			return c
		}
		if p.redundant {
			return nil
		}
		best = max(best, p.failAt)
	}
	p.pos, p.failAt = at, best
	return nil
}

// parseMode parses text in the grammar m and runs the static checks.
func parseMode(m mode, text string) *parsed {
	out, _ := parseSteps(m, text)
	return out
}

// parseSteps is parseMode, also returning the parser's steps.
func parseSteps(m mode, text string) (*parsed, int) {
	p := &parser{src: text, toks: lex(text), failAt: -1}
	out := p.parse(m)
	return out, p.steps
}

func (p *parser) parse(m mode) *parsed {
	text := p.src
	out := &parsed{}
	switch m {
	case mUpdate:
		out.actions = p.update()
	case mProj:
		out.paths = p.projection()
	default:
		out.cond = p.condition()
	}
	if !p.failed() && !p.is(tEOF) {
		p.fail()
	}
	switch {
	case p.redundant:
		return &parsed{err: msgRedundantParens}
	case p.failed():
		return &parsed{err: syntaxError(text, p.toks, p.failAt)}
	}
	if operatorCount(out) > MaxOperators {
		// DynamoDB stops counting at the first operator past the limit.
		out.err = "The expression contains too many operators; operator count: " + strconv.Itoa(MaxOperators+1)
		return out
	}
	out.err = staticCheck(m, out)
	return out
}

// MaxOperators is DynamoDB's limit on the operators of one expression:
// comparisons, BETWEEN, IN, AND, OR, NOT and the + and - of an update.
// Functions and parentheses are not operators.
const MaxOperators = 300

func operatorCount(ps *parsed) int {
	n := 0
	var ops func(o *operand)
	ops = func(o *operand) {
		if o == nil {
			return
		}
		if o.kind == opPlus || o.kind == opMinus {
			n++
		}
		for _, a := range o.args {
			ops(a)
		}
	}
	var conds func(c *cond)
	conds = func(c *cond) {
		if c == nil {
			return
		}
		switch c.kind {
		case cAnd, cOr, cNot, cCmp, cBetween, cIn:
			n++
		}
		conds(c.l)
		conds(c.r)
		for _, a := range c.args {
			ops(a)
		}
	}
	conds(ps.cond)
	for _, a := range ps.actions {
		ops(a.val)
	}
	return n
}

// ---- conditions ----

func (p *parser) condition() *cond {
	l := p.andCond()
	for !p.failed() && p.is(tOr) {
		p.next()
		r := p.andCond()
		if p.failed() {
			return nil
		}
		l = &cond{kind: cOr, l: l, r: r}
	}
	return l
}

func (p *parser) andCond() *cond {
	l := p.notCond()
	for !p.failed() && p.is(tAnd) {
		p.next()
		r := p.notCond()
		if p.failed() {
			return nil
		}
		l = &cond{kind: cAnd, l: l, r: r}
	}
	return l
}

func (p *parser) notCond() *cond {
	if p.is(tNot) {
		p.next()
		inner := p.notCond()
		if p.failed() {
			return nil
		}
		return &cond{kind: cNot, l: inner}
	}
	return p.primary()
}

func (p *parser) primary() *cond {
	p.steps++
	if !p.is(tLParen) {
		return p.comparison()
	}
	return p.choose(p.parenCond, p.comparison)
}

// parenCond is a parenthesised condition.
func (p *parser) parenCond() *cond {
	p.next()
	inner := p.condition()
	if p.failed() {
		return nil
	}
	if p.expect(tRParen); p.failed() {
		return nil
	}
	if inner.kind == cParen {
		p.failRedundant()
		return nil
	}
	return &cond{kind: cParen, l: inner}
}

func (p *parser) comparison() *cond {
	a := p.operand()
	if p.failed() {
		return nil
	}
	switch k := p.peek().kind; k {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		p.next()
		b := p.operand()
		if p.failed() {
			return nil
		}
		return &cond{kind: cCmp, cmp: k, args: []*operand{a, b}}
	case tBetween:
		p.next()
		lo := p.operand()
		if p.failed() {
			return nil
		}
		if p.expect(tAnd); p.failed() {
			return nil
		}
		hi := p.operand()
		if p.failed() {
			return nil
		}
		return &cond{kind: cBetween, args: []*operand{a, lo, hi}}
	case tIn:
		p.next()
		if p.expect(tLParen); p.failed() {
			return nil
		}
		args := p.operandList(a)
		if p.failed() {
			return nil
		}
		if p.expect(tRParen); p.failed() {
			return nil
		}
		return &cond{kind: cIn, args: args}
	}
	if a.kind == opFunc {
		return &cond{kind: cFunc, fn: a.fn, args: a.args}
	}
	p.fail()
	return nil
}

// operandList reads "operand {, operand}" after the operands in head.
func (p *parser) operandList(head ...*operand) []*operand {
	args := append(head, p.operand())
	for !p.failed() && p.is(tComma) {
		p.next()
		args = append(args, p.operand())
	}
	if p.failed() {
		return nil
	}
	return args
}

// ---- operands and paths ----

func (p *parser) operand() *operand {
	if p.memo == nil {
		return p.operandAt()
	}
	at := p.pos
	if m := p.memo[at]; m.set {
		p.pos = m.end
		if m.failAt >= 0 {
			p.failAt = m.failAt
		}
		return m.op
	}
	o := p.operandAt()
	p.memo[at] = operandMemo{set: true, op: o, end: p.pos, failAt: p.failAt}
	return o
}

// operandAt parses the operand at p.pos.
func (p *parser) operandAt() *operand {
	p.steps++
	t := p.peek()
	switch {
	case t.kind == tValue:
		p.next()
		return &operand{kind: opValue, ref: p.text(t)}
	case t.kind == tLParen:
		p.next()
		return p.closeParen(p.operand())
	case t.kind == tIdent && p.peekAt(1).kind == tLParen:
		return p.call()
	case t.kind == tIdent || t.kind == tName:
		syn := p.path()
		if p.failed() {
			return nil
		}
		return &operand{kind: opPath, syn: syn}
	}
	p.fail()
	return nil
}

func (p *parser) call() *operand {
	name := p.text(p.next())
	p.next() // the "(" operand() saw
	args := p.operandList()
	if p.failed() {
		return nil
	}
	if p.expect(tRParen); p.failed() {
		return nil
	}
	return &operand{kind: opFunc, fn: name, args: args}
}

func (p *parser) pathElem() synElem {
	t := p.peek()
	switch t.kind {
	case tIdent:
		p.next()
		return synElem{text: p.text(t), isIdent: true}
	case tName:
		p.next()
		return synElem{text: p.text(t), isName: true}
	}
	p.fail()
	return synElem{}
}

func (p *parser) path() []synElem {
	elems := []synElem{p.pathElem()}
	for !p.failed() {
		switch p.peek().kind {
		case tDot:
			p.next()
			elems = append(elems, p.pathElem())
		case tLBrack:
			p.next()
			t := p.expect(tNumber)
			if p.failed() {
				return nil
			}
			if p.expect(tRBrack); p.failed() {
				return nil
			}
			s := p.text(t)
			n, err := strconv.Atoi(s)
			if err != nil || len(s) > 10 || n > 1<<31-1 {
				// Out of range: reported by the static pass, in text order.
				n = -1
			}
			elems = append(elems, synElem{text: s, idx: n, isIdx: true})
		default:
			return elems
		}
	}
	return nil
}

// ---- updates and projections ----

func (p *parser) update() []action {
	var acts []action
	for clause := 0; ; clause++ {
		var k updKind
		switch p.peek().kind {
		case tSet:
			k = uSet
		case tRemove:
			k = uRemove
		case tAdd:
			k = uAdd
		case tDelete:
			k = uDelete
		default:
			p.fail()
			return nil
		}
		p.next()
		for {
			a := action{kind: k, clause: clause, syn: p.path()}
			if p.failed() {
				return nil
			}
			switch k {
			case uSet:
				if p.expect(tEq); p.failed() {
					return nil
				}
				v := p.setValue()
				if p.failed() {
					return nil
				}
				a.val = v
			case uAdd, uDelete:
				t := p.expect(tValue)
				if p.failed() {
					return nil
				}
				a.val = &operand{kind: opValue, ref: p.text(t)}
			}
			acts = append(acts, a)
			if !p.is(tComma) {
				break
			}
			p.next()
		}
		if p.is(tEOF) {
			return acts
		}
	}
}

// closeParen ends a parenthesised operand whose inside was just parsed:
// the closing parenthesis, and a refusal of doubled ones (redundant).
func (p *parser) closeParen(inner *operand) *operand {
	if p.failed() {
		return nil
	}
	if p.expect(tRParen); p.failed() {
		return nil
	}
	if inner.kind == opParen {
		p.failRedundant()
		return nil
	}
	return &operand{kind: opParen, args: []*operand{inner}}
}

// setValue parses the value of a SET action: an operand, an operand plus
// or minus another, or such an arithmetic in parentheses ("SET c = (c -
// :v)", which DynamoDB accepts and applies as "c - :v"). Doubled
// parentheses are redundant, as in conditions.
func (p *parser) setValue() *operand {
	if p.is(tLParen) && p.parenArithmetic() {
		p.next()
		return p.closeParen(p.setValue())
	}
	v := p.operand()
	if p.failed() {
		return nil
	}
	if p.is(tPlus) || p.is(tMinus) {
		op := opPlus
		if p.next().kind == tMinus {
			op = opMinus
		}
		r := p.operand()
		if p.failed() {
			return nil
		}
		v = &operand{kind: op, args: []*operand{v, r}}
	}
	return v
}

// parenArithmetic reports whether the "(" at p.pos holds an arithmetic (a
// + or - before its ")"), which an operand cannot hold; a parenthesised
// operand ("(b) + :v") is left to operand.
func (p *parser) parenArithmetic() bool {
	depth := 0
	for i := p.pos; ; i++ {
		switch p.toks[i].kind {
		case tLParen:
			depth++
		case tRParen:
			depth--
			if depth == 0 {
				return false
			}
		case tPlus, tMinus:
			return true
		case tEOF:
			return false
		}
	}
}

func (p *parser) projection() [][]synElem {
	paths := [][]synElem{p.path()}
	for !p.failed() && p.is(tComma) {
		p.next()
		paths = append(paths, p.path())
	}
	if p.failed() {
		return nil
	}
	return paths
}
