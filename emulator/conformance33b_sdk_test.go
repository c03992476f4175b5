package emulator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Conformance with DynamoDB's observed behaviour (issue 33, next edition,
// second batch), through the SDK.

// TestAttributeNameEmptyOrTooLarge: an empty attribute name and one of
// 65,536 bytes or more are refused with DynamoDB's messages wherever a
// request names an attribute (item, AttributeUpdates, AttributesToGet,
// ExpressionAttributeNames behind a projection or an update); 65,535 bytes
// is the last accepted length, counted in bytes, not characters.
func TestAttributeNameEmptyOrTooLarge(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const (
		empty   = "1 validation error detected: Empty attribute name"
		tooLong = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
	)
	long := strings.Repeat("n", 65536)
	ok := strings.Repeat("n", 65535)
	// 21,846 three-byte characters: 65,538 bytes, fewer than 65,536 characters.
	wide := strings.Repeat("€", 21846)
	key := map[string]types.AttributeValue{"pk": cfS("a")}
	for name, msg := range map[string]string{"": empty, long: tooLong, wide: tooLong} {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), name: cfS("v")}})
		wantAPIError(t, err, "ValidationException", msg)
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"hto": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": cfS("a"), name: cfS("v")}}}}}})
		wantAPIError(t, err, "ValidationException", msg)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{name: {Action: types.AttributeActionPut, Value: cfS("v")}}})
		wantAPIError(t, err, "ValidationException", msg)
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key, AttributesToGet: []string{"x", name}})
		wantAPIError(t, err, "ValidationException", msg)
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), AttributesToGet: []string{name}})
		wantAPIError(t, err, "ValidationException", msg)
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("hto"), AttributesToGet: []string{name},
			KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{cfS("a")}}}})
		wantAPIError(t, err, "ValidationException", msg)
		_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"hto": {Keys: []map[string]types.AttributeValue{key}, AttributesToGet: []string{name}}}})
		wantAPIError(t, err, "ValidationException", msg)
	}
	// ExpressionAttributeNames: the empty name keeps its own message.
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key, ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: map[string]string{"#n": ""}})
	wantAPIError(t, err, "ValidationException", "ExpressionAttributeNames contains invalid value: Empty attribute name for key #n")
	for _, name := range []string{long, wide} {
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key, ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: map[string]string{"#n": name}})
		wantAPIError(t, err, "ValidationException", tooLong)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key, UpdateExpression: aws.String("SET #n = :v"),
			ExpressionAttributeNames: map[string]string{"#n": name}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfS("v")}})
		wantAPIError(t, err, "ValidationException", tooLong)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key, UpdateExpression: aws.String("SET a = :v"), ConditionExpression: aws.String("#n = :v"),
			ExpressionAttributeNames: map[string]string{"#n": name}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfS("v")}})
		wantAPIError(t, err, "ValidationException", tooLong)
	}
	// The entries of a map value have the same limit, at any depth.
	nested := func(name string) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"in": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{name: cfS("v")}}}}
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), "doc": nested(long)}})
	wantAPIError(t, err, "ValidationException", tooLong)
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), "doc": nested(wide)}}}}})
	wantAPIError(t, err, "ValidationException", tooLong)
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("n"), "doc": nested(ok)})
	// 65,535 bytes is accepted everywhere.
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("a"), ok: cfN("1")})
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key, UpdateExpression: aws.String("SET #n = #n + :v"),
		ExpressionAttributeNames: map[string]string{"#n": ok}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfN("1")}}); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key, AttributesToGet: []string{ok}, ConsistentRead: aws.Bool(true)})
	if err != nil || len(g.Item) != 1 || g.Item[ok].(*types.AttributeValueMemberN).Value != "2" {
		t.Fatalf("65,535-byte name: %v %v", g, err)
	}
	g, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key, ProjectionExpression: aws.String("#n"), ExpressionAttributeNames: map[string]string{"#n": ok}, ConsistentRead: aws.Bool(true)})
	if err != nil || len(g.Item) != 1 {
		t.Fatalf("65,535-byte name projected: %v %v", g, err)
	}
}

// TestNumberExponentBeyondRange: a number whose exponent does not fit a
// 64-bit integer cannot be converted (the same text as for "abc"), in item
// values, expression attribute values and keys; an exponent past a 32-bit
// integer is still read and is out of range; a zero is range-checked by the
// exponent it is written with.
func TestNumberExponentBeyondRange(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const (
		overflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
		underflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
		convert   = "The parameter cannot be converted to a numeric value: "
	)
	put := func(n string) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hto"), Item: map[string]types.AttributeValue{"pk": cfS("a"), "v": cfN(n)}})
		return err
	}
	for n, msg := range map[string]string{
		"abc":                     convert + "abc",
		"1e9223372036854775808":   convert + "1e9223372036854775808",
		"-1e99999999999999999999": convert + "-1e99999999999999999999",
		"1e-9223372036854775809":  convert + "1e-9223372036854775809",
		"1e2147483648":            overflow,
		"1e99999999999":           overflow,
		"1e-99999999999":          underflow,
		"0e126":                   overflow,
		"0e-131":                  underflow,
	} {
		wantAPIError(t, put(n), "ValidationException", msg)
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("a")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfN(n)}})
		wantAPIError(t, err, "ValidationException", "ExpressionAttributeValues contains invalid value: "+msg+" for key :v")
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hrt"), Key: map[string]types.AttributeValue{"pk": cfS("a"), "sk": cfN(n)}})
		wantAPIError(t, err, "ValidationException", msg)
	}
	// Zero written with an exponent inside the range is stored as 0.
	for _, n := range []string{"0e125", "0e-130", "0.0e126"} {
		if err := put(n); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("a")}, ConsistentRead: aws.Bool(true)})
		if err != nil || g.Item["v"].(*types.AttributeValueMemberN).Value != "0" {
			t.Fatalf("%s: %v %v", n, g, err)
		}
	}
}

// TestDeleteTableDescriptionWithIndexes: DeleteTable's TableDescription of
// a table with local and global secondary indexes carries no index lists
// (nor the key schema, attribute definitions or creation time), as the
// service answers; the table's name, status, ARN, size and throughput stay.
func TestDeleteTableDescriptionWithIndexes(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	def := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	ks := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("dix"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions:   []types.AttributeDefinition{def("pk"), def("sk"), def("l"), def("g")},
		KeySchema:              ks("pk", "sk"),
		LocalSecondaryIndexes:  []types.LocalSecondaryIndex{{IndexName: aws.String("lix"), KeySchema: ks("pk", "l"), Projection: all}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gix"), KeySchema: ks("g", "sk"), Projection: all}},
	}); err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("dix")})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if d.GlobalSecondaryIndexes != nil || d.LocalSecondaryIndexes != nil || d.KeySchema != nil || d.AttributeDefinitions != nil || d.CreationDateTime != nil {
		t.Fatalf("DeleteTable description has %v %v %v %v %v", d.GlobalSecondaryIndexes, d.LocalSecondaryIndexes, d.KeySchema, d.AttributeDefinitions, d.CreationDateTime)
	}
	if aws.ToString(d.TableName) != "dix" || d.TableStatus != types.TableStatusDeleting || aws.ToString(d.TableArn) == "" ||
		d.TableSizeBytes == nil || d.ItemCount == nil || d.ProvisionedThroughput == nil {
		t.Fatalf("DeleteTable description: %+v", d)
	}
}

// TestTransactWriteOverFourMB: a TransactWriteItems whose items add up to
// more than 4 MB is refused as a whole with DynamoDB's message, and writes
// nothing; one just under the limit is written.
func TestTransactWriteOverFourMB(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	puts := func(prefix string, n int) []types.TransactWriteItem {
		var out []types.TransactWriteItem
		for i := range n {
			out = append(out, types.TransactWriteItem{Put: &types.Put{TableName: aws.String("hto"),
				Item: map[string]types.AttributeValue{"pk": cfS(prefix + string(rune('a'+i))), "v": cfS(strings.Repeat("x", 390<<10))}}})
		}
		return out
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts("big", 11)})
	wantAPIError(t, err, "ValidationException", "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit")
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: map[string]types.AttributeValue{"pk": cfS("biga")}, ConsistentRead: aws.Bool(true)})
	if err != nil || g.Item != nil {
		t.Fatalf("refused transaction wrote: %v %v", g.Item != nil, err)
	}
	if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts("ok", 10)}); err != nil {
		t.Fatalf("3.9 MB transaction: %v", err)
	}
}

// TestPartiQLParameterNumberExponent: a number passed as a PartiQL parameter
// is read as DynamoDB reads one: an exponent (or scale) past a 32-bit
// integer cannot be converted, in every position a parameter takes and
// inside lists, maps and sets; the magnitude check wraps in 32 bits, so
// 1e2147483647 underflows.
func TestPartiQLParameterNumberExponent(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const (
		convert   = "The parameter cannot be converted to a numeric value"
		underflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	)
	statements := []string{
		`SELECT * FROM "hrt" WHERE pk = 'a' AND n = ?`,
		`INSERT INTO "hrt" VALUE {'pk': 'x', 'sk': 1, 'n': ?}`,
		`UPDATE "hrt" SET n = ? WHERE pk = 'a' AND sk = 1`,
		`SELECT * FROM "hrt" WHERE pk = 'a' AND sk = ?`,
	}
	for _, n := range []string{"1e99999999999", "-1e99999999999", "1e-99999999999", "1e2147483648", "1e-2147483648"} {
		for _, st := range statements {
			_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(st), Parameters: []types.AttributeValue{cfN(n)}})
			wantAPIError(t, err, "ValidationException", convert+": "+n)
		}
	}
	for _, st := range statements {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(st), Parameters: []types.AttributeValue{cfN("1e2147483647")}})
		wantAPIError(t, err, "ValidationException", underflow)
		_, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(st), Parameters: []types.AttributeValue{cfN("")}})
		wantAPIError(t, err, "ValidationException", convert)
	}
	for _, p := range []types.AttributeValue{
		&types.AttributeValueMemberL{Value: []types.AttributeValue{cfN("1"), cfN("1e99999999999")}},
		&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": cfN("1e99999999999")}},
		&types.AttributeValueMemberNS{Value: []string{"1", "1e99999999999"}},
	} {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(statements[0]), Parameters: []types.AttributeValue{p}})
		wantAPIError(t, err, "ValidationException", convert+": 1e99999999999")
	}
	_, err := c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(statements[2]), Parameters: []types.AttributeValue{cfN("1e99999999999")}}}})
	wantAPIError(t, err, "ValidationException", convert+": 1e99999999999")
	out, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT * FROM "hrt" WHERE pk = 'a' AND sk = 1 AND n = ?`), Parameters: []types.AttributeValue{cfN("1e99999999999")}}}})
	if err != nil || len(out.Responses) != 1 || out.Responses[0].Error == nil || aws.ToString(out.Responses[0].Error.Message) != convert+": 1e99999999999" {
		t.Fatalf("BatchExecuteStatement: %v %v", out, err)
	}
	// An ordinary parameter still works.
	if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(statements[1]), Parameters: []types.AttributeValue{cfN("1.5e3")}}); err != nil {
		t.Fatal(err)
	}
}
