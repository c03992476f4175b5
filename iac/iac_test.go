package iac

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/extenddb/extenddb/pebblestore"
)

func noEnv(string) (string, bool) { return "", false }

func newEngine(t *testing.T) *emulator.Engine {
	t.Helper()
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := emulator.New(emulator.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = eng.Close()
		_ = st.Close()
	})
	return eng
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const tfTable = `
provider "aws" {
  region              = "eu-west-1"
  allowed_account_ids = ["111111111111"]
}
resource "aws_dynamodb_table" "t" {
  name         = "tf"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`

const cfnTable = `Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: cfn
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      BillingMode: PAY_PER_REQUEST
`

func TestLoadDispatch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"tf/main.tf":            tfTable,
		"cfn/a.yaml":            cfnTable,
		"cfn/notes.json":        `{"not": "a template"}`,
		"cfn/b.template":        strings.ReplaceAll(cfnTable, "cfn", "cfn-b"),
		"single.yml":            strings.ReplaceAll(cfnTable, "cfn", "single"),
		"cdk.out/manifest.json": `{"artifacts": {"S": {"type": "aws:cloudformation:stack", "environment": "aws://222222222222/ap-south-1", "properties": {"templateFile": "S.template.json"}}}}`,
		"cdk.out/S.template.json": `{"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "cdk",
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}}}}`,
		"empty/readme.txt": "nothing",
		"vars.tfvars":      "a = 1",
		"bad.yaml":         "just: text",
	})
	opts := Options{Getenv: noEnv, StackRegion: "us-west-1"}
	specs, diags := Load([]string{filepath.Join(dir, "tf"), filepath.Join(dir, "cfn"), filepath.Join(dir, "single.yml"), filepath.Join(dir, "cdk.out"), filepath.Join(dir, "tf", "main.tf") + "x"}, opts)
	if !diags.HasErrors() || specs != nil {
		t.Fatalf("a missing path is an error and provisions nothing")
	}
	specs, diags = Load([]string{filepath.Join(dir, "tf"), filepath.Join(dir, "cfn"), filepath.Join(dir, "single.yml"), filepath.Join(dir, "cdk.out")}, opts)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := map[string]string{}
	for _, s := range specs {
		got[s.Name()] = s.ARN()
	}
	want := map[string]string{
		"tf":     "arn:aws:dynamodb:eu-west-1:111111111111:table/tf",
		"cfn":    "arn:aws:dynamodb:us-west-1:000000000000:table/cfn",
		"cfn-b":  "arn:aws:dynamodb:us-west-1:000000000000:table/cfn-b",
		"single": "arn:aws:dynamodb:us-west-1:000000000000:table/single",
		"cdk":    "arn:aws:dynamodb:ap-south-1:222222222222:table/cdk",
	}
	if len(got) != len(want) {
		t.Errorf("tables %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for _, c := range []struct{ path, want string }{
		{"empty", "no Terraform configuration, CloudFormation template or cdk.out found"},
		{"vars.tfvars", "pass it with --var-file"},
		{"bad.yaml", "bad.yaml:1:1: not a CloudFormation template"},
	} {
		_, diags := Load([]string{filepath.Join(dir, c.path)}, opts)
		if !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: %q lacks %q", c.path, diags.Error(), c.want)
		}
	}
	// A .tf file loads its directory.
	specs, _ = Load([]string{filepath.Join(dir, "tf", "main.tf")}, opts)
	if len(specs) != 1 || specs[0].Name() != "tf" {
		t.Errorf(".tf file: %v", specs)
	}
}

func TestLoadDuplicates(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.yaml": cfnTable, "b.yaml": cfnTable})
	specs, diags := Load([]string{dir}, Options{Getenv: noEnv})
	if specs != nil || !strings.Contains(diags.Error(), "b.yaml:3:5: table cfn in account 000000000000, Region us-east-1 is already declared at ") {
		t.Errorf("duplicates: %v", diags.Error())
	}
	// The same name in two stacks of different Regions is two tables.
	write(t, dir, map[string]string{"b.yaml": strings.Replace(cfnTable, "TableName: cfn", "TableName: !Sub \"${AWS::Region}\"", 1)})
	if _, diags := Load([]string{dir}, Options{Getenv: noEnv}); diags.HasErrors() {
		t.Error(diags.Error())
	}
}

func describe(t *testing.T, eng *emulator.Engine, ns api.Namespace, name string) *api.TableDescription {
	t.Helper()
	out, err := eng.DescribeTable(context.Background(), ns, &api.DescribeTableInput{TableName: spec.Str(name)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", name, err)
	}
	return out.Table
}

func mustLoad(t *testing.T, paths []string, opts Options) []TableSpec {
	t.Helper()
	opts.Getenv = noEnv
	specs, diags := Load(paths, opts)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return specs
}

func TestProvisionCreatesAndIsIdempotent(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": `
provider "aws" {
  region              = "eu-west-1"
  allowed_account_ids = ["111111111111"]
}
resource "aws_dynamodb_table" "t" {
  name         = "orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  attribute {
    name = "g"
    type = "S"
  }
  global_secondary_index {
    name            = "byG"
    hash_key        = "g"
    projection_type = "ALL"
  }
  on_demand_throughput {
    max_read_request_units = 100
  }
  ttl {
    enabled        = true
    attribute_name = "exp"
  }
  point_in_time_recovery {
    enabled = true
  }
  stream_enabled   = true
  stream_view_type = "NEW_IMAGE"
  tags = { team = "a" }
}
resource "aws_dynamodb_table_item" "seed" {
  table_name = aws_dynamodb_table.t.name
  hash_key   = "id"
  item       = jsonencode({ id = { S = "seed" }, v = { N = "1" } })
}
`})
	specs := mustLoad(t, []string{dir}, Options{})
	if d := Provision(ctx, eng, specs); d.HasErrors() {
		t.Fatal(d.Error())
	}
	ns := api.Namespace{Account: "111111111111", Region: "eu-west-1"}
	td := describe(t, eng, ns, "orders")
	if td.TableArn != "arn:aws:dynamodb:eu-west-1:111111111111:table/orders" || td.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" ||
		td.OnDemandThroughput == nil || td.OnDemandThroughput.MaxReadRequestUnits != 100 || len(td.GlobalSecondaryIndexes) != 1 ||
		td.StreamSpecification == nil || td.StreamSpecification.StreamViewType != "NEW_IMAGE" {
		t.Errorf("table: %+v", td)
	}
	ttl, err := eng.DescribeTimeToLive(ctx, ns, &api.DescribeTimeToLiveInput{TableName: spec.Str("orders")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != "ENABLED" || ttl.TimeToLiveDescription.AttributeName != "exp" {
		t.Errorf("ttl %+v %v", ttl, err)
	}
	cb, err := eng.DescribeContinuousBackups(ctx, ns, &api.DescribeContinuousBackupsInput{TableName: spec.Str("orders")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != "ENABLED" {
		t.Errorf("pitr %+v %v", cb, err)
	}
	tg, err := eng.ListTagsOfResource(ctx, ns, &api.ListTagsOfResourceInput{ResourceArn: spec.Str(td.TableArn)})
	if err != nil || len(tg.Tags) != 1 || tg.Tags[0].Key != "team" || tg.Tags[0].Value != "a" {
		t.Errorf("tags %+v %v", tg, err)
	}
	key := av.Item{"id": {Type: av.TypeS, S: "seed"}}
	got, err := eng.GetItem(ctx, ns, &api.GetItemInput{TableName: spec.Str("orders"), Key: key})
	if err != nil || got.Item["v"].S != "1" {
		t.Fatalf("seed item %+v %v", got, err)
	}

	// A session changes the seed item and adds another; reloading keeps both.
	if _, err := eng.PutItem(ctx, ns, &api.PutItemInput{TableName: spec.Str("orders"), Item: av.Item{"id": {Type: av.TypeS, S: "seed"}, "v": {Type: av.TypeN, S: "2"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.PutItem(ctx, ns, &api.PutItemInput{TableName: spec.Str("orders"), Item: av.Item{"id": {Type: av.TypeS, S: "mine"}}}); err != nil {
		t.Fatal(err)
	}
	createdAt := td.CreationDateTime
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	td = describe(t, eng, ns, "orders")
	if td.CreationDateTime != createdAt {
		t.Error("reloading re-created the table")
	}
	got, _ = eng.GetItem(ctx, ns, &api.GetItemInput{TableName: spec.Str("orders"), Key: key})
	if got.Item["v"].S != "2" {
		t.Errorf("reloading overwrote a changed seed item: %+v", got.Item)
	}
	got, _ = eng.GetItem(ctx, ns, &api.GetItemInput{TableName: spec.Str("orders"), Key: av.Item{"id": {Type: av.TypeS, S: "mine"}}})
	if got.Item == nil {
		t.Error("reloading lost an item")
	}
}

func TestProvisionReconciles(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	dir := t.TempDir()
	base := `
resource "aws_dynamodb_table" "t" {
  name           = "rec"
  billing_mode   = "PROVISIONED"
  read_capacity  = 5
  write_capacity = 5
  hash_key       = "id"
  attribute {
    name = "id"
    type = "S"
  }
  attribute {
    name = "a"
    type = "S"
  }
  global_secondary_index {
    name            = "old"
    hash_key        = "a"
    projection_type = "ALL"
    read_capacity   = 1
    write_capacity  = 1
  }
  ttl {
    enabled        = true
    attribute_name = "exp"
  }
  tags = { keep = "1", drop = "2" }
}
`
	write(t, dir, map[string]string{"main.tf": base})
	ns := api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	if _, err := eng.PutItem(ctx, ns, &api.PutItemInput{TableName: spec.Str("rec"), Item: av.Item{"id": {Type: av.TypeS, S: "x"}}}); err != nil {
		t.Fatal(err)
	}
	changed := strings.NewReplacer(
		`billing_mode   = "PROVISIONED"`, `billing_mode   = "PAY_PER_REQUEST"`,
		`name            = "old"`, `name            = "new"`,
		`attribute_name = "exp"`, `attribute_name = "expires"`,
		`drop = "2"`, `added = "3"`,
	).Replace(base) + `
`
	changed = strings.Replace(changed, "  tags =", "  stream_enabled = true\n  stream_view_type = \"KEYS_ONLY\"\n  deletion_protection_enabled = true\n  table_class = \"STANDARD_INFREQUENT_ACCESS\"\n  tags =", 1)
	write(t, dir, map[string]string{"main.tf": changed})
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d.Error())
	}
	td := describe(t, eng, ns, "rec")
	if td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" {
		t.Errorf("billing mode not reconciled: %+v", td.BillingModeSummary)
	}
	if len(td.GlobalSecondaryIndexes) != 1 || td.GlobalSecondaryIndexes[0].IndexName != "new" {
		t.Errorf("GSIs not reconciled: %+v", td.GlobalSecondaryIndexes)
	}
	if td.StreamSpecification == nil || !td.StreamSpecification.StreamEnabled || !td.DeletionProtectionEnabled ||
		td.TableClassSummary == nil || td.TableClassSummary.TableClass != "STANDARD_INFREQUENT_ACCESS" {
		t.Errorf("stream/protection/class not reconciled: %+v", td)
	}
	ttl, _ := eng.DescribeTimeToLive(ctx, ns, &api.DescribeTimeToLiveInput{TableName: spec.Str("rec")})
	if ttl.TimeToLiveDescription.AttributeName != "expires" {
		t.Errorf("ttl not reconciled: %+v", ttl.TimeToLiveDescription)
	}
	tg, _ := eng.ListTagsOfResource(ctx, ns, &api.ListTagsOfResourceInput{ResourceArn: spec.Str(td.TableArn)})
	tags := map[string]string{}
	for _, x := range tg.Tags {
		tags[x.Key] = x.Value
	}
	if len(tags) != 2 || tags["keep"] != "1" || tags["added"] != "3" {
		t.Errorf("tags not reconciled: %v", tags)
	}
	got, _ := eng.GetItem(ctx, ns, &api.GetItemInput{TableName: spec.Str("rec"), Key: av.Item{"id": {Type: av.TypeS, S: "x"}}})
	if got.Item == nil {
		t.Error("reconciling lost an item")
	}

	// A key schema change is a warning at the declaration; the table and
	// its item stay, and the server can start.
	// (Deletion protection, declared above, would refuse the replacement.)
	keyChanged := strings.Replace(strings.Replace(changed, `type = "S"`, `type = "N"`, 1), "deletion_protection_enabled = true", "deletion_protection_enabled = false", 1)
	write(t, dir, map[string]string{"main.tf": keyChanged})
	out, d := ProvisionWith(ctx, eng, mustLoad(t, []string{dir}, Options{}), ProvisionOptions{})
	if d.HasErrors() || !strings.Contains(diagText(d), "main.tf:2:1: warning: aws_dynamodb_table.t: table rec exists with key attribute id of type S; the declaration says N. UpdateTable cannot change that, so the table is kept as it is") ||
		len(out) != 1 || out[0].Action != Kept {
		t.Errorf("key schema change: %v %q", out, diagText(d))
	}
	got, _ = eng.GetItem(ctx, ns, &api.GetItemInput{TableName: spec.Str("rec"), Key: av.Item{"id": {Type: av.TypeS, S: "x"}}})
	if got.Item == nil {
		t.Error("a key schema change lost data")
	}
	// Opted in, the table is re-created with the declared keys (once its
	// deletion protection is off: that still refuses).
	if _, err := eng.UpdateTable(ctx, ns, &api.UpdateTableInput{TableName: spec.Str("rec"), DeletionProtectionEnabled: spec.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	out, d = ProvisionWith(ctx, eng, mustLoad(t, []string{dir}, Options{}), ProvisionOptions{ReplaceOnKeyChange: true})
	if d.HasErrors() || len(out) != 1 || out[0].Action != Replaced {
		t.Fatalf("replace on key change: %v %q", out, diagText(d))
	}
	td = describe(t, eng, ns, "rec")
	if describedAttrType(td.AttributeDefinitions, "id") != "N" || td.ItemCount != 0 {
		t.Errorf("replaced table: %+v, %d items", td.AttributeDefinitions, td.ItemCount)
	}
	if out, d = ProvisionWith(ctx, eng, mustLoad(t, []string{dir}, Options{}), ProvisionOptions{ReplaceOnKeyChange: true}); len(out) != 1 || out[0].Action != Unchanged {
		t.Errorf("reload after replace: %v %q", out, diagText(d))
	}
}

func TestProvisionReportsEngineValidation(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	dir := t.TempDir()
	// Loads (the loader does not second-guess CreateTable) but CreateTable
	// refuses: the engine's message comes back at the property responsible
	// (BillingMode PROVISIONED, there being no ProvisionedThroughput).
	write(t, dir, map[string]string{"t.yaml": strings.Replace(cfnTable, "BillingMode: PAY_PER_REQUEST", "BillingMode: PROVISIONED", 1) +
		strings.Replace(strings.Replace(strings.Replace(cfnTable, "Resources:\n", "", 1), "TableName: cfn", "TableName: fine", 1), "  T:", "  U:", 1)})
	specs := mustLoad(t, []string{dir}, Options{})
	d := Provision(ctx, eng, specs)
	if !strings.Contains(d.Error(), "t.yaml:8:7: Resources.T (cfn in 000000000000/us-east-1): CreateTable: ValidationException") {
		t.Errorf("engine validation: %q", d.Error())
	}
	describe(t, eng, api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}, "fine")
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"main.tf": tfTable})
	out := Describe(&mustLoad(t, []string{dir}, Options{})[0])
	for _, want := range []string{"table tf\n", "arn:        arn:aws:dynamodb:eu-west-1:111111111111:table/tf", "keys:       HASH id (S)", "billing:    PAY_PER_REQUEST"} {
		if !strings.Contains(out, want) {
			t.Errorf("Describe lacks %q:\n%s", want, out)
		}
	}
}

// TestProvisionBillingAndIndexChanges reloads a table through every billing
// mode and index change, in both directions, checking each step lands.
func TestProvisionBillingAndIndexChanges(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	dir := t.TempDir()
	ns := api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}
	table := func(billing string, gsis ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "resource \"aws_dynamodb_table\" \"t\" {\n  name = \"bill\"\n  billing_mode = %q\n  hash_key = \"id\"\n", billing)
		if billing == "PROVISIONED" {
			b.WriteString("  read_capacity = 5\n  write_capacity = 5\n")
		}
		b.WriteString("  attribute {\n    name = \"id\"\n    type = \"S\"\n  }\n  attribute {\n    name = \"a\"\n    type = \"S\"\n  }\n")
		for _, g := range gsis {
			fmt.Fprintf(&b, "  global_secondary_index {\n    name = %q\n    hash_key = \"a\"\n    projection_type = \"ALL\"\n", g)
			if billing == "PROVISIONED" {
				b.WriteString("    read_capacity = 2\n    write_capacity = 2\n")
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
		return b.String()
	}
	steps := []struct {
		billing string
		gsis    []string
		want    string
	}{
		{"PAY_PER_REQUEST", []string{"gi1"}, Created},
		{"PROVISIONED", []string{"gi1"}, Updated},            // on-demand with a GSI → provisioned (the reported failure)
		{"PAY_PER_REQUEST", []string{"gi1"}, Updated},        // and back
		{"PAY_PER_REQUEST", []string{"gi1"}, Unchanged},      // a reload changes nothing
		{"PROVISIONED", []string{"gi1", "gi2"}, Updated},     // switch and add an index
		{"PAY_PER_REQUEST", []string{"gi2"}, Updated},        // switch and drop one
		{"PROVISIONED", nil, Updated},                        // switch and drop the last
		{"PROVISIONED", []string{"gi3"}, Updated},            // add one while provisioned
		{"PAY_PER_REQUEST", []string{"gi3", "gi4"}, Updated}, // switch and add
		{"PROVISIONED", []string{"gi4"}, Updated},            // switch and drop
		{"PROVISIONED", []string{"gi4"}, Unchanged},
	}
	for i, st := range steps {
		write(t, dir, map[string]string{"main.tf": table(st.billing, st.gsis...)})
		out, d := ProvisionWith(ctx, eng, mustLoad(t, []string{dir}, Options{}), ProvisionOptions{})
		if d.HasErrors() || len(out) != 1 || out[0].Action != st.want {
			t.Fatalf("step %d (%s %v): %v\n%s", i, st.billing, st.gsis, out, diagText(d))
		}
		td := describe(t, eng, ns, "bill")
		if td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != st.billing {
			t.Errorf("step %d: billing %+v, want %s", i, td.BillingModeSummary, st.billing)
		}
		var names []string
		for _, g := range td.GlobalSecondaryIndexes {
			names = append(names, g.IndexName)
			if st.billing == "PROVISIONED" && g.ProvisionedThroughput.ReadCapacityUnits != 2 {
				t.Errorf("step %d: index %s throughput %+v", i, g.IndexName, g.ProvisionedThroughput)
			}
		}
		sort.Strings(names)
		if strings.Join(names, ",") != strings.Join(st.gsis, ",") {
			t.Errorf("step %d: indexes %v, want %v", i, names, st.gsis)
		}
	}
}

// diagText renders every diagnostic, warnings included, one per line.
func diagText(ds Diagnostics) string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// TestVectorIndexesFromTemplate: a template's VectorIndexes are described
// by validate and provision a table that has them; reloading it keeps them.
func TestVectorIndexesFromTemplate(t *testing.T) {
	ctx := context.Background()
	eng := newEngine(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{"stack.yaml": `Resources:
  Docs:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: docs
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: id, AttributeType: S}
        - {AttributeName: tenant, AttributeType: S}
      KeySchema:
        - {AttributeName: id, KeyType: HASH}
      VectorIndexes:
        - IndexName: near
          VectorAttribute: {AttributeName: emb}
          Dimensions: 4
          DistanceFunction: COSINE
          Projection: {ProjectionType: ALL}
          SearchSchema:
            - {AttributeName: tenant, SearchSchemaElementType: HASH}
`})
	specs := mustLoad(t, []string{dir}, Options{})
	if out := Describe(&specs[0]); !strings.Contains(out, "vector:     near emb[4] COSINE tenant:HASH projection ALL\n") {
		t.Errorf("Describe:\n%s", out)
	}
	for range 2 {
		if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
			t.Fatal(d)
		}
	}
	ns := api.Namespace{Account: spec.DefaultAccount, Region: spec.DefaultRegion}
	out, err := eng.DescribeTable(ctx, ns, &api.DescribeTableInput{TableName: spec.Str("docs")})
	if err != nil {
		t.Fatal(err)
	}
	if v := out.Table.VectorIndexes; len(v) != 1 || v[0].IndexName != "near" || v[0].IndexStatus != "ACTIVE" || len(v[0].SearchSchema) != 1 {
		t.Errorf("provisioned vector indexes: %+v", v)
	}
	// A reload with near changed (8 dimensions) and a second index
	// replaces near and adds far, keeping the table.
	b, err := os.ReadFile(filepath.Join(dir, "stack.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), "Dimensions: 4", "Dimensions: 8", 1) + `        - IndexName: far
          VectorAttribute: {AttributeName: emb}
          Dimensions: 8
          DistanceFunction: EUCLIDEAN
          Projection: {ProjectionType: KEYS_ONLY}
`
	write(t, dir, map[string]string{"stack.yaml": changed})
	if d := Provision(ctx, eng, mustLoad(t, []string{dir}, Options{})); d.HasErrors() {
		t.Fatal(d)
	}
	out, err = eng.DescribeTable(ctx, ns, &api.DescribeTableInput{TableName: spec.Str("docs")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, v := range out.Table.VectorIndexes {
		if v.IndexStatus != "ACTIVE" {
			t.Errorf("%s is %s", v.IndexName, v.IndexStatus)
		}
		got[v.IndexName] = v.Dimensions
	}
	if len(got) != 2 || got["near"] != 8 || got["far"] != 8 {
		t.Errorf("after the reload: %v", got)
	}
}
