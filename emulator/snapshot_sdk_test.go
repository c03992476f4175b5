package emulator_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// TestRestoreRestartsTTL: the background work runs on the restored
// state. An item that expired and was deleted by the TTL worker comes back
// with the snapshot taken before, and the worker, started again after the
// restore, deletes it again.
func TestRestoreRestartsTTL(t *testing.T) {
	s := testserver.New(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.TTLInterval = 20 * time.Millisecond }))
	ctx := context.Background()
	db := s.Client
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Sessions"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Sessions"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Second).Unix()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Sessions"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "s1"}, "exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(exp, 10)}}}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Engine().Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	present := func() bool {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Sessions"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "s1"}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	gone := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if !present() {
				return
			}
		}
		t.Fatalf("%s: the expired item is still there", what)
	}
	gone("before the restore")
	if err := s.Engine().Restore(ctx, snap); err != nil {
		t.Fatal(err)
	}
	// The snapshot's item is back, expired: the TTL worker deletes it.
	gone("after the restore")
}
