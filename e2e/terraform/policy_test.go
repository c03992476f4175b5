package terraform_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// policyConfig is a table with a stream, a policy on each, and the policy's
// action as a placeholder so a second apply changes it.
const policyConfig = `
resource "aws_dynamodb_table" "t" {
  name             = "guarded"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "KEYS_ONLY"
  attribute {
    name = "pk"
    type = "S"
  }
}
resource "aws_dynamodb_resource_policy" "table" {
  resource_arn = aws_dynamodb_table.t.arn
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { AWS = "arn:aws:iam::222222222222:root" }, Action = "ACTION", Resource = aws_dynamodb_table.t.arn }]
  })
}
resource "aws_dynamodb_resource_policy" "stream" {
  resource_arn = aws_dynamodb_table.t.stream_arn
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { AWS = "222222222222" }, Action = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"], Resource = aws_dynamodb_table.t.stream_arn }]
  })
}
output "revision" { value = aws_dynamodb_resource_policy.table.revision_id }
`

// TestResourcePolicy applies aws_dynamodb_resource_policy on a table and its
// stream, changes one, plans clean, and destroys.
func TestResourcePolicy(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"555555555555", "AKIAPOLICY000000"}
	const region = "eu-central-1"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	c := s.client(region, acct)
	ctx := t.Context()
	head := s.terraformBlock() + s.providerBlock("", region, acct)
	arn := "arn:aws:dynamodb:" + region + ":" + acct.id + ":table/guarded"

	s.write("main.tf", head+strings.Replace(policyConfig, "ACTION", "dynamodb:GetItem", 1))
	s.init()
	s.applyClean("create")
	first, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil || !strings.Contains(aws.ToString(first.Policy), "dynamodb:GetItem") {
		t.Fatalf("table policy after apply: %+v, %v", first, err)
	}
	wantField(t, "outputs", "revision", stringOf(s.outputs()["revision"]), aws.ToString(first.RevisionId))
	ts, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("guarded")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: ts.Table.LatestStreamArn}); err != nil {
		t.Fatalf("stream policy after apply: %v", err)
	}

	s.write("main.tf", head+strings.Replace(policyConfig, "ACTION", "dynamodb:Query", 1))
	s.applyClean("change the table policy")
	second, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil || !strings.Contains(aws.ToString(second.Policy), "dynamodb:Query") || aws.ToString(second.RevisionId) == aws.ToString(first.RevisionId) {
		t.Fatalf("table policy after change: %+v, %v", second, err)
	}

	s.destroy("destroy")
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("after destroy: %v, want the table gone", err)
	}
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
