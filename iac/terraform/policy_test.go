package terraform

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

// aws_dynamodb_resource_policy attaches its policy to the table (by arn) or
// to the table's stream (by stream_arn).
func TestResourcePolicyResource(t *testing.T) {
	specs := load(t, map[string]string{"main.tf": `
provider "aws" {
  region = "eu-west-1"
}
resource "aws_dynamodb_table" "t" {
  name             = "orders"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "id"
  stream_enabled   = true
  stream_view_type = "KEYS_ONLY"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_resource_policy" "table" {
  resource_arn = aws_dynamodb_table.t.arn
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { AWS = "111122223333" }, Action = "dynamodb:GetItem", Resource = aws_dynamodb_table.t.arn }]
  })
  confirm_remove_self_resource_access = true
}
resource "aws_dynamodb_resource_policy" "stream" {
  resource_arn = aws_dynamodb_table.t.stream_arn
  policy       = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"dynamodb:GetRecords\",\"Resource\":\"*\"}]}"
}
output "policy_id" { value = aws_dynamodb_resource_policy.table.id }
`}, spec.Options{})
	s := byName(t, specs, "orders", "eu-west-1")
	want := `{"Statement":[{"Action":"dynamodb:GetItem","Effect":"Allow","Principal":{"AWS":"111122223333"},"Resource":"arn:aws:dynamodb:eu-west-1:000000000000:table/orders"}],"Version":"2012-10-17"}`
	if got := deref(s.Create.ResourcePolicy); got != want {
		t.Errorf("table policy = %v\nwant %s", got, want)
	}
	if got := deref(s.StreamPolicy); got == nil || !strings.Contains(got.(string), "dynamodb:GetRecords") {
		t.Errorf("stream policy = %v", got)
	}
	if !s.ConfirmRemoveSelf {
		t.Error("confirm_remove_self_resource_access not carried")
	}
}

func TestResourcePolicyResourceErrors(t *testing.T) {
	msg, _ := loadErr(t, map[string]string{"main.tf": `
resource "aws_dynamodb_resource_policy" "p" {
  resource_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/none"
  policy       = "{}"
}
`}, spec.Options{})
	if !strings.Contains(msg, "resource_arn arn:aws:dynamodb:us-east-1:000000000000:table/none names no table declared in this configuration") {
		t.Errorf("diagnostics: %s", msg)
	}
	msg, _ = loadErr(t, map[string]string{"main.tf": `
resource "aws_dynamodb_table" "t" {
  name     = "plain"
  hash_key = "id"
  billing_mode = "PAY_PER_REQUEST"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_resource_policy" "p" {
  resource_arn = aws_dynamodb_table.t.arn
}
resource "aws_dynamodb_resource_policy" "s" {
  resource_arn = aws_dynamodb_table.t.stream_arn
  policy       = "{}"
}
`}, spec.Options{})
	if !strings.Contains(msg, "aws_dynamodb_resource_policy needs resource_arn and policy") ||
		!strings.Contains(msg, "resource_arn is null (a table's stream_arn is null when its stream is not enabled)") {
		t.Errorf("diagnostics: %s", msg)
	}
}
