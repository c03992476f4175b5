package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Replica disassociation (issue 50): UpdateTable's ReplicaUpdates
// Disassociate and DisassociationProtectionEnabled, through the SDK
// (Developer Guide, "Disassociating a global table replica").

const gtThird = "ap-southeast-2"

// disassociate sends the Disassociate of c's Region's replica to c.
func disassociate(t *testing.T, c *dynamodb.Client, region string) (*types.TableDescription, error) {
	t.Helper()
	out, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
			RegionName: aws.String(region), DisassociationMode: types.DisassociationModeWaitForReplication}}}})
	if err != nil {
		return nil, err
	}
	return out.TableDescription, nil
}

func setProtection(t *testing.T, c *dynamodb.Client, on bool) *types.TableDescription {
	t.Helper()
	out, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"), DisassociationProtectionEnabled: aws.Bool(on)})
	if err != nil {
		t.Fatalf("DisassociationProtectionEnabled %v: %v", on, err)
	}
	return out.TableDescription
}

// waitAlone waits until c's table is ACTIVE without Replicas, the
// documented sign of a completed disassociation (API Reference,
// UpdateTable).
func waitAlone(t *testing.T, c *dynamodb.Client, f *gtFixture) *types.TableDescription {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		d := f.describe(t, c)
		if d.TableStatus == types.TableStatusActive && len(d.Replicas) == 0 {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %s with Replicas %+v", d.TableStatus, d.Replicas)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func protection(d *types.TableDescription) string {
	if d.DisassociationProtectionEnabled == nil {
		return "<absent>"
	}
	if *d.DisassociationProtectionEnabled {
		return "true"
	}
	return "false"
}

// TestDisassociateTwoReplicas: protection is on by default and refuses the
// Disassociate; once off, the replica's Disassociate, sent to its Region,
// delivers what was queued both ways first (WAIT_FOR_REPLICATION: the
// changes are held back by the replication delay), then both tables are
// single-Region tables that keep their names, ARNs, items, indexes,
// streams, TTL and backups, and writes no longer replicate either way.
func TestDisassociateTwoReplicas(t *testing.T) {
	const delay = 400 * time.Millisecond
	f := newGlobalFixture(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.ReplicationDelay = delay }))
	f.addReplica(t)
	ctx := t.Context()
	if _, err := f.repl.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("gtab"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	bk, err := f.repl.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("gtab"), BackupName: aws.String("before")})
	if err != nil {
		t.Fatal(err)
	}
	home0, repl0 := f.describe(t, f.home), f.describe(t, f.repl)
	if protection(home0) != "true" || protection(repl0) != "true" {
		t.Errorf("DisassociationProtectionEnabled by default: home %s, replica %s, want true", protection(home0), protection(repl0))
	}

	_, err = disassociate(t, f.repl, gtReplica)
	wantAPIError(t, err, "ValidationException", "Replica cannot be disassociated as it is currently protected against disassociation. Disable disassociation protection first.")
	if d := setProtection(t, f.repl, false); protection(d) != "false" {
		t.Errorf("UpdateTable answer DisassociationProtectionEnabled %s, want false", protection(d))
	}
	if p := protection(f.describe(t, f.home)); p != "true" {
		t.Errorf("the other replica's protection changed to %s", p)
	}

	// Queued both ways, held back by the delay.
	f.put(t, f.home, "queued", "1", "from-home")
	f.put(t, f.repl, "queued", "2", "from-replica")
	d, err := disassociate(t, f.repl, gtReplica)
	if err != nil {
		t.Fatal(err)
	}
	if d.TableStatus != types.TableStatusUpdating || len(d.Replicas) != 1 {
		t.Errorf("UpdateTable answer: %s with Replicas %+v, want UPDATING still listing %s", d.TableStatus, d.Replicas, gtHome)
	}
	// Written after the request: replicated neither way.
	f.put(t, f.home, "after", "1", "home-only")
	f.put(t, f.repl, "after", "2", "replica-only")

	repl := waitAlone(t, f.repl, f)
	home := waitAlone(t, f.home, f)
	if got := f.get(t, f.repl, "queued", "1"); got != "from-home" {
		t.Errorf("the change queued for the replica: %q, want delivered", got)
	}
	if got := f.get(t, f.home, "queued", "2"); got != "from-replica" {
		t.Errorf("the change queued by the replica: %q, want delivered", got)
	}
	time.Sleep(delay + 100*time.Millisecond)
	f.settle(t)
	f.put(t, f.home, "later", "1", "home")
	f.put(t, f.repl, "later", "2", "replica")
	time.Sleep(delay + 100*time.Millisecond)
	f.settle(t)
	for _, c := range []struct {
		c      *dynamodb.Client
		pk, sk string
	}{{f.repl, "after", "1"}, {f.home, "after", "2"}, {f.repl, "later", "1"}, {f.home, "later", "2"}} {
		if got := f.get(t, c.c, c.pk, c.sk); got != "" {
			t.Errorf("%s/%s replicated after the Disassociate: %q", c.pk, c.sk, got)
		}
	}

	for _, c := range []struct {
		before, after *types.TableDescription
	}{{home0, home}, {repl0, repl}} {
		arn := aws.ToString(c.before.TableArn)
		if aws.ToString(c.after.TableArn) != arn || aws.ToString(c.after.TableName) != "gtab" {
			t.Errorf("%s: now %s", arn, aws.ToString(c.after.TableArn))
		}
		if c.after.GlobalTableVersion != nil || c.after.DisassociationProtectionEnabled != nil {
			t.Errorf("%s: GlobalTableVersion %v, DisassociationProtectionEnabled %s, want both absent", arn, aws.ToString(c.after.GlobalTableVersion), protection(c.after))
		}
		if len(c.after.GlobalSecondaryIndexes) != 1 || len(c.after.LocalSecondaryIndexes) != 1 {
			t.Errorf("%s: indexes %d GSI %d LSI", arn, len(c.after.GlobalSecondaryIndexes), len(c.after.LocalSecondaryIndexes))
		}
		if s := c.after.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || aws.ToString(c.after.LatestStreamArn) != aws.ToString(c.before.LatestStreamArn) {
			t.Errorf("%s: stream %+v %s, want the same stream on", arn, s, aws.ToString(c.after.LatestStreamArn))
		}
	}
	out, err := f.repl.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("gtab"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "G"}}})
	// The 3 seeded, the 2 queued, its own "after" and "later": 7.
	if err != nil || out.Count != 7 {
		t.Errorf("replica GSI after: %d items, %v; want 7", out.Count, err)
	}
	ttl, err := f.repl.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("gtab")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("replica TTL after: %+v, %v", ttl, err)
	}
	if _, err := f.repl.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: bk.BackupDetails.BackupArn}); err != nil {
		t.Errorf("replica backup after: %v", err)
	}
	// A single-Region table has no disassociation protection to set.
	_, err = f.home.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("gtab"), DisassociationProtectionEnabled: aws.Bool(false)})
	wantAPIError(t, err, "ValidationException", "Table gtab is not a replica of a global table version 2019.11.21.")
}

// TestDisassociateThreeReplicas: the disassociated replica becomes a
// single-Region table; the other two stay a global table and keep
// replicating to each other only.
func TestDisassociateThreeReplicas(t *testing.T) {
	f := newGlobalFixture(t)
	f.addReplica(t)
	third := f.s.ClientFor(gtThird, testserver.DefaultAccessKeyID)
	if _, err := f.home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(gtThird)}}}}); err != nil {
		t.Fatal(err)
	}
	f.settle(t)
	setProtection(t, f.repl, false)
	if _, err := disassociate(t, f.repl, gtReplica); err != nil {
		t.Fatal(err)
	}
	waitAlone(t, f.repl, f)
	for _, c := range []struct {
		c     *dynamodb.Client
		other string
	}{{f.home, gtThird}, {third, gtHome}} {
		d := f.describe(t, c.c)
		if d.TableStatus != types.TableStatusActive || len(d.Replicas) != 1 || aws.ToString(d.Replicas[0].RegionName) != c.other ||
			aws.ToString(d.GlobalTableVersion) != "2019.11.21" || protection(d) != "true" {
			t.Errorf("%s: %s, Replicas %+v, version %q, protection %s; want ACTIVE with only %s",
				aws.ToString(d.TableArn), d.TableStatus, d.Replicas, aws.ToString(d.GlobalTableVersion), protection(d), c.other)
		}
	}
	f.put(t, f.home, "n", "1", "home")
	f.put(t, third, "n", "2", "third")
	f.put(t, f.repl, "n", "3", "replica")
	f.settle(t)
	if f.get(t, third, "n", "1") != "home" || f.get(t, f.home, "n", "2") != "third" {
		t.Error("the remaining pair stopped replicating")
	}
	if f.get(t, f.repl, "n", "1") != "" || f.get(t, f.repl, "n", "2") != "" || f.get(t, f.home, "n", "3") != "" || f.get(t, third, "n", "3") != "" {
		t.Error("writes still replicate to or from the disassociated replica")
	}
	if f.get(t, f.repl, "seed", "1") != "old" {
		t.Error("the disassociated replica lost its items")
	}
}

// TestDisassociateRefusals: the request's rules, each a
// ValidationException (ExtendDB's wording where the service's is not
// published: docs/differences.md), and a table being disassociated
// refuses other changes.
func TestDisassociateRefusals(t *testing.T) {
	f := newGlobalFixture(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.ReplicationDelay = time.Hour }))
	ctx := t.Context()
	// A single-Region table.
	_, err := disassociate(t, f.home, gtHome)
	wantAPIError(t, err, "ValidationException", "Table gtab is not a replica of a global table version 2019.11.21.")
	_, err = f.home.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("gtab"), DisassociationProtectionEnabled: aws.Bool(false)})
	wantAPIError(t, err, "ValidationException", "Table gtab is not a replica of a global table version 2019.11.21.")
	f.addReplica(t)

	dis := &types.DisassociateReplicationGroupMemberAction{RegionName: aws.String(gtReplica), DisassociationMode: types.DisassociationModeWaitForReplication}
	for _, c := range []struct {
		name string
		in   *dynamodb.UpdateTableInput
		msg  string
	}{
		{"with another replica update", &dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: dis},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(gtThird)}}}},
			"One or more parameter values were invalid: Disassociate must be the only replica update in the request"},
		{"with another change", &dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: dis}},
			DeletionProtectionEnabled: aws.Bool(true)},
			"One or more parameter values were invalid: Replica modification must be the only operation in the request"},
		{"protection with another change", &dynamodb.UpdateTableInput{DisassociationProtectionEnabled: aws.Bool(false),
			DeletionProtectionEnabled: aws.Bool(true)},
			"One or more parameter values were invalid: DisassociationProtection modification must be the only operation in the request"},
		{"protection with a Disassociate", &dynamodb.UpdateTableInput{DisassociationProtectionEnabled: aws.Bool(false),
			ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: dis}}},
			"One or more parameter values were invalid: Replica modification must be the only operation in the request"},
		{"unknown mode", &dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
			RegionName: aws.String(gtReplica), DisassociationMode: "NOW"}}}},
			"1 validation error detected: Value 'NOW' at 'replicaUpdates.1.member.disassociate.disassociationMode' failed to satisfy constraint: Member must satisfy enum value set: [WAIT_FOR_REPLICATION]"},
		{"sent to another Region", &dynamodb.UpdateTableInput{ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
			RegionName: aws.String(gtHome), DisassociationMode: types.DisassociationModeWaitForReplication}}}},
			"Disassociate can only be requested in the Region of the replica: send the request for Region us-east-1 to that Region, this request was sent to eu-west-1."},
	} {
		c.in.TableName = aws.String("gtab")
		_, err := f.repl.UpdateTable(ctx, c.in)
		t.Run(c.name, func(t *testing.T) { wantAPIError(t, err, "ValidationException", c.msg) })
	}

	// Being disassociated (the queued change held back): other changes
	// wait, on both members.
	f.put(t, f.home, "held", "1", "v")
	setProtection(t, f.repl, false)
	if _, err := disassociate(t, f.repl, gtReplica); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*dynamodb.Client{f.repl, f.home} {
		if d := f.describe(t, c); d.TableStatus != types.TableStatusUpdating {
			t.Errorf("%s while disassociating: %s, want UPDATING", aws.ToString(d.TableArn), d.TableStatus)
		}
	}
	if r := f.describe(t, f.home).Replicas; len(r) != 1 || r[0].ReplicaStatus != types.ReplicaStatusUpdating {
		t.Errorf("the home table's Replicas while disassociating: %+v, want eu-west-1 UPDATING", r)
	}
	_, err = disassociate(t, f.repl, gtReplica)
	wantAPIError(t, err, "ResourceInUseException", "The resource which you are attempting to change is in use.")
	_, err = f.home.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("gtab"), DisassociationProtectionEnabled: aws.Bool(false)})
	wantAPIError(t, err, "ResourceInUseException", "The resource which you are attempting to change is in use.")
}

// TestDisassociateLegacyRefused: a legacy (2017.11.29) member cannot be
// disassociated nor have the protection.
func TestDisassociateLegacyRefused(t *testing.T) {
	s := newLegacyServer(t, true)
	home, repl := s.ClientFor(gtHome, testserver.DefaultAccessKeyID), s.ClientFor(gtReplica, testserver.DefaultAccessKeyID)
	createLegacyMember(t, home, "gtab")
	createLegacyMember(t, repl, "gtab")
	if _, err := home.CreateGlobalTable(t.Context(), &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("gtab"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String(gtHome)}, {RegionName: aws.String(gtReplica)}}}); err != nil {
		t.Fatal(err)
	}
	const msg = "Table gtab is a replica of a global table version 2017.11.29: replica disassociation is supported for global tables version 2019.11.21 only."
	_, err := disassociate(t, repl, gtReplica)
	wantAPIError(t, err, "ValidationException", msg)
	_, err = repl.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gtab"), DisassociationProtectionEnabled: aws.Bool(false)})
	wantAPIError(t, err, "ValidationException", msg)
}

// TestDisassociateOddInput: bodies the SDK would not send get a 400, never
// a 5xx or a hang.
func TestDisassociateOddInput(t *testing.T) {
	f := newGlobalFixture(t)
	f.addReplica(t)
	for _, body := range []string{
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":{}}]}`,
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":{"RegionName":"us-east-1"}}]}`,
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":{"DisassociationMode":"WAIT_FOR_REPLICATION"}}]}`,
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":null}]}`,
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":"x"}]}`,
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":{"RegionName":"us-east-1","DisassociationMode":"WAIT_FOR_REPLICATION"},"Delete":{"RegionName":"eu-west-1"}}]}`,
		`{"TableName":"gtab","ReplicaUpdates":[{"Disassociate":{"RegionName":"","DisassociationMode":"WAIT_FOR_REPLICATION"}}]}`,
		`{"TableName":"gtab","DisassociationProtectionEnabled":"yes"}`,
		`{"TableName":"gtab","DisassociationProtectionEnabled":null}`,
	} {
		status, out := rawCall(t, f.s, "UpdateTable", body)
		if status != 400 || !strings.Contains(string(out["__type"]), "Exception") {
			t.Errorf("%s: %d %s", body, status, out["__type"])
		}
	}
	// Still a global table.
	if d := f.describe(t, f.home); len(d.Replicas) != 1 || d.TableStatus != types.TableStatusActive {
		t.Errorf("after odd input: %s %+v", d.TableStatus, d.Replicas)
	}
}

// TestDisassociateResumesAfterRestart: the engine stops while a
// disassociation waits for a queued change (held back by the replication
// delay); after a restart the job resumes, still waiting, and once the
// change is due it is delivered and the disassociation completes.
func TestDisassociateResumesAfterRestart(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f := newGlobalFixture(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) { o.ReplicationDelay = time.Minute }))
	f.addReplica(t)
	setProtection(t, f.repl, false)
	f.put(t, f.home, "held", "1", "v")
	if _, err := disassociate(t, f.repl, gtReplica); err != nil {
		t.Fatal(err)
	}
	f.s.Restart()
	time.Sleep(100 * time.Millisecond)
	if d := f.describe(t, f.repl); d.TableStatus != types.TableStatusUpdating || len(d.Replicas) != 1 {
		t.Fatalf("after a restart with the change still held back: %s, Replicas %+v; want UPDATING, listed", d.TableStatus, d.Replicas)
	}
	clk.add(2 * time.Minute)
	f.s.Restart() // the applier drains what is due as it starts
	waitAlone(t, f.repl, f)
	waitAlone(t, f.home, f)
	if got := f.get(t, f.repl, "held", "1"); got != "v" {
		t.Errorf("the change queued before the Disassociate: %q, want delivered", got)
	}
}
