package emulator_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/testserver"
)

// SearchVectors' search conditions, projections, capacity and errors, and
// the writes a vector index refuses, through the SDK.

func strAV(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }
func numAV(s string) *types.AttributeValueMemberN { return &types.AttributeValueMemberN{Value: s} }

// tenantTable has index "byten": 2 dimensions, EUCLIDEAN, HASH tenant (S),
// INLINE_FILTER cat (N), projecting KEYS_ONLY plus "note".
func tenantTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	x := vecIndex("byten", "v", 2, types.VectorDistanceFunctionEuclidean,
		types.SearchSchemaElement{AttributeName: aws.String("tenant"), SearchSchemaElementType: types.SearchSchemaElementTypeHash},
		types.SearchSchemaElement{AttributeName: aws.String("cat"), SearchSchemaElementType: types.SearchSchemaElementTypeInlineFilter})
	x.Projection = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"note"}}
	vecTable(t, c, "vten", mkDefs("tenant", "S", "cat", "N"), x)
	for i := 0; i < 12; i++ {
		attrs := map[string]types.AttributeValue{"v": vecList(float64(i), 0), "tenant": strAV(fmt.Sprint("t", i%2)),
			"cat": numAV(fmt.Sprint(i % 3)), "note": strAV(fmt.Sprint("n", i)), "extra": strAV("x")}
		vecPut(t, c, "vten", fmt.Sprintf("k%02d", i), attrs)
	}
	// No tenant: stored, not indexed.
	vecPut(t, c, "vten", "loose", map[string]types.AttributeValue{"v": vecList(0, 0)})
}

func TestVectorSearchPartitionsFiltersProjections(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	tenantTable(t, c)
	search := func(in *dynamodb.SearchVectorsInput) (*dynamodb.SearchVectorsOutput, error) {
		in.TableName, in.IndexName = aws.String("vten"), aws.String("byten")
		if in.SearchVector == nil {
			in.SearchVector = vecQuery(0, 0)
		}
		if in.TopK == nil {
			in.TopK = aws.Int32(100)
		}
		return c.SearchVectors(t.Context(), in)
	}
	out, err := search(&dynamodb.SearchVectorsInput{SearchConditionExpression: aws.String("tenant = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t1")}})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[k01 k03 k05 k07 k09 k11]" {
		t.Errorf("tenant t1: %v", ks)
	}
	// The projection: keys, schema attributes and note; never "other", nor
	// the vector unless asked for.
	for _, r := range out.SearchResults {
		if _, ok := r.Item["extra"]; ok || r.Item["note"] == nil || r.Item["cat"] == nil || r.Item["tenant"] == nil || r.Item["v"] != nil {
			t.Fatalf("projected item %v", r.Item)
		}
	}
	out, err = search(&dynamodb.SearchVectorsInput{SearchConditionExpression: aws.String("tenant = :t AND #c = :c"),
		ExpressionAttributeNames:  map[string]string{"#c": "cat"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t0"), ":c": numAV("2")},
		ProjectionExpression:      aws.String("pk, v, extra"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if ks, _ := searchKeys(t, out); fmt.Sprint(ks) != "[k02 k08]" {
		t.Errorf("tenant t0, cat 2: %v", ks)
	}
	if v, ok := out.SearchResults[0].Item["v"].(*types.AttributeValueMemberL); !ok || len(v.Value) != 2 || v.Value[0].(*types.AttributeValueMemberN).Value != "2" {
		t.Errorf("asked-for vector: %#v", out.SearchResults[0].Item["v"])
	}
	if _, ok := out.SearchResults[0].Item["extra"]; ok || len(out.SearchResults[0].Item) != 2 {
		t.Errorf("a projection names what the index does not hold: %v", out.SearchResults[0].Item)
	}
	if cc := out.ConsumedCapacity; cc == nil || aws.ToFloat64(cc.VectorSearchRequestBytes) < 1024 {
		t.Errorf("ConsumedCapacity %+v, want at least 1 KB of VectorSearchRequestBytes", cc)
	}
	for _, tc := range []struct {
		in   *dynamodb.SearchVectorsInput
		code string
		msg  string
	}{
		{&dynamodb.SearchVectorsInput{}, "ValidationException", "SearchConditionExpression must be provided when SearchSchema has a HASH key"},
		{&dynamodb.SearchVectorsInput{SearchConditionExpression: aws.String("tenant = :t AND note = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t1")}},
			"ValidationException", "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: note"},
		{&dynamodb.SearchVectorsInput{SearchConditionExpression: aws.String("tenant = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": numAV("1")}},
			"ValidationException", "Type of 'tenant' attribute in SearchConditionExpression (N) does not match type in search schema (S)"},
		{&dynamodb.SearchVectorsInput{SearchConditionExpression: aws.String("tenant > :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t1")}},
			"ValidationException", "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"},
		{&dynamodb.SearchVectorsInput{SearchConditionExpression: aws.String("tenant = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t1"), ":u": strAV("x")}},
			"ValidationException", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
		{&dynamodb.SearchVectorsInput{SearchVector: vecQuery(1, 2, 3)}, "ValidationException", "Input search vector dimension 3 does not match vector index dimension 2"},
		{&dynamodb.SearchVectorsInput{SearchVector: []types.AttributeValue{strAV("x"), numAV("1")}}, "ValidationException",
			"Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute"},
		{&dynamodb.SearchVectorsInput{TopK: aws.Int32(101)}, "ValidationException", "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive"},
	} {
		_, err := search(tc.in)
		wantAPIError(t, err, tc.code, tc.msg)
	}
	// The table by its ARN.
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/vten"
	if _, err := c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String(arn), IndexName: aws.String("byten"), SearchVector: vecQuery(0, 0),
		TopK: aws.Int32(1), SearchConditionExpression: aws.String("tenant = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t1")}}); err != nil {
		t.Errorf("search by ARN: %v", err)
	}
	_, err = c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("nosuch"), IndexName: aws.String("byten"), SearchVector: vecQuery(0, 0), TopK: aws.Int32(1)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	_, err = c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vten"), IndexName: aws.String("nope"), SearchVector: vecQuery(0, 0), TopK: aws.Int32(1)})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: nope")
}

func TestVectorWritesRefused(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	tenantTable(t, c)
	put := func(attrs map[string]types.AttributeValue) error {
		item := map[string]types.AttributeValue{"pk": strAV("w")}
		for k, v := range attrs {
			item[k] = v
		}
		_, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("vten"), Item: item})
		return err
	}
	for _, tc := range []struct {
		attrs map[string]types.AttributeValue
		msg   string
	}{
		{map[string]types.AttributeValue{"v": vecList(1, 2, 3)}, "One or more parameter values were invalid. Invalid size for parameter v, Expected: 2, Actual: 3 IndexName: byten"},
		{map[string]types.AttributeValue{"v": strAV("x")}, "One or more parameter values were invalid. Invalid type for parameter v, Expected: 32-bit floating point number list IndexName: byten"},
		{map[string]types.AttributeValue{"v": &types.AttributeValueMemberL{Value: []types.AttributeValue{numAV("1"), strAV("x")}}},
			"One or more parameter values were invalid. Invalid type for parameter v[1], Expected: 32-bit floating point number, Actual: S. IndexName: byten"},
		{map[string]types.AttributeValue{"v": vecList(1, 1e39)},
			"One or more parameter values were invalid. Invalid value for parameter v[1], Value: 1e+39 is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: byten"},
	} {
		wantAPIError(t, put(tc.attrs), "ValidationException", tc.msg)
	}
	// A search schema attribute of the wrong type, and an empty HASH value.
	if err := put(map[string]types.AttributeValue{"v": vecList(1, 2), "cat": strAV("x")}); apiCode(err) != "ValidationException" {
		t.Errorf("cat as S: %v", err)
	}
	// Without the vector, anything goes; with a vector but no HASH value,
	// the item is stored and not indexed.
	if err := put(map[string]types.AttributeValue{"v2": strAV("x")}); err != nil {
		t.Error(err)
	}
	if err := put(map[string]types.AttributeValue{"v": vecList(1, 2)}); err != nil {
		t.Error(err)
	}
}

// TestVectorWriteCapacity: a write to a vector-indexed table reports its
// vector bytes per index under INDEXES: 4 bytes a dimension, the vector
// attribute's name and the other projected attributes, at least 1 KB a
// request; nothing for an item rewritten unchanged.
func TestVectorWriteCapacity(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	x := vecIndex("big", "v", 300, types.VectorDistanceFunctionCosine)
	x.Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	vecTable(t, c, "vcap", nil, x)
	fs := make([]float64, 300)
	for i := range fs {
		fs[i] = float64(i)
	}
	put := func(item map[string]types.AttributeValue) *types.ConsumedCapacity {
		out, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("vcap"), Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		return out.ConsumedCapacity
	}
	item := map[string]types.AttributeValue{"pk": strAV("abc"), "v": vecList(fs...), "extra": strAV("not projected")}
	// 4 × 300 + len("v") + len("pk") + len("abc").
	if cc := put(item); cc.VectorIndexes["big"].VectorWriteRequestBytes == nil || *cc.VectorIndexes["big"].VectorWriteRequestBytes != 1206 {
		t.Errorf("first put: %+v", cc.VectorIndexes)
	}
	if cc := put(item); len(cc.VectorIndexes) != 0 {
		t.Errorf("unchanged rewrite charged vector bytes: %+v", cc.VectorIndexes)
	}
	// KEYS_ONLY: a change of a non-projected attribute writes nothing.
	item["extra"] = strAV("changed")
	if cc := put(item); len(cc.VectorIndexes) != 0 {
		t.Errorf("non-projected change charged vector bytes: %+v", cc.VectorIndexes)
	}
	small := map[string]types.AttributeValue{"pk": strAV("s"), "v": vecList(fs...)}
	small["v"] = vecList(fs[:300]...)
	small["pk"] = strAV("tiny")
	if cc := put(small); *cc.VectorIndexes["big"].VectorWriteRequestBytes != 1206+1 {
		t.Errorf("second item: %+v", cc.VectorIndexes["big"])
	}
	// A tiny vector still costs the 1 KB minimum.
	vecTable(t, c, "vtiny", nil, vecIndex("small", "v", 2, types.VectorDistanceFunctionCosine))
	out, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("vtiny"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		Item: map[string]types.AttributeValue{"pk": strAV("a"), "v": vecList(1, 2)}})
	if err != nil {
		t.Fatal(err)
	}
	if b := out.ConsumedCapacity.VectorIndexes["small"].VectorWriteRequestBytes; b == nil || *b != 1024 {
		t.Errorf("tiny vector: %v", b)
	}
}

// TestVectorIndexNotReadByQueryOrScan: Query, Scan and PartiQL do not read
// a vector index.
func TestVectorIndexNotReadByQueryOrScan(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	tenantTable(t, c)
	_, err := c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("vten"), IndexName: aws.String("byten"),
		KeyConditionExpression: aws.String("tenant = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": strAV("t1")}})
	wantAPIError(t, err, "ValidationException", "Query operation not supported on this index type.")
	_, err = c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("vten"), IndexName: aws.String("byten")})
	wantAPIError(t, err, "ValidationException", "Scan operation not supported on this index type.")
	_, err = c.ExecuteStatement(t.Context(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "vten"."byten"`)})
	if apiCode(err) != "ValidationException" {
		t.Errorf("PartiQL on a vector index: %v", err)
	}
}
