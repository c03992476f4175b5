package terraform_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/objstore"
)

// The resources beside aws_dynamodb_table, each on a table of its own, are
// applied together in one configuration of two versions: every Terraform
// command costs seconds of CPU whatever it holds, so one scenario with two
// applies covers what six scenarios covered with thirteen.

// seededConfig: import_table {} makes the table with ImportTable from the
// S3 stand-in (the provider waits for the import).
const seededConfig = `
resource "aws_dynamodb_table" "seeded" {
  name         = "seeded"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  import_table {
    input_format           = "DYNAMODB_JSON"
    input_compression_type = "GZIP"
    s3_bucket_source {
      bucket     = "landing"
      key_prefix = "seed/"
    }
  }
}
`

// exportedConfig is a table with PITR; exportConfig exports it to the S3
// stand-in (the provider waits for COMPLETED and reads the manifest and the
// item count).
const (
	exportedConfig = `
resource "aws_dynamodb_table" "exported" {
  name         = "exported"
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
	exportConfig = `
resource "aws_dynamodb_table_export" "e" {
  table_arn = aws_dynamodb_table.exported.arn
  s3_bucket = "landing"
  s3_prefix = "out"
}
output "manifest" { value = aws_dynamodb_table_export.e.manifest_files_s3_key }
output "items" { value = aws_dynamodb_table_export.e.item_count }
`
)

// insightsConfig is a table with a GSI and Contributor Insights on both (the
// provider waits for ENABLED, and for DISABLED on destroy).
const insightsConfig = `
resource "aws_dynamodb_table" "watched" {
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
  table_name = aws_dynamodb_table.watched.name
}
resource "aws_dynamodb_contributor_insights" "index" {
  table_name = aws_dynamodb_table.watched.name
  index_name = "by-g"
}
`

// kinesisConfig streams a table to the Kinesis stream STREAM (of the
// table's account and Region) at PRECISION, which the second version
// changes.
const kinesisConfig = `
resource "aws_dynamodb_table" "streamed" {
  name         = "streamed"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
}
resource "aws_dynamodb_kinesis_streaming_destination" "d" {
  table_name = aws_dynamodb_table.streamed.name
  stream_arn = "STREAM"
  approximate_creation_date_time_precision = "PRECISION"
}
`

// restoreConfig is a table with PITR; restoredConfig restores it to its
// latest time by name (restore_source_name).
const (
	restoreConfig = `
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
	restoredConfig = `
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
)

// policyConfig is a table with a stream, a policy on each, and the table
// policy's action as ACTION, which the second version changes.
const policyConfig = `
resource "aws_dynamodb_table" "guarded" {
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
  resource_arn = aws_dynamodb_table.guarded.arn
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { AWS = "arn:aws:iam::222222222222:root" }, Action = "ACTION", Resource = aws_dynamodb_table.guarded.arn }]
  })
}
resource "aws_dynamodb_resource_policy" "stream" {
  resource_arn = aws_dynamodb_table.guarded.stream_arn
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { AWS = "222222222222" }, Action = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"], Resource = aws_dynamodb_table.guarded.stream_arn }]
  })
}
output "revision" { value = aws_dynamodb_resource_policy.table.revision_id }
`

// TestTableResources applies, in one account and Region: a table made by
// import_table {}; a table with PITR; Contributor Insights on a table and
// its GSI; a Kinesis streaming destination; a PITR table to restore from;
// resource policies on a table and its stream. Each apply is followed by a
// clean plan and SDK checks. The second version exports the PITR table
// (after items are written), changes the Kinesis precision, restores the
// other table by name (after an item is written) and changes the table
// policy. The destroy must remove everything.
func TestTableResources(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"999999999999", "AKIARESOURCES000"}
	const region = "eu-north-1"
	dir := t.TempDir()
	seedObjects(t, filepath.Join(dir, "landing", "seed"))
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay,
		engine: func(o *emulator.Options) {
			o.Objects = objstore.Dir{Root: dir}
			o.PITRLag = -1
		}})
	c := s.client(region, acct)
	ctx := t.Context()
	head := s.terraformBlock() + s.providerBlock("", region, acct)
	kinesis := func(precision string) string {
		return strings.NewReplacer("PRECISION", precision, "STREAM", "arn:aws:kinesis:"+region+":"+acct.id+":stream/changes").Replace(kinesisConfig)
	}
	policy := func(action string) string { return strings.Replace(policyConfig, "ACTION", action, 1) }
	policyARN := "arn:aws:dynamodb:" + region + ":" + acct.id + ":table/guarded"

	s.write("main.tf", head+seededConfig+exportedConfig+insightsConfig+kinesis("MILLISECOND")+restoreConfig+policy("dynamodb:GetItem"))
	s.init()
	s.applyClean("create")

	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("seeded"), Select: types.SelectCount})
	if err != nil || out.Count != 25 {
		t.Errorf("import_table: %+v, %v; want 25 items", out, err)
	}
	for _, index := range []*string{nil, aws.String("by-g")} {
		d, err := c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("watched"), IndexName: index})
		if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled {
			t.Errorf("contributor insights of index %v after apply: %+v, %v", aws.ToString(index), d, err)
		}
	}
	checkKinesis(t, c, "create", "MILLISECOND")
	first, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(policyARN)})
	if err != nil || !strings.Contains(aws.ToString(first.Policy), "dynamodb:GetItem") {
		t.Fatalf("table policy after apply: %+v, %v", first, err)
	}
	wantField(t, "outputs", "revision", stringOf(s.outputs()["revision"]), aws.ToString(first.RevisionId))
	if ts, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("guarded")}); err != nil {
		t.Error(err)
	} else if _, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: ts.Table.LatestStreamArn}); err != nil {
		t.Errorf("stream policy after apply: %v", err)
	}
	if t.Failed() {
		t.FailNow()
	}

	for i := range 7 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("exported"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	ledgerKey := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "entry-1"}}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ledger"), Item: ledgerKey}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // restore times have whole seconds

	s.write("main.tf", head+seededConfig+exportedConfig+exportConfig+insightsConfig+kinesis("MICROSECOND")+
		restoreConfig+restoredConfig+policy("dynamodb:Query"))
	s.applyClean("export, restore, change the precision and the policy")

	outs := s.outputs()
	manifest := stringOf(outs["manifest"])
	if fmt.Sprint(outs["items"]) != "7" || !strings.HasPrefix(manifest, "out/AWSDynamoDB/") {
		t.Errorf("export outputs %v, want 7 items and a manifest under out/AWSDynamoDB/", outs)
	} else if _, err := os.Stat(filepath.Join(dir, "landing", manifest)); err != nil {
		t.Errorf("the manifest the provider read: %v", err)
	}
	checkKinesis(t, c, "change the precision", "MICROSECOND")
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ledger-copy")})
	if err != nil || d.Table.RestoreSummary == nil || aws.ToString(d.Table.RestoreSummary.SourceTableArn) == "" {
		t.Errorf("restored table: %+v, %v", d, err)
	} else if got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ledger-copy"), Key: ledgerKey}); err != nil || got.Item == nil {
		t.Errorf("the item written before the restore: %+v, %v", got, err)
	}
	second, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(policyARN)})
	if err != nil || !strings.Contains(aws.ToString(second.Policy), "dynamodb:Query") || aws.ToString(second.RevisionId) == aws.ToString(first.RevisionId) {
		t.Errorf("table policy after change: %+v, %v", second, err)
	}

	s.destroy("destroy")
	if left := tablesIn(t, c); len(left) > 0 {
		t.Errorf("tables left after destroy: %v", left)
	}
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(policyARN)})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("policy after destroy: %v, want the table gone", err)
	}
}

// seedObjects writes the gzipped DynamoDB JSON object import_table reads:
// 25 items.
func seedObjects(t *testing.T, dir string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range 25 {
		fmt.Fprintf(zw, `{"Item":{"pk":{"S":"k%02d"},"n":{"N":"%d"}}}`+"\n", i, i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-1.json.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkKinesis requires the table's one Kinesis destination ACTIVE at
// precision.
func checkKinesis(t *testing.T, c *dynamodb.Client, step, precision string) {
	t.Helper()
	d, err := c.DescribeKinesisStreamingDestination(t.Context(), &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("streamed")})
	if err != nil || len(d.KinesisDataStreamDestinations) != 1 {
		t.Errorf("%s: kinesis destinations %+v, %v", step, d, err)
		return
	}
	got := d.KinesisDataStreamDestinations[0]
	if got.DestinationStatus != types.DestinationStatusActive || string(got.ApproximateCreationDateTimePrecision) != precision {
		t.Errorf("%s: kinesis destination %s at %s, want ACTIVE at %s", step, got.DestinationStatus, got.ApproximateCreationDateTimePrecision, precision)
	}
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
