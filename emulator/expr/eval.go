package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/work"
)

// Condition is a bound condition or filter: placeholders resolved, ready to
// evaluate against items. It is immutable and safe for concurrent use.
type Condition struct {
	root *cond
}

// Eval reports whether item satisfies the condition. A nil or empty item is
// an item that does not exist (every attribute is missing). Comparisons of
// different types are false, as in DynamoDB; the error is reserved for
// failures DynamoDB reports while evaluating and is nil today.
func (c *Condition) Eval(item av.Item) (bool, error) {
	return c.EvalMetered(item, nil)
}

// EvalMetered is Eval counting its steps on m: one condition of 300
// operators over a 400 KB item can take a long while, and it stops (with
// m's error) once m says the request is over.
func (c *Condition) EvalMetered(item av.Item, m *work.Meter) (bool, error) {
	if c == nil || c.root == nil {
		return true, nil
	}
	ev := evaluator{item: item, m: m}
	ok := ev.cond(c.root)
	if err := m.Err(); err != nil {
		return false, err
	}
	return ok, nil
}

// evaluator evaluates one condition against one item.
type evaluator struct {
	item av.Item
	m    *work.Meter
}

// step counts n steps; false once the meter stops the work, after which
// every answer is false and thrown away. Only the loops over a value's
// elements count: the operators of one expression are at most 300, each
// over values of at most 400 KB.
func (ev *evaluator) step(n int) bool { return ev.m == nil || ev.m.Step(n) }

// Lookup returns the value at path in item.
func Lookup(item av.Item, path Path) (av.Value, bool) {
	if len(path) == 0 || path[0].IsIndex {
		return av.Value{}, false
	}
	v, ok := item[path[0].Name]
	if !ok {
		return av.Value{}, false
	}
	for _, e := range path[1:] {
		if e.IsIndex {
			if v.Type != av.TypeL || e.Index >= len(v.L) {
				return av.Value{}, false
			}
			v = v.L[e.Index]
		} else {
			if v.Type != av.TypeM {
				return av.Value{}, false
			}
			if v, ok = v.M[e.Name]; !ok {
				return av.Value{}, false
			}
		}
	}
	return v, true
}

func (ev *evaluator) cond(c *cond) bool {
	if ev.m != nil && ev.m.Err() != nil {
		return false
	}
	switch c.kind {
	case cTrue:
		return true
	case cAnd:
		return ev.cond(c.l) && ev.cond(c.r)
	case cOr:
		return ev.cond(c.l) || ev.cond(c.r)
	case cNot:
		return !ev.cond(c.l)
	case cCmp:
		a, aok := ev.operand(c.args[0])
		b, bok := ev.operand(c.args[1])
		switch c.cmp {
		case tEq:
			return aok && bok && av.Equal(a, b)
		case tNe:
			return !(aok && bok && av.Equal(a, b))
		}
		if !aok || !bok {
			return false
		}
		r, ok := av.Compare(a, b)
		if !ok {
			return false
		}
		switch c.cmp {
		case tLt:
			return r < 0
		case tLe:
			return r <= 0
		case tGt:
			return r > 0
		case tGe:
			return r >= 0
		}
		return false
	case cBetween:
		x, ok := ev.operand(c.args[0])
		lo, lok := ev.operand(c.args[1])
		hi, hok := ev.operand(c.args[2])
		if !ok || !lok || !hok {
			return false
		}
		r1, ok1 := av.Compare(x, lo)
		r2, ok2 := av.Compare(x, hi)
		return ok1 && ok2 && r1 >= 0 && r2 <= 0
	case cIn:
		x, ok := ev.operand(c.args[0])
		if !ok {
			return false
		}
		for _, a := range c.args[1:] {
			if v, ok := ev.operand(a); ok && av.Equal(x, v) {
				return true
			}
		}
		return false
	case cFunc:
		return ev.fn(c.fn, c.args)
	}
	return false
}

func (ev *evaluator) operand(o *operand) (av.Value, bool) {
	switch o.kind {
	case opValue:
		return o.val, true
	case opPath:
		return Lookup(ev.item, o.path)
	case opFunc:
		if o.fn == "size" {
			v, ok := ev.operand(o.args[0])
			if !ok {
				return av.Value{}, false
			}
			n, ok := sizeOf(v)
			if !ok {
				return av.Value{}, false
			}
			return av.Value{Type: av.TypeN, S: itoa(n)}, true
		}
	}
	return av.Value{}, false
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

// sizeOf is DynamoDB's size(): the length of a string, the byte count of a
// binary, the number of elements of a set, list or map.
func sizeOf(v av.Value) (int, bool) {
	switch v.Type {
	case av.TypeS:
		return utf8.RuneCountInString(v.S), true
	case av.TypeB:
		return len(v.S), true
	case av.TypeSS, av.TypeNS, av.TypeBS:
		return len(v.Set), true
	case av.TypeL:
		return len(v.L), true
	case av.TypeM:
		return len(v.M), true
	}
	return 0, false
}

func (ev *evaluator) fn(fn string, args []*operand) bool {
	switch fn {
	case "attribute_exists":
		_, ok := ev.operand(args[0])
		return ok
	case "attribute_not_exists":
		_, ok := ev.operand(args[0])
		return !ok
	case "attribute_type":
		v, ok := ev.operand(args[0])
		t, tok := ev.operand(args[1])
		return ok && tok && t.Type == av.TypeS && v.Type.String() == t.S
	case "begins_with":
		v, ok := ev.operand(args[0])
		p, pok := ev.operand(args[1])
		return ok && pok && v.Type == p.Type && (v.Type == av.TypeS || v.Type == av.TypeB) && strings.HasPrefix(v.S, p.S)
	case "contains":
		v, ok := ev.operand(args[0])
		x, xok := ev.operand(args[1])
		if !ok || !xok {
			return false
		}
		switch v.Type {
		case av.TypeS, av.TypeB:
			return x.Type == v.Type && strings.Contains(v.S, x.S)
		case av.TypeSS:
			return x.Type == av.TypeS && ev.setHas(v.Type, v.Set, x.S)
		case av.TypeNS:
			return x.Type == av.TypeN && ev.setHas(v.Type, v.Set, x.S)
		case av.TypeBS:
			return x.Type == av.TypeB && ev.setHas(v.Type, v.Set, x.S)
		case av.TypeL:
			for _, e := range v.L {
				if !ev.step(1) {
					return false
				}
				if av.Equal(e, x) {
					return true
				}
			}
		}
	}
	return false
}

// setHas is setHas counting one step per member.
func (ev *evaluator) setHas(t av.Type, members []string, m string) bool {
	return ev.step(len(members)) && setHas(t, members, m)
}

// setHas reports whether members contains m under the set type's equality.
func setHas(t av.Type, members []string, m string) bool {
	for _, x := range members {
		if x == m || t == av.TypeNS && av.CompareNumbers(x, m) == 0 {
			return true
		}
	}
	return false
}
