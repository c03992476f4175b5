// Command throttling shows ExtendDB's throttle manager from a client's side:
// it creates a table provisioned with 5 write capacity units on a running
// ExtendDB, writes to it (with the SDK's retries off) until a write is
// throttled, and prints the error class and the ThrottlingReasons entry the
// SDK parsed: which limit was hit, on which resource.
//
//	extenddb serve --in-memory &
//	go run ./examples/throttling --endpoint http://localhost:8000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "throttling:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("throttling", flag.ContinueOnError)
	endpoint := fs.String("endpoint", "http://localhost:8000", "ExtendDB `URL`")
	region := fs.String("region", "us-east-1", "`REGION` to sign for")
	table := fs.String("table", "ThrottleDemo", "`NAME` of the 5-WCU table to create (or reuse)")
	// Bounds the loop: a server with throttling off never refuses.
	maxWrites := fs.Int("max-writes", 10000, "give up after `N` writes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(*endpoint),
		Region:       *region,
		// ExtendDB accepts any key; the access key picks the account.
		Credentials: credentials.NewStaticCredentialsProvider("AKIAIOSFODNN7EXAMPLE", "secret", ""),
		// Retries would hide the throttle: the SDK retries these errors.
		RetryMaxAttempts: 1,
	})

	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             table,
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("creating %s: %w", *table, err)
	}
	w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 100 * time.Millisecond })
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: table}, time.Minute); err != nil {
		return fmt.Errorf("waiting for %s: %w", *table, err)
	}

	for i := 1; i <= *maxWrites; i++ {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: table,
			Item:      map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "item-" + strconv.Itoa(i)}},
		})
		if err == nil {
			continue
		}
		class, reasons, ok := throttle(err)
		if !ok {
			return fmt.Errorf("write %d: %w", i, err)
		}
		fmt.Fprintf(out, "write %d throttled: %s\n", i, class)
		for _, r := range reasons {
			fmt.Fprintf(out, "reason: %s\nresource: %s\n", aws.ToString(r.Reason), aws.ToString(r.Resource))
		}
		return nil
	}
	return fmt.Errorf("%d writes and none throttled: is the server running with --throttle=off?", *maxWrites)
}

// throttle returns the class and reasons of one of DynamoDB's three
// throttle errors.
func throttle(err error) (string, []types.ThrottlingReason, bool) {
	var pt *types.ProvisionedThroughputExceededException
	var te *types.ThrottlingException
	var rl *types.RequestLimitExceeded
	switch {
	case errors.As(err, &pt):
		return pt.ErrorCode(), pt.ThrottlingReasons, true
	case errors.As(err, &te):
		return te.ErrorCode(), te.ThrottlingReasons, true
	case errors.As(err, &rl):
		return rl.ErrorCode(), rl.ThrottlingReasons, true
	}
	return "", nil, false
}
