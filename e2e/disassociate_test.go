package e2e_test

import (
	"context"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDisassociateSurvivesSIGKILL kills the binary while a replica's
// disassociation waits for a change queued for it (held back by
// --replication-delay): after the restart the disassociation resumes,
// delivers the change and completes (issue 50).
func TestDisassociateSurvivesSIGKILL(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	ctx := context.Background()
	s := start(t, bin, "--data-dir", dir, "--sync", "--replication-delay", "1h")
	home, repl := s.client(), regionClient(s, "eu-west-1")
	createTable(t, home, "Leaving")
	if _, err := home.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Leaving"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	waitTable(t, repl, "Leaving", func(d *types.TableDescription) bool { return d.TableStatus == types.TableStatusActive })
	if _, err := repl.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Leaving"), DisassociationProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := home.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Leaving"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "queued"}}}); err != nil {
		t.Fatal(err)
	}
	out, err := repl.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Leaving"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
			RegionName: aws.String("eu-west-1"), DisassociationMode: types.DisassociationModeWaitForReplication}}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != types.TableStatusUpdating {
		t.Fatalf("UpdateTable answer: %s, want UPDATING", out.TableDescription.TableStatus)
	}
	_ = s.stop(t, syscall.SIGKILL)

	s = start(t, bin, "--data-dir", dir) // no delay: the held change is due
	home, repl = s.client(), regionClient(s, "eu-west-1")
	alone := func(d *types.TableDescription) bool {
		return d.TableStatus == types.TableStatusActive && len(d.Replicas) == 0
	}
	waitTable(t, repl, "Leaving", alone)
	waitTable(t, home, "Leaving", alone)
	got, err := repl.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Leaving"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "queued"}}})
	if err != nil || got.Item == nil {
		t.Errorf("the change queued before the Disassociate: %v, %v; want delivered", got, err)
	}
}

func regionClient(s *server, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           region,
		BaseEndpoint:     aws.String(s.url),
		Credentials:      credentials.NewStaticCredentialsProvider("AKIAIOSFODNN7EXAMPLE", "secret", ""),
		RetryMaxAttempts: 1,
	})
}

// waitTable waits up to 30 s for DescribeTable of name to satisfy ok.
func waitTable(t *testing.T, c *dynamodb.Client, name string, ok func(*types.TableDescription) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil && ok(out.Table) {
			return
		}
		if time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("DescribeTable %s: %v", name, err)
			}
			t.Fatalf("%s: %s with Replicas %+v", name, out.Table.TableStatus, out.Table.Replicas)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
