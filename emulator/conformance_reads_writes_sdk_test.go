package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Conformance with DynamoDB's observed behaviour (issue 11: read paths,
// item writes, transactions), through the SDK or, where the SDK hides the
// difference, raw HTTP.

func cfS(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func cfN(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

// cfServer starts a server with table "hto" (hash key pk S) and table "hrt"
// (pk S, sk N).
func cfServer(t *testing.T) (*testserver.Server, *dynamodb.Client) {
	t.Helper()
	s := testserver.New(t)
	c := s.Client
	for _, tc := range []struct {
		name string
		keys []types.KeySchemaElement
		defs []types.AttributeDefinition
	}{
		{"hto", []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			[]types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}},
		{"hrt", []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			[]types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}}},
	} {
		if _, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
			TableName: aws.String(tc.name), KeySchema: tc.keys, AttributeDefinitions: tc.defs,
			BillingMode: types.BillingModePayPerRequest,
		}); err != nil {
			t.Fatal(err)
		}
	}
	return s, c
}

func cfPut(t *testing.T, c *dynamodb.Client, table string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

// rawCall posts body to op and returns the HTTP status and the decoded
// response members.
func rawCall(t *testing.T, s *testserver.Server, op, body string) (int, map[string]json.RawMessage) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v: %s", op, err, b)
	}
	return resp.StatusCode, out
}

// member returns the raw JSON of a response member, "<absent>" when the
// response has none.
func member(t *testing.T, s *testserver.Server, op, body, name string) string {
	t.Helper()
	code, out := rawCall(t, s, op, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d %v", op, body, code, out)
	}
	m, ok := out[name]
	if !ok {
		return "<absent>"
	}
	return string(m)
}

// TestEmptyPageCarriesItems: a Query or Scan page without items has
// "Items": [], also the empty last page after a page that ended at Limit;
// with Select=COUNT the member stays absent.
func TestEmptyPageCarriesItems(t *testing.T) {
	s, c := cfServer(t)
	cfPut(t, c, "hrt", map[string]types.AttributeValue{"pk": cfS("a"), "sk": cfN("1")})
	cfPut(t, c, "hrt", map[string]types.AttributeValue{"pk": cfS("a"), "sk": cfN("2")})
	for _, tc := range []struct{ op, body, want string }{
		{"Query", `{"TableName":"hrt","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"none"}}}`, "[]"},
		{"Scan", `{"TableName":"hto"}`, "[]"},
		{"Scan", `{"TableName":"hrt","FilterExpression":"attribute_exists(nope)"}`, "[]"},
		// The page after one that ended exactly at Limit.
		{"Query", `{"TableName":"hrt","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"Limit":2,"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"2"}}}`, "[]"},
		{"Scan", `{"TableName":"hrt","Limit":2,"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"2"}}}`, "[]"},
		{"Query", `{"TableName":"hrt","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"none"}},"Select":"COUNT"}`, "<absent>"},
		{"Scan", `{"TableName":"hto","Select":"COUNT"}`, "<absent>"},
	} {
		if got := member(t, s, tc.op, tc.body, "Items"); got != tc.want {
			t.Errorf("%s %s: Items = %s, want %s", tc.op, tc.body, got, tc.want)
		}
	}
	// The paginated case end to end: Limit 2 over two items, then the empty page.
	out, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("hrt"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": cfS("a")}, Limit: aws.Int32(2)})
	if err != nil || len(out.Items) != 2 || out.LastEvaluatedKey == nil {
		t.Fatalf("first page: %v %v", out, err)
	}
}

// TestGetItemEmptyProjection: a projection that matches nothing of an
// existing item answers "Item": {}; a missing item has no Item member.
func TestGetItemEmptyProjection(t *testing.T) {
	s, c := cfServer(t)
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("a"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{cfN("1")}}})
	for _, tc := range []struct{ body, want string }{
		{`{"TableName":"hto","Key":{"pk":{"S":"a"}},"ProjectionExpression":"nope"}`, "{}"},
		{`{"TableName":"hto","Key":{"pk":{"S":"a"}},"ProjectionExpression":"l[5]"}`, "{}"},
		{`{"TableName":"hto","Key":{"pk":{"S":"a"}},"AttributesToGet":["x","y"]}`, "{}"},
		{`{"TableName":"hto","Key":{"pk":{"S":"zz"}},"ProjectionExpression":"nope"}`, "<absent>"},
		{`{"TableName":"hto","Key":{"pk":{"S":"zz"}}}`, "<absent>"},
	} {
		if got := member(t, s, "GetItem", tc.body, "Item"); got != tc.want {
			t.Errorf("%s: Item = %s, want %s", tc.body, got, tc.want)
		}
	}
}

// TestQueryLegacyKeyConditionsWithExpressions: KeyConditions may be
// combined with FilterExpression and ProjectionExpression; the other
// legacy/expression mixes stay refused.
func TestQueryLegacyKeyConditionsWithExpressions(t *testing.T) {
	_, c := cfServer(t)
	cfPut(t, c, "hrt", map[string]types.AttributeValue{"pk": cfS("a"), "sk": cfN("1"), "x": cfS("keep"), "y": cfS("y1")})
	cfPut(t, c, "hrt", map[string]types.AttributeValue{"pk": cfS("a"), "sk": cfN("2"), "x": cfS("drop"), "y": cfS("y2")})
	kc := map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{cfS("a")}}}
	out, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("hrt"), KeyConditions: kc,
		FilterExpression: aws.String("x = :k"), ProjectionExpression: aws.String("#y"),
		ExpressionAttributeNames:  map[string]string{"#y": "y"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":k": cfS("keep")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 || len(out.Items[0]) != 1 || out.Items[0]["y"].(*types.AttributeValueMemberS).Value != "y1" {
		t.Fatalf("items %v", out.Items)
	}
	_, err = c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("hrt"), KeyConditions: kc,
		KeyConditionExpression: aws.String("pk = :k"), ExpressionAttributeValues: map[string]types.AttributeValue{":k": cfS("a")}})
	apiErr(t, err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}")
	_, err = c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("hrt"), KeyConditions: kc, AttributesToGet: []string{"y"},
		FilterExpression: aws.String("x = :k"), ExpressionAttributeValues: map[string]types.AttributeValue{":k": cfS("a")}})
	apiErr(t, err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, KeyConditions} Expression parameters: {FilterExpression}")
}

// TestStartKeyValidation: a hash-only table's Query refuses a start key,
// and a start key that does not fit the schema gets the message of its
// operation (Scan of the table adds the key-schema detail).
func TestStartKeyValidation(t *testing.T) {
	_, c := cfServer(t)
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("a")})
	ctx := context.Background()
	_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("hto"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": cfS("a")}, ExclusiveStartKey: map[string]types.AttributeValue{"pk": cfS("a")}})
	apiErr(t, err, "ValidationException", "The provided starting key is invalid")
	q := func(esk map[string]types.AttributeValue) error {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("hrt"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": cfS("a")}, ExclusiveStartKey: esk})
		return err
	}
	sc := func(esk map[string]types.AttributeValue) error {
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hrt"), ExclusiveStartKey: esk})
		return err
	}
	const long = "The provided starting key is invalid: The provided key element does not match the schema"
	for _, esk := range []map[string]types.AttributeValue{
		{"pk": cfS("a"), "sk": cfS("1")},
		{"pk": cfS("a")},
		{"pk": cfS("a"), "sk": cfN("1"), "x": cfN("1")},
	} {
		apiErr(t, q(esk), "ValidationException", "The provided starting key is invalid")
		apiErr(t, sc(esk), "ValidationException", long)
	}
}

// TestPartiQLPagingHashOnly: a SELECT over several keys of a hash-only
// table pages with Limit 1 (its token resumes without a start key).
func TestPartiQLPagingHashOnly(t *testing.T) {
	_, c := cfServer(t)
	for _, k := range []string{"a", "b", "c"} {
		cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS(k)})
	}
	var got []string
	var token *string
	for range 10 {
		out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT * FROM "hto" WHERE pk IN ['a', 'b', 'c']`), Limit: aws.Int32(1), NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	if len(got) != 3 {
		t.Fatalf("got %v", got)
	}
}

// TestRemoveOnlyUpdateOfMissingItem: an update whose only actions remove
// attributes creates no item, returns no Attributes and writes no stream
// record (UpdateItem with REMOVE or AttributeUpdates DELETE without a
// value, and a transaction's Update); adding a SET still creates it.
func TestRemoveOnlyUpdateOfMissingItem(t *testing.T) {
	s, c := cfServer(t)
	ctx := context.Background()
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("hto"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
		t.Fatal(err)
	}
	key := func(k string) map[string]types.AttributeValue { return map[string]types.AttributeValue{"pk": cfS(k)} }
	for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedNew, types.ReturnValueAllOld} {
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key("r"), UpdateExpression: aws.String("REMOVE a, b"), ReturnValues: rv})
		if err != nil || out.Attributes != nil {
			t.Fatalf("REMOVE %s: %v %v", rv, out, err)
		}
	}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key("d"), ReturnValues: types.ReturnValueAllNew,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionDelete}}})
	if err != nil || out.Attributes != nil {
		t.Fatalf("DELETE: %v %v", out, err)
	}
	if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String("hto"), Key: key("x"), UpdateExpression: aws.String("REMOVE a")}}}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"r", "d", "x"} {
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key(k), ConsistentRead: aws.Bool(true)})
		if err != nil || g.Item != nil {
			t.Fatalf("%s created: %v %v", k, g.Item, err)
		}
	}
	// A SET beside the REMOVE creates the item: the stream's only record.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key("s"), UpdateExpression: aws.String("SET v = :v REMOVE a"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfS("1")}}); err != nil {
		t.Fatal(err)
	}
	st := dynamodbstreams.NewFromConfig(s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID))
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("hto")})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, sh := range ds.StreamDescription.Shards {
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs.Records {
			events = append(events, string(r.EventName)+" "+r.Dynamodb.Keys["pk"].(*sttypes.AttributeValueMemberS).Value)
		}
	}
	if len(events) != 1 || events[0] != "INSERT s" {
		t.Fatalf("stream records %v", events)
	}
}

// TestIndexKeySizeLimits: index key values over 2,048 bytes (partition)
// or 1,024 bytes (sort) are refused on write, and a backfill leaves such
// items out of the new index.
func TestIndexKeySizeLimits(t *testing.T) {
	s := testserver.New(t)
	c, ctx := s.Client, context.Background()
	str := func(n int) types.AttributeValue { return cfS(string(bytes.Repeat([]byte("x"), n))) }
	def := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	ks := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("ixk"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions:   []types.AttributeDefinition{def("pk"), def("sk"), def("gp"), def("gs"), def("ls")},
		KeySchema:              ks("pk", "sk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gix"), KeySchema: ks("gp", "gs"), Projection: all}},
		LocalSecondaryIndexes:  []types.LocalSecondaryIndex{{IndexName: aws.String("lix"), KeySchema: ks("pk", "ls"), Projection: all}},
	}); err != nil {
		t.Fatal(err)
	}
	put := func(extra map[string]types.AttributeValue) error {
		item := map[string]types.AttributeValue{"pk": cfS("p"), "sk": cfS("s")}
		for k, v := range extra {
			item[k] = v
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ixk"), Item: item})
		return err
	}
	const pre = "One or more parameter values were invalid: Size limit exceeded for Index Key "
	apiErr(t, put(map[string]types.AttributeValue{"gp": str(2049), "gs": cfS("a")}), "ValidationException", pre+"gp Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: gix")
	apiErr(t, put(map[string]types.AttributeValue{"gp": cfS("a"), "gs": str(1025)}), "ValidationException", pre+"gs Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: gix")
	apiErr(t, put(map[string]types.AttributeValue{"ls": str(1025)}), "ValidationException", pre+"ls Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: lix")
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("ixk"), Key: map[string]types.AttributeValue{"pk": cfS("p"), "sk": cfS("s")},
		UpdateExpression: aws.String("SET gp = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": str(2049)}})
	apiErr(t, err, "ValidationException", pre+"gp Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: gix")
	if err := put(map[string]types.AttributeValue{"gp": str(2048), "gs": str(1024), "ls": str(1024), "late": str(2049)}); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	// A GSI added later on "late" leaves the oversized item out.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("ixk"), AttributeDefinitions: []types.AttributeDefinition{def("late")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("late"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("late"), KeyType: types.KeyTypeHash}}, Projection: all}}},
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ixk")})
		if err != nil {
			t.Fatal(err)
		}
		if d.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive && d.Table.GlobalSecondaryIndexes[1].IndexStatus == types.IndexStatusActive {
			break
		}
		if i > 500 {
			t.Fatal("backfill did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ixk"), IndexName: aws.String("late")})
	if err != nil || out.Count != 0 {
		t.Fatalf("late index: %v %v", out, err)
	}
	out, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ixk"), IndexName: aws.String("gix")})
	if err != nil || out.Count != 1 {
		t.Fatalf("g index: %v %v", out, err)
	}
}

// TestAttributeNameLimits: item attribute names that are empty or of
// 65,536 bytes or more and projected NonKeyAttributes over 255 are refused.
func TestAttributeNameLimits(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	long := string(bytes.Repeat([]byte("n"), 65536))
	ok := string(bytes.Repeat([]byte("n"), 65535))
	for name, msg := range map[string]string{"": "1 validation error detected: Empty attribute name", long: "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"} {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), name: cfS("v")}})
		apiErr(t, err, "ValidationException", msg)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("a")},
			AttributeUpdates: map[string]types.AttributeValueUpdate{name: {Value: cfS("v")}}})
		apiErr(t, err, "ValidationException", msg)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), name: cfS("v")}}}}})
		apiErr(t, err, "ValidationException", msg)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), ok: cfS("v")}}); err != nil {
		t.Fatalf("65,535-character name: %v", err)
	}
	long256 := string(bytes.Repeat([]byte("p"), 256))
	def := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	gsi := func(nk string) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x", nk}}}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("nka"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{def("pk"), def("g")}, KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi(long256)}})
	const nkMsg = "failed to satisfy constraint: Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]"
	apiErr(t, err, "ValidationException", "1 validation error detected: Value '[x, "+long256+"]' at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' "+nkMsg)
	g := gsi(long256)
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("hto"), AttributeDefinitions: []types.AttributeDefinition{def("g")},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection}}}})
	apiErr(t, err, "ValidationException", "1 validation error detected: Value '[x, "+long256+"]' at 'globalSecondaryIndexUpdates.1.member.create.projection.nonKeyAttributes' "+nkMsg)
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("nka"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{def("pk"), def("g")}, KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi(long256[:255])}}); err != nil {
		t.Fatalf("255-character projected name: %v", err)
	}
}

// TestConditionalOperatorNeedsExpected: ConditionalOperator without
// Expected (or ScanFilter/QueryFilter), or with fewer than two conditions
// in it, is refused by every operation that takes it.
func TestConditionalOperatorNeedsExpected(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	item := map[string]types.AttributeValue{"pk": cfS("a")}
	for _, tc := range []struct {
		expected map[string]types.ExpectedAttributeValue
		msg      string
	}{
		{nil, "ConditionalOperator cannot be used without Filter or Expected"},
		{map[string]types.ExpectedAttributeValue{}, "ConditionalOperator can only be used when Filter or Expected has two or more elements"},
		{map[string]types.ExpectedAttributeValue{"x": {Exists: aws.Bool(false)}}, "ConditionalOperator can only be used when Filter or Expected has two or more elements"},
	} {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: item, ConditionalOperator: types.ConditionalOperatorAnd, Expected: tc.expected})
		apiErr(t, err, "ValidationException", tc.msg)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hto"), Key: item, ConditionalOperator: types.ConditionalOperatorOr, Expected: tc.expected})
		apiErr(t, err, "ValidationException", tc.msg)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: item, ConditionalOperator: types.ConditionalOperatorAnd, Expected: tc.expected})
		apiErr(t, err, "ValidationException", tc.msg)
	}
	eq := types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{cfS("v")}}
	keyCond := map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{cfS("a")}}}
	for _, tc := range []struct {
		filter map[string]types.Condition
		msg    string
	}{
		{nil, "ConditionalOperator cannot be used without Filter or Expected"},
		{map[string]types.Condition{}, "ConditionalOperator can only be used when Filter or Expected has two or more elements"},
		{map[string]types.Condition{"x": eq}, "ConditionalOperator can only be used when Filter or Expected has two or more elements"},
		{map[string]types.Condition{"x": eq, "y": eq}, ""},
	} {
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), ConditionalOperator: types.ConditionalOperatorOr, ScanFilter: tc.filter})
		_, qerr := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("hto"), KeyConditions: keyCond, ConditionalOperator: types.ConditionalOperatorOr, QueryFilter: tc.filter})
		if tc.msg == "" {
			if err != nil || qerr != nil {
				t.Fatalf("two conditions refused: scan %v, query %v", err, qerr)
			}
			continue
		}
		apiErr(t, err, "ValidationException", tc.msg)
		apiErr(t, qerr, "ValidationException", tc.msg)
	}
}

// TestExpressionOperatorLimit: an expression of more than 300 operators is
// refused (the count reported is the first past the limit); 300 pass.
func TestExpressionOperatorLimit(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	cond := func(n int) string { // n comparisons joined by n-1 ORs
		s := "a < b"
		for i := 1; i < n; i++ {
			s += " or a < b"
		}
		return s
	}
	item := map[string]types.AttributeValue{"pk": cfS("a"), "a": cfN("1"), "b": cfN("2")}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: item, ConditionExpression: aws.String("attribute_not_exists(pk) and (" + cond(150) + ")")}); err == nil {
		t.Fatal("condition on a missing item passed")
	} else {
		apiErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	}
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: item, ConditionExpression: aws.String(cond(151))})
	apiErr(t, err, "ValidationException", "Invalid ConditionExpression: The expression contains too many operators; operator count: 301")
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), FilterExpression: aws.String("not " + cond(200))})
	apiErr(t, err, "ValidationException", "Invalid FilterExpression: The expression contains too many operators; operator count: 301")
	upd := "SET x=:v"
	for i := 0; i < 301; i++ {
		upd += fmt.Sprintf(",y%d=:v+:v", i)
	}
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("a")},
		UpdateExpression: aws.String(upd), ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfN("1")}})
	apiErr(t, err, "ValidationException", "Invalid UpdateExpression: The expression contains too many operators; operator count: 301")
}

// TestAttributeTypeOfValue: attribute_type takes a value placeholder as its
// first operand and compares that value's type.
func TestAttributeTypeOfValue(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	put := func(typ string) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a")},
			ConditionExpression:       aws.String("attribute_type(:v, :t)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfS("x"), ":t": cfS(typ)}})
		return err
	}
	if err := put("S"); err != nil {
		t.Fatal(err)
	}
	apiErr(t, put("N"), "ConditionalCheckFailedException", "The conditional request failed")
}

// TestUpdatedNewListAppend: UPDATED_NEW reads the written path back from
// the new item, so a SET past the end of a list (the value lands at the
// end, not at that index) returns nothing for it.
func TestUpdatedNewListAppend(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	key := map[string]types.AttributeValue{"pk": cfS("a")}
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("a"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{cfN("1")}}})
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key, ReturnValues: types.ReturnValueUpdatedNew,
		UpdateExpression: aws.String("SET l[10] = :v, x = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfN("7")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Attributes) != 1 || out.Attributes["x"] == nil {
		t.Fatalf("UPDATED_NEW %v", out.Attributes)
	}
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil || len(g.Item["l"].(*types.AttributeValueMemberL).Value) != 2 {
		t.Fatalf("item %v %v", g.Item, err)
	}
}

// TestAttributeUpdatesMessages: the legacy AttributeUpdates answer with
// DynamoDB's own texts for an unsupported action type, a set or number of
// the wrong type and an arithmetic result out of range.
func TestAttributeUpdatesMessages(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	key := map[string]types.AttributeValue{"pk": cfS("a")}
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("a"), "ss": &types.AttributeValueMemberSS{Value: []string{"1"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1"}}, "n": cfN("9.9999999999999999999999999999999999999E+125"), "tiny": cfN("1E-130")})
	upd := func(name string, action types.AttributeAction, v types.AttributeValue) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{name: {Action: action, Value: v}}})
		return err
	}
	const inv = "One or more parameter values were invalid: "
	apiErr(t, upd("x", types.AttributeActionDelete, cfS("s")), "ValidationException", inv+"Action DELETE is not supported for the type S")
	apiErr(t, upd("x", types.AttributeActionAdd, cfS("s")), "ValidationException", inv+"Action ADD is not supported for the type S")
	apiErr(t, upd("x", types.AttributeActionAdd, &types.AttributeValueMemberB{Value: []byte("b")}), "ValidationException", inv+"Action ADD is not supported for the type B")
	apiErr(t, upd("ss", types.AttributeActionDelete, &types.AttributeValueMemberNS{Value: []string{"1"}}), "ValidationException", "Type mismatch for attribute to update")
	apiErr(t, upd("ss", types.AttributeActionAdd, &types.AttributeValueMemberNS{Value: []string{"2"}}), "ValidationException", "Type mismatch for attribute to update")
	apiErr(t, upd("ns", types.AttributeActionAdd, cfN("2")), "ValidationException", "Type mismatch for attribute to update")
	apiErr(t, upd("n", types.AttributeActionAdd, cfN("9.9999999999999999999999999999999999999E+125")), "ValidationException",
		"Number overflow. Attempting to store a number with magnitude larger than supported range")
	apiErr(t, upd("tiny", types.AttributeActionAdd, cfN("-9E-131")), "ValidationException",
		"Number underflow. Attempting to store a number with magnitude smaller than supported range")
}

// txReasons returns the cancellation reason codes of err.
func txReasons(t *testing.T, err error) []string {
	t.Helper()
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		t.Fatalf("want TransactionCanceledException, got %v", err)
	}
	var out []string
	for _, r := range tc.CancellationReasons {
		out = append(out, aws.ToString(r.Code))
	}
	return out
}

// TestTransactGetDuplicateItem: TransactGetItems refuses the same item
// twice, as TransactWriteItems does.
func TestTransactGetDuplicateItem(t *testing.T) {
	_, c := cfServer(t)
	get := types.TransactGetItem{Get: &types.Get{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("a")}}}
	_, err := c.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{get, get}})
	apiErr(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")
}

// TestTransactSizeLimitOnRequest: the 4 MB limit is on what the request
// carries: deleting 50 items of 100 KB passes, 11 puts of 390 KB do not.
func TestTransactSizeLimitOnRequest(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	big := func(n int) types.AttributeValue { return cfS(string(bytes.Repeat([]byte("b"), n))) }
	var dels, puts []types.TransactWriteItem
	for i := range 50 {
		k := fmt.Sprint("d", i)
		cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS(k), "v": big(100 << 10)})
		dels = append(dels, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS(k)}}})
	}
	if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: dels}); err != nil {
		t.Fatalf("deleting 5 MB of items: %v", err)
	}
	for i := range 11 {
		puts = append(puts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS(fmt.Sprint("p", i)), "v": big(390 << 10)}}})
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts})
	apiErr(t, err, "ValidationException", "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit")
	// An Update that grows its item past 400 KB cancels the transaction.
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("g"), "v": big(300 << 10)})
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
		TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("g")}, UpdateExpression: aws.String("SET w = :w"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": big(200 << 10)}}}}})
	if got := txReasons(t, err); len(got) != 1 || got[0] != "ValidationError" {
		t.Fatalf("reasons %v", got)
	}
}

// TestTransactReasonsAfterValidationError: after the first action with a
// validation error, the remaining actions report None.
func TestTransactReasonsAfterValidationError(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("s"), "n": cfS("text")})
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("x")})
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("y")})
	failPut := func(k string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS(k)}, ConditionExpression: aws.String("attribute_not_exists(pk)")}}
	}
	badUpdate := types.TransactWriteItem{Update: &types.Update{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("s")},
		UpdateExpression: aws.String("SET n = n + :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": cfN("1")}}}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{failPut("x"), badUpdate, failPut("x2"), failPut("y")}})
	// x2 does not exist, so its put would pass; the put of y would fail
	// its condition, but DynamoDB stops at the validation error.
	if got := fmt.Sprint(txReasons(t, err)); got != "[ConditionalCheckFailed ValidationError None None]" {
		t.Fatalf("reasons %s", got)
	}
	// Key problems found while resolving the tables stop the same way.
	badKey := func(k string) types.TransactWriteItem {
		return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfN(k)}}}
	}
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{badKey("1"), badKey("2")}})
	if got := fmt.Sprint(txReasons(t, err)); got != "[ValidationError None]" {
		t.Fatalf("reasons %s", got)
	}
	_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfN("1")}}},
		{Get: &types.Get{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfN("2")}}}}})
	if got := fmt.Sprint(txReasons(t, err)); got != "[ValidationError None]" {
		t.Fatalf("get reasons %s", got)
	}
}

// TestScanCapacityTinyItem pins the documented rule for a Scan of one tiny
// item: its size rounded up to 4 KB, one unit strongly consistent, half a
// unit eventually consistent.
func TestScanCapacityTinyItem(t *testing.T) {
	_, c := cfServer(t)
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("a")})
	for _, tc := range []struct {
		consistent bool
		want       float64
	}{{true, 1}, {false, 0.5}} {
		out, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("hto"), ConsistentRead: aws.Bool(tc.consistent),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToFloat64(out.ConsumedCapacity.CapacityUnits); got != tc.want {
			t.Errorf("consistent=%v: %v units, want %v", tc.consistent, got, tc.want)
		}
	}
}
