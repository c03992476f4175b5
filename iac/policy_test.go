package iac

import (
	"context"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

func getPolicy(t *testing.T, eng *emulator.Engine, ns api.Namespace, arn string) *api.GetResourcePolicyOutput {
	t.Helper()
	out, err := eng.GetResourcePolicy(context.Background(), ns, &api.GetResourcePolicyInput{ResourceArn: spec.Str(arn)})
	if err != nil {
		if strings.Contains(err.Error(), "PolicyNotFoundException") {
			return nil
		}
		t.Fatalf("GetResourcePolicy %s: %v", arn, err)
	}
	return out
}

var tfPolicy = tfTable3 + `
resource "aws_dynamodb_resource_policy" "p" {
  resource_arn = aws_dynamodb_table.t.arn
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { AWS = "222222222222" }, Action = "ACTION", Resource = aws_dynamodb_table.t.arn }]
  })
}
`

// Terraform's aws_dynamodb_resource_policy is applied on creation, kept on
// an identical reload, replaced when it changes and deleted when it goes.
func TestProvisionTerraformResourcePolicy(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	ns := api.Namespace{Account: "111111111111", Region: "eu-west-1"}
	arn := ns.TableARN("tfp")
	dir := t.TempDir()
	apply := func(src string) {
		t.Helper()
		write(t, dir, map[string]string{"main.tf": src})
		if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
			t.Fatal(d.Error())
		}
	}
	apply(strings.Replace(tfPolicy, "ACTION", "dynamodb:GetItem", 1))
	if out := Describe(&mustLoad(t, []string{dir}, Options{})[0]); !strings.Contains(out, "  policy:     183 bytes\n") {
		t.Errorf("Describe shows no policy:\n%s", out)
	}
	p1 := getPolicy(t, eng, ns, arn)
	if p1 == nil || !strings.Contains(p1.Policy, `"Action":"dynamodb:GetItem"`) {
		t.Fatalf("policy after the first load: %+v", p1)
	}
	apply(strings.Replace(tfPolicy, "ACTION", "dynamodb:GetItem", 1))
	if p := getPolicy(t, eng, ns, arn); p == nil || p.RevisionId != p1.RevisionId {
		t.Fatalf("an identical reload changed the policy: %+v, was %+v", p, p1)
	}
	apply(strings.Replace(tfPolicy, "ACTION", "dynamodb:Query", 1))
	if p := getPolicy(t, eng, ns, arn); p == nil || !strings.Contains(p.Policy, "dynamodb:Query") || p.RevisionId == p1.RevisionId {
		t.Fatalf("policy after a change: %+v", p)
	}
	apply(tfTable3)
	if p := getPolicy(t, eng, ns, arn); p != nil {
		t.Fatalf("an undeclared policy was kept: %+v", p)
	}

	// The engine's refusal is reported at the aws_dynamodb_resource_policy,
	// both through CreateTable (a new table) and PutResourcePolicy.
	bad := strings.Replace(tfPolicy, `Version   = "2012-10-17"`, `Version   = "2099-01-01"`, 1)
	for _, table := range []string{"tfp", "fresh"} {
		write(t, dir, map[string]string{"main.tf": strings.Replace(bad, `"tfp"`, `"`+table+`"`, 1)})
		d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{}))
		if !strings.Contains(d.Error(), "main.tf:16:1: aws_dynamodb_table.t ("+table+" in 111111111111/eu-west-1): ") ||
			!strings.Contains(d.Error(), "ValidationException: Invalid policy document: Version must be 2012-10-17 or 2008-10-17") {
			t.Errorf("%s: malformed policy reported as %q", table, d.Error())
		}
	}
}

// CloudFormation's table ResourcePolicy goes in with CreateTable, the
// stream's StreamSpecification.ResourcePolicy on the table's latest stream;
// a malformed one is the engine's ValidationException at the table.
func TestProvisionCloudFormationResourcePolicies(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	ns := api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}
	dir := t.TempDir()
	src := cfnTable + `      StreamSpecification:
        StreamViewType: KEYS_ONLY
        ResourcePolicy:
          PolicyDocument: {Version: "2012-10-17", Statement: [{Effect: Allow, Principal: {AWS: "222222222222"}, Action: "dynamodb:GetRecords", Resource: "*"}]}
      ResourcePolicy:
        PolicyDocument: {Version: "2012-10-17", Statement: [{Effect: Allow, Principal: {AWS: "222222222222"}, Action: "dynamodb:GetItem", Resource: "*"}]}
`
	write(t, dir, map[string]string{"t.yaml": src})
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	if p := getPolicy(t, eng, ns, ns.TableARN("cfn")); p == nil || !strings.Contains(p.Policy, "dynamodb:GetItem") {
		t.Fatalf("table policy: %+v", p)
	}
	stream := describe(t, eng, ns, "cfn").LatestStreamArn
	if p := getPolicy(t, eng, ns, stream); p == nil || !strings.Contains(p.Policy, "dynamodb:GetRecords") {
		t.Fatalf("stream policy: %+v", p)
	}

	bad := t.TempDir()
	write(t, bad, map[string]string{"b.yaml": strings.Replace(cfnTable, "TableName: cfn", "TableName: bad", 1) +
		"      ResourcePolicy:\n        PolicyDocument: {Version: \"2012-10-17\"}\n"})
	d := Provision(ctx, eng, mustLoad(t, []string{bad}, Options{}))
	if !strings.Contains(d.Error(), "b.yaml:9:7: Resources.T (bad in 000000000000/us-east-1): CreateTable: ValidationException: Invalid policy document: missing required field Statement") {
		t.Errorf("malformed policy: %q", d.Error())
	}
}

// tfTable3 is tfTable with a name CreateTable accepts.
var tfTable3 = strings.Replace(tfTable, `name         = "tf"`, `name         = "tfp"`, 1)
