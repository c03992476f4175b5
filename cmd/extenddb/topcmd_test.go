package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestTopCommand(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory")
	defer func() { stop(); <-done }()
	endpoint := "http://" + addr
	cl := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	ctx := context.Background()
	if _, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Hot"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	top := func(args ...string) (int, string, string) {
		return run(t, append([]string{"top"}, append(args, "--endpoint", endpoint)...)...)
	}
	code, out, errOut := top("Hot", "--once")
	if code != 0 || !strings.Contains(out, "table Hot in account 000000000000, Region us-east-1\n") || !strings.Contains(out, "Contributor Insights is DISABLED") {
		t.Fatalf("off: %d\n%s%s", code, out, errOut)
	}
	if _, err := cl.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("Hot"), ContributorInsightsAction: "ENABLE"}); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"cold", "hot", "hot", "hot"} {
		if _, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Hot"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: "7"}}}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = top("Hot", "--once", "--top", "5")
	for _, want := range []string{
		"Contributor Insights ENABLED (ACCESSED_AND_THROTTLED_KEYS), last 1h0m0s\n",
		"most accessed partition keys (capacity units)\n   1.        3.0  pk=\"hot\"\n   2.        1.0  pk=\"cold\"\n",
		"most accessed items (capacity units)\n   1.        3.0  pk=\"hot\" sk=7\n",
		"most throttled partition keys (throttle events)\n  (none)\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("on: %d; want %q in\n%s%s", code, want, out, errOut)
		}
	}

	// Live: redrawn in place until interrupted.
	buf := &syncBuffer{}
	c := &cli{stdout: buf, stderr: buf, getenv: env("HOME", t.TempDir()), notify: context.WithCancel}
	lctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() { exited <- runTopCmd(lctx, c, []string{"Hot", "--interval", "10ms", "--endpoint", endpoint}) }()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(buf.String(), "\x1b[H\x1b[2J") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-exited; code != 0 || strings.Count(buf.String(), "\x1b[H\x1b[2J") < 2 || !strings.Contains(buf.String(), `pk="hot"`) {
		t.Fatalf("live: %d\n%q", code, buf.String())
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--once"}, 2, "give the TABLE"},
		{[]string{"Nope", "--once"}, 1, "Table: Nope not found in account 000000000000, Region us-east-1"},
		{[]string{"Hot", "--once", "--index", "Nope"}, 1, "Index: Nope not found for table: Hot"},
		{[]string{"Hot", "--once", "--region", "eu-west-1"}, 1, "Region eu-west-1"},
		{[]string{"Hot", "--top", "-1"}, 2, "--top must be"},
	} {
		code, _, errOut := top(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("top %v: %d %q; want %d %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}
