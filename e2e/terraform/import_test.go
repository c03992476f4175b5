package terraform_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// importedTable is the configuration matching the table TestImport creates
// through the API.
const importedTable = `
resource "aws_dynamodb_table" "t" {
  name           = "imported"
  billing_mode   = "PROVISIONED"
  read_capacity  = 3
  write_capacity = 2
  hash_key       = "pk"

  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "email"
    type = "S"
  }

  global_secondary_index {
    name            = "by_email"
    hash_key        = "email"
    projection_type = "ALL"
    read_capacity   = 1
    write_capacity  = 1
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  tags = {
    origin = "sdk"
  }
}
`

// importedRest adds, to the imported table: a second item (the provider
// 5.100 cannot import aws_dynamodb_table_item), a tag on a table Terraform
// does not manage (aws_dynamodb_tag, the use it is made for), and the three
// DynamoDB data sources, one reading the item made through the API.
const importedRest = `
resource "aws_dynamodb_table_item" "second" {
  table_name = aws_dynamodb_table.t.name
  hash_key   = aws_dynamodb_table.t.hash_key
  item = jsonencode({
    pk    = { S = "u#2" }
    email = { S = "b@example.com" }
    n     = { N = "-0.25" }
    tags  = { SS = ["y", "x"] }
    doc   = { M = { list = { L = [{ BOOL = true }, { NULL = true }] } } }
  })
}

resource "aws_dynamodb_tag" "owner" {
  resource_arn = data.aws_dynamodb_table.unmanaged.arn
  key          = "owner"
  value        = "terraform"
}

data "aws_dynamodb_table" "unmanaged" {
  name = "unmanaged"
}

data "aws_dynamodb_table_item" "seed" {
  table_name = aws_dynamodb_table.t.name
  key = jsonencode({
    pk = { S = "u#1" }
  })
}

data "aws_dynamodb_tables" "all" {}

output "unmanaged_arn" {
  value = data.aws_dynamodb_table.unmanaged.arn
}

output "unmanaged_billing" {
  value = data.aws_dynamodb_table.unmanaged.billing_mode
}

output "seed_item" {
  value = data.aws_dynamodb_table_item.seed.item
}

output "tables" {
  value = data.aws_dynamodb_tables.all.names
}
`

// TestImport creates tables and an item through the API (as the AWS CLI
// would), imports the table with `terraform import` and requires a clean
// plan: what ExtendDB describes must read back as the configuration that
// describes it. It then covers aws_dynamodb_table_item, aws_dynamodb_tag and
// the aws_dynamodb_table, aws_dynamodb_table_item and aws_dynamodb_tables
// data sources.
func TestImport(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"444444444444", "AKIAIMPORT000000"}
	const region = "us-west-2"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	c := s.client(region, acct)
	ctx := t.Context()

	createThroughAPI(t, c)
	s.write("main.tf", s.terraformBlock()+s.providerBlock("", region, acct)+importedTable)
	s.init()
	s.tf("terraform import aws_dynamodb_table", []int{0}, "import", "-input=false", "aws_dynamodb_table.t", "imported")
	s.planClean("after terraform import")

	s.write("main.tf", s.terraformBlock()+s.providerBlock("", region, acct)+importedTable+importedRest)
	out := s.applyClean("item, tag, data sources")
	if !strings.Contains(out, "Resources: 2 added, 0 changed, 0 destroyed.") {
		t.Errorf("apply: want the item and the tag added, nothing changed:\n%s", out)
	}
	outs := s.outputs()
	wantField(t, "outputs", "unmanaged_arn", fmt.Sprint(outs["unmanaged_arn"]), "arn:aws:dynamodb:us-west-2:444444444444:table/unmanaged")
	wantField(t, "outputs", "unmanaged_billing", fmt.Sprint(outs["unmanaged_billing"]), "PAY_PER_REQUEST")
	wantField(t, "outputs", "tables", fmt.Sprint(outs["tables"]), "[imported unmanaged]")
	var item map[string]map[string]any
	if err := json.Unmarshal([]byte(fmt.Sprint(outs["seed_item"])), &item); err != nil || fmt.Sprint(item["n"]) != "map[N:7]" {
		t.Errorf("data aws_dynamodb_table_item: %v (%v)", outs["seed_item"], err)
	}
	ts := describe(t, c, "unmanaged")
	wantField(t, "aws_dynamodb_tag", "tags", fmt.Sprint(ts.Tags), "map[owner:terraform]")
	ts = describe(t, c, "imported")
	wantField(t, "after apply", "items", strings.Join(ts.Items, "\n"),
		`{"M":{"doc":{"M":{"list":{"L":[{"BOOL":true},{"NULL":true}]}}},"email":{"S":"b@example.com"},"n":{"N":"-0.25"},"pk":{"S":"u#2"},"tags":{"SS":["y","x"]}}}`+"\n"+
			`{"M":{"email":{"S":"a@example.com"},"n":{"N":"7"},"pk":{"S":"u#1"},"tags":{"SS":["b","a"]}}}`)

	s.destroy("destroy")
	if !tableGone(t, c, "imported") {
		t.Error("imported table still there after destroy")
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-west-2:444444444444:table/unmanaged")})
	if err != nil || len(tags.Tags) != 0 {
		t.Errorf("aws_dynamodb_tag destroy left tags %v (%v)", tags, err)
	}
}

// createThroughAPI makes what TestImport imports: a provisioned table with
// a GSI, a stream, TTL and a tag, its item, and an unmanaged table.
func createThroughAPI(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := t.Context()
	str := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             aws.String("imported"),
		AttributeDefinitions:  []types.AttributeDefinition{str("pk"), str("email")},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(2)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String("by_email"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("email"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
		}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		Tags:                []types.Tag{{Key: aws.String("origin"), Value: aws.String("sdk")}},
	})
	if err != nil {
		t.Fatalf("CreateTable imported: %v", err)
	}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("unmanaged"),
		AttributeDefinitions: []types.AttributeDefinition{str("id")},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatalf("CreateTable unmanaged: %v", err)
	}
	for _, name := range []string{"imported", "unmanaged"} {
		w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 50 * time.Millisecond })
		if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, commandTimeout); err != nil {
			t.Fatalf("waiting for %s: %v", name, err)
		}
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String("imported"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires_at"), Enabled: aws.Bool(true)},
	}); err != nil {
		t.Fatalf("UpdateTimeToLive: %v", err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("imported"), Item: map[string]types.AttributeValue{
		"pk":    &types.AttributeValueMemberS{Value: "u#1"},
		"email": &types.AttributeValueMemberS{Value: "a@example.com"},
		"n":     &types.AttributeValueMemberN{Value: "7"},
		"tags":  &types.AttributeValueMemberSS{Value: []string{"b", "a"}},
	}}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}
