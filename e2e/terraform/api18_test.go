package terraform_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
)

// insightsConfig is a table with a GSI and Contributor Insights on both.
const insightsConfig = `
resource "aws_dynamodb_table" "t" {
  name         = "watched"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "g"
    type = "S"
  }
  global_secondary_index {
    name            = "by-g"
    hash_key        = "g"
    projection_type = "KEYS_ONLY"
  }
}
resource "aws_dynamodb_contributor_insights" "table" {
  table_name = aws_dynamodb_table.t.name
}
resource "aws_dynamodb_contributor_insights" "index" {
  table_name = aws_dynamodb_table.t.name
  index_name = "by-g"
}
`

// TestContributorInsights applies aws_dynamodb_contributor_insights on a
// table and on its GSI (the provider waits for ENABLED), plans clean,
// and destroys (it waits for DISABLED).
func TestContributorInsights(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"666666666666", "AKIAINSIGHTS0000"}
	const region = "ap-southeast-2"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	c := s.client(region, acct)
	ctx := t.Context()
	s.write("main.tf", s.terraformBlock()+s.providerBlock("", region, acct)+insightsConfig)
	s.init()
	s.applyClean("create")
	for _, index := range []*string{nil, aws.String("by-g")} {
		d, err := c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("watched"), IndexName: index})
		if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled {
			t.Fatalf("index %v after apply: %+v, %v", aws.ToString(index), d, err)
		}
	}
	s.destroy("destroy")
	_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("watched")})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("after destroy: %v, want the table gone", err)
	}
}

// kinesisConfig is a table with a Kinesis streaming destination; the
// stream is named by ARN (ExtendDB serves no Kinesis, and without
// --kinesis-endpoint the destination is bookkeeping only).
const kinesisConfig = `
resource "aws_dynamodb_table" "t" {
  name         = "streamed"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
}
resource "aws_dynamodb_kinesis_streaming_destination" "d" {
  table_name = aws_dynamodb_table.t.name
  stream_arn = "arn:aws:kinesis:us-west-2:777777777777:stream/changes"
  approximate_creation_date_time_precision = "PRECISION"
}
`

// TestKinesisStreamingDestination applies the destination (the provider
// waits for ACTIVE), changes its precision, plans clean, and destroys (it
// waits for DISABLED).
func TestKinesisStreamingDestination(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"777777777777", "AKIAKINESIS00000"}
	const region = "us-west-2"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	c := s.client(region, acct)
	ctx := t.Context()
	head := s.terraformBlock() + s.providerBlock("", region, acct)
	check := func(step, precision string) {
		t.Helper()
		d, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("streamed")})
		if err != nil || len(d.KinesisDataStreamDestinations) != 1 {
			t.Fatalf("%s: %+v, %v", step, d, err)
		}
		got := d.KinesisDataStreamDestinations[0]
		if got.DestinationStatus != types.DestinationStatusActive || string(got.ApproximateCreationDateTimePrecision) != precision {
			t.Fatalf("%s: %s at %s, want ACTIVE at %s", step, got.DestinationStatus, got.ApproximateCreationDateTimePrecision, precision)
		}
	}
	s.write("main.tf", head+strings.ReplaceAll(kinesisConfig, "PRECISION", "MILLISECOND"))
	s.init()
	s.applyClean("create")
	check("create", "MILLISECOND")
	s.write("main.tf", head+strings.ReplaceAll(kinesisConfig, "PRECISION", "MICROSECOND"))
	s.applyClean("change the precision")
	check("change the precision", "MICROSECOND")
	s.destroy("destroy")
}

// restoreConfig is a table with PITR and, in the second step, a table
// restored from it at the latest restorable time.
const restoreConfig = `
resource "aws_dynamodb_table" "src" {
  name         = "ledger"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
  }
}
`

const restoredConfig = `
resource "aws_dynamodb_table" "copy" {
  name                   = "ledger-copy"
  billing_mode           = "PAY_PER_REQUEST"
  hash_key               = "pk"
  restore_source_name    = aws_dynamodb_table.src.name
  restore_to_latest_time = true
  attribute {
    name = "pk"
    type = "S"
  }
}
`

// TestRestoreSourceName: restore_source_name with restore_to_latest_time
// makes the table with RestoreTableToPointInTime, holding the item written
// before; a plan is then clean.
func TestRestoreSourceName(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"888888888888", "AKIARESTORE00000"}
	const region = "sa-east-1"
	// No lag: the latest restorable time is now, so the item just written
	// is in the restore.
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay,
		engine: func(o *emulator.Options) { o.PITRLag = -1 }})
	c := s.client(region, acct)
	ctx := t.Context()
	head := s.terraformBlock() + s.providerBlock("", region, acct)
	s.write("main.tf", head+restoreConfig)
	s.init()
	s.applyClean("source")
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "entry-1"}}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ledger"), Item: key}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // restore times have whole seconds
	s.write("main.tf", head+restoreConfig+restoredConfig)
	s.applyClean("restore")
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ledger-copy")})
	if err != nil || d.Table.RestoreSummary == nil || aws.ToString(d.Table.RestoreSummary.SourceTableArn) == "" {
		t.Fatalf("restored table: %+v, %v", d, err)
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ledger-copy"), Key: key})
	if err != nil || got.Item == nil {
		t.Fatalf("the item written before the restore: %+v, %v", got, err)
	}
	s.destroy("destroy")
}
