// Package expr is DynamoDB's expression language: condition, filter,
// key-condition, update and projection expressions, SearchVectors'
// search-condition expression (equalities joined by AND), and the legacy
// parameters (Expected + ConditionalOperator, AttributeUpdates,
// KeyConditions, QueryFilter, ScanFilter, AttributesToGet) converted into
// the same trees. The item operations, Query/Scan, batch and transaction
// code all use it.
//
// Work is split in three steps:
//
//  1. Parse: a hand-written lexer and recursive-descent parser turn the text
//     into a syntax tree with placeholders unresolved. Trees (and syntax
//     errors) are kept in a Cache keyed by text, so a text is parsed once
//     however many requests use it.
//  2. Bind: a Params (one per request) resolves #names and :values, marks
//     them used, and runs the checks that depend on them, in DynamoDB's
//     order of precedence. Every failure is an *Error whose Message is
//     DynamoDB's text; the engine returns it as a ValidationException.
//  3. Use: Condition.Eval, Update.Apply / ApplyPaths, Projection.Project,
//     KeyCondition.Resolve, SearchCondition.Terms. These work on emulator/av values and are safe
//     for concurrent use.
//
// A PutItem with ConditionExpression, ExpressionAttributeNames and
// ExpressionAttributeValues goes like this (cache is the engine's
// long-lived *expr.Cache):
//
//	if err := expr.CheckParameterMix(exprParams, legacyParams,
//		[]string{"ConditionExpression"}, in.ExpressionAttributeNames != nil,
//		in.ExpressionAttributeValues != nil); err != nil {
//		return validation(err) // "Can not use both expression and non-expression parameters…"
//	}
//	p := expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues, cache)
//	if err := p.CheckPlaceholders(); err != nil { // empty maps, bad keys
//		return validation(err)
//	}
//	cond, err := p.Condition(*in.ConditionExpression) // syntax, names, values, types
//	if err != nil {
//		return validation(err) // "Invalid ConditionExpression: …"
//	}
//	if err := p.CheckUnused(); err != nil { // "Value provided in ExpressionAttributeNames unused…"
//		return validation(err)
//	}
//	// … under the item's lock:
//	old, _ := store.Get(key)
//	ok, err := cond.Eval(old) // a missing item is nil
//	if !ok {
//		return conditionalCheckFailed()
//	}
//
// expr.Parse does the same for a whole request in one call, given a Request
// with every expression parameter present.
//
// Checks are made in DynamoDB's order: the text alone (syntax, redundant
// parentheses, then reserved words, list indexes and function names in the
// order written) is checked once and cached; placeholders and operand types
// are checked per request; Query's key condition is matched to the key
// schema by KeyCondition.Resolve; the key-attribute rules (CheckKeyPaths,
// CheckNoKeyAttributes for a Query filter) need the table and come last.
//
// For UpdateItem, Params.Update returns an *Update; CheckKeys(keyNames...)
// gives "One or more parameter values were invalid: Cannot update
// attribute k. This attribute is part of the key",
// ApplyPaths(item) returns the new item and the paths changed, from which
// Applied.UpdatedOld / UpdatedNew give the UPDATED_OLD / UPDATED_NEW return
// values (the updated paths only, nested as in the item).
//
// Known departures from DynamoDB are listed in docs/differences.md under
// "Expressions".
package expr
