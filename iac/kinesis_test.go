package iac

import (
	"context"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

func kinesisDests(t *testing.T, eng *emulator.Engine, ns api.Namespace, table string) string {
	t.Helper()
	out, err := eng.DescribeKinesisStreamingDestination(context.Background(), ns, &api.DescribeKinesisStreamingDestinationInput{TableName: spec.Str(table)})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, d := range out.KinesisDataStreamDestinations {
		parts = append(parts, d.StreamArn+" "+d.DestinationStatus+" "+d.ApproximateCreationDateTimePrecision)
	}
	return strings.Join(parts, "; ")
}

var tfKinesisTable = strings.Replace(tfTable, `name         = "tf"`, `name         = "tfk"`, 1)

var tfKinesis = tfKinesisTable + `
resource "aws_kinesis_stream" "s" {
  name        = "changes"
  shard_count = 1
}
resource "aws_dynamodb_kinesis_streaming_destination" "d" {
  table_name = aws_dynamodb_table.t.name
  stream_arn = aws_kinesis_stream.s.arn
  PRECISION
}
`

// Terraform's aws_dynamodb_kinesis_streaming_destination (with the stream
// ARN of an aws_kinesis_stream) is enabled, its precision updated, and it
// is disabled when it goes.
func TestProvisionTerraformKinesisDestination(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	ns := api.Namespace{Account: "111111111111", Region: "eu-west-1"}
	stream := "arn:aws:kinesis:eu-west-1:111111111111:stream/changes"
	dir := t.TempDir()
	apply := func(src string) {
		t.Helper()
		write(t, dir, map[string]string{"main.tf": src})
		if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
			t.Fatal(d.Error())
		}
	}
	apply(strings.Replace(tfKinesis, "PRECISION", "", 1))
	if got := kinesisDests(t, eng, ns, "tfk"); got != stream+" ACTIVE MILLISECOND" {
		t.Fatalf("after the first load: %q", got)
	}
	if out := Describe(&mustLoad(t, []string{dir}, Options{})[0]); !strings.Contains(out, "  kinesis:    "+stream+" (MILLISECOND)\n") {
		t.Errorf("Describe shows no Kinesis destination:\n%s", out)
	}
	apply(strings.Replace(tfKinesis, "PRECISION", `approximate_creation_date_time_precision = "MICROSECOND"`, 1))
	if got := kinesisDests(t, eng, ns, "tfk"); got != stream+" ACTIVE MICROSECOND" {
		t.Fatalf("after a precision change: %q", got)
	}
	apply(tfKinesisTable)
	if got := kinesisDests(t, eng, ns, "tfk"); got != stream+" DISABLED MICROSECOND" {
		t.Fatalf("after the destination went: %q", got)
	}

	// A destination of an undeclared table is an error at the resource.
	write(t, dir, map[string]string{"main.tf": strings.Replace(strings.Replace(tfKinesis, "PRECISION", "", 1), "aws_dynamodb_table.t.name", `"other"`, 1)})
	_, diags := Load([]string{dir}, Options{Getenv: noEnv})
	if !strings.Contains(diags.Error(), "main.tf:20:1: table_name other names no table declared in account 111111111111, Region eu-west-1") {
		t.Errorf("unknown table: %q", diags.Error())
	}
}

// CloudFormation's KinesisStreamSpecification, on a table and on a global
// table's replica; the engine's refusal is reported at the property.
func TestProvisionCloudFormationKinesisStreamSpecification(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	ns := api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}
	stream := "arn:aws:kinesis:us-east-1:000000000000:stream/s"
	dir := t.TempDir()
	write(t, dir, map[string]string{"t.yaml": cfnTable + `      KinesisStreamSpecification:
        StreamArn: !Sub arn:${AWS::Partition}:kinesis:${AWS::Region}:${AWS::AccountId}:stream/s
        ApproximateCreationDateTimePrecision: MICROSECOND
`})
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	if got := kinesisDests(t, eng, ns, "cfn"); got != stream+" ACTIVE MICROSECOND" {
		t.Fatalf("KinesisStreamSpecification: %q", got)
	}

	gt := t.TempDir()
	write(t, gt, map[string]string{"g.yaml": `Resources:
  G:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: gtk
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
      Replicas:
        - Region: us-east-1
          KinesisStreamSpecification: {StreamArn: "arn:aws:kinesis:us-east-1:000000000000:stream/g"}
`})
	if d := Provision(ctx, eng, mustLoad(t, []string{gt}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	if got := kinesisDests(t, eng, ns, "gtk"); got != "arn:aws:kinesis:us-east-1:000000000000:stream/g ACTIVE MILLISECOND" {
		t.Fatalf("replica KinesisStreamSpecification: %q", got)
	}

	bad := t.TempDir()
	write(t, bad, map[string]string{"b.yaml": strings.Replace(cfnTable, "TableName: cfn", "TableName: bad", 1) +
		"      KinesisStreamSpecification:\n        StreamArn: arn:aws:kinesis:eu-west-1:000000000000:stream/s\n"})
	d := Provision(ctx, eng, mustLoad(t, []string{bad}, Options{}))
	if !strings.Contains(d.Error(), "b.yaml:10:9: Resources.T (bad in 000000000000/us-east-1): EnableKinesisStreamingDestination: ValidationException: Invalid StreamArn: the Kinesis data stream arn:aws:kinesis:eu-west-1:000000000000:stream/s must be in the same account and Region") {
		t.Errorf("foreign stream: %q", d.Error())
	}
}
