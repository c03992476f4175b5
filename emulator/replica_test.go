package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

// Global tables at the engine level: validation, statuses on the fake
// clock, last writer wins, convergence, restarts.

func createReplica(region string) []api.ReplicationGroupUpdate {
	return []api.ReplicationGroupUpdate{{Create: &api.ReplicationGroupMemberAction{RegionName: sp(region)}}}
}

// globalEngine creates on-demand table "gtab" in nsA with n items and a
// replica in nsB, seeded.
func globalEngine(t *testing.T, n int, mod ...func(*Options)) *testEngine {
	t.Helper()
	te := newTestEngine(t, append([]func(*Options){func(o *Options) { o.Throttle.Off = true }}, mod...)...)
	te.mustCreate(nsA, simpleTable("gtab"))
	for i := range n {
		te.put(t, nsA, "k"+strconv.Itoa(i), "seed")
	}
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
		t.Fatal(err)
	}
	te.settle(t)
	return te
}

func (te *testEngine) settle(t *testing.T) {
	t.Helper()
	if err := WaitReplication(te.Engine); err != nil {
		t.Fatal(err)
	}
}

func (te *testEngine) put(t *testing.T, ns api.Namespace, pk, v string) {
	t.Helper()
	if _, err := te.PutItem(context.Background(), ns, &api.PutItemInput{TableName: sp("gtab"), Item: av.Item{"pk": avS(pk), "v": avS(v)}}); err != nil {
		t.Fatal(err)
	}
}

func (te *testEngine) del(t *testing.T, ns api.Namespace, pk string) {
	t.Helper()
	if _, err := te.DeleteItem(context.Background(), ns, &api.DeleteItemInput{TableName: sp("gtab"), Key: av.Item{"pk": avS(pk)}}); err != nil {
		t.Fatal(err)
	}
}

// items returns pk → v of every item of "gtab" in ns.
func (te *testEngine) items(t *testing.T, ns api.Namespace) map[string]string {
	t.Helper()
	out, err := te.Scan(context.Background(), ns, &api.ScanInput{TableName: sp("gtab"), ConsistentRead: bl(true)})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, it := range out.Items {
		m[it["pk"].S] = it["v"].S
	}
	return m
}

func TestReplicaUpdatesValidation(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreate(nsA, simpleTable("gtab"))
	prov := simpleTable("prov")
	prov.BillingMode, prov.ProvisionedThroughput = nil, pt(5, 5)
	te.mustCreate(nsA, prov)
	te.mustCreate(nsB, simpleTable("there"))
	te.mustCreate(nsA, simpleTable("there"))
	member := func(region string) *api.ReplicationGroupMemberAction {
		return &api.ReplicationGroupMemberAction{RegionName: sp(region)}
	}
	cases := []struct {
		name string
		in   api.UpdateTableInput
		code string
		msg  string
	}{
		{"region missing", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Create: &api.ReplicationGroupMemberAction{}}}},
			api.CodeValidation, "1 validation error detected: Value null at 'replicaUpdates.1.member.create.regionName' failed to satisfy constraint: Member must not be null"},
		{"bad class", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Create: &api.ReplicationGroupMemberAction{RegionName: sp("eu-west-1"), TableClassOverride: sp("X")}}}},
			api.CodeValidation, "1 validation error detected: Value 'X' at 'replicaUpdates.1.member.create.tableClassOverride' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD, STANDARD_INFREQUENT_ACCESS]"},
		{"no action", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{}}}, api.CodeValidation, globaltables.MsgNoReplicaActions},
		{"two actions", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Create: member("eu-west-1"), Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp("eu-west-1")}}}},
			api.CodeValidation, globaltables.MsgMixedReplicaActions},
		{"bad Region", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica("EU-WEST-1")},
			api.CodeValidation, "Region EU-WEST-1 is not supported. The latest version of global tables are only supported in the following regions: [" + strings.Join(globaltables.SupportedRegions, ", ") + "]."},
		{"update and delete unknown", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Update: &api.ReplicationGroupMemberAction{RegionName: sp("eu-west-1"), TableClassOverride: sp(classIA)}}, {Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp("us-west-2")}}}},
			api.CodeValidation, "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [eu-west-1, us-west-2]."},
		{"with billing", api.UpdateTableInput{TableName: sp("gtab"), BillingMode: sp("PAY_PER_REQUEST"), ReplicaUpdates: createReplica("eu-west-1")},
			api.CodeValidation, "One or more parameter values were invalid: Replica modification must be the only operation in the request"},
		{"witness without strong", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica("eu-west-1"),
			GlobalTableWitnessUpdates: []api.GlobalTableWitnessGroupUpdate{{Create: &api.DeleteReplicationGroupMemberAction{RegionName: sp("us-west-2")}}}},
			api.CodeValidation, globaltables.MsgWitnessNeedsStrong},
		{"strong, two Regions", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica("us-east-2"), MultiRegionConsistency: sp("STRONG")},
			api.CodeValidation, globaltables.MsgMRSCCount},
		{"strong, three Regions", api.UpdateTableInput{TableName: sp("gtab"), MultiRegionConsistency: sp("STRONG"),
			ReplicaUpdates: []api.ReplicationGroupUpdate{{Create: member("us-east-2")}, {Create: member("us-west-2")}}},
			api.CodeValidation, "One or more parameter values were invalid: MultiRegionConsistency STRONG (multi-Region strong consistency) is not supported by ExtendDB"},
		{"create local", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica(nsA.Region)}, api.CodeValidation, globaltables.MsgLocalRegionCreateDelete},
		{"delete local", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp(nsA.Region)}}}}, api.CodeValidation, globaltables.MsgLocalRegionCreateDelete},
		{"update local", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Update: member(nsA.Region)}}}, api.CodeValidation, globaltables.MsgLocalRegionUpdate},
		{"update unknown", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Update: member("eu-west-1")}}}, api.CodeValidation, "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [eu-west-1]."},
		{"delete unknown", api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp("eu-west-1")}}}}, api.CodeValidation, "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [eu-west-1]."},
		{"provisioned", api.UpdateTableInput{TableName: sp("prov"), ReplicaUpdates: createReplica("eu-west-1")}, api.CodeValidation, msgWriteCapacity},
		{"table exists there", api.UpdateTableInput{TableName: sp("there"), ReplicaUpdates: createReplica("eu-west-1")},
			api.CodeValidation, "Failed to create a the new replica of table with name: 'there' because one or more replicas already existed as tables."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := te.UpdateTable(context.Background(), nsA, &c.in)
			wantErr(t, err, c.code, c.msg)
		})
	}
	if len(te.describeT(nsA, "gtab").Replicas) != 0 {
		t.Fatal("a refused request changed the group")
	}

	// Once global: a second Create, an empty Update, disabling the stream.
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica("eu-west-1")}); err != nil {
		t.Fatal(err)
	}
	te.settle(t)
	_, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica("eu-west-1")})
	wantErr(t, err, api.CodeValidation, "Failed to create a the new replica of table with name: 'gtab' because one or more replicas already existed as tables.")
	_, err = te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Update: member("eu-west-1")}}})
	wantErr(t, err, api.CodeValidation, globaltables.MsgNoReplicaActions)
	for _, ns := range []api.Namespace{nsA, nsB} {
		_, err = te.UpdateTable(context.Background(), ns, &api.UpdateTableInput{TableName: sp("gtab"), StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(false)}})
		wantErr(t, err, api.CodeValidation, "One or more parameter values were invalid: "+globaltables.MsgDisableGlobalStream)
	}
	_, err = te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Update: &api.ReplicationGroupMemberAction{RegionName: sp("eu-west-1"),
		ProvisionedThroughputOverride: &api.ProvisionedThroughputOverride{ReadCapacityUnits: i64(5)}}}}})
	wantErr(t, err, api.CodeValidation, "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")

	// What the service accepts: a Create repeated in one request, and a
	// Create's read-capacity and unknown-index overrides (ignored).
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("there"), ReplicaUpdates: []api.ReplicationGroupUpdate{
		{Create: &api.ReplicationGroupMemberAction{RegionName: sp("us-west-2"), ProvisionedThroughputOverride: &api.ProvisionedThroughputOverride{ReadCapacityUnits: i64(5)},
			GlobalSecondaryIndexes: []api.ReplicaGlobalSecondaryIndex{{IndexName: sp("nope"), OnDemandThroughputOverride: &api.OnDemandThroughputOverride{MaxReadRequestUnits: i64(9)}}}}},
		{Create: member("us-west-2")}}}); err != nil {
		t.Fatal(err)
	}
	te.settle(t)
	if r := te.describeT(nsA, "there").Replicas; len(r) != 1 || r[0].ProvisionedThroughputOverride != nil || r[0].GlobalSecondaryIndexes != nil {
		t.Errorf("replicas %+v", r)
	}
}

func TestReplicaUpdateOverrides(t *testing.T) {
	te := globalEngine(t, 0)
	_, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: []api.ReplicationGroupUpdate{{Update: &api.ReplicationGroupMemberAction{
		RegionName: sp(nsB.Region), KMSMasterKeyId: sp("alias/mine"), TableClassOverride: sp(classIA),
		OnDemandThroughputOverride: &api.OnDemandThroughputOverride{MaxReadRequestUnits: i64(500)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := te.describeT(nsA, "gtab").Replicas[0]
	if r.KMSMasterKeyId != "arn:aws:kms:eu-west-1:111122223333:alias/mine" || r.ReplicaTableClassSummary.TableClass != classIA ||
		r.OnDemandThroughputOverride == nil || *r.OnDemandThroughputOverride.MaxReadRequestUnits != 500 {
		t.Errorf("replica after Update: %+v %+v", r, r.ReplicaTableClassSummary)
	}
	b := te.describeT(nsB, "gtab")
	if b.TableClassSummary == nil || b.TableClassSummary.TableClass != classIA || b.OnDemandThroughput.MaxReadRequestUnits != 500 ||
		b.SSEDescription == nil || b.SSEDescription.KMSMasterKeyArn != r.KMSMasterKeyId {
		t.Errorf("replica table after Update: class %+v, odt %+v, sse %+v", b.TableClassSummary, b.OnDemandThroughput, b.SSEDescription)
	}
	if a := te.describeT(nsA, "gtab"); a.TableClassSummary != nil || a.SSEDescription != nil {
		t.Errorf("the overrides leaked into the source table: %+v %+v", a.TableClassSummary, a.SSEDescription)
	}
}

// TestReplicaStatusesFollowTransitionDelay: with a transition delay the
// replica is CREATING (and the source UPDATING) until it has passed, and
// DELETING after a Delete until it has passed again.
func TestReplicaStatusesFollowTransitionDelay(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.TransitionDelay = 2 * time.Second })
	te.mustCreate(nsA, simpleTable("gtab"))
	te.clock.Add(2 * time.Second)
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
		t.Fatal(err)
	}
	te.settle(t)
	a, b := te.describeT(nsA, "gtab"), te.describeT(nsB, "gtab")
	if a.TableStatus != statusUpdating || a.Replicas[0].ReplicaStatus != statusCreating || b.TableStatus != statusCreating {
		t.Errorf("during the delay: source %s, replica entry %s, replica table %s", a.TableStatus, a.Replicas[0].ReplicaStatus, b.TableStatus)
	}
	// Meanwhile every change is refused, deletion protection included,
	// after the checks the service makes first.
	_, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), DeletionProtectionEnabled: bl(true)})
	wantErr(t, err, api.CodeResourceInUse, msgGroupBusy)
	_, err = te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"),
		ReplicaUpdates: []api.ReplicationGroupUpdate{{Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp("us-west-2")}}}})
	wantErr(t, err, api.CodeValidation, "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [us-west-2].")
	te.clock.Add(2 * time.Second)
	a, b = te.describeT(nsA, "gtab"), te.describeT(nsB, "gtab")
	if a.TableStatus != statusActive || a.Replicas[0].ReplicaStatus != statusActive || b.TableStatus != statusActive || b.Replicas[0].ReplicaStatus != statusActive {
		t.Errorf("after the delay: source %s, entry %s, replica %s, its entry %s", a.TableStatus, a.Replicas[0].ReplicaStatus, b.TableStatus, b.Replicas[0].ReplicaStatus)
	}
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"),
		ReplicaUpdates: []api.ReplicationGroupUpdate{{Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp(nsB.Region)}}}}); err != nil {
		t.Fatal(err)
	}
	a = te.describeT(nsA, "gtab")
	if len(a.Replicas) != 1 || a.Replicas[0].ReplicaStatus != statusDeleting || a.GlobalTableVersion == "" {
		t.Errorf("after Delete: %+v", a.Replicas)
	}
	te.clock.Add(2 * time.Second)
	a = te.describeT(nsA, "gtab")
	if len(a.Replicas) != 0 || a.GlobalTableVersion != "" || a.TableStatus != statusActive {
		t.Errorf("after the delete delay: %s %+v %q", a.TableStatus, a.Replicas, a.GlobalTableVersion)
	}
	if _, err := te.DescribeTable(context.Background(), nsB, &api.DescribeTableInput{TableName: sp("gtab")}); err == nil {
		t.Error("the deleted replica's table is still there")
	}
}

func TestReplicaDeletion(t *testing.T) {
	te := globalEngine(t, 3)
	// ReplicaUpdates Delete removes the replica's table; the stream stays
	// on, and can be turned off once the table is no longer global.
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"),
		ReplicaUpdates: []api.ReplicationGroupUpdate{{Delete: &api.DeleteReplicationGroupMemberAction{RegionName: sp(nsB.Region)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.DescribeTable(context.Background(), nsB, &api.DescribeTableInput{TableName: sp("gtab")}); err == nil {
		t.Fatal("replica table still there")
	}
	a := te.describeT(nsA, "gtab")
	if a.Replicas != nil || a.GlobalTableVersion != "" || a.StreamSpecification == nil || a.StreamSpecification.StreamViewType != "NEW_AND_OLD_IMAGES" {
		t.Errorf("source after the last replica went: %+v %q %+v", a.Replicas, a.GlobalTableVersion, a.StreamSpecification)
	}
	te.put(t, nsA, "after", "x")
	if n := countKeys(t, te.store, []byte{famOutbox}); n != 0 {
		t.Errorf("a plain table queued %d changes", n)
	}
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(false)}}); err != nil {
		t.Errorf("disabling the stream of a table no longer global: %v", err)
	}

	// DeleteTable of either member deletes that member only.
	for _, gone := range []api.Namespace{nsB, nsA} {
		te := globalEngine(t, 3)
		stay := nsA
		if gone == nsA {
			stay = nsB
		}
		if _, err := te.DeleteTable(context.Background(), gone, &api.DeleteTableInput{TableName: sp("gtab")}); err != nil {
			t.Fatal(err)
		}
		d := te.describeT(stay, "gtab")
		if d.Replicas != nil || d.GlobalTableVersion != "" || d.ItemCount != 3 {
			t.Errorf("%s after DeleteTable in %s: %+v %q %d items", stay.Region, gone.Region, d.Replicas, d.GlobalTableVersion, d.ItemCount)
		}
		te.put(t, stay, "k0", "new")
		te.settle(t)
	}
}

// TestReplicationLastWriterWins replays two conflicting writes in either
// order of arrival: the later one wins in both Regions, a later delete
// included (its tombstone stops the older put from resurrecting the item).
func TestReplicationLastWriterWins(t *testing.T) {
	for _, c := range []struct {
		name         string
		first, later func(te *testEngine)
		want         string
	}{
		{"put then put", func(te *testEngine) { te.put(t, nsA, "k0", "a") }, func(te *testEngine) { te.put(t, nsB, "k0", "b") }, "b"},
		{"put then put, other way", func(te *testEngine) { te.put(t, nsB, "k0", "b") }, func(te *testEngine) { te.put(t, nsA, "k0", "a") }, "a"},
		{"update then delete", func(te *testEngine) { te.put(t, nsA, "k0", "a") }, func(te *testEngine) { te.del(t, nsB, "k0") }, ""},
		{"delete then update", func(te *testEngine) { te.del(t, nsB, "k0") }, func(te *testEngine) { te.put(t, nsA, "k0", "a") }, "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Changes are held back an hour, so both writes happen before
			// either Region sees the other's.
			te := globalEngine(t, 1, func(o *Options) { o.ReplicationDelay = time.Hour })
			te.clock.Add(time.Hour) // the seed copies are due
			te.settle(t)
			c.first(te)
			te.clock.Add(time.Millisecond)
			c.later(te)
			te.settle(t)
			if countKeys(t, te.store, []byte{famOutbox}) != 2 {
				t.Fatal("the two changes are not both held back")
			}
			te.clock.Add(time.Hour)
			te.settle(t)
			for _, ns := range []api.Namespace{nsA, nsB} {
				if got := te.items(t, ns)["k0"]; got != c.want {
					t.Errorf("%s: k0 = %q, want %q", ns.Region, got, c.want)
				}
			}
		})
	}
}

// TestReplicationConverges: writers in both Regions on overlapping keys,
// while the applier runs; afterwards both Regions hold the same items.
func TestReplicationConverges(t *testing.T) {
	// The fake clock stands still: every write has the same wall time, so
	// the versions' tie-breaks decide.
	te := globalEngine(t, 0)
	var wg sync.WaitGroup
	for w := range 4 {
		ns := []api.Namespace{nsA, nsB}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 300 {
				pk := "k" + strconv.Itoa(r.IntN(20))
				var err error
				if r.IntN(5) == 0 {
					_, err = te.DeleteItem(context.Background(), ns, &api.DeleteItemInput{TableName: sp("gtab"), Key: av.Item{"pk": avS(pk)}})
				} else {
					_, err = te.PutItem(context.Background(), ns, &api.PutItemInput{TableName: sp("gtab"), Item: av.Item{"pk": avS(pk), "v": avS(fmt.Sprintf("%d-%d", w, i))}})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	te.settle(t)
	a, b := te.items(t, nsA), te.items(t, nsB)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("Regions diverged:\n%s %v\n%s %v", nsA.Region, a, nsB.Region, b)
	}
	if n := countKeys(t, te.store, []byte{famOutbox}); n != 0 {
		t.Errorf("%d changes left queued", n)
	}
	if da, db := te.describeT(nsA, "gtab"), te.describeT(nsB, "gtab"); da.ItemCount != int64(len(a)) || db.ItemCount != int64(len(b)) {
		t.Errorf("ItemCount %d / %d, items %d / %d", da.ItemCount, db.ItemCount, len(a), len(b))
	}
}

// TestReplicationSurvivesRestart closes the engine with changes queued
// (held back by the delay) and reopens it on the same store: the changes
// are applied.
func TestReplicationSurvivesRestart(t *testing.T) {
	te := globalEngine(t, 0, func(o *Options) { o.ReplicationDelay = time.Hour })
	te.put(t, nsA, "a", "1")
	te.put(t, nsB, "b", "2")
	te.settle(t)
	if len(te.items(t, nsB)) != 1 || len(te.items(t, nsA)) != 1 {
		t.Fatal("applied before the delay")
	}
	te.opts.ReplicationDelay = 0
	te.restart()
	te.settle(t)
	for _, ns := range []api.Namespace{nsA, nsB} {
		if got := te.items(t, ns); got["a"] != "1" || got["b"] != "2" {
			t.Errorf("%s after restart: %v", ns.Region, got)
		}
	}
}

// TestReplicaSeedingResumes stops the engine in the middle of seeding a
// replica: the next start finishes the copy and the replica turns ACTIVE.
func TestReplicaSeedingResumes(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true })
	te.mustCreate(nsA, simpleTable("gtab"))
	n := backfillChunk*2 + 10
	for i := range n {
		te.put(t, nsA, "k"+strconv.Itoa(i), "v")
	}
	reached := make(chan struct{})
	var once sync.Once
	te.repl.AfterSeedChunk = func(ctx context.Context) {
		once.Do(func() { close(reached) })
		<-ctx.Done() // hold the job until Close
	}
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
		t.Fatal(err)
	}
	<-reached
	if s := te.describeT(nsA, "gtab").Replicas[0].ReplicaStatus; s != statusCreating {
		t.Fatalf("replica %s in the middle of seeding", s)
	}
	te.restart()
	te.settle(t)
	a, b := te.describeT(nsA, "gtab"), te.describeT(nsB, "gtab")
	if a.Replicas[0].ReplicaStatus != statusActive || b.TableStatus != statusActive || b.ItemCount != int64(n) {
		t.Errorf("after restart: entry %s, replica %s with %d items, want ACTIVE with %d", a.Replicas[0].ReplicaStatus, b.TableStatus, b.ItemCount, n)
	}
}

// TestReplicatedTTL: the TTL setting is shared by the members; an expired
// item is deleted by the Region that wrote it, and the delete replicates,
// its record in the other Region without the TTL service identity.
func TestReplicatedTTL(t *testing.T) {
	te := globalEngine(t, 0, func(o *Options) { o.TTLInterval = -1 })
	if _, err := te.UpdateTimeToLive(context.Background(), nsA, &api.UpdateTimeToLiveInput{TableName: sp("gtab"),
		TimeToLiveSpecification: &api.TimeToLiveSpecification{Enabled: bl(true), AttributeName: sp("exp")}}); err != nil {
		t.Fatal(err)
	}
	if d, err := te.DescribeTimeToLive(context.Background(), nsB, &api.DescribeTimeToLiveInput{TableName: sp("gtab")}); err != nil || d.TimeToLiveDescription.TimeToLiveStatus != "ENABLED" {
		t.Fatalf("replica TTL: %+v, %v", d, err)
	}
	past := strconv.FormatInt(te.clock.Now().Add(-time.Hour).Unix(), 10)
	for _, ns := range []api.Namespace{nsA, nsB} {
		if _, err := te.PutItem(context.Background(), ns, &api.PutItemInput{TableName: sp("gtab"), Item: av.Item{"pk": avS("from-" + ns.Region), "exp": avN(past)}}); err != nil {
			t.Fatal(err)
		}
	}
	te.settle(t)
	n, err := te.ExpireTTL(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("ExpireTTL deleted %d (%v), want 2: each item once, in the Region that wrote it", n, err)
	}
	te.settle(t)
	for _, ns := range []api.Namespace{nsA, nsB} {
		if got := te.items(t, ns); len(got) != 0 {
			t.Errorf("%s keeps %v", ns.Region, got)
		}
		// Each stream has two REMOVE records: the Region's own TTL delete,
		// by the service, and the replicated one, by nobody.
		tm, err := te.table(ns, "gtab")
		if err != nil {
			t.Fatal(err)
		}
		p := streamKey(tm.ID, 'r')
		keys, vals, err := nextEntries(te.store, p, kv.PrefixEnd(p), 100)
		if err != nil {
			t.Fatal(err)
		}
		var own, replicated int
		for i := range keys {
			var rec api.StreamRecord
			if err := json.Unmarshal(vals[i], &rec); err != nil {
				t.Fatal(err)
			}
			if rec.EventName != "REMOVE" {
				continue
			}
			if rec.UserIdentity != nil {
				own++
			} else {
				replicated++
			}
		}
		if own != 1 || replicated != 1 {
			t.Errorf("%s stream: %d REMOVE records by the TTL service, %d without identity; want 1 and 1", ns.Region, own, replicated)
		}
	}
}

// TestGlobalTableGSIChangesReachEveryMember: a GSI created in one Region
// is created (and backfilled) in the others, a GSI deleted in one is
// deleted everywhere; switching to PROVISIONED is refused.
func TestGlobalTableGSIChangesReachEveryMember(t *testing.T) {
	te := globalEngine(t, 0)
	for i := range 5 {
		if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("gtab"), Item: av.Item{"pk": avS(strconv.Itoa(i)), "g": avS("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	te.settle(t)
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), AttributeDefinitions: attrs("g", "S"),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiCreate("byG", keys("g", "HASH"), nil)}}); err != nil {
		t.Fatal(err)
	}
	WaitBackfills(te.Engine)
	for _, ns := range []api.Namespace{nsA, nsB} {
		d := te.describeT(ns, "gtab")
		if len(d.GlobalSecondaryIndexes) != 1 || d.GlobalSecondaryIndexes[0].IndexStatus != statusActive || d.GlobalSecondaryIndexes[0].ItemCount != 5 {
			t.Errorf("%s: GSIs %+v, want byG ACTIVE with 5 items", ns.Region, d.GlobalSecondaryIndexes)
		}
	}
	if _, err := te.UpdateTable(context.Background(), nsB, &api.UpdateTableInput{TableName: sp("gtab"),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{{Delete: &api.DeleteGlobalSecondaryIndexAction{IndexName: sp("byG")}}}}); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []api.Namespace{nsA, nsB} {
		if d := te.describeT(ns, "gtab"); len(d.GlobalSecondaryIndexes) != 0 {
			t.Errorf("%s: GSIs %+v after the delete", ns.Region, d.GlobalSecondaryIndexes)
		}
	}
	_, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("gtab"), BillingMode: sp(billingProvisioned), ProvisionedThroughput: pt(5, 5)})
	wantErr(t, err, api.CodeValidation, msgWriteCapacity)
}

// TestApplierHonoursDelay runs the applier on the wall clock: a change
// waits in the outbox for the delay, then the applier (not the test)
// applies it.
func TestApplierHonoursDelay(t *testing.T) {
	te := globalEngine(t, 0, func(o *Options) { o.Clock = SystemClock; o.ReplicationDelay = 2 * time.Second })
	te.put(t, nsA, "late", "1")
	if n := countKeys(t, te.store, []byte{famOutbox}); n != 1 {
		t.Fatalf("%d changes queued right after the write, want 1 held back", n)
	}
	for deadline := time.Now().Add(30 * time.Second); te.items(t, nsB)["late"] != "1"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the applier never applied the delayed change")
		}
	}
}

// TestReplicatedWriteConsumesCapacity: the destination Region is charged
// for an applied replicated write, the seeding copies are not.
func TestReplicatedWriteConsumesCapacity(t *testing.T) {
	rec := &recordingObserver{}
	te := globalEngine(t, 2, func(o *Options) { o.Observer = Observers(nil, rec) })
	te.put(t, nsA, "x", "1")
	te.settle(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var inB []Consumption
	for _, c := range rec.consumed {
		if c.Namespace == nsB {
			inB = append(inB, c)
		}
	}
	if len(inB) != 1 || inB[0].Read || inB[0].Units != 1 {
		t.Errorf("consumption in %s: %+v, want one write unit", nsB.Region, inB)
	}
}

// TestOutboxSequenceSurvivesClockGoingBack: after a restart new outbox
// keys start above every queued one, whatever the wall clock says, so a
// new change never overwrites a queued one.
func TestOutboxSequenceSurvivesClockGoingBack(t *testing.T) {
	te := globalEngine(t, 0, func(o *Options) { o.ReplicationDelay = time.Hour })
	b := te.store.NewBatch()
	var dst keyspace.TableID
	// Held back (queued now, due in an hour), so the applier, which may
	// still be finishing a pass, keeps it rather than dropping it.
	held := fmt.Sprintf(`{"at":%q}`, te.clock.Now().Format(time.RFC3339Nano))
	if err := b.Set(outboxKey(dst, 1<<62), []byte(held)); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	te.restart()
	if got := te.repl.seq.Load(); got < 1<<62 {
		t.Errorf("outbox sequence restarts at %d, below a queued entry's %d", got, uint64(1<<62))
	}
}

// TestQueuedChangesOutliveTheirSource: changes a member queued before
// DeleteTable removed it still reach the remaining member.
func TestQueuedChangesOutliveTheirSource(t *testing.T) {
	te := globalEngine(t, 0, func(o *Options) { o.ReplicationDelay = time.Hour })
	te.put(t, nsA, "last", "words")
	if _, err := te.DeleteTable(context.Background(), nsA, &api.DeleteTableInput{TableName: sp("gtab")}); err != nil {
		t.Fatal(err)
	}
	te.clock.Add(2 * time.Hour)
	te.settle(t)
	if got := te.items(t, nsB)["last"]; got != "words" {
		t.Errorf("the remaining replica has %q, want the write queued before its source was deleted", got)
	}
}

// TestGlobalTableWriteCapIsShared: MaxWriteRequestUnits set in one Region
// applies to every member; MaxReadRequestUnits stays the Region's own.
func TestGlobalTableWriteCapIsShared(t *testing.T) {
	te := globalEngine(t, 0)
	if _, err := te.UpdateTable(context.Background(), nsB, &api.UpdateTableInput{TableName: sp("gtab"),
		OnDemandThroughput: &api.OnDemandThroughput{MaxWriteRequestUnits: i64(70), MaxReadRequestUnits: i64(90)}}); err != nil {
		t.Fatal(err)
	}
	a, b := te.describeT(nsA, "gtab").OnDemandThroughput, te.describeT(nsB, "gtab").OnDemandThroughput
	if a == nil || a.MaxWriteRequestUnits != 70 || a.MaxReadRequestUnits == 90 || b.MaxWriteRequestUnits != 70 || b.MaxReadRequestUnits != 90 {
		t.Errorf("caps: %s %+v, %s %+v", nsA.Region, a, nsB.Region, b)
	}
}
