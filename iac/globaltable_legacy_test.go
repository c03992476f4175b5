package iac

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/extenddb/extenddb/pebblestore"
)

// legacyTF is Terraform's aws_dynamodb_global_table example: one table
// per Region through provider aliases, linked by the global table.
const legacyTF = `
provider "aws" {
  alias  = "us-east-1"
  region = "us-east-1"
}
provider "aws" {
  alias  = "us-west-2"
  region = "us-west-2"
}
resource "aws_dynamodb_table" "us-east-1" {
  provider         = aws.us-east-1
  hash_key         = "myAttribute"
  name             = "myTable"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  read_capacity    = 1
  write_capacity   = 1
  attribute {
    name = "myAttribute"
    type = "S"
  }
}
resource "aws_dynamodb_table" "us-west-2" {
  provider         = aws.us-west-2
  hash_key         = "myAttribute"
  name             = "myTable"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  read_capacity    = 1
  write_capacity   = 1
  attribute {
    name = "myAttribute"
    type = "S"
  }
}
resource "aws_dynamodb_global_table" "myTable" {
  depends_on = [aws_dynamodb_table.us-east-1, aws_dynamodb_table.us-west-2]
  provider   = aws.us-east-1
  name       = "myTable"
  replica {
    region_name = "us-east-1"
  }
  replica {
    region_name = "us-west-2"
  }
}
output "gt_arn" { value = aws_dynamodb_global_table.myTable.arn }
`

func newLegacyEngine(t *testing.T, legacy bool) *emulator.Engine {
	t.Helper()
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := emulator.New(emulator.Options{Store: st, LegacyGlobalTables: legacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = eng.Close()
		_ = st.Close()
	})
	return eng
}

// TestLegacyGlobalTableLoads: aws_dynamodb_global_table links the declared
// tables into a legacy global table whose writes replicate; a reload
// changes nothing.
func TestLegacyGlobalTableLoads(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": legacyTF})
	eng := newLegacyEngine(t, true)
	opts := Options{DefaultRegion: "us-east-1", Getenv: noEnv}
	specs := mustLoad(t, []string{dir}, opts)
	ctx := context.Background()
	if d := Provision(ctx, eng, specs); len(d.Errs()) > 0 {
		t.Fatal(diagText(d))
	}
	east := api.Namespace{Account: specs[0].Account, Region: "us-east-1"}
	west := api.Namespace{Account: specs[0].Account, Region: "us-west-2"}
	g, err := eng.DescribeGlobalTable(ctx, west, &api.DescribeGlobalTableInput{GlobalTableName: spec.Str("myTable")})
	if err != nil {
		t.Fatal(err)
	}
	var regions []string
	for _, r := range g.GlobalTableDescription.ReplicationGroup {
		regions = append(regions, r.RegionName)
	}
	if !slices.Equal(regions, []string{"us-east-1", "us-west-2"}) {
		t.Errorf("replication group %v", regions)
	}
	if _, err := eng.PutItem(ctx, west, &api.PutItemInput{TableName: spec.Str("myTable"), Item: av.Item{"myAttribute": {Type: av.TypeS, S: "a"}}}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		out, err := eng.GetItem(ctx, east, &api.GetItemInput{TableName: spec.Str("myTable"), Key: av.Item{"myAttribute": {Type: av.TypeS, S: "a"}}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Item != nil {
			if out.Item["aws:rep:updateregion"].S != "us-west-2" {
				t.Errorf("replicated item %v", out.Item)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the write never reached the other Region")
		}
		time.Sleep(10 * time.Millisecond)
	}
	outs, d := ProvisionWith(ctx, eng, mustLoad(t, []string{dir}, opts), ProvisionOptions{})
	if len(d.Errs()) > 0 {
		t.Fatal(diagText(d))
	}
	for _, o := range outs {
		if o.Action != Unchanged {
			t.Errorf("reload: %s in %s %s", o.Spec.Name(), o.Spec.Region, o.Action)
		}
	}
	// One Region fewer in the declaration: the reload removes it.
	write(t, dir, map[string]string{"main.tf": strings.Replace(legacyTF, "  replica {\n    region_name = \"us-west-2\"\n  }\n", "", 1)})
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, opts)); len(d.Errs()) > 0 {
		t.Fatal(diagText(d))
	}
	g, err = eng.DescribeGlobalTable(ctx, east, &api.DescribeGlobalTableInput{GlobalTableName: spec.Str("myTable")})
	if err != nil || len(g.GlobalTableDescription.ReplicationGroup) != 1 {
		t.Fatalf("after removing a replica block: %+v %v", g, err)
	}
}

// TestLegacyGlobalTableNeedsFlag: without --legacy-global-tables the load
// fails at the global table's declaration, saying why.
func TestLegacyGlobalTableNeedsFlag(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": legacyTF})
	eng := newLegacyEngine(t, false)
	specs := mustLoad(t, []string{dir}, Options{DefaultRegion: "us-east-1", Getenv: noEnv})
	d := Provision(context.Background(), eng, specs)
	if errs := d.Errs(); len(errs) != 1 || !strings.Contains(errs[0].String(), "--legacy-global-tables") || !strings.Contains(errs[0].String(), "main.tf:36:") {
		t.Fatalf("diagnostics: %s", diagText(d))
	}
}

// TestLegacyGlobalTableUndeclaredMember: a replica Region without a table
// declared is an error of the configuration.
func TestLegacyGlobalTableUndeclaredMember(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": strings.Replace(legacyTF, `region_name = "us-west-2"`, `region_name = "eu-west-1"`, 1)})
	_, d := Load([]string{dir}, Options{DefaultRegion: "us-east-1", Getenv: noEnv})
	if !d.HasErrors() || !strings.Contains(diagText(d), "no table myTable is declared in account") {
		t.Fatalf("diagnostics: %s", diagText(d))
	}
}
