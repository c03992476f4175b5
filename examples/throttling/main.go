// Command throttling shows ExtendDB's throttle manager from a client's side,
// with the SDK's retries off, printing the error class and the
// ThrottlingReasons entry the SDK parsed (which limit was hit, on which
// resource) for two scenarios on a running ExtendDB:
//
//   - table: a table provisioned with 5 write capacity units, written to
//     until a write is throttled;
//   - gsi: GSI back-pressure. A table with plenty of capacity whose global
//     secondary index has 1 write capacity unit: writes of items the index
//     holds are refused once the index is out of capacity, naming the
//     index's ARN, while a write of an item the (sparse) index does not
//     hold is still served.
//
// Run it against a server:
//
//	extenddb serve --in-memory &
//	go run ./examples/throttling --endpoint http://localhost:8000 [--scenario table|gsi|all]
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
	table := fs.String("table", "ThrottleDemo", "`NAME` of the 5-WCU table to create (or reuse); the gsi scenario's is NAME-gsi")
	scenario := fs.String("scenario", "all", "`WHICH` scenario to run: table, gsi or all")
	// Bounds the loop: a server with throttling off never refuses.
	maxWrites := fs.Int("max-writes", 10000, "give up after `N` writes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scenario != "table" && *scenario != "gsi" && *scenario != "all" {
		return fmt.Errorf("--scenario %q: want table, gsi or all", *scenario)
	}
	c := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(*endpoint),
		Region:       *region,
		// ExtendDB accepts any key; the access key picks the account.
		Credentials: credentials.NewStaticCredentialsProvider("AKIAIOSFODNN7EXAMPLE", "secret", ""),
		// Retries would hide the throttle: the SDK retries these errors.
		RetryMaxAttempts: 1,
	})
	if *scenario != "gsi" {
		if err := tableScenario(ctx, c, *table, *maxWrites, out); err != nil {
			return err
		}
	}
	if *scenario != "table" {
		return gsiScenario(ctx, c, *table+"-gsi", *maxWrites, out)
	}
	return nil
}

func tableScenario(ctx context.Context, c *dynamodb.Client, table string, maxWrites int, out io.Writer) error {
	err := create(ctx, c, &dynamodb.CreateTableInput{
		TableName:             aws.String(table),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	})
	if err != nil {
		return err
	}
	_, err = writeUntilThrottled(ctx, c, table, maxWrites, out, func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "item-" + strconv.Itoa(i)}}
	})
	return err
}

// gsiScenario reproduces GSI back-pressure: the base table has 1,000 WCU,
// its index ByCustomer 1 WCU.
func gsiScenario(ctx context.Context, c *dynamodb.Client, table string, maxWrites int, out io.Writer) error {
	tp := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000), WriteCapacityUnits: aws.Int64(1000)}
	err := create(ctx, c, &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("customer"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: tp,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String("ByCustomer"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("customer"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
		}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "GSI back-pressure on %s (1,000 WCU; index ByCustomer 1 WCU):\n", table)
	i, err := writeUntilThrottled(ctx, c, table, maxWrites, out, func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"id":       &types.AttributeValueMemberS{Value: "order-" + strconv.Itoa(i)},
			"customer": &types.AttributeValueMemberS{Value: "customer-1"},
		}
	})
	if err != nil {
		return err
	}
	// The same item without the index's key attribute is not in the index,
	// so only the table's capacity counts.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item:      map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "order-" + strconv.Itoa(i)}},
	})
	if err != nil {
		return fmt.Errorf("write %d without the index attribute: %w", i, err)
	}
	fmt.Fprintf(out, "write %d without the index attribute: served (the table has capacity)\n", i)
	return nil
}

// create creates a table (or reuses one of the name) and waits for it.
func create(ctx context.Context, c *dynamodb.Client, in *dynamodb.CreateTableInput) error {
	_, err := c.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("creating %s: %w", aws.ToString(in.TableName), err)
	}
	w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 100 * time.Millisecond })
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName}, time.Minute); err != nil {
		return fmt.Errorf("waiting for %s: %w", aws.ToString(in.TableName), err)
	}
	return nil
}

// writeUntilThrottled puts item(1), item(2), … until one is throttled,
// prints its class and reasons and returns its number.
func writeUntilThrottled(ctx context.Context, c *dynamodb.Client, table string, maxWrites int, out io.Writer, item func(int) map[string]types.AttributeValue) (int, error) {
	for i := 1; i <= maxWrites; i++ {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item(i)})
		if err == nil {
			continue
		}
		class, reasons, ok := throttle(err)
		if !ok {
			return i, fmt.Errorf("write %d: %w", i, err)
		}
		fmt.Fprintf(out, "write %d throttled: %s\n", i, class)
		for _, r := range reasons {
			fmt.Fprintf(out, "reason: %s\nresource: %s\n", aws.ToString(r.Reason), aws.ToString(r.Resource))
		}
		return i, nil
	}
	return maxWrites, fmt.Errorf("%d writes and none throttled: is the server running with --throttle=off?", maxWrites)
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
