package emulator_test

import (
	"context"
	"fmt"
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
