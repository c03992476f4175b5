package emulator

// TransactWriteItems. A transaction goes through four stages:
//
//  1. Request checks that need no table, in DynamoDB's order: the shape
//     constraints of the whole request (one "N validation errors detected"
//     message), one operation per action, then each action's parameters and
//     expressions. All of these fail the request with a ValidationException.
//  2. Tables and keys: every action's table is resolved
//     (ResourceNotFoundException) and its key checked. An empty key value is
//     a ValidationException for the request; a key that does not match the
//     schema cancels the transaction with a ValidationError reason, as the
//     service does. Two actions on one item are a ValidationException.
//  3. Under the locks: the stripes of every item are taken in ascending
//     order (no deadlock whatever the request order), each with a short
//     bounded wait; a stripe still held when the wait runs out cancels the
//     transaction with a TransactionConflict reason instead of queueing
//     forever. Then every action is prepared (read, condition, new item).
//  4. Commit: if every action passed, all writes are staged into one kv
//     batch and committed once, so a crash never leaves a transaction half
//     applied and no reader (GetItem, TransactGetItems, Query) ever sees a
//     part of it. Otherwise nothing is written and the
//     TransactionCanceledException lists one reason per action.
//
// Transactional writes cost twice the WCUs of the same single-item writes.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

const (
	// maxTransactItems is the most actions one transaction may have.
	maxTransactItems = 100
	// maxTransactBytes is the 4 MB limit of a transaction, measured on what
	// the request carries (items, keys and expression values), not on the
	// items it changes: deleting many large items is one small request.
	maxTransactBytes = 4 << 20
	// txLockWait bounds how long a transaction waits for one item's stripe
	// before it gives up with a TransactionConflict reason.
	txLockWait = 25 * time.Millisecond
)

// Messages of the transaction errors.
const (
	msgTxDuplicateItem   = "Transaction request cannot include multiple operations on one item"
	msgTxOneOperation    = "TransactItems can only contain one of Check, Put, Update or Delete"
	msgTxNoOperation     = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
	msgTxTooLarge        = "Transaction request size has exceeded the maximum allowed size of 4 MB"
	msgTxOtherNamespace  = "Transaction request cannot include tables in different accounts or regions"
	msgTxConflict        = "Transaction is ongoing for the item"
	msgTxCancelledPrefix = "Transaction cancelled, please refer cancellation reasons for specific reasons ["
)

// Cancellation reason codes.
const (
	ReasonNone                   = "None"
	ReasonConditionalCheckFailed = "ConditionalCheckFailed"
	ReasonValidationError        = "ValidationError"
	ReasonTransactionConflict    = "TransactionConflict"
)

// txAction is one action of a TransactWriteItems request on its way
// through the stages.
type txAction struct {
	kind      string // ConditionCheck, Put, Delete or Update
	tableName string
	key       av.Item // Key, or Item for a Put
	cond      *expr.Condition
	upd       *expr.Update
	retOld    bool
	t         *tableMeta
	spec      *writeSpec
	pw        *pendingWrite
	// reason is set when the action cancels the transaction.
	reason *CancellationReason
}

// txParams is the part of an action every kind shares.
type txParams struct {
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

// params returns the action's kind and members, and how many operations
// the action holds.
func (w *TransactWriteItem) params() (n int, kind string, p txParams) {
	// Alphabetical, the order the service reports the members' violations in.
	if c := w.ConditionCheck; c != nil {
		n++
		kind = "ConditionCheck"
		p = txParams{table: c.TableName, key: c.Key, keyMember: "key", condExpr: c.ConditionExpression, names: c.ExpressionAttributeNames, values: c.ExpressionAttributeValues, retOnFail: c.ReturnValuesOnConditionCheckFailure, needCond: true, lowerMember: "conditionCheck"}
	}
	if d := w.Delete; d != nil {
		n++
		kind = "Delete"
		p = txParams{table: d.TableName, key: d.Key, keyMember: "key", condExpr: d.ConditionExpression, names: d.ExpressionAttributeNames, values: d.ExpressionAttributeValues, retOnFail: d.ReturnValuesOnConditionCheckFailure, lowerMember: "delete"}
	}
	if u := w.Put; u != nil {
		n++
		kind = "Put"
		p = txParams{table: u.TableName, key: u.Item, keyMember: "item", condExpr: u.ConditionExpression, names: u.ExpressionAttributeNames, values: u.ExpressionAttributeValues, retOnFail: u.ReturnValuesOnConditionCheckFailure, lowerMember: "put"}
	}
	if u := w.Update; u != nil {
		n++
		kind = "Update"
		p = txParams{table: u.TableName, key: u.Key, keyMember: "key", condExpr: u.ConditionExpression, updExpr: u.UpdateExpression, names: u.ExpressionAttributeNames, values: u.ExpressionAttributeValues, retOnFail: u.ReturnValuesOnConditionCheckFailure, needUpdate: true, lowerMember: "update"}
	}
	return n, kind, p
}

// shape adds the violations of one action's members (every member set, in
// the order params lists them) to v.
func (w *TransactWriteItem) shape(v *violations, i int) {
	check := func(p txParams) {
		base := fmt.Sprintf("transactItems.%d.member.%s", i+1, p.lowerMember)
		if p.key == nil {
			v.null(base + "." + p.keyMember)
		}
		checkAttrNames(v, base+"."+p.keyMember, p.key)
		v.tableRef(base+".tableName", p.table)
		if p.needCond && p.condExpr == nil {
			v.null(base + ".conditionExpression")
		}
		if p.needUpdate && p.updExpr == nil {
			v.null(base + ".updateExpression")
		}
		v.enum(base+".returnValuesOnConditionCheckFailure", p.retOnFail, enumReturnOnFail...)
	}
	// Each member on its own, in the order the service reports them.
	for _, one := range []TransactWriteItem{{ConditionCheck: w.ConditionCheck}, {Delete: w.Delete}, {Put: w.Put}, {Update: w.Update}} {
		if n, _, p := one.params(); n == 1 {
			check(p)
		}
	}
}

// txListValue renders a request list the way the service's validation
// message quotes it; the service prints Java objects, which are not
// reproducible, so the number of elements stands in for them.
func txListValue(n int) string {
	return quoteValue(fmt.Sprintf("[%d items]", n))
}

// txListShape checks TransactItems' presence and length.
func txListShape(v *violations, present bool, n int) {
	switch {
	case !present:
		v.null("transactItems")
	case n < 1:
		v.add("'[]'", "transactItems", "Member must have length greater than or equal to 1")
	case n > maxTransactItems:
		v.add(txListValue(n), "transactItems", fmt.Sprintf("Member must have length less than or equal to %d", maxTransactItems))
	}
}

// txStatic runs the checks of one action that need no table: parameter
// mix, attribute values, item size, expressions.
func (e *Engine) txStatic(kind string, p txParams) (*txAction, error) {
	a := &txAction{kind: kind, tableName: *p.table, key: p.key, retOld: isMode(p.retOnFail, "ALL_OLD")}
	if err := checkBareName(*p.table); err != nil {
		return nil, err
	}
	exprs := present(p.condExpr, "ConditionExpression", present(p.updExpr, "UpdateExpression", nil))
	valueExprs := []string{"ConditionExpression"}
	if kind == "Update" {
		valueExprs = []string{"UpdateExpression", "ConditionExpression"}
	}
	if err := expr.CheckParameterMix(exprs, nil, valueExprs, p.names != nil, p.values != nil); err != nil {
		return nil, exprError(err)
	}
	if err := validateItemValues(p.key); err != nil {
		return nil, err
	}
	if kind == "Put" && av.ItemSize(p.key) > av.MaxItemSize {
		return nil, Validation(msgItemTooLarge)
	}
	ep, err := e.exprParams(p.names, p.values)
	if err != nil {
		return nil, err
	}
	if p.updExpr != nil {
		if a.upd, err = ep.Update(*p.updExpr); err != nil {
			return nil, exprError(err)
		}
	}
	if p.condExpr != nil {
		if a.cond, err = ep.Condition(*p.condExpr); err != nil {
			return nil, exprError(err)
		}
	}
	if err := ep.CheckUnused(); err != nil {
		return nil, exprError(err)
	}
	return a, nil
}

// isEmptyKeyError tells the key errors the service answers for the whole
// request (an empty key value) from those it reports as a ValidationError
// cancellation reason (a key that does not match the schema).
func isEmptyKeyError(err error) bool {
	return strings.Contains(err.Error(), "cannot contain an empty")
}

// reasonOf turns an action's error into its cancellation reason, or returns
// the error back when it fails the whole request.
func reasonOf(err error) (*CancellationReason, error) {
	var de *Error
	if !asError(err, &de) {
		return nil, err
	}
	switch {
	case de.Code == CodeConditionalCheckFailed:
		return &CancellationReason{Code: ReasonConditionalCheckFailed, Message: de.Message, Item: de.Item}, nil
	// An Update that grows an item past 400 KB is found only while the
	// transaction runs, so it cancels it; a Put is refused up front.
	case de.Code == CodeValidation && !isEmptyKeyError(de) && de.Message != msgItemTooLarge:
		return &CancellationReason{Code: ReasonValidationError, Message: de.Message}, nil
	}
	return nil, err
}

// resolve finds the action's table and checks its key; a schema mismatch
// becomes the action's cancellation reason.
func (e *Engine) txResolve(ctx context.Context, ns Namespace, a *txAction) error {
	t, err := e.dataTable(ns, a.tableName)
	if err != nil {
		return e.missingTable(ctx, ns, "dynamodb:"+a.kind+"Item", a.tableName, err)
	}
	if callerFrom(ctx) != nil {
		// Each action needs its own permission (dynamodb:ConditionCheckItem
		// for a ConditionCheck), as IAM checks TransactWriteItems.
		action := "dynamodb:" + a.kind + "Item"
		if err := e.authorize(ctx, action, t, "", "", itemAccess(t, a.key)); err != nil {
			return err
		}
	}
	a.t = t
	var kerr error
	if a.kind == "Put" {
		kerr = checkItemKeys(t, a.key)
		if kerr == nil {
			kerr = validateIndexKeys(t, a.key)
		}
	} else {
		kerr = checkKey(t, a.key)
	}
	if kerr != nil {
		r, err := reasonOf(kerr)
		if err != nil {
			return err
		}
		a.reason = r
		return nil
	}
	if a.upd != nil {
		keyNames := []string{t.hashKey().Name}
		if rk, ok := t.rangeKey(); ok {
			keyNames = append(keyNames, rk.Name)
		}
		if err := a.upd.CheckKeys(keyNames...); err != nil {
			return exprError(err)
		}
	}
	a.spec = a.writeSpec(t)
	return nil
}

// writeSpec builds the single-item write the action performs.
func (a *txAction) writeSpec(t *tableMeta) *writeSpec {
	s := &writeSpec{t: t, key: itemKey(t, a.key), cond: a.cond, sizeMsg: msgItemTooLarge, returnOldOnFail: a.retOld}
	switch a.kind {
	case "ConditionCheck":
		s.build = func(old av.Item) (av.Item, error) { return old, nil }
	case "Delete":
		s.build = func(av.Item) (av.Item, error) { return nil, nil }
	case "Put":
		item := a.key
		s.build = func(av.Item) (av.Item, error) { return item, nil }
	case "Update":
		key, upd := a.key, a.upd
		s.sizeMsg = msgUpdateTooLarge
		s.build = func(old av.Item) (av.Item, error) {
			base := old
			if base == nil {
				base = key
			}
			if upd == nil {
				return base, nil
			}
			applied, err := upd.ApplyPaths(base)
			if err != nil {
				return nil, exprError(err)
			}
			if old == nil && upd.OnlyRemoves() {
				return nil, nil // as UpdateItem: nothing to remove, no item
			}
			for _, v := range applied.Item {
				if av.Depth(v) > av.MaxDepth {
					return nil, Validation("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")
				}
			}
			return applied.Item, nil
		}
	}
	return s
}

// txPayloadSize is the size of what a transaction's actions carry: each
// Item or Key and each expression attribute value, by DynamoDB's item-size
// rules.
func txPayloadSize(items []TransactWriteItem) int {
	n := 0
	for i := range items {
		_, _, p := items[i].params()
		n += av.ItemSize(p.key)
		for k, v := range p.values {
			n += len(k) + av.Size(v)
		}
	}
	return n
}

// afterFirstValidationError clears the reasons after the first
// ValidationError: DynamoDB stops validating the actions there and reports
// None for the rest.
func afterFirstValidationError(reasons []*CancellationReason) []*CancellationReason {
	for i, r := range reasons {
		if r != nil && r.Code == ReasonValidationError {
			clear(reasons[i+1:])
			break
		}
	}
	return reasons
}

// cancelled builds TransactionCanceledException from one reason per action
// (nil for an action that did not fail).
func cancelled(reasons []*CancellationReason) *Error {
	out := make([]CancellationReason, len(reasons))
	var msg strings.Builder
	msg.WriteString(msgTxCancelledPrefix)
	for i, r := range reasons {
		if r == nil {
			r = &CancellationReason{Code: ReasonNone}
		}
		out[i] = *r
		if i > 0 {
			msg.WriteString(", ")
		}
		msg.WriteString(r.Code)
	}
	msg.WriteByte(']')
	return &Error{Code: CodeTransactionCanceled, Message: msg.String(), CancellationReasons: out}
}

// TransactWriteItems applies up to 100 writes and condition checks
// atomically: all of them or none.
func (e *Engine) TransactWriteItems(ctx context.Context, ns Namespace, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	if in == nil {
		in = &TransactWriteItemsInput{}
	}
	var v violations
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	v.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnICM...)
	txListShape(&v, in.TransactItems != nil, len(in.TransactItems))
	if in.ClientRequestToken != nil {
		v.length("clientRequestToken", *in.ClientRequestToken, 1, 36)
	}
	if len(in.TransactItems) <= maxTransactItems {
		for i := range in.TransactItems {
			in.TransactItems[i].shape(&v, i)
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	actions := make([]*txAction, len(in.TransactItems))
	for i := range in.TransactItems {
		n, kind, p := in.TransactItems[i].params()
		switch {
		case n == 0:
			return nil, Validation(msgTxNoOperation)
		case n > 1:
			return nil, Validation(msgTxOneOperation)
		}
		a, err := e.txStatic(kind, p)
		if err != nil {
			return nil, err
		}
		actions[i] = a
	}
	if txPayloadSize(in.TransactItems) > maxTransactBytes {
		return nil, Validation(msgTxTooLarge)
	}

	if in.ClientRequestToken != nil {
		return e.txIdempotent(ctx, ns, in, actions)
	}
	return e.txWrite(ctx, ns, in, actions, nil)
}

// txMetrics is the ItemCollectionMetrics of a committed transaction.
func txMetrics(actions []*txAction, mode *string) map[string][]ItemCollectionMetrics {
	if !isMode(mode, "SIZE") {
		return nil
	}
	var out map[string][]ItemCollectionMetrics
	for _, a := range actions {
		if a.kind == "ConditionCheck" {
			continue
		}
		if m := collectionMetrics(a.t, a.key, mode); m != nil {
			if out == nil {
				out = map[string][]ItemCollectionMetrics{}
			}
			out[a.tableName] = append(out[a.tableName], *m)
		}
	}
	return out
}

// txWrite runs stages 2 to 4 of a validated transaction; tok, when not
// nil, is its ClientRequestToken's record in a shared store.
func (e *Engine) txWrite(ctx context.Context, ns Namespace, in *TransactWriteItemsInput, actions []*txAction, tok *txToken) (*TransactWriteItemsOutput, error) {
	var first Namespace
	reasons := make([]*CancellationReason, len(actions))
	failed := false
	for i, a := range actions {
		if err := e.txResolve(ctx, ns, a); err != nil {
			return nil, err
		}
		if i == 0 {
			first = a.t.ns()
		} else if a.t.ns() != first && a.reason == nil {
			a.reason = &CancellationReason{Code: ReasonValidationError, Message: msgTxOtherNamespace}
		}
		if a.reason == nil {
			a.reason = e.throttleReason(a.t, throttle.Write, a.spec.key)
		}
		if a.reason != nil {
			reasons[i], failed = a.reason, true
		}
	}
	seen := make(map[string]struct{}, len(actions))
	for _, a := range actions {
		if a.spec == nil {
			continue
		}
		k := string(a.spec.key)
		if _, dup := seen[k]; dup {
			return nil, Validation(msgTxDuplicateItem)
		}
		seen[k] = struct{}{}
	}
	if failed {
		return nil, cancelled(afterFirstValidationError(reasons))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	keys := make([][]byte, len(actions))
	for i, a := range actions {
		keys[i] = a.spec.key
	}
	stripes, conflict, ok := e.lockTimed(keys)
	if !ok {
		for _, i := range conflict {
			reasons[i] = &CancellationReason{Code: ReasonTransactionConflict, Message: msgTxConflict}
		}
		return nil, cancelled(reasons)
	}
	e.tx.mark(keys, true)
	err := e.txPrepareCommit(actions, reasons, tok)
	e.tx.mark(keys, false)
	e.items.locks.unlock(stripes)
	// What the actions consumed is charged whether or not the transaction
	// committed, as for a failed single-item condition.
	var capa txCapacity
	for _, a := range actions {
		if a.pw != nil {
			u := a.pw.use.doubled()
			e.chargeThroughput(ctx, a.t, a.pw.change.Key, &u)
			capa.add(a.t, a.tableName, u)
		}
	}
	if err != nil {
		return nil, err
	}
	out := &TransactWriteItemsOutput{ConsumedCapacity: capa.render(in.ReturnConsumedCapacity, false),
		ItemCollectionMetrics: txMetrics(actions, in.ReturnItemCollectionMetrics)}
	return out, nil
}

// txPrepareCommit prepares every action and, if all pass, commits them in
// one store transaction (with tok's record, when the request carries a
// ClientRequestToken on a shared store). The caller holds every action's
// stripe.
func (e *Engine) txPrepareCommit(actions []*txAction, reasons []*CancellationReason, tok *txToken) error {
	err := e.update(false, func(wb *writeBatch) error {
		clear(reasons)
		for _, a := range actions {
			a.pw = nil
		}
		if err := tok.check(e, wb.r); err != nil {
			return err
		}
		failed, throttled := false, false
		for i, a := range actions {
			t, err := e.currentIn(wb.r, a.t)
			if err != nil {
				return err
			}
			a.t, a.spec.t = t, t
			pw, err := e.prepare(wb.r, a.spec)
			a.pw = pw
			if err != nil {
				r, rerr := reasonOf(err)
				if rerr != nil {
					return rerr
				}
				reasons[i], failed = r, true
				if r.Code == ReasonValidationError {
					break // DynamoDB stops there: the rest are None
				}
				continue
			}
			// A GSI the action touches that has no capacity cancels the
			// transaction, as the table's own capacity would have.
			if c, _, ok := e.throttleShares(t, pw.use.shares, throttle.Write); !ok {
				r := ThrottleCancellationReason(c)
				reasons[i], failed, throttled = &r, true, true
			}
		}
		if throttled {
			// Refused for capacity, as when the table refuses before this
			// stage: nothing is charged.
			for _, a := range actions {
				a.pw = nil
			}
		}
		if failed {
			return cancelled(reasons)
		}
		if f := e.items.afterPrepare; f != nil {
			f()
		}
		for _, a := range actions {
			if a.kind == "ConditionCheck" {
				continue
			}
			if err := wb.stage(a.pw); err != nil {
				return err
			}
		}
		return tok.stage(wb.b, actions)
	})
	var replay tokenReplay
	if errors.As(err, &replay) {
		return err
	}
	if errors.Is(err, kv.ErrConflict) {
		// Other processes' commits kept invalidating this one's reads:
		// the transaction did nothing, and DynamoDB's answer to a
		// transaction that met another is a cancellation the SDKs'
		// callers retry.
		for i := range reasons {
			reasons[i] = &CancellationReason{Code: ReasonTransactionConflict, Message: msgTxConflict}
		}
		for _, a := range actions {
			a.pw = nil
		}
		return cancelled(reasons)
	}
	if err != nil {
		return writeError(err)
	}
	return nil
}

// lockTimed locks the stripes of keys in ascending order. A stripe busy
// because another transaction holds one of these very items is waited for
// at most txLockWait; a stripe busy for any other reason (a different item
// that hashes to it, a single-item write) is waited for until it is free,
// so only the same item ever conflicts. On success it returns the stripes
// held (for unlock); otherwise it holds nothing and returns the indexes in
// keys of the items that conflicted.
func (e *Engine) lockTimed(keys [][]byte) (held []uint16, conflict []int, ok bool) {
	stripes := make([]uint16, 0, len(keys))
	for _, k := range keys {
		stripes = append(stripes, stripeOf(k))
	}
	sortUnique(&stripes)
	mu := &e.items.locks.mu
	for n, s := range stripes {
		if mu[s].TryLock() {
			continue
		}
		busy := func() bool {
			conflict = conflict[:0]
			for i, k := range keys {
				if stripeOf(k) == s && e.tx.holds(k) {
					conflict = append(conflict, i)
				}
			}
			return len(conflict) > 0
		}
		if e.waitItem(&mu[s], busy) {
			continue
		}
		e.items.locks.unlock(stripes[:n])
		return nil, conflict, false
	}
	return stripes, nil, true
}

// doubled is the capacity of the same writes done transactionally.
func (c capacityUse) doubled() capacityUse {
	out := capacityUse{read: c.read, table: 2 * c.table}
	if c.gsi != nil {
		out.gsi = make(map[string]float64, len(c.gsi))
		for k, u := range c.gsi {
			out.gsi[k] = 2 * u
		}
	}
	if c.lsi != nil {
		out.lsi = make(map[string]float64, len(c.lsi))
		for k, u := range c.lsi {
			out.lsi[k] = 2 * u
		}
	}
	if c.shares != nil {
		out.shares = make([]gsiShare, len(c.shares))
		for i, sh := range c.shares {
			sh.units *= 2
			out.shares[i] = sh
		}
	}
	return out
}

// txCapacity sums a transaction's capacity per table, in the order the
// tables first appear in the request.
type txCapacity struct {
	ids   []tableID
	names []string
	uses  []capacityUse
}

func (c *txCapacity) add(t *tableMeta, name string, u capacityUse) {
	i := 0
	for i < len(c.ids) && c.ids[i] != t.ID {
		i++
	}
	if i == len(c.ids) {
		c.ids = append(c.ids, t.ID)
		c.names = append(c.names, name)
		c.uses = append(c.uses, capacityUse{read: u.read})
	}
	s := &c.uses[i]
	s.table += u.table
	for k, v := range u.gsi {
		if s.gsi == nil {
			s.gsi = map[string]float64{}
		}
		s.gsi[k] += v
	}
	for k, v := range u.lsi {
		if s.lsi == nil {
			s.lsi = map[string]float64{}
		}
		s.lsi[k] += v
	}
}

// render answers ReturnConsumedCapacity: one entry per table with
// CapacityUnits and its read or write split, as transactions report it.
func (c *txCapacity) render(mode *string, read bool) []ConsumedCapacity {
	if mode == nil || (*mode != "TOTAL" && *mode != "INDEXES") {
		return nil
	}
	out := make([]ConsumedCapacity, 0, len(c.uses))
	for i := range c.uses {
		cc := c.uses[i].consumed(c.names[i], mode)
		split(cc.CapacityUnits, &cc.ReadCapacityUnits, &cc.WriteCapacityUnits, read)
		if cc.Table != nil {
			split(cc.Table.CapacityUnits, &cc.Table.ReadCapacityUnits, &cc.Table.WriteCapacityUnits, read)
		}
		for _, m := range []map[string]Capacity{cc.GlobalSecondaryIndexes, cc.LocalSecondaryIndexes} {
			for k, x := range m {
				split(x.CapacityUnits, &x.ReadCapacityUnits, &x.WriteCapacityUnits, read)
				m[k] = x
			}
		}
		out = append(out, *cc)
	}
	return out
}

func split(units *float64, readUnits, writeUnits **float64, read bool) {
	if units == nil {
		return
	}
	if read {
		*readUnits = f64(*units)
	} else {
		*writeUnits = f64(*units)
	}
}
