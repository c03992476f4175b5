package s3io

// A filtered export's FilterSpecification (Developer Guide, "Filtering a
// table export"): a key condition with Query's syntax and rules (one
// partition-key equality, an optional sort-key condition, no other
// attribute), a filter with Scan's (key attributes only without a key
// condition), and a projection. They are parsed, bound and evaluated by
// the engine's expression package, as Query's and Scan's are.
//
// Checks run in Query's order: what needs no table (the parameter mix,
// the placeholder maps and values, each expression, unused placeholders)
// before the table is looked up, then the key condition against the key
// schema and its types, the filter's key attributes, and paths into key
// attributes. The service's texts for a filtered export are not
// published; Query's are used (docs/differences.md).

import (
	"errors"
	"sort"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
)

// parsedFilter is a FilterSpecification's expressions, parsed and bound to
// its placeholders, not yet checked against the table.
type parsedFilter struct {
	kc     *expr.KeyCondition
	filter *expr.Condition
	proj   *expr.Projection
}

// exportFilter is a FilterSpecification checked against its table: what
// the export job tests and projects each item with.
type exportFilter struct {
	// keyed is set by a key condition: hashVal is the partition key's
	// value, sort the optional sort-key term (on sortName).
	keyed    bool
	hash     string
	hashVal  av.Value
	sortName string
	sort     *expr.KeyTerm
	filter   *expr.Condition
	proj     *expr.Projection
}

// exprError is an expression or attribute value error as the
// ValidationException DynamoDB answers with.
func exprError(err error) error { return api.AsValidation(err) }

func present(s *string, name string, list []string) []string {
	if s != nil {
		return append(list, name)
	}
	return list
}

// parseFilter checks and binds spec's expressions (what needs no table).
func parseFilter(spec *api.FilterSpecification) (*parsedFilter, error) {
	exprs := present(spec.KeyConditionExpression, "KeyConditionExpression",
		present(spec.FilterExpression, "FilterExpression", present(spec.ProjectionExpression, "ProjectionExpression", nil)))
	if err := expr.CheckParameterMix(exprs, nil, []string{"FilterExpression", "KeyConditionExpression"},
		spec.ExpressionAttributeNames != nil, spec.ExpressionAttributeValues != nil); err != nil {
		return nil, exprError(err)
	}
	// Exports are rare: no cache, each request parses its texts.
	p := expr.NewParams(spec.ExpressionAttributeNames, spec.ExpressionAttributeValues, nil)
	if err := p.CheckPlaceholders(); err != nil {
		return nil, exprError(err)
	}
	for _, k := range sortedKeys(spec.ExpressionAttributeValues) {
		if err := av.ValidateValue(spec.ExpressionAttributeValues[k]); err != nil {
			var ve *av.ValidationError
			if errors.As(err, &ve) {
				return nil, api.Validation("ExpressionAttributeValues contains invalid value: %s for key %s", ve.Message, k)
			}
			return nil, err
		}
	}
	var pf parsedFilter
	var err error
	if spec.KeyConditionExpression != nil {
		if pf.kc, err = p.KeyCondition(*spec.KeyConditionExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if spec.FilterExpression != nil {
		if pf.filter, err = p.Filter(*spec.FilterExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if spec.ProjectionExpression != nil {
		if pf.proj, err = p.Projection(*spec.ProjectionExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, exprError(err)
	}
	return &pf, nil
}

// bind checks the expressions against src's key schema: the key condition
// names the partition key with an equality and at most the sort key
// besides, with values of the keys' types; with a key condition the
// filter names no key attribute; no path looks inside a key attribute.
func (pf *parsedFilter) bind(src Source) (*exportFilter, error) {
	f := &exportFilter{filter: pf.filter, proj: pf.proj}
	if pf.kc != nil {
		rangeKey := ""
		if len(src.Keys) > 1 {
			rangeKey = src.Keys[1]
		}
		q, err := pf.kc.Resolve(src.Keys[0], rangeKey)
		if err != nil {
			return nil, exprError(err)
		}
		if err := checkKeyTypes(pf.kc, src); err != nil {
			return nil, err
		}
		f.keyed, f.hash, f.hashVal, f.sortName, f.sort = true, q.PartitionName, q.PartitionValue, rangeKey, q.Sort
		if pf.filter != nil {
			if err := pf.filter.CheckNoKeyAttributes(src.Keys...); err != nil {
				return nil, exprError(err)
			}
		}
	}
	if pf.filter != nil {
		if err := pf.filter.CheckKeyPaths(src.Keys...); err != nil {
			return nil, exprError(err)
		}
	}
	if pf.proj != nil {
		if err := pf.proj.CheckKeyPaths(src.Keys...); err != nil {
			return nil, exprError(err)
		}
	}
	return f, nil
}

// checkKeyTypes checks the key condition's values against the key
// attributes' types, as Query does.
func checkKeyTypes(kc *expr.KeyCondition, src Source) error {
	for _, term := range kc.Terms() {
		for i, k := range src.Keys {
			if k != term.Name || i >= len(src.KeyTypes) {
				continue
			}
			for _, v := range term.Values {
				if v.Type.String() != src.KeyTypes[i] {
					return api.Validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
				}
			}
			if term.Op == "BEGINS_WITH" && src.KeyTypes[i] == "N" {
				return api.Validation("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
			}
		}
	}
	return nil
}

// inKeyRange reports whether it satisfies the key condition (true without
// one): the items an export with a key condition reads.
func (f *exportFilter) inKeyRange(it av.Item) bool {
	if f == nil || !f.keyed {
		return true
	}
	if v, ok := it[f.hash]; !ok || !av.Equal(v, f.hashVal) {
		return false
	}
	if f.sort == nil {
		return true
	}
	v, ok := it[f.sortName]
	return ok && f.sort.Match(v)
}

// match reports whether it is exported: in the key range and satisfying
// the filter.
func (f *exportFilter) match(it av.Item) (bool, error) {
	if f == nil {
		return true, nil
	}
	if !f.inKeyRange(it) {
		return false, nil
	}
	return f.filter.Eval(it)
}

// project is it with the projection's attributes only (it without one).
func (f *exportFilter) project(it av.Item) av.Item {
	if f == nil || f.proj == nil || it == nil {
		return it
	}
	return f.proj.Project(it)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
