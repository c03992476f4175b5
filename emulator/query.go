package emulator

import (
	"context"
	"errors"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/throttle"
)

// Query and Scan validate in the order of the item operations (item.go):
// member shapes, the expression/legacy mix, legacy conditions, attribute
// values, expressions and placeholders, the static Select rules; then the
// table, the index, the key condition against the schema, the start key,
// and the rules that depend on the index's projection.

func toLegacy(m map[string]Condition) (map[string]expr.LegacyCondition, error) {
	out := make(map[string]expr.LegacyCondition, len(m))
	for _, k := range sortedNames(m) {
		c := m[k]
		for _, v := range c.AttributeValueList {
			if err := av.ValidateValue(v); err != nil {
				return nil, exprError(err)
			}
		}
		out[k] = expr.LegacyCondition(c)
	}
	return out, nil
}

// readShape checks the members Query and Scan share.
func readShape(v *violations, table, index, sel, condOp, retConsumed *string, atg []string, limit *int64) {
	v.enum("returnConsumedCapacity", retConsumed, enumReturnConsumed...)
	if atg != nil {
		if len(atg) < 1 {
			v.add("'[]'", "attributesToGet", "Member must have length greater than or equal to 1")
		}
		if len(atg) > 255 {
			v.add(quoteValue("["+joinNames(atg)+"]"), "attributesToGet", "Member must have length less than or equal to 255")
		}
	}
	v.enum("select", sel, enumSelect...)
	v.enum("conditionalOperator", condOp, enumCondOperator...)
	v.dataTableRef("tableName", table)
	v.name("indexName", index, false)
	if limit != nil && *limit < 1 {
		// The service names the member in its wire case and quotes no value.
		v.addUnquoted("Limit", "Member must have value greater than or equal to 1")
	}
}

// startKeyValues validates the attribute values of ExclusiveStartKey.
func startKeyValues(esk av.Item) error {
	if err := av.ValidateItem(esk); err != nil {
		var ve *av.ValidationError
		if errors.As(err, &ve) {
			return Validation("%s: %s", msgBadStartKey, ve.Message)
		}
		return exprError(err)
	}
	return nil
}

const (
	msgKeyConditionsLength = "Conditions can be of length 1 or 2 only"
	msgStartKeyPredicate   = "The provided starting key does not match the range key predicate"
)

// keyNamesOf returns the attribute names of key elements.
func keyNamesOf(ks []keyElem) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Name
	}
	return out
}

// Query reads the items of one partition (of the table or an index) in
// sort-key order.
func (e *Engine) Query(ctx context.Context, ns Namespace, in *QueryInput) (*ReadManyOutput, error) {
	return e.query(ctx, ns, in, false)
}

// QueryStored is Query for an encoder that writes items from their stored
// form itself (the wire layer): a page of whole items comes in the
// output's StoredItems, with Items nil, which spares decoding every item
// only to encode it again.
func (e *Engine) QueryStored(ctx context.Context, ns Namespace, in *QueryInput) (*ReadManyOutput, error) {
	return e.query(ctx, ns, in, true)
}

func (e *Engine) query(ctx context.Context, ns Namespace, in *QueryInput, stored bool) (*ReadManyOutput, error) {
	if in == nil {
		in = &QueryInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Read); err != nil {
		return nil, err
	}
	var v violations
	readShape(&v, in.TableName, in.IndexName, in.Select, in.ConditionalOperator, in.ReturnConsumedCapacity, in.AttributesToGet, in.Limit)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkBareName(*in.TableName); err != nil {
		return nil, err
	}
	exprs := present(in.KeyConditionExpression, "KeyConditionExpression", present(in.FilterExpression, "FilterExpression", present(in.ProjectionExpression, "ProjectionExpression", nil)))
	var legacy []string
	if in.AttributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	if in.QueryFilter != nil {
		legacy = append(legacy, "QueryFilter")
	}
	if in.ConditionalOperator != nil {
		legacy = append(legacy, "ConditionalOperator")
	}
	// DynamoDB accepts legacy KeyConditions beside FilterExpression and
	// ProjectionExpression (not beside KeyConditionExpression, nor with
	// another legacy member).
	if in.KeyConditions != nil && (len(legacy) > 0 || in.KeyConditionExpression != nil) {
		legacy = append(legacy, "KeyConditions")
	}
	if err := expr.CheckParameterMix(exprs, legacy, []string{"FilterExpression", "KeyConditionExpression"}, in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, exprError(err)
	}
	filter, proj, err := legacyFilterAndProjection("queryFilter", in.QueryFilter, in.ConditionalOperator, in.AttributesToGet)
	if err != nil {
		return nil, err
	}
	if err := startKeyValues(in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return nil, Validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	p, err := e.exprParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	var kc *expr.KeyCondition
	if in.KeyConditionExpression != nil {
		if kc, err = p.KeyCondition(*in.KeyConditionExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if in.FilterExpression != nil {
		if filter, err = p.Filter(*in.FilterExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if in.ProjectionExpression != nil {
		if proj, err = p.Projection(*in.ProjectionExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, exprError(err)
	}
	if in.KeyConditions != nil {
		conv, err := toLegacy(in.KeyConditions)
		if err != nil {
			return nil, err
		}
		if kc, err = expr.FromKeyConditions(conv); err != nil {
			return nil, exprError(err)
		}
		// Up to eight conditions fit a multi-attribute GSI key; whether
		// more than two fit the index queried is known only with its
		// schema (below).
		if n := len(kc.Terms()); n < 1 || n > 2*maxGSIHashOrRangeKs {
			return nil, Validation(msgKeyConditionsLength)
		}
	}
	sel, err := selectRules(in.Select, in.IndexName != nil, in.ProjectionExpression != nil, in.AttributesToGet != nil)
	if err != nil {
		return nil, err
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:Query", *in.TableName, err)
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := readIndex(t, in.IndexName, consistent, e.now())
	if err != nil {
		return nil, err
	}
	schema := t.KeySchema
	if ix != nil {
		schema = ix.KeySchema
	}
	hashKeys, rangeKeys := splitKeySchema(schema)
	if in.KeyConditions != nil && len(kc.Terms()) > 2 && len(hashKeys) == 1 && len(rangeKeys) <= 1 {
		return nil, Validation(msgKeyConditionsLength)
	}
	q, err := kc.ResolveKeys(keyNamesOf(hashKeys), keyNamesOf(rangeKeys))
	if err != nil {
		return nil, exprError(err)
	}
	if callerFrom(ctx) != nil {
		acc := (&access{selectValue: deref(in.Select)}).projecting(proj)
		for _, term := range kc.Terms() {
			if len(hashKeys) > 0 && term.Name == hashKeys[0].Name && len(term.Values) > 0 {
				acc.leadingKeys = append(acc.leadingKeys, leadingKey(term.Values[0]))
			}
		}
		if err := e.authorize(ctx, "dynamodb:Query", t, deref(in.IndexName), "", acc); err != nil {
			return nil, err
		}
	}
	for _, term := range kc.Terms() {
		for _, ke := range schema {
			if ke.Name != term.Name {
				continue
			}
			for _, val := range term.Values {
				if val.Type != avType(ke.Type) {
					return nil, invalidParam("Condition parameter type does not match schema type")
				}
			}
			if term.Op == "BEGINS_WITH" && ke.Type == "N" {
				return nil, Validation("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
			}
		}
	}
	if in.ExclusiveStartKey != nil {
		if err := checkStartKey(t, ix, in.ExclusiveStartKey, true); err != nil {
			return nil, err
		}
		if len(rangeKeys) == 0 && ix == nil {
			// A hash-only table's partition holds one item, so there is
			// no position inside it to resume from.
			return nil, Validation(msgBadStartKey)
		}
		for i, hk := range hashKeys {
			if !av.Equal(in.ExclusiveStartKey[hk.Name], q.PartitionValues[i]) {
				return nil, Validation("The provided starting key is outside query boundaries based on provided conditions")
			}
		}
		for i, v := range q.SortPrefix {
			if !av.Equal(in.ExclusiveStartKey[rangeKeys[i].Name], v) {
				return nil, Validation(msgStartKeyPredicate)
			}
		}
		if q.Sort != nil && !q.Sort.Match(in.ExclusiveStartKey[rangeKeys[len(q.SortPrefix)].Name]) {
			return nil, Validation(msgStartKeyPredicate)
		}
	}
	tableKeys := []string{t.hashKey().Name}
	if rk, ok := t.rangeKey(); ok {
		tableKeys = append(tableKeys, rk.Name)
	}
	if filter != nil {
		if in.QueryFilter != nil {
			for _, ke := range schema {
				if _, ok := in.QueryFilter[ke.Name]; ok {
					return nil, Validation("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", ke.Name)
				}
			}
		} else {
			names := make([]string, len(schema))
			for i, ke := range schema {
				names[i] = ke.Name
			}
			if err := filter.CheckNoKeyAttributes(names...); err != nil {
				return nil, exprError(err)
			}
		}
		if err := filter.CheckKeyPaths(tableKeys...); err != nil {
			return nil, exprError(err)
		}
	}
	if proj != nil {
		if err := proj.CheckKeyPaths(tableKeys...); err != nil {
			return nil, exprError(err)
		}
	}
	plan := &readPlan{
		t: t, ix: ix,
		forward:    in.ScanIndexForward == nil || *in.ScanIndexForward,
		filter:     filter,
		proj:       proj,
		count:      sel == selCount,
		consistent: consistent && (ix == nil || ix.Local),
		stored:     stored,
	}
	if in.Limit != nil {
		plan.limit = *in.Limit
	}
	if err := plan.selection(sel); err != nil {
		return nil, err
	}
	if ix == nil {
		plan.pk = itemPartitionPrefix(t, q.PartitionValue)
	} else {
		plan.pk = indexPartitionPrefix(t, ix, q.PartitionValues)
	}
	// The equalities on leading RANGE attributes of a multi-attribute key
	// extend the prefix: the last condition then narrows it as a sort-key
	// condition does.
	prefix := plan.pk
	for _, v := range q.SortPrefix {
		prefix = av.AppendKey(prefix[:len(prefix):len(prefix)], v)
	}
	plan.lower, plan.upper = sortBounds(prefix, q.Sort)
	if in.ExclusiveStartKey != nil {
		plan.applyStartKey(storageKeyOf(t, ix, in.ExclusiveStartKey))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := e.run(ctx, plan)
	if err != nil {
		return nil, err
	}
	return res.output(*in.TableName, in.ReturnConsumedCapacity, plan.count), nil
}
