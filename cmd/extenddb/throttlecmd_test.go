package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestThrottleCommand(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory")
	defer func() { stop(); <-done }()
	endpoint := "http://" + addr
	cl := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	ctx := context.Background()
	if _, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             aws.String("Steered"),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	}); err != nil {
		t.Fatal(err)
	}
	put := func() error {
		_, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Steered"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
		return err
	}
	throttleCmd := func(args ...string) (int, string, string) {
		return run(t, append([]string{"throttle"}, append(args, "--endpoint", endpoint)...)...)
	}
	code, out, errOut := throttleCmd("show", "--table", "Steered")
	if code != 0 || !strings.Contains(out, "table Steered in account 000000000000, Region us-east-1\n") || !strings.Contains(out, "write: rate 5/s, balance 5") {
		t.Fatalf("show: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = throttleCmd("drain", "--table", "Steered", "--direction", "write"); code != 0 || !strings.Contains(out, "debt 4.99") && !strings.Contains(out, "debt 5.00") {
		t.Fatalf("drain: %d\n%s%s", code, out, errOut)
	}
	var pte *types.ProvisionedThroughputExceededException
	if err := put(); !errors.As(err, &pte) {
		t.Fatalf("write after drain: %v", err)
	}
	// A pin right after a drain keeps the debt, counted at the pinned
	// rate, and says so.
	if code, out, _ = throttleCmd("pin", "--table", "Steered", "--direction", "write", "--rate", "1"); code != 0 ||
		!strings.Contains(out, "write requests are refused for about 1.0 s more, until refill at 1/s repays the debt (pin keeps a drain's debt") ||
		strings.Contains(out, "read requests are refused") {
		t.Fatalf("pin after drain: %d\n%s", code, out)
	}
	if code, _, errOut = throttleCmd("reset", "--table", "Steered"); code != 0 {
		t.Fatalf("reset: %s", errOut)
	}
	if err := put(); err != nil {
		t.Fatalf("write after reset: %v", err)
	}
	if code, out, _ = throttleCmd("pin", "--table", "Steered", "--rate", "2500"); code != 0 || !strings.Contains(out, "write: rate 2500/s (pinned)") {
		t.Fatalf("pin: %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"show", "--table", "Nope"}, 1, "404 Not Found: Requested resource not found: Table: Nope not found in account 000000000000, Region us-east-1"},
		{[]string{"show", "--table", "Steered", "--region", "eu-west-1"}, 1, "not found in account 000000000000, Region eu-west-1"},
		{[]string{"show", "--table", "Steered", "--index", "ByX"}, 1, "404 Not Found: Requested resource not found: Index: ByX is not a global secondary index of table Steered"},
		{[]string{"show"}, 2, "--table is required"},
		{[]string{"boost", "--table", "Steered"}, 2, "give an ACTION"},
		{[]string{"pin", "--table", "Steered"}, 2, "pin needs --rate"},
	} {
		code, _, errOut := throttleCmd(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d %q; want %d %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}
