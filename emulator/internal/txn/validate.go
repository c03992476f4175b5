package txn

import (
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// Request checks that need no table, in DynamoDB's order: the shape
// constraints of the whole request (one "N validation errors detected"
// message), one operation per action, then each action's parameters and
// expressions. All of these fail the request with a ValidationException.

const (
	// MaxItems is the most actions one transaction may have.
	MaxItems = 100
	// MaxBytes is the 4 MB limit of a transaction, measured on what the
	// request carries (items, keys and expression values), not on the
	// items it changes: deleting many large items is one small request.
	MaxBytes = 4 << 20
)

// Messages of the transaction errors.
const (
	MsgDuplicateItem  = "Transaction request cannot include multiple operations on one item"
	MsgOneOperation   = "TransactItems can only contain one of Check, Put, Update or Delete"
	MsgNoOperation    = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
	MsgTooLarge       = "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit"
	MsgOtherNamespace = "Transaction request cannot include tables in different accounts or regions"
	MsgConflict       = "Transaction is ongoing for the item"
	// MsgItemTooLarge is PutItem's answer to an item over 400 KB, which a
	// transaction's Put gets up front.
	MsgItemTooLarge    = "Item size has exceeded the maximum allowed size"
	msgCancelledPrefix = "Transaction cancelled, please refer cancellation reasons for specific reasons ["
	kindConditionCheck = "ConditionCheck"
	kindUpdate         = "Update"
	kindPut            = "Put"
	returnAllOld       = "ALL_OLD"
)

// The enumerations of the request members, as every item operation
// accepts them.
var (
	enumReturnConsumed = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnICM      = []string{"SIZE", "NONE"}
	enumReturnOnFail   = []string{"ALL_OLD", "NONE"}
)

// Action is one validated action of a TransactWriteItems request.
type Action struct {
	Kind      string // ConditionCheck, Put, Delete or Update
	TableName string
	Key       av.Item // Key, or Item for a Put
	Cond      *expr.Condition
	Upd       *expr.Update
	// RetOld is ReturnValuesOnConditionCheckFailure=ALL_OLD.
	RetOld bool
}

// params is the part of an action every kind shares.
type params struct {
	table       *string
	key         av.Item
	keyMember   string // "key" or "item"
	condExpr    *string
	updExpr     *string
	names       map[string]string
	values      map[string]av.Value
	retOnFail   *string
	needCond    bool // ConditionCheck: ConditionExpression is required
	needUpdate  bool // Update: UpdateExpression is required
	lowerMember string
}

// itemParams returns action w's kind and members, and how many operations
// the action holds.
func itemParams(w *api.TransactWriteItem) (n int, kind string, p params) {
	// Alphabetical, the order the service reports the members' violations in.
	if c := w.ConditionCheck; c != nil {
		n++
		kind = kindConditionCheck
		p = params{table: c.TableName, key: c.Key, keyMember: "key", condExpr: c.ConditionExpression, names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, retOnFail: c.ReturnValuesOnConditionCheckFailure, needCond: true, lowerMember: "conditionCheck"}
	}
	if d := w.Delete; d != nil {
		n++
		kind = "Delete"
		p = params{table: d.TableName, key: d.Key, keyMember: "key", condExpr: d.ConditionExpression, names: d.ExpressionAttributeNames, values: d.ExpressionAttributeValues, retOnFail: d.ReturnValuesOnConditionCheckFailure, lowerMember: "delete"}
	}
	if u := w.Put; u != nil {
		n++
		kind = kindPut
		p = params{table: u.TableName, key: u.Item, keyMember: "item", condExpr: u.ConditionExpression, names: u.ExpressionAttributeNames, values: u.ExpressionAttributeValues, retOnFail: u.ReturnValuesOnConditionCheckFailure, lowerMember: "put"}
	}
	if u := w.Update; u != nil {
		n++
		kind = kindUpdate
		p = params{table: u.TableName, key: u.Key, keyMember: "key", condExpr: u.ConditionExpression, updExpr: u.UpdateExpression, names: u.ExpressionAttributeNames, values: u.ExpressionAttributeValues, retOnFail: u.ReturnValuesOnConditionCheckFailure, needUpdate: true, lowerMember: "update"}
	}
	return n, kind, p
}

// itemShape adds the violations of action w's members (every member set,
// in the order itemParams lists them) to v.
func itemShape(w *api.TransactWriteItem, v *shape.Violations, i int) {
	check := func(p params) {
		base := fmt.Sprintf("transactItems.%d.member.%s", i+1, p.lowerMember)
		if p.key == nil {
			v.Null(base + "." + p.keyMember)
		}
		shape.CheckAttrNames(v, p.key)
		v.TableRef(base+".tableName", p.table)
		if p.needCond && p.condExpr == nil {
			v.Null(base + ".conditionExpression")
		}
		if p.needUpdate && p.updExpr == nil {
			v.Null(base + ".updateExpression")
		}
		v.Enum(base+".returnValuesOnConditionCheckFailure", p.retOnFail, enumReturnOnFail...)
	}
	// Each member on its own, in the order the service reports them.
	for _, one := range []api.TransactWriteItem{{ConditionCheck: w.ConditionCheck}, {Delete: w.Delete}, {Put: w.Put}, {Update: w.Update}} {
		if n, _, p := itemParams(&one); n == 1 {
			check(p)
		}
	}
}

// ListValue renders a request list the way the service's validation
// message quotes it; the service prints Java objects, which are not
// reproducible, so the number of elements stands in for them.
func ListValue(n int) string {
	return shape.QuoteValue(fmt.Sprintf("[%d items]", n))
}

// listShape checks TransactItems' presence and length.
func listShape(v *shape.Violations, present bool, n int) {
	switch {
	case !present:
		v.Null("transactItems")
	case n < 1:
		v.Add("'[]'", "transactItems", "Member must have length greater than or equal to 1")
	case n > MaxItems:
		v.Add(ListValue(n), "transactItems", fmt.Sprintf("Member must have length less than or equal to %d", MaxItems))
	}
}

// checkShape checks the shape constraints of a TransactWriteItems
// request: every violation in one "N validation errors detected" message.
func checkShape(in *api.TransactWriteItemsInput) error {
	var v shape.Violations
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	v.Enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnICM...)
	listShape(&v, in.TransactItems != nil, len(in.TransactItems))
	if in.ClientRequestToken != nil {
		v.Length("clientRequestToken", *in.ClientRequestToken, 1, 36)
	}
	if len(in.TransactItems) <= MaxItems {
		for i := range in.TransactItems {
			itemShape(&in.TransactItems[i], &v, i)
		}
	}
	return v.Err()
}

// Validate runs the checks of a TransactWriteItems request that need no
// table, in DynamoDB's order, and returns one *A per action in request
// order. A is the engine's action type and act its embedded Action, so
// the engine's per-action state costs no allocation of its own.
func Validate[A any](c Core, in *api.TransactWriteItemsInput, act func(*A) *Action) ([]*A, error) {
	if err := checkShape(in); err != nil {
		return nil, err
	}
	actions := make([]*A, len(in.TransactItems))
	for i := range in.TransactItems {
		actions[i] = new(A)
		if err := parseAction(c, &in.TransactItems[i], act(actions[i])); err != nil {
			return nil, err
		}
	}
	if payloadSize(in.TransactItems) > MaxBytes {
		return nil, api.Validation(MsgTooLarge)
	}
	return actions, nil
}

// parseAction checks action w, without its table, into a: one
// operation, its parameters and expressions.
func parseAction(c Core, w *api.TransactWriteItem, a *Action) error {
	n, kind, p := itemParams(w)
	switch {
	case n == 0:
		return api.Validation(MsgNoOperation)
	case n > 1:
		return api.Validation(MsgOneOperation)
	}
	return static(c, kind, p, a)
}

// static runs the checks of one action that need no table: parameter
// mix, attribute values, item size, expressions.
func static(c Core, kind string, p params, a *Action) error {
	*a = Action{Kind: kind, TableName: *p.table, Key: p.key, RetOld: p.retOnFail != nil && *p.retOnFail == returnAllOld}
	if err := shape.CheckBareName(*p.table); err != nil {
		return err
	}
	exprs := present(p.condExpr, "ConditionExpression", present(p.updExpr, "UpdateExpression", nil))
	valueExprs := []string{"ConditionExpression"}
	if kind == kindUpdate {
		valueExprs = []string{"UpdateExpression", "ConditionExpression"}
	}
	if err := expr.CheckParameterMix(exprs, nil, valueExprs, p.names != nil, p.values != nil); err != nil {
		return c.ExprError(err)
	}
	if err := av.ValidateItem(p.key); err != nil {
		return c.ExprError(err)
	}
	if kind == kindPut && av.ItemSize(p.key) > av.MaxItemSize {
		return api.Validation(MsgItemTooLarge)
	}
	ep, err := c.ExprParams(p.names, p.values)
	if err != nil {
		return err
	}
	if p.updExpr != nil {
		if a.Upd, err = ep.Update(*p.updExpr); err != nil {
			return c.ExprError(err)
		}
	}
	if p.condExpr != nil {
		if a.Cond, err = ep.Condition(*p.condExpr); err != nil {
			return c.ExprError(err)
		}
	}
	if err := ep.CheckUnused(); err != nil {
		return c.ExprError(err)
	}
	return nil
}

func present(s *string, name string, list []string) []string {
	if s != nil {
		return append(list, name)
	}
	return list
}

// payloadSize is the size of what a transaction's actions carry: each
// Item or Key and each expression attribute value, by DynamoDB's item-size
// rules.
func payloadSize(items []api.TransactWriteItem) int {
	n := 0
	for i := range items {
		_, _, p := itemParams(&items[i])
		n += av.ItemSize(p.key)
		for k, v := range p.values {
			n += len(k) + av.Size(v)
		}
	}
	return n
}
