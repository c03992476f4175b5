package emulator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Conformance with DynamoDB's observed behaviour (issue 33, next edition),
// through the SDK.

// TestLegacyDeleteOnlyUpdateOfMissingItem: UpdateItem with AttributeUpdates
// whose only actions are DELETE, with or without a Value, on an item that
// does not exist succeeds and creates nothing ("DELETE - Nothing happens;
// there is no attribute to delete"); an ADD beside them creates the item.
func TestLegacyDeleteOnlyUpdateOfMissingItem(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	key := func(k string) map[string]types.AttributeValue { return map[string]types.AttributeValue{"pk": cfS(k)} }
	for k, upd := range map[string]map[string]types.AttributeValueUpdate{
		"value": {"s": {Action: types.AttributeActionDelete, Value: &types.AttributeValueMemberSS{Value: []string{"x"}}}},
		"mixed": {
			"a": {Action: types.AttributeActionDelete},
			"n": {Action: types.AttributeActionDelete, Value: &types.AttributeValueMemberNS{Value: []string{"1", "2"}}},
		},
	} {
		for _, rv := range []types.ReturnValue{types.ReturnValueNone, types.ReturnValueAllNew, types.ReturnValueUpdatedNew, types.ReturnValueAllOld, types.ReturnValueUpdatedOld} {
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key(k), AttributeUpdates: upd, ReturnValues: rv})
			if err != nil || out.Attributes != nil {
				t.Fatalf("%s %s: %v %v", k, rv, out, err)
			}
		}
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key(k), ConsistentRead: aws.Bool(true)})
		if err != nil || g.Item != nil {
			t.Fatalf("%s created: %v %v", k, g.Item, err)
		}
	}
	// An ADD beside a DELETE creates the item.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key("add"), AttributeUpdates: map[string]types.AttributeValueUpdate{
		"s": {Action: types.AttributeActionDelete, Value: &types.AttributeValueMemberSS{Value: []string{"x"}}},
		"c": {Action: types.AttributeActionAdd, Value: cfN("1")},
	}}); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hto"), Key: key("add"), ConsistentRead: aws.Bool(true)})
	if err != nil || len(g.Item) != 2 {
		t.Fatalf("ADD beside DELETE: %v %v", g.Item, err)
	}
	// On an existing item, DELETE with a Value takes the members out.
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("e"), "s": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}})
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key("e"), ReturnValues: types.ReturnValueAllNew,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"s": {Action: types.AttributeActionDelete, Value: &types.AttributeValueMemberSS{Value: []string{"x"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if ss, ok := out.Attributes["s"].(*types.AttributeValueMemberSS); !ok || len(ss.Value) != 1 || ss.Value[0] != "y" {
		t.Fatalf("DELETE from existing set: %v", out.Attributes)
	}
}

// TestScanLimitZeroMessage: Scan with Limit 0 (or below) gets the model's
// minimum-value violation echoing the value, as most Regions answer;
// Query's names "Limit" and echoes nothing.
func TestScanLimitZeroMessage(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	for _, n := range []int32{0, -5} {
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), Limit: aws.Int32(n)})
		wantAPIError(t, err, "ValidationException", fmt.Sprintf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", n))
	}
	_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), Limit: aws.Int32(0), Segment: aws.Int32(-1), TotalSegments: aws.Int32(2)})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0")
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("hto"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": cfS("a")}, Limit: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
}

// TestBatchGetProjectionMixAcrossTables: BatchGetItem's expression/legacy
// mix is judged over the whole request: ProjectionExpression on one table
// and AttributesToGet on another is refused.
func TestBatchGetProjectionMixAcrossTables(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"hto": {Keys: []map[string]types.AttributeValue{{"pk": cfS("a")}}, ProjectionExpression: aws.String("pk")},
		"hrt": {Keys: []map[string]types.AttributeValue{{"pk": cfS("a"), "sk": cfN("1")}}, AttributesToGet: []string{"pk"}},
	}})
	wantAPIError(t, err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	// Each on its own is served.
	for _, ka := range []types.KeysAndAttributes{
		{Keys: []map[string]types.AttributeValue{{"pk": cfS("a")}}, ProjectionExpression: aws.String("pk")},
		{Keys: []map[string]types.AttributeValue{{"pk": cfS("a")}}, AttributesToGet: []string{"pk"}},
	} {
		if _, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"hto": ka}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBatchMalformedTableName: a malformed table name in a batch is a
// ValidationException (the map-key constraint of RequestItems), not
// ResourceNotFoundException.
func TestBatchMalformedTableName(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const mapKeys = "' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"
	for _, name := range []string{"bad!name", "ab"} {
		_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			name: {Keys: []map[string]types.AttributeValue{{"pk": cfS("a")}}},
		}})
		wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '{"+name+"=KeysAndAttributes(keys=[{pk=AttributeValue(s=a, n=null, b=null, iNT=null, dECIMAL=null, dOUBLE=null, sS=null, nS=null, bS=null, iNTSET=null, dECIMALSET=null, dOUBLESET=null, m=null, l=null, nULL=null, bOOL=null)}], attributesToGet=null, consistentRead=null, projectionExpression=null, expressionAttributeNames=null)}"+mapKeys)
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			name: {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": cfS("a")}}}},
		}})
		wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '{"+name+"=[WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(s=a, n=null, b=null, iNT=null, dECIMAL=null, dOUBLE=null, sS=null, nS=null, bS=null, iNTSET=null, dECIMALSET=null, dOUBLESET=null, m=null, l=null, nULL=null, bOOL=null)}, workloadProfileName=null), deleteRequest=null)]}"+mapKeys)
	}
	// A well-formed name of a missing table is still not found.
	_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"nosuch": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": cfS("a")}}}},
	}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
}

// TestParenthesisedSetArithmetic: "SET c = (c - :v)" is valid
// UpdateExpression syntax and applies the arithmetic, also around
// if_not_exists; doubled parentheses are redundant.
func TestParenthesisedSetArithmetic(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("p"), "c": cfN("10")})
	key := map[string]types.AttributeValue{"pk": cfS("p")}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
		UpdateExpression:          aws.String("SET c = (c - :v), d = (if_not_exists(d, :z) + :v)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfN("3"), ":z": cfN("100")},
		ReturnValues:              types.ReturnValueUpdatedNew})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := out.Attributes["c"].(*types.AttributeValueMemberN); !ok || n.Value != "7" {
		t.Errorf("c = %v, want 7", out.Attributes["c"])
	}
	if n, ok := out.Attributes["d"].(*types.AttributeValueMemberN); !ok || n.Value != "103" {
		t.Errorf("d = %v, want 103", out.Attributes["d"])
	}
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
		UpdateExpression:          aws.String("SET c = ((c - :v))"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": cfN("3")}})
	wantAPIError(t, err, "ValidationException", "Invalid UpdateExpression: The expression has redundant parentheses;")
}

// TestContinuousBackupsWithoutPITR: a table without point-in-time recovery
// reports continuous backups ENABLED (DynamoDB tables always have them)
// and PITR DISABLED with no window or period, by name or ARN, fresh or
// after PITR was turned off.
func TestContinuousBackupsWithoutPITR(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("hto")})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, cb *types.ContinuousBackupsDescription) {
		t.Helper()
		if cb == nil || cb.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled || cb.PointInTimeRecoveryDescription == nil {
			t.Fatalf("%s: %+v", what, cb)
		}
		p := cb.PointInTimeRecoveryDescription
		if p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled || p.RecoveryPeriodInDays != nil || p.EarliestRestorableDateTime != nil || p.LatestRestorableDateTime != nil {
			t.Errorf("%s: PointInTimeRecoveryDescription %+v, want DISABLED alone", what, p)
		}
	}
	for _, name := range []string{"hto", aws.ToString(d.Table.TableArn)} {
		out, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		check("fresh "+name, out.ContinuousBackupsDescription)
	}
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("hto"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	up, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("hto"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	check("UpdateContinuousBackups off", up.ContinuousBackupsDescription)
	out, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("hto")})
	if err != nil {
		t.Fatal(err)
	}
	check("after off", out.ContinuousBackupsDescription)
}

// TestListTagsOfMissingTable: ListTagsOfResource with the ARN of a table
// that does not exist is refused with AccessDeniedException naming the
// caller (the account's root user without --auth), as DynamoDB answers;
// TagResource keeps ResourceNotFoundException.
func TestListTagsOfMissingTable(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("hto")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(d.Table.TableArn)
	missing := strings.TrimSuffix(arn, "hto") + "nosuch"
	account := strings.Split(arn, ":")[4]
	_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(missing)})
	wantAPIError(t, err, "AccessDeniedException", "User: arn:aws:iam::"+account+":root is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+missing)
	if out, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)}); err != nil || len(out.Tags) != 0 {
		t.Fatalf("existing table: %v %v", out, err)
	}
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(missing), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: ResourcArn: "+missing+" not found")
}

// TestScanStartKeyOutsideSegment: a parallel Scan refuses an
// ExclusiveStartKey that lies outside its segment with DynamoDB's
// message; a segment's own LastEvaluatedKeys page through it.
func TestScanStartKeyOutsideSegment(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	for i := range 40 {
		cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS(fmt.Sprintf("k%02d", i))})
	}
	const total = 2
	segKeys := make([][]map[string]types.AttributeValue, total)
	for seg := range int32(total) {
		var start map[string]types.AttributeValue
		for {
			out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total),
				Limit: aws.Int32(3), ExclusiveStartKey: start})
			if err != nil {
				t.Fatalf("segment %d paging: %v", seg, err)
			}
			segKeys[seg] = append(segKeys[seg], out.Items...)
			if out.LastEvaluatedKey == nil {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	if len(segKeys[0])+len(segKeys[1]) != 40 || len(segKeys[0]) == 0 || len(segKeys[1]) == 0 {
		t.Fatalf("segments hold %d and %d items", len(segKeys[0]), len(segKeys[1]))
	}
	_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), Segment: aws.Int32(0), TotalSegments: aws.Int32(total),
		ExclusiveStartKey: segKeys[1][0]})
	wantAPIError(t, err, "ValidationException", "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 0")
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hto"), Segment: aws.Int32(1), TotalSegments: aws.Int32(total),
		ExclusiveStartKey: segKeys[0][len(segKeys[0])-1]})
	wantAPIError(t, err, "ValidationException", "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 1")
	// One segment holds every key; a key of the other segment is fine
	// without segments.
	for _, in := range []*dynamodb.ScanInput{
		{TableName: aws.String("hto"), Segment: aws.Int32(0), TotalSegments: aws.Int32(1), ExclusiveStartKey: segKeys[1][0]},
		{TableName: aws.String("hto"), ExclusiveStartKey: segKeys[1][0]},
		{TableName: aws.String("hto"), Segment: aws.Int32(1), TotalSegments: aws.Int32(total), ExclusiveStartKey: segKeys[1][0]},
	} {
		if _, err := c.Scan(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
}

// TestScanIndexSegmentsPage: a parallel Scan of a GSI pages through each
// segment with its own LastEvaluatedKeys and refuses another segment's.
func TestScanIndexSegmentsPage(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("gsit"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("gix"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		cfPut(t, c, "gsit", map[string]types.AttributeValue{"pk": cfS(fmt.Sprintf("k%02d", i)), "g": cfS(fmt.Sprintf("g%d", i%7))})
	}
	lastKeys := make([]map[string]types.AttributeValue, 3)
	n := 0
	for seg := range int32(3) {
		var start map[string]types.AttributeValue
		for {
			out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("gsit"), IndexName: aws.String("gix"),
				Segment: aws.Int32(seg), TotalSegments: aws.Int32(3), Limit: aws.Int32(2), ExclusiveStartKey: start})
			if err != nil {
				t.Fatalf("segment %d paging: %v", seg, err)
			}
			n += len(out.Items)
			if out.LastEvaluatedKey == nil {
				break
			}
			start, lastKeys[seg] = out.LastEvaluatedKey, out.LastEvaluatedKey
		}
	}
	if n != 30 {
		t.Fatalf("segments read %d items, want 30", n)
	}
	checked := 0
	for seg, k := range lastKeys {
		if k == nil {
			continue
		}
		checked++
		other := int32((seg + 1) % 3)
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("gsit"), IndexName: aws.String("gix"),
			Segment: aws.Int32(other), TotalSegments: aws.Int32(3), ExclusiveStartKey: k})
		wantAPIError(t, err, "ValidationException", fmt.Sprintf("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 3 Segment: %d", other))
	}
	if checked == 0 {
		t.Fatal("no segment paged")
	}
}
