package expr_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Expressions as a client sees them: the real aws-sdk-go-v2 client against
// the in-process server. The table-driven tests beside this file cover each
// message; these check that they reach the client unchanged and that
// evaluation and updates behave end to end.

func sS(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func sN(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

func wantAPIError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want %s: %s", err, code, msg)
	}
	if ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", ae.ErrorCode(), ae.ErrorMessage(), code, msg)
	}
}

func TestSDKExpressions(t *testing.T) {
	ctx := context.Background()
	c := testserver.New(t).Client
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("exprs"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	item := map[string]types.AttributeValue{
		"pk": sS("p"), "sk": sN("1"),
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"keep": sS("k"), "n": sN("1")}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{sS("a"), sS("b"), sS("c"), sS("d")}},
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("exprs"), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(pk)")}); err != nil {
		t.Fatal(err)
	}

	t.Run("validation messages", func(t *testing.T) {
		cases := []struct {
			in   *dynamodb.PutItemInput
			want string
		}{
			{&dynamodb.PutItemInput{ConditionExpression: aws.String("((attribute_not_exists(pk)))")},
				"Invalid ConditionExpression: The expression has redundant parentheses;"},
			{&dynamodb.PutItemInput{ConditionExpression: aws.String("user-name = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": sS("x")}},
				`Invalid ConditionExpression: Syntax error; token: "-", near: "user-name"`},
			{&dynamodb.PutItemInput{ConditionExpression: aws.String("data = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": sS("x")}},
				"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: data"},
			{&dynamodb.PutItemInput{ConditionExpression: aws.String("contains(#a, #a)"),
				ExpressionAttributeNames: map[string]string{"#a": "data"}},
				"Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [data]"},
			{&dynamodb.PutItemInput{ConditionExpression: aws.String("attribute_exists(#a)"),
				ExpressionAttributeNames: map[string]string{"#a": "a", "#unused": "u"}},
				"Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}"},
		}
		for _, tc := range cases {
			tc.in.TableName = aws.String("exprs")
			tc.in.Item = map[string]types.AttributeValue{"pk": sS("q"), "sk": sN("1")}
			_, err := c.PutItem(ctx, tc.in)
			wantAPIError(t, err, "ValidationException", tc.want)
		}
	})

	t.Run("condition evaluation", func(t *testing.T) {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("exprs"), Item: item,
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("exprs"), Item: item,
			ConditionExpression:       aws.String("size(l) = :four AND m.n BETWEEN :zero AND :four AND begins_with(pk, :p)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":four": sN("4"), ":zero": sN("0"), ":p": sS("p")}})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("update", func(t *testing.T) {
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String("exprs"),
			Key:                       map[string]types.AttributeValue{"pk": sS("p"), "sk": sN("1")},
			UpdateExpression:          aws.String("SET m.n = m.n + :one, l[1] = :x REMOVE l[0], l[2]"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": sN("1"), ":x": sS("x")},
			ReturnValues:              types.ReturnValueUpdatedNew,
		})
		if err != nil {
			t.Fatal(err)
		}
		m, ok := out.Attributes["m"].(*types.AttributeValueMemberM)
		if !ok || len(m.Value) != 1 || m.Value["n"].(*types.AttributeValueMemberN).Value != "2" {
			t.Errorf("UPDATED_NEW m = %#v (want only the updated nested path)", out.Attributes["m"])
		}
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("exprs"),
			Key: map[string]types.AttributeValue{"pk": sS("p"), "sk": sN("1")}, ConsistentRead: aws.Bool(true),
			ProjectionExpression: aws.String("l")})
		if err != nil {
			t.Fatal(err)
		}
		var l []string
		for _, v := range got.Item["l"].(*types.AttributeValueMemberL).Value {
			l = append(l, v.(*types.AttributeValueMemberS).Value)
		}
		if len(l) != 2 || l[0] != "x" || l[1] != "d" {
			t.Errorf("l = %v, want [x d] (indexes name elements before the update)", l)
		}
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String("exprs"),
			Key:                       map[string]types.AttributeValue{"pk": sS("p"), "sk": sN("1")},
			UpdateExpression:          aws.String("SET pk = :x"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":x": sS("x")},
		})
		wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String("exprs"),
			Key:                       map[string]types.AttributeValue{"pk": sS("p"), "sk": sN("1")},
			UpdateExpression:          aws.String("SET nope.x = :x"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":x": sS("x")},
		})
		wantAPIError(t, err, "ValidationException", "The document path provided in the update expression is invalid for update")
	})

	t.Run("query", func(t *testing.T) {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("exprs"),
			KeyConditionExpression:    aws.String(":lo <= sk AND pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": sS("p"), ":lo": sN("0")}})
		if err != nil || out.Count != 1 {
			t.Fatalf("query: %v, %+v", err, out)
		}
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("exprs"),
			KeyConditionExpression:    aws.String("sk = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": sN("1")}})
		wantAPIError(t, err, "ValidationException", "Query condition missed key schema element: pk")
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("exprs"),
			KeyConditionExpression:    aws.String("pk = :v OR sk = :w"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": sS("p"), ":w": sN("1")}})
		wantAPIError(t, err, "ValidationException", "Invalid operator used in KeyConditionExpression: OR")
	})
}
