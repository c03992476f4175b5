package emulator

import (
	"bytes"
	"context"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// Scan reads a table or an index in storage order, optionally one segment
// of a parallel scan.
func (e *Engine) Scan(ctx context.Context, ns api.Namespace, in *api.ScanInput) (*api.ReadManyOutput, error) {
	return e.scan(ctx, ns, in, false)
}

// ScanStored is Scan for an encoder that writes items from their stored
// form (see QueryStored).
func (e *Engine) ScanStored(ctx context.Context, ns api.Namespace, in *api.ScanInput) (*api.ReadManyOutput, error) {
	return e.scan(ctx, ns, in, true)
}

func (e *Engine) scan(ctx context.Context, ns api.Namespace, in *api.ScanInput, stored bool) (*api.ReadManyOutput, error) {
	if in == nil {
		in = &api.ScanInput{}
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Read); err != nil {
		return nil, err
	}
	filter, proj, sel, err := e.parseScan(in)
	if err != nil {
		return nil, err
	}

	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:Scan", *in.TableName, err)
	}
	if callerFrom(ctx) != nil {
		if err := e.authorize(ctx, "dynamodb:Scan", t, deref(in.IndexName), "", (&access{selectValue: deref(in.Select)}).projecting(proj)); err != nil {
			return nil, err
		}
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := readIndex(t, in.IndexName, consistent, e.now(), "Scan")
	if err != nil {
		return nil, err
	}
	if in.ExclusiveStartKey != nil {
		if err := checkStartKey(t, ix, in.ExclusiveStartKey, false); err != nil {
			return nil, err
		}
	}
	if err := checkTableKeyPaths(t, filter, proj); err != nil {
		return nil, err
	}
	plan := &readPlan{
		t: t, ix: ix,
		forward:    true,
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
	prefix := keyspace.ItemPrefix(t.ID)
	if ix != nil {
		prefix = keyspace.IndexPrefix(t.ID, ix.ID)
	}
	if in.Segment != nil {
		plan.lower, plan.upper = segmentBounds(prefix, *in.Segment, *in.TotalSegments)
	} else {
		plan.lower, plan.upper = prefix, kv.PrefixEnd(prefix)
	}
	if in.ExclusiveStartKey != nil {
		k := storageKeyOf(t, ix, in.ExclusiveStartKey)
		if in.Segment != nil && *in.TotalSegments > 1 && (bytes.Compare(k, plan.lower) < 0 || bytes.Compare(k, plan.upper) >= 0) {
			return nil, api.Validation("%s: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d",
				msgBadStartKey, *in.TotalSegments, *in.Segment)
		}
		plan.applyStartKey(k)
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

// parseScan checks what needs no table (as parseQuery does) and the
// segment members.
func (e *Engine) parseScan(in *api.ScanInput) (*expr.Condition, *expr.Projection, string, error) {
	var v shape.Violations
	readShape(&v, in.TableName, in.IndexName, in.Select, in.ConditionalOperator, in.ReturnConsumedCapacity, in.AttributesToGet)
	// Scan's Limit and Segment echo the value under the model's member
	// name, as most Regions answer (a few answer "Value at 'Limit'" as
	// Query does: docs/differences.md).
	v.Min("limit", in.Limit, 1)
	v.Min("segment", in.Segment, 0)
	v.Max("segment", in.Segment, 999999)
	v.Min("totalSegments", in.TotalSegments, 1)
	v.Max("totalSegments", in.TotalSegments, 1000000)
	if err := v.Err(); err != nil {
		return nil, nil, "", err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, nil, "", err
	}
	exprs := present(in.FilterExpression, "FilterExpression", present(in.ProjectionExpression, "ProjectionExpression", nil))
	var legacy []string
	if in.AttributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	if in.ScanFilter != nil {
		legacy = append(legacy, "ScanFilter")
	}
	if in.ConditionalOperator != nil {
		legacy = append(legacy, "ConditionalOperator")
	}
	if err := expr.CheckParameterMix(exprs, legacy, []string{"FilterExpression"}, in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, nil, "", exprError(err)
	}
	filter, proj, err := legacyFilterAndProjection("scanFilter", in.ScanFilter, in.ConditionalOperator, in.AttributesToGet)
	if err != nil {
		return nil, nil, "", err
	}
	if err := startKeyValues(in.ExclusiveStartKey); err != nil {
		return nil, nil, "", err
	}
	if err := checkSegments(in.Segment, in.TotalSegments); err != nil {
		return nil, nil, "", err
	}
	p, err := e.exprParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, nil, "", err
	}
	if in.FilterExpression != nil {
		if filter, err = p.Filter(*in.FilterExpression); err != nil {
			return nil, nil, "", exprError(err)
		}
	}
	if in.ProjectionExpression != nil {
		if proj, err = p.Projection(*in.ProjectionExpression); err != nil {
			return nil, nil, "", exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, nil, "", exprError(err)
	}
	sel, err := selectRules(in.Select, in.IndexName != nil, in.ProjectionExpression != nil, in.AttributesToGet != nil)
	if err != nil {
		return nil, nil, "", err
	}
	return filter, proj, sel, nil
}

// checkSegments checks Segment and TotalSegments go together.
func checkSegments(segment, total *int64) error {
	switch {
	case segment != nil && total == nil:
		return api.Validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case segment == nil && total != nil:
		return api.Validation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case segment != nil && *segment >= *total:
		return api.Validation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *segment, *total)
	}
	return nil
}

// legacyFilterAndProjection converts Query's QueryFilter or Scan's
// ScanFilter (member names it in messages) and AttributesToGet into the
// trees the expression parameters produce; either may be nil.
func legacyFilterAndProjection(member string, conds map[string]api.Condition, op *string, attrs []string) (*expr.Condition, *expr.Projection, error) {
	if err := checkConditionalOperator(op, conds != nil, len(conds)); err != nil {
		return nil, nil, err
	}
	var filter *expr.Condition
	if conds != nil {
		conv, err := toLegacy(conds)
		if err != nil {
			return nil, nil, err
		}
		if filter, err = expr.FromFilter(member, conv, op); err != nil {
			return nil, nil, exprError(err)
		}
	}
	var proj *expr.Projection
	if attrs != nil {
		p, err := expr.FromAttributesToGet(attrs)
		if err != nil {
			return nil, nil, exprError(err)
		}
		proj = p
	}
	return filter, proj, nil
}
