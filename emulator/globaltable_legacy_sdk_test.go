package emulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Global tables version 2017.11.29 (legacy), issue 13. By default the
// server answers as today's DynamoDB (control-plane-facts §2.3).

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
