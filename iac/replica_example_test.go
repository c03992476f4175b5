package iac

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/iac/spec"
)

// TestExampleGlobalTableReplicates loads examples/cloudformation's
// orders-stack.yaml as --load does: its AWS::DynamoDB::GlobalTable
// (Customers, Replicas in the stack's Region and in ReplicaRegion) is one
// global table whose members list each other ACTIVE, and a write in
// either Region is read in the other.
func TestExampleGlobalTableReplicates(t *testing.T) {
	const home, other, account = "eu-west-1", "us-west-2", "123456789012"
	eng := newEngine(t)
	specs := mustLoad(t, []string{"../examples/cloudformation/orders-stack.yaml"},
		Options{StackName: "shop", StackRegion: home, StackAccount: account})
	ctx := context.Background()
	if d := Provision(ctx, eng, specs); len(d.Errs()) > 0 {
		t.Fatal(diagText(d))
	}
	nsHome := api.Namespace{Account: account, Region: home}
	nsOther := api.Namespace{Account: account, Region: other}
	name := spec.Str("shop-customers")
	for _, c := range []struct{ ns, peer api.Namespace }{{nsHome, nsOther}, {nsOther, nsHome}} {
		// The replica is ACTIVE once its seeding job has run.
		for deadline := time.Now().Add(10 * time.Second); ; {
			out, err := eng.DescribeTable(ctx, c.ns, &api.DescribeTableInput{TableName: name})
			if err != nil {
				t.Fatal(err)
			}
			td := out.Table
			if len(td.Replicas) != 1 || td.Replicas[0].RegionName != c.peer.Region || td.GlobalTableVersion != "2019.11.21" {
				t.Fatalf("%s: GlobalTableVersion %q, Replicas %+v, want only %s", c.ns.Region, td.GlobalTableVersion, td.Replicas, c.peer.Region)
			}
			if want := c.ns.TableARN("shop-customers"); td.TableArn != want {
				t.Errorf("%s: TableArn %s, want %s", c.ns.Region, td.TableArn, want)
			}
			if td.Replicas[0].ReplicaStatus == "ACTIVE" && td.TableStatus == "ACTIVE" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: table %s, replica %s, want both ACTIVE", c.ns.Region, td.TableStatus, td.Replicas[0].ReplicaStatus)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	key := func(id string) av.Item { return av.Item{"customer_id": {Type: av.TypeS, S: id}} }
	for _, c := range []struct {
		id       string
		from, to api.Namespace
	}{{"written-in-home", nsHome, nsOther}, {"written-in-replica", nsOther, nsHome}} {
		it := key(c.id)
		it["name"] = av.Value{Type: av.TypeS, S: c.from.Region}
		if _, err := eng.PutItem(ctx, c.from, &api.PutItemInput{TableName: name, Item: it}); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; {
			out, err := eng.GetItem(ctx, c.to, &api.GetItemInput{TableName: name, Key: key(c.id), ConsistentRead: spec.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Item != nil {
				if got := out.Item["name"].S; got != c.from.Region {
					t.Errorf("%s in %s: name %q, want %q", c.id, c.to.Region, got, c.from.Region)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the write in %s never reached %s", c.from.Region, c.to.Region)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
