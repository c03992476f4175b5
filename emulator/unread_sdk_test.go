package emulator_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/testserver"
)

// TestUnreadOldItem: an unconditional PutItem or DeleteItem returning no
// old values on a table without indexes or a stream does not decode the
// old item, yet charges the larger of the old and new sizes and keeps the
// table's item count and size right (through the SDK).
func TestUnreadOldItem(t *testing.T) {
	s := testserver.New(t)
	c, ctx := s.Client, t.Context()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("plain"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	pk := &types.AttributeValueMemberS{Value: "k"}
	big := map[string]types.AttributeValue{"pk": pk, "v": &types.AttributeValueMemberS{Value: strings.Repeat("x", 3000)}}
	small := map[string]types.AttributeValue{"pk": pk}
	put := func(item map[string]types.AttributeValue) float64 {
		t.Helper()
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("plain"), Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
	}
	stats := func() (int64, int64) {
		t.Helper()
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("plain")})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToInt64(d.Table.ItemCount), aws.ToInt64(d.Table.TableSizeBytes)
	}
	if got := put(big); got != 3 {
		t.Errorf("first put: %v units, want 3", got)
	}
	if got := put(small); got != 3 {
		t.Errorf("small over big: %v units, want 3 (the old item's size)", got)
	}
	// TableSizeBytes counts 100 bytes of overhead per item.
	if n, size := stats(); n != 1 || size != 103 {
		t.Errorf("after the overwrite: %d items, %d bytes; want 1 item of 3+100 bytes", n, size)
	}
	put(big)
	out, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("plain"), Key: small, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != 3 {
		t.Fatalf("delete: %+v, %v; want 3 units", out, err)
	}
	if n, size := stats(); n != 0 || size != 0 {
		t.Errorf("after the delete: %d items, %d bytes; want none", n, size)
	}
}
