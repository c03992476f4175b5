package emulator

import (
	"context"
	"errors"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/throttle"
)

// Query and Scan validate in the order of the item operations (item.go):
// member shapes, the expression/legacy mix, legacy conditions, attribute
// values, expressions and placeholders, the static Select rules; then the
// table, the index, the key condition against the schema, the start key,
// and the rules that depend on the index's projection.

func toLegacy(m map[string]api.Condition) (map[string]expr.LegacyCondition, error) {
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
func readShape(v *shape.Violations, table, index, sel, condOp, retConsumed *string, atg []string) {
	v.Enum("returnConsumedCapacity", retConsumed, enumReturnConsumed...)
	if atg != nil {
		if len(atg) < 1 {
			v.Add("'[]'", "attributesToGet", "Member must have length greater than or equal to 1")
		}
		if len(atg) > 255 {
			v.Add(shape.QuoteValue("["+joinNames(atg)+"]"), "attributesToGet", "Member must have length less than or equal to 255")
		}
		shape.CheckNameList(v, atg)
	}
	v.Enum("select", sel, enumSelect...)
	v.Enum("conditionalOperator", condOp, enumCondOperator...)
	v.DataTableRef("tableName", table)
	v.Name("indexName", index, false)
}

// queryLimit checks Query's Limit: the service names the member in its
// wire case and quotes no value.
func queryLimit(v *shape.Violations, limit *int64) {
	if limit != nil && *limit < 1 {
		v.AddUnquoted("Limit", "Member must have value greater than or equal to 1")
	}
}

// startKeyValues validates the attribute values of ExclusiveStartKey.
func startKeyValues(esk av.Item) error {
	if err := av.ValidateItem(esk); err != nil {
		var ve *av.ValidationError
		if errors.As(err, &ve) {
			return api.Validation("%s: %s", msgBadStartKey, ve.Message)
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
func (e *Engine) Query(ctx context.Context, ns api.Namespace, in *api.QueryInput) (*api.ReadManyOutput, error) {
	return e.query(ctx, ns, in, false)
}

// QueryStored is Query for an encoder that writes items from their stored
// form itself (the wire layer): a page of whole items comes in the
// output's StoredItems, with Items nil, which spares decoding every item
// only to encode it again.
func (e *Engine) QueryStored(ctx context.Context, ns api.Namespace, in *api.QueryInput) (*api.ReadManyOutput, error) {
	return e.query(ctx, ns, in, true)
}

func (e *Engine) query(ctx context.Context, ns api.Namespace, in *api.QueryInput, stored bool) (*api.ReadManyOutput, error) {
	if in == nil {
		in = &api.QueryInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Read); err != nil {
		return nil, err
	}
	qx, err := e.parseQuery(in)
	if err != nil {
		return nil, err
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:Query", *in.TableName, err)
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := readIndex(t, in.IndexName, consistent, e.now(), "Query")
	if err != nil {
		return nil, err
	}
	schema := t.KeySchema
	if ix != nil {
		schema = ix.KeySchema
	}
	hashKeys, rangeKeys := splitKeySchema(schema)
	if in.KeyConditions != nil && len(qx.kc.Terms()) > 2 && len(hashKeys) == 1 && len(rangeKeys) <= 1 {
		return nil, api.Validation(msgKeyConditionsLength)
	}
	q, err := qx.kc.ResolveKeys(keyNamesOf(hashKeys), keyNamesOf(rangeKeys))
	if err != nil {
		return nil, exprError(err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorizeQuery(ctx, in, t, qx.kc, qx.proj, hashKeys); err != nil {
			return nil, err
		}
	}
	if err := checkKeyConditionTypes(qx.kc, schema); err != nil {
		return nil, err
	}
	if in.ExclusiveStartKey != nil {
		if err := checkQueryStartKey(t, ix, in.ExclusiveStartKey, &q, hashKeys, rangeKeys); err != nil {
			return nil, err
		}
	}
	if qx.filter != nil {
		if err := checkQueryFilterKeys(in.QueryFilter, qx.filter, schema); err != nil {
			return nil, err
		}
	}
	if err := checkTableKeyPaths(t, qx.filter, qx.proj); err != nil {
		return nil, err
	}
	plan := &readPlan{
		t: t, ix: ix,
		forward:    in.ScanIndexForward == nil || *in.ScanIndexForward,
		filter:     qx.filter,
		proj:       qx.proj,
		count:      qx.sel == selCount,
		consistent: consistent && (ix == nil || ix.Local),
		stored:     stored,
	}
	if in.Limit != nil {
		plan.limit = *in.Limit
	}
	if err := plan.selection(qx.sel); err != nil {
		return nil, err
	}
	plan.queryBounds(&q)
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

// queryExprs is what a Query's request says, parsed before its table is
// looked up.
type queryExprs struct {
	kc     *expr.KeyCondition
	filter *expr.Condition
	proj   *expr.Projection
	sel    string
}

// parseQuery checks what needs no table: the member shapes, the
// expression/legacy mix, the legacy members, the expressions and their
// placeholders, the Select rules.
func (e *Engine) parseQuery(in *api.QueryInput) (queryExprs, error) {
	var qx queryExprs
	var v shape.Violations
	readShape(&v, in.TableName, in.IndexName, in.Select, in.ConditionalOperator, in.ReturnConsumedCapacity, in.AttributesToGet)
	queryLimit(&v, in.Limit)
	if err := v.Err(); err != nil {
		return qx, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return qx, err
	}
	if err := queryParameterMix(in); err != nil {
		return qx, err
	}
	filter, proj, err := legacyFilterAndProjection("queryFilter", in.QueryFilter, in.ConditionalOperator, in.AttributesToGet)
	if err != nil {
		return qx, err
	}
	if err := startKeyValues(in.ExclusiveStartKey); err != nil {
		return qx, err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return qx, api.Validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	p, err := e.exprParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return qx, err
	}
	var kc *expr.KeyCondition
	if in.KeyConditionExpression != nil {
		if kc, err = p.KeyCondition(*in.KeyConditionExpression); err != nil {
			return qx, exprError(err)
		}
	}
	if in.FilterExpression != nil {
		if filter, err = p.Filter(*in.FilterExpression); err != nil {
			return qx, exprError(err)
		}
	}
	if in.ProjectionExpression != nil {
		if proj, err = p.Projection(*in.ProjectionExpression); err != nil {
			return qx, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return qx, exprError(err)
	}
	if in.KeyConditions != nil {
		if kc, err = legacyKeyConditions(in.KeyConditions); err != nil {
			return qx, err
		}
	}
	sel, err := selectRules(in.Select, in.IndexName != nil, in.ProjectionExpression != nil, in.AttributesToGet != nil)
	if err != nil {
		return qx, err
	}
	return queryExprs{kc: kc, filter: filter, proj: proj, sel: sel}, nil
}

// queryParameterMix refuses expressions and legacy members DynamoDB does
// not accept together.
func queryParameterMix(in *api.QueryInput) error {
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
		return exprError(err)
	}
	return nil
}

// legacyKeyConditions converts a Query's KeyConditions.
func legacyKeyConditions(m map[string]api.Condition) (*expr.KeyCondition, error) {
	conv, err := toLegacy(m)
	if err != nil {
		return nil, err
	}
	kc, err := expr.FromKeyConditions(conv)
	if err != nil {
		return nil, exprError(err)
	}
	// Up to eight conditions fit a multi-attribute GSI key; whether
	// more than two fit the index queried is known only with its
	// schema (query).
	if n := len(kc.Terms()); n < 1 || n > 2*maxGSIHashOrRangeKs {
		return nil, api.Validation(msgKeyConditionsLength)
	}
	return kc, nil
}

// authorizeQuery asks IAM, with the partition keys queried as
// dynamodb:LeadingKeys.
func (e *Engine) authorizeQuery(ctx context.Context, in *api.QueryInput, t *tableMeta, kc *expr.KeyCondition, proj *expr.Projection, hashKeys []keyElem) error {
	acc := (&access{selectValue: deref(in.Select)}).projecting(proj)
	for _, term := range kc.Terms() {
		if len(hashKeys) > 0 && term.Name == hashKeys[0].Name && len(term.Values) > 0 {
			acc.leadingKeys = append(acc.leadingKeys, leadingKey(term.Values[0]))
		}
	}
	return e.authorize(ctx, "dynamodb:Query", t, deref(in.IndexName), "", acc)
}

// checkKeyConditionTypes checks the key condition's values against the
// types of the key schema.
func checkKeyConditionTypes(kc *expr.KeyCondition, schema []keyElem) error {
	for _, term := range kc.Terms() {
		for _, ke := range schema {
			if ke.Name != term.Name {
				continue
			}
			for _, val := range term.Values {
				if val.Type != avType(ke.Type) {
					return shape.InvalidParam("Condition parameter type does not match schema type")
				}
			}
			if term.Op == "BEGINS_WITH" && ke.Type == "N" {
				return api.Validation("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
			}
		}
	}
	return nil
}

// checkQueryStartKey checks an ExclusiveStartKey lies inside the
// partition and sort-key range queried.
func checkQueryStartKey(t *tableMeta, ix *indexMeta, esk av.Item, q *expr.KeyQuery, hashKeys, rangeKeys []keyElem) error {
	if err := checkStartKey(t, ix, esk, true); err != nil {
		return err
	}
	if len(rangeKeys) == 0 && ix == nil {
		// A hash-only table's partition holds one item, so there is
		// no position inside it to resume from.
		return api.Validation(msgBadStartKey)
	}
	for i, hk := range hashKeys {
		if !av.Equal(esk[hk.Name], q.PartitionValues[i]) {
			return api.Validation("The provided starting key is outside query boundaries based on provided conditions")
		}
	}
	for i, v := range q.SortPrefix {
		if !av.Equal(esk[rangeKeys[i].Name], v) {
			return api.Validation(msgStartKeyPredicate)
		}
	}
	if q.Sort != nil && !q.Sort.Match(esk[rangeKeys[len(q.SortPrefix)].Name]) {
		return api.Validation(msgStartKeyPredicate)
	}
	return nil
}

// checkQueryFilterKeys refuses a filter on the key attributes of the
// table or index queried.
func checkQueryFilterKeys(queryFilter map[string]api.Condition, filter *expr.Condition, schema []keyElem) error {
	if queryFilter != nil {
		for _, ke := range schema {
			if _, ok := queryFilter[ke.Name]; ok {
				return api.Validation("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", ke.Name)
			}
		}
		return nil
	}
	names := make([]string, len(schema))
	for i, ke := range schema {
		names[i] = ke.Name
	}
	if err := filter.CheckNoKeyAttributes(names...); err != nil {
		return exprError(err)
	}
	return nil
}

// checkTableKeyPaths refuses a filter or projection with a path into the
// table's key attributes (Query and Scan).
func checkTableKeyPaths(t *tableMeta, filter *expr.Condition, proj *expr.Projection) error {
	tableKeys := []string{t.hashKey().Name}
	if rk, ok := t.rangeKey(); ok {
		tableKeys = append(tableKeys, rk.Name)
	}
	if filter != nil {
		if err := filter.CheckKeyPaths(tableKeys...); err != nil {
			return exprError(err)
		}
	}
	if proj != nil {
		if err := proj.CheckKeyPaths(tableKeys...); err != nil {
			return exprError(err)
		}
	}
	return nil
}

// queryBounds sets the partition the plan reads and the range of its sort
// keys.
func (p *readPlan) queryBounds(q *expr.KeyQuery) {
	if p.ix == nil {
		p.pk = itemPartitionPrefix(p.t, q.PartitionValue)
	} else {
		p.pk = indexPartitionPrefix(p.t, p.ix, q.PartitionValues)
	}
	// The equalities on leading RANGE attributes of a multi-attribute key
	// extend the prefix: the last condition then narrows it as a sort-key
	// condition does.
	prefix := p.pk
	for _, v := range q.SortPrefix {
		prefix = av.AppendKey(prefix[:len(prefix):len(prefix)], v)
	}
	p.lower, p.upper = sortBounds(prefix, q.Sort)
}
