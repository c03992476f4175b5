package iac

import (
	"context"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

func ciDescribe(t *testing.T, eng *emulator.Engine, ns api.Namespace, table, index string) *api.DescribeContributorInsightsOutput {
	t.Helper()
	in := &api.DescribeContributorInsightsInput{TableName: spec.Str(table)}
	if index != "" {
		in.IndexName = spec.Str(index)
	}
	out, err := eng.DescribeContributorInsights(context.Background(), ns, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const cfnInsights = `Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: cfn
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}, {AttributeName: g, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
      ContributorInsightsSpecification: {Enabled: TABLE}
      GlobalSecondaryIndexes:
        - IndexName: byG
          KeySchema: [{AttributeName: g, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
          ContributorInsightsSpecification: {Enabled: true, Mode: THROTTLED_KEYS}
`

// CloudFormation's ContributorInsightsSpecification, on the table and on a
// GSI, is applied on creation, left alone on an identical reload and
// turned off when a reload says Enabled: false.
func TestProvisionCloudFormationContributorInsights(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	ns := api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}
	dir := t.TempDir()
	apply := func(src string) Diagnostics {
		t.Helper()
		write(t, dir, map[string]string{"t.yaml": src})
		d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{}))
		if d.HasErrors() {
			t.Fatal(d.Error())
		}
		return d
	}
	d := apply(strings.Replace(cfnInsights, "TABLE", "true", 1))
	if out := Describe(&mustLoad(t, []string{dir}, Options{})[0]); !strings.Contains(out, "  insights:   table, index byG THROTTLED_KEYS\n") {
		t.Errorf("Describe shows no Contributor Insights:\n%s", out)
	}
	if strings.Contains(diagText(d), "ContributorInsightsSpecification is accepted and not applied") {
		t.Errorf("still reported as not applied: %s", diagText(d))
	}
	if c := ciDescribe(t, eng, ns, "cfn", ""); c.ContributorInsightsStatus != "ENABLED" || c.ContributorInsightsMode != "ACCESSED_AND_THROTTLED_KEYS" {
		t.Fatalf("table: %+v", c)
	}
	g := ciDescribe(t, eng, ns, "cfn", "byG")
	if g.ContributorInsightsStatus != "ENABLED" || g.ContributorInsightsMode != "THROTTLED_KEYS" {
		t.Fatalf("index: %+v", g)
	}
	apply(strings.Replace(cfnInsights, "TABLE", "true", 1))
	if again := ciDescribe(t, eng, ns, "cfn", "byG"); *again.LastUpdateDateTime != *g.LastUpdateDateTime {
		t.Fatalf("an identical reload updated the setting: %+v, was %+v", again, g)
	}
	apply(strings.Replace(cfnInsights, "TABLE", "false", 1))
	if c := ciDescribe(t, eng, ns, "cfn", ""); c.ContributorInsightsStatus != "DISABLED" {
		t.Fatalf("table after Enabled: false: %+v", c)
	}
	// A mode the engine refuses is reported at the specification.
	write(t, dir, map[string]string{"t.yaml": strings.Replace(strings.Replace(cfnInsights, "TABLE", "true", 1), "THROTTLED_KEYS", "SOME_KEYS", 1)})
	d = Provision(ctx, eng, mustLoad(t, []string{dir}, Options{}))
	if !strings.Contains(d.Error(), "t.yaml:14:45: Resources.T (cfn in 000000000000/us-east-1): UpdateContributorInsights: ValidationException: 1 validation error detected: Value 'SOME_KEYS' at 'contributorInsightsMode'") {
		t.Errorf("bad mode reported as %q", d.Error())
	}
}

var tfInsights = tfTable3 + `
resource "aws_dynamodb_contributor_insights" "ci" {
  table_name = aws_dynamodb_table.t.name
  mode       = "THROTTLED_KEYS"
}
`

// Terraform's aws_dynamodb_contributor_insights enables Contributor
// Insights on the table it names, in the provider's account and Region.
func TestProvisionTerraformContributorInsights(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	ns := api.Namespace{Account: "111111111111", Region: "eu-west-1"}
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": tfInsights})
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	if c := ciDescribe(t, eng, ns, "tfp", ""); c.ContributorInsightsStatus != "ENABLED" || c.ContributorInsightsMode != "THROTTLED_KEYS" {
		t.Fatalf("table: %+v", c)
	}
	// A table_name that names no declared table is an error at the resource.
	write(t, dir, map[string]string{"main.tf": tfTable3 + `
resource "aws_dynamodb_contributor_insights" "ci" {
  table_name = "other"
  index_name = "i"
}
`})
	_, d := Load([]string{dir}, Options{})
	if !strings.Contains(d.Error(), "main.tf:16:1: table_name other names no table declared in account 111111111111, Region eu-west-1") {
		t.Errorf("unknown table reported as %q", d.Error())
	}
}
