package extenddbtest_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/extenddb/extenddb/extenddbtest"
)

func putN(t *testing.T, db *dynamodb.Client, table string, n int, v string) {
	t.Helper()
	for i := range n {
		_, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "k" + strconv.Itoa(i)},
			"v":  &types.AttributeValueMemberS{Value: v},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// scanValues returns table's items as pk → v, sorted keys.
func scanValues(t *testing.T, db *dynamodb.Client, table string) map[string]string {
	t.Helper()
	out, err := db.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, it := range out.Items {
		m[it["pk"].(*types.AttributeValueMemberS).Value] = it["v"].(*types.AttributeValueMemberS).Value
	}
	return m
}

func listTables(t *testing.T, db *dynamodb.Client) []string {
	t.Helper()
	out, err := db.ListTables(t.Context(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out.TableNames)
	return out.TableNames
}

// TestSnapshotRestore: a restore brings back the tables, items, index
// entries and settings of the snapshot, and nothing written since.
func TestSnapshotRestore(t *testing.T) {
	srv := extenddbtest.Start(t)
	db := srv.DynamoDB()
	ctx := t.Context()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode: types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byV"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	putN(t, db, "Orders", 20, "before")
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	// Everything changes: items, a new table, the TTL setting.
	putN(t, db, "Orders", 30, "after")
	createTable(t, db, "Later")
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}

	if err := srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if got := listTables(t, db); len(got) != 1 || got[0] != "Orders" {
		t.Errorf("tables after restore: %v; want [Orders]", got)
	}
	items := scanValues(t, db, "Orders")
	if len(items) != 20 {
		t.Errorf("%d items after restore; want 20", len(items))
	}
	for k, v := range items {
		if v != "before" {
			t.Errorf("item %s = %q after restore; want %q", k, v, "before")
		}
	}
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String("byV"),
		KeyConditionExpression:    aws.String("v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "after"}}})
	if err != nil || len(q.Items) != 0 {
		t.Errorf("the index still holds %d entries written after the snapshot (%v)", len(q.Items), err)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Orders")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("TTL after restore: %+v (%v); want the snapshot's ENABLED", ttl, err)
	}
	// The restored table takes writes and a table the snapshot lacks can
	// be created again.
	putN(t, db, "Orders", 1, "new")
	createTable(t, db, "Later")

	// A snapshot survives its file: written, read back, restored.
	path := filepath.Join(t.TempDir(), "state.snapshot")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snap.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	other := extenddbtest.Start(t, extenddbtest.WithSnapshot(path))
	if got := scanValues(t, other.DynamoDB(), "Orders"); len(got) != 20 {
		t.Errorf("WithSnapshot: %d items; want 20", len(got))
	}
}

// TestReset drops every table of every namespace.
func TestReset(t *testing.T) {
	srv := extenddbtest.Start(t)
	db := srv.DynamoDB()
	west := dynamodb.NewFromConfig(srv.Config, func(o *dynamodb.Options) { o.Region = "eu-west-1" })
	createTable(t, db, "Aaa")
	createTable(t, west, "Bbb")
	putN(t, db, "Aaa", 5, "x")
	if err := srv.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := listTables(t, db); len(got) != 0 {
		t.Errorf("us-east-1 after Reset: %v", got)
	}
	if got := listTables(t, west); len(got) != 0 {
		t.Errorf("eu-west-1 after Reset: %v", got)
	}
	createTable(t, db, "Aaa")
	if got := scanValues(t, db, "Aaa"); len(got) != 0 {
		t.Errorf("a table created again after Reset holds %d items", len(got))
	}
}

// TestRestoreTransactionTokens: a ClientRequestToken used after the
// snapshot does not make the same transaction a no-op once the snapshot
// is restored (its earlier answer no longer describes the items).
func TestRestoreTransactionTokens(t *testing.T) {
	srv := extenddbtest.Start(t)
	db := srv.DynamoDB()
	createTable(t, db, "Ttt")
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	tx := &dynamodb.TransactWriteItemsInput{
		ClientRequestToken: aws.String("token-1"),
		TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("Ttt"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "v": &types.AttributeValueMemberS{Value: "1"}}}}},
	}
	if _, err := db.TransactWriteItems(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TransactWriteItems(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	if got := scanValues(t, db, "Ttt"); got["a"] != "1" {
		t.Errorf("the transaction repeated after the restore wrote nothing: %v", got)
	}
}

// TestRestoreStreams: the stream is the snapshot's; an iterator taken
// before the restore is expired, a new one reads the snapshot's records.
func TestRestoreStreams(t *testing.T) {
	srv := extenddbtest.Start(t)
	db := srv.DynamoDB()
	ctx := t.Context()
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Sss"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.TableDescription.LatestStreamArn
	putN(t, db, "Sss", 3, "before")
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	putN(t, db, "Sss", 5, "after")
	st := dynamodbstreams.NewFromConfig(srv.Config)
	iter := func() *string {
		d, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn,
			ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		return it.ShardIterator
	}
	old := iter()
	if err := srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	_, err = st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: old})
	var expired *streamtypes.ExpiredIteratorException
	if !errors.As(err, &expired) {
		t.Errorf("GetRecords with an iterator from before the restore: %v; want ExpiredIteratorException", err)
	}
	recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter()})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Records) != 3 {
		t.Errorf("%d stream records after the restore; want the snapshot's 3", len(recs.Records))
	}
	// New writes continue the restored stream.
	putN(t, db, "Sss", 1, "new")
	recs, err = st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter()})
	if err != nil || len(recs.Records) != 4 {
		t.Errorf("after a write: %d records (%v); want 4", len(recs.Records), err)
	}
}

// TestRestoreAtomic: while restores swap two states back and forth,
// every Scan sees one of them whole: never an empty table nor a mix. The
// two states hold different incarnations of the table (deleted and
// created again), so a request that saw the catalog of one and the items
// of the other would find none.
func TestRestoreAtomic(t *testing.T) {
	srv := extenddbtest.Start(t)
	db := srv.DynamoDB()
	const n = 50
	createTable(t, db, "Ttt")
	putN(t, db, "Ttt", n, "one")
	one, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("Ttt")}); err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "Ttt")
	putN(t, db, "Ttt", n, "two")
	two, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var scans atomic.Int64
	errs := make(chan string, 100)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				out, err := db.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("Ttt"), ConsistentRead: aws.Bool(true)})
				if err != nil {
					errs <- "Scan: " + err.Error()
					return
				}
				scans.Add(1)
				seen := map[string]int{}
				for _, it := range out.Items {
					seen[it["v"].(*types.AttributeValueMemberS).Value]++
				}
				if len(out.Items) != n || len(seen) != 1 {
					errs <- "a Scan saw " + strconv.Itoa(len(out.Items)) + " items: " + strconv.Quote(func() string {
						s := ""
						for v, c := range seen {
							s += v + "=" + strconv.Itoa(c) + " "
						}
						return s
					}())
					return
				}
			}
		}()
	}
	for i := range 60 {
		snap := one
		if i%2 == 1 {
			snap = two
		}
		if err := srv.Restore(snap); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if scans.Load() == 0 {
		t.Error("no Scan ran during the restores")
	}
}

// TestRestoreBackupsAndPITR: backups and the point-in-time recovery
// setting are the snapshot's, and the jobs run on the restored state: a
// backup the snapshot holds restores into a new table.
func TestRestoreBackupsAndPITR(t *testing.T) {
	srv := extenddbtest.Start(t)
	db := srv.DynamoDB()
	ctx := t.Context()
	createTable(t, db, "Src")
	putN(t, db, "Src", 4, "x")
	pitr := func(on bool) {
		t.Helper()
		if _, err := db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Src"),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(on)}}); err != nil {
			t.Fatal(err)
		}
	}
	backup := func(name string) string {
		t.Helper()
		out, err := db.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Src"), BackupName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		// The copy runs in the background: a snapshot taken before it
		// ends holds an unfinished backup, which the restore fails as a
		// restart would.
		arn := out.BackupDetails.BackupArn
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			d, err := db.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: arn})
			if err != nil {
				t.Fatal(err)
			}
			if d.BackupDescription.BackupDetails.BackupStatus == types.BackupStatusAvailable {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("backup %s still %s", name, d.BackupDescription.BackupDetails.BackupStatus)
			}
		}
		return aws.ToString(arn)
	}
	pitr(true)
	first := backup("first")
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	backup("second")
	pitr(false)

	if err := srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListBackups(ctx, &dynamodb.ListBackupsInput{TableName: aws.String("Src")})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.BackupSummaries) != 1 || aws.ToString(list.BackupSummaries[0].BackupName) != "first" {
		var names []string
		for _, b := range list.BackupSummaries {
			names = append(names, aws.ToString(b.BackupName))
		}
		t.Errorf("backups after restore: %v; want [first]", names)
	}
	cb, err := db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Src")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
		t.Errorf("PITR after restore: %+v (%v); want the snapshot's ENABLED", cb, err)
	}
	if _, err := db.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(first), TargetTableName: aws.String("Copy")}); err != nil {
		t.Fatal(err)
	}
	w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 50 * time.Millisecond
		o.MaxDelay = 200 * time.Millisecond
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Copy")}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := scanValues(t, db, "Copy"); len(got) != 4 {
		t.Errorf("the table restored from the snapshot's backup holds %d items; want 4", len(got))
	}
}
