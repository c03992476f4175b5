package emulator

// SearchVectors: the k items of a vector index nearest a query vector,
// exact (every entry of the partition searched is scored; the service's
// search is approximate, docs/differences.md), most similar first, ties
// in the entries' key order. Sources: API Reference, SearchVectors;
// Developer Guide, "Working with vector indexes" and "Troubleshooting
// vector search".

import (
	"context"
	"errors"
	"math"
	"strconv"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// maxTopK is the most results one search returns.
const maxTopK = 100

// SearchVectors searches a vector index of a table.
func (e *Engine) SearchVectors(ctx context.Context, ns api.Namespace, in *api.SearchVectorsInput) (*api.SearchVectorsOutput, error) {
	if in == nil {
		in = &api.SearchVectorsInput{}
	}
	if err := searchShape(in); err != nil {
		return nil, err
	}
	if err := e.throttleAccount(ns, in.TableName, throttle.Read); err != nil {
		return nil, err
	}
	t, err := e.dataTable(ns, *in.TableName)
	if err != nil {
		return nil, e.missingTable(ctx, ns, "dynamodb:SearchVectors", *in.TableName, err)
	}
	vi := t.vectorIndex(*in.IndexName)
	switch {
	case vi == nil || (vi.Creating && !vi.Backfilling):
		return nil, api.Validation("The table does not have the specified index: %s", *in.IndexName)
	case vi.Creating:
		return nil, api.Validation("Cannot search backfilling vector index: %s", vi.Name)
	}
	q, err := vectors.FromSearch(in.SearchVector, vi.Dims)
	if err != nil {
		return nil, err
	}
	terms, proj, err := parseSearchExprs(in)
	if err != nil {
		return nil, err
	}
	if err := vectors.CheckTerms(terms, vi.Schema); err != nil {
		return nil, err
	}
	if err := e.throttleAdmit(t, throttle.Read, nil); err != nil {
		return nil, err
	}
	c, err := e.vectorCache(ctx, t, vi)
	if err != nil {
		return nil, err
	}
	part, all, match := searchScope(vi, terms)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	found := c.Search(part, all, q, int(*in.TopK), match)
	out := &api.SearchVectorsOutput{SearchResults: make([]api.SearchResultItem, 0, len(found))}
	read := 0
	for _, r := range found {
		item, n, err := e.searchResult(t, vi, r, proj)
		if err != nil {
			return nil, err
		}
		if item == nil {
			continue // deleted since the copy saw it
		}
		read += n
		out.SearchResults = append(out.SearchResults, api.SearchResultItem{Item: item, Score: r.Score})
	}
	if rc := in.ReturnConsumedCapacity; rc != nil && *rc != "NONE" {
		out.ConsumedCapacity = &api.VectorCapacity{VectorSearchRequestBytes: searchBytes(vi, c.Len(), read)}
	}
	return out, nil
}

// searchShape checks what needs no table, in the service's order: TopK
// first (its range is checked before the table is looked up), then the
// members' constraints.
func searchShape(in *api.SearchVectorsInput) error {
	if in.TopK != nil && (*in.TopK < 1 || *in.TopK > maxTopK) {
		return api.Validation("Provided TopK value '%d' is out of valid range. The value must be between 1 and %d inclusive", *in.TopK, maxTopK)
	}
	var v shape.Violations
	if in.TableName == nil {
		v.Null("tableName")
	}
	if in.IndexName == nil {
		v.Null("indexName")
	}
	if in.SearchVector == nil {
		v.Null("searchVector")
	}
	if in.TopK == nil {
		v.Null("topK")
	}
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	if err := v.Err(); err != nil {
		return err
	}
	if len(in.SearchVector) < 1 {
		return api.Validation("Value at 'SearchVector' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	if n := len(*in.IndexName); n < 3 {
		return api.Validation("Value at 'IndexName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	}
	var tv shape.Violations
	tv.DataTableRef("tableName", in.TableName)
	tv.Name("indexName", in.IndexName, true)
	return tv.Err()
}

// parseSearchExprs parses the search condition and the projection with
// their placeholders, unused ones refused as in Query.
func parseSearchExprs(in *api.SearchVectorsInput) ([]vectors.Term, *expr.Projection, error) {
	for _, v := range in.ExpressionAttributeValues {
		if err := av.ValidateValue(v); err != nil {
			return nil, nil, exprError(err)
		}
	}
	p := expr.NewParams(in.ExpressionAttributeNames, in.ExpressionAttributeValues, nil)
	if err := p.CheckPlaceholders(); err != nil {
		return nil, nil, exprError(err)
	}
	var cond *expr.SearchCondition
	var proj *expr.Projection
	var err error
	if in.SearchConditionExpression != nil {
		if cond, err = p.SearchCondition(*in.SearchConditionExpression); err != nil {
			return nil, nil, exprError(err)
		}
	}
	if in.ProjectionExpression != nil {
		if proj, err = p.Projection(*in.ProjectionExpression); err != nil {
			return nil, nil, exprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, nil, exprError(err)
	}
	var terms []vectors.Term
	if cond != nil {
		// Its form is checked after the placeholders, as Query's key
		// condition is.
		if err := cond.Check(); err != nil {
			return nil, nil, exprError(err)
		}
		terms = vectors.TermsOf(cond)
	}
	return terms, proj, nil
}

// searchScope is the partition a search reads (every one, for an index
// without a HASH element) and the test of the inline filters.
func searchScope(vi *vectorIndex, terms []vectors.Term) (part string, all bool, match func(av.Item) bool) {
	all = true
	var filters []vectors.Term
	for _, tm := range terms {
		if h, ok := vi.HashElem(); ok && h.Name == tm.Name {
			part, all = string(appendPartition(nil, tm.Value)), false
			continue
		}
		filters = append(filters, tm)
	}
	if len(filters) == 0 {
		return part, all, nil
	}
	return part, all, func(it av.Item) bool {
		for _, f := range filters {
			v, ok := it[f.Name]
			if !ok || !av.Equal(v, f.Value) {
				return false
			}
		}
		return true
	}
}

// searchResult reads a found entry and returns what the search answers of
// it, with its stored size: the projected attributes, without the vector
// unless the projection names it. nil when the entry is gone.
func (e *Engine) searchResult(t *tableMeta, vi *vectorIndex, r vectors.Result, proj *expr.Projection) (av.Item, int, error) {
	b, err := e.opts.Store.Get(append(keyspace.IndexPrefix(t.ID, vi.ID), r.Key...))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, internalError(err)
	}
	if len(b) < 4*vi.Dims {
		return nil, 0, internalError(errors.New("emulator: vector entry too short"))
	}
	item, err := av.DecodeItem(b[4*vi.Dims:])
	if err != nil {
		return nil, 0, internalError(err)
	}
	if proj == nil {
		return item, len(b), nil
	}
	// The vector comes back only when the projection names it (as the
	// index's float32 copy); the rest as the index projects it.
	for _, n := range proj.TopLevel() {
		if n == vi.Attr {
			item[vi.Attr] = floatList(vectors.Floats(nil, b, vi.Dims))
		}
	}
	return proj.Project(item), len(b), nil
}

// floatList is a vector as a list of numbers, in float32's shortest form
// without an exponent.
func floatList(v []float32) av.Value {
	l := make([]av.Value, len(v))
	for i, f := range v {
		l[i] = av.Value{Type: av.TypeN, S: strconv.FormatFloat(float64(f), 'f', -1, 32)}
	}
	return av.Value{Type: av.TypeL, L: l}
}

// searchBytes is a search's VectorSearchRequestBytes: the index data it
// examines (its vectors, growing with the logarithm of the entries, as
// the service's graph search does) and the data it returns, at least 1 KB.
// The service's figure varies from call to call; this one is stable.
func searchBytes(vi *vectorIndex, entries, read int) *float64 {
	examined := 4 * vi.Dims * int(math.Ceil(math.Log2(float64(entries)+2)))
	b := float64(max(vectors.MinRequestBytes, examined+read))
	return &b
}
