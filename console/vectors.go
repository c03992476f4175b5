package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// Vector indexes: their section on the table page and the search page
// (GET /console/search, SearchVectors through the engine).

const actionSearchVectors = "dynamodb:SearchVectors"

// vectorRow is one vector index of the table page and the search form.
type vectorRow struct {
	Name, Status, Attr, Distance, Projection string
	Backfilling                              bool
	Dims, Items                              int64
	Schema                                   []api.DescribedSearchSchemaElement
	// Hash is the search schema's HASH attribute ("" without one).
	Hash string
}

// vectorRows describes the table's vector indexes.
func vectorRows(d *api.TableDescription) []vectorRow {
	out := make([]vectorRow, 0, len(d.VectorIndexes))
	for _, x := range d.VectorIndexes {
		r := vectorRow{Name: x.IndexName, Status: x.IndexStatus, Backfilling: x.Backfilling != nil && *x.Backfilling,
			Attr: x.VectorAttribute.AttributeName, Dims: x.Dimensions, Distance: x.DistanceFunction,
			Projection: x.Projection.ProjectionType, Items: x.ItemCount, Schema: x.SearchSchema}
		if len(x.Projection.NonKeyAttributes) > 0 {
			r.Projection += " (" + strings.Join(x.Projection.NonKeyAttributes, ", ") + ")"
		}
		for _, s := range x.SearchSchema {
			if s.SearchSchemaElementType == "HASH" {
				r.Hash = s.AttributeName
			}
		}
		out = append(out, r)
	}
	return out
}

// searchView is the search page's data.
type searchView struct {
	Indexes []vectorRow
	// Index is the index chosen (the first by default), Hash its HASH
	// attribute.
	Index, Hash string
	Form        url.Values
	Ran         bool
	Columns     []string
	Results     []resultRow
}

// resultRow is one search result: its rank, score and the item as a row.
type resultRow struct {
	Rank  int
	Score string
	itemRow
}

// defaultTopK is the form's TopK when none is given.
const defaultTopK = 10

func (c *console) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tc, ok := c.openTable(w, r, "search", "Vector search", actionSearchVectors, q.Get("index"))
	if !ok {
		return
	}
	v := searchView{Indexes: vectorRows(tc.desc), Index: q.Get("index"), Form: q}
	if !q.Has("topk") {
		v.Form = url.Values{}
		for k, vs := range q {
			v.Form[k] = vs
		}
		v.Form.Set("topk", strconv.Itoa(defaultTopK))
	}
	if v.Index == "" && len(v.Indexes) > 0 {
		v.Index = v.Indexes[0].Name
	}
	for _, x := range v.Indexes {
		if x.Name == v.Index {
			v.Hash = x.Hash
		}
	}
	tc.Data = &v
	if !q.Has("vector") {
		c.render(w, r, http.StatusOK, "search", tc.page)
		return
	}
	in, err := searchInput(tc, v.Index, v.Hash, q)
	var out *api.SearchVectorsOutput
	if err == nil {
		out, err = c.opts.Engine.SearchVectors(r.Context(), tc.NS, in)
	}
	if err != nil {
		tc.Error = errorText(err)
		c.render(w, r, statusOf(err), "search", tc.page)
		return
	}
	items := make([]av.Item, len(out.SearchResults))
	for i, res := range out.SearchResults {
		items[i] = res.Item
	}
	cols, rs := rows(tc.desc, "", items)
	v.Ran, v.Columns = true, cols
	for i, row := range rs {
		v.Results = append(v.Results, resultRow{Rank: i + 1, Score: strconv.FormatFloat(out.SearchResults[i].Score, 'g', -1, 64), itemRow: row})
	}
	c.render(w, r, http.StatusOK, "search", tc.page)
}

// searchInput builds the SearchVectors request of the form q: the vector
// (a JSON array of numbers), TopK, the HASH attribute's value (#h = :h,
// typed as the attribute definitions say), a further condition with its
// values (DynamoDB JSON), a projection expression.
func searchInput(tc tableCtx, index, hash string, q url.Values) (*api.SearchVectorsInput, error) {
	vec, err := parseVector(q.Get("vector"))
	if err != nil {
		return nil, err
	}
	topK, err := strconv.ParseInt(strings.TrimSpace(q.Get("topk")), 10, 64)
	if err != nil {
		return nil, errors.New("TopK: want a whole number")
	}
	in := &api.SearchVectorsInput{TableName: &tc.Table, IndexName: ptr(index), SearchVector: vec, TopK: &topK}
	var conds []string
	names, values := map[string]string{}, map[string]av.Value{}
	if h := q.Get("hash"); hash != "" && h != "" {
		conds = append(conds, "#h = :h")
		names["#h"], values[":h"] = hash, attrValue(tc.desc, hash, h)
	}
	if f := strings.TrimSpace(q.Get("cond")); f != "" {
		conds = append(conds, f)
	}
	if vals := strings.TrimSpace(q.Get("values")); vals != "" {
		extra, err := parseItem(vals)
		if err != nil {
			return nil, errors.New("condition values: " + err.Error())
		}
		for k, x := range extra {
			values[k] = x
		}
	}
	if len(conds) > 0 {
		in.SearchConditionExpression = ptr(strings.Join(conds, " AND "))
	}
	if p := strings.TrimSpace(q.Get("projection")); p != "" {
		in.ProjectionExpression = &p
	}
	if len(names) > 0 {
		in.ExpressionAttributeNames = names
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	return in, nil
}

// errVector is a query vector that is not a JSON array of numbers.
var errVector = errors.New("query vector: want a JSON array of numbers, like [0.1, 0.2]")

// parseVector reads a JSON array of numbers into N values, keeping each
// number's text as written.
func parseVector(s string) ([]av.Value, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, errVector
	}
	out := make([]av.Value, len(raw))
	for i, x := range raw {
		n, ok := x.(json.Number)
		if !ok {
			return nil, errVector
		}
		out[i] = av.Value{Type: av.TypeN, S: n.String()}
	}
	return out, nil
}
