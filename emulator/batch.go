package emulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// BatchGetItem and BatchWriteItem. Every request is validated whole (all
// tables, all keys) before anything is read or written; then each item
// goes its own way, as in DynamoDB: a batch write is not atomic across
// items, each write holds only its own item's lock stripe.

const (
	maxBatchGetKeys      = 100
	maxBatchWriteItems   = 25
	maxBatchGetBytes     = 16 << 20
	msgBatchDuplicates   = "Provided list of item keys contains duplicates"
	msgWriteRequestShape = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
)

// add accumulates another request's use on the same table.
func (c *capacityUse) add(o capacityUse) {
	c.table += o.table
	for n, u := range o.gsi {
		if c.gsi == nil {
			c.gsi = map[string]float64{}
		}
		c.gsi[n] += u
	}
	for n, u := range o.lsi {
		if c.lsi == nil {
			c.lsi = map[string]float64{}
		}
		c.lsi[n] += u
	}
	for n, u := range o.vec {
		if c.vec == nil {
			c.vec = map[string]float64{}
		}
		c.vec[n] += u
	}
}

// requiredRequestItems is the service's own answer to a batch without
// RequestItems or with an empty map, given before any other validation.
func requiredRequestItems(n int, op string) error {
	if n == 0 {
		return api.Validation("The requestItems parameter is required for %s", op)
	}
	return nil
}

// batchGetTable is one table's validated part of a BatchGetItem.
type batchGetTable struct {
	name       string
	t          *tableMeta
	spec       api.KeysAndAttributes
	proj       *expr.Projection
	consistent bool
	keys       [][]byte // the storage keys of spec.Keys, made once
}

// BatchGetItem reads up to 100 items by key across tables.
func (e *Engine) BatchGetItem(ctx context.Context, ns api.Namespace, in *api.BatchGetItemInput) (*api.BatchGetItemOutput, error) {
	return e.batchGetItem(ctx, ns, in, false)
}

// BatchGetItemStored is BatchGetItem for an encoder that writes items from
// their stored form (see QueryStored): a table whose items are returned
// whole has them in the output's StoredResponses instead of Responses.
func (e *Engine) BatchGetItemStored(ctx context.Context, ns api.Namespace, in *api.BatchGetItemInput) (*api.BatchGetItemOutput, error) {
	return e.batchGetItem(ctx, ns, in, true)
}

func (e *Engine) batchGetItem(ctx context.Context, ns api.Namespace, in *api.BatchGetItemInput, stored bool) (*api.BatchGetItemOutput, error) {
	if in == nil {
		in = &api.BatchGetItemInput{}
	}
	if err := requiredRequestItems(len(in.RequestItems), "BatchGetItem"); err != nil {
		return nil, err
	}
	names := sortedNames(in.RequestItems)
	if err := batchGetShape(in, names); err != nil {
		return nil, err
	}
	parts := make([]*batchGetTable, 0, len(names))
	for _, name := range names {
		part, err := e.parseBatchGetTable(name, in.RequestItems[name])
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
	for _, part := range parts {
		if err := e.resolveBatchGetTable(ctx, ns, part); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	r := batchGetRun{e: e, ctx: ctx, stored: stored, returnConsumed: in.ReturnConsumedCapacity,
		out: &api.BatchGetItemOutput{Responses: map[string][]av.Item{}, UnprocessedKeys: map[string]api.KeysAndAttributes{}}}
	for _, part := range parts {
		if err := r.readTable(part); err != nil {
			return nil, err
		}
	}
	if err := r.thr.Err(); err != nil {
		return nil, err
	}
	return r.out, nil
}

// batchGetShape checks the members' shapes and the number of keys.
func batchGetShape(in *api.BatchGetItemInput, names []string) error {
	var v shape.Violations
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	if badBatchTableName(names) {
		v.Add(shape.QuoteValue(javaBatchGetItems(in.RequestItems)), "requestItems", msgBatchTableNames)
	}
	for _, name := range names {
		ka := in.RequestItems[name]
		if ka.Keys == nil {
			v.Null(fmt.Sprintf("requestItems.%s.member.keys", name))
			continue
		}
		// The service reports the Keys bounds in wire case, value unquoted.
		path := fmt.Sprintf("RequestItems.%s.member.Keys", name)
		if len(ka.Keys) < 1 {
			v.AddUnquoted(path, "Member must have length greater than or equal to 1")
		} else if len(ka.Keys) > maxBatchGetKeys {
			v.AddUnquoted(path, "Member must have length less than or equal to 100")
		}
		shape.CheckNameList(&v, ka.AttributesToGet)
	}
	if err := v.Err(); err != nil {
		return err
	}
	total := 0
	for _, name := range names {
		total += len(in.RequestItems[name].Keys)
	}
	if total > maxBatchGetKeys {
		return api.Validation("Too many items requested for the BatchGetItem call")
	}
	// The expression/legacy mix is the request's, not each table's: a
	// ProjectionExpression on one table and AttributesToGet on another is
	// refused as if both were on one.
	var exprs, legacy []string
	for _, name := range names {
		ka := in.RequestItems[name]
		if ka.ProjectionExpression != nil {
			exprs = []string{"ProjectionExpression"}
		}
		if ka.AttributesToGet != nil {
			legacy = []string{"AttributesToGet"}
		}
	}
	if len(exprs) > 0 && len(legacy) > 0 {
		return exprError(expr.CheckParameterMix(exprs, legacy, nil, false, false))
	}
	return nil
}

// msgBatchTableNames is the constraint a batch's RequestItems breaks when
// one of its table names is malformed, as the service words it.
const msgBatchTableNames = "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"

// badBatchTableName reports whether a table name of a batch is malformed:
// a bare name shorter than 3 characters or outside [a-zA-Z0-9_.-]+. (A
// bare name over 255 characters gets CheckBareName's answer later, as in
// the single-item operations; an ARN is checked when it is resolved.)
func badBatchTableName(names []string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, "arn:") {
			continue
		}
		if len(n) < 3 || !shape.ValidName(n) {
			return true
		}
	}
	return false
}

// parseBatchGetTable checks one table's request as far as it can without
// the table: the name, the expression/legacy mix, the key values, the
// projection.
func (e *Engine) parseBatchGetTable(name string, ka api.KeysAndAttributes) (*batchGetTable, error) {
	if err := shape.CheckBareName(name); err != nil {
		return nil, err
	}
	exprs := present(ka.ProjectionExpression, "ProjectionExpression", nil)
	var legacy []string
	if ka.AttributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	if err := expr.CheckParameterMix(exprs, legacy, nil, ka.ExpressionAttributeNames != nil, false); err != nil {
		return nil, exprError(err)
	}
	for _, k := range ka.Keys {
		if err := validateItemValues(k); err != nil {
			return nil, err
		}
	}
	part := &batchGetTable{name: name, spec: ka, consistent: ka.ConsistentRead != nil && *ka.ConsistentRead}
	if ka.AttributesToGet != nil {
		p, err := expr.FromAttributesToGet(ka.AttributesToGet)
		if err != nil {
			return nil, exprError(err)
		}
		part.proj = p
	}
	p, err := e.exprParams(ka.ExpressionAttributeNames, nil)
	if err != nil {
		return nil, err
	}
	if ka.ProjectionExpression != nil {
		if part.proj, err = p.Projection(*ka.ProjectionExpression); err != nil {
			return nil, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, exprError(err)
	}
	return part, nil
}

// resolveBatchGetTable looks up one table, asks IAM, and checks and
// encodes its keys.
func (e *Engine) resolveBatchGetTable(ctx context.Context, ns api.Namespace, part *batchGetTable) error {
	t, err := e.dataTable(ns, part.name)
	if err != nil {
		return e.missingTable(ctx, ns, "dynamodb:BatchGetItem", part.name, err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorize(ctx, "dynamodb:BatchGetItem", t, "", "", itemAccess(t, part.spec.Keys...)); err != nil {
			return err
		}
	}
	part.t = t
	part.keys = make([][]byte, len(part.spec.Keys))
	// The storage keys share one buffer; one that outgrows it leaves
	// the keys made so far in the old one, intact.
	kb := make([]byte, 0, 48*len(part.spec.Keys))
	n := len(part.spec.Keys)
	var bad error
	for i, k := range part.spec.Keys {
		if bad = checkKey(t, k); bad != nil {
			n = i
			break
		}
		start := len(kb)
		kb = appendItemKey(kb, t, k)
		part.keys[i] = kb[start:len(kb):len(kb)]
	}
	// Keys are checked in order, each for its schema and then against
	// those before it: a duplicate before the first bad key is what
	// is reported.
	if hasDuplicate(part.keys[:n]) {
		return api.Validation(msgBatchDuplicates)
	}
	return bad
}

// batchGetRun is what the reads of one BatchGetItem share across its
// tables.
type batchGetRun struct {
	e              *Engine
	ctx            context.Context
	out            *api.BatchGetItemOutput
	returnConsumed *string
	stored         bool
	returned       int // the size of the items read so far
	thr            batchThrottle
	vals           valueChunks
}

// readTable reads one table's keys into the output.
func (r *batchGetRun) readTable(part *batchGetTable) error {
	// A table whose items go out whole keeps them as the store gave
	// them (a copy each): no decoding.
	raw := r.stored && part.proj == nil
	items := []av.Item{}
	var rawItems [][]byte
	if raw {
		rawItems = make([][]byte, 0, len(part.spec.Keys))
	}
	var use capacityUse
	use.read = true
	var rest, throttled []av.Item
	for i, k := range part.spec.Keys {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if r.returned > maxBatchGetBytes {
			// Past 16 MB the rest is left for the caller to retry.
			rest = part.spec.Keys[i:]
			break
		}
		key := part.keys[i]
		if r.thr.Refused(r.e.throttleAdmit(part.t, throttle.Read, key)) {
			throttled = append(throttled, k)
			continue
		}
		item, b, size, err := r.readKey(key, raw)
		if err != nil {
			return err
		}
		// Each item is rounded on its own; a missing one costs the minimum.
		u := capacityUse{read: true, table: ReadUnits(size, part.consistent)}
		r.e.chargeThroughput(r.ctx, part.t, key, &u)
		use.table += u.table
		switch {
		case b != nil:
			r.returned += size
			rawItems = append(rawItems, b)
		case item != nil:
			r.returned += size
			items = append(items, part.proj.Project(item))
		}
	}
	out := r.out
	if raw {
		if out.StoredResponses() == nil {
			out.SetStoredResponses(map[string][][]byte{})
		}
		out.StoredResponses()[part.name] = rawItems
	} else {
		out.Responses[part.name] = items
	}
	if rest = append(throttled, rest...); len(rest) > 0 {
		u := part.spec
		u.Keys = rest
		out.UnprocessedKeys[part.name] = u
	}
	if cc := use.consumed(part.name, r.returnConsumed); cc != nil {
		out.ConsumedCapacity = append(out.ConsumedCapacity, *cc)
	}
	return nil
}

// readKey reads one item: whole, as stored (raw), or decoded; size is
// its size, 0 when it is missing.
func (r *batchGetRun) readKey(key []byte, raw bool) (item av.Item, b []byte, size int, err error) {
	if raw {
		if b, err = r.vals.read(r.e.opts.Store, key); err == nil && b != nil {
			if size, err = av.StoredItemSize(b); err != nil {
				err = internalError(err)
			}
		}
	} else if item, err = readItem(r.e.opts.Store, key); err == nil {
		size = av.ItemSize(item)
	}
	return item, b, size, err
}

// hasDuplicate reports whether two of keys are equal: sorted, not put in
// a map, which would take a string of each.
func hasDuplicate(keys [][]byte) bool {
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, bytes.Compare)
	for i := 1; i < len(sorted); i++ {
		if bytes.Equal(sorted[i-1], sorted[i]) {
			return true
		}
	}
	return false
}

// valueChunks reads items kept whole (BatchGetItemStored) into shared
// buffers, where the store can append a value to one (kv.ValueAppender),
// rather than a copy each.
type valueChunks struct{ cur []byte }

// read is readStored into the current chunk; a value that does not fit
// comes in an array of its own and the next chunk, twice the last (up to
// maxRawChunk), is made for the next.
func (c *valueChunks) read(r kv.Reader, k []byte) ([]byte, error) {
	a, ok := r.(kv.ValueAppender)
	if !ok {
		return readStored(r, k)
	}
	if cap(c.cur)-len(c.cur) < 1024 {
		c.cur = make([]byte, 0, min(max(2*cap(c.cur), 8<<10), maxRawChunk))
	}
	free := c.cur[len(c.cur):len(c.cur)]
	v, err := a.AppendValue(free, k)
	switch {
	case errors.Is(err, kv.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, internalError(err)
	case v == nil:
		return []byte{}, nil // found, if empty (and then malformed)
	}
	if cap(v) == cap(free) {
		// It fit: the chunk holds it now.
		c.cur = c.cur[:len(c.cur)+len(v)]
	}
	return v[:len(v):len(v)], nil
}

// batchWrite is one validated write of a BatchWriteItem.
type batchWrite struct {
	req  api.WriteRequest // as sent, for UnprocessedItems
	name string
	spec *writeSpec
	key  av.Item // the item's key attributes, for ItemCollectionMetrics
}

// BatchWriteItem puts and deletes up to 25 items across tables.
func (e *Engine) BatchWriteItem(ctx context.Context, ns api.Namespace, in *api.BatchWriteItemInput) (*api.BatchWriteItemOutput, error) {
	if in == nil {
		in = &api.BatchWriteItemInput{}
	}
	if err := requiredRequestItems(len(in.RequestItems), "BatchWriteItem"); err != nil {
		return nil, err
	}
	names := sortedNames(in.RequestItems)
	if err := batchWriteShape(in, names); err != nil {
		return nil, err
	}
	for _, name := range names {
		if err := shape.CheckBareName(name); err != nil {
			return nil, err
		}
		if err := checkWriteRequests(name, in.RequestItems[name]); err != nil {
			return nil, err
		}
	}
	var writes []batchWrite
	for _, name := range names {
		t, err := e.batchWriteTable(ctx, ns, name, in.RequestItems[name])
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, r := range in.RequestItems[name] {
			w, err := batchWriteOf(t, name, r)
			if err != nil {
				return nil, err
			}
			if seen[string(w.spec.key)] {
				return nil, api.Validation(msgBatchDuplicates)
			}
			seen[string(w.spec.key)] = true
			writes = append(writes, w)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.runBatchWrites(ctx, in, names, writes)
}

// batchWriteShape checks the members' shapes and the number of writes.
func batchWriteShape(in *api.BatchWriteItemInput, names []string) error {
	var v shape.Violations
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	v.Enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, enumReturnICM...)
	if badBatchTableName(names) {
		v.Add(shape.QuoteValue(javaRequestItems(in.RequestItems)), "requestItems", msgBatchTableNames)
	}
	for _, name := range names {
		if n := len(in.RequestItems[name]); n < 1 || n > maxBatchWriteItems {
			// One violation for the whole map, echoing it as the service's
			// Java model prints it.
			v.Add(shape.QuoteValue(javaRequestItems(in.RequestItems)), "requestItems",
				"Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
			break
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	total := 0
	for _, name := range names {
		total += len(in.RequestItems[name])
	}
	if total > maxBatchWriteItems {
		return api.Validation("Too many items requested for the BatchWriteItem call")
	}
	return nil
}

// checkWriteRequests checks one table's writes without the table: one of
// put or delete each, and their attribute values.
func checkWriteRequests(name string, reqs []api.WriteRequest) error {
	for _, r := range reqs {
		switch {
		case (r.PutRequest == nil) == (r.DeleteRequest == nil):
			return api.Validation(msgWriteRequestShape)
		case r.PutRequest != nil:
			if r.PutRequest.Item == nil {
				return api.Validation("1 validation error detected: Value null at 'requestItems.%s.member.putRequest.item' failed to satisfy constraint: Member must not be null", name)
			}
			var v shape.Violations
			shape.CheckAttrNames(&v, r.PutRequest.Item)
			if err := v.Err(); err != nil {
				return err
			}
			if err := validateItemValues(r.PutRequest.Item); err != nil {
				return err
			}
			if av.ItemSize(r.PutRequest.Item) > av.MaxItemSize {
				return api.Validation(msgItemTooLarge)
			}
		default:
			if r.DeleteRequest.Key == nil {
				return api.Validation("1 validation error detected: Value null at 'requestItems.%s.member.deleteRequest.key' failed to satisfy constraint: Member must not be null", name)
			}
			if err := validateItemValues(r.DeleteRequest.Key); err != nil {
				return err
			}
		}
	}
	return nil
}

// batchWriteTable looks up one table of a BatchWriteItem and asks IAM
// about its writes.
func (e *Engine) batchWriteTable(ctx context.Context, ns api.Namespace, name string, reqs []api.WriteRequest) (*tableMeta, error) {
	t, err := e.dataTable(ns, name)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:BatchWriteItem", name, err)
	}
	if callerFrom(ctx) != nil {
		var keys []av.Item
		for _, r := range reqs {
			if r.PutRequest != nil {
				keys = append(keys, r.PutRequest.Item)
			} else if r.DeleteRequest != nil {
				keys = append(keys, r.DeleteRequest.Key)
			}
		}
		if err := e.authorize(ctx, "dynamodb:BatchWriteItem", t, "", "", itemAccess(t, keys...)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// batchPutKeyError words a PutRequest item's missing or mistyped key as
// DynamoDB does in BatchWriteItem (the key-lookup text, not PutItem's
// "Missing the key …" / "Type mismatch for key …"); empty and oversized
// key values keep PutItem's messages.
func batchPutKeyError(err error) error {
	msg := err.Error()
	if ee, ok := err.(*api.Error); ok {
		msg = ee.Message
	}
	if strings.Contains(msg, "Missing the key ") || strings.Contains(msg, "Type mismatch for key ") {
		return api.Validation(msgKeyMismatch)
	}
	return err
}

// batchWriteOf checks one put or delete against the table's schema.
func batchWriteOf(t *tableMeta, name string, r api.WriteRequest) (batchWrite, error) {
	if r.PutRequest != nil {
		item := r.PutRequest.Item
		if err := checkItemKeys(t, item); err != nil {
			return batchWrite{}, batchPutKeyError(err)
		}
		if err := validateIndexKeys(t, item); err != nil {
			return batchWrite{}, err
		}
		return batchWrite{req: r, name: name, key: item, spec: &writeSpec{t: t, key: itemKey(t, item), sizeMsg: msgItemTooLarge,
			build: func(av.Item) (av.Item, error) { return item, nil }, oldUnread: true}}, nil
	}
	if err := checkKey(t, r.DeleteRequest.Key); err != nil {
		return batchWrite{}, err
	}
	return batchWrite{req: r, name: name, key: r.DeleteRequest.Key, spec: &writeSpec{t: t, key: itemKey(t, r.DeleteRequest.Key), sizeMsg: msgItemTooLarge,
		build: func(av.Item) (av.Item, error) { return nil, nil }, oldUnread: true}}, nil
}

// runBatchWrites writes each item on its own, leaving those throttled
// unprocessed.
func (e *Engine) runBatchWrites(ctx context.Context, in *api.BatchWriteItemInput, names []string, writes []batchWrite) (*api.BatchWriteItemOutput, error) {
	uses := map[string]*capacityUse{}
	out := &api.BatchWriteItemOutput{UnprocessedItems: map[string][]api.WriteRequest{}}
	var thr batchThrottle
	// With Options.Sync, the items share one fsync before the answer
	// instead of paying one each (group commit).
	syncer, deferSync := e.opts.Store.(kv.Syncer)
	deferSync = deferSync && e.opts.Sync
	wrote := false
	for _, w := range writes {
		name := w.name
		w.spec.deferSync = deferSync
		var pw *pendingWrite
		err := e.throttleAdmit(w.spec.t, throttle.Write, w.spec.key)
		if err == nil {
			wrote = true
			pw, err = e.writeOne(ctx, w.spec)
			if err != nil && !isThrottle(err) {
				// Validation passed, so this is the store or the context
				// failing; what was written stays written, as in DynamoDB.
				return nil, err
			}
		}
		// Refused by the table or by a GSI the item touches.
		if thr.Refused(err) {
			out.UnprocessedItems[name] = append(out.UnprocessedItems[name], w.req)
			continue
		}
		e.chargeThroughput(ctx, w.spec.t, pw.change.Key, &pw.use)
		u := uses[name]
		if u == nil {
			u = &capacityUse{}
			uses[name] = u
		}
		u.add(pw.use)
		if icm := collectionMetrics(w.spec.t, w.key, in.ReturnItemCollectionMetrics); icm != nil {
			if out.ItemCollectionMetrics == nil {
				out.ItemCollectionMetrics = map[string][]api.ItemCollectionMetrics{}
			}
			out.ItemCollectionMetrics[name] = append(out.ItemCollectionMetrics[name], *icm)
		}
	}
	if deferSync && wrote {
		if err := syncer.Sync(); err != nil {
			return nil, internalError(err)
		}
	}
	for _, name := range names {
		if u := uses[name]; u != nil {
			if cc := u.consumed(name, in.ReturnConsumedCapacity); cc != nil {
				out.ConsumedCapacity = append(out.ConsumedCapacity, *cc)
			}
		}
	}
	if err := thr.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
