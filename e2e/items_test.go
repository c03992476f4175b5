package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Item-operation tests: GetItem, PutItem, UpdateItem, DeleteItem through
// the real SDK client against the in-process server.

func itS(s string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: s} }
func itN(s string) types.AttributeValue  { return &types.AttributeValueMemberN{Value: s} }
func itB(b []byte) types.AttributeValue  { return &types.AttributeValueMemberB{Value: b} }
func itBool(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }

// itErr asserts err is a DynamoDB error with code and message.
func itErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want %s: %s", err, code, msg)
	}
	if ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", ae.ErrorCode(), ae.ErrorMessage(), code, msg)
	}
}

// itTables creates the tables the item tests use:
//
//	hash:  pk S
//	range: pk S, sk N, GSI "byG" (g S, KEYS_ONLY), GSI "byH" (h N / sk N, INCLUDE [x]),
//	       LSI "byL" (pk S / l S, ALL)
func itTables(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("hash"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("range"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("h"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{
				IndexName:  aws.String("byG"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			},
			{
				IndexName: aws.String("byH"),
				KeySchema: []types.KeySchemaElement{
					{AttributeName: aws.String("h"), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
				},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x"}},
			},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("byL"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("l"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
}

func itServer(t *testing.T, opts ...testserver.Option) *testserver.Server {
	t.Helper()
	s := testserver.New(t, opts...)
	itTables(t, s.Client)
	return s
}

func TestItemsPutGetUpdateDelete(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()

	item := map[string]types.AttributeValue{
		"pk":   itS("a"),
		"n":    itN("1.50"),
		"bin":  itB([]byte{0, 1, 2}),
		"ok":   itBool(true),
		"nul":  &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{itS("e0"), itN("2")}},
		"map":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": itS("v"), "deep": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"z": itN("0")}}}},
		"empt": itS(""),
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}})
	if err != nil {
		t.Fatal(err)
	}
	if n := got.Item["n"].(*types.AttributeValueMemberN).Value; n != "1.5" {
		t.Errorf("number came back as %q, want canonical 1.5", n)
	}
	if len(got.Item) != len(item) {
		t.Errorf("got %d attributes, want %d", len(got.Item), len(item))
	}

	// Missing item: no Item member.
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("nope")}})
	if err != nil || got.Item != nil {
		t.Fatalf("missing item: %v %v", got.Item, err)
	}

	// Projection: nested paths and list indexes.
	proj := expression.NamesList(expression.Name("map.deep.z"), expression.Name("list[1]"), expression.Name("ok"))
	ex, err := expression.NewBuilder().WithProjection(proj).Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")},
		ProjectionExpression: ex.Projection(), ExpressionAttributeNames: ex.Names()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Item) != 3 {
		t.Fatalf("projection returned %v", got.Item)
	}
	l := got.Item["list"].(*types.AttributeValueMemberL).Value
	if len(l) != 1 || l[0].(*types.AttributeValueMemberN).Value != "2" {
		t.Errorf("list[1] projected as %v", l)
	}
	deep := got.Item["map"].(*types.AttributeValueMemberM).Value["deep"].(*types.AttributeValueMemberM).Value
	if _, ok := deep["z"]; !ok || len(got.Item["map"].(*types.AttributeValueMemberM).Value) != 1 {
		t.Errorf("map.deep.z projected as %v", got.Item["map"])
	}

	// Legacy AttributesToGet.
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")},
		AttributesToGet: []string{"ok", "missing"}, ConsistentRead: aws.Bool(true)})
	if err != nil || len(got.Item) != 1 {
		t.Fatalf("AttributesToGet: %v %v", got.Item, err)
	}

	// UpdateItem with the expression builder: SET arithmetic, if_not_exists,
	// list_append, REMOVE, ADD to a set, DELETE from a set.
	upd := expression.Set(expression.Name("n"), expression.Name("n").Plus(expression.Value(2))).
		Set(expression.Name("cnt"), expression.IfNotExists(expression.Name("cnt"), expression.Value(10))).
		Set(expression.Name("list"), expression.ListAppend(expression.Name("list"), expression.Value([]string{"tail"}))).
		Remove(expression.Name("nul")).
		Add(expression.Name("ss"), expression.Value(&types.AttributeValueMemberSS{Value: []string{"z"}})).
		Delete(expression.Name("ns"), expression.Value(&types.AttributeValueMemberNS{Value: []string{"1"}}))
	ex, err = expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")},
		UpdateExpression: ex.Update(), ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values(),
		ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatal(err)
	}
	a := u.Attributes
	if v := a["n"].(*types.AttributeValueMemberN).Value; v != "3.5" {
		t.Errorf("n = %s, want 3.5", v)
	}
	if v := a["cnt"].(*types.AttributeValueMemberN).Value; v != "10" {
		t.Errorf("cnt = %s, want 10", v)
	}
	if v := a["list"].(*types.AttributeValueMemberL).Value; len(v) != 3 {
		t.Errorf("list = %v", v)
	}
	if _, ok := a["nul"]; ok {
		t.Error("nul not removed")
	}
	if v := a["ss"].(*types.AttributeValueMemberSS).Value; len(v) != 3 {
		t.Errorf("ss = %v", v)
	}
	if v := a["ns"].(*types.AttributeValueMemberNS).Value; len(v) != 1 || v[0] != "2.5" {
		t.Errorf("ns = %v", v)
	}

	// Upsert: UpdateItem on a missing item creates it with its key.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("new")},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": itS("x")}}); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("new")}})
	if len(got.Item) != 2 {
		t.Errorf("upserted item = %v", got.Item)
	}

	// Legacy AttributeUpdates.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("new")},
		AttributeUpdates: map[string]types.AttributeValueUpdate{
			"v":   {Action: types.AttributeActionDelete},
			"num": {Action: types.AttributeActionAdd, Value: itN("5")},
			"s":   {Action: types.AttributeActionPut, Value: itS("put")},
		}}); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("new")}})
	if _, ok := got.Item["v"]; ok || len(got.Item) != 3 {
		t.Errorf("after AttributeUpdates: %v", got.Item)
	}

	// DeleteItem with ALL_OLD, then the item is gone.
	d, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}, ReturnValues: types.ReturnValueAllOld})
	if err != nil || len(d.Attributes) == 0 {
		t.Fatalf("delete: %v %v", d, err)
	}
	got, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}})
	if got.Item != nil {
		t.Error("item survived DeleteItem")
	}
	// Deleting a missing item succeeds.
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}}); err != nil {
		t.Fatal(err)
	}
}

func TestItemsReturnValues(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	key := map[string]types.AttributeValue{"pk": itS("k")}
	put := func(rv types.ReturnValue, item map[string]types.AttributeValue) (*dynamodb.PutItemOutput, error) {
		return c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item, ReturnValues: rv})
	}
	out, err := put(types.ReturnValueAllOld, map[string]types.AttributeValue{"pk": itS("k"), "a": itN("1")})
	if err != nil || out.Attributes != nil {
		t.Fatalf("first put ALL_OLD: %v %v", out, err)
	}
	out, err = put(types.ReturnValueAllOld, map[string]types.AttributeValue{"pk": itS("k"), "a": itN("2"), "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": itN("1"), "y": itN("2")}}})
	if err != nil || out.Attributes["a"].(*types.AttributeValueMemberN).Value != "1" {
		t.Fatalf("second put ALL_OLD: %v %v", out, err)
	}
	for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew} {
		_, err := put(rv, map[string]types.AttributeValue{"pk": itS("k")})
		itErr(t, err, "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE")
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: key, ReturnValues: rv})
		itErr(t, err, "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE")
	}
	_, err = put("GARBAGE", map[string]types.AttributeValue{"pk": itS("k")})
	itErr(t, err, "ValidationException", "1 validation error detected: Value 'GARBAGE' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")

	update := func(rv types.ReturnValue) map[string]types.AttributeValue {
		t.Helper()
		u, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: key,
			UpdateExpression:          aws.String("SET a = a + :one, m.x = :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": itN("1")},
			ReturnValues:              rv})
		if err != nil {
			t.Fatal(err)
		}
		return u.Attributes
	}
	if a := update(types.ReturnValueNone); a != nil {
		t.Errorf("NONE returned %v", a)
	}
	a := update(types.ReturnValueUpdatedOld) // a 3→4, m.x 1→1
	if a["a"].(*types.AttributeValueMemberN).Value != "3" || len(a) != 2 || len(a["m"].(*types.AttributeValueMemberM).Value) != 1 {
		t.Errorf("UPDATED_OLD = %s", itDump(a))
	}
	a = update(types.ReturnValueUpdatedNew) // a 4→5
	if a["a"].(*types.AttributeValueMemberN).Value != "5" || len(a) != 2 {
		t.Errorf("UPDATED_NEW = %s", itDump(a))
	}
	a = update(types.ReturnValueAllOld) // a 5→6
	if a["a"].(*types.AttributeValueMemberN).Value != "5" || len(a) != 3 {
		t.Errorf("ALL_OLD = %s", itDump(a))
	}
	a = update(types.ReturnValueAllNew) // a 6→7
	if a["a"].(*types.AttributeValueMemberN).Value != "7" || len(a) != 3 || a["pk"] == nil {
		t.Errorf("ALL_NEW = %s", itDump(a))
	}
}

func TestItemsConditions(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	item := map[string]types.AttributeValue{"pk": itS("c"), "v": itN("1"), "tag": itS("red")}

	cond := expression.AttributeNotExists(expression.Name("pk"))
	ex, _ := expression.NewBuilder().WithCondition(cond).Build()
	putNew := &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item,
		ConditionExpression: ex.Condition(), ExpressionAttributeNames: ex.Names()}
	if _, err := c.PutItem(ctx, putNew); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutItem(ctx, putNew)
	itErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || ccf.Item != nil {
		t.Fatalf("without ReturnValuesOnConditionCheckFailure the error carries no item: %v", err)
	}
	putNew.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	_, err = c.PutItem(ctx, putNew)
	if !errors.As(err, &ccf) || ccf.Item["tag"].(*types.AttributeValueMemberS).Value != "red" {
		t.Fatalf("ALL_OLD on failure: %v", err)
	}

	// Update with a condition on a value: passes, then fails.
	upd := &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("c")},
		UpdateExpression:                    aws.String("SET v = v + :one"),
		ConditionExpression:                 aws.String("v < :two AND tag IN (:red, :blue)"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":one": itN("1"), ":two": itN("2"), ":red": itS("red"), ":blue": itS("blue")},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
	if _, err := c.UpdateItem(ctx, upd); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateItem(ctx, upd)
	if !errors.As(err, &ccf) || ccf.Item["v"].(*types.AttributeValueMemberN).Value != "2" {
		t.Fatalf("second conditional update: %v", err)
	}

	// A conditional update of a missing item does not create it.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("ghost")},
		UpdateExpression: aws.String("SET v = :one"), ConditionExpression: aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":one": itN("1")},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	if !errors.As(err, &ccf) || ccf.Item != nil {
		t.Fatalf("conditional upsert: %v", err)
	}
	got, _ := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("ghost")}})
	if got.Item != nil {
		t.Error("failed conditional update created the item")
	}

	// Legacy Expected with ConditionalOperator OR.
	exp := map[string]types.ExpectedAttributeValue{
		"v":   {Value: itN("100")},
		"tag": {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{itS("re")}},
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("c")},
		Expected: exp, ConditionalOperator: types.ConditionalOperatorAnd}); err == nil {
		t.Fatal("Expected AND should fail (v is 2)")
	} else {
		itErr(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("c")},
		Expected: exp, ConditionalOperator: types.ConditionalOperatorOr}); err != nil {
		t.Fatalf("Expected OR: %v", err)
	}
	// Exists: false on a missing item passes.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item,
		Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}}); err != nil {
		t.Fatal(err)
	}
}

// TestItemsValidation checks the error type and exact message of each
// validation, and that the checks run in DynamoDB's order.
func TestItemsValidation(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	hk := map[string]types.AttributeValue{"pk": itS("a")}
	rk := map[string]types.AttributeValue{"pk": itS("a"), "sk": itN("1")}
	vals := func(kv ...any) map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return m
	}
	big := strings.Repeat("x", 400*1024)
	const val = "ValidationException"
	cases := []struct {
		name string
		call func() error
		code string
		msg  string
	}{
		{"missing table", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: hk})
			return err
		}, "ResourceNotFoundException", "Requested resource not found"},
		{"bad attribute value before missing table", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("nope"), Item: vals("pk", itS("a"), "s", &types.AttributeValueMemberSS{Value: []string{}})})
			return err
		}, val, "One or more parameter values were invalid: An string set  may not be empty"},
		{"expression syntax before missing table", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("nope"), Key: hk, ConditionExpression: aws.String("a = ")})
			return err
		}, val, "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"= \""},
		{"table name pattern", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("a!"), Key: hk})
			return err
		}, val, "2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"key element does not match: missing range", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("range"), Key: hk})
			return err
		}, val, "The provided key element does not match the schema"},
		{"key element does not match: wrong type", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: vals("pk", itN("1"))})
			return err
		}, val, "The provided key element does not match the schema"},
		{"key element does not match: extra attribute", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: vals("pk", itS("a"), "x", itS("b"))})
			return err
		}, val, "The provided key element does not match the schema"},
		{"empty string key", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: vals("pk", itS(""))})
			return err
		}, val, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"put missing key", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"), Item: hk})
			return err
		}, val, "One or more parameter values were invalid: Missing the key sk in the item"},
		{"put key type mismatch", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: vals("pk", itN("1"))})
			return err
		}, val, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"put index key type mismatch", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"), Item: vals("pk", itS("a"), "sk", itN("1"), "g", itN("1"))})
			return err
		}, val, "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG"},
		{"put empty index key", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"), Item: vals("pk", itS("a"), "sk", itN("1"), "l", itS(""))})
			return err
		}, val, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byL, IndexKey: l"},
		{"update index key to wrong type", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("range"), Key: rk, UpdateExpression: aws.String("SET h = :s"), ExpressionAttributeValues: vals(":s", itS("x"))})
			return err
		}, val, "One or more parameter values were invalid: Type mismatch for Index Key h Expected: N Actual: S IndexName: byH"},
		{"item too large", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: vals("pk", itS("a"), "big", itS(big))})
			return err
		}, val, "Item size has exceeded the maximum allowed size"},
		{"update too large", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: hk, UpdateExpression: aws.String("SET big = :b"), ExpressionAttributeValues: vals(":b", itS(big))})
			return err
		}, val, "Item size to update has exceeded the maximum allowed size"},
		{"update key attribute", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: hk, UpdateExpression: aws.String("SET pk = :b"), ExpressionAttributeValues: vals(":b", itS("b"))})
			return err
		}, val, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"legacy update key attribute", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("range"), Key: rk, AttributeUpdates: map[string]types.AttributeValueUpdate{"sk": {Value: itN("2")}}})
			return err
		}, val, "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"},
		{"mix of expression and legacy", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: hk, ConditionExpression: aws.String("attribute_exists(a)"),
				Expected: map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}}})
			return err
		}, val, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"projection with AttributesToGet", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: hk, ProjectionExpression: aws.String("a"), AttributesToGet: []string{"a"}})
			return err
		}, val, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		{"unused name", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: hk, ProjectionExpression: aws.String("a"), ExpressionAttributeNames: map[string]string{"#n": "n"}})
			return err
		}, val, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#n}"},
		{"names without expressions", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: hk, ExpressionAttributeNames: map[string]string{"#n": "n"}})
			return err
		}, val, "ExpressionAttributeNames can only be specified when using expressions"},
		{"values without expressions", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: hk, ExpressionAttributeValues: vals(":v", itS("x"))})
			return err
		}, val, "1 validation error detected: ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"},
		{"invalid expression value", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: hk, ConditionExpression: aws.String("a = :v"), ExpressionAttributeValues: vals(":v", &types.AttributeValueMemberNS{Value: []string{}})})
			return err
		}, val, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An number set  may not be empty for key :v"},
		{"reserved word", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: hk, ConditionExpression: aws.String("attribute_exists(name)")})
			return err
		}, val, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
		{"update operand type at runtime", func() error {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: vals("pk", itS("t"), "s", itS("str"))}); err != nil {
				return err
			}
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: vals("pk", itS("t")), UpdateExpression: aws.String("SET s = s + :one"), ExpressionAttributeValues: vals(":one", itN("1"))})
			return err
		}, val, "An operand in the update expression has an incorrect data type"},
		{"bad ReturnConsumedCapacity", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: hk, ReturnConsumedCapacity: "ALL"})
			return err
		}, val, "1 validation error detected: Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"},
		{"bad ReturnValuesOnConditionCheckFailure", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: hk, ReturnValuesOnConditionCheckFailure: "ALL_NEW"})
			return err
		}, val, "1 validation error detected: Value 'ALL_NEW' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"},
		{"duplicate AttributesToGet", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: hk, AttributesToGet: []string{"a", "a"}})
			return err
		}, val, "One or more parameter values were invalid: Duplicate value in attribute name: a"},
		{"legacy Expected without value", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: hk, Expected: map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true)}}})
			return err
		}, val, "1 validation error detected: One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
		{"legacy AttributeUpdates DELETE of a scalar", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: hk, AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionDelete, Value: itS("x")}}})
			return err
		}, val, "One or more parameter values were invalid: Action DELETE is not supported for the type S"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { itErr(t, tc.call(), tc.code, tc.msg) })
	}
}

func capUnits(cc *types.ConsumedCapacity) float64 {
	if cc == nil || cc.CapacityUnits == nil {
		return -1
	}
	return *cc.CapacityUnits
}

func TestItemsConsumedCapacity(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	kb := func(n int) types.AttributeValue { return itS(strings.Repeat("v", n*1024-10)) }

	// A 1.5 KB item is 2 WCU to write; 1 RCU consistent, 0.5 eventually.
	p, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("a"), "v": itS(strings.Repeat("v", 1536))},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if capUnits(p.ConsumedCapacity) != 2 || *p.ConsumedCapacity.TableName != "hash" || p.ConsumedCapacity.Table != nil {
		t.Errorf("put 1.5 KB TOTAL: %+v", p.ConsumedCapacity)
	}
	g, _ := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if capUnits(g.ConsumedCapacity) != 0.5 {
		t.Errorf("eventually consistent get: %v", capUnits(g.ConsumedCapacity))
	}
	g, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}, ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if capUnits(g.ConsumedCapacity) != 1 || g.ConsumedCapacity.Table == nil || *g.ConsumedCapacity.Table.CapacityUnits != 1 {
		t.Errorf("consistent get INDEXES: %+v", g.ConsumedCapacity)
	}
	// Missing item: the minimum. NONE: no ConsumedCapacity.
	g, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("zz")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if capUnits(g.ConsumedCapacity) != 0.5 {
		t.Errorf("missing item get: %v", capUnits(g.ConsumedCapacity))
	}
	g, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("zz")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityNone})
	if g.ConsumedCapacity != nil {
		t.Errorf("NONE returned %+v", g.ConsumedCapacity)
	}
	// 9 KB item: 3 RCU consistent; projections do not reduce it.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("big"), "v": kb(9)}}); err != nil {
		t.Fatal(err)
	}
	g, _ = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("big")}, ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("pk"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if capUnits(g.ConsumedCapacity) != 3 {
		t.Errorf("9 KB consistent get: %v", capUnits(g.ConsumedCapacity))
	}
	// Update is charged on the larger of old (9 KB) and new (1 KB).
	u, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("big")},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": itS("small")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || capUnits(u.ConsumedCapacity) != 9 {
		t.Errorf("shrinking update: %v %v", capUnits(u.ConsumedCapacity), err)
	}
	// Deleting a missing item: 1 WCU. Table ARN echoed as TableName.
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/hash"
	if d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("hash")}); err == nil {
		arn = *d.Table.TableArn
	}
	d, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(arn), Key: map[string]types.AttributeValue{"pk": itS("none")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || capUnits(d.ConsumedCapacity) != 1 || *d.ConsumedCapacity.TableName != arn {
		t.Errorf("delete missing: %+v %v", d.ConsumedCapacity, err)
	}

	// Indexes: a new item in byG (KEYS_ONLY) and byH (INCLUDE x) and byL
	// (ALL): 1 table + 1 per index; INDEXES breaks it down.
	p, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"),
		Item:                   map[string]types.AttributeValue{"pk": itS("p"), "sk": itN("1"), "g": itS("g1"), "h": itN("7"), "l": itS("l1"), "x": itS("x"), "y": kb(2)},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	cc := p.ConsumedCapacity
	if capUnits(cc) != 3+1+1+3 || *cc.Table.CapacityUnits != 3 || *cc.GlobalSecondaryIndexes["byG"].CapacityUnits != 1 ||
		*cc.GlobalSecondaryIndexes["byH"].CapacityUnits != 1 || *cc.LocalSecondaryIndexes["byL"].CapacityUnits != 3 {
		t.Errorf("indexed put INDEXES: total %v table %v gsi %v lsi %v", capUnits(cc), cc.Table, cc.GlobalSecondaryIndexes, cc.LocalSecondaryIndexes)
	}
	// Changing g (a GSI key): delete + put in byG; y changes byL only (ALL);
	// byH's projection (keys + x) is unchanged: no byH write.
	u, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("range"), Key: map[string]types.AttributeValue{"pk": itS("p"), "sk": itN("1")},
		UpdateExpression: aws.String("SET g = :g, y = :y"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": itS("g2"), ":y": itS("small")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	cc = u.ConsumedCapacity
	if _, ok := cc.GlobalSecondaryIndexes["byH"]; ok || *cc.GlobalSecondaryIndexes["byG"].CapacityUnits != 2 || *cc.LocalSecondaryIndexes["byL"].CapacityUnits != 1 {
		t.Errorf("index key change: gsi %v lsi %v", cc.GlobalSecondaryIndexes, cc.LocalSecondaryIndexes)
	}
	// TOTAL on an indexed write carries only the aggregate.
	u, _ = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("range"), Key: map[string]types.AttributeValue{"pk": itS("p"), "sk": itN("1")},
		UpdateExpression: aws.String("REMOVE h"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if cc = u.ConsumedCapacity; cc.Table != nil || cc.GlobalSecondaryIndexes != nil || capUnits(cc) != 1+1+1 {
		t.Errorf("TOTAL indexed update: %v %+v", capUnits(cc), cc)
	}
}

func TestItemsIndexStatsAndCollectionMetrics(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	put := func(item map[string]types.AttributeValue) *dynamodb.PutItemOutput {
		t.Helper()
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"), Item: item, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := put(map[string]types.AttributeValue{"pk": itS("a"), "sk": itN("1"), "g": itS("x")})
	if m := out.ItemCollectionMetrics; m == nil || m.ItemCollectionKey["pk"].(*types.AttributeValueMemberS).Value != "a" || len(m.SizeEstimateRangeGB) != 2 {
		t.Errorf("ItemCollectionMetrics on an LSI table: %+v", m)
	}
	put(map[string]types.AttributeValue{"pk": itS("a"), "sk": itN("2"), "h": itN("1"), "l": itS("q")})
	put(map[string]types.AttributeValue{"pk": itS("b"), "sk": itN("1")})
	// Hash table: no LSI, no metrics.
	p, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("a")}, ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil || p.ItemCollectionMetrics != nil {
		t.Errorf("metrics on a table without LSI: %+v %v", p.ItemCollectionMetrics, err)
	}

	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("range")})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Table.ItemCount != 3 || *d.Table.TableSizeBytes == 0 {
		t.Errorf("table stats: %d items, %d bytes", *d.Table.ItemCount, *d.Table.TableSizeBytes)
	}
	counts := map[string]int64{}
	for _, g := range d.Table.GlobalSecondaryIndexes {
		counts[*g.IndexName] = *g.ItemCount
	}
	for _, l := range d.Table.LocalSecondaryIndexes {
		counts[*l.IndexName] = *l.ItemCount
	}
	if counts["byG"] != 1 || counts["byH"] != 1 || counts["byL"] != 1 {
		t.Errorf("sparse index counts: %v", counts)
	}
	// Sizes: pk "b" (2+1) + sk 1 (2+2 bytes) = 7, +100 overhead.
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("range"), Key: map[string]types.AttributeValue{"pk": itS("a"), "sk": itN("2")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("range"), Key: map[string]types.AttributeValue{"pk": itS("a"), "sk": itN("1")}}); err != nil {
		t.Fatal(err)
	}
	d, _ = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("range")})
	if *d.Table.ItemCount != 1 || *d.Table.TableSizeBytes != 107 {
		t.Errorf("after deletes: %d items, %d bytes, want 1 and 107", *d.Table.ItemCount, *d.Table.TableSizeBytes)
	}
	for _, g := range d.Table.GlobalSecondaryIndexes {
		if *g.ItemCount != 0 || *g.IndexSizeBytes != 0 {
			t.Errorf("%s after deletes: %d, %d", *g.IndexName, *g.ItemCount, *g.IndexSizeBytes)
		}
	}

}

func TestItemsBackfill(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	for i, z := range []string{"z1", "", "z3"} {
		item := map[string]types.AttributeValue{"pk": itS(fmt.Sprint(i))}
		if z != "" {
			item["z"] = itS(z)
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("hash"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("z"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byZ"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("z"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	d := waitFirstIndexActive(t, c, "hash")
	if n := *d.GlobalSecondaryIndexes[0].ItemCount; n != 2 {
		t.Errorf("backfilled index has %d entries, want 2", n)
	}
	// Writes now maintain it and reject a wrong-typed z.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("9"), "z": itN("1")}})
	itErr(t, err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key z Expected: S Actual: N IndexName: byZ")
}

// itNoThrottle turns refusals off for tests that hammer one key on purpose.
func itNoThrottle() testserver.Option {
	return testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true })
}

func TestItemsConcurrentAdd(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	s := itServer(t, itNoThrottle())
	c := s.Client
	workers, each := 32, 1000
	if testing.Short() {
		each = 50
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("ctr")},
					UpdateExpression: aws.String("ADD #c :one"), ExpressionAttributeNames: map[string]string{"#c": "counter"}, ExpressionAttributeValues: map[string]types.AttributeValue{":one": itN("1")}})
				if err != nil {
					if failed.Add(1) == 1 {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Fatalf("%d updates failed", n)
	}
	g, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("ctr")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.Item["counter"].(*types.AttributeValueMemberN).Value, fmt.Sprint(workers*each); got != want {
		t.Fatalf("counter = %s, want %s", got, want)
	}
}

func TestItemsConditionalRace(t *testing.T) {
	s := itServer(t, itNoThrottle())
	c := s.Client
	for round := range 5 {
		key := fmt.Sprintf("race%d", round)
		var wins, losses atomic.Int64
		var wg sync.WaitGroup
		for w := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("hash"),
					Item:                map[string]types.AttributeValue{"pk": itS(key), "w": itN(fmt.Sprint(w))},
					ConditionExpression: aws.String("attribute_not_exists(pk)")})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &ccf):
					losses.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 || losses.Load() != 31 {
			t.Fatalf("round %d: %d winners, %d losers", round, wins.Load(), losses.Load())
		}
	}
}

func TestItemsSurviveRestart(t *testing.T) {
	s := itServer(t, testserver.WithDataDir(t.TempDir()), testserver.WithEngineOptions(func(o *emulator.Options) { o.Sync = true }))
	c, ctx := s.Client, context.Background()
	for i := range 10 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS(fmt.Sprint(i)), "v": itN(fmt.Sprint(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Restart()
	for i := range 10 {
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS(fmt.Sprint(i))}})
		if err != nil || g.Item == nil {
			t.Fatalf("item %d after restart: %v %v", i, g, err)
		}
	}
	d, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("hash")})
	if *d.Table.ItemCount != 10 {
		t.Errorf("ItemCount after restart = %d", *d.Table.ItemCount)
	}
}

func TestItemsDeleteTableRemovesItems(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("a")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("hash")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}})
	itErr(t, err, "ResourceNotFoundException", "Requested resource not found")
	if _, err := c.CreateTable(ctx, hashTableFor("hash")); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")}})
	if err != nil || g.Item != nil {
		t.Fatalf("re-created table sees old item: %v %v", g.Item, err)
	}
	d, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("hash")})
	if *d.Table.ItemCount != 0 {
		t.Errorf("re-created table ItemCount = %d", *d.Table.ItemCount)
	}
}

func hashTableFor(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
}

// Benchmarks through the HTTP handler with the SDK client: a 1 KB item.

func benchItem(key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": itS(key), "payload": itS(strings.Repeat("p", 1000)), "n": itN("42")}
}

func BenchmarkItemsPutItem(b *testing.B) {
	s := testserver.New(b, itNoThrottle())
	if _, err := s.Client.CreateTable(context.Background(), hashTableFor("bench")); err != nil {
		b.Fatal(err)
	}
	item := benchItem("k")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		item["pk"] = itS(fmt.Sprint(i % 1000))
		if _, err := s.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: item}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkItemsGetItem(b *testing.B) {
	s := testserver.New(b, itNoThrottle())
	if _, err := s.Client.CreateTable(context.Background(), hashTableFor("bench")); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: benchItem("k")}); err != nil {
		b.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": itS("k")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("bench"), Key: key}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkItemsUpdateItem(b *testing.B) {
	s := testserver.New(b, itNoThrottle())
	if _, err := s.Client.CreateTable(context.Background(), hashTableFor("bench")); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: benchItem("k")}); err != nil {
		b.Fatal(err)
	}
	in := &dynamodb.UpdateItemInput{TableName: aws.String("bench"), Key: map[string]types.AttributeValue{"pk": itS("k")},
		UpdateExpression: aws.String("SET n = n + :one"), ConditionExpression: aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": itN("1")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Client.UpdateItem(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// itDump renders an item for failure messages.
func itDump(it map[string]types.AttributeValue) string {
	b, _ := json.Marshal(it)
	return string(b)
}

// TestItemsNumberKeysAreValues: 10, 1E1 and 10.0 name the same item, and
// the stored number comes back in canonical form.
func TestItemsNumberKeysAreValues(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"), Item: map[string]types.AttributeValue{"pk": itS("n"), "sk": itN("10.0"), "v": itS("first")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("range"), Item: map[string]types.AttributeValue{"pk": itS("n"), "sk": itN("1E1"), "v": itS("second")}}); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("range"), Key: map[string]types.AttributeValue{"pk": itS("n"), "sk": itN("10")}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Item["v"].(*types.AttributeValueMemberS).Value != "second" || g.Item["sk"].(*types.AttributeValueMemberN).Value != "10" {
		t.Fatalf("got %s", itDump(g.Item))
	}
	d, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("range")})
	if *d.Table.ItemCount != 1 {
		t.Fatalf("ItemCount = %d, want 1", *d.Table.ItemCount)
	}
}

// TestItemsSizeBoundary: exactly 400 KB (names included) is accepted, one
// byte more is not.
func TestItemsSizeBoundary(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	// "pk"+"a" = 3 bytes, "big" = 3 bytes.
	fits := strings.Repeat("x", 400*1024-6)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("a"), "big": itS(fits)}}); err != nil {
		t.Fatalf("400 KB item refused: %v", err)
	}
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: map[string]types.AttributeValue{"pk": itS("a"), "big": itS(fits + "x")}})
	itErr(t, err, "ValidationException", "Item size has exceeded the maximum allowed size")
	// Growing the stored item past the limit by update.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hash"), Key: map[string]types.AttributeValue{"pk": itS("a")},
		UpdateExpression: aws.String("SET z = :z"), ExpressionAttributeValues: map[string]types.AttributeValue{":z": itBool(true)}})
	itErr(t, err, "ValidationException", "Item size to update has exceeded the maximum allowed size")
}

// waitFirstIndexActive waits until the first GSI of table is ACTIVE: an index
// added by UpdateTable is built in the background, CREATING until every item
// is in. It returns the table's description then.
func waitFirstIndexActive(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if d.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive {
			return d.Table
		}
		if time.Now().After(deadline) {
			t.Fatal("index never became ACTIVE")
		}
	}
}
