package terraform_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
