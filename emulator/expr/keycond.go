package expr

import (
	"fmt"
	"strings"

	"github.com/extenddb/extenddb/emulator/av"
)

// KeyCondition is a bound KeyConditionExpression (or legacy KeyConditions):
// at most two simple conditions, one per key attribute, joined by AND.
type KeyCondition struct {
	conds []KeyTerm
	// err is a structural problem (OR, a function, a nested path…), which
	// DynamoDB reports only after the unused-placeholder check.
	err string
}

// KeyTerm is one condition of a key condition.
type KeyTerm struct {
	Name string
	// Op is EQ, LT, LE, GT, GE, BETWEEN or BEGINS_WITH.
	Op     string
	Values []av.Value
}

// KeyQuery is a key condition checked against the key schema: the
// partition key's value and the optional sort-key condition.
type KeyQuery struct {
	PartitionName  string
	PartitionValue av.Value
	// PartitionValues holds the value of every HASH attribute in key
	// schema order (ResolveKeys; one value for a single-attribute key).
	PartitionValues []av.Value
	// SortPrefix holds the equality values of the RANGE attributes before
	// Sort's, in key schema order (multi-attribute keys only).
	SortPrefix []av.Value
	Sort       *KeyTerm
}

// Terms returns the conditions as written (one per attribute).
func (k *KeyCondition) Terms() []KeyTerm { return k.conds }

// Check returns the structural error of a KeyConditionExpression (an
// operator other than AND, =, <, <=, >, >=, BETWEEN and begins_with, two
// conditions on one key, a nested path…). DynamoDB reports it after the
// unused-placeholder check: call Check after Params.CheckUnused. Resolve
// calls it too.
func (k *KeyCondition) Check() error {
	if k.err != "" {
		return errorf(k.err)
	}
	return nil
}

// Resolve checks the condition against the key schema of the table or
// index queried (rangeKey is "" when there is none).
func (k *KeyCondition) Resolve(hashKey, rangeKey string) (KeyQuery, error) {
	var q KeyQuery
	if err := k.Check(); err != nil {
		return q, err
	}
	var hash *KeyTerm
	for i := range k.conds {
		c := &k.conds[i]
		switch {
		case c.Name == hashKey:
			hash = c
		case rangeKey != "" && c.Name == rangeKey:
			q.Sort = c
		}
	}
	if len(k.conds) > 2 {
		return q, errorf("Query key condition not supported")
	}
	if hash == nil {
		return q, errorf("Query condition missed key schema element: ", hashKey)
	}
	if len(k.conds) == 2 && q.Sort == nil {
		if rangeKey == "" {
			return q, errorf("Query key condition not supported")
		}
		return q, errorf("Query condition missed key schema element: ", rangeKey)
	}
	if hash.Op != "EQ" {
		return q, errorf("Query key condition not supported")
	}
	q.PartitionName, q.PartitionValue = hash.Name, hash.Values[0]
	q.PartitionValues = []av.Value{q.PartitionValue}
	return q, nil
}

// Messages of a key condition that does not fit a multi-attribute key.
// The service's exact texts are unconfirmed (docs/differences.md); what is
// known is that they name HASH or RANGE, equality and the attribute.
const (
	msgMultiHash  = "Query key condition not supported: every HASH key attribute must have an equality condition; HASH key attribute: "
	msgMultiSkip  = "Query condition missed key schema element: %s. RANGE key attributes must have conditions from left to right, an equality condition on each but the last"
	msgMultiRange = "Query key condition not supported: RANGE key attributes must have conditions from left to right, an equality condition on each but the last; RANGE key attribute: "
)

// ResolveKeys checks the condition against a key schema of one or more
// HASH and zero or more RANGE attributes (a GSI's multi-attribute key):
// every HASH attribute with an equality, and the RANGE attributes named
// form a left-to-right prefix whose last one alone may have an inequality,
// BETWEEN or begins_with. The textual order of the conditions does not
// matter. With one HASH and at most one RANGE attribute it is Resolve.
func (k *KeyCondition) ResolveKeys(hash, rng []string) (KeyQuery, error) {
	if len(hash) == 1 && len(rng) <= 1 {
		rangeKey := ""
		if len(rng) == 1 {
			rangeKey = rng[0]
		}
		return k.Resolve(hash[0], rangeKey)
	}
	var q KeyQuery
	if err := k.Check(); err != nil {
		return q, err
	}
	if len(k.conds) > len(hash)+len(rng) {
		return q, errorf("Query key condition not supported")
	}
	byName := make(map[string]*KeyTerm, len(k.conds))
	for i := range k.conds {
		byName[k.conds[i].Name] = &k.conds[i]
	}
	used := 0
	for _, h := range hash {
		t, ok := byName[h]
		if !ok || t.Op != "EQ" {
			return q, errorf(msgMultiHash, h)
		}
		q.PartitionValues = append(q.PartitionValues, t.Values[0])
		used++
	}
	terms := make([]*KeyTerm, len(rng))
	named := 0
	for i, r := range rng {
		if t, ok := byName[r]; ok {
			terms[i] = t
			named++
		}
	}
	if used+named < len(k.conds) {
		// A condition on an attribute outside the key: the service names
		// the first RANGE attribute without one, as for single keys.
		for i, t := range terms {
			if t == nil {
				return q, errorf("Query condition missed key schema element: ", rng[i])
			}
		}
		return q, errorf("Query key condition not supported")
	}
	for i := 0; i < named; i++ {
		if terms[i] == nil {
			return q, errorf(fmt.Sprintf(msgMultiSkip, rng[i]))
		}
		if i < named-1 && terms[i].Op != "EQ" {
			return q, errorf(msgMultiRange, rng[i])
		}
	}
	for i := 0; i < named-1; i++ {
		q.SortPrefix = append(q.SortPrefix, terms[i].Values[0])
	}
	if named > 0 {
		q.Sort = terms[named-1]
	}
	q.PartitionName, q.PartitionValue = hash[0], q.PartitionValues[0]
	return q, nil
}

// Match reports whether a sort-key value satisfies the term.
func (t *KeyTerm) Match(v av.Value) bool {
	r, ok := av.Compare(v, t.Values[0])
	switch t.Op {
	case "EQ":
		return ok && r == 0
	case "LT":
		return ok && r < 0
	case "LE":
		return ok && r <= 0
	case "GT":
		return ok && r > 0
	case "GE":
		return ok && r >= 0
	case "BETWEEN":
		r2, ok2 := av.Compare(v, t.Values[1])
		return ok && ok2 && r >= 0 && r2 <= 0
	case "BEGINS_WITH":
		return v.Type == t.Values[0].Type && strings.HasPrefix(v.S, t.Values[0].S)
	}
	return false
}

// KeyCondition parses and binds a KeyConditionExpression. Whether it has
// the form Query accepts is reported by Check (and Resolve), after
// CheckUnused, as DynamoDB orders it.
func (p *Params) KeyCondition(text string) (*KeyCondition, error) {
	c, err := p.condition("KeyConditionExpression", text)
	if err != nil {
		return nil, err
	}
	k := &KeyCondition{}
	if msg := k.collect(c.root); msg != "" {
		k.conds, k.err = nil, msg
	}
	return k, nil
}

var flipped = map[tokKind]string{tEq: "EQ", tLt: "GT", tLe: "GE", tGt: "LT", tGe: "LE"}
var straight = map[tokKind]string{tEq: "EQ", tLt: "LT", tLe: "LE", tGt: "GT", tGe: "GE"}

func (k *KeyCondition) collect(c *cond) string {
	switch c.kind {
	case cAnd:
		if m := k.collect(c.l); m != "" {
			return m
		}
		return k.collect(c.r)
	case cOr:
		return "Invalid operator used in KeyConditionExpression: OR"
	case cNot:
		return "Invalid operator used in KeyConditionExpression: NOT"
	case cIn:
		return "Invalid operator used in KeyConditionExpression: IN"
	case cCmp:
		if c.cmp == tNe {
			return "Invalid operator used in KeyConditionExpression: <>"
		}
	case cFunc:
		if c.fn != "begins_with" {
			if c.fn == "size" {
				return "KeyConditionExpressions cannot contain nested operations"
			}
			return "Invalid operator used in KeyConditionExpression: " + c.fn
		}
	}
	for _, a := range c.args {
		if a.kind == opFunc {
			return "KeyConditionExpressions cannot contain nested operations"
		}
	}
	if (c.kind == cBetween || c.kind == cFunc) && c.args[0].kind != opPath {
		op := "BETWEEN"
		if c.kind == cFunc {
			op = c.fn
		}
		return "Invalid condition in KeyConditionExpression: " + op + " operator must have the key attribute as its first operand"
	}
	name, at := "", -1
	for i, a := range c.args {
		if a.kind != opPath {
			continue
		}
		if at >= 0 {
			return "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
		}
		if len(a.path) > 1 {
			return "KeyConditionExpressions cannot have conditions on nested attributes"
		}
		name, at = a.path[0].Name, i
	}
	if at < 0 {
		return "Invalid condition in KeyConditionExpression: No key attribute specified"
	}
	for _, t := range k.conds {
		if t.Name == name {
			return "KeyConditionExpressions must only contain one condition per key"
		}
	}
	t := KeyTerm{Name: name}
	switch c.kind {
	case cCmp:
		if at == 0 {
			t.Op = straight[c.cmp]
			t.Values = []av.Value{c.args[1].val}
		} else {
			t.Op = flipped[c.cmp]
			t.Values = []av.Value{c.args[0].val}
		}
	case cBetween:
		t.Op = "BETWEEN"
		t.Values = []av.Value{c.args[1].val, c.args[2].val}
	case cFunc:
		t.Op = "BEGINS_WITH"
		t.Values = []av.Value{c.args[1].val}
	}
	k.conds = append(k.conds, t)
	return ""
}
