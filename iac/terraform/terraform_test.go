package terraform

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
	"github.com/zclconf/go-cty/cty"
)

const minimalTable = `
resource "aws_dynamodb_table" "t" {
  name         = "t"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`

func TestEveryTableArgument(t *testing.T) {
	specs := load(t, map[string]string{"main.tf": `
provider "aws" {
  region = "eu-west-1"
  allowed_account_ids = ["111122223333"]
}
resource "aws_dynamodb_table" "full" {
  name           = "full"
  billing_mode   = "PROVISIONED"
  read_capacity  = 7
  write_capacity = 3
  hash_key       = "pk"
  range_key      = "sk"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "N"
  }
  attribute {
    name = "g1"
    type = "B"
  }
  attribute {
    name = "g2"
    type = "S"
  }
  global_secondary_index {
    name               = "legacy"
    hash_key           = "g1"
    range_key          = "sk"
    projection_type    = "INCLUDE"
    non_key_attributes = ["b", "a"]
    read_capacity      = 2
    write_capacity     = 1
    warm_throughput {
      read_units_per_second  = 12000
      write_units_per_second = 4000
    }
  }
  global_secondary_index {
    name            = "multi"
    projection_type = "KEYS_ONLY"
    read_capacity   = 1
    write_capacity  = 1
    key_schema {
      attribute_name = "g1"
      key_type       = "HASH"
    }
    key_schema {
      attribute_name = "g2"
      key_type       = "HASH"
    }
  }
  local_secondary_index {
    name            = "lsi"
    range_key       = "g2"
    projection_type = "ALL"
  }
  ttl {
    enabled        = true
    attribute_name = "exp"
  }
  point_in_time_recovery {
    enabled                 = true
    recovery_period_in_days = 7
  }
  server_side_encryption {
    enabled     = true
    kms_key_arn = "arn:aws:kms:eu-west-1:111122223333:key/k"
  }
  warm_throughput {
    read_units_per_second  = 13000
    write_units_per_second = 5000
  }
  stream_enabled              = true
  stream_view_type            = "NEW_AND_OLD_IMAGES"
  table_class                 = "STANDARD_INFREQUENT_ACCESS"
  deletion_protection_enabled = true
  tags = {
    b = "2"
    a = "1"
  }
  timeouts {
    create = "5m"
  }
  lifecycle {
    prevent_destroy = true
  }
}
`}, spec.Options{})
	if len(specs) != 1 {
		t.Fatalf("specs: %v", names(specs))
	}
	s := specs[0]
	if s.Account != "111122223333" || s.Region != "eu-west-1" || s.ARN() != "arn:aws:dynamodb:eu-west-1:111122223333:table/full" {
		t.Errorf("namespace: %s %s %s", s.Account, s.Region, s.ARN())
	}
	if s.Source != "aws_dynamodb_table.full" || s.Pos.Line != 6 || !strings.HasSuffix(s.Pos.File, "main.tf") {
		t.Errorf("source %q at %v", s.Source, s.Pos)
	}
	got, _ := json.Marshal(s.Create)
	want := `{"TableName":"full","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g1","AttributeType":"B"},{"AttributeName":"g2","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PROVISIONED",` +
		`"ProvisionedThroughput":{"ReadCapacityUnits":7,"WriteCapacityUnits":3},"WarmThroughput":{"ReadUnitsPerSecond":13000,"WriteUnitsPerSecond":5000},` +
		`"GlobalSecondaryIndexes":[{"IndexName":"legacy","KeySchema":[{"AttributeName":"g1","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["a","b"]},"ProvisionedThroughput":{"ReadCapacityUnits":2,"WriteCapacityUnits":1},"WarmThroughput":{"ReadUnitsPerSecond":12000,"WriteUnitsPerSecond":4000}},` +
		`{"IndexName":"multi","KeySchema":[{"AttributeName":"g1","KeyType":"HASH"},{"AttributeName":"g2","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"},"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}],` +
		`"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"g2","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],` +
		`"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},"SSESpecification":{"Enabled":true,"SSEType":"KMS","KMSMasterKeyId":"arn:aws:kms:eu-west-1:111122223333:key/k"},` +
		`"Tags":[{"Key":"a","Value":"1"},{"Key":"b","Value":"2"}],"TableClass":"STANDARD_INFREQUENT_ACCESS","DeletionProtectionEnabled":true}`
	if string(got) != want {
		t.Errorf("CreateTableInput:\n got %s\nwant %s", got, want)
	}
	if s.TTL == nil || !*s.TTL.Enabled || *s.TTL.AttributeName != "exp" {
		t.Errorf("TTL %+v", s.TTL)
	}
	if s.PITR == nil || !*s.PITR.PointInTimeRecoveryEnabled || *s.PITR.RecoveryPeriodInDays != 7 {
		t.Errorf("PITR %+v", s.PITR)
	}
}

func TestOnDemandCapsAndDefaults(t *testing.T) {
	specs := load(t, map[string]string{"main.tf": `
resource "aws_dynamodb_table" "t" {
  name         = "t"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  read_capacity = 5   # ignored for on-demand, as the provider does
  attribute {
    name = "id"
    type = "S"
  }
  on_demand_throughput {
    max_read_request_units  = 10
    max_write_request_units = 20
  }
  global_secondary_index {
    name            = "g"
    hash_key        = "id"
    projection_type = "ALL"
    on_demand_throughput {
      max_read_request_units = 5
    }
  }
  ttl {
    enabled = false
  }
}
resource "aws_dynamodb_table" "p" {
  name     = "p"
  hash_key = "id"
  read_capacity  = 1
  write_capacity = 1
  attribute {
    name = "id"
    type = "S"
  }
}
`}, spec.Options{DefaultAccount: "999988887777", DefaultRegion: "ap-south-1"})
	s := byName(t, specs, "t", "ap-south-1")
	if s.Account != "999988887777" {
		t.Errorf("default account: %s", s.Account)
	}
	if s.Create.ProvisionedThroughput != nil {
		t.Errorf("on-demand table got throughput %+v", s.Create.ProvisionedThroughput)
	}
	if c := s.Create.OnDemandThroughput; c == nil || *c.MaxReadRequestUnits != 10 || *c.MaxWriteRequestUnits != 20 {
		t.Errorf("caps %+v", c)
	}
	if c := s.Create.GlobalSecondaryIndexes[0].OnDemandThroughput; c == nil || *c.MaxReadRequestUnits != 5 || c.MaxWriteRequestUnits != nil {
		t.Errorf("gsi caps %+v", c)
	}
	if s.TTL != nil {
		t.Errorf("disabled ttl block must not set TTL: %+v", s.TTL)
	}
	p := byName(t, specs, "p", "")
	if *p.Create.BillingMode != "PROVISIONED" || *p.Create.ProvisionedThroughput.ReadCapacityUnits != 1 {
		t.Errorf("billing mode defaults to PROVISIONED: %+v", p.Create)
	}
}

func TestVariablesAndValueSources(t *testing.T) {
	files := map[string]string{
		"vars.tf": `
variable "a" { type = string }            # from terraform.tfvars
variable "b" { type = string }            # from an auto.tfvars (overrides terraform.tfvars)
variable "c" {
  type    = string
  default = "default-c"
}
variable "d" { type = string }            # TF_VAR_d
variable "e" { type = string }            # --var-file
variable "f" { type = number }            # --var, converted
variable "g" {
  type = list(string)                     # TF_VAR_ with an HCL value
}
variable "obj" {
  type = object({
    name  = string
    size  = optional(number, 3)
    inner = optional(object({ on = optional(bool, true) }), {})
  })
  default = { name = "o" }
}
`,
		"main.tf": `
resource "aws_dynamodb_table" "t" {
  name     = join("-", [var.a, var.b, var.c, var.d, var.e, tostring(var.f), var.g[1], var.obj.name, tostring(var.obj.size), tostring(var.obj.inner.on)])
  hash_key = "id"
  billing_mode = "PAY_PER_REQUEST"
  attribute {
    name = "id"
    type = "S"
  }
}
`,
		"terraform.tfvars":   "a = \"tfvars-a\"\nb = \"tfvars-b\"\n",
		"x.auto.tfvars":      "b = \"auto-b\"\n",
		"extra/more.tfvars":  "e = \"file-e\"\n",
		"y.auto.tfvars.json": `{"d": "json-d"}`,
	}
	opts := spec.Options{
		Getenv: env("TF_VAR_d", "env-d", "TF_VAR_g", `["x", "y"]`),
		Vars:   []string{"f=42"},
	}
	dir := writeFiles(t, files)
	opts.VarFiles = []string{dir + "/extra/more.tfvars"}
	specs, diags := LoadDir(dir, opts)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	// The auto.tfvars.json file outranks TF_VAR_d.
	if got, want := specs[0].Name(), "tfvars-a-auto-b-default-c-json-d-file-e-42-y-o-3-true"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
}

func TestVariableErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		opts  spec.Options
		want  []string
	}{
		{"missing required", map[string]string{"main.tf": `variable "x" { type = string }` + minimalTable},
			spec.Options{}, []string{"main.tf:1:1: No value for required variable", `"x"`}},
		{"undeclared reference", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, `name         = var.nope`, 1)},
			spec.Options{}, []string{"main.tf:3:", "nope"}},
		{"type error", map[string]string{"main.tf": `
variable "n" {
  type    = number
  default = "not a number"
}` + minimalTable}, spec.Options{}, []string{"main.tf:", "var.n", "a number is required"}},
		{"var for undeclared", map[string]string{"main.tf": minimalTable}, spec.Options{Vars: []string{"zz=1"}},
			[]string{"undeclared variable", `"zz"`}},
		{"bad -var syntax", map[string]string{"main.tf": minimalTable}, spec.Options{Vars: []string{"novalue"}},
			[]string{"Invalid -var option"}},
		{"validation", map[string]string{"main.tf": `
variable "mode" {
  type    = string
  default = "WRONG"
  validation {
    condition     = contains(["A", "B"], var.mode)
    error_message = "mode must be A or B."
  }
}` + minimalTable}, spec.Options{}, []string{"main.tf:6:", "mode must be A or B."}},
		{"wrong argument type", map[string]string{"main.tf": strings.Replace(minimalTable, `hash_key     = "id"`, `hash_key     = ["id"]`, 1)},
			spec.Options{}, []string{"main.tf:5:", "Incorrect attribute value type", "hash_key"}},
		{"unknown argument", map[string]string{"main.tf": strings.Replace(minimalTable, `hash_key     = "id"`, "hash_key = \"id\"\n  hash_kye = \"x\"", 1)},
			spec.Options{}, []string{"main.tf:6:", "Unsupported argument", "hash_kye"}},
		{"unknown block", map[string]string{"main.tf": strings.Replace(minimalTable, `attribute {`, "bogus {\n}\n  attribute {", 1)},
			spec.Options{}, []string{"main.tf:6:", "Unsupported block type", "bogus"}},
		{"malformed HCL", map[string]string{"main.tf": "resource \"aws_dynamodb_table\" \"t\" {\n  name = \n}\n"},
			spec.Options{}, []string{"main.tf:2:"}},
		{"malformed JSON", map[string]string{"main.tf.json": `{"resource": {`}, spec.Options{}, []string{"main.tf.json:1:"}},
		{"missing name", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, "", 1)},
			spec.Options{}, []string{"main.tf:2:1:", `"name" is required`}},
		{"count and for_each", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, "name = \"t\"\n  count = 1\n  for_each = toset([\"a\"])", 1)},
			spec.Options{}, []string{"mutually-exclusive"}},
		{"for_each list", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, "name = \"t\"\n  for_each = [\"a\"]", 1)},
			spec.Options{}, []string{"main.tf:4:", "must be a map, or set of strings", "tuple"}},
		{"unknown provider alias", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, "name = \"t\"\n  provider = aws.nowhere", 1)},
			spec.Options{}, []string{"Provider configuration not present", "aws.nowhere"}},
		{"local cycle", map[string]string{"main.tf": "locals {\n  a = local.b\n  b = local.a\n}\n" + minimalTable},
			spec.Options{}, []string{"Cycle in local values"}},
		{"bad item JSON", map[string]string{"main.tf": minimalTable + `
resource "aws_dynamodb_table_item" "i" {
  table_name = aws_dynamodb_table.t.name
  hash_key   = "id"
  item       = "{\"id\": {\"Q\": \"1\"}}"
}`}, spec.Options{}, []string{"main.tf:15:", "Invalid item", `"Q"`}},
		{"item for unknown table", map[string]string{"main.tf": minimalTable + `
resource "aws_dynamodb_table_item" "i" {
  table_name = "other"
  hash_key   = "id"
  item       = jsonencode({ id = { S = "1" } })
}`}, spec.Options{}, []string{"main.tf:12:1:", "table_name other names no table"}},
		{"module not local", map[string]string{"main.tf": `module "m" { source = "terraform-aws-modules/dynamodb-table/aws" }`},
			spec.Options{}, []string{"main.tf:1:", "Module not installed"}},
		{"module unknown argument", map[string]string{"main.tf": `module "m" {
  source = "./m"
  nope   = 1
}`, "m/main.tf": minimalTable}, spec.Options{}, []string{"main.tf:3:", `argument named "nope"`}},
		{"module missing argument", map[string]string{"main.tf": `module "m" {
  source = "./m"
}`, "m/main.tf": `variable "need" {}`}, spec.Options{}, []string{"main.tf:1:1:", `"need" is required`}},
		{"override without base", map[string]string{"main.tf": minimalTable, "x_override.tf": `resource "aws_dynamodb_table" "zzz" { name = "q" }`},
			spec.Options{}, []string{"x_override.tf:1:", "Missing base resource block"}},
		{"unknown name", map[string]string{"main.tf": "resource \"random_id\" \"r\" {}\n" + strings.Replace(minimalTable, `name         = "t"`, `name         = "t-${random_id.r.hex}"`, 1)},
			spec.Options{}, []string{"main.tf:4:3: the table name must be known before apply"}},
		{"unknown function", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, `name         = templatestring("x", {})`, 1)},
			spec.Options{}, []string{"main.tf:3:", "Call to unknown function", "templatestring"}},
		{"provider function", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, `name         = provider::aws::arn_parse("x").resource`, 1)},
			spec.Options{}, []string{"main.tf:3:18:", `no functions in namespace "provider::aws::"`}},
		{"no files", map[string]string{"README": "x"}, spec.Options{}, []string{"no Terraform configuration files"}},
		{"undeclared variable", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, `name         = var.table_name`, 1)},
			spec.Options{}, []string{"main.tf:3:18: Reference to undeclared input variable: An input variable with the name \"table_name\" has not been declared. This variable can be declared with a variable \"table_name\" {} block."}},
		{"undeclared local", map[string]string{"main.tf": strings.Replace(minimalTable, `name         = "t"`, `name         = "${local.prefix}-t"`, 1)},
			spec.Options{}, []string{"main.tf:3:21: Reference to undeclared local value: A local value with the name \"prefix\" has not been declared."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := loadErr(t, c.files, c.opts)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestLocalsCountForEachDynamicForSplatConditional(t *testing.T) {
	specs := load(t, map[string]string{"main.tf": `
locals {
  # Declared before what it depends on: evaluated in dependency order.
  names  = [for n in local.base : "${local.prefix}${n}"]
  prefix = "app-"
  base   = ["a", "b"]
  keyed  = { for n in local.base : n => { range = n == "b" ? "sk" : null } }
  splat  = [for s in var.gsis : s][*].name
}

variable "gsis" {
  default = [{ name = "g1", key = "x" }, { name = "g2", key = "y" }]
}

resource "aws_dynamodb_table" "counted" {
  count        = length(local.names)
  name         = local.names[count.index]
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}

resource "aws_dynamodb_table" "each" {
  for_each     = local.keyed
  name         = "each-${each.key}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  range_key    = each.value.range
  dynamic "attribute" {
    for_each = compact(["id", each.value.range])
    content {
      name = attribute.value
      type = "S"
    }
  }
}

resource "aws_dynamodb_table" "set" {
  for_each     = toset(["s1"])
  name         = each.value
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  dynamic "global_secondary_index" {
    for_each = var.gsis
    iterator = g
    content {
      name            = g.value.name
      hash_key        = g.value.key
      projection_type = "ALL"
    }
  }
  tags = { indexes = join(",", local.splat) }
}

resource "aws_dynamodb_table" "none" {
  count    = 0
  name     = "never"
  hash_key = "id"
}

resource "aws_dynamodb_table" "refs" {
  name         = "refs-${length(aws_dynamodb_table.counted)}-${aws_dynamodb_table.each["b"].range_key}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  tags = {
    first = aws_dynamodb_table.counted[0].arn
    ids   = join(",", aws_dynamodb_table.counted[*].id)
  }
}
`}, spec.Options{})
	want := []string{"app-a", "app-b", "each-a", "each-b", "s1", "refs-2-sk"}
	if got := names(specs); !reflect.DeepEqual(got, want) {
		t.Fatalf("tables %v, want %v", got, want)
	}
	if s := byName(t, specs, "app-b", ""); s.Source != "aws_dynamodb_table.counted[1]" {
		t.Errorf("source %q", s.Source)
	}
	if s := byName(t, specs, "each-b", ""); s.Source != `aws_dynamodb_table.each["b"]` || len(s.Create.KeySchema) != 2 || len(s.Create.AttributeDefinitions) != 2 {
		t.Errorf("each-b: %s %+v", s.Source, s.Create.KeySchema)
	}
	if s := byName(t, specs, "each-a", ""); len(s.Create.KeySchema) != 1 {
		t.Errorf("null range_key must leave the key schema with a hash key only: %+v", s.Create.KeySchema)
	}
	s1 := byName(t, specs, "s1", "")
	if len(s1.Create.GlobalSecondaryIndexes) != 2 || *s1.Create.GlobalSecondaryIndexes[1].IndexName != "g2" {
		t.Errorf("dynamic GSIs: %+v", s1.Create.GlobalSecondaryIndexes)
	}
	if tags(s1)["indexes"] != "g1,g2" {
		t.Errorf("splat: %v", tags(s1))
	}
	refs := byName(t, specs, "refs-2-sk", "")
	if tg := tags(refs); tg["first"] != "arn:aws:dynamodb:us-east-1:000000000000:table/app-a" || tg["ids"] != "app-a,app-b" {
		t.Errorf("references: %v", tg)
	}
}

func TestProvidersRegionsAndAccounts(t *testing.T) {
	files := map[string]string{"main.tf": `
provider "aws" {
  default_tags {
    tags = { env = "default", shared = "p" }
  }
}
provider "aws" {
  alias  = "west"
  region = "us-west-2"
  assume_role {
    role_arn = "arn:aws:iam::444455556666:role/deploy"
  }
}
provider "aws" {
  alias               = "cn"
  region              = "cn-north-1"
  allowed_account_ids = ["777788889999", "000011112222"]
}

data "aws_caller_identity" "west" {
  provider = aws.west
}
data "aws_region" "cn" {
  provider = aws.cn
}
data "aws_partition" "cn" {
  provider = aws.cn
}

resource "aws_dynamodb_table" "default" {
  name         = "d"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  tags = { env = "resource-wins" }
}
resource "aws_dynamodb_table" "west" {
  provider     = aws.west
  name         = "w-${data.aws_caller_identity.west.account_id}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_table" "cn" {
  provider     = aws.cn
  name         = "c-${data.aws_region.cn.name}-${data.aws_partition.cn.partition}"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_table" "override" {
  region       = "sa-east-1"
  name         = "o"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`}
	specs := load(t, files, spec.Options{Getenv: env("AWS_REGION", "eu-north-1", "AWS_DEFAULT_REGION", "ignored-1"), DefaultAccount: "123412341234"})
	d := byName(t, specs, "d", "eu-north-1")
	if d.Account != "123412341234" || !reflect.DeepEqual(tags(d), map[string]string{"env": "resource-wins", "shared": "p"}) {
		t.Errorf("default provider: %s %v", d.Account, tags(d))
	}
	w := byName(t, specs, "w-444455556666", "us-west-2")
	if w.Account != "444455556666" || len(w.Create.Tags) != 0 {
		t.Errorf("west: %s %v", w.Account, tags(w))
	}
	c := byName(t, specs, "c-cn-north-1-aws-cn", "cn-north-1")
	if c.ARN() != "arn:aws-cn:dynamodb:cn-north-1:777788889999:table/c-cn-north-1-aws-cn" {
		t.Errorf("cn ARN %s", c.ARN())
	}
	if o := byName(t, specs, "o", "sa-east-1"); o.Account != "123412341234" {
		t.Errorf("per-resource region: %+v", o)
	}

	// AWS_DEFAULT_REGION applies without AWS_REGION; the option is last.
	specs = load(t, files, spec.Options{Getenv: env("AWS_DEFAULT_REGION", "eu-south-1"), DefaultRegion: "me-south-1"})
	byName(t, specs, "d", "eu-south-1")
	specs = load(t, files, spec.Options{DefaultRegion: "me-south-1"})
	byName(t, specs, "d", "me-south-1")
}

func TestModules(t *testing.T) {
	specs := load(t, map[string]string{
		"main.tf": `
provider "aws" {
  region = "eu-west-1"
}
provider "aws" {
  alias  = "east"
  region = "us-east-1"
  allowed_account_ids = ["222222222222"]
}
module "a" {
  source = "./mod"
  name   = "alpha"
}
module "b" {
  source    = "./mod"
  name      = "beta-${module.a.hash}"
  providers = { aws = aws.east }
}
module "many" {
  source   = "./mod"
  for_each = toset(["x", "y"])
  name     = "many-${each.key}"
}
module "counted" {
  source = "./mod"
  count  = 2
  name   = "c${count.index}"
}
resource "aws_dynamodb_table" "root" {
  name         = "root"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  tags = {
    b   = module.b.arn
    x   = module.many["x"].arn
    c1  = module.counted[1].name
    sub = module.a.nested_name
  }
}
`,
		"mod/main.tf": `
variable "name" { type = string }
variable "hash" {
  type    = string
  default = "id"
}
resource "aws_dynamodb_table" "this" {
  name         = var.name
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = var.hash
  attribute {
    name = var.hash
    type = "S"
  }
}
module "nested" {
  source = "../nested"
  base   = var.name
}
output "arn"  { value = aws_dynamodb_table.this.arn }
output "name" { value = aws_dynamodb_table.this.name }
output "hash" { value = aws_dynamodb_table.this.hash_key }
output "nested_name" { value = module.nested.name }
`,
		"nested/main.tf": `
variable "base" {}
resource "aws_dynamodb_table" "n" {
  name         = "${var.base}-nested"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "k"
  attribute {
    name = "k"
    type = "N"
  }
}
output "name" { value = aws_dynamodb_table.n.name }
`,
	}, spec.Options{})
	b := byName(t, specs, "beta-id", "us-east-1")
	if b.Account != "222222222222" || b.Source != "module.b.aws_dynamodb_table.this" {
		t.Errorf("module with providers: %s %s", b.Account, b.Source)
	}
	byName(t, specs, "alpha", "eu-west-1")
	if n := byName(t, specs, "alpha-nested", "eu-west-1"); n.Source != "module.a.module.nested.aws_dynamodb_table.n" {
		t.Errorf("nested source %q", n.Source)
	}
	if m := byName(t, specs, "many-y", "eu-west-1"); m.Source != `module.many["y"].aws_dynamodb_table.this` {
		t.Errorf("for_each module source %q", m.Source)
	}
	byName(t, specs, "c0", "")
	root := byName(t, specs, "root", "")
	want := map[string]string{
		"b": "arn:aws:dynamodb:us-east-1:222222222222:table/beta-id", "x": "arn:aws:dynamodb:eu-west-1:000000000000:table/many-x",
		"c1": "c1", "sub": "alpha-nested",
	}
	if got := tags(root); !reflect.DeepEqual(got, want) {
		t.Errorf("module outputs: %v", got)
	}
	if len(specs) != 13 {
		t.Errorf("tables: %v", names(specs))
	}
}

func TestInstalledModule(t *testing.T) {
	specs := load(t, map[string]string{
		"main.tf":                         `module "reg" { source = "terraform-aws-modules/dynamodb-table/aws" }`,
		".terraform/modules/modules.json": `{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"reg","Source":"registry.terraform.io/x","Dir":".terraform/modules/reg"}]}`,
		".terraform/modules/reg/main.tf":  minimalTable,
	}, spec.Options{})
	if s := byName(t, specs, "t", ""); s.Source != "module.reg.aws_dynamodb_table.t" {
		t.Errorf("source %q", s.Source)
	}
}

func TestOverrideFilesAndJSON(t *testing.T) {
	specs := load(t, map[string]string{
		"main.tf": minimalTable + `
locals { stage = "base" }
`,
		"override.tf": `
resource "aws_dynamodb_table" "t" {
  name = "t-${local.stage}"
  attribute {
    name = "id"
    type = "N"
  }
}
`,
		"z_override.tf.json": `{"locals": {"stage": "json"}}`,
		"more.tf.json": `{
  "resource": {"aws_dynamodb_table": {"j": {
    "name": "from-json", "billing_mode": "PAY_PER_REQUEST", "hash_key": "id",
    "attribute": [{"name": "id", "type": "S"}]
  }}}
}`,
	}, spec.Options{})
	s := byName(t, specs, "t-json", "")
	if len(s.Create.AttributeDefinitions) != 1 || *s.Create.AttributeDefinitions[0].AttributeType != "N" || *s.Create.BillingMode != "PAY_PER_REQUEST" {
		t.Errorf("override merge: %+v", s.Create)
	}
	byName(t, specs, "from-json", "")
}

func TestOverrideProviderByAlias(t *testing.T) {
	specs := load(t, map[string]string{
		"main.tf": `
provider "aws" {
  alias  = "a"
  region = "eu-west-1"
}
provider "aws" {
  alias  = "b"
  region = "us-east-1"
}
resource "aws_dynamodb_table" "a" {
  provider     = aws.a
  name         = "ta"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_table" "b" {
  provider     = aws.b
  name         = "tb"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`,
		"extenddb_override.tf": `
provider "aws" {
  alias = "b"
  region = "ap-south-1"
}
provider "aws" {
  alias = "a"
  endpoints {
    dynamodb = "http://127.0.0.1:1"
  }
}
`,
	}, spec.Options{})
	byName(t, specs, "ta", "eu-west-1")
	byName(t, specs, "tb", "ap-south-1")
}

func TestFunctions(t *testing.T) {
	specs := load(t, map[string]string{"main.tf": `
locals {
  checks = {
    length_string = length("abc") == 3
    length_object = length({ a = 1, b = 2 }) == 2
    coalesce      = coalesce("", null, "x") == "x"
    lookup        = lookup({ a = "1" }, "b", "dflt") == "dflt"
    merge         = merge({ a = 1 }, { b = 2 }).b == 2
    concat        = length(concat([1], [2, 3])) == 3
    flatten       = length(flatten([[1], [2, [3]]])) == 3
    format        = format("%s-%03d", "x", 7) == "x-007"
    split         = split(",", "a,b")[1] == "b"
    replace       = replace("a-b-c", "-", "_") == "a_b_c"
    replace_re    = replace("abc123", "/[0-9]+/", "#") == "abc#"
    upper_lower   = upper("a") == lower("A") ? false : true
    tomap         = tomap({ a = "1" })["a"] == "1"
    tolist        = tolist(["a"])[0] == "a"
    toset         = length(toset(["a", "a"])) == 1
    keys_values   = join(",", keys({ b = 1, a = 2 })) == "a,b" && values({ a = 2 })[0] == 2
    contains      = contains(["x"], "x")
    jsonencode    = jsonencode({ a = [1, "b"] }) == "{\"a\":[1,\"b\"]}"
    jsondecode    = jsondecode("{\"a\":1}").a == 1
    yamlencode    = yamlencode({ a = "b" }) == "a: b\n"
    yamldecode    = yamldecode("a: [1, 2]").a[1] == 2
    try           = try(local.missing_map["x"], "fallback") == "fallback"
    can           = !can(tonumber("x"))
    alltrue       = alltrue([true, true]) && anytrue([false, true])
    one           = one(["x"]) == "x" && one([]) == null
    sum           = sum([1, 2, 3.5]) == 6.5
    starts        = startswith("abc", "ab") && endswith("abc", "bc") && strcontains("abc", "b")
    base64        = base64decode(base64encode("hi")) == "hi"
    sha           = sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    md5           = md5("a") == "0cc175b9c0f1b6a831c399e269772661"
    file          = trimspace(file("${path.module}/data.txt")) == "from file"
    fileexists    = fileexists("${path.module}/data.txt") && !fileexists("nope")
    transpose     = transpose({ a = ["x"], b = ["x"] })["x"][1] == "b"
    matchkeys     = matchkeys(["a", "b"], ["1", "2"], ["2"])[0] == "b"
    range_max     = max(range(3)...) == 2
    regex         = regex("[0-9]+", "ab12") == "12"
    workspace     = terraform.workspace == "default"
    templatefile  = templatefile("${path.module}/t.tpl", { n = "x", l = [1, 2] }) == "x:1,2;"
  }
  missing_map = {}
  failed = [for k, ok in local.checks : k if !ok]
}
resource "aws_dynamodb_table" "t" {
  name         = length(local.failed) == 0 ? "ok" : join(",", local.failed)
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`, "data.txt": "from file\n", "t.tpl": "${n}:%{ for i, v in l }${v}%{ if i == 0 },%{ endif }%{ endfor };"}, spec.Options{})
	if got := specs[0].Name(); got != "ok" {
		t.Errorf("failed function checks: %s", got)
	}
}

func TestReplicasItemsTags(t *testing.T) {
	specs := load(t, map[string]string{"main.tf": `
provider "aws" {
  region              = "eu-west-1"
  allowed_account_ids = ["111111111111"]
  default_tags {
    tags = { d = "1" }
  }
}
provider "aws" {
  alias  = "ap"
  region = "ap-northeast-1"
  allowed_account_ids = ["111111111111"]
}
resource "aws_dynamodb_table" "g" {
  name             = "g"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "id"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "id"
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
  }
  replica {
    region_name            = "us-east-2"
    point_in_time_recovery = false
    propagate_tags         = true
  }
  replica {
    region_name = "eu-central-1"
    deletion_protection_enabled = true
  }
  tags = { t = "x" }
}
resource "aws_dynamodb_table_replica" "ap" {
  provider             = aws.ap
  global_table_arn     = aws_dynamodb_table.g.arn
  table_class_override = "STANDARD_INFREQUENT_ACCESS"
  point_in_time_recovery = true
  tags = { r = "ap" }
}
resource "aws_dynamodb_tag" "extra" {
  resource_arn = aws_dynamodb_table.g.replica[0].arn
  key          = "via"
  value        = "aws_dynamodb_tag"
}
resource "aws_dynamodb_table_item" "i" {
  table_name = aws_dynamodb_table.g.name
  hash_key   = "id"
  item       = <<ITEM
{"id": {"S": "1"}, "n": {"N": "2"}, "l": {"L": [{"BOOL": true}, {"NULL": true}]}, "m": {"M": {"b": {"B": "aGk="}}}, "ss": {"SS": ["a"]}}
ITEM
}
output "stream" {
  value = aws_dynamodb_table.g.stream_arn
}
`}, spec.Options{})
	if len(specs) != 4 {
		t.Fatalf("tables: %d", len(specs))
	}
	regions := []string{"eu-west-1", "us-east-2", "eu-central-1", "ap-northeast-1"}
	for _, r := range regions {
		s := byName(t, specs, "g", r)
		if s.Account != "111111111111" || !slices.Equal(s.Replicas, regions) {
			t.Errorf("%s: account %s replicas %v", r, s.Account, s.Replicas)
		}
	}
	src := byName(t, specs, "g", "eu-west-1")
	if len(src.Items) != 1 || src.Items[0]["n"].S != "2" || src.Items[0]["m"].M["b"].S != "hi" {
		t.Errorf("items: %+v", src.Items)
	}
	if !*src.PITR.PointInTimeRecoveryEnabled {
		t.Error("source PITR")
	}
	us := byName(t, specs, "g", "us-east-2")
	if us.PITR != nil || !reflect.DeepEqual(tags(us), map[string]string{"d": "1", "t": "x", "via": "aws_dynamodb_tag"}) || len(us.Items) != 0 {
		t.Errorf("us-east-2 replica: pitr %+v tags %v", us.PITR, tags(us))
	}
	eu := byName(t, specs, "g", "eu-central-1")
	if len(eu.Create.Tags) != 0 || !*eu.Create.DeletionProtectionEnabled {
		t.Errorf("eu-central-1 replica: %v %v", tags(eu), deref(eu.Create.DeletionProtectionEnabled))
	}
	ap := byName(t, specs, "g", "ap-northeast-1")
	if *ap.Create.TableClass != "STANDARD_INFREQUENT_ACCESS" || !*ap.PITR.PointInTimeRecoveryEnabled || !reflect.DeepEqual(tags(ap), map[string]string{"r": "ap"}) {
		t.Errorf("table_replica: %+v %v", ap.Create.TableClass, tags(ap))
	}
}

func TestSkippedResourcesAndUnknownValues(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.tf": `
resource "aws_kms_key" "k" {}
resource "aws_sqs_queue" "q" {
  count = 2
}
data "aws_iam_policy_document" "p" {}
resource "aws_dynamodb_table" "t" {
  name         = "t"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  server_side_encryption {
    enabled     = true
    kms_key_arn = aws_kms_key.k.arn
  }
  tags = { q = aws_sqs_queue.q[0].url }
}
`})
	specs, diags := LoadDir(dir, spec.Options{Getenv: noEnv})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var infos, warns []string
	for _, d := range diags {
		switch d.Severity {
		case spec.Info:
			infos = append(infos, d.String())
		case spec.Warning:
			warns = append(warns, d.String())
		}
	}
	if len(infos) != 2 || !strings.Contains(infos[0], "main.tf:2:1: info: aws_kms_key.k: resource type aws_kms_key is not a DynamoDB table, skipped") {
		t.Errorf("one line per skipped resource: %q", infos)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "not known until apply") {
		t.Errorf("unknown values: %q", warns)
	}
	if sse := specs[0].Create.SSESpecification; sse == nil || sse.KMSMasterKeyId != nil {
		t.Errorf("unknown key ARN must leave the key unset: %+v", sse)
	}
}

func TestYAMLEncodeKeepsStrings(t *testing.T) {
	v, err := yamlEncodeFunc.Call([]cty.Value{cty.ObjectVal(map[string]cty.Value{
		"s": cty.StringVal("true"), "n": cty.NumberIntVal(1), "l": cty.TupleVal([]cty.Value{cty.StringVal("012")}),
	})})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.AsString(), "l:\n    - \"012\"\nn: 1\ns: \"true\"\n"; got != want {
		t.Errorf("yamlencode:\n%s\nwant\n%s", got, want)
	}
}

// TestRegistryModuleIdioms covers the idioms of the public
// terraform-aws-modules dynamodb-table module that the module example does
// not: alternative resources picked by count and try(), conditional maps
// unified with {}, nested dynamic import_table blocks, lifecycle
// ignore_changes with bare references, counted data sources with a region
// argument, and skipped resources indexing locals by count.index.
func TestRegistryModuleIdioms(t *testing.T) {
	specs := load(t, map[string]string{
		"main.tf": `
module "table" {
  source     = "./m"
  name       = "idioms"
  region     = "eu-west-2"
  replicas   = [{ region_name = "eu-west-3" }]
  gsis       = { byA = { hash_key = "a" } }
  import_csv = { delimiter = ";" }
}
output "arn" { value = module.table.arn }
`,
		"m/variables.tf": `
variable "create" {
  type    = bool
  default = true
}
variable "autoscaling" {
  type    = bool
  default = false
}
variable "name" { type = string }
variable "region" {
  type    = string
  default = null
}
variable "gsis" {
  type = map(object({
    name     = optional(string)
    hash_key = string
    on_demand_throughput = optional(object({
      max_read_request_units = optional(number)
    }))
  }))
  default = null
}
variable "replicas" {
  type = list(object({
    region_name    = string
    propagate_tags = optional(bool)
  }))
  default = []
}
variable "import_csv" {
  type    = any
  default = null
}
`,
		"m/main.tf": `
locals {
  table           = try(aws_dynamodb_table.this[0], aws_dynamodb_table.autoscaled[0], {})
  replica_regions = var.replicas[*].region_name
  replica_arns    = try(local.table.replica[*].arn, [])
}
data "aws_region" "current" {
  count  = var.create ? 1 : 0
  region = var.region
}
resource "aws_dynamodb_table" "this" {
  count        = var.create && !var.autoscaling ? 1 : 0
  region       = var.region
  name         = var.name
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
  attribute {
    name = "a"
    type = "S"
  }
  dynamic "global_secondary_index" {
    for_each = var.gsis != null ? var.gsis : {}
    content {
      name            = try(coalesce(global_secondary_index.value.name, global_secondary_index.key), "")
      hash_key        = global_secondary_index.value.hash_key
      projection_type = "ALL"
      dynamic "on_demand_throughput" {
        for_each = global_secondary_index.value.on_demand_throughput != null ? [global_secondary_index.value.on_demand_throughput] : []
        content {
          max_read_request_units = on_demand_throughput.value.max_read_request_units
        }
      }
    }
  }
  dynamic "replica" {
    for_each = length(var.replicas) > 0 ? var.replicas : []
    content {
      region_name    = replica.value.region_name
      propagate_tags = replica.value.propagate_tags
    }
  }
  dynamic "import_table" {
    for_each = var.import_csv != null ? [var.import_csv] : []
    content {
      input_format = "CSV"
      input_format_options {
        dynamic "csv" {
          for_each = [import_table.value]
          content {
            delimiter = csv.value.delimiter
          }
        }
      }
      s3_bucket_source {
        bucket = "b"
      }
    }
  }
  stream_enabled   = length(var.replicas) > 0
  stream_view_type = length(var.replicas) > 0 ? "NEW_AND_OLD_IMAGES" : null
  tags = merge({ region = data.aws_region.current[0].name }, { Name = format("%s", var.name) })
  lifecycle {
    ignore_changes = [global_secondary_index, read_capacity]
  }
}
resource "aws_dynamodb_table" "autoscaled" {
  count    = var.create && var.autoscaling ? 1 : 0
  name     = var.name
  hash_key = "id"
}
resource "aws_dynamodb_resource_policy" "replica" {
  count        = length(var.replicas)
  region       = local.replica_regions[count.index]
  resource_arn = local.replica_arns[count.index]
  policy       = "{}"
}
output "arn" { value = try(local.table.arn, "") }
`,
	}, spec.Options{DefaultAccount: "123456789012"})
	if len(specs) != 2 {
		t.Fatalf("tables: %v", names(specs))
	}
	s := byName(t, specs, "idioms", "eu-west-2")
	if s.Source != "module.table.aws_dynamodb_table.this[0]" || *s.Create.GlobalSecondaryIndexes[0].IndexName != "byA" ||
		s.Create.GlobalSecondaryIndexes[0].OnDemandThroughput != nil {
		t.Errorf("table: %s %+v", s.Source, s.Create.GlobalSecondaryIndexes)
	}
	if got := tags(s); got["region"] != "eu-west-2" || got["Name"] != "idioms" {
		t.Errorf("tags %v", got)
	}
	r := byName(t, specs, "idioms", "eu-west-3")
	if len(r.Create.Tags) != 0 || !slices.Equal(r.Replicas, []string{"eu-west-2", "eu-west-3"}) {
		t.Errorf("replica %v %v", tags(r), r.Replicas)
	}
}
