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

// replicaTable is an on-demand table in the provider's Region; REPLICAS is
// replaced by its replica {} blocks.
const replicaTable = `
resource "aws_dynamodb_table" "g" {
  name             = "orders-global"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
REPLICAS}
output "arn" { value = aws_dynamodb_table.g.arn }
`

// TestReplicaBlock applies a table with a replica {} block (a global table,
// version 2019.11.21), checks that the replica is a table of its own in the
// other Region that receives the home Region's writes, removes the replica
// in a second apply and destroys, each apply followed by a clean plan.
func TestReplicaBlock(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"666666666666", "AKIAREPLICA00000"}
	const home, other = "eu-west-1", "us-west-2"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	hc, oc := s.client(home, acct), s.client(other, acct)
	ctx := t.Context()
	head := s.terraformBlock() + s.providerBlock("", home, acct)
	withReplica := head + strings.Replace(replicaTable, "REPLICAS", "  replica {\n    region_name = \""+other+"\"\n  }\n", 1)

	s.write("main.tf", withReplica)
	s.init()
	s.applyClean("create with a replica")
	desc, err := hc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders-global")})
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.Table.Replicas) != 1 || aws.ToString(desc.Table.Replicas[0].RegionName) != other ||
		desc.Table.Replicas[0].ReplicaStatus != types.ReplicaStatusActive {
		t.Fatalf("home Region's replicas: %+v", desc.Table.Replicas)
	}
	rep, err := oc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders-global")})
	if err != nil {
		t.Fatalf("the replica's table in %s: %v", other, err)
	}
	wantField(t, "replica", "TableArn", aws.ToString(rep.Table.TableArn), "arn:aws:dynamodb:"+other+":"+acct.id+":table/orders-global")
	wantField(t, "outputs", "arn", stringOf(s.outputs()["arn"]), "arn:aws:dynamodb:"+home+":"+acct.id+":table/orders-global")

	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "o-1"}}
	if _, err := hc.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders-global"), Item: key}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := oc.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("orders-global"), Key: key})
		if err == nil && out.Item != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the item written in %s never reached %s: %v", home, other, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	s.write("main.tf", head+strings.Replace(replicaTable, "REPLICAS", "", 1))
	s.applyClean("remove the replica")
	_, err = oc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders-global")})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("the replica in %s after its removal: %v, want it gone", other, err)
	}

	s.destroy("destroy")
}

// waitForItem polls c until the item with key is readable from table, or
// fails the test after 30 s.
func waitForItem(t *testing.T, c *dynamodb.Client, table string, key map[string]types.AttributeValue, from, to string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
		if err == nil && out.Item != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the item written in %s never reached %s: %v", from, to, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tableReplicaConfig is an on-demand table with streams in the default
// provider's Region and an aws_dynamodb_table_replica of it made through the
// "replica" provider alias, as the provider's documentation writes it (the
// table ignores its own replica attribute, which the replica resource fills).
const tableReplicaConfig = `
resource "aws_dynamodb_table" "t" {
  name             = "orders-replicated"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
  lifecycle {
    ignore_changes = [replica]
  }
}
resource "aws_dynamodb_table_replica" "r" {
  provider         = aws.replica
  global_table_arn = aws_dynamodb_table.t.arn
}
output "replica_arn" { value = aws_dynamodb_table_replica.r.arn }
`

// TestTableReplicaResource applies aws_dynamodb_table_replica beside its
// table, plans clean, checks that a write in the home Region is read in
// the replica's Region, and destroys both.
func TestTableReplicaResource(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"666666666666", "AKIATBLREPLICA00"}
	const home, other = "eu-central-1", "ap-northeast-1"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	hc, oc := s.client(home, acct), s.client(other, acct)
	ctx := t.Context()
	s.write("main.tf", s.terraformBlock()+s.providerBlock("", home, acct)+s.providerBlock("replica", other, acct)+tableReplicaConfig)
	s.init()
	s.applyClean("create the table and its replica")
	desc, err := hc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders-replicated")})
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.Table.Replicas) != 1 || aws.ToString(desc.Table.Replicas[0].RegionName) != other ||
		desc.Table.Replicas[0].ReplicaStatus != types.ReplicaStatusActive {
		t.Fatalf("home Region's replicas: %+v", desc.Table.Replicas)
	}
	wantField(t, "outputs", "replica_arn", stringOf(s.outputs()["replica_arn"]), "arn:aws:dynamodb:"+other+":"+acct.id+":table/orders-replicated")

	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "r-1"}}
	if _, err := hc.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders-replicated"), Item: key}); err != nil {
		t.Fatal(err)
	}
	waitForItem(t, oc, "orders-replicated", key, home, other)

	// The replica first, then the table: destroyed together, the table's
	// refreshed replica list still names the Region the replica resource
	// has just removed, the provider's table Delete sends a Delete for it,
	// and the answer (ValidationException "… not part of the global table
	// …", as DynamoDB was observed to answer) is not one it tolerates.
	s.tf("destroy the replica", []int{0}, "destroy", "-auto-approve", "-input=false", "-target=aws_dynamodb_table_replica.r")
	s.destroy("destroy")
	for _, c := range []*dynamodb.Client{hc, oc} {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders-replicated")})
		var rnf *types.ResourceNotFoundException
		if !errors.As(err, &rnf) {
			t.Errorf("after destroy: %v, want the table gone in every Region", err)
		}
	}
}

// legacyGlobalConfig is a table of the same name in two Regions (one
// provider alias each) joined by a version 2017.11.29 global table.
const legacyGlobalConfig = `
resource "aws_dynamodb_table" "a" {
  provider         = aws.a
  name             = "legacy-global"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
}
resource "aws_dynamodb_table" "b" {
  provider         = aws.b
  name             = "legacy-global"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
}
resource "aws_dynamodb_global_table" "g" {
  provider   = aws.a
  depends_on = [aws_dynamodb_table.a, aws_dynamodb_table.b]
  name       = "legacy-global"
  replica {
    region_name = "REGION_A"
  }
  replica {
    region_name = "REGION_B"
  }
}
output "global_arn" { value = aws_dynamodb_global_table.g.arn }
`

// TestLegacyGlobalTable applies aws_dynamodb_global_table (version
// 2017.11.29, served with LegacyGlobalTables) over two same-named tables in
// two Regions, plans clean, checks that a write in either Region is read in
// the other, and destroys.
func TestLegacyGlobalTable(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"666666666666", "AKIALEGACYGT0000"}
	const ra, rb = "us-east-1", "eu-west-2"
	// No transition delay: the provider's global-table waiter polls every
	// 10 s, so a CREATING first answer would cost 10 s a wait.
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct},
		engine: func(o *emulator.Options) { o.LegacyGlobalTables = true }})
	ac, bc := s.client(ra, acct), s.client(rb, acct)
	ctx := t.Context()
	cfg := strings.NewReplacer("REGION_A", ra, "REGION_B", rb).Replace(legacyGlobalConfig)
	s.write("main.tf", s.terraformBlock()+s.providerBlock("a", ra, acct)+s.providerBlock("b", rb, acct)+cfg)
	s.init()
	s.applyClean("create two tables and their global table")
	wantField(t, "outputs", "global_arn", stringOf(s.outputs()["global_arn"]), "arn:aws:dynamodb::"+acct.id+":global-table/legacy-global")

	ka := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "from-a"}}
	if _, err := ac.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("legacy-global"), Item: ka}); err != nil {
		t.Fatal(err)
	}
	waitForItem(t, bc, "legacy-global", ka, ra, rb)
	kb := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "from-b"}}
	if _, err := bc.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("legacy-global"), Item: kb}); err != nil {
		t.Fatal(err)
	}
	waitForItem(t, ac, "legacy-global", kb, rb, ra)

	s.destroy("destroy")
	_, err := ac.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("legacy-global")})
	var gnf *types.GlobalTableNotFoundException
	if !errors.As(err, &gnf) {
		t.Errorf("the global table after destroy: %v, want GlobalTableNotFoundException", err)
	}
}
