package expr

import (
	"strings"

	"github.com/extenddb/extenddb/emulator/av"
)

// The legacy (pre-expression) parameters. Their fields match the engine's
// request types, so the engine converts each entry with a plain type
// conversion.

// ExpectedAttributeValue is one entry of Expected.
type ExpectedAttributeValue struct {
	Value              *av.Value
	Exists             *bool
	ComparisonOperator *string
	AttributeValueList []av.Value
}

// LegacyCondition is one entry of KeyConditions, QueryFilter or ScanFilter.
type LegacyCondition struct {
	ComparisonOperator *string
	AttributeValueList []av.Value
}

// AttributeValueUpdate is one entry of AttributeUpdates.
type AttributeValueUpdate struct {
	Value  *av.Value
	Action *string
}

const invalidParams = "One or more parameter values were invalid: "

var comparisonOperators = []string{"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"}

func enumError(param, key, op string) *Error {
	return errorf("1 validation error detected: Value '", op, "' at '", param, ".", key,
		".member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [",
		strings.Join(comparisonOperators, ", "), "]")
}

func validOperator(op string) bool {
	for _, o := range comparisonOperators {
		if o == op {
			return true
		}
	}
	return false
}

// argCount checks the number of values an operator takes.
func argCount(op string, n int) bool {
	switch op {
	case "NULL", "NOT_NULL":
		return n == 0
	case "IN":
		return n >= 1
	case "BETWEEN":
		return n == 2
	}
	return n == 1
}

// typeAllowed lists the value types each operator accepts.
func typeAllowed(op string, t av.Type) bool {
	switch op {
	case "EQ", "NE":
		return true
	case "BEGINS_WITH":
		return t == av.TypeS || t == av.TypeB
	case "CONTAINS", "NOT_CONTAINS", "LE", "LT", "GE", "GT", "IN", "BETWEEN":
		return t == av.TypeS || t == av.TypeN || t == av.TypeB
	}
	return true
}

// checkValues applies the checks shared by Expected and the filters.
func checkValues(op string, vals []av.Value) *Error {
	if !argCount(op, len(vals)) {
		return errorf(invalidParams, "Invalid number of argument(s) for the ", op, " ComparisonOperator")
	}
	for _, v := range vals[min(1, len(vals)):] {
		if v.Type != vals[0].Type {
			return errorf(invalidParams, "AttributeValues inside AttributeValueList must be of same type")
		}
	}
	for _, v := range vals {
		if !typeAllowed(op, v.Type) {
			return errorf(invalidParams, "ComparisonOperator ", op, " is not valid for ", v.Type.String(), " AttributeValue type")
		}
	}
	if op == "BETWEEN" {
		if r, ok := av.Compare(vals[0], vals[1]); ok && r > 0 {
			return errorf("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	return nil
}

func attrPath(name string) *operand {
	return &operand{kind: opPath, path: Path{{Name: name}}}
}

func valueOp(v av.Value) *operand { return &operand{kind: opValue, val: v} }

// legacyCond builds the condition tree for one attribute and operator.
func legacyCond(name, op string, vals []av.Value) *cond {
	a := attrPath(name)
	cmp := func(k tokKind) *cond { return &cond{kind: cCmp, cmp: k, args: []*operand{a, valueOp(vals[0])}} }
	fn := func(f string, args ...*operand) *cond { return &cond{kind: cFunc, fn: f, args: args} }
	switch op {
	case "EQ":
		return cmp(tEq)
	case "NE":
		return cmp(tNe)
	case "LT":
		return cmp(tLt)
	case "LE":
		return cmp(tLe)
	case "GT":
		return cmp(tGt)
	case "GE":
		return cmp(tGe)
	case "NULL":
		return fn("attribute_not_exists", a)
	case "NOT_NULL":
		return fn("attribute_exists", a)
	case "CONTAINS":
		return fn("contains", a, valueOp(vals[0]))
	case "NOT_CONTAINS":
		return &cond{kind: cAnd, l: fn("attribute_exists", a), r: &cond{kind: cNot, l: fn("contains", a, valueOp(vals[0]))}}
	case "BEGINS_WITH":
		return fn("begins_with", a, valueOp(vals[0]))
	case "IN":
		args := []*operand{a}
		for _, v := range vals {
			args = append(args, valueOp(v))
		}
		return &cond{kind: cIn, args: args}
	case "BETWEEN":
		return &cond{kind: cBetween, args: []*operand{a, valueOp(vals[0]), valueOp(vals[1])}}
	}
	return &cond{kind: cTrue}
}

func combine(conds []*cond, conditionalOperator *string) (*Condition, error) {
	if len(conds) == 0 {
		return &Condition{root: &cond{kind: cTrue}}, nil
	}
	kind := cAnd
	if conditionalOperator != nil {
		switch *conditionalOperator {
		case "AND":
		case "OR":
			kind = cOr
		default:
			return nil, errorf("1 validation error detected: Value '", *conditionalOperator,
				"' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]")
		}
	}
	root := conds[0]
	for _, c := range conds[1:] {
		root = &cond{kind: kind, l: root, r: c}
	}
	return &Condition{root: root}, nil
}

// FromExpected converts Expected and ConditionalOperator into a Condition.
func FromExpected(expected map[string]ExpectedAttributeValue, conditionalOperator *string) (*Condition, error) {
	var conds []*cond
	for _, key := range sortedKeys(expected) {
		e := expected[key]
		if e.AttributeValueList != nil && e.Value != nil {
			return nil, errorf(invalidParams, "Value and AttributeValueList cannot be used together for Attribute: ", key)
		}
		if e.ComparisonOperator != nil {
			op := *e.ComparisonOperator
			if !validOperator(op) {
				return nil, enumError("expected", key, op)
			}
			if e.Exists != nil {
				return nil, errorf(invalidParams, "Exists and ComparisonOperator cannot be used together for Attribute: ", key)
			}
			if op != "NULL" && op != "NOT_NULL" && e.AttributeValueList == nil && e.Value == nil {
				return nil, errorf(invalidParams, "Value or AttributeValueList must be used with ComparisonOperator: ", op, " for Attribute: ", key)
			}
			vals := e.AttributeValueList
			if e.Value != nil {
				vals = []av.Value{*e.Value}
			}
			if err := checkValues(op, vals); err != nil {
				return nil, err
			}
			conds = append(conds, legacyCond(key, op, vals))
			continue
		}
		if e.AttributeValueList != nil {
			return nil, errorf(invalidParams, "AttributeValueList can only be used with a ComparisonOperator for Attribute: ", key)
		}
		exists := e.Exists == nil || *e.Exists
		switch {
		case exists && e.Value == nil:
			state := "null"
			if e.Exists != nil {
				state = "true"
			}
			return nil, errorf(invalidParams, "Value must be provided when Exists is ", state, " for Attribute: ", key)
		case !exists && e.Value != nil:
			return nil, errorf(invalidParams, "Value cannot be used when Exists is false for Attribute: ", key)
		case exists:
			conds = append(conds, legacyCond(key, "EQ", []av.Value{*e.Value}))
		default:
			conds = append(conds, legacyCond(key, "NULL", nil))
		}
	}
	return combine(conds, conditionalOperator)
}

func fromConditions(param string, conds map[string]LegacyCondition) ([]*cond, error) {
	var out []*cond
	for _, key := range sortedKeys(conds) {
		c := conds[key]
		op := ""
		if c.ComparisonOperator != nil {
			op = *c.ComparisonOperator
		}
		if !validOperator(op) {
			return nil, enumError(param, key, op)
		}
		if err := checkValues(op, c.AttributeValueList); err != nil {
			return nil, err
		}
		out = append(out, legacyCond(key, op, c.AttributeValueList))
	}
	return out, nil
}

// FromFilter converts QueryFilter or ScanFilter (param names which, as
// "queryFilter" or "scanFilter", for messages) and ConditionalOperator.
func FromFilter(param string, filter map[string]LegacyCondition, conditionalOperator *string) (*Condition, error) {
	conds, err := fromConditions(param, filter)
	if err != nil {
		return nil, err
	}
	return combine(conds, conditionalOperator)
}

// FromKeyConditions converts the legacy KeyConditions of a Query.
func FromKeyConditions(conds map[string]LegacyCondition) (*KeyCondition, error) {
	k := &KeyCondition{}
	for _, key := range sortedKeys(conds) {
		c := conds[key]
		op := ""
		if c.ComparisonOperator != nil {
			op = *c.ComparisonOperator
		}
		if !validOperator(op) {
			return nil, enumError("keyConditions", key, op)
		}
		if err := checkValues(op, c.AttributeValueList); err != nil {
			return nil, err
		}
		switch op {
		case "EQ", "LT", "LE", "GT", "GE", "BETWEEN", "BEGINS_WITH":
		default:
			return nil, errorf("Attempted conditional constraint is not an indexable operation")
		}
		k.conds = append(k.conds, KeyTerm{Name: key, Op: op, Values: c.AttributeValueList})
	}
	return k, nil
}

// FromAttributeUpdates converts AttributeUpdates into an Update.
func FromAttributeUpdates(updates map[string]AttributeValueUpdate) (*Update, error) {
	u := &Update{legacy: true}
	for _, key := range sortedKeys(updates) {
		a := updates[key]
		act := "PUT"
		if a.Action != nil {
			act = *a.Action
		}
		switch act {
		case "PUT", "ADD", "DELETE":
		default:
			return nil, errorf("1 validation error detected: Value '", act, "' at 'attributeUpdates.", key,
				".member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]")
		}
		path := Path{{Name: key}}
		if a.Value == nil {
			if act != "DELETE" {
				return nil, errorf(invalidParams, "Only DELETE action is allowed when no attribute value is specified")
			}
			u.actions = append(u.actions, action{kind: uRemove, path: path})
			continue
		}
		t := a.Value.Type
		switch act {
		case "PUT":
			u.actions = append(u.actions, action{kind: uSet, path: path, val: valueOp(*a.Value)})
		case "DELETE":
			if !isSet(t) {
				return nil, errorf(invalidParams, "Action DELETE is not supported for the type ", t.String())
			}
			u.actions = append(u.actions, action{kind: uDelete, path: path, val: valueOp(*a.Value)})
		case "ADD":
			if !isSet(t) && t != av.TypeN && t != av.TypeL {
				return nil, errorf(invalidParams, "Action ADD is not supported for the type ", t.String())
			}
			u.actions = append(u.actions, action{kind: uAdd, path: path, val: valueOp(*a.Value)})
		}
	}
	return u, nil
}

// FromAttributesToGet converts AttributesToGet into a Projection.
func FromAttributesToGet(names []string) (*Projection, error) {
	seen := map[string]bool{}
	p := &Projection{}
	for _, n := range names {
		if seen[n] {
			return nil, errorf(invalidParams, "Duplicate value in attribute name: ", n)
		}
		seen[n] = true
		p.paths = append(p.paths, Path{{Name: n}})
	}
	return p, nil
}
