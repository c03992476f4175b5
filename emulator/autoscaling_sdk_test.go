package emulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Describe/UpdateTableReplicaAutoScaling (issue 18) through the SDK.

const slrRole = "arn:aws:iam::000000000000:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"

// createScaledTable creates PROVISIONED table name (pk S; GSI byG on g,
// 5/5 each) with c.
func createScaledTable(t *testing.T, c *dynamodb.Client, name string, billing types.BillingMode) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		BillingMode: billing,
	}
	if billing == types.BillingModeProvisioned {
		pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		in.ProvisionedThroughput = pt
		in.GlobalSecondaryIndexes[0].ProvisionedThroughput = pt
	}
	if _, err := c.CreateTable(t.Context(), in); err != nil {
		t.Fatal(err)
	}
}

func settingsUpdate(lo, hi int64, target float64) *types.AutoScalingSettingsUpdate {
	return &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(lo), MaximumUnits: aws.Int64(hi),
		ScalingPolicyUpdate: &types.AutoScalingPolicyUpdate{TargetTrackingScalingPolicyConfiguration: &types.AutoScalingTargetTrackingScalingPolicyConfigurationUpdate{TargetValue: aws.Float64(target)}}}
}

// wantSettings checks one described capacity: nil wants none.
func wantSettings(t *testing.T, what string, got *types.AutoScalingSettingsDescription, lo, hi int64, policy string, target float64) {
	t.Helper()
	if lo == 0 {
		if got != nil {
			t.Errorf("%s: settings %+v, want none", what, got)
		}
		return
	}
	if got == nil {
		t.Fatalf("%s: no settings", what)
	}
	if aws.ToInt64(got.MinimumUnits) != lo || aws.ToInt64(got.MaximumUnits) != hi || aws.ToString(got.AutoScalingRoleArn) != slrRole {
		t.Errorf("%s: min %d max %d role %q; want %d %d %q", what, aws.ToInt64(got.MinimumUnits), aws.ToInt64(got.MaximumUnits), aws.ToString(got.AutoScalingRoleArn), lo, hi, slrRole)
	}
	if len(got.ScalingPolicies) != 1 || aws.ToString(got.ScalingPolicies[0].PolicyName) != policy ||
		aws.ToFloat64(got.ScalingPolicies[0].TargetTrackingScalingPolicyConfiguration.TargetValue) != target {
		t.Errorf("%s: policies %+v; want %s at %v", what, got.ScalingPolicies, policy, target)
	}
}

func TestReplicaAutoScalingSDK(t *testing.T) {
	s := testserver.New(t, testserver.WithDefaultAccount("000000000000"))
	c := s.Client
	createScaledTable(t, c, "ast", types.BillingModeProvisioned)

	// Nothing configured: the table's own Region, its GSI, no settings.
	d, err := c.DescribeTableReplicaAutoScaling(t.Context(), &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("ast")})
	if err != nil {
		t.Fatal(err)
	}
	desc := d.TableAutoScalingDescription
	if aws.ToString(desc.TableName) != "ast" || desc.TableStatus != types.TableStatusActive || len(desc.Replicas) != 1 {
		t.Fatalf("description %+v", desc)
	}
	r := desc.Replicas[0]
	if aws.ToString(r.RegionName) != testserver.DefaultRegion || r.ReplicaStatus != types.ReplicaStatusActive ||
		r.ReplicaProvisionedReadCapacityAutoScalingSettings != nil || r.ReplicaProvisionedWriteCapacityAutoScalingSettings != nil ||
		len(r.GlobalSecondaryIndexes) != 1 || aws.ToString(r.GlobalSecondaryIndexes[0].IndexName) != "byG" || r.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive {
		t.Fatalf("replica %+v", r)
	}

	// Write settings, this Region's read settings, the GSI's both.
	readUp := settingsUpdate(2, 50, 50)
	readUp.ScalingPolicyUpdate.PolicyName = aws.String("my-read-policy")
	readUp.ScalingPolicyUpdate.TargetTrackingScalingPolicyConfiguration.DisableScaleIn = aws.Bool(true)
	readUp.ScalingPolicyUpdate.TargetTrackingScalingPolicyConfiguration.ScaleInCooldown = aws.Int32(120)
	u, err := c.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("ast"),
		ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(5, 100, 70),
		GlobalSecondaryIndexUpdates:               []types.GlobalSecondaryIndexAutoScalingUpdate{{IndexName: aws.String("byG"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(3, 30, 60)}},
		ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{
			RegionName: aws.String(testserver.DefaultRegion),
			ReplicaProvisionedReadCapacityAutoScalingUpdate: readUp,
			ReplicaGlobalSecondaryIndexUpdates:              []types.ReplicaGlobalSecondaryIndexAutoScalingUpdate{{IndexName: aws.String("byG"), ProvisionedReadCapacityAutoScalingUpdate: settingsUpdate(4, 40, 80)}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, desc *types.TableAutoScalingDescription) {
		t.Helper()
		if len(desc.Replicas) != 1 {
			t.Fatalf("%s: replicas %+v", what, desc.Replicas)
		}
		r := desc.Replicas[0]
		wantSettings(t, what+" write", r.ReplicaProvisionedWriteCapacityAutoScalingSettings, 5, 100, "DynamoDBWriteCapacityUtilization:table/ast", 70)
		wantSettings(t, what+" read", r.ReplicaProvisionedReadCapacityAutoScalingSettings, 2, 50, "my-read-policy", 50)
		cfg := r.ReplicaProvisionedReadCapacityAutoScalingSettings.ScalingPolicies[0].TargetTrackingScalingPolicyConfiguration
		if !aws.ToBool(cfg.DisableScaleIn) || aws.ToInt32(cfg.ScaleInCooldown) != 120 || cfg.ScaleOutCooldown != nil {
			t.Errorf("%s: read policy configuration %+v", what, cfg)
		}
		g := r.GlobalSecondaryIndexes[0]
		wantSettings(t, what+" GSI write", g.ProvisionedWriteCapacityAutoScalingSettings, 3, 30, "DynamoDBWriteCapacityUtilization:table/ast/index/byG", 60)
		wantSettings(t, what+" GSI read", g.ProvisionedReadCapacityAutoScalingSettings, 4, 40, "DynamoDBReadCapacityUtilization:table/ast/index/byG", 80)
	}
	check("update", u.TableAutoScalingDescription)
	d, err = c.DescribeTableReplicaAutoScaling(t.Context(), &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("ast")})
	if err != nil {
		t.Fatal(err)
	}
	check("describe", d.TableAutoScalingDescription)

	// Stored: a restart keeps them; an ARN names the table too.
	s.Restart()
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/ast"
	d, err = c.DescribeTableReplicaAutoScaling(t.Context(), &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	check("after restart", d.TableAutoScalingDescription)

	// A partial update keeps the other members; AutoScalingDisabled removes.
	u, err = c.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("ast"),
		ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MaximumUnits: aws.Int64(200)},
		ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String(testserver.DefaultRegion),
			ReplicaProvisionedReadCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{AutoScalingDisabled: aws.Bool(true)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r = u.TableAutoScalingDescription.Replicas[0]
	wantSettings(t, "raised write", r.ReplicaProvisionedWriteCapacityAutoScalingSettings, 5, 200, "DynamoDBWriteCapacityUtilization:table/ast", 70)
	wantSettings(t, "disabled read", r.ReplicaProvisionedReadCapacityAutoScalingSettings, 0, 0, "", 0)
}

// TestReplicaAutoScalingGlobalTable: every Region of a global table is
// listed, the queried one first; an on-demand table refuses settings.
func TestReplicaAutoScalingGlobalTable(t *testing.T) {
	s := testserver.New(t)
	home, repl := s.Client, s.ClientFor("eu-west-1", testserver.DefaultAccessKeyID)
	createScaledTable(t, home, "gas", types.BillingModePayPerRequest)
	if _, err := home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gas"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		client *dynamodb.Client
		first  string
	}{{home, "us-east-1"}, {repl, "eu-west-1"}} {
		d, err := c.client.DescribeTableReplicaAutoScaling(t.Context(), &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("gas")})
		if err != nil {
			t.Fatal(err)
		}
		var regions []string
		for _, r := range d.TableAutoScalingDescription.Replicas {
			regions = append(regions, aws.ToString(r.RegionName))
			if r.ReplicaProvisionedReadCapacityAutoScalingSettings != nil || len(r.GlobalSecondaryIndexes) != 1 {
				t.Errorf("%s: replica %+v", c.first, r)
			}
		}
		if len(regions) != 2 || regions[0] != c.first {
			t.Errorf("from %s: Regions %v", c.first, regions)
		}
	}
	_, err := home.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("gas"),
		ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(5, 10, 70)})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Auto scaling cannot be configured for a table whose BillingMode is PAY_PER_REQUEST")
}

func TestReplicaAutoScalingErrors(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	createScaledTable(t, c, "ase", types.BillingModeProvisioned)
	ctx := t.Context()
	up := func(in *dynamodb.UpdateTableReplicaAutoScalingInput) error {
		if in.TableName == nil {
			in.TableName = aws.String("ase")
		}
		_, err := c.UpdateTableReplicaAutoScaling(ctx, in)
		return err
	}

	_, err := c.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	wantAPIError(t, up(&dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("nope"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(1, 2, 50)}),
		"ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	_, err = c.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("a!")})
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")

	for _, tc := range []struct {
		name string
		in   *dynamodb.UpdateTableReplicaAutoScalingInput
		code string
		msg  string
	}{
		{"min 0", &dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(0), MaximumUnits: aws.Int64(5)}},
			"ValidationException", "1 validation error detected: Value '0' at 'provisionedWriteCapacityAutoScalingUpdate.minimumUnits' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"empty GSI list", &dynamodb.UpdateTableReplicaAutoScalingInput{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexAutoScalingUpdate{}},
			"ValidationException", "1 validation error detected: Value '[]' at 'globalSecondaryIndexUpdates' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"new target without maximum", &dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(5)}},
			"ValidationException", "One or more parameter values were invalid: MinimumUnits and MaximumUnits must be specified to enable auto scaling"},
		{"min above max", &dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(10, 5, 70)},
			"ValidationException", "One or more parameter values were invalid: MinimumUnits must be less than or equal to MaximumUnits"},
		{"target too low", &dynamodb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(1, 5, 10)},
			"ValidationException", "One or more parameter values were invalid: TargetValue must be between 20 and 90"},
		{"unknown index", &dynamodb.UpdateTableReplicaAutoScalingInput{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexAutoScalingUpdate{{IndexName: aws.String("nix"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(1, 5, 50)}}},
			"ResourceNotFoundException", "Requested resource not found: Index nix for table ase"},
		{"not a replica", &dynamodb.UpdateTableReplicaAutoScalingInput{ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String("eu-west-3"), ReplicaProvisionedReadCapacityAutoScalingUpdate: settingsUpdate(1, 5, 50)}}},
			"ValidationException", "Replica specified in the Replica Update or Replica Delete action of the request was not found."},
	} {
		wantAPIError(t, up(tc.in), tc.code, tc.msg)
	}

	// Members the SDK itself insists on, sent raw.
	for _, tc := range []struct{ body, msg string }{
		{`{}`, "The parameter 'TableName' is required but was not present in the request"},
		{`{"TableName":"ase","ReplicaUpdates":[{}]}`, "1 validation error detected: Value null at 'replicaUpdates.1.member.regionName' failed to satisfy constraint: Member must not be null"},
		{`{"TableName":"ase","ProvisionedWriteCapacityAutoScalingUpdate":{"MinimumUnits":1,"MaximumUnits":2,"ScalingPolicyUpdate":{"TargetTrackingScalingPolicyConfiguration":{}}}}`,
			"1 validation error detected: Value null at 'provisionedWriteCapacityAutoScalingUpdate.scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration.targetValue' failed to satisfy constraint: Member must not be null"},
	} {
		code, out := rawCall(t, s, "UpdateTableReplicaAutoScaling", tc.body)
		if code != http.StatusBadRequest || !strings.Contains(string(out["message"]), tc.msg) || !strings.HasSuffix(string(out["__type"]), "#ValidationException\"") {
			t.Errorf("%s: HTTP %d %s", tc.body, code, out)
		}
	}

	// A table that is not ACTIVE is in use.
	s2 := testserver.New(t, testserver.WithTransitionDelay(1<<40))
	createScaledTable(t, s2.Client, "busy", types.BillingModeProvisioned)
	_, err = s2.Client.UpdateTableReplicaAutoScaling(ctx, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("busy"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(1, 5, 50)})
	wantAPIError(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: busy")
}
