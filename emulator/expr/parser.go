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

// syntaxFail and parensFail unwind the parser. DynamoDB reports redundant
// parentheses as soon as it reads them, even inside an alternative that
// would otherwise be abandoned, so parensFail is never caught by choose.
type syntaxFail struct{ at int }
type parensFail struct{}

const msgRedundantParens = "The expression has redundant parentheses;"

type parser struct {
	src  string
	toks []token
	pos  int
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
func (p *parser) fail()               { panic(syntaxFail{p.pos}) }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}
func (p *parser) expect(k tokKind) token {
	if !p.is(k) {
		p.fail()
	}
	return p.next()
}

// choose tries each alternative from the same place and keeps the first
// that parses; when none does, it reports the failure that got furthest.
func (p *parser) choose(alts ...func() *cond) *cond {
	at, best := p.pos, -1
	for _, alt := range alts {
		p.pos = at
		c, f, ok := p.attempt(alt)
		if ok {
			return c
		}
		if f > best {
			best = f
		}
	}
	p.pos = at
	panic(syntaxFail{best})
}

func (p *parser) attempt(alt func() *cond) (c *cond, failAt int, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			f, isSyntax := r.(syntaxFail)
			if !isSyntax {
				panic(r)
			}
			c, failAt, ok = nil, f.at, false
		}
	}()
	return alt(), 0, true
}

// parseMode parses text in the grammar m and runs the static checks.
func parseMode(m mode, text string) (out *parsed) {
	p := &parser{src: text, toks: lex(text)}
	defer func() {
		if r := recover(); r != nil {
			switch f := r.(type) {
			case syntaxFail:
				out = &parsed{err: syntaxError(text, p.toks, f.at)}
			case parensFail:
				out = &parsed{err: msgRedundantParens}
			default:
				panic(r)
			}
		}
	}()
	out = &parsed{}
	switch m {
	case mUpdate:
		out.actions = p.update()
	case mProj:
		out.paths = p.projection()
	default:
		out.cond = p.condition()
	}
	if !p.is(tEOF) {
		p.fail()
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
	for p.is(tOr) {
		p.next()
		l = &cond{kind: cOr, l: l, r: p.andCond()}
	}
	return l
}

func (p *parser) andCond() *cond {
	l := p.notCond()
	for p.is(tAnd) {
		p.next()
		l = &cond{kind: cAnd, l: l, r: p.notCond()}
	}
	return l
}

func (p *parser) notCond() *cond {
	if p.is(tNot) {
		p.next()
		return &cond{kind: cNot, l: p.notCond()}
	}
	return p.primary()
}

func (p *parser) primary() *cond {
	if !p.is(tLParen) {
		return p.comparison()
	}
	return p.choose(func() *cond {
		p.next()
		inner := p.condition()
		p.expect(tRParen)
		if inner.kind == cParen {
			panic(parensFail{})
		}
		return &cond{kind: cParen, l: inner}
	}, p.comparison)
}

func (p *parser) comparison() *cond {
	a := p.operand()
	switch k := p.peek().kind; k {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		p.next()
		return &cond{kind: cCmp, cmp: k, args: []*operand{a, p.operand()}}
	case tBetween:
		p.next()
		lo := p.operand()
		p.expect(tAnd)
		return &cond{kind: cBetween, args: []*operand{a, lo, p.operand()}}
	case tIn:
		p.next()
		p.expect(tLParen)
		args := []*operand{a, p.operand()}
		for p.is(tComma) {
			p.next()
			args = append(args, p.operand())
		}
		p.expect(tRParen)
		return &cond{kind: cIn, args: args}
	}
	if a.kind == opFunc {
		return &cond{kind: cFunc, fn: a.fn, args: a.args}
	}
	p.fail()
	return nil
}

// ---- operands and paths ----

func (p *parser) operand() *operand {
	t := p.peek()
	switch {
	case t.kind == tValue:
		p.next()
		return &operand{kind: opValue, ref: p.text(t)}
	case t.kind == tLParen:
		p.next()
		inner := p.operand()
		p.expect(tRParen)
		if inner.kind == opParen {
			panic(parensFail{})
		}
		return &operand{kind: opParen, args: []*operand{inner}}
	case t.kind == tIdent && p.peekAt(1).kind == tLParen:
		return p.call()
	case t.kind == tIdent || t.kind == tName:
		return &operand{kind: opPath, syn: p.path()}
	}
	p.fail()
	return nil
}

func (p *parser) call() *operand {
	name := p.text(p.next())
	p.expect(tLParen)
	args := []*operand{p.operand()}
	for p.is(tComma) {
		p.next()
		args = append(args, p.operand())
	}
	p.expect(tRParen)
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
	for {
		switch p.peek().kind {
		case tDot:
			p.next()
			elems = append(elems, p.pathElem())
		case tLBrack:
			p.next()
			t := p.expect(tNumber)
			p.expect(tRBrack)
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
		}
		p.next()
		for {
			a := action{kind: k, clause: clause, syn: p.path()}
			switch k {
			case uSet:
				p.expect(tEq)
				v := p.operand()
				if p.is(tPlus) || p.is(tMinus) {
					op := opPlus
					if p.next().kind == tMinus {
						op = opMinus
					}
					v = &operand{kind: op, args: []*operand{v, p.operand()}}
				}
				a.val = v
			case uAdd, uDelete:
				t := p.expect(tValue)
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

func (p *parser) projection() [][]synElem {
	paths := [][]synElem{p.path()}
	for p.is(tComma) {
		p.next()
		paths = append(paths, p.path())
	}
	return paths
}
