package emulator_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Global tables version 2017.11.29 (legacy), issue 13. By default the
// server answers as today's DynamoDB (docs/differences.md, "Global tables
// version 2017.11.29 (legacy)").

const msgLegacyCreate = "DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy)."

func TestLegacyGlobalTablesDefaultAnswerAsToday(t *testing.T) {
	s := testserver.New(t)
	c := s.ClientFor("us-east-1", testserver.DefaultAccessKeyID)
	ctx := t.Context()
	// Even with a table that would qualify, none is created.
	createLegacyMember(t, c, "glt")

	_, err := c.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("glt"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String("us-east-1")}}})
	wantAPIError(t, err, "ValidationException", msgLegacyCreate)

	notFound := "Global table with name 'glt' does not exist."
	_, err = c.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("glt")})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	_, err = c.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("glt"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String("eu-west-1")}}}})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	_, err = c.DescribeGlobalTableSettings(ctx, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String("glt")})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)
	_, err = c.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("glt"),
		GlobalTableBillingMode: types.BillingModePayPerRequest})
	wantAPIError(t, err, "GlobalTableNotFoundException", notFound)

	// ListGlobalTables answers {"GlobalTables": []}, the member present.
	if got := member(t, s, "ListGlobalTables", `{}`, "GlobalTables"); got != "[]" {
		t.Errorf("GlobalTables = %s, want []", got)
	}
	if got := member(t, s, "ListGlobalTables", `{}`, "LastEvaluatedGlobalTableName"); got != "<absent>" {
		t.Errorf("LastEvaluatedGlobalTableName = %s, want absent", got)
	}
}

// TestLegacyGlobalTablesValidation: the model's constraints come before
// any answer, in both modes.
func TestLegacyGlobalTablesValidation(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		s := newLegacyServer(t, legacy)
		for _, c := range []struct{ op, body, msg string }{
			{"CreateGlobalTable", `{}`, "2 validation errors detected: Value null at 'globalTableName' failed to satisfy constraint: Member must not be null; Value null at 'replicationGroup' failed to satisfy constraint: Member must not be null"},
			{"CreateGlobalTable", `{"GlobalTableName":"a!","ReplicationGroup":[]}`, "2 validation errors detected: Value 'a!' at 'globalTableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a!' at 'globalTableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
			{"DescribeGlobalTable", `{}`, "1 validation error detected: Value null at 'globalTableName' failed to satisfy constraint: Member must not be null"},
			{"DescribeGlobalTableSettings", `{"GlobalTableName":"ab"}`, "1 validation error detected: Value 'ab' at 'globalTableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
			{"UpdateGlobalTable", `{"GlobalTableName":"abc"}`, "1 validation error detected: Value null at 'replicaUpdates' failed to satisfy constraint: Member must not be null"},
			{"UpdateGlobalTable", `{"GlobalTableName":"abc","ReplicaUpdates":[{"Create":{}},{"Delete":{}}]}`, "2 validation errors detected: Value null at 'replicaUpdates.1.member.create.regionName' failed to satisfy constraint: Member must not be null; Value null at 'replicaUpdates.2.member.delete.regionName' failed to satisfy constraint: Member must not be null"},
			{"ListGlobalTables", `{"Limit":0,"ExclusiveStartGlobalTableName":"x"}`, "2 validation errors detected: Value 'x' at 'exclusiveStartGlobalTableName' failed to satisfy constraint: Member must have length greater than or equal to 3; Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
			{"UpdateGlobalTableSettings", `{"GlobalTableName":"abc","GlobalTableBillingMode":"X","GlobalTableProvisionedWriteCapacityUnits":0,"ReplicaSettingsUpdate":[{"ReplicaProvisionedReadCapacityUnits":0,"ReplicaTableClass":"Y"}]}`,
				"5 validation errors detected: Value 'X' at 'globalTableBillingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]; Value '0' at 'globalTableProvisionedWriteCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1; Value null at 'replicaSettingsUpdate.1.member.regionName' failed to satisfy constraint: Member must not be null; Value '0' at 'replicaSettingsUpdate.1.member.replicaProvisionedReadCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1; Value 'Y' at 'replicaSettingsUpdate.1.member.replicaTableClass' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, STANDARD_INFREQUENT_ACCESS]"},
		} {
			code, out := rawCall(t, s, c.op, c.body)
			if code != http.StatusBadRequest || !strings.HasSuffix(string(out["__type"]), `#ValidationException"`) || string(out["message"]) != quoteJSON(c.msg) {
				t.Errorf("legacy=%v %s %s: %d %s %s\nwant %s", legacy, c.op, c.body, code, out["__type"], out["message"], c.msg)
			}
		}
	}
}

func quoteJSON(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// newLegacyServer starts a server with or without --legacy-global-tables.
func newLegacyServer(t *testing.T, legacy bool, opts ...testserver.Option) *testserver.Server {
	t.Helper()
	if legacy {
		opts = append(opts, testserver.WithEngineOptions(func(o *emulator.Options) { o.LegacyGlobalTables = true }))
	}
	return testserver.New(t, opts...)
}

// createLegacyMember creates an empty on-demand table name (pk S, sk N,
// a GSI on g) streaming new and old images: a valid legacy member.
func createLegacyMember(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		BillingMode:         types.BillingModePayPerRequest,
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
}

const (
	lgEast = "us-east-1"
	lgWest = "eu-west-1"
	lgAP   = "ap-southeast-2"
)

func lgPut(t *testing.T, c *dynamodb.Client, table, pk, v string) {
	t.Helper()
	if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: "1"},
		"g": &types.AttributeValueMemberS{Value: "G"}, "v": &types.AttributeValueMemberS{Value: v}}}); err != nil {
		t.Fatal(err)
	}
}

func lgGet(t *testing.T, c *dynamodb.Client, table, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func lgSettle(t *testing.T, s *testserver.Server) {
	t.Helper()
	if err := emulator.WaitReplication(s.Engine()); err != nil {
		t.Fatal(err)
	}
}

func lgRegions(g []types.ReplicaDescription) []string {
	var out []string
	for _, r := range g {
		out = append(out, aws.ToString(r.RegionName))
	}
	return out
}

func strAttr(it map[string]types.AttributeValue, name string) string {
	if s, ok := it[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// TestLegacyGlobalTableLifecycle: CreateGlobalTable over two empty tables,
// CREATING then ACTIVE after the transition delay, replication both ways
// with the aws:rep:* attributes, DescribeTable of a member, the errors of
// CreateGlobalTable and UpdateGlobalTable, a third Region added and
// members removed until the global table is gone.
func TestLegacyGlobalTableLifecycle(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newLegacyServer(t, true, testserver.WithTransitionDelay(2*time.Second), testserver.WithClock(clk))
	east, west, ap := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgWest, testserver.DefaultAccessKeyID), s.ClientFor(lgAP, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	createLegacyMember(t, east, "orders")
	createLegacyMember(t, west, "orders")
	clk.add(3 * time.Second) // the tables are ACTIVE

	// An empty replication group creates nothing.
	_, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("orders"), ReplicationGroup: []types.Replica{}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ReplicationGroup must name at least one Region")
	// Errors of CreateGlobalTable: a Region without the table, a table
	// without the right stream, a table holding items.
	_, err = east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgAP)}}})
	wantAPIError(t, err, "TableNotFoundException", "Table: orders not found in region ap-southeast-2")
	createLegacyMember(t, ap, "orders")
	clk.add(3 * time.Second)
	if _, err := ap.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	clk.add(3 * time.Second)
	_, err = east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgAP)}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Table orders in region ap-southeast-2 must have DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES")
	lgPut(t, west, "orders", "early", "x")
	_, err = east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgWest)}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Table orders in region eu-west-1 is not empty: every replica of a global table must be empty when it is created or a replica is added")
	if _, err := west.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("orders"), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "early"}, "sk": &types.AttributeValueMemberN{Value: "1"}}}); err != nil {
		t.Fatal(err)
	}

	td0, err := east.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	acct := strings.Split(aws.ToString(td0.Table.TableArn), ":")[4]
	out, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgWest)}}})
	if err != nil {
		t.Fatal(err)
	}
	d := out.GlobalTableDescription
	if d.GlobalTableStatus != types.GlobalTableStatusCreating || aws.ToString(d.GlobalTableArn) != "arn:aws:dynamodb::"+acct+":global-table/orders" ||
		aws.ToString(d.GlobalTableName) != "orders" || d.CreationDateTime == nil || !slices.Equal(lgRegions(d.ReplicationGroup), []string{lgEast, lgWest}) {
		t.Fatalf("CreateGlobalTable: %+v", d)
	}
	_, err = west.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgWest)}}})
	wantAPIError(t, err, "GlobalTableAlreadyExistsException", "Global table with name 'orders' already exists.")
	clk.add(3 * time.Second)
	// Any Region of the account describes it.
	dg, err := ap.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("orders")})
	if err != nil || dg.GlobalTableDescription.GlobalTableStatus != types.GlobalTableStatusActive {
		t.Fatalf("DescribeGlobalTable: %+v %v", dg, err)
	}

	// A member's DescribeTable lists no 2019.11.21 replicas.
	td, err := east.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil || td.Table.GlobalTableVersion != nil || td.Table.Replicas != nil || td.Table.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Fatalf("DescribeTable of a member: %+v %v", td, err)
	}
	// The 2019.11.21 API does not change a legacy group.
	_, err = east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(lgAP)}}}})
	wantAPIError(t, err, "ValidationException", "Table orders is a replica of a global table version 2017.11.29; use UpdateGlobalTable to change its replicas.")

	// Replication both ways, each item stamped by the Region that wrote it.
	lgPut(t, east, "orders", "a", "from-east")
	lgPut(t, west, "orders", "b", "from-west")
	lgSettle(t, s)
	for _, c := range []struct {
		client       *dynamodb.Client
		pk, v, where string
	}{{west, "a", "from-east", lgEast}, {east, "a", "from-east", lgEast}, {east, "b", "from-west", lgWest}, {west, "b", "from-west", lgWest}} {
		it := lgGet(t, c.client, "orders", c.pk)
		if strAttr(it, "v") != c.v || strAttr(it, "aws:rep:updateregion") != c.where {
			t.Errorf("item %s: %v", c.pk, it)
		}
		if n, ok := it["aws:rep:updatetime"].(*types.AttributeValueMemberN); !ok || !strings.HasPrefix(n.Value, "1772366") {
			t.Errorf("item %s aws:rep:updatetime = %v", c.pk, it["aws:rep:updatetime"])
		}
		if b, ok := it["aws:rep:deleting"].(*types.AttributeValueMemberBOOL); !ok || b.Value {
			t.Errorf("item %s aws:rep:deleting = %v", c.pk, it["aws:rep:deleting"])
		}
	}

	// UpdateGlobalTable's errors.
	_, err = east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("nothere"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String(lgAP)}}}})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name 'nothere' does not exist.")
	_, err = east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String(lgWest)}}}})
	wantAPIError(t, err, "ReplicaAlreadyExistsException", "Replica already exists in region eu-west-1 for global table orders.")
	_, err = east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicaUpdate{{Delete: &types.DeleteReplicaAction{RegionName: aws.String(lgAP)}}}})
	wantAPIError(t, err, "ReplicaNotFoundException", "Replica does not exist in region ap-southeast-2 for global table orders.")
	_, err = east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String("us-west-2")}}}})
	wantAPIError(t, err, "TableNotFoundException", "Table: orders not found in region us-west-2")
	if _, err := ap.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}}); err != nil {
		t.Fatal(err)
	}
	clk.add(3 * time.Second)
	// The members hold items: a Region cannot be added.
	_, err = east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String(lgAP)}}}})
	if err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Fatalf("adding a Region to a global table holding items: %v", err)
	}

	// Removing a Region detaches its table: it keeps its items and no
	// longer receives writes.
	up, err := east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicaUpdate{{Delete: &types.DeleteReplicaAction{RegionName: aws.String(lgWest)}}}})
	if err != nil || up.GlobalTableDescription.GlobalTableStatus != types.GlobalTableStatusUpdating || !slices.Equal(lgRegions(up.GlobalTableDescription.ReplicationGroup), []string{lgEast}) {
		t.Fatalf("UpdateGlobalTable Delete: %+v %v", up, err)
	}
	// The member that stays is not UPDATING for it (its table is its own).
	if td, err := east.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}); err != nil || td.Table.TableStatus != types.TableStatusActive {
		t.Errorf("the remaining member while a Region is removed: %+v %v", td, err)
	}
	clk.add(3 * time.Second)
	lgPut(t, east, "orders", "c", "after")
	lgSettle(t, s)
	if it := lgGet(t, west, "orders", "c"); it != nil {
		t.Errorf("a removed Region received a write: %v", it)
	}
	if it := lgGet(t, west, "orders", "a"); strAttr(it, "v") != "from-east" {
		t.Errorf("a removed Region lost its items: %v", it)
	}
	dg, err = east.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("orders")})
	if err != nil || dg.GlobalTableDescription.GlobalTableStatus != types.GlobalTableStatusActive || !slices.Equal(lgRegions(dg.GlobalTableDescription.ReplicationGroup), []string{lgEast}) {
		t.Fatalf("after the removal: %+v %v", dg, err)
	}
	// The last member removed: the global table is gone (Terraform's
	// delete waits for GlobalTableNotFoundException).
	if _, err := east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("orders"),
		ReplicaUpdates: []types.ReplicaUpdate{{Delete: &types.DeleteReplicaAction{RegionName: aws.String(lgEast)}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = east.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("orders")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name 'orders' does not exist.")
	if _, err := east.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}); err != nil {
		t.Errorf("the last member's table went with the global table: %v", err)
	}
}

// TestLegacyGlobalTableAddRegion: a Region added to an empty global table
// replicates both ways; UpdateGlobalTable answers UPDATING, then ACTIVE.
func TestLegacyGlobalTableAddRegion(t *testing.T) {
	s := newLegacyServer(t, true)
	east, ap := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgAP, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	createLegacyMember(t, east, "single")
	createLegacyMember(t, ap, "single")
	if _, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("single"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}}}); err != nil {
		t.Fatal(err)
	}
	up, err := east.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("single"),
		ReplicaUpdates: []types.ReplicaUpdate{{Create: &types.CreateReplicaAction{RegionName: aws.String(lgAP)}}}})
	if err != nil || !slices.Equal(lgRegions(up.GlobalTableDescription.ReplicationGroup), []string{lgEast, lgAP}) {
		t.Fatalf("UpdateGlobalTable Create: %+v %v", up, err)
	}
	lgPut(t, ap, "single", "x", "from-ap")
	lgPut(t, east, "single", "y", "from-east")
	lgSettle(t, s)
	if strAttr(lgGet(t, east, "single", "x"), "v") != "from-ap" || strAttr(lgGet(t, ap, "single", "y"), "v") != "from-east" {
		t.Error("the added Region does not replicate both ways")
	}
	// Batch and transactional writes replicate too, stamped at the source.
	if _, err := east.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"single": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "batch"}, "sk": &types.AttributeValueMemberN{Value: "1"}}}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ap.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String("single"),
		Key:              map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "tx"}, "sk": &types.AttributeValueMemberN{Value: "1"}},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "t"}}}}}}); err != nil {
		t.Fatal(err)
	}
	lgSettle(t, s)
	if it := lgGet(t, ap, "single", "batch"); strAttr(it, "aws:rep:updateregion") != lgEast {
		t.Errorf("batch write in the other Region: %v", it)
	}
	if it := lgGet(t, east, "single", "tx"); strAttr(it, "v") != "t" || strAttr(it, "aws:rep:updateregion") != lgAP {
		t.Errorf("transactional write in the other Region: %v", it)
	}

	// Settings are each member's own: a TTL or a new index in one Region
	// stays there.
	if _, err := east.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("single"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if ttl, err := ap.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("single")}); err != nil ||
		ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("TTL of the other member: %+v %v", ttl, err)
	}
	if _, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("single"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byV"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	if td, err := ap.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("single")}); err != nil || len(td.Table.GlobalSecondaryIndexes) != 1 {
		t.Errorf("indexes of the other member: %+v %v", td, err)
	}

	// A replicated item shows in the destination's GSI too.
	q, err := east.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("single"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "G"}}})
	if err != nil || q.Count != 2 {
		t.Errorf("GSI of the destination: %v %v", q, err)
	}
}

// TestLegacyListGlobalTablesPaging: names in order, Limit and
// LastEvaluatedGlobalTableName, ExclusiveStartGlobalTableName, RegionName.
func TestLegacyListGlobalTablesPaging(t *testing.T) {
	s := newLegacyServer(t, true, testserver.WithAccessKeyAccount("AKIAOTHERACCOUNT0001", "222233334444"))
	east, west := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgWest, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	for _, n := range []string{"gt-c", "gt-a", "gt-b"} {
		createLegacyMember(t, east, n)
		group := []types.Replica{{RegionName: aws.String(lgEast)}}
		if n == "gt-b" {
			createLegacyMember(t, west, n)
			group = append(group, types.Replica{RegionName: aws.String(lgWest)})
		}
		if _, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String(n), ReplicationGroup: group}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(o *dynamodb.ListGlobalTablesOutput) []string {
		var out []string
		for _, g := range o.GlobalTables {
			out = append(out, aws.ToString(g.GlobalTableName))
		}
		return out
	}
	p1, err := west.ListGlobalTables(ctx, &dynamodb.ListGlobalTablesInput{Limit: aws.Int32(2)})
	if err != nil || !slices.Equal(names(p1), []string{"gt-a", "gt-b"}) || aws.ToString(p1.LastEvaluatedGlobalTableName) != "gt-b" {
		t.Fatalf("page 1: %v %v %v", names(p1), p1.LastEvaluatedGlobalTableName, err)
	}
	if g := p1.GlobalTables[1].ReplicationGroup; len(g) != 2 || aws.ToString(g[1].RegionName) != lgWest {
		t.Errorf("gt-b's replication group: %+v", g)
	}
	p2, err := west.ListGlobalTables(ctx, &dynamodb.ListGlobalTablesInput{Limit: aws.Int32(2), ExclusiveStartGlobalTableName: p1.LastEvaluatedGlobalTableName})
	if err != nil || !slices.Equal(names(p2), []string{"gt-c"}) || p2.LastEvaluatedGlobalTableName != nil {
		t.Fatalf("page 2: %v %v %v", names(p2), p2.LastEvaluatedGlobalTableName, err)
	}
	only, err := east.ListGlobalTables(ctx, &dynamodb.ListGlobalTablesInput{RegionName: aws.String(lgWest)})
	if err != nil || !slices.Equal(names(only), []string{"gt-b"}) {
		t.Fatalf("RegionName filter: %v %v", names(only), err)
	}
	// Another account sees none of them.
	other := s.ClientFor(lgEast, "AKIAOTHERACCOUNT0001")
	if o, err := other.ListGlobalTables(ctx, &dynamodb.ListGlobalTablesInput{}); err != nil || len(o.GlobalTables) != 0 {
		t.Errorf("another account: %v %v", names(o), err)
	}
}

// TestLegacyGlobalTableSurvivesRestart: the group and its pending
// replication are stored with the tables.
func TestLegacyGlobalTableSurvivesRestart(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newLegacyServer(t, true, testserver.WithDataDir(t.TempDir()), testserver.WithClock(clk),
		testserver.WithEngineOptions(func(o *emulator.Options) { o.ReplicationDelay = time.Hour }))
	east, west := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgWest, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	createLegacyMember(t, east, "kept")
	createLegacyMember(t, west, "kept")
	if _, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("kept"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgWest)}}}); err != nil {
		t.Fatal(err)
	}
	lgPut(t, east, "kept", "p", "pending")
	s.Restart()
	dg, err := west.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("kept")})
	if err != nil || !slices.Equal(lgRegions(dg.GlobalTableDescription.ReplicationGroup), []string{lgEast, lgWest}) {
		t.Fatalf("after a restart: %+v %v", dg, err)
	}
	if it := lgGet(t, west, "kept", "p"); it != nil {
		t.Fatalf("applied before its delay: %v", it)
	}
	// The queued change is still there: once due, it is applied.
	clk.add(2 * time.Hour)
	lgSettle(t, s)
	if it := lgGet(t, west, "kept", "p"); strAttr(it, "v") != "pending" || strAttr(it, "aws:rep:updateregion") != lgEast {
		t.Errorf("after a restart the pending write is %v", it)
	}
}

// TestLegacyGlobalTableSettings: DescribeGlobalTableSettings per Region,
// UpdateGlobalTableSettings switching every member to PROVISIONED with the
// group's write capacity and one Region's read capacity, and its errors.
func TestLegacyGlobalTableSettings(t *testing.T) {
	s := newLegacyServer(t, true)
	east, west := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgWest, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	createLegacyMember(t, east, "cap")
	createLegacyMember(t, west, "cap")
	if _, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("cap"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgWest)}}}); err != nil {
		t.Fatal(err)
	}
	d, err := west.DescribeGlobalTableSettings(ctx, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String("cap")})
	if err != nil || aws.ToString(d.GlobalTableName) != "cap" || len(d.ReplicaSettings) != 2 {
		t.Fatalf("DescribeGlobalTableSettings: %+v %v", d, err)
	}
	for _, r := range d.ReplicaSettings {
		if r.ReplicaStatus != types.ReplicaStatusActive || r.ReplicaBillingModeSummary.BillingMode != types.BillingModePayPerRequest ||
			len(r.ReplicaGlobalSecondaryIndexSettings) != 1 || aws.ToString(r.ReplicaGlobalSecondaryIndexSettings[0].IndexName) != "byG" ||
			r.ReplicaTableClassSummary.TableClass != types.TableClassStandard {
			t.Errorf("replica settings: %+v", r)
		}
	}

	_, err = east.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("cap"),
		ReplicaSettingsUpdate: []types.ReplicaSettingsUpdate{{RegionName: aws.String(lgAP), ReplicaProvisionedReadCapacityUnits: aws.Int64(3)}}})
	wantAPIError(t, err, "ReplicaNotFoundException", "Failed to update settings for global table with name: 'cap' because a replica does not exist in regions: [ap-southeast-2].")
	_, err = east.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("cap"),
		GlobalTableGlobalSecondaryIndexSettingsUpdate: []types.GlobalTableGlobalSecondaryIndexSettingsUpdate{{IndexName: aws.String("nope"), ProvisionedWriteCapacityUnits: aws.Int64(2)}}})
	wantAPIError(t, err, "IndexNotFoundException", "Failed to update settings for global table with name: 'cap' because the global secondary indexes with names [nope] do not exist.")

	u, err := east.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("cap"),
		GlobalTableBillingMode: types.BillingModeProvisioned, GlobalTableProvisionedWriteCapacityUnits: aws.Int64(7),
		GlobalTableGlobalSecondaryIndexSettingsUpdate: []types.GlobalTableGlobalSecondaryIndexSettingsUpdate{{IndexName: aws.String("byG"), ProvisionedWriteCapacityUnits: aws.Int64(4)}},
		ReplicaSettingsUpdate: []types.ReplicaSettingsUpdate{{RegionName: aws.String(lgWest), ReplicaProvisionedReadCapacityUnits: aws.Int64(3),
			ReplicaTableClass: types.TableClassStandardInfrequentAccess}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{lgEast: {7, 7}, lgWest: {3, 7}}
	for _, r := range u.ReplicaSettings {
		w := want[aws.ToString(r.RegionName)]
		if r.ReplicaBillingModeSummary.BillingMode != types.BillingModeProvisioned || aws.ToInt64(r.ReplicaProvisionedReadCapacityUnits) != w[0] ||
			aws.ToInt64(r.ReplicaProvisionedWriteCapacityUnits) != w[1] || aws.ToInt64(r.ReplicaGlobalSecondaryIndexSettings[0].ProvisionedWriteCapacityUnits) != 4 {
			t.Errorf("after UpdateGlobalTableSettings %s: %+v", aws.ToString(r.RegionName), r)
		}
	}
	td, err := west.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("cap")})
	if err != nil || aws.ToInt64(td.Table.ProvisionedThroughput.WriteCapacityUnits) != 7 || aws.ToInt64(td.Table.ProvisionedThroughput.ReadCapacityUnits) != 3 ||
		td.Table.TableClassSummary == nil || td.Table.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
		t.Errorf("the member's table: %+v %v", td, err)
	}
	// Auto scaling is not emulated.
	_, err = east.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("cap"),
		GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: auto scaling settings are not supported by ExtendDB")
}

// TestLegacyGlobalTableMemberDeleted: DeleteTable of a member leaves the
// others a global table without it; deleting the last one ends it.
func TestLegacyGlobalTableMemberDeleted(t *testing.T) {
	s := newLegacyServer(t, true)
	east, west := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgWest, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	createLegacyMember(t, east, "gone")
	createLegacyMember(t, west, "gone")
	if _, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("gone"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgWest)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := west.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	dg, err := east.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("gone")})
	if err != nil || !slices.Equal(lgRegions(dg.GlobalTableDescription.ReplicationGroup), []string{lgEast}) {
		t.Fatalf("after DeleteTable of a member: %+v %v", dg, err)
	}
	lgPut(t, east, "gone", "a", "v") // nothing left to replicate to
	lgSettle(t, s)
	if _, err := east.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	_, err = east.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("gone")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table with name 'gone' does not exist.")
}

// TestLegacyGlobalTablesOddInput: odd bodies get a 4xx, never a 5xx or a
// panic, in both modes, also on an existing global table.
func TestLegacyGlobalTablesOddInput(t *testing.T) {
	bodies := []string{`{}`, `{"GlobalTableName":null}`, `{"GlobalTableName":"odd","ReplicationGroup":[{}]}`,
		`{"GlobalTableName":"odd","ReplicationGroup":[null,{"RegionName":""}]}`, `{"GlobalTableName":"odd","ReplicaUpdates":[{},null]}`,
		`{"GlobalTableName":"odd","ReplicaUpdates":[{"Create":{"RegionName":"us-east-1"},"Delete":{"RegionName":"us-east-1"}}]}`,
		`{"GlobalTableName":"odd","ReplicaUpdates":[]}`, `{"GlobalTableName":"odd","ReplicationGroup":"x"}`, `{"Limit":-1}`, `{"Limit":100000}`,
		`{"GlobalTableName":"odd","ReplicaSettingsUpdate":[{"RegionName":"us-east-1","ReplicaGlobalSecondaryIndexSettingsUpdate":[{}]}]}`,
		`{"GlobalTableName":"odd","GlobalTableGlobalSecondaryIndexSettingsUpdate":[]}`,
		`{"GlobalTableName":"odd","GlobalTableBillingMode":"PROVISIONED"}`,
		`{"GlobalTableName":"odd","GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate":{"ScalingPolicyUpdate":{}}}`}
	ops := []string{"CreateGlobalTable", "DescribeGlobalTable", "UpdateGlobalTable", "ListGlobalTables", "DescribeGlobalTableSettings", "UpdateGlobalTableSettings"}
	for _, legacy := range []bool{false, true} {
		s := newLegacyServer(t, legacy)
		if legacy {
			createLegacyMember(t, s.Client, "odd")
			if _, err := s.Client.CreateGlobalTable(t.Context(), &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("odd"),
				ReplicationGroup: []types.Replica{{RegionName: aws.String("us-east-1")}}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, op := range ops {
			for _, b := range bodies {
				if code, out := rawCall(t, s, op, b); code >= 500 {
					t.Errorf("legacy=%v %s %s: %d %v", legacy, op, b, code, out)
				}
			}
		}
	}
}

// lgStream returns the stream records of table in c's Region.
func lgStream(t *testing.T, s *testserver.Server, region, table string) []sttypes.Record {
	t.Helper()
	ctx := t.Context()
	d, err := s.ClientFor(region, testserver.DefaultAccessKeyID).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	st := dynamodbstreams.NewFromConfig(s.AWSConfig(region, testserver.DefaultAccessKeyID))
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	var out []sttypes.Record
	for _, sh := range ds.StreamDescription.Shards {
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recs.Records...)
	}
	return out
}

// TestLegacyGlobalTableStreams: a local write gives two records, the
// write and then the update adding aws:rep:* (Developer Guide, "Global
// tables: How it works" for version 2017.11.29);
// the other Region's stream gets the replicated item once.
func TestLegacyGlobalTableStreams(t *testing.T) {
	s := newLegacyServer(t, true)
	east, west := s.ClientFor(lgEast, testserver.DefaultAccessKeyID), s.ClientFor(lgWest, testserver.DefaultAccessKeyID)
	ctx := t.Context()
	createLegacyMember(t, east, "strm")
	createLegacyMember(t, west, "strm")
	if _, err := east.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("strm"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(lgEast)}, {RegionName: aws.String(lgWest)}}}); err != nil {
		t.Fatal(err)
	}
	lgPut(t, east, "strm", "a", "1")
	lgSettle(t, s)
	type rec struct {
		name           string
		oldRep, newRep bool
	}
	summary := func(rs []sttypes.Record) []rec {
		var out []rec
		for _, r := range rs {
			_, o := r.Dynamodb.OldImage["aws:rep:updateregion"]
			_, n := r.Dynamodb.NewImage["aws:rep:updateregion"]
			out = append(out, rec{string(r.EventName), o, n})
		}
		return out
	}
	if got, want := summary(lgStream(t, s, lgEast, "strm")), []rec{{"INSERT", false, false}, {"MODIFY", false, true}}; !slices.Equal(got, want) {
		t.Errorf("source stream %v, want %v", got, want)
	}
	if got, want := summary(lgStream(t, s, lgWest, "strm")), []rec{{"INSERT", false, true}}; !slices.Equal(got, want) {
		t.Errorf("destination stream %v, want %v", got, want)
	}
}
