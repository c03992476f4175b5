package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
	"github.com/rs/zerolog"
)

func TestValidateExamples(t *testing.T) {
	code, out, errOut := run(t, "validate", "../../examples/terraform/multi-region", "--stack-account", "123456789012",
		"--access-key-account", "AKIADR0000000000=222222222222",
		"../../examples/cloudformation/orders-stack.yaml", "--stack-name", "shop", "--param", "Stage=prod")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	for _, want := range []string{
		"account 111111111111, Region eu-west-1:\n  table orders\n    arn:        arn:aws:dynamodb:eu-west-1:111111111111:table/orders\n",
		"account 222222222222, Region us-east-1:\n  table orders\n",
		"account 123456789012, Region us-east-1:\n",
		"table shop-orders-prod\n    arn:        arn:aws:dynamodb:us-east-1:123456789012:table/shop-orders-prod\n",
		"billing:    PAY_PER_REQUEST, caps read 1000 / write 500 request units",
		"gsi:        by_status HASH status (S), RANGE placed_at (N) projection INCLUDE [total], caps read 200 / write 100 request units",
		"stream:     NEW_AND_OLD_IMAGES", "ttl:        expires_at", "tags:       owner=111111111111, stage=prod",
		"replicas:   us-east-1, us-west-2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "main.tf:206:1: info: aws_sqs_queue.events") {
		t.Errorf("informational lines go to stderr: %q", errOut)
	}
}

// TestValidateAccountFlags: validate takes serve's account flags and shows
// each provider's tables in the account serve resolves the provider's
// access key to; a key whose account allowed_account_ids does not list is
// an error, as terraform apply refuses it (issue 37).
func TestValidateAccountFlags(t *testing.T) {
	dir := t.TempDir()
	table := func(provider, name string) string {
		return "resource \"aws_dynamodb_table\" \"" + name + "\" {\n  provider = aws." + provider + "\n  name = \"" + name +
			"\"\n  billing_mode = \"PAY_PER_REQUEST\"\n  hash_key = \"id\"\n  attribute {\n    name = \"id\"\n    type = \"S\"\n  }\n}\n"
	}
	tf := `provider "aws" {
  alias               = "prod"
  region              = "eu-west-1"
  access_key          = "AKIAPROD00000000"
  allowed_account_ids = ["111111111111"]
}
provider "aws" {
  alias      = "dev"
  region     = "us-west-2"
  access_key = "AKIADEV000000000"
}
provider "aws" {
  alias      = "own"
  region     = "ap-south-1"
  access_key = "444444444444"
}
` + table("prod", "Orders") + table("dev", "Scratch") + table("own", "Own")
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "validate", dir, "--access-key-account", "AKIAPROD00000000=111111111111", "--account-per-access-key")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	dev := wire.DerivedAccount("AKIADEV000000000")
	for _, want := range []string{
		"account 111111111111, Region eu-west-1:\n  table Orders\n    arn:        arn:aws:dynamodb:eu-west-1:111111111111:table/Orders\n",
		"account " + dev + ", Region us-west-2:\n  table Scratch\n",
		"account 444444444444, Region ap-south-1:\n  table Own\n",
		// Each table says its account and Region, and why that account.
		"    account:    111111111111, Region eu-west-1 (provider aws.prod, access_key AKIAPROD00000000: --access-key-account)\n",
		"    account:    " + dev + ", Region us-west-2 (provider aws.dev, access_key AKIADEV000000000: --account-per-access-key)\n",
		"    account:    444444444444, Region ap-south-1 (provider aws.own, access_key 444444444444: a 12-digit key is that account)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = run(t, "validate", dir, "--default-account", "333333333333")
	if code != 1 || !strings.Contains(errOut, "main.tf:5:25: provider aws.prod: AWS account ID not allowed: 333333333333 is the account of its access key AKIAPROD00000000") {
		t.Errorf("an unmapped key of a provider with allowed_account_ids: exit %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
}

func TestValidateDiagnostics(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: x\n      KeySchema: [{AttributeName: id, KeyType: HASH}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Loads, but CreateTable refuses it (a one-letter name, no attribute
	// definitions): the engine's message at the first wrong property that
	// is written (TableName).
	code, out, errOut := run(t, "validate", bad)
	if code != 1 || out != "" || !strings.Contains(errOut, bad+":5:7: Resources.T (x in 000000000000/us-east-1): CreateTable: ValidationException") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if err := os.WriteFile(bad, []byte("Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties: {KeySchema: !Ref Nope}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, "validate", bad)
	if code != 1 || !strings.Contains(errOut, bad+":4:29: Template format error: Unresolved resource dependencies [Nope]") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	imp := filepath.Join(dir, "imp.yaml")
	exp := filepath.Join(dir, "exports.json")
	if err := os.WriteFile(imp, []byte("Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: !ImportValue shared-name\n      KeySchema: [{AttributeName: id, KeyType: HASH}]\n      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]\n      BillingMode: PAY_PER_REQUEST\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exp, []byte(`{"Exports": [{"Name": "shared-name", "Value": "imported-table"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "validate", imp); code != 1 || !strings.Contains(errOut, imp+":5:18: No export named shared-name found") {
		t.Errorf("ImportValue without exports: %d %s", code, errOut)
	}
	if code, out, errOut := run(t, "validate", imp, "--exports-file", exp); code != 0 || !strings.Contains(out, "table imported-table") {
		t.Errorf("ImportValue with exports: %d %s %s", code, out, errOut)
	}
	for _, args := range [][]string{{"validate"}, {"validate", "--exports-file", bad, dir}, {"validate", "--stack-account", "12", dir}, {"validate", "--nope", dir}} {
		if code, _, _ := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, out, _ := run(t, "validate", "--help"); code != 0 || !strings.Contains(out, "--param-file") {
		t.Errorf("help: %d %q", code, out)
	}
}

func TestServeLoad(t *testing.T) {
	addr, logs, stop, done := startServe(t, "--in-memory", "--load", "../../examples/terraform/multi-region",
		"--access-key-account", "AKPROD=111111111111", "--access-key-account", "AKIADR0000000000=222222222222")
	defer func() {
		stop()
		<-done
	}()
	// The prod provider's key is 111111111111 (that account), the dr
	// provider's AKIADR0000000000 (mapped): each table is where a client
	// with that provider's key, or another key of its account, finds it.
	for _, c := range []struct{ key, region, arn string }{
		{"AKPROD", "eu-west-1", "arn:aws:dynamodb:eu-west-1:111111111111:table/orders"},
		{"111111111111", "eu-west-1", "arn:aws:dynamodb:eu-west-1:111111111111:table/orders"},
		{"AKIADR0000000000", "us-east-1", "arn:aws:dynamodb:us-east-1:222222222222:table/orders"},
	} {
		cl := dynamodb.New(dynamodb.Options{
			Region: c.region, BaseEndpoint: aws.String("http://" + addr), RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider(c.key, "secret", ""),
		})
		out, err := cl.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
		if err != nil {
			t.Fatalf("DescribeTable with key %s: %v\n%s", c.key, err, logs.String())
		}
		if got := aws.ToString(out.Table.TableArn); got != c.arn {
			t.Errorf("key %s: ARN %s, want %s", c.key, got, c.arn)
		}
	}
	if !strings.Contains(logs.String(), `"message":"provisioned"`) {
		t.Errorf("no provisioning log:\n%s", logs.String())
	}
}

// TestServeLoadSigV4: under --auth=sigv4 a provider's key is in the account
// the credentials file gives it (even a 12-digit key), as the server places
// requests signed with it; a key the file does not list is an error, since
// the server would refuse terraform apply's requests (issue 37).
func TestServeLoadSigV4(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.yaml")
	allow := `, policies: [{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}]}]`
	if err := os.WriteFile(creds, []byte("users:\n  - {accessKeyId: AKIDA, secretAccessKey: s, account: \"111111111111\""+allow+"}\n"+
		"  - {accessKeyId: \"222222222222\", secretAccessKey: s, account: \"333333333333\""+allow+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := filepath.Join(dir, "tf")
	write := func(keys ...string) {
		text := ""
		for i, k := range keys {
			text += fmt.Sprintf(`provider "aws" {
  alias      = "p%[1]d"
  region     = "eu-west-1"
  access_key = %[2]q
}
resource "aws_dynamodb_table" "t%[1]d" {
  provider     = aws.p%[1]d
  name         = "tbl%[1]d"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`, i, k)
		}
		if err := os.MkdirAll(tf, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tf, "main.tf"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("AKIDA", "222222222222", "AKIDUNKNOWN")
	code, _, errOut := run(t, "serve", "--in-memory", "--addr", "127.0.0.1:0", "--auth=sigv4", "--credentials", creds, "--load", tf)
	if code != 1 || !strings.Contains(errOut, "main.tf:34:17: provider aws.p2: access key AKIDUNKNOWN (access_key) is not a key of --credentials") {
		t.Errorf("a key --credentials does not list: exit %d\n%s", code, errOut)
	}
	write("AKIDA", "222222222222")
	addr, logs, stop, done := startServe(t, "--in-memory", "--auth=sigv4", "--credentials", creds, "--load", tf)
	defer func() { stop(); <-done }()
	for _, c := range []struct{ key, table, arn string }{
		{"AKIDA", "tbl0", "arn:aws:dynamodb:eu-west-1:111111111111:table/tbl0"},
		{"222222222222", "tbl1", "arn:aws:dynamodb:eu-west-1:333333333333:table/tbl1"},
	} {
		cl := dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String("http://" + addr), RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider(c.key, "s", "")})
		out, err := cl.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(c.table)})
		if err != nil {
			t.Fatalf("key %s: DescribeTable %s: %v\n%s", c.key, c.table, err, logs.String())
		}
		if got := aws.ToString(out.Table.TableArn); got != c.arn {
			t.Errorf("key %s: ARN %s, want %s", c.key, got, c.arn)
		}
	}
}

func TestServeLoadBrokenProvisionsNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(`
resource "aws_dynamodb_table" "ok" {
  name         = "fine"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_table" "bad" {
  name     = "broken"
  hash_key = var.missing
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	code, _, errOut := run(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", data, "--load", dir)
	if code != 1 || !strings.Contains(errOut, "main.tf:13:") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	// Nothing reached the store: serving the same data directory without
	// --load finds no table.
	addr, _, stop, done := startServe(t, "--data-dir", data)
	defer func() {
		stop()
		<-done
	}()
	cl := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://" + addr), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("AK", "secret", "")})
	list, err := cl.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil || len(list.TableNames) != 0 {
		t.Errorf("tables after a broken load: %v %v", list, err)
	}
}

// TestServeReloadKeyChange: restarting with a changed key schema keeps the
// table and starts (a warning, not an error); --replace-on-key-change
// re-creates it. Each start logs its summary.
func TestServeReloadKeyChange(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	tf := func(key string) {
		t.Helper()
		src := `
resource "aws_dynamodb_table" "t" {
  name         = "keyed"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "` + key + `"
  attribute {
    name = "` + key + `"
    type = "S"
  }
}
resource "aws_dynamodb_table" "other" {
  name         = "other"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	serveOnce := func(args ...string) string {
		t.Helper()
		_, logs, stop, done := startServe(t, append([]string{"--data-dir", data, "--load", dir}, args...)...)
		stop()
		if code := <-done; code != 0 {
			t.Fatalf("exit %d\n%s", code, logs.String())
		}
		return logs.String()
	}
	tf("id")
	if logs := serveOnce(); !strings.Contains(logs, `"message":"loaded account 000000000000, Region us-east-1: 2 tables: 2 created, 0 updated, 0 unchanged"`) ||
		!strings.Contains(logs, `"message":"loaded in total 2 tables: 2 created, 0 updated, 0 unchanged"`) {
		t.Errorf("first load summary:\n%s", logs)
	}
	tf("pk")
	logs := serveOnce()
	if !strings.Contains(logs, `"level":"warn"`) || !strings.Contains(logs, "table keyed exists with key schema [id HASH]; the declaration says [pk HASH]") ||
		!strings.Contains(logs, "--replace-on-key-change") ||
		!strings.Contains(logs, `"message":"loaded in total 2 tables: 0 created, 0 updated, 1 unchanged, 1 kept despite a key change"`) {
		t.Errorf("key change without the flag:\n%s", logs)
	}
	if logs := serveOnce("--replace-on-key-change"); !strings.Contains(logs, `"message":"loaded in total 2 tables: 0 created, 0 updated, 1 unchanged, 1 replaced"`) {
		t.Errorf("key change with --replace-on-key-change:\n%s", logs)
	}
	if logs := serveOnce(); !strings.Contains(logs, `"message":"loaded in total 2 tables: 0 created, 0 updated, 2 unchanged"`) {
		t.Errorf("reload after the replacement:\n%s", logs)
	}
}

// TestValidateDiagnosticsQuality: each mistake once, with its source line
// and a caret; one mistake repeated over many resources is capped with a
// count.
func TestValidateDiagnosticsQuality(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := range 6 {
		fmt.Fprintf(&src, "resource \"aws_dynamodb_table\" \"t%d\" {\n  name         = \"table%d\"\n  billing_mode = \"PAY_PER_REQUST\"\n  hash_key     = \"id\"\n  attribute {\n    name = \"id\"\n    type = \"S\"\n  }\n}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "validate", dir)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if n := strings.Count(errOut, "PAY_PER_REQUST' at 'billingMode'"); n != maxAlike+1 {
		t.Errorf("%d lines name the mistake; want %d and a count:\n%s", n, maxAlike+1, errOut)
	}
	if !strings.Contains(errOut, "… and 3 more like this: CreateTable: ValidationException") {
		t.Errorf("no count of the repeats:\n%s", errOut)
	}
	// At the argument that is wrong, not at the resource.
	if !strings.Contains(errOut, "main.tf:3:3: aws_dynamodb_table.t0") || !strings.Contains(errOut, "      3 |   billing_mode = \"PAY_PER_REQUST\"\n        |   ^\n") {
		t.Errorf("no source line under the diagnostic:\n%s", errOut)
	}
}

func TestCondense(t *testing.T) {
	d := func(sum string, line int) iac.Diagnostic {
		return iac.Diagnostic{Pos: iac.Pos{File: "f", Line: line}, Summary: sum}
	}
	in := iac.Diagnostics{d("x: same", 1), d("x: same", 1), d("x: same", 1), d("other", 2)}
	for i := range 5 {
		in = append(in, d(fmt.Sprintf("Res%d: bad thing", i), 10+i))
	}
	var got []string
	for _, x := range condense(in) {
		got = append(got, x.String())
	}
	want := []string{"f:1: x: same", "f:2: other", "f:10: Res0: bad thing", "f:11: Res1: bad thing", "f:12: Res2: bad thing", "… and 2 more like this: bad thing"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("condense:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProvisionLoadsLogsProgress: a --load logs at info how many tables it
// has provisioned and items it has seeded, with totals and rates, in the
// dry run and in the real provisioning (here on every step: the interval
// is shortened).
func TestProvisionLoadsLogsProgress(t *testing.T) {
	dir := t.TempDir()
	src := ""
	for _, name := range []string{"aaa", "bbb"} {
		src += fmt.Sprintf(`
resource "aws_dynamodb_table" %[1]q {
  name         = %[1]q
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`, name)
	}
	for i := range 3 {
		src += fmt.Sprintf(`
resource "aws_dynamodb_table_item" "i%[1]d" {
  table_name = aws_dynamodb_table.aaa.name
  hash_key   = "id"
  item       = jsonencode({ id = { S = "%[1]d" } })
}
`, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	eng, err := emulator.New(emulator.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = eng.Close() }()
	cfg := newServeConfig(func(string) string { return "" })
	cfg.iac.loads = stringList{dir}
	cfg.iac.progressEvery = -1
	var logs bytes.Buffer
	if _, err := provisionLoads(context.Background(), eng, cfg, nil, zerolog.New(&logs)); err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	var got []string
	for _, s := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var l struct {
			Level, Message       string
			Tables, Items, Total int64
			TablesRate           *float64 `json:"tables_per_second"`
			ItemsRate            *float64 `json:"items_per_second"`
		}
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		if !strings.Contains(l.Message, " in progress") && !strings.Contains(l.Message, " finished") {
			continue
		}
		if l.TablesRate == nil && l.ItemsRate == nil {
			t.Errorf("no rate: %s", s)
		}
		got = append(got, fmt.Sprintf("%s %s %d+%d/%d", l.Level, l.Message, l.Tables, l.Items, l.Total))
	}
	var want []string
	for _, prefix := range []string{"dry run: ", ""} {
		want = append(want,
			"info "+prefix+"seeding items in progress 0+1/3",
			"info "+prefix+"seeding items in progress 0+2/3",
			"info "+prefix+"seeding items in progress 0+3/3",
			"info "+prefix+"provisioning tables in progress 1+0/2",
			"info "+prefix+"provisioning tables in progress 2+0/2",
			"info "+prefix+"provisioning tables finished 2+0/2",
			"info "+prefix+"seeding items finished 0+3/3")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("progress lines:\n%s\nwant:\n%s\nall logs:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), logs.String())
	}
}
