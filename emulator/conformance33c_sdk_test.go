package emulator_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Conformance with DynamoDB's observed behaviour (issue 33, next edition,
// third batch), through the SDK.

// TestArithmeticBeyond38Digits: an UpdateExpression addition or
// subtraction (SET a = a + :v, SET a = :x - :y, ADD) and a legacy
// AttributeUpdates ADD whose result is in range but needs more than 38
// significant digits is refused with DynamoDB's overflow text, as the
// service answers 1e50 ± 1; 38 digits are stored, and the item is left as
// it was.
func TestArithmeticBeyond38Digits(t *testing.T) {
	_, c := cfServer(t)
	ctx := context.Background()
	const overflow = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	key := map[string]types.AttributeValue{"pk": cfS("n")}
	cfPut(t, c, "hto", map[string]types.AttributeValue{"pk": cfS("n"), "a": cfN("1e50"), "m": cfN("99999999999999999999999999999999999998")})
	vals := map[string]types.AttributeValue{":one": cfN("1"), ":big": cfN("1e50")}
	for _, ue := range []string{"SET a = a + :one", "SET a = a - :one", "SET b = :big - :one", "SET b = :one + :big", "ADD a :one", "SET m = m + :one, a = a + :one"} {
		used := map[string]types.AttributeValue{":one": vals[":one"]}
		if ue == "SET b = :big - :one" || ue == "SET b = :one + :big" {
			used[":big"] = vals[":big"]
		}
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
			UpdateExpression: aws.String(ue), ExpressionAttributeValues: used})
		wantAPIError(t, err, "ValidationException", overflow)
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionAdd, Value: cfN("-1")}}})
	wantAPIError(t, err, "ValidationException", overflow)

	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hto"), Key: key,
		UpdateExpression: aws.String("ADD m :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": cfN("1")},
		ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatal(err)
	}
	if m := out.Attributes["m"].(*types.AttributeValueMemberN).Value; m != "99999999999999999999999999999999999999" {
		t.Errorf("m = %s", m)
	}
	if a := out.Attributes["a"].(*types.AttributeValueMemberN).Value; a != "100000000000000000000000000000000000000000000000000" {
		t.Errorf("a = %s, want 1e50 unchanged", a)
	}
	if _, ok := out.Attributes["b"]; ok {
		t.Errorf("b written: %v", out.Attributes["b"])
	}
}
