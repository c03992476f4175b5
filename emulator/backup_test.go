package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

// backupTable creates table "bkt" (hash key pk, a GSI on g) holding n items.
func backupTable(t *testing.T, n int) *testEngine {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true })
	in := simpleTable("bkt")
	in.AttributeDefinitions = attrs("pk", "S", "g", "S")
	in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{{IndexName: sp("gix"), KeySchema: keys("g", "HASH"),
		Projection: &api.Projection{ProjectionType: sp("ALL")}}}
	te.mustCreate(nsA, in)
	for i := range n {
		if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("bkt"),
			Item: av.Item{"pk": avS(strconv.Itoa(i)), "g": avS("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	return te
}

// pauseJob makes te's job of kind (backup or restore) wait once it has done
// at rows (0: before a backup copies anything; backups.Chunk: after the first
// chunk): reached is closed when it gets there, free lets it go on.
func pauseJob(t *testing.T, te *testEngine, kind string, at int) (reached chan struct{}, free func()) {
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free = func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	te.bk.AfterChunk = func(job string, rows int) {
		if job == kind && rows == at {
			close(reached)
			<-release
		}
	}
	return reached, free
}

func (te *testEngine) backupStatus(arn string) (string, error) {
	out, err := te.DescribeBackup(context.Background(), nsA, &api.BackupArnInput{BackupArn: &arn})
	if err != nil {
		return "", err
	}
	return out.BackupDescription.BackupDetails.BackupStatus, nil
}

// TestBackupInterruptedByRestartFails: a restart in the middle of a backup
// leaves no half-made backup: the next start marks it DELETED, drops its
// rows, and ListBackups does not show it.
func TestBackupInterruptedByRestartFails(t *testing.T) {
	te := backupTable(t, 3*backups.Chunk)
	reached, free := pauseJob(t, te, "backup", backups.Chunk)
	out, err := te.CreateBackup(context.Background(), nsA, &api.CreateBackupInput{TableName: sp("bkt"), BackupName: sp("bak1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BackupDetails.BackupArn
	<-reached
	if s, _ := te.backupStatus(arn); s != "CREATING" {
		t.Fatalf("status mid-copy = %q, want CREATING", s)
	}
	// The process stops: the job is cancelled part-way.
	te.bk.Tasks.Cancel()
	free()
	te.restart()
	if s, err := te.backupStatus(arn); err != nil || s != "DELETED" {
		t.Fatalf("status after restart = %q, %v; want DELETED", s, err)
	}
	l, err := te.ListBackups(context.Background(), nsA, &api.ListBackupsInput{BackupType: sp("ALL")})
	if err != nil || len(l.BackupSummaries) != 0 {
		t.Fatalf("ListBackups after restart = %+v, %v; want none", l, err)
	}
	bns, _, id, _ := backups.ParseARN(arn)
	m, _ := backups.Get(te.store, bns, id)
	keys, _, err := nextEntries(te.store, backups.DataPrefix(m.DataID), kv.PrefixEnd(backups.DataPrefix(m.DataID)), 1)
	if err != nil || len(keys) != 0 {
		t.Fatalf("rows left of a failed backup: %d, %v", len(keys), err)
	}
	if _, err := te.RestoreTableFromBackup(context.Background(), nsA, &api.RestoreTableFromBackupInput{TargetTableName: sp("rrr"), BackupArn: &arn}); !errors.Is(err, &api.Error{Code: api.CodeBackupNotFound}) {
		t.Fatalf("restore of a failed backup: %v", err)
	}
	// A new backup of the table works after the restart.
	if _, err := te.CreateBackup(context.Background(), nsA, &api.CreateBackupInput{TableName: sp("bkt"), BackupName: sp("bak2")}); err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
}

// TestRestoreResumesAfterRestart: a restart in the middle of a restore
// resumes it from its cursor; the table stays CREATING until every item is
// in, and the counts are exact (no row counted twice).
func TestRestoreResumesAfterRestart(t *testing.T) {
	n := 3*backups.Chunk + 10
	te := backupTable(t, n)
	out, err := te.CreateBackup(context.Background(), nsA, &api.CreateBackupInput{TableName: sp("bkt"), BackupName: sp("bak1")})
	if err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	arn := out.BackupDetails.BackupArn
	reached, free := pauseJob(t, te, "restore", backups.Chunk)
	r, err := te.RestoreTableFromBackup(context.Background(), nsA, &api.RestoreTableFromBackupInput{TargetTableName: sp("rtb"), BackupArn: &arn})
	if err != nil {
		t.Fatal(err)
	}
	if r.TableDescription.TableStatus != statusCreating || !r.TableDescription.RestoreSummary.RestoreInProgress {
		t.Fatalf("restore answer: %+v", r.TableDescription)
	}
	<-reached
	if _, err := te.DeleteBackup(context.Background(), nsA, &api.BackupArnInput{BackupArn: &arn}); !errors.Is(err, &api.Error{Code: api.CodeBackupInUse}) {
		t.Fatalf("DeleteBackup during a restore: %v, want BackupInUseException", err)
	}
	te.bk.Tasks.Cancel()
	free()
	te.restart()
	te.bk.Tasks.Wait()
	d := te.describeT(nsA, "rtb")
	if d.TableStatus != statusActive || d.RestoreSummary.RestoreInProgress || d.ItemCount != int64(n) {
		t.Fatalf("restored table: %s, in progress %v, %d items; want ACTIVE, false, %d", d.TableStatus, d.RestoreSummary.RestoreInProgress, d.ItemCount, n)
	}
	if g := d.GlobalSecondaryIndexes[0]; g.ItemCount != int64(n) || g.IndexStatus != statusActive {
		t.Fatalf("restored GSI: %s with %d entries", g.IndexStatus, g.ItemCount)
	}
	q, err := te.Query(context.Background(), nsA, &api.QueryInput{TableName: sp("rtb"), IndexName: sp("gix"),
		KeyConditionExpression: sp("g = :g"), ExpressionAttributeValues: map[string]av.Value{":g": avS("x")}, Select: sp("COUNT")})
	if err != nil || q.Count != int64(n) {
		t.Fatalf("Query on the restored GSI: %v, %v", q, err)
	}
	if _, err := te.Engine.opts.Store.Get(restoreCursorKey(te.tables[nsA]["rtb"].ID)); err == nil {
		t.Fatal("the restore cursor outlives the job")
	}
}

// TestBackupReadsItsSnapshot: writes, deletes, DeleteTable and a re-created
// table of the same name that all land while the copy is half done do not
// reach the backup: it restores exactly the items of the request time.
func TestBackupReadsItsSnapshot(t *testing.T) {
	n := 2*backups.Chunk + 5
	te := backupTable(t, n)
	ctx := context.Background()
	reached, free := pauseJob(t, te, "backup", 0)
	out, err := te.CreateBackup(ctx, nsA, &api.CreateBackupInput{TableName: sp("bkt"), BackupName: sp("snap")})
	if err != nil {
		t.Fatal(err)
	}
	<-reached
	for i := range n {
		k := strconv.Itoa(i)
		if i%2 == 0 {
			_, err = te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bkt"), Item: av.Item{"pk": avS(k), "g": avS("changed")}})
		} else {
			_, err = te.DeleteItem(ctx, nsA, &api.DeleteItemInput{TableName: sp("bkt"), Key: av.Item{"pk": avS(k)}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("bkt")}); err != nil {
		t.Fatal(err)
	}
	te.mustCreate(nsA, simpleTable("bkt"))
	free()
	te.bk.Tasks.Wait()
	arn := out.BackupDetails.BackupArn
	if _, err := te.RestoreTableFromBackup(ctx, nsA, &api.RestoreTableFromBackupInput{TargetTableName: sp("rtb"), BackupArn: &arn}); err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	got := 0
	var start av.Item
	for {
		s, err := te.Scan(ctx, nsA, &api.ScanInput{TableName: sp("rtb"), ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range s.Items {
			if it["g"].S != "x" {
				t.Fatalf("restored item %v carries a later write", it)
			}
		}
		got += len(s.Items)
		if start = s.LastEvaluatedKey; start == nil {
			break
		}
	}
	if got != n {
		t.Fatalf("restored %d items, want %d", got, n)
	}
}

// TestBackupAndRestoreLogProgress: a backup and a restore log at info that
// they started (with the item count as total), finished, and how many items
// they copied.
func TestBackupAndRestoreLogProgress(t *testing.T) {
	n := 2*backups.Chunk + 3
	var logs syncBuffer
	log := zerolog.New(&logs).Level(zerolog.InfoLevel)
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true; o.Logger = &log })
	te.mustCreate(nsA, simpleTable("bkt"))
	for i := range n {
		if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("bkt"), Item: av.Item{"pk": avS(strconv.Itoa(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := te.CreateBackup(context.Background(), nsA, &api.CreateBackupInput{TableName: sp("bkt"), BackupName: sp("logged")})
	if err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	arn := out.BackupDetails.BackupArn
	if _, err := te.RestoreTableFromBackup(context.Background(), nsA, &api.RestoreTableFromBackupInput{TargetTableName: sp("rtb"), BackupArn: &arn}); err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	type line struct {
		Message, Table, Backup, Restore string
		Items, Total                    int64
	}
	var got []line
	for _, s := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		if strings.HasPrefix(l.Message, "backup ") || strings.HasPrefix(l.Message, "restore ") {
			got = append(got, l)
		}
	}
	want := []line{
		{"backup started", "bkt", arn, "", 0, int64(n)},
		{"backup finished", "bkt", arn, "", int64(n), int64(n)},
		{"restore started", "rtb", "", arn, 0, int64(n)},
		{"restore finished", "rtb", "", arn, int64(n), int64(n)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("logs:\n%+v\nwant\n%+v", got, want)
	}
}

// TestRestoreFailsWithoutItsBackup: a restore resumed after a restart whose
// backup is gone (a damaged store) fails cleanly: the half-made table is
// dropped, never left CREATING or made ACTIVE.
func TestRestoreFailsWithoutItsBackup(t *testing.T) {
	te := backupTable(t, 2*backups.Chunk+1)
	ctx := context.Background()
	out, err := te.CreateBackup(ctx, nsA, &api.CreateBackupInput{TableName: sp("bkt"), BackupName: sp("bak1")})
	if err != nil {
		t.Fatal(err)
	}
	te.bk.Tasks.Wait()
	arn := out.BackupDetails.BackupArn
	reached, free := pauseJob(t, te, "restore", backups.Chunk)
	if _, err := te.RestoreTableFromBackup(ctx, nsA, &api.RestoreTableFromBackupInput{TargetTableName: sp("rtb"), BackupArn: &arn}); err != nil {
		t.Fatal(err)
	}
	<-reached
	te.bk.Tasks.Cancel()
	free()
	te.bk.Tasks.Wait()
	rid := te.tables[nsA]["rtb"].ID
	bns, _, id, _ := backups.ParseARN(arn)
	b := te.store.NewBatch()
	if err := b.Delete(backups.Key(bns, id)); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	te.restart()
	te.bk.Tasks.Wait()
	if _, err := te.DescribeTable(ctx, nsA, &api.DescribeTableInput{TableName: sp("rtb")}); !errors.Is(err, &api.Error{Code: api.CodeResourceNotFound}) {
		t.Fatalf("DescribeTable of the failed restore: %v, want ResourceNotFoundException", err)
	}
	if rows, _, err := nextEntries(te.store, keyspace.ItemPrefix(rid), kv.PrefixEnd(keyspace.ItemPrefix(rid)), 1); err != nil || len(rows) != 0 {
		t.Fatalf("the failed restore left %d rows (%v)", len(rows), err)
	}
	keys, _, err := nextEntries(te.store, keyspace.ItemPrefix(te.tables[nsA]["bkt"].ID), nil, 1)
	if err != nil || len(keys) != 1 {
		t.Fatalf("the source table lost its items: %v", err)
	}
}
