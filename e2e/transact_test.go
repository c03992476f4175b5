package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// TransactWriteItems and TransactGetItems through the real SDK client.

type item = map[string]types.AttributeValue

func txPut(table string, it item) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: it}}
}

func txDel(table string, key item) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(table), Key: key}}
}

func txCheck(table string, key item, cond string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key, ConditionExpression: aws.String(cond)}}
}

func txUpd(table string, key item, upd string, values item) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table), Key: key, UpdateExpression: aws.String(upd), ExpressionAttributeValues: values}}
}

func txGet(table string, key item) types.TransactGetItem {
	return types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: key}}
}

func hk(pk string) item { return item{"pk": itS(pk)} }

func getOne(t *testing.T, c *dynamodb.Client, table string, key item) item {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// canceledCodes returns the reason codes of a TransactionCanceledException.
func canceledCodes(t *testing.T, err error) (*types.TransactionCanceledException, []string) {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
	}
	return tce, codes
}

func TestTransactWriteEveryAction(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	for _, pk := range []string{"upd", "del", "chk"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item{"pk": itS(pk), "n": itN("1")}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			txPut("hash", item{"pk": itS("new"), "v": itS("x")}),
			txUpd("hash", hk("upd"), "SET n = n + :one", item{":one": itN("1")}),
			txDel("hash", hk("del")),
			txCheck("hash", hk("chk"), "attribute_exists(pk)"),
			txPut("range", item{"pk": itS("p"), "sk": itN("1"), "l": itS("lsi")}),
		},
		ReturnConsumedCapacity:      types.ReturnConsumedCapacityTotal,
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := getOne(t, c, "hash", hk("new")); itDump(got) != itDump(item{"pk": itS("new"), "v": itS("x")}) {
		t.Errorf("put: %s", itDump(got))
	}
	if got := getOne(t, c, "hash", hk("upd")); itDump(got) != itDump(item{"pk": itS("upd"), "n": itN("2")}) {
		t.Errorf("update: %s", itDump(got))
	}
	if got := getOne(t, c, "hash", hk("del")); got != nil {
		t.Errorf("delete left %s", itDump(got))
	}
	if got := getOne(t, c, "hash", hk("chk")); itDump(got) != itDump(item{"pk": itS("chk"), "n": itN("1")}) {
		t.Errorf("condition check changed the item: %s", itDump(got))
	}
	// Four 1-KB actions on hash at 2 WCU each; one put on range costs 2
	// for the table and 2 for its LSI entry.
	want := map[string]float64{"hash": 8, "range": 4}
	if len(out.ConsumedCapacity) != 2 {
		t.Fatalf("ConsumedCapacity %+v", out.ConsumedCapacity)
	}
	for i, name := range []string{"hash", "range"} {
		cc := out.ConsumedCapacity[i]
		if aws.ToString(cc.TableName) != name || aws.ToFloat64(cc.CapacityUnits) != want[name] || aws.ToFloat64(cc.WriteCapacityUnits) != want[name] || cc.ReadCapacityUnits != nil {
			t.Errorf("ConsumedCapacity[%d] = %s %v/%v/%v, want %s %v", i, aws.ToString(cc.TableName), aws.ToFloat64(cc.CapacityUnits), aws.ToFloat64(cc.WriteCapacityUnits), cc.ReadCapacityUnits, name, want[name])
		}
	}
	// Only the table with a local secondary index reports its collection.
	if m := out.ItemCollectionMetrics; len(m) != 1 || len(m["range"]) != 1 || itDump(m["range"][0].ItemCollectionKey) != itDump(item{"pk": itS("p")}) {
		t.Errorf("ItemCollectionMetrics %+v", m)
	}
}

func TestTransactWriteCapacityIndexes(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			txPut("range", item{"pk": itS("p"), "sk": itN("1"), "g": itS("g"), "l": itS("l")}),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
	})
	if err != nil {
		t.Fatal(err)
	}
	cc := out.ConsumedCapacity[0]
	if aws.ToFloat64(cc.CapacityUnits) != 6 || aws.ToFloat64(cc.Table.CapacityUnits) != 2 || aws.ToFloat64(cc.Table.WriteCapacityUnits) != 2 ||
		aws.ToFloat64(cc.GlobalSecondaryIndexes["byG"].CapacityUnits) != 2 || aws.ToFloat64(cc.LocalSecondaryIndexes["byL"].WriteCapacityUnits) != 2 {
		t.Errorf("INDEXES capacity %+v table %+v gsi %+v lsi %+v", cc, cc.Table, cc.GlobalSecondaryIndexes, cc.LocalSecondaryIndexes)
	}
}

func TestTransactWriteCancellation(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item{"pk": itS("a"), "n": itN("1")}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		txPut("hash", item{"pk": itS("b")}),
		{Put: &types.Put{TableName: aws.String("hash"), Item: item{"pk": itS("a"), "n": itN("9")}, ConditionExpression: aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("hash"), Key: hk("c"), ConditionExpression: aws.String("attribute_exists(pk)")}},
		txUpd("hash", hk("d"), "SET n = :v", item{":v": itN("1")}),
	}})
	tce, codes := canceledCodes(t, err)
	if strings.Join(codes, ",") != "None,ConditionalCheckFailed,ConditionalCheckFailed,None" {
		t.Errorf("codes %v", codes)
	}
	if aws.ToString(tce.Message) != "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, ConditionalCheckFailed, None]" {
		t.Errorf("message %q", aws.ToString(tce.Message))
	}
	if r := tce.CancellationReasons[1]; aws.ToString(r.Message) != "The conditional request failed" || itDump(r.Item) != itDump(item{"pk": itS("a"), "n": itN("1")}) {
		t.Errorf("reason 1 %q %s", aws.ToString(r.Message), itDump(r.Item))
	}
	// No ALL_OLD, and no old item: no Item either way.
	if r := tce.CancellationReasons[2]; r.Item != nil || r.Message == nil {
		t.Errorf("reason 2 %+v", r)
	}
	for _, pk := range []string{"b", "d"} {
		if got := getOne(t, c, "hash", hk(pk)); got != nil {
			t.Errorf("cancelled transaction wrote %s", itDump(got))
		}
	}
	if got := getOne(t, c, "hash", hk("a")); itDump(got) != itDump(item{"pk": itS("a"), "n": itN("1")}) {
		t.Errorf("cancelled transaction changed a: %s", itDump(got))
	}

	// Failures found while applying an action (here an update on the wrong
	// type) are a ValidationError reason.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item{"pk": itS("s"), "n": itS("text")}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		txUpd("hash", hk("s"), "SET n = n + :one", item{":one": itN("1")}),
		txPut("hash", item{"pk": itS("t")}),
	}})
	tce, codes = canceledCodes(t, err)
	if strings.Join(codes, ",") != "ValidationError,None" || aws.ToString(tce.CancellationReasons[0].Message) != "An operand in the update expression has an incorrect data type" {
		t.Errorf("codes %v, message %q", codes, aws.ToString(tce.CancellationReasons[0].Message))
	}
}

// TestTransactCancellationBody: the raw TransactionCanceledException body,
// byte for byte (Message with a capital M, CancellationReasons in request
// order, Item only where ALL_OLD asked for it).
func TestTransactCancellationBody(t *testing.T) {
	s := itServer(t)
	rt := &recordingTransport{}
	cfg := s.AWSConfig("us-east-1", testserver.DefaultAccessKeyID)
	cfg.HTTPClient = &http.Client{Transport: rt}
	c, ctx := dynamodb.NewFromConfig(cfg), context.Background()
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: item{"pk": itS("a"), "n": itN("1")}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		txPut("hash", item{"pk": itS("b")}),
		{Update: &types.Update{TableName: aws.String("hash"), Key: hk("a"), UpdateExpression: aws.String("SET n = :two"),
			ConditionExpression: aws.String("n = :two"), ExpressionAttributeValues: item{":two": itN("2")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{Delete: &types.Delete{TableName: aws.String("hash"), Key: hk("z"), ConditionExpression: aws.String("attribute_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
	}})
	canceledCodes(t, err)
	golden(t, "transact/cancel.json", rt.body)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.TrimSuffix(string(want), "\n") {
		t.Errorf("body\n%s\nwant (%s)\n%s", got, path, want)
	}
}

func TestTransactWriteValidation(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	many := func(n int) []types.TransactWriteItem {
		out := make([]types.TransactWriteItem, n)
		for i := range out {
			out[i] = txPut("hash", item{"pk": itS(strconv.Itoa(i))})
		}
		return out
	}
	cases := []struct {
		name      string
		in        *dynamodb.TransactWriteItemsInput
		code, msg string
	}{
		{"empty list", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{}, ReturnConsumedCapacity: "hi"}, "ValidationException",
			"2 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"101 actions", &dynamodb.TransactWriteItemsInput{TransactItems: many(101)}, "ValidationException",
			"1 validation error detected: Value '[101 items]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100"},
		{"bad table name", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut("hash", hk("a")), txUpd("bad!name", hk("a"), "SET a = :a", item{":a": itS("x")})}}, "ValidationException",
			"1 validation error detected: Value 'bad!name' at 'transactItems.2.member.update.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"no operation", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{}}}, "ValidationException",
			"Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"},
		{"two operations", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
			Put: &types.Put{TableName: aws.String("hash"), Item: hk("a")}, Delete: &types.Delete{TableName: aws.String("hash"), Key: hk("a")}}}}, "ValidationException",
			"TransactItems can only contain one of Check, Put, Update or Delete"},
		{"two actions on one item", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut("hash", item{"pk": itS("a"), "x": itN("1")}), txCheck("hash", hk("a"), "attribute_exists(pk)")}}, "ValidationException",
			"Transaction request cannot include multiple operations on one item"},
		{"missing table before duplicates", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txDel("nope", hk("a")), txPut("nope", hk("a"))}}, "ResourceNotFoundException", "Requested resource not found"},
		{"empty condition", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String("hash"), Key: hk("a"), ConditionExpression: aws.String("")}}}}, "ValidationException",
			"Invalid ConditionExpression: The expression can not be empty;"},
		{"syntax error", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txCheck("hash", hk("a"), "attribute_not_exists(")}}, "ValidationException",
			`Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("`},
		{"unused value on the second action", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut("hash", hk("first")),
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("hash"), Key: hk("a"), ConditionExpression: aws.String("attribute_not_exists(pk)"), ExpressionAttributeValues: item{":v": itS("x")}}}}},
			"ValidationException", "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"},
		{"empty key value", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{txDel("hash", hk(""))}}, "ValidationException",
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"empty item key", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{txPut("hash", hk(""))}}, "ValidationException",
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"update of a key attribute", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txUpd("hash", hk("a"), "SET pk = :v", item{":v": itS("b")})}}, "ValidationException",
			"One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"item too large", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut("hash", item{"pk": itS("big"), "v": itS(strings.Repeat("x", 400*1024))})}}, "ValidationException",
			"Item size has exceeded the maximum allowed size"},
		{"token too long", &dynamodb.TransactWriteItemsInput{TransactItems: many(1), ClientRequestToken: aws.String(strings.Repeat("t", 37))}, "ValidationException",
			"1 validation error detected: Value '" + strings.Repeat("t", 37) + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.TransactWriteItems(ctx, tc.in)
			itErr(t, err, tc.code, tc.msg)
		})
	}
	if got := getOne(t, c, "hash", hk("first")); got != nil {
		t.Errorf("a request that failed validation wrote %s", itDump(got))
	}

	// Keys that do not match the schema cancel with a ValidationError reason.
	reasonCases := []struct {
		name string
		w    types.TransactWriteItem
		msg  string
	}{
		{"put key type", txPut("hash", item{"pk": itN("5")}), "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"put missing key", txPut("hash", item{"x": itN("5")}), "One or more parameter values were invalid: Missing the key pk in the item"},
		{"delete key type", txDel("hash", item{"pk": itN("5")}), "The provided key element does not match the schema"},
		{"check extra key", txCheck("hash", item{"pk": itS("a"), "x": itS("b")}, "attribute_exists(pk)"), "The provided key element does not match the schema"},
		{"update key list", txUpd("hash", item{"pk": &types.AttributeValueMemberL{Value: []types.AttributeValue{itS("x")}}}, "SET a = :v", item{":v": itS("x")}), "The provided key element does not match the schema"},
		{"index key type", txPut("range", item{"pk": itS("a"), "sk": itN("1"), "g": itN("1")}), "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG"},
	}
	for _, tc := range reasonCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{txPut("hash", hk("ok")), tc.w}})
			tce, codes := canceledCodes(t, err)
			if strings.Join(codes, ",") != "None,ValidationError" || aws.ToString(tce.CancellationReasons[1].Message) != tc.msg {
				t.Errorf("codes %v, message %q, want %q", codes, aws.ToString(tce.CancellationReasons[1].Message), tc.msg)
			}
		})
	}
	if got := getOne(t, c, "hash", hk("ok")); got != nil {
		t.Errorf("a cancelled transaction wrote %s", itDump(got))
	}
}

// rawCall posts body to op unsigned (the SDK refuses to send requests
// that miss required members) and returns the error's __type and message.
func rawCall(t *testing.T, s *testserver.Server, op, body string) (string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(body))
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
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Message == "" {
		e.Message = e.Upper
	}
	return e.Type[strings.IndexByte(e.Type, '#')+1:], e.Message
}

// TestTransactMissingMembers: members the SDKs require, sent missing.
func TestTransactMissingMembers(t *testing.T) {
	s := itServer(t)
	cases := []struct{ op, body, msg string }{
		{"TransactWriteItems", `{}`, "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{"TransactWriteItems", `{"ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi"}`,
			"3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]; " +
				"Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{"TransactWriteItems", `{"TransactItems":[{"Put":{}},{"Update":{"TableName":"bad!name","Key":{"pk":{"S":"a"}}}}]}`,
			"4 validation errors detected: Value null at 'transactItems.1.member.put.item' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'transactItems.1.member.put.tableName' failed to satisfy constraint: Member must not be null; " +
				"Value 'bad!name' at 'transactItems.2.member.update.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value null at 'transactItems.2.member.update.updateExpression' failed to satisfy constraint: Member must not be null"},
		{"TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"hash"},"Delete":{"TableName":"hash"}}]}`,
			"2 validation errors detected: Value null at 'transactItems.1.member.delete.key' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'transactItems.1.member.put.item' failed to satisfy constraint: Member must not be null"},
		{"TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"ALL"}}]}`,
			"2 validation errors detected: Value null at 'transactItems.1.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null; " +
				"Value 'ALL' at 'transactItems.1.member.conditionCheck.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"},
		{"TransactGetItems", `{"TransactItems":[{}]}`, "1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null"},
		{"TransactGetItems", `{"TransactItems":[{"Get":{}}]}`,
			"2 validation errors detected: Value null at 'transactItems.1.member.get.key' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'transactItems.1.member.get.tableName' failed to satisfy constraint: Member must not be null"},
	}
	for _, tc := range cases {
		code, msg := rawCall(t, s, tc.op, tc.body)
		if code != "ValidationException" || msg != tc.msg {
			t.Errorf("%s %s:\ngot  %s: %s\nwant ValidationException: %s", tc.op, tc.body, code, msg, tc.msg)
		}
	}
}

func TestTransactIdempotency(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	in := func(token, add string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{
			ClientRequestToken:     aws.String(token),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			TransactItems: []types.TransactWriteItem{
				txUpd("hash", hk("ctr"), "ADD n :d", item{":d": itN(add)}),
				txPut("hash", item{"pk": itS("other")}),
			},
		}
	}
	first, err := c.TransactWriteItems(ctx, in("tok-1", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if cc := first.ConsumedCapacity[0]; aws.ToFloat64(cc.WriteCapacityUnits) != 4 {
		t.Errorf("first run: %+v", cc)
	}
	replay, err := c.TransactWriteItems(ctx, in("tok-1", "1"))
	if err != nil {
		t.Fatal(err)
	}
	// The replay writes nothing: it reports reads, one unit per action.
	if cc := replay.ConsumedCapacity[0]; aws.ToFloat64(cc.CapacityUnits) != 2 || aws.ToFloat64(cc.ReadCapacityUnits) != 2 || cc.WriteCapacityUnits != nil {
		t.Errorf("replay: %+v", cc)
	}
	if got := getOne(t, c, "hash", hk("ctr")); itDump(got) != itDump(item{"pk": itS("ctr"), "n": itN("1")}) {
		t.Errorf("after a replay: %s", itDump(got))
	}
	_, err = c.TransactWriteItems(ctx, in("tok-1", "5"))
	itErr(t, err, "IdempotentParameterMismatchException", "Request has the same client token as a previous request with different parameters")
	// Another token is another transaction; a token in another Region is
	// another namespace's.
	if _, err := c.TransactWriteItems(ctx, in("tok-2", "1")); err != nil {
		t.Fatal(err)
	}
	if got := getOne(t, c, "hash", hk("ctr")); itDump(got) != itDump(item{"pk": itS("ctr"), "n": itN("2")}) {
		t.Errorf("after a second token: %s", itDump(got))
	}
	// A cancelled transaction does not hold its token: the retry runs.
	cond := in("tok-3", "1")
	cond.TransactItems[1].Put.ConditionExpression = aws.String("attribute_not_exists(pk)")
	if _, err := c.TransactWriteItems(ctx, cond); err == nil {
		t.Fatal("want a cancellation")
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hash"), Key: hk("other")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TransactWriteItems(ctx, cond); err != nil {
		t.Fatalf("retry after a cancellation: %v", err)
	}
}

func TestTransactGetItems(t *testing.T) {
	s := itServer(t)
	c, ctx := s.Client, context.Background()
	big := strings.Repeat("x", 5000)
	for _, it := range []item{{"pk": itS("a"), "n": itN("1"), "m": &types.AttributeValueMemberM{Value: item{"x": itS("y"), "z": itS("w")}}}, {"pk": itS("big"), "v": itS(big)}} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hash"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{
		TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String("hash"), Key: hk("a"), ProjectionExpression: aws.String("#m.x, n"), ExpressionAttributeNames: map[string]string{"#m": "m"}}},
			txGet("hash", hk("missing")),
			txGet("hash", hk("big")),
			txGet("range", item{"pk": itS("a"), "sk": itN("1")}),
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 4 {
		t.Fatalf("%d responses", len(out.Responses))
	}
	if got := itDump(out.Responses[0].Item); got != itDump(item{"n": itN("1"), "m": &types.AttributeValueMemberM{Value: item{"x": itS("y")}}}) {
		t.Errorf("projected: %s", got)
	}
	if out.Responses[1].Item != nil || out.Responses[3].Item != nil {
		t.Errorf("missing items: %+v %+v", out.Responses[1], out.Responses[3])
	}
	if v, ok := out.Responses[2].Item["v"].(*types.AttributeValueMemberS); !ok || v.Value != big {
		t.Errorf("big item not returned whole")
	}
	// hash: 2 + 2 + 2×2 (the 5 KB item is two 4 KB units); range: 2.
	for i, want := range []struct {
		name  string
		units float64
	}{{"hash", 8}, {"range", 2}} {
		cc := out.ConsumedCapacity[i]
		if aws.ToString(cc.TableName) != want.name || aws.ToFloat64(cc.CapacityUnits) != want.units || aws.ToFloat64(cc.ReadCapacityUnits) != want.units || cc.WriteCapacityUnits != nil {
			t.Errorf("ConsumedCapacity[%d] %s %v/%v", i, aws.ToString(cc.TableName), aws.ToFloat64(cc.CapacityUnits), aws.ToFloat64(cc.ReadCapacityUnits))
		}
	}

	cases := []struct {
		name      string
		items     []types.TransactGetItem
		code, msg string
	}{
		{"empty", []types.TransactGetItem{}, "ValidationException",
			"1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"bad name second", []types.TransactGetItem{txGet("hash", hk("a")), txGet("bad!name", hk("a"))}, "ValidationException",
			"1 validation error detected: Value 'bad!name' at 'transactItems.2.member.get.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"missing table", []types.TransactGetItem{txGet("nope", hk("a"))}, "ResourceNotFoundException", "Requested resource not found"},
		{"projection syntax", []types.TransactGetItem{{Get: &types.Get{TableName: aws.String("hash"), Key: hk("a"), ProjectionExpression: aws.String("!!!")}}}, "ValidationException",
			`Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"`},
		{"unused name", []types.TransactGetItem{{Get: &types.Get{TableName: aws.String("hash"), Key: hk("a"), ProjectionExpression: aws.String("n"), ExpressionAttributeNames: map[string]string{"#x": "x"}}}}, "ValidationException",
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"},
		{"empty key", []types.TransactGetItem{txGet("hash", hk(""))}, "ValidationException",
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: tc.items})
			itErr(t, err, tc.code, tc.msg)
		})
	}
	_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet("hash", hk("a")), txGet("hash", item{})}})
	tce, codes := canceledCodes(t, err)
	if strings.Join(codes, ",") != "None,ValidationError" || aws.ToString(tce.CancellationReasons[1].Message) != "The provided key element does not match the schema" {
		t.Errorf("codes %v %q", codes, aws.ToString(tce.CancellationReasons[1].Message))
	}
}

// throttledRead reports whether err is a TransactGetItems the throttle
// manager refused (the readers run flat out and may meet it).
func throttledRead(err error) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	for _, r := range tce.CancellationReasons {
		if c := aws.ToString(r.Code); c == "ThrottlingError" || c == "ProvisionedThroughputExceeded" {
			return true
		}
	}
	return false
}

// TestTransactConcurrentTransfers: 16 clients make random transfers
// between 100 accounts while readers check, with TransactGetItems, that no
// transfer is ever seen in part: all 100 balances always sum to the
// total, and the two accounts of each twin pair, which some transfers
// move between while counting on both, always show the same count.
func TestTransactConcurrentTransfers(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	transfers := 10000
	if testing.Short() {
		transfers = 2000
	}
	s := testserver.New(t)
	bankTransfers(t, []*dynamodb.Client{s.Client}, transfers)
}

// bankTransfers runs the bank of TestTransactConcurrentTransfers with its
// writers and readers spread over clients (one server each, or several
// servers of one shared store), the table created through the first.
func bankTransfers(t *testing.T, clients []*dynamodb.Client, transfers int) {
	t.Helper()
	const (
		accounts = 100
		initial  = 100
		writers  = 16
	)
	c, ctx := clients[0], context.Background()
	if _, err := c.CreateTable(ctx, hashTableFor("bank")); err != nil {
		t.Fatal(err)
	}
	acct := func(i int) item { return item{"pk": itS(fmt.Sprintf("acct-%03d", i))} }
	for i := range accounts {
		it := acct(i)
		it["balance"], it["tw"] = itN(strconv.Itoa(initial)), itN("0")
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bank"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}

	var next, done, conflicts, insufficient, throttled atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	fail := func(err error) {
		select {
		case errc <- err:
		default:
		}
		stop.Store(true)
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w%len(clients)]
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for !stop.Load() && next.Add(1) <= int64(transfers) {
				var from, to int
				twin := r.IntN(2) == 0
				if twin {
					from = 2 * r.IntN(accounts/2)
					to = from + 1
					if r.IntN(2) == 0 {
						from, to = to, from
					}
				} else {
					from, to = r.IntN(accounts), r.IntN(accounts-1)
					if to >= from {
						to++
					}
				}
				amt := strconv.Itoa(1 + r.IntN(30))
				debit, credit := "SET balance = balance - :a", "SET balance = balance + :a"
				if twin {
					debit, credit = debit+", tw = tw + :one", credit+", tw = tw + :one"
				}
				vals := item{":a": itN(amt)}
				if twin {
					vals[":one"] = itN("1")
				}
				in := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String("bank"), Key: acct(from), UpdateExpression: aws.String(debit),
						ConditionExpression: aws.String("balance >= :a"), ExpressionAttributeValues: vals}},
					{Update: &types.Update{TableName: aws.String("bank"), Key: acct(to), UpdateExpression: aws.String(credit), ExpressionAttributeValues: vals}},
				}}
				for {
					_, err := c.TransactWriteItems(ctx, in)
					if err == nil {
						done.Add(1)
						break
					}
					var tce *types.TransactionCanceledException
					var tcx *types.TransactionConflictException
					if errors.As(err, &tce) {
						codes := make([]string, len(tce.CancellationReasons))
						for i, r := range tce.CancellationReasons {
							codes[i] = aws.ToString(r.Code)
						}
						if codes[0] == "ConditionalCheckFailed" && codes[1] == "None" {
							insufficient.Add(1)
							break
						}
						if strings.Contains(strings.Join(codes, ","), "TransactionConflict") {
							conflicts.Add(1)
							continue
						}
						if strings.Contains(strings.Join(codes, ","), "Throttl") || strings.Contains(strings.Join(codes, ","), "ProvisionedThroughputExceeded") {
							throttled.Add(1)
							time.Sleep(10 * time.Millisecond)
							continue
						}
					}
					if errors.As(err, &tcx) {
						conflicts.Add(1)
						continue
					}
					fail(fmt.Errorf("transfer %d→%d: %w", from, to, err))
					return
				}
			}
		}()
	}

	var reads atomic.Int64
	var rwg sync.WaitGroup
	readersDone := make(chan struct{})
	// One reader checks the whole bank, two check twin pairs.
	rwg.Add(3)
	go func() {
		defer rwg.Done()
		c := clients[len(clients)-1]
		gets := make([]types.TransactGetItem, accounts)
		for i := range gets {
			gets[i] = txGet("bank", acct(i))
		}
		for {
			select {
			case <-readersDone:
				return
			default:
			}
			out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
			if throttledRead(err) {
				throttled.Add(1)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if err != nil {
				fail(err)
				return
			}
			sum := 0
			for i, r := range out.Responses {
				b, _ := strconv.Atoi(r.Item["balance"].(*types.AttributeValueMemberN).Value)
				if b < 0 {
					fail(fmt.Errorf("account %d read at %d", i, b))
				}
				sum += b
			}
			if sum != accounts*initial {
				fail(fmt.Errorf("a TransactGetItems saw a sum of %d, want %d: a partial transfer", sum, accounts*initial))
				return
			}
			reads.Add(1)
		}
	}()
	for g := range 2 {
		go func() {
			defer rwg.Done()
			c := clients[g%len(clients)]
			r := rand.New(rand.NewPCG(uint64(100+g), 9))
			for {
				select {
				case <-readersDone:
					return
				default:
				}
				a := 2 * r.IntN(accounts/2)
				out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{txGet("bank", acct(a)), txGet("bank", acct(a+1))}})
				if throttledRead(err) {
					throttled.Add(1)
					time.Sleep(10 * time.Millisecond)
					continue
				}
				if err != nil {
					fail(err)
					return
				}
				x, y := out.Responses[0].Item["tw"], out.Responses[1].Item["tw"]
				if itDump(item{"tw": x}) != itDump(item{"tw": y}) {
					fail(fmt.Errorf("twins %d/%d read with counts %s and %s: a partial transfer", a, a+1, itDump(item{"tw": x}), itDump(item{"tw": y})))
					return
				}
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	close(readersDone)
	rwg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	t.Logf("%d transfers committed, %d refused for funds, %d conflicts and %d throttles retried, %d consistent reads", done.Load(), insufficient.Load(), conflicts.Load(), throttled.Load(), reads.Load())
	if done.Load()+insufficient.Load() != int64(transfers) {
		t.Errorf("%d transfers ended, want %d", done.Load()+insufficient.Load(), transfers)
	}
	sum := 0
	for i := range accounts {
		b, _ := strconv.Atoi(getOne(t, c, "bank", acct(i))["balance"].(*types.AttributeValueMemberN).Value)
		if b < 0 {
			t.Errorf("account %d ends at %d", i, b)
		}
		sum += b
	}
	if sum != accounts*initial {
		t.Errorf("balances sum to %d, want %d", sum, accounts*initial)
	}
}

// Benchmarks through the HTTP handler and the SDK client: a 4-action
// TransactWriteItems and a 4-item TransactGetItems, uncontended (each
// operation on its own items) and with 16 clients contending for the same
// 8 items. Throttling is off: the benchmarks measure the transaction path,
// and hot items would otherwise be refused after their first second.

func txBenchServer(b *testing.B) *testserver.Server {
	s := testserver.New(b, testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true }))
	if _, err := s.Client.CreateTable(context.Background(), hashTableFor("bench")); err != nil {
		b.Fatal(err)
	}
	return s
}

func benchWrite4(keys func() [4]string) *dynamodb.TransactWriteItemsInput {
	k := keys()
	return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		txPut("bench", item{"pk": itS(k[0]), "v": itS("x")}),
		txUpd("bench", hk(k[1]), "ADD n :one", item{":one": itN("1")}),
		txDel("bench", hk(k[2])),
		txCheck("bench", hk(k[3]), "attribute_not_exists(z)"),
	}}
}

func benchGet4(keys func() [4]string) *dynamodb.TransactGetItemsInput {
	k := keys()
	in := &dynamodb.TransactGetItemsInput{}
	for _, x := range k {
		in.TransactItems = append(in.TransactItems, txGet("bench", hk(x)))
	}
	return in
}

// benchTx runs op from clients goroutines (1: uncontended, sequential) and
// reports the share of operations cancelled by a conflict.
func benchTx(b *testing.B, clients int, contended bool, op func(*dynamodb.Client, func() [4]string) error) {
	s := txBenchServer(b)
	for i := range 8 {
		if _, err := s.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: item{"pk": itS("hot" + strconv.Itoa(i)), "v": itS("x")}}); err != nil {
			b.Fatal(err)
		}
	}
	var seq, conflicts atomic.Int64
	keysFor := func(r *rand.Rand) func() [4]string {
		return func() [4]string {
			var k [4]string
			if contended {
				p := r.Perm(8)
				for i := range k {
					k[i] = "hot" + strconv.Itoa(p[i])
				}
				return k
			}
			n := seq.Add(1)
			for i := range k {
				k[i] = fmt.Sprintf("k%d-%d", n%1000, i)
			}
			return k
		}
	}
	run := func(r *rand.Rand) {
		err := op(s.Client, keysFor(r))
		var tce *types.TransactionCanceledException
		switch {
		case errors.As(err, &tce):
			conflicts.Add(1)
		case err != nil:
			b.Error(err)
		}
	}
	b.ReportAllocs()
	if clients == 1 {
		r := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			run(r)
		}
	} else {
		b.SetParallelism((clients + 1) / 2)
		var id atomic.Uint64
		b.RunParallel(func(pb *testing.PB) {
			r := rand.New(rand.NewPCG(id.Add(1), 2))
			for pb.Next() {
				run(r)
			}
		})
	}
	b.ReportMetric(float64(conflicts.Load())/float64(b.N), "cancelled/op")
}

func writeOp(c *dynamodb.Client, keys func() [4]string) error {
	_, err := c.TransactWriteItems(context.Background(), benchWrite4(keys))
	return err
}

func getOp(c *dynamodb.Client, keys func() [4]string) error {
	_, err := c.TransactGetItems(context.Background(), benchGet4(keys))
	return err
}

func BenchmarkTransactWrite4(b *testing.B) { benchTx(b, 1, false, writeOp) }
func BenchmarkTransactWrite4Contended16(b *testing.B) {
	benchTx(b, 16, true, writeOp)
}
func BenchmarkTransactGet4(b *testing.B)            { benchTx(b, 1, false, getOp) }
func BenchmarkTransactGet4Contended16(b *testing.B) { benchTx(b, 16, true, getOp) }
