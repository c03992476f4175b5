package expr

import "github.com/extenddb/extenddb/emulator/av"

// SearchCondition is a bound SearchConditionExpression of SearchVectors:
// equalities between a top-level attribute and a value, joined by AND
// (Developer Guide, "Working with vector indexes": only = on the search
// schema's attributes).
type SearchCondition struct {
	terms []SearchTerm
	// err is a structural problem (another comparator, a nested path, an
	// attribute twice), reported after the unused-placeholder check.
	err string
}

// SearchTerm is one equality of a search condition.
type SearchTerm struct {
	Name  string
	Value av.Value
}

// Messages of a SearchConditionExpression that is not an AND of
// equalities, one per top-level attribute.
const (
	msgSearchComparator = "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"
	msgSearchNested     = "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on nested attributes"
	msgSearchTwice      = "Invalid SearchConditionExpression: SearchConditionExpression must only contain one condition per attribute"
)

// Terms returns the equalities in the order written.
func (s *SearchCondition) Terms() []SearchTerm { return s.terms }

// Check returns the structural error of the expression: a comparator other
// than = (OR, NOT, IN, BETWEEN and functions included), a nested path, two
// conditions on one attribute. Call it after Params.CheckUnused, the order
// in which DynamoDB reports them for a KeyConditionExpression.
func (s *SearchCondition) Check() error {
	if s.err != "" {
		return errorf(s.err)
	}
	return nil
}

// SearchCondition parses and binds a SearchConditionExpression. Syntax and
// placeholder errors come back at once; whether the expression has the
// form SearchVectors accepts is reported by Check.
func (p *Params) SearchCondition(text string) (*SearchCondition, error) {
	c, err := p.condition("SearchConditionExpression", text)
	if err != nil {
		return nil, err
	}
	s := &SearchCondition{}
	if msg := s.collect(c.root); msg != "" {
		s.terms, s.err = nil, msg
	}
	return s, nil
}

func (s *SearchCondition) collect(c *cond) string {
	if c.kind == cAnd {
		if m := s.collect(c.l); m != "" {
			return m
		}
		return s.collect(c.r)
	}
	if c.kind != cCmp || c.cmp != tEq || len(c.args) != 2 {
		return msgSearchComparator
	}
	path, val := c.args[0], c.args[1]
	if path.kind != opPath {
		path, val = val, path
	}
	if path.kind != opPath || val.kind != opValue {
		// Two paths, two values or a function operand (size): not an
		// attribute compared with a value.
		return msgSearchComparator
	}
	if len(path.path) != 1 {
		return msgSearchNested
	}
	name := path.path[0].Name
	for _, t := range s.terms {
		if t.Name == name {
			return msgSearchTwice
		}
	}
	s.terms = append(s.terms, SearchTerm{Name: name, Value: val.val})
	return ""
}
