package emulator_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Global tables version 2019.11.21 (issue 13) through one aws-sdk-go-v2
// client per Region.

const (
	gtHome    = "us-east-1"
	gtReplica = "eu-west-1"
)

type gtFixture struct {
	s          *testserver.Server
	home, repl *dynamodb.Client
}

// newGlobalFixture creates table "gt" (pk S, sk N, a GSI on g, an LSI on
// l) on demand in us-east-1 holding three items.
func newGlobalFixture(t *testing.T, opts ...testserver.Option) *gtFixture {
	t.Helper()
	s := testserver.New(t, opts...)
	f := &gtFixture{s: s, home: s.ClientFor(gtHome, testserver.DefaultAccessKeyID), repl: s.ClientFor(gtReplica, testserver.DefaultAccessKeyID)}
	_, err := f.home.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String("gtab"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range []string{"1", "2", "3"} {
		f.put(t, f.home, "seed", sk, "old")
	}
	return f
}

func (f *gtFixture) put(t *testing.T, c *dynamodb.Client, pk, sk, v string) {
	t.Helper()
	if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("gtab"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: sk},
		"g": &types.AttributeValueMemberS{Value: "G"}, "l": &types.AttributeValueMemberS{Value: "L" + sk}, "v": &types.AttributeValueMemberS{Value: v},
	}}); err != nil {
		t.Fatal(err)
	}
}

// get returns attribute v of item (pk, sk) read strongly in c's Region, "" if absent.
func (f *gtFixture) get(t *testing.T, c *dynamodb.Client, pk, sk string) string {
	t.Helper()
	out, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("gtab"), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: sk}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		return ""
	}
	return out.Item["v"].(*types.AttributeValueMemberS).Value
}

func (f *gtFixture) addReplica(t *testing.T) *types.TableDescription {
	t.Helper()
	out, err := f.home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(gtReplica)}}}})
	if err != nil {
		t.Fatal(err)
	}
	f.settle(t)
	return out.TableDescription
}

func (f *gtFixture) settle(t *testing.T) {
	t.Helper()
	if err := emulator.WaitReplication(f.s.Engine()); err != nil {
		t.Fatal(err)
	}
}

func (f *gtFixture) describe(t *testing.T, c *dynamodb.Client) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("gtab")})
	if err != nil {
		t.Fatal(err)
	}
	return out.Table
}

func TestGlobalTableCreateReplica(t *testing.T) {
	f := newGlobalFixture(t)
	d := f.addReplica(t)
	if len(d.Replicas) != 1 || aws.ToString(d.Replicas[0].RegionName) != gtReplica || d.Replicas[0].ReplicaStatus != types.ReplicaStatusCreating {
		t.Errorf("UpdateTable answer Replicas = %+v, want eu-west-1 CREATING", d.Replicas)
	}
	if d.StreamSpecification == nil || d.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Errorf("stream after adding a replica = %+v, want NEW_AND_OLD_IMAGES turned on", d.StreamSpecification)
	}

	home, repl := f.describe(t, f.home), f.describe(t, f.repl)
	for _, c := range []struct {
		d     *types.TableDescription
		other string
	}{{home, gtReplica}, {repl, gtHome}} {
		if aws.ToString(c.d.GlobalTableVersion) != "2019.11.21" {
			t.Errorf("%s: GlobalTableVersion = %q", aws.ToString(c.d.TableArn), aws.ToString(c.d.GlobalTableVersion))
		}
		if len(c.d.Replicas) != 1 || aws.ToString(c.d.Replicas[0].RegionName) != c.other || c.d.Replicas[0].ReplicaStatus != types.ReplicaStatusActive {
			t.Errorf("%s: Replicas = %+v, want only %s ACTIVE", aws.ToString(c.d.TableArn), c.d.Replicas, c.other)
		}
		if c.d.TableStatus != types.TableStatusActive {
			t.Errorf("%s: status %s", aws.ToString(c.d.TableArn), c.d.TableStatus)
		}
	}
	if got := aws.ToString(repl.TableArn); got != strings.Replace(aws.ToString(home.TableArn), gtHome, gtReplica, 1) {
		t.Errorf("replica ARN %s", got)
	}
	if aws.ToString(repl.TableId) == aws.ToString(home.TableId) || aws.ToString(repl.LatestStreamArn) == aws.ToString(home.LatestStreamArn) || repl.LatestStreamArn == nil {
		t.Errorf("replica shares TableId or stream: %s %s / %s %s", aws.ToString(repl.TableId), aws.ToString(home.TableId), aws.ToString(repl.LatestStreamArn), aws.ToString(home.LatestStreamArn))
	}
	if len(repl.GlobalSecondaryIndexes) != 1 || len(repl.LocalSecondaryIndexes) != 1 || len(repl.AttributeDefinitions) != 4 {
		t.Errorf("replica indexes/attributes: %+v %+v %+v", repl.GlobalSecondaryIndexes, repl.LocalSecondaryIndexes, repl.AttributeDefinitions)
	}
	if aws.ToInt64(repl.ItemCount) != 3 || aws.ToInt64(repl.GlobalSecondaryIndexes[0].ItemCount) != 3 {
		t.Errorf("replica seeded with %d items (GSI %d), want 3", aws.ToInt64(repl.ItemCount), aws.ToInt64(repl.GlobalSecondaryIndexes[0].ItemCount))
	}
	if got := f.get(t, f.repl, "seed", "2"); got != "old" {
		t.Errorf("seeded item in the replica: v = %q", got)
	}
	q, err := f.repl.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("gtab"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "G"}}})
	if err != nil || q.Count != 3 {
		t.Errorf("replica GSI query: %v, %d items", err, q.Count)
	}
}

func TestGlobalTableReplicatesEveryWritePath(t *testing.T) {
	f := newGlobalFixture(t)
	f.addReplica(t)
	ctx := t.Context()
	key := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: sk}}
	}
	f.put(t, f.home, "put", "1", "home")
	f.put(t, f.repl, "put", "2", "repl") // the other direction
	// The replica's transaction below updates put/1: it must have arrived
	// there first, or the replica's newer write wins the whole item (last
	// writer wins) and v is lost, as on DynamoDB.
	f.settle(t)
	if _, err := f.home.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("gtab"), Key: key("seed", "1"),
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "updated"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repl.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("gtab"), Key: key("seed", "3")}); err != nil {
		t.Fatal(err)
	}
	item := func(pk, sk, v string) map[string]types.AttributeValue {
		m := key(pk, sk)
		m["v"] = &types.AttributeValueMemberS{Value: v}
		return m
	}
	if _, err := f.home.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"gtab": {
		{PutRequest: &types.PutRequest{Item: item("batch", "1", "b")}},
		{DeleteRequest: &types.DeleteRequest{Key: key("seed", "2")}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.repl.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("gtab"), Item: item("tx", "1", "t")}},
		{Update: &types.Update{TableName: aws.String("gtab"), Key: key("put", "1"), UpdateExpression: aws.String("SET w = :w"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":w": &types.AttributeValueMemberS{Value: "x"}}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.home.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "gtab" VALUE {'pk': 'pq', 'sk': 1, 'v': 'p'}`)}); err != nil {
		t.Fatal(err)
	}
	f.settle(t)
	want := map[[2]string]string{
		{"put", "1"}: "home", {"put", "2"}: "repl", {"seed", "1"}: "updated", {"seed", "2"}: "", {"seed", "3"}: "",
		{"batch", "1"}: "b", {"tx", "1"}: "t", {"pq", "1"}: "p",
	}
	for k, v := range want {
		for _, c := range []*dynamodb.Client{f.home, f.repl} {
			if got := f.get(t, c, k[0], k[1]); got != v {
				t.Errorf("%s %v: v = %q, want %q", c.Options().Region, k, got, v)
			}
		}
	}
	for _, c := range []*dynamodb.Client{f.home, f.repl} {
		if n := aws.ToInt64(f.describe(t, c).ItemCount); n != 6 {
			t.Errorf("%s: ItemCount %d, want 6", c.Options().Region, n)
		}
	}

	// The replica's stream carries the replicated writes too.
	st := dynamodbstreams.NewFromConfig(f.s.AWSConfig(gtReplica, testserver.DefaultAccessKeyID))
	arn := f.describe(t, f.repl).LatestStreamArn
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: ds.StreamDescription.Shards[0].ShardId, ShardIteratorType: "TRIM_HORIZON"})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		t.Fatal(err)
	}
	// One record per write, local or replicated, none for the seeding
	// copies; nothing marks a record as replicated.
	var got []string
	for _, r := range recs.Records {
		got = append(got, string(r.EventName)+" "+r.Dynamodb.Keys["pk"].(*sttypes.AttributeValueMemberS).Value)
		if r.UserIdentity != nil {
			t.Errorf("replicated record carries userIdentity %+v", r.UserIdentity)
		}
	}
	slices.Sort(got)
	want2 := []string{"INSERT batch", "INSERT pq", "INSERT put", "INSERT put", "INSERT tx", "MODIFY put", "MODIFY seed", "REMOVE seed", "REMOVE seed"}
	if !slices.Equal(got, want2) {
		t.Errorf("replica stream records %v\nwant %v", got, want2)
	}
}

func TestGlobalTableErrorsAndDeletionOverTheWire(t *testing.T) {
	f := newGlobalFixture(t)
	_, err := f.home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(gtHome)}}}})
	wantAPIError(t, err, "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
	_, err = f.home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(gtReplica)}}}})
	wantAPIError(t, err, "ValidationException", "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [eu-west-1].")

	f.addReplica(t)
	_, err = f.repl.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Disabling Stream is not allowed for a Global Table replica.")

	// DeleteTable in the replica's Region deletes that replica only.
	if _, err := f.repl.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("gtab")}); err != nil {
		t.Fatal(err)
	}
	d := f.describe(t, f.home)
	if d.Replicas != nil || d.GlobalTableVersion != nil || aws.ToInt64(d.ItemCount) != 3 {
		t.Errorf("home after the replica's DeleteTable: %+v %v %d items", d.Replicas, aws.ToString(d.GlobalTableVersion), aws.ToInt64(d.ItemCount))
	}
	if _, err := f.repl.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("gtab")}); err == nil {
		t.Error("the replica's table survived its DeleteTable")
	}
}

// TestGlobalTableReplicaClassSummary checks that Replicas[] carries
// ReplicaTableClassSummary only for a replica given a TableClassOverride
// (aws_dynamodb_table_replica reads it into its ForceNew
// table_class_override, so a summary on every replica replaced it on each
// plan).
func TestGlobalTableReplicaClassSummary(t *testing.T) {
	f := newGlobalFixture(t)
	f.addReplica(t)
	for _, d := range []*types.TableDescription{f.describe(t, f.home), f.describe(t, f.repl)} {
		if len(d.Replicas) != 1 || d.Replicas[0].ReplicaTableClassSummary != nil {
			t.Fatalf("%s: Replicas = %+v, want one without ReplicaTableClassSummary", aws.ToString(d.TableArn), d.Replicas)
		}
	}
	if _, err := f.home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: &types.UpdateReplicationGroupMemberAction{
			RegionName: aws.String(gtReplica), TableClassOverride: types.TableClassStandardInfrequentAccess}}}}); err != nil {
		t.Fatal(err)
	}
	f.settle(t)
	r := f.describe(t, f.home).Replicas
	if len(r) != 1 || r[0].ReplicaTableClassSummary == nil || r[0].ReplicaTableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
		t.Errorf("after a TableClassOverride: Replicas = %+v, want the override's class", r)
	}
}
