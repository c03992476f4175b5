package emulator_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/internal/testserver"
)

// The hot-key counters behind Contributor Insights: a skewed workload on a
// tiny provisioned table puts the hot key first in the accessed lists and
// names it (alone) in the throttled lists; GSIs count their own partition
// keys; nothing is counted while the setting is off; THROTTLED_KEYS counts
// refusals only; the window slides with the engine clock.

func ciKeyS(v string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: v}, "sk": &types.AttributeValueMemberN{Value: "1"}}
}

// hotServer starts a server with a settable clock and a provisioned table
// "hot" (pk S, sk N; 5 RCU, 5 WCU) with GSI "byG" (g S; 5 RCU, 5 WCU).
func hotServer(t *testing.T) (*testserver.Server, *dynamodb.Client, *stepClock) {
	t.Helper()
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk))
	c := s.ClientFor("us-east-1", sdkAccount)
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("hot"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String("byG"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: pt,
		}},
		ProvisionedThroughput: pt,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, clk
}

func isThrottled(err error) bool {
	var pe *types.ProvisionedThroughputExceededException
	return errors.As(err, &pe)
}

// skewedWrites runs five rounds, a second apart, of one write to a cold
// key ("cold0".."cold4") and six to "hot": of the 5 WCU a second, the cold
// write and four hot ones are admitted and two hot ones refused.
func skewedWrites(t *testing.T, c *dynamodb.Client, clk *stepClock) (refused int) {
	t.Helper()
	ctx := context.Background()
	for r := range 5 {
		clk.add(time.Second)
		keys := []string{"cold" + strconv.Itoa(r), "hot", "hot", "hot", "hot", "hot", "hot"}
		for _, k := range keys {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hot"), Item: ciKeyS(k)})
			switch {
			case isThrottled(err) && k == "hot":
				refused++
			case err != nil:
				t.Fatalf("put %s: %v", k, err)
			}
		}
	}
	return refused
}

func topKey(t *testing.T, ks []emulator.ContributorKey) string {
	t.Helper()
	if len(ks) == 0 {
		t.Fatal("empty list")
	}
	return ks[0].Key["pk"].S
}

func TestContributorInsightsSkewedWorkload(t *testing.T) {
	s, c, clk := hotServer(t)
	ctx := context.Background()
	e := s.Engine()
	// Off: nothing is counted.
	if refused := skewedWrites(t, c, clk); refused == 0 {
		t.Fatal("the workload was never throttled")
	}
	rep, err := e.ContributorInsightsTop(ctx, sdkNS, "hot", "", 0, 0)
	if err != nil || rep.Status != "DISABLED" || len(rep.AccessedPartitionKeys)+len(rep.ThrottledPartitionKeys) != 0 {
		t.Fatalf("while off = %+v, %v", rep, err)
	}

	if _, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("hot"), ContributorInsightsAction: "ENABLE"}); err != nil {
		t.Fatal(err)
	}
	refused := skewedWrites(t, c, clk)
	if refused == 0 {
		t.Fatal("the workload was never throttled")
	}
	rep, err = e.ContributorInsightsTop(ctx, sdkNS, "hot", "", 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != "ENABLED" || rep.Mode != "ACCESSED_AND_THROTTLED_KEYS" {
		t.Fatalf("report = %+v", rep)
	}
	// Accessed: hot first (by write units), then the five cold keys.
	if topKey(t, rep.AccessedPartitionKeys) != "hot" || len(rep.AccessedPartitionKeys) != 6 {
		t.Fatalf("accessed = %+v", rep.AccessedPartitionKeys)
	}
	if got := rep.AccessedPartitionKeys[0].Count; got != float64(5*6-refused) {
		t.Fatalf("hot consumed %v units, want %d", got, 5*6-refused)
	}
	if topKey(t, rep.AccessedItems) != "hot" || rep.AccessedItems[0].Key["sk"].S != "1" {
		t.Fatalf("accessed items = %+v", rep.AccessedItems)
	}
	// Throttled: exactly the key the throttle manager refused, once per refusal.
	if len(rep.ThrottledPartitionKeys) != 1 || topKey(t, rep.ThrottledPartitionKeys) != "hot" || rep.ThrottledPartitionKeys[0].Count != float64(refused) {
		t.Fatalf("throttled = %+v, want hot ×%d", rep.ThrottledPartitionKeys, refused)
	}
	if len(rep.ThrottledItems) != 1 || topKey(t, rep.ThrottledItems) != "hot" {
		t.Fatalf("throttled items = %+v", rep.ThrottledItems)
	}
	// The counts outlive a metadata change (re-caching the table).
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:" + sdkAccount + ":table/hot"),
		Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}); err != nil {
		t.Fatal(err)
	}
	if rep, _ = e.ContributorInsightsTop(ctx, sdkNS, "hot", "", 10, 0); len(rep.ThrottledPartitionKeys) != 1 {
		t.Fatalf("after a metadata change = %+v", rep)
	}
	// An hour later everything has slid out of the window.
	clk.add(time.Hour)
	if rep, _ = e.ContributorInsightsTop(ctx, sdkNS, "hot", "", 10, 0); len(rep.AccessedPartitionKeys)+len(rep.ThrottledPartitionKeys) != 0 {
		t.Fatalf("an hour later = %+v", rep)
	}
}

func TestContributorInsightsIndexAndModes(t *testing.T) {
	s, c, clk := hotServer(t)
	ctx := context.Background()
	e := s.Engine()
	for _, in := range []*dynamodb.UpdateContributorInsightsInput{
		{TableName: aws.String("hot"), IndexName: aws.String("byG"), ContributorInsightsAction: "ENABLE"},
		{TableName: aws.String("hot"), ContributorInsightsAction: "ENABLE", ContributorInsightsMode: types.ContributorInsightsModeThrottledKeys},
	} {
		if _, err := c.UpdateContributorInsights(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(time.Minute)
	// Items in two index partitions, "x" three times as often.
	for i, g := range []string{"x", "x", "x", "y"} {
		item := ciKeyS("p" + strconv.Itoa(i))
		item["g"] = &types.AttributeValueMemberS{Value: g}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hot"), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(time.Second)
	q := &dynamodb.QueryInput{TableName: aws.String("hot"), IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "y"}}}
	if _, err := c.Query(ctx, q); err != nil {
		t.Fatal(err)
	}
	rep, err := e.ContributorInsightsTop(ctx, sdkNS, "hot", "byG", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.IndexName != "byG" || len(rep.AccessedPartitionKeys) != 2 || rep.AccessedPartitionKeys[0].Key["g"].S != "x" ||
		rep.AccessedPartitionKeys[0].Count != 3 || rep.AccessedPartitionKeys[1].Count != 1.5 || len(rep.AccessedItems) != 0 {
		t.Fatalf("index report = %+v", rep)
	}
	// THROTTLED_KEYS on the table: its writes are not counted as accesses.
	rep, err = e.ContributorInsightsTop(ctx, sdkNS, "hot", "", 0, 0)
	if err != nil || rep.Mode != "THROTTLED_KEYS" || rep.AccessedPartitionKeys != nil {
		t.Fatalf("table report = %+v, %v", rep, err)
	}
	_, err = e.ContributorInsightsTop(ctx, sdkNS, "hot", "nix", 0, 0)
	var ee *api.Error
	if !errors.As(err, &ee) || ee.Code != api.CodeResourceNotFound {
		t.Fatalf("unknown index: %v", err)
	}
}

// TestContributorInsightsIndexThrottled: a base-table write a GSI out of
// capacity holds back counts as a throttle of that index partition key;
// after a restart the setting is back and counting starts afresh.
func TestContributorInsightsIndexThrottled(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk))
	c := s.ClientFor("us-east-1", sdkAccount)
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("gix"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("h"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("h"), KeyType: types.KeyTypeRange}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
		}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(100), WriteCapacityUnits: aws.Int64(100)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("gix"), IndexName: aws.String("byG"),
		ContributorInsightsAction: "ENABLE", ContributorInsightsMode: types.ContributorInsightsModeThrottledKeys}); err != nil {
		t.Fatal(err)
	}
	writes := func() (refused int) {
		for i := range 4 {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("gix"), Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "p" + strconv.Itoa(i)}, "g": &types.AttributeValueMemberS{Value: "busy"},
				"h": &types.AttributeValueMemberN{Value: "7"}}})
			switch {
			case isThrottled(err):
				refused++
			case err != nil:
				t.Fatal(err)
			}
		}
		return refused
	}
	refused := writes()
	if refused == 0 {
		t.Fatal("the index never held a write back")
	}
	rep, err := s.Engine().ContributorInsightsTop(ctx, sdkNS, "gix", "byG", 0, 0)
	if err != nil || len(rep.ThrottledPartitionKeys) != 1 || rep.ThrottledPartitionKeys[0].Key["g"].S != "busy" ||
		rep.ThrottledPartitionKeys[0].Count != float64(refused) || rep.AccessedPartitionKeys != nil {
		t.Fatalf("index report = %+v, %v (refused %d)", rep, err, refused)
	}
	// The index's own key (partition and sort key) is the throttled item.
	if len(rep.ThrottledItems) != 1 || rep.ThrottledItems[0].Key["g"].S != "busy" || rep.ThrottledItems[0].Key["h"].S != "7" ||
		len(rep.ThrottledItems[0].Key) != 2 || rep.SortKey != "h" {
		t.Fatalf("index throttled items = %+v", rep.ThrottledItems)
	}
	s.Restart()
	rep, err = s.Engine().ContributorInsightsTop(ctx, sdkNS, "gix", "byG", 0, 0)
	if err != nil || rep.Status != "ENABLED" || len(rep.ThrottledPartitionKeys) != 0 {
		t.Fatalf("after a restart = %+v, %v", rep, err)
	}
	if writes() == 0 {
		t.Fatal("the index never held a write back after the restart")
	}
	if rep, _ = s.Engine().ContributorInsightsTop(ctx, sdkNS, "gix", "byG", 0, 0); len(rep.ThrottledPartitionKeys) != 1 {
		t.Fatalf("no counting after a restart: %+v", rep)
	}
	// Accesses too, once the mode says so: the index item written.
	if _, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("gix"), IndexName: aws.String("byG"),
		ContributorInsightsAction: "ENABLE"}); err != nil {
		t.Fatal(err)
	}
	clk.add(10 * time.Second)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("gix"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "q"}, "g": &types.AttributeValueMemberS{Value: "calm"}, "h": &types.AttributeValueMemberN{Value: "1"}}}); err != nil {
		t.Fatal(err)
	}
	rep, _ = s.Engine().ContributorInsightsTop(ctx, sdkNS, "gix", "byG", 0, 0)
	if len(rep.AccessedItems) != 1 || rep.AccessedItems[0].Key["g"].S != "calm" || rep.AccessedItems[0].Key["h"].S != "1" || rep.AccessedItems[0].Count != 1 {
		t.Fatalf("index accessed items = %+v", rep.AccessedItems)
	}
}
