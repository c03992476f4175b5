package terraform_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/objstore"
)

// s3Scenario is a scenario whose exports and imports use a folder as S3:
// bucket "landing" is dir/landing.
func s3Scenario(t *testing.T, tl tools, acct account) (*scenario, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "landing"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay,
		engine: func(o *emulator.Options) { o.Objects = objstore.Dir{Root: dir} }})
	return s, dir
}

const importConfig = `
resource "aws_dynamodb_table" "t" {
  name         = "imported"
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

// TestImportTableBlock: import_table {} makes the table with ImportTable
// from the S3 stand-in (the provider waits for the import), with every
// item of the objects; a plan is then clean.
func TestImportTableBlock(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"999999999999", "AKIAIMPORT000000"}
	const region = "eu-north-1"
	s, dir := s3Scenario(t, tl, acct)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range 25 {
		fmt.Fprintf(zw, `{"Item":{"pk":{"S":"k%02d"},"n":{"N":"%d"}}}`+"\n", i, i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "landing", "seed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "landing", "seed", "part-1.json.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c := s.client(region, acct)
	s.write("main.tf", s.terraformBlock()+s.providerBlock("", region, acct)+importConfig)
	s.init()
	s.applyClean("import")
	out, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("imported"), Select: types.SelectCount})
	if err != nil || out.Count != 25 {
		t.Fatalf("imported table: %+v, %v; want 25 items", out, err)
	}
	s.destroy("destroy")
}

const exportConfig = `
resource "aws_dynamodb_table" "t" {
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
resource "aws_dynamodb_table_export" "e" {
  table_arn = aws_dynamodb_table.t.arn
  s3_bucket = "landing"
  s3_prefix = "out"
}
output "manifest" { value = aws_dynamodb_table_export.e.manifest_files_s3_key }
output "items" { value = aws_dynamodb_table_export.e.item_count }
`

// TestTableExport: aws_dynamodb_table_export exports the table to the S3
// stand-in (the provider waits for COMPLETED) and reads back its manifest
// and item count; a plan is then clean.
func TestTableExport(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"101010101010", "AKIAEXPORT000000"}
	const region = "ca-central-1"
	s, dir := s3Scenario(t, tl, acct)
	c := s.client(region, acct)
	head := s.terraformBlock() + s.providerBlock("", region, acct)
	table := strings.SplitN(exportConfig, `resource "aws_dynamodb_table_export"`, 2)[0]
	s.write("main.tf", head+table)
	s.init()
	s.applyClean("table")
	for i := range 7 {
		if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("exported"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint("k", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	s.write("main.tf", head+exportConfig)
	s.applyClean("export")
	outs := s.outputs()
	manifest := stringOf(outs["manifest"])
	if fmt.Sprint(outs["items"]) != "7" || !strings.HasPrefix(manifest, "out/AWSDynamoDB/") {
		t.Fatalf("outputs %v, want 7 items and a manifest under out/AWSDynamoDB/", outs)
	}
	if _, err := os.Stat(filepath.Join(dir, "landing", manifest)); err != nil {
		t.Errorf("the manifest the provider read: %v", err)
	}
	s.destroy("destroy")
}
