package iac

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The tables of TestEngineErrorsPointAtProperty: each loads, and CreateTable
// refuses it. The line marked "# <-" (in JSON, the one naming
// ReadCapacityUnits) declares the member that is wrong.
var blamedTables = []struct {
	name, tf, cfn string
}{
	{"key attribute missing from attribute definitions", `
resource "aws_dynamodb_table" "t" {
  name         = "orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk" # <-
  attribute {
    name = "id"
    type = "S"
  }
}
`, `
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: id
          AttributeType: S
      KeySchema:
        - AttributeName: pk # <-
          KeyType: HASH
`},
	{"GSI hash key not defined", `
resource "aws_dynamodb_table" "t" {
  name             = "orders"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
  global_secondary_index {
    name            = "by_status"
    hash_key        = "status" # <-
    projection_type = "ALL"
  }
  replica {
    region_name = "us-west-2"
  }
}
`, `
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: pk
          AttributeType: S
      KeySchema:
        - AttributeName: pk
          KeyType: HASH
      GlobalSecondaryIndexes:
        - IndexName: by_status
          KeySchema:
            - AttributeName: status # <-
              KeyType: HASH
          Projection:
            ProjectionType: ALL
`},
	{"read capacity 0 on PROVISIONED", `
resource "aws_dynamodb_table" "t" {
  name           = "orders"
  billing_mode   = "PROVISIONED"
  read_capacity  = 0 # <-
  write_capacity = 5
  hash_key       = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
}
`, `{
  "Resources": {
    "T": {
      "Type": "AWS::DynamoDB::Table",
      "Properties": {
        "TableName": "orders",
        "BillingMode": "PROVISIONED",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "ProvisionedThroughput": {
          "ReadCapacityUnits": 0,
          "WriteCapacityUnits": 5
        }
      }
    }
  }
}
`},
	{"LSI on a hash-only table", `
resource "aws_dynamodb_table" "t" {
  name         = "orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  local_secondary_index { # <-
    name            = "by_sk"
    range_key       = "sk"
    projection_type = "ALL"
  }
}
`, `
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: pk
          AttributeType: S
        - AttributeName: sk
          AttributeType: S
      KeySchema:
        - AttributeName: pk
          KeyType: HASH
      LocalSecondaryIndexes:
        - IndexName: by_sk # <-
          KeySchema:
            - AttributeName: pk
              KeyType: HASH
            - AttributeName: sk
              KeyType: RANGE
          Projection:
            ProjectionType: ALL
`},
}

// marked is the line:col of the line marked "<-" in src (in JSON, which
// has no comments, the one naming ReadCapacityUnits): its first character
// that is no indentation or list dash.
func marked(t *testing.T, src string) string {
	t.Helper()
	mark := "<-"
	if strings.HasPrefix(src, "{") {
		mark = `"ReadCapacityUnits"`
	}
	for i, line := range strings.Split(src, "\n") {
		if strings.Contains(line, mark) {
			col := strings.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '-' && r != '"' }) + 1
			if strings.HasPrefix(strings.TrimSpace(line), `"`) {
				col-- // a JSON property starts at its quote
			}
			return fmt.Sprintf("%d:%d", i+1, col)
		}
	}
	t.Fatal("no marked line")
	return ""
}

// TestEngineErrorsPointAtProperty: when the engine refuses a declared
// table, the diagnostic points at the Terraform argument or block, or the
// CloudFormation property, that declares the wrong member, not at the
// resource; and it appears once, even for a table with a replica.
func TestEngineErrorsPointAtProperty(t *testing.T) {
	for _, tc := range blamedTables {
		cfnFile := "t.yaml"
		if strings.HasPrefix(tc.cfn, "{") {
			cfnFile = "t.json"
		}
		for _, f := range []struct{ file, src string }{{"main.tf", tc.tf}, {cfnFile, tc.cfn}} {
			t.Run(tc.name+"/"+f.file, func(t *testing.T) {
				dir := t.TempDir()
				write(t, dir, map[string]string{f.file: f.src})
				d := Provision(context.Background(), newEngine(t), mustLoad(t, []string{dir}, Options{}))
				errs := d.Errs()
				want := filepath.Join(dir, f.file) + ":" + marked(t, f.src) + ": "
				if len(errs) != 1 || !strings.HasPrefix(errs[0].String(), want) || !strings.Contains(errs[0].String(), "ValidationException") {
					t.Fatalf("diagnostics:\n%s\nwant one ValidationException at %s", diagText(d), want)
				}
			})
		}
	}
}
