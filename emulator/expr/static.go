package expr

import (
	"strconv"
	"strings"
)

// The static pass: the checks DynamoDB makes on the text alone, in the
// order the expression is written (reserved words, list index range,
// function names, where each function may appear and, for conditions, how
// many operands it takes). Its result is cached with the syntax tree.

// reservedInPath reports the reserved words DynamoDB refuses as bare
// attribute names. CONVERT and SIZE are on the published list but accepted;
// the keywords (AND, SET, …) never reach here, they are syntax errors.
func reservedInPath(name string) bool {
	if strings.EqualFold(name, "CONVERT") || strings.EqualFold(name, "SIZE") {
		return false
	}
	return IsReserved(name)
}

// place says whether a condition or an operand is expected.
type place uint8

const (
	placeCond place = iota
	placeOperand
)

type static struct {
	update bool
}

func staticCheck(m mode, ps *parsed) string {
	switch m {
	case mUpdate:
		return staticUpdate(ps.actions)
	case mProj:
		s := static{}
		for _, p := range ps.paths {
			if e := s.path(p); e != "" {
				return e
			}
		}
		return ""
	}
	return static{}.cond(ps.cond, placeCond)
}

func (s static) path(p []synElem) string {
	for _, e := range p {
		switch {
		case e.isIdx && e.idx < 0:
			return "List index is not within the allowable range; index: [" + e.text + "]"
		case e.isIdent && reservedInPath(e.text):
			return "Attribute name is a reserved keyword; reserved keyword: " + e.text
		}
	}
	return ""
}

func (s static) cond(c *cond, pl place) string {
	switch c.kind {
	case cAnd, cOr:
		if e := s.cond(c.l, placeCond); e != "" {
			return e
		}
		return s.cond(c.r, placeCond)
	case cNot:
		return s.cond(c.l, placeCond)
	case cParen:
		return s.cond(c.l, pl)
	case cFunc:
		return s.call(c.fn, c.args, pl)
	}
	for _, a := range c.args {
		if e := s.operand(a, placeOperand); e != "" {
			return e
		}
	}
	return ""
}

func (s static) operand(o *operand, pl place) string {
	switch o.kind {
	case opPath:
		return s.path(o.syn)
	case opFunc:
		return s.call(o.fn, o.args, pl)
	case opParen:
		return s.operand(o.args[0], pl)
	case opPlus, opMinus:
		if e := s.operand(o.args[0], placeOperand); e != "" {
			return e
		}
		return s.operand(o.args[1], placeOperand)
	}
	return ""
}

func (s static) call(name string, args []*operand, pl place) string {
	if funcArity(name) == 0 {
		return "Invalid function name; function: " + name
	}
	if s.update {
		if !isUpdateFunc(name) {
			return "The function is not allowed in an update expression; function: " + name
		}
	} else {
		if isUpdateFunc(name) {
			return "The function is not allowed in a condition expression; function: " + name
		}
		if (pl == placeCond) != isConditionFunc(name) {
			return "The function is not allowed to be used this way in an expression; function: " + name
		}
		if len(args) != funcArity(name) {
			return wrongOperandCount(name, len(args))
		}
	}
	for _, a := range args {
		if e := s.operand(a, placeOperand); e != "" {
			return e
		}
	}
	return ""
}

func wrongOperandCount(name string, n int) string {
	return "Incorrect number of operands for operator or function; operator or function: " + name +
		", number of operands: " + strconv.Itoa(n)
}

// staticUpdate checks an update a section at a time, in the order the
// sections first appear; a section written twice is reported after the
// checks of its own actions.
func staticUpdate(acts []action) string {
	s := static{update: true}
	var order []updKind
	seen := map[updKind]bool{}
	for _, a := range acts {
		if !seen[a.kind] {
			seen[a.kind] = true
			order = append(order, a.kind)
		}
	}
	for _, k := range order {
		clauses := map[int]bool{}
		for _, a := range acts {
			if a.kind != k {
				continue
			}
			clauses[a.clause] = true
			if e := s.path(a.syn); e != "" {
				return e
			}
			if a.val != nil {
				if e := s.operand(a.val, placeOperand); e != "" {
					return e
				}
			}
		}
		if len(clauses) > 1 {
			return `The "` + [...]string{"SET", "REMOVE", "ADD", "DELETE"}[k] + `" section can only be used once in an update expression;`
		}
	}
	return ""
}
