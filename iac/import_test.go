package iac

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/pebblestore"
)

// Terraform import_table {} and CloudFormation ImportSourceSpecification
// create the table with ImportTable from the S3 stand-in.

func importEngine(t *testing.T) (*emulator.Engine, string) {
	t.Helper()
	root := t.TempDir()
	write(t, root, map[string]string{
		"bkt/seed/a.json": `{"Item":{"id":{"S":"a"},"n":{"N":"1"}}}` + "\n" + `{"Item":{"id":{"S":"b"}}}` + "\n",
		"bkt/csv/a.csv":   "id;note\nx;hello\n",
	})
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := emulator.New(emulator.Options{Store: st, Objects: objstore.Dir{Root: root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = eng.Close()
		_ = st.Close()
	})
	return eng, root
}

func importedCount(t *testing.T, eng *emulator.Engine, ns api.Namespace, name string) int64 {
	t.Helper()
	out, err := eng.Scan(context.Background(), ns, &api.ScanInput{TableName: spec.Str(name)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Count
}

func TestLoadImportTable(t *testing.T) {
	eng, _ := importEngine(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"tf/main.tf": `
provider "aws" { region = "eu-west-1" }
resource "aws_dynamodb_table" "t" {
  name         = "tfimport"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  tags = { team = "x" }
  import_table {
    input_format = "DYNAMODB_JSON"
    s3_bucket_source {
      bucket     = "bkt"
      key_prefix = "seed/"
    }
  }
}
`,
		"cfn.yaml": `Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: cfnimport
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
      ImportSourceSpecification:
        InputFormat: CSV
        InputFormatOptions: {Csv: {Delimiter: ";"}}
        S3BucketSource: {S3Bucket: bkt, S3KeyPrefix: csv/}
`,
	})
	specs, diags := Load([]string{filepath.Join(dir, "tf"), filepath.Join(dir, "cfn.yaml")}, Options{Getenv: noEnv, StackRegion: "us-west-1"})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, sp := range specs {
		if sp.Name() == "tfimport" && !strings.Contains(Describe(&sp), "  import:     DYNAMODB_JSON from s3://bkt/seed/ (NONE)\n") {
			t.Errorf("Describe:\n%s", Describe(&sp))
		}
	}
	if d := Provision(context.Background(), eng, specs); d.HasErrors() || strings.Contains(d.Error(), "import") {
		t.Fatalf("provision: %s", d.Error())
	}
	tf := api.Namespace{Account: "000000000000", Region: "eu-west-1"}
	if n := importedCount(t, eng, tf, "tfimport"); n != 2 {
		t.Errorf("tfimport holds %d items, want 2", n)
	}
	tags, err := eng.ListTagsOfResource(context.Background(), tf, &api.ListTagsOfResourceInput{ResourceArn: spec.Str(tf.TableARN("tfimport"))})
	if err != nil || len(tags.Tags) != 1 {
		t.Errorf("tags after the import: %v %+v", err, tags)
	}
	cfn := api.Namespace{Account: "000000000000", Region: "us-west-1"}
	if n := importedCount(t, eng, cfn, "cfnimport"); n != 1 {
		t.Errorf("cfnimport holds %d items, want 1", n)
	}
	// Loading again keeps the tables and imports nothing more.
	if d := Provision(context.Background(), eng, specs); d.HasErrors() {
		t.Fatal(d.Error())
	}
	out, err := eng.ListImports(context.Background(), tf, &api.ListImportsInput{})
	if err != nil || len(out.ImportSummaryList) != 1 {
		t.Errorf("imports after a second load: %v %+v", err, out)
	}
}

func TestLoadImportTableMissingBucket(t *testing.T) {
	eng, root := importEngine(t)
	if err := os.RemoveAll(filepath.Join(root, "bkt")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": `
resource "aws_dynamodb_table" "t" {
  name         = "tfimport"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  import_table {
    input_format = "DYNAMODB_JSON"
    s3_bucket_source { bucket = "bkt" }
  }
}
`})
	specs, diags := Load([]string{dir}, Options{Getenv: noEnv})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	d := Provision(context.Background(), eng, specs)
	if !d.HasErrors() || !strings.Contains(d.Error(), "S3NoSuchBucket") {
		t.Errorf("want an S3NoSuchBucket error, got %q", d.Error())
	}
}
