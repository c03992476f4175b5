package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// createDocs creates table Docs (pk S) with two vector indexes on emb
// (2 dimensions, EUCLIDEAN): "near", no search schema, projecting ALL;
// "bytenant", HASH tenant (S) and INLINE_FILTER cat (N), projecting the
// keys and note. Items d0…d4 have emb [i, 0], tenant t(i%2), cat i%3.
func (e *env) createDocs() {
	e.t.Helper()
	vi := func(name string, proj *types.Projection, schema ...types.SearchSchemaElement) types.VectorIndex {
		return types.VectorIndex{IndexName: aws.String(name), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")},
			Dimensions: aws.Int64(2), DistanceFunction: types.VectorDistanceFunctionEuclidean, Projection: proj, SearchSchema: schema}
	}
	c, ctx := e.s.Client, e.s.Context()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Docs"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("tenant"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("cat"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode: types.BillingModePayPerRequest,
		VectorIndexes: []types.VectorIndex{
			vi("near", &types.Projection{ProjectionType: types.ProjectionTypeAll}),
			vi("bytenant", &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"note"}},
				types.SearchSchemaElement{AttributeName: aws.String("tenant"), SearchSchemaElementType: types.SearchSchemaElementTypeHash},
				types.SearchSchemaElement{AttributeName: aws.String("cat"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter}),
		}})
	if err != nil {
		e.t.Fatal(err)
	}
	for i := range 5 {
		item := map[string]types.AttributeValue{
			"pk":     &types.AttributeValueMemberS{Value: fmt.Sprint("d", i)},
			"emb":    &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: fmt.Sprint(i)}, &types.AttributeValueMemberN{Value: "0"}}},
			"tenant": &types.AttributeValueMemberS{Value: fmt.Sprint("t", i%2)},
			"cat":    &types.AttributeValueMemberN{Value: fmt.Sprint(i % 3)},
			"note":   &types.AttributeValueMemberS{Value: fmt.Sprint("note ", i)},
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Docs"), Item: item}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// resultKeys returns the pk of each search result, in the order shown.
func resultKeys(t *testing.T, body string) []string {
	t.Helper()
	_, tbl, ok := strings.Cut(body, `id="results"`)
	if !ok {
		t.Fatalf("no results table in\n%s", body)
	}
	tbl, _, _ = strings.Cut(tbl, "</table>")
	var ks []string
	for _, row := range strings.Split(tbl, "<tr>")[2:] {
		_, a, _ := strings.Cut(row, `<a href="/console/item?`)
		_, a, _ = strings.Cut(a, ">")
		k, _, _ := strings.Cut(a, "</a>")
		ks = append(ks, k)
	}
	return ks
}

// TestVectorIndexesShown: the table page lists the vector indexes and
// links their search; a table without one shows neither.
func TestVectorIndexesShown(t *testing.T) {
	e := newEnv(t)
	e.createDocs()
	status, body := e.get("/table", url.Values{"t": {"Docs"}})
	if status != http.StatusOK {
		t.Fatalf("table page: %d\n%s", status, body)
	}
	mustContain(t, "table page", body, "<h2>Vector indexes</h2>", `id="vector-indexes"`,
		`<tr><td>near</td><td>ACTIVE</td><td><code>emb</code></td><td class="num">2</td><td>EUCLIDEAN</td><td>none</td><td>ALL</td><td class="num">5</td>`,
		`<tr><td>bytenant</td><td>ACTIVE</td><td><code>emb</code></td><td class="num">2</td><td>EUCLIDEAN</td><td><code>tenant</code> HASH <code>cat</code> INLINE_FILTER </td><td>INCLUDE (note)</td><td class="num">5</td>`,
		`href="/console/search?ns=`+strings.ToLower(url.QueryEscape(e.ns))+`&t=Docs&index=bytenant"`, `id="search-tab"`)
	_, body = e.get("/table", url.Values{"t": {"Orders"}})
	if strings.Contains(body, "Vector indexes") || strings.Contains(body, `id="search-tab"`) {
		t.Errorf("a table without vector indexes shows them:\n%s", body)
	}
	_, body = e.get("/search", url.Values{"t": {"Orders"}})
	mustContain(t, "search without vector indexes", body, `id="novectors"`)
}

// TestVectorSearch: the search form runs SearchVectors and lists the
// results most similar first; the HASH input and a further condition
// narrow them; the engine's errors show as the API's.
func TestVectorSearch(t *testing.T) {
	e := newEnv(t)
	e.createDocs()
	status, body := e.get("/search", url.Values{"t": {"Docs"}})
	if status != http.StatusOK {
		t.Fatalf("empty form: %d\n%s", status, body)
	}
	mustContain(t, "empty form", body, `id="topk" type="number" min="1" max="100" value="10"`, `<option value="near" data-hash="" selected>`,
		`<label id="hashlabel" hidden>`, "search.js")

	status, body = e.get("/search", url.Values{"t": {"Docs"}, "index": {"near"}, "vector": {"[3.1, 0]"}, "topk": {"4"}})
	if status != http.StatusOK {
		t.Fatalf("search: %d\n%s", status, body)
	}
	if ks := resultKeys(t, body); fmt.Sprint(ks) != "[d3 d4 d2 d1]" {
		t.Errorf("near [3.1, 0], TopK 4: %v", ks)
	}
	mustContain(t, "search", body, "4 results, most similar first", `<td class="num">1</td>`, "note 3", `&key=%7b%22pk%22%3a%7b%22S%22%3a%22d3%22%7d%7d">d3</a>`)

	// HASH tenant t0 (d0, d2, d4), then also cat 1 (d4).
	q := url.Values{"t": {"Docs"}, "index": {"bytenant"}, "vector": {"[3.1, 0]"}, "topk": {"10"}, "hash": {"t0"}}
	status, body = e.get("/search", q)
	if ks := resultKeys(t, body); status != http.StatusOK || fmt.Sprint(ks) != "[d4 d2 d0]" {
		t.Errorf("tenant t0: %d %v", status, ks)
	}
	mustContain(t, "HASH form", body, `<label id="hashlabel" >Partition (HASH) <code id="hashname">tenant</code>`)
	q.Set("cond", "cat = :c")
	q.Set("values", `{":c":{"N":"1"}}`)
	if status, body = e.get("/search", q); status != http.StatusOK || fmt.Sprint(resultKeys(t, body)) != "[d4]" {
		t.Errorf("tenant t0, cat 1: %d %v", status, resultKeys(t, body))
	}

	bad := []struct {
		name string
		q    url.Values
		want string
	}{
		{"vector of the wrong length", url.Values{"index": {"near"}, "vector": {"[1, 2, 3]"}, "topk": {"3"}},
			"ValidationException: Input search vector dimension 3 does not match vector index dimension 2"},
		{"no HASH value", url.Values{"index": {"bytenant"}, "vector": {"[1, 2]"}, "topk": {"3"}},
			"ValidationException: SearchConditionExpression must be provided when SearchSchema has a HASH key"},
		{"TopK out of range", url.Values{"index": {"near"}, "vector": {"[1, 2]"}, "topk": {"0"}}, "ValidationException: Provided TopK value"},
		{"not a vector", url.Values{"index": {"near"}, "vector": {`[1, "a"]`}, "topk": {"3"}}, "query vector: want a JSON array of numbers"},
		{"TopK not a number", url.Values{"index": {"near"}, "vector": {"[1, 2]"}, "topk": {"x"}}, "TopK: want a whole number"},
		{"bad condition values", url.Values{"index": {"near"}, "vector": {"[1, 2]"}, "topk": {"3"}, "cond": {"cat = :c"}, "values": {"[1]"}}, "condition values"},
		{"no such index", url.Values{"index": {"nope"}, "vector": {"[1, 2]"}, "topk": {"3"}}, "ValidationException: The table does not have the specified index: nope"},
	}
	for _, c := range bad {
		c.q.Set("t", "Docs")
		status, body := e.get("/search", c.q)
		if status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", c.name, status)
		}
		_, msg, _ := strings.Cut(body, `<p class="error" role="alert" id="error">`)
		mustContain(t, c.name, msg, c.want)
		if strings.Contains(body, `id="results"`) {
			t.Errorf("%s: results shown", c.name)
		}
	}
}
