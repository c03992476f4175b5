package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

// pitrTable is backupTable with PITR on and no lag: n items "0".."n-1"
// (g = "x", v = "0") written after PITR was turned on.
func pitrTable(t testing.TB, n int) *testEngine {
	te := newTestEngine(t, func(o *Options) {
		o.Throttle.Off = true
		o.PITRLag = -1
		o.PITRTrimInterval = -1
		o.TTLInterval = -1
	})
	in := simpleTable("bkt")
	in.AttributeDefinitions = attrs("pk", "S", "g", "S")
	in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{{IndexName: sp("gix"), KeySchema: keys("g", "HASH"),
		Projection: &api.Projection{ProjectionType: sp("ALL")}}}
	te.mustCreate(nsA, in)
	te.setPITR(true)
	te.clock.Add(time.Second)
	for i := range n {
		te.pput(strconv.Itoa(i), "0")
	}
	return te
}

func (te *testEngine) setPITR(on bool) {
	te.t.Helper()
	if _, err := te.UpdateContinuousBackups(context.Background(), nsA, &api.UpdateContinuousBackupsInput{TableName: sp("bkt"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &on}}); err != nil {
		te.t.Fatal(err)
	}
}

func (te *testEngine) pput(pk, v string) {
	te.t.Helper()
	if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("bkt"),
		Item: av.Item{"pk": avS(pk), "g": avS("x"), "v": avS(v)}}); err != nil {
		te.t.Fatal(err)
	}
}

func (te *testEngine) pdel(pk string) {
	te.t.Helper()
	if _, err := te.DeleteItem(context.Background(), nsA, &api.DeleteItemInput{TableName: sp("bkt"), Key: av.Item{"pk": avS(pk)}}); err != nil {
		te.t.Fatal(err)
	}
}

// contents returns table's items as pk → v.
func (te *testEngine) contents(table string) map[string]string {
	te.t.Helper()
	out := map[string]string{}
	var start av.Item
	for {
		s, err := te.Scan(context.Background(), nsA, &api.ScanInput{TableName: &table, ExclusiveStartKey: start})
		if err != nil {
			te.t.Fatal(err)
		}
		for _, it := range s.Items {
			out[it["pk"].S] = it["v"].S
		}
		if s.LastEvaluatedKey == nil {
			return out
		}
		start = s.LastEvaluatedKey
	}
}

// mutate deletes items 0–99, rewrites 100–199 with v and adds 100 new
// items from n.
func (te *testEngine) mutate(n int, v string) {
	for i := range 100 {
		te.pdel(strconv.Itoa(i))
		te.pput(strconv.Itoa(100+i), v)
		te.pput(strconv.Itoa(n+i), v)
	}
}

// TestPITRRestoreResumesAfterRestart: a restart in the middle of a
// point-in-time restore resumes it; the resumed job reads the live store
// (its snapshot is gone) and still restores exactly the table as of the
// restore time, though the source changed before and after the restart.
// The table is CREATING until the last item is in.
func TestPITRRestoreResumesAfterRestart(t *testing.T) {
	n := 3*backups.Chunk + 10
	te := pitrTable(t, n)
	ctx := context.Background()
	te.clock.Add(time.Second)
	want := te.contents("bkt")
	at := te.clock.Now()
	te.clock.Add(time.Second)
	te.mutate(n, "1")
	reached, free := pauseJob(t, te, "restore", backups.Chunk)
	if _, err := te.RestoreTableToPointInTime(ctx, nsA, &api.RestoreTableToPointInTimeInput{SourceTableName: sp("bkt"),
		TargetTableName: sp("rtb"), RestoreDateTime: refOf(epochSeconds(at))}); err != nil {
		t.Fatal(err)
	}
	<-reached
	if d := te.describeT(nsA, "rtb"); d.TableStatus != statusCreating || !d.RestoreSummary.RestoreInProgress {
		t.Fatalf("mid-restore: %s, in progress %v", d.TableStatus, d.RestoreSummary.RestoreInProgress)
	}
	// Changes after the request, before and after the restart, are not in
	// the restore (they come after its time).
	te.clock.Add(time.Second)
	te.mutate(n+100, "2")
	te.bk.Tasks.Cancel()
	free()
	te.bk.Tasks.Wait()
	te.restart()
	te.clock.Add(time.Second)
	te.mutate(n+200, "3")
	te.bk.Tasks.Wait()
	d := te.describeT(nsA, "rtb")
	if d.TableStatus != statusActive || d.RestoreSummary.RestoreInProgress || d.ItemCount != int64(n) {
		t.Fatalf("restored table: %s, in progress %v, %d items; want ACTIVE, false, %d", d.TableStatus, d.RestoreSummary.RestoreInProgress, d.ItemCount, n)
	}
	got := te.contents("rtb")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("restored %d items, want %d; differ", len(got), len(want))
	}
	if g := d.GlobalSecondaryIndexes[0]; g.ItemCount != int64(n) {
		t.Fatalf("restored GSI has %d entries", g.ItemCount)
	}
}

// TestPITRRestoreFailsWithoutHistory: a restore resumed after a restart
// whose source turned PITR off meanwhile (the history is dropped) fails
// cleanly: the half-made table is dropped, never made ACTIVE.
func TestPITRRestoreFailsWithoutHistory(t *testing.T) {
	n := 2*backups.Chunk + 1
	te := pitrTable(t, n)
	ctx := context.Background()
	te.clock.Add(time.Second)
	reached, free := pauseJob(t, te, "restore", backups.Chunk)
	if _, err := te.RestoreTableToPointInTime(ctx, nsA, &api.RestoreTableToPointInTimeInput{SourceTableName: sp("bkt"),
		TargetTableName: sp("rtb"), UseLatestRestorableTime: refOf(true)}); err != nil {
		t.Fatal(err)
	}
	<-reached
	te.setPITR(false)
	te.bk.Tasks.Cancel()
	free()
	te.bk.Tasks.Wait()
	rid := te.tables[nsA]["rtb"].ID
	te.restart()
	te.bk.Tasks.Wait()
	if _, err := te.DescribeTable(ctx, nsA, &api.DescribeTableInput{TableName: sp("rtb")}); !errors.Is(err, &api.Error{Code: api.CodeResourceNotFound}) {
		t.Fatalf("DescribeTable of the failed restore: %v, want ResourceNotFoundException", err)
	}
	if rows, _, err := nextEntries(te.store, keyspace.ItemPrefix(rid), kv.PrefixEnd(keyspace.ItemPrefix(rid)), 1); err != nil || len(rows) != 0 {
		t.Fatalf("the failed restore left %d rows (%v)", len(rows), err)
	}
}

// TestPITRHistoryTrimmedAndDropped: the trim drops the records no
// restorable time needs (and only those: a restore at the earliest time
// is still exact); turning PITR off and DeleteTable drop the whole log; a
// table without PITR writes none.
func TestPITRHistoryTrimmedAndDropped(t *testing.T) {
	te := pitrTable(t, 10)
	ctx := context.Background()
	id := te.tables[nsA]["bkt"].ID
	want := te.contents("bkt")
	count := func() int {
		k, _, err := nextEntries(te.store, pitrPrefix(id), kv.PrefixEnd(pitrPrefix(id)), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return len(k)
	}
	if c := count(); c != 10 {
		t.Fatalf("%d undo records after 10 puts", c)
	}
	// A day later, with a one-day recovery period, the first puts are
	// before the window; the rewrites of items 0–4 are in it, and their old
	// images are what a restore at the earliest time needs.
	te.clock.Add(12 * time.Hour)
	for i := range 5 {
		te.pput(strconv.Itoa(i), "1")
	}
	te.clock.Add(12*time.Hour + 2*pitrTrimMargin)
	days := int64(1)
	on := true
	if _, err := te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("bkt"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &on, RecoveryPeriodInDays: &days}}); err != nil {
		t.Fatal(err)
	}
	te.clock.Add(time.Second)
	for i := range 5 {
		te.pput(strconv.Itoa(i), "2")
	}
	if n, err := te.TrimPITRHistory(ctx); err != nil || n != 10 || count() != 10 {
		t.Fatalf("trim deleted %d (%v), %d left; want 10, 10", n, err, count())
	}
	earliest, _ := te.pitrWindow(te.tables[nsA]["bkt"], te.clock.Now())
	if _, err := te.RestoreTableToPointInTime(ctx, nsA, &api.RestoreTableToPointInTimeInput{SourceTableName: sp("bkt"),
		TargetTableName: sp("rtb"), RestoreDateTime: refOf(epochSeconds(earliest))}); err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	if got := te.contents("rtb"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("restore at the earliest time after a trim: %v, want %v", got, want)
	}
	te.setPITR(false)
	if c := count(); c != 0 {
		t.Fatalf("%d undo records after PITR was turned off", c)
	}
	te.pput("0", "3")
	if c := count(); c != 0 {
		t.Fatalf("a write without PITR left %d undo records", c)
	}
	te.setPITR(true)
	te.pput("0", "4")
	if _, err := te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("bkt")}); err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	if c := count(); c != 0 {
		t.Fatalf("%d undo records after DeleteTable", c)
	}
}

// TestPITRHistoryCoversTTLDeletes: an item the TTL worker deletes is in a
// restore of a moment before the deletion.
func TestPITRHistoryCoversTTLDeletes(t *testing.T) {
	te := pitrTable(t, 3)
	ctx := context.Background()
	if _, err := te.UpdateTimeToLive(ctx, nsA, &api.UpdateTimeToLiveInput{TableName: sp("bkt"),
		TimeToLiveSpecification: &api.TimeToLiveSpecification{Enabled: bl(true), AttributeName: sp("exp")}}); err != nil {
		t.Fatal(err)
	}
	exp := strconv.FormatInt(te.clock.Now().Add(time.Minute).Unix(), 10)
	if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bkt"),
		Item: av.Item{"pk": avS("ttl"), "g": avS("x"), "v": avS("0"), "exp": {Type: av.TypeN, S: exp}}}); err != nil {
		t.Fatal(err)
	}
	te.clock.Add(time.Second)
	at := te.clock.Now()
	te.clock.Add(2 * time.Minute)
	if n, err := te.ExpireTTL(ctx); err != nil || n != 1 {
		t.Fatalf("ExpireTTL: %d, %v", n, err)
	}
	if _, err := te.RestoreTableToPointInTime(ctx, nsA, &api.RestoreTableToPointInTimeInput{SourceTableName: sp("bkt"),
		TargetTableName: sp("rtb"), RestoreDateTime: refOf(epochSeconds(at))}); err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	if got := te.contents("rtb"); len(got) != 4 || got["ttl"] != "0" {
		t.Fatalf("restore before the TTL deletion: %v", got)
	}
}

// TestItemsAsOf: the table-as-of-T reader yields the items of that moment
// in key order, and refuses a table without PITR and a time outside the
// window with DynamoDB's errors.
func TestItemsAsOf(t *testing.T) {
	te := pitrTable(t, 5)
	ctx := context.Background()
	te.clock.Add(time.Second)
	at := te.clock.Now()
	te.clock.Add(time.Second)
	te.pdel("1")
	te.pput("2", "9")
	te.pput("7", "9")
	var got []string
	if err := te.ItemsAsOf(ctx, nsA, "bkt", at, func(it av.Item) error {
		got = append(got, it["pk"].S+"="+it["v"].S)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || fmt.Sprint(got) == "" {
		t.Fatalf("ItemsAsOf: %v", got)
	}
	for _, g := range got {
		if g[len(g)-1] != '0' {
			t.Fatalf("ItemsAsOf: %v, want every item as first written", got)
		}
	}
	err := te.ItemsAsOf(ctx, nsA, "bkt", at.Add(-time.Hour), func(av.Item) error { return nil })
	if !errors.Is(err, &api.Error{Code: api.CodeInvalidRestoreTime}) {
		t.Fatalf("before the window: %v", err)
	}
	if err := te.ItemsAsOf(ctx, nsA, "bkt", te.clock.Now().Add(time.Second), func(av.Item) error { return nil }); !errors.Is(err, &api.Error{Code: api.CodeInvalidRestoreTime}) {
		t.Fatalf("in the future: %v", err)
	}
	earliest, latest, err := te.RestorableWindow(nsA, "bkt")
	if err != nil || !earliest.Before(at) || !latest.Equal(te.clock.Now()) {
		t.Fatalf("RestorableWindow: %v – %v, %v", earliest, latest, err)
	}
	te.setPITR(false)
	err = te.ItemsAsOf(ctx, nsA, "bkt", at, func(av.Item) error { return nil })
	if !errors.Is(err, &api.Error{Code: api.CodePointInTimeRecoveryUnavailable}) {
		t.Fatalf("without PITR: %v", err)
	}
	if _, _, err := te.RestorableWindow(nsA, "bkt"); !errors.Is(err, &api.Error{Code: api.CodePointInTimeRecoveryUnavailable}) {
		t.Fatalf("RestorableWindow without PITR: %v", err)
	}
}

// FuzzRestoreTableToPointInTime feeds arbitrary JSON requests to
// RestoreTableToPointInTime against a table with PITR on: success or a
// DynamoDB *Error, never a panic or an untyped error.
func FuzzRestoreTableToPointInTime(f *testing.F) {
	for _, seed := range []string{
		`{"SourceTableName":"bkt","TargetTableName":"r1","UseLatestRestorableTime":true}`,
		`{"SourceTableArn":"arn:aws:dynamodb:us-east-1:111122223333:table/bkt","TargetTableName":"r1","RestoreDateTime":1796214601.5}`,
		`{"SourceTableName":"bkt","TargetTableName":"r1","UseLatestRestorableTime":true,"BillingModeOverride":"PROVISIONED","ProvisionedThroughputOverride":{"ReadCapacityUnits":0}}`,
		`{"SourceTableName":"bkt","TargetTableName":"r1","UseLatestRestorableTime":true,"GlobalSecondaryIndexOverride":[{}],"LocalSecondaryIndexOverride":[]}`,
		`{"SourceTableArn":"arn:aws:dynamodb:eu-west-1:111122223333:table/bkt/index/x","TargetTableName":"r1","RestoreDateTime":-1e300}`,
		`{"SourceTableName":"bkt","TargetTableName":"r1","UseLatestRestorableTime":true,"SSESpecificationOverride":{"SSEType":"AES"},"OnDemandThroughputOverride":{"MaxReadRequestUnits":-5}}`,
	} {
		f.Add([]byte(seed))
	}
	te := pitrTable(f, 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		var in api.RestoreTableToPointInTimeInput
		if json.Unmarshal(data, &in) != nil {
			return
		}
		out, err := te.RestoreTableToPointInTime(ctx, nsA, &in)
		var de *api.Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("untyped error: %v", err)
		}
		if de != nil && (de.Code == "" || de.Message == "") {
			t.Fatalf("empty error: %+v", de)
		}
		if err == nil {
			te.bk.Tasks.Wait()
			if _, err := te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: &out.TableDescription.TableName}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestPITRTrimWorker: the worker New starts trims on its own.
func TestPITRTrimWorker(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off, o.TTLInterval, o.PITRTrimInterval = true, -1, 5*time.Millisecond })
	te.mustCreate(nsA, simpleTable("bkt"))
	te.setPITR(true)
	te.pput("a", "0")
	te.pput("a", "1")
	id := te.tables[nsA]["bkt"].ID
	te.clock.Add(36 * 24 * time.Hour)
	for range 1000 {
		k, _, err := nextEntries(te.store, pitrPrefix(id), kv.PrefixEnd(pitrPrefix(id)), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(k) == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the trim worker left records older than the recovery period")
}

// TestItemChanges: the items written between two times, each with its
// image at both ends (an incremental export's content).
func TestItemChanges(t *testing.T) {
	te := pitrTable(t, 4) // items 0–3, v=0
	ctx := context.Background()
	te.clock.Add(time.Second)
	te.pput("0", "1") // before from: not a change
	te.clock.Add(time.Second)
	from := te.clock.Now()
	te.clock.Add(time.Second)
	te.pput("1", "2") // changed
	te.pdel("2")      // deleted
	te.pput("9", "2") // created
	te.pput("8", "2") // created and deleted: no change to report
	te.pdel("8")      //
	te.clock.Add(time.Second)
	to := te.clock.Now()
	te.clock.Add(time.Second)
	te.pput("1", "3") // after to: the image at to is still v=2
	te.pput("3", "3") // after to: not a change
	got := map[string]string{}
	if err := te.ItemChanges(ctx, nsA, "bkt", from, to, func(o, n av.Item) error {
		pk, ov, nv := "", "-", "-"
		if o != nil {
			pk, ov = o["pk"].S, o["v"].S
		}
		if n != nil {
			pk, nv = n["pk"].S, n["v"].S
		}
		got[pk] = ov + ">" + nv
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"1": "0>2", "2": "0>-", "9": "->2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ItemChanges: %v, want %v", got, want)
	}
}

// TestPITREnableWaitsForWritesInFlight: turning PITR on returns only once
// every write that resolved the table before (holding its item's stripe)
// has committed, and the window starts after them.
func TestPITREnableWaitsForWritesInFlight(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off, o.TTLInterval = true, -1 })
	te.mustCreate(nsA, simpleTable("bkt"))
	// A write in flight: it holds a stripe.
	te.Engine.items.locks.Mu[7].Lock()
	done := make(chan *api.UpdateContinuousBackupsOutput)
	go func() {
		on := true
		out, err := te.UpdateContinuousBackups(context.Background(), nsA, &api.UpdateContinuousBackupsInput{TableName: sp("bkt"),
			PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &on}})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	select {
	case <-done:
		t.Fatal("UpdateContinuousBackups returned while a write was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	te.clock.Add(time.Second)
	enabledAfter := te.clock.Now()
	te.Engine.items.locks.Mu[7].Unlock()
	out := <-done
	p := out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	if *p.EarliestRestorableDateTime != epochSeconds(enabledAfter) || *p.LatestRestorableDateTime != *p.EarliestRestorableDateTime {
		t.Fatalf("window %v – %v, want both %v", *p.EarliestRestorableDateTime, *p.LatestRestorableDateTime, epochSeconds(enabledAfter))
	}
	if at := te.tables[nsA]["bkt"].PITREnabledAt; !at.Equal(enabledAfter) {
		t.Fatalf("PITREnabledAt %v, want %v", at, enabledAfter)
	}
}
