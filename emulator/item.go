package emulator

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// The single-item operations. Validation runs in DynamoDB's order, which
// dynalite established against the live service: the members' shape
// constraints (one "N validation errors detected" message), the mix of
// expression and legacy parameters, the attribute values of the request,
// operation-specific checks (ReturnValues, item size), legacy conditions,
// expressions (placeholders, syntax, names and values, unused ones); only
// then the table (ResourceNotFoundException), the key against the schema,
// index key types, and finally, under the item's lock, the condition.

const (
	msgItemTooLarge       = "Item size has exceeded the maximum allowed size"
	msgUpdateTooLarge     = "Item size to update has exceeded the maximum allowed size"
	msgKeyMismatch        = "The provided key element does not match the schema"
	msgReturnValuesPutDel = "ReturnValues can only be ALL_OLD or NONE"
)

var (
	enumReturnConsumed = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnICM      = []string{"SIZE", "NONE"}
	enumReturnValues   = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"}
	enumCondOperator   = []string{"OR", "AND"}
	enumReturnOnFail   = []string{"ALL_OLD", "NONE"}
)

// dataTable resolves a data-plane request's table. A table still being
// created or being deleted is not found, as DynamoDB answers.
func (e *Engine) dataTable(ns api.Namespace, nameOrARN string) (*tableMeta, error) {
	tns, name, err := resolveName(ns, nameOrARN)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(tns, name, now)
	e.mu.RUnlock()
	if t == nil {
		return nil, api.ResourceNotFound()
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, api.ResourceNotFound()
	}
	return t, nil
}

func avType(s string) av.Type {
	switch s {
	case "S":
		return av.TypeS
	case "N":
		return av.TypeN
	case "B":
		return av.TypeB
	}
	return av.TypeInvalid
}

// checkKey validates a Key parameter: exactly the table's key attributes,
// of their types, then non-empty and within the size limits.
func checkKey(t *tableMeta, key av.Item) error {
	hk := t.hashKey()
	rk, hasRange := t.rangeKey()
	want := 1
	if hasRange {
		want = 2
	}
	if len(key) != want {
		return api.Validation(msgKeyMismatch)
	}
	// The key elements one by one: a slice of them would be allocated on
	// every read and write.
	if v, ok := key[hk.Name]; !ok || v.Type != avType(hk.Type) {
		return api.Validation(msgKeyMismatch)
	}
	if hasRange {
		if v, ok := key[rk.Name]; !ok || v.Type != avType(rk.Type) {
			return api.Validation(msgKeyMismatch)
		}
	}
	return checkItemKeys(t, key)
}

// checkItemKeys validates the key attributes of an item to be stored.
func checkItemKeys(t *tableMeta, item av.Item) error {
	hk := t.hashKey()
	v, ok := item[hk.Name]
	if err := av.ValidateKeyAttr(hk.Name, avType(hk.Type), av.HashKey, v, ok); err != nil {
		return exprError(err)
	}
	if rk, has := t.rangeKey(); has {
		v, ok := item[rk.Name]
		if err := av.ValidateKeyAttr(rk.Name, avType(rk.Type), av.RangeKey, v, ok); err != nil {
			return exprError(err)
		}
	}
	return nil
}

// validateItemValues checks every attribute value of an Item or Key.
func validateItemValues(it av.Item) error {
	if err := av.ValidateItem(it); err != nil {
		return exprError(err)
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkConditionalOperator refuses a ConditionalOperator with nothing to
// join: no Expected/ScanFilter/QueryFilter, or fewer than two conditions in
// it (the texts and the rule are those of AWS's DAX client, which mirrors
// DynamoDB's request validation).
func checkConditionalOperator(op *string, present bool, conditions int) error {
	switch {
	case op == nil:
		return nil
	case !present:
		return api.Validation("ConditionalOperator cannot be used without Filter or Expected")
	case conditions < 2:
		return api.Validation("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	return nil
}

// legacyCondition validates and converts Expected + ConditionalOperator.
func legacyCondition(expected map[string]api.ExpectedAttributeValue, op *string) (*expr.Condition, error) {
	if err := checkConditionalOperator(op, expected != nil, len(expected)); err != nil {
		return nil, err
	}
	if expected == nil {
		return nil, nil
	}
	conv := make(map[string]expr.ExpectedAttributeValue, len(expected))
	for _, k := range sortedNames(expected) {
		x := expected[k]
		if x.Value != nil {
			if err := av.ValidateValue(*x.Value); err != nil {
				return nil, exprError(err)
			}
		}
		for _, v := range x.AttributeValueList {
			if err := av.ValidateValue(v); err != nil {
				return nil, exprError(err)
			}
		}
		conv[k] = expr.ExpectedAttributeValue(x)
	}
	c, err := expr.FromExpected(conv, op)
	if err != nil {
		return nil, exprError(err)
	}
	return c, nil
}

// exprParams starts a request's expression context: the placeholder maps
// themselves, then every value's validity.
func (e *Engine) exprParams(names map[string]string, values map[string]av.Value) (*expr.Params, error) {
	p := expr.NewParams(names, values, e.exprCache())
	if err := p.CheckPlaceholders(); err != nil {
		return nil, exprError(err)
	}
	for _, k := range sortedNames(values) {
		if err := av.ValidateValue(values[k]); err != nil {
			var ve *av.ValidationError
			if errors.As(err, &ve) {
				if strings.HasPrefix(ve.Message, "1 validation error detected: ") {
					// A request-level refusal (a map entry's name too
					// long) comes without the placeholder's frame.
					return nil, api.Validation("%s", ve.Message)
				}
				return nil, api.Validation("ExpressionAttributeValues contains invalid value: %s for key %s", ve.Message, k)
			}
			return nil, err
		}
	}
	return p, nil
}

func present(s *string, name string, list []string) []string {
	if s != nil {
		return append(list, name)
	}
	return list
}

func isMode(s *string, v string) bool { return s != nil && *s == v }

// collectionMetrics answers ReturnItemCollectionMetrics=SIZE, which only
// tables with local secondary indexes report.
func collectionMetrics(t *tableMeta, key av.Item, mode *string) *api.ItemCollectionMetrics {
	if !isMode(mode, "SIZE") || len(t.LSIs) == 0 {
		return nil
	}
	hk := t.hashKey().Name
	return &api.ItemCollectionMetrics{
		ItemCollectionKey:   av.Item{hk: key[hk]},
		SizeEstimateRangeGB: []float64{0, 1},
	}
}

// GetItem returns one item by primary key.
func (e *Engine) GetItem(ctx context.Context, ns api.Namespace, in *api.GetItemInput) (*api.GetItemOutput, error) {
	out, err := e.getItem(ctx, ns, in)
	if err != nil || out.StoredItem() == nil {
		return out, err
	}
	if out.Item, err = av.DecodeItem(out.StoredItem()); err != nil {
		return nil, internalError(err)
	}
	out.SetStoredItem(nil)
	return out, nil
}

// GetItemStored is GetItem for an encoder that writes an item's stored
// form itself (the wire layer): when the whole item is returned, it is in
// the output's StoredItem and Item is nil, which spares decoding the item
// only to encode it again.
func (e *Engine) GetItemStored(ctx context.Context, ns api.Namespace, in *api.GetItemInput) (*api.GetItemOutput, error) {
	return e.getItem(ctx, ns, in)
}

func (e *Engine) getItem(ctx context.Context, ns api.Namespace, in *api.GetItemInput) (*api.GetItemOutput, error) {
	if in == nil {
		in = &api.GetItemInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Read); err != nil {
		return nil, err
	}
	var v shape.Violations
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	if in.AttributesToGet != nil {
		if len(in.AttributesToGet) < 1 {
			v.Add("'[]'", "attributesToGet", "Member must have length greater than or equal to 1")
		}
		if len(in.AttributesToGet) > 255 {
			v.Add(shape.QuoteValue("["+joinNames(in.AttributesToGet)+"]"), "attributesToGet", "Member must have length less than or equal to 255")
		}
		shape.CheckNameList(&v, in.AttributesToGet)
	}
	v.DataTableRef("tableName", in.TableName)
	if in.Key == nil {
		v.Null("key")
	}
	shape.CheckAttrNames(&v, in.Key)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	exprs := present(in.ProjectionExpression, "ProjectionExpression", nil)
	var legacy []string
	if in.AttributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	if err := expr.CheckParameterMix(exprs, legacy, nil, in.ExpressionAttributeNames != nil, false); err != nil {
		return nil, exprError(err)
	}
	if err := validateItemValues(in.Key); err != nil {
		return nil, err
	}
	var proj *expr.Projection
	if in.AttributesToGet != nil {
		p, err := expr.FromAttributesToGet(in.AttributesToGet)
		if err != nil {
			return nil, exprError(err)
		}
		proj = p
	}
	// Without names or an expression there is nothing to check or parse:
	// no placeholder context is built.
	if in.ExpressionAttributeNames != nil || in.ProjectionExpression != nil {
		p, err := e.exprParams(in.ExpressionAttributeNames, nil)
		if err != nil {
			return nil, err
		}
		if in.ProjectionExpression != nil {
			if proj, err = p.Projection(*in.ProjectionExpression); err != nil {
				return nil, exprError(err)
			}
		}
		if err := p.CheckUnused(); err != nil {
			return nil, exprError(err)
		}
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:GetItem", *in.TableName, err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorize(ctx, "dynamodb:GetItem", t, "", "", itemAccess(t, in.Key).projecting(proj)); err != nil {
			return nil, err
		}
	}
	if err := checkKey(t, in.Key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := itemKey(t, in.Key)
	if err := e.throttleAdmit(t, throttle.Read, k); err != nil {
		return nil, err
	}
	stored, err := e.opts.Store.Get(k)
	if errors.Is(err, kv.ErrNotFound) {
		stored, err = nil, nil
	}
	if err != nil {
		return nil, internalError(err)
	}
	size := 0
	if stored != nil {
		if size, err = av.StoredItemSize(stored); err != nil {
			return nil, internalError(err)
		}
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	use := capacityUse{read: true, table: ReadUnits(size, consistent)}
	e.chargeThroughput(ctx, t, k, &use)
	out := &api.GetItemOutput{ConsumedCapacity: use.consumed(*in.TableName, in.ReturnConsumedCapacity)}
	switch {
	case stored == nil:
	case proj == nil:
		out.SetStoredItem(stored)
	default:
		item, err := av.DecodeItem(stored)
		if err != nil {
			return nil, internalError(err)
		}
		out.Item = proj.Project(item)
	}
	return out, nil
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// writeShape checks the members PutItem, UpdateItem and DeleteItem share.
func writeShape(v *shape.Violations, table *string, itemPath string, item av.Item, condOp, retValues, retICM, retOnFail, retConsumed *string) {
	v.Enum("returnConsumedCapacity", retConsumed, enumReturnConsumed...)
	v.DataTableRef("tableName", table)
	if item == nil {
		v.Null(itemPath)
	}
	shape.CheckAttrNames(v, item)
	v.Enum("conditionalOperator", condOp, enumCondOperator...)
	v.Enum("returnValues", retValues, enumReturnValues...)
	v.Enum("returnItemCollectionMetrics", retICM, enumReturnICM...)
	v.Enum("returnValuesOnConditionCheckFailure", retOnFail, enumReturnOnFail...)
}

// finishWrite turns a writeOne result into the response members every
// write operation shares, charging the capacity also when the condition
// failed.
func (e *Engine) finishWrite(ctx context.Context, t *tableMeta, tableName string, pw *pendingWrite, err error, retConsumed *string) (*api.ConsumedCapacity, error) {
	if pw != nil {
		e.chargeThroughput(ctx, t, pw.change.Key, &pw.use)
	}
	if err != nil {
		return nil, err
	}
	return pw.use.consumed(tableName, retConsumed), nil
}

// putDeleteChecks are the request members whose checks PutItem and
// DeleteItem share.
type putDeleteChecks struct {
	values              av.Item // the item (PutItem) or the key (DeleteItem)
	condition           *string
	expected            map[string]api.ExpectedAttributeValue
	conditionalOperator *string
	returnValues        *string
	names               map[string]string
	exprValues          map[string]av.Value
	itemSizeLimit       bool // PutItem checks the 400 KB limit before the condition
}

// putDeleteCondition runs, in DynamoDB's order, the checks PutItem and
// DeleteItem share before the table is resolved, and returns the bound
// condition (nil when there is none).
func (e *Engine) putDeleteCondition(c putDeleteChecks) (*expr.Condition, error) {
	exprs := present(c.condition, "ConditionExpression", nil)
	var legacy []string
	if c.expected != nil {
		legacy = append(legacy, "Expected")
	}
	if err := expr.CheckParameterMix(exprs, legacy, []string{"ConditionExpression"}, c.names != nil, c.exprValues != nil); err != nil {
		return nil, exprError(err)
	}
	if err := validateItemValues(c.values); err != nil {
		return nil, err
	}
	if c.returnValues != nil && *c.returnValues != "NONE" && *c.returnValues != "ALL_OLD" {
		return nil, api.Validation(msgReturnValuesPutDel)
	}
	if c.itemSizeLimit && av.ItemSize(c.values) > av.MaxItemSize {
		return nil, api.Validation(msgItemTooLarge)
	}
	cond, err := legacyCondition(c.expected, c.conditionalOperator)
	if err != nil {
		return nil, err
	}
	if c.names == nil && c.exprValues == nil && c.condition == nil {
		return cond, nil // no placeholder context to check
	}
	p, err := e.exprParams(c.names, c.exprValues)
	if err != nil {
		return nil, err
	}
	if c.condition != nil {
		if cond, err = p.Condition(*c.condition); err != nil {
			return nil, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, exprError(err)
	}
	return cond, nil
}

// enveloped are the request-validation messages PutItem, DeleteItem and
// UpdateItem report inside "1 validation error detected: " (measured in
// eu-west-2 and us-east-1, 2026; Regions still rolling the envelope out
// answer some bare).
var enveloped = []string{
	"ExpressionAttributeValues can only be specified when using expressions",
	"ExpressionAttributeNames can only be specified when using expressions",
	"ExpressionAttributeValues must not be empty",
	"ExpressionAttributeNames must not be empty",
	"Invalid ConditionExpression: The expression can not be empty;",
	"Invalid ConditionExpression: An expression attribute value used in expression is not defined;",
	msgReturnValuesPutDel,
	"One or more parameter values were invalid: Value must be provided when Exists is ",
	"One or more parameter values were invalid: Value cannot be used when Exists is false ",
	"One or more parameter values were invalid: Value and AttributeValueList cannot be used together ",
	"One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator",
	"One or more parameter values were invalid: Invalid number of argument(s) for the ",
}

// writeEnvelope puts an item write's request-validation error in
// DynamoDB's "1 validation error detected: " envelope; there, PutItem's and
// DeleteItem's "…can only be specified when using expressions" has no
// ": ConditionExpression is null" tail. Other errors pass through.
func writeEnvelope(err error) error {
	ee, ok := err.(*api.Error)
	if !ok || ee.Code != api.CodeValidation {
		return err
	}
	for _, m := range enveloped {
		if strings.HasPrefix(ee.Message, m) {
			msg := strings.TrimSuffix(ee.Message, ": ConditionExpression is null")
			return api.Validation("1 validation error detected: %s", msg)
		}
	}
	return err
}

// PutItem creates or replaces an item.
func (e *Engine) PutItem(ctx context.Context, ns api.Namespace, in *api.PutItemInput) (*api.WriteItemOutput, error) {
	if in == nil {
		in = &api.PutItemInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Write); err != nil {
		return nil, err
	}
	var v shape.Violations
	writeShape(&v, in.TableName, "item", in.Item, in.ConditionalOperator, in.ReturnValues, in.ReturnItemCollectionMetrics, in.ReturnValuesOnConditionCheckFailure, in.ReturnConsumedCapacity)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	cond, err := e.putDeleteCondition(putDeleteChecks{
		values: in.Item, condition: in.ConditionExpression, expected: in.Expected,
		conditionalOperator: in.ConditionalOperator, returnValues: in.ReturnValues,
		names: in.ExpressionAttributeNames, exprValues: in.ExpressionAttributeValues,
		itemSizeLimit: true,
	})
	if err != nil {
		return nil, writeEnvelope(err)
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:PutItem", *in.TableName, err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorize(ctx, "dynamodb:PutItem", t, "", "", itemAccess(t, in.Item).writing(in.Item).returning(in.ReturnValues)); err != nil {
			return nil, err
		}
	}
	if err := checkItemKeys(t, in.Item); err != nil {
		return nil, err
	}
	if err := validateIndexKeys(t, in.Item); err != nil {
		return nil, err
	}
	item := in.Item
	spec := &writeSpec{
		t:               t,
		key:             itemKey(t, item),
		cond:            cond,
		build:           func(av.Item) (av.Item, error) { return item, nil },
		sizeMsg:         msgItemTooLarge,
		returnOldOnFail: isMode(in.ReturnValuesOnConditionCheckFailure, "ALL_OLD"),
		oldUnread:       cond == nil && !isMode(in.ReturnValues, "ALL_OLD"),
		checked:         t,
	}
	if err := e.throttleAdmit(t, throttle.Write, spec.key); err != nil {
		return nil, err
	}
	pw, err := e.writeOne(ctx, spec)
	cc, err := e.finishWrite(ctx, t, *in.TableName, pw, err, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	out := &api.WriteItemOutput{ConsumedCapacity: cc, ItemCollectionMetrics: collectionMetrics(t, item, in.ReturnItemCollectionMetrics)}
	if isMode(in.ReturnValues, "ALL_OLD") {
		out.Attributes = pw.change.Old
	}
	return out, nil
}

// DeleteItem deletes an item by primary key.
func (e *Engine) DeleteItem(ctx context.Context, ns api.Namespace, in *api.DeleteItemInput) (*api.WriteItemOutput, error) {
	if in == nil {
		in = &api.DeleteItemInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Write); err != nil {
		return nil, err
	}
	var v shape.Violations
	writeShape(&v, in.TableName, "key", in.Key, in.ConditionalOperator, in.ReturnValues, in.ReturnItemCollectionMetrics, in.ReturnValuesOnConditionCheckFailure, in.ReturnConsumedCapacity)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	cond, err := e.putDeleteCondition(putDeleteChecks{
		values: in.Key, condition: in.ConditionExpression, expected: in.Expected,
		conditionalOperator: in.ConditionalOperator, returnValues: in.ReturnValues,
		names: in.ExpressionAttributeNames, exprValues: in.ExpressionAttributeValues,
	})
	if err != nil {
		return nil, writeEnvelope(err)
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:DeleteItem", *in.TableName, err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorize(ctx, "dynamodb:DeleteItem", t, "", "", itemAccess(t, in.Key).returning(in.ReturnValues)); err != nil {
			return nil, err
		}
	}
	if err := checkKey(t, in.Key); err != nil {
		return nil, err
	}
	spec := &writeSpec{
		t:               t,
		key:             itemKey(t, in.Key),
		cond:            cond,
		build:           func(av.Item) (av.Item, error) { return nil, nil },
		sizeMsg:         msgItemTooLarge,
		returnOldOnFail: isMode(in.ReturnValuesOnConditionCheckFailure, "ALL_OLD"),
		oldUnread:       cond == nil && !isMode(in.ReturnValues, "ALL_OLD"),
	}
	if err := e.throttleAdmit(t, throttle.Write, spec.key); err != nil {
		return nil, err
	}
	pw, err := e.writeOne(ctx, spec)
	cc, err := e.finishWrite(ctx, t, *in.TableName, pw, err, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	out := &api.WriteItemOutput{ConsumedCapacity: cc, ItemCollectionMetrics: collectionMetrics(t, in.Key, in.ReturnItemCollectionMetrics)}
	if isMode(in.ReturnValues, "ALL_OLD") {
		out.Attributes = pw.change.Old
	}
	return out, nil
}

// UpdateItem edits an item's attributes, creating the item if it does not
// exist (unless the condition forbids it).
func (e *Engine) UpdateItem(ctx context.Context, ns api.Namespace, in *api.UpdateItemInput) (*api.WriteItemOutput, error) {
	if in == nil {
		in = &api.UpdateItemInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Write); err != nil {
		return nil, err
	}
	upd, cond, err := e.parseUpdateItem(in)
	if err != nil {
		return nil, writeEnvelope(err)
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:UpdateItem", *in.TableName, err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorize(ctx, "dynamodb:UpdateItem", t, "", "", itemAccess(t, in.Key).returning(in.ReturnValues)); err != nil {
			return nil, err
		}
	}
	if err := checkKey(t, in.Key); err != nil {
		return nil, err
	}
	keyNames := []string{t.hashKey().Name}
	if rk, ok := t.rangeKey(); ok {
		keyNames = append(keyNames, rk.Name)
	}
	if upd != nil {
		if err := upd.CheckKeys(keyNames...); err != nil {
			return nil, exprError(err)
		}
	}
	key := in.Key
	var applied expr.Applied
	spec := &writeSpec{
		t:    t,
		key:  itemKey(t, key),
		cond: cond,
		build: func(old av.Item) (av.Item, error) {
			base := old
			if base == nil {
				base = key
			}
			if upd == nil {
				applied = expr.Applied{Item: base}
				return base, nil
			}
			a, err := upd.ApplyPaths(base)
			if err != nil {
				return nil, exprError(err)
			}
			if old == nil && upd.OnlyRemoves() {
				applied = expr.Applied{}
				return nil, nil // nothing to remove: DynamoDB creates no item
			}
			for _, v := range a.Item {
				if av.Depth(v) > av.MaxDepth {
					return nil, api.Validation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")
				}
			}
			applied = a
			return a.Item, nil
		},
		sizeMsg:         msgUpdateTooLarge,
		returnOldOnFail: isMode(in.ReturnValuesOnConditionCheckFailure, "ALL_OLD"),
	}
	if err := e.throttleAdmit(t, throttle.Write, spec.key); err != nil {
		return nil, err
	}
	pw, err := e.writeOne(ctx, spec)
	cc, err := e.finishWrite(ctx, t, *in.TableName, pw, err, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	out := &api.WriteItemOutput{ConsumedCapacity: cc, ItemCollectionMetrics: collectionMetrics(t, key, in.ReturnItemCollectionMetrics)}
	if in.ReturnValues != nil {
		out.Attributes = updateReturnValues(*in.ReturnValues, pw, &applied)
	}
	return out, nil
}

// parseUpdateItem checks what needs no table, in DynamoDB's order: the
// member shapes, the expression/legacy mix, the key's values, the legacy
// members, then the expressions and their placeholders.
func (e *Engine) parseUpdateItem(in *api.UpdateItemInput) (*expr.Update, *expr.Condition, error) {
	var v shape.Violations
	writeShape(&v, in.TableName, "key", in.Key, in.ConditionalOperator, in.ReturnValues, in.ReturnItemCollectionMetrics, in.ReturnValuesOnConditionCheckFailure, in.ReturnConsumedCapacity)
	shape.CheckAttrNames(&v, in.AttributeUpdates)
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, nil, err
	}
	exprs := present(in.ConditionExpression, "ConditionExpression", present(in.UpdateExpression, "UpdateExpression", nil))
	var legacy []string
	if in.AttributeUpdates != nil {
		legacy = append(legacy, "AttributeUpdates")
	}
	if in.Expected != nil {
		legacy = append(legacy, "Expected")
	}
	if err := expr.CheckParameterMix(exprs, legacy, []string{"UpdateExpression", "ConditionExpression"}, in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, nil, exprError(err)
	}
	if err := validateItemValues(in.Key); err != nil {
		return nil, nil, err
	}
	var upd *expr.Update
	if in.AttributeUpdates != nil {
		var err error
		if upd, err = legacyAttributeUpdates(in.AttributeUpdates); err != nil {
			return nil, nil, err
		}
	}
	cond, err := legacyCondition(in.Expected, in.ConditionalOperator)
	if err != nil {
		return nil, nil, err
	}
	p, err := e.exprParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, nil, err
	}
	if in.UpdateExpression != nil {
		if upd, err = p.Update(*in.UpdateExpression); err != nil {
			return nil, nil, exprError(err)
		}
	}
	if in.ConditionExpression != nil {
		if cond, err = p.Condition(*in.ConditionExpression); err != nil {
			return nil, nil, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, nil, exprError(err)
	}
	return upd, cond, nil
}

// legacyAttributeUpdates converts UpdateItem's AttributeUpdates, checking
// their values in name order.
func legacyAttributeUpdates(m map[string]api.AttributeValueUpdate) (*expr.Update, error) {
	conv := make(map[string]expr.AttributeValueUpdate, len(m))
	for _, k := range sortedNames(m) {
		u := m[k]
		if u.Value != nil {
			if err := av.ValidateValue(*u.Value); err != nil {
				return nil, exprError(err)
			}
		}
		conv[k] = expr.AttributeValueUpdate(u)
	}
	upd, err := expr.FromAttributeUpdates(conv)
	if err != nil {
		return nil, exprError(err)
	}
	return upd, nil
}

// updateReturnValues is the Attributes of UpdateItem's answer for
// ReturnValues rv.
func updateReturnValues(rv string, pw *pendingWrite, applied *expr.Applied) av.Item {
	switch rv {
	case "ALL_OLD":
		return pw.change.Old
	case "ALL_NEW":
		return pw.change.New
	case "UPDATED_OLD":
		if pw.change.Old != nil {
			return applied.UpdatedOld(pw.change.Old)
		}
	case "UPDATED_NEW":
		return applied.UpdatedNew()
	}
	return nil
}
