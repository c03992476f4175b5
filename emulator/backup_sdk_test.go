package emulator_test

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// On-demand backups and RestoreTableFromBackup through the SDK.

func bkServer(t *testing.T) (*testserver.Server, *dynamodb.Client, *stepClock) {
	t.Helper()
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) {
		o.TTLInterval = -1
		o.Throttle.Off = true
	}))
	return s, s.Client, clk
}

// bkCreate creates table name (pk S HASH, sk S RANGE) with an LSI "bylocal"
// (pk, ls) and a GSI "byg" (g), provisioned 5/5, with the given extras.
func bkCreate(t *testing.T, c *dynamodb.Client, name string, mod func(*dynamodb.CreateTableInput)) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:             aws.String(name),
		AttributeDefinitions:  mkDefs("pk", "S", "sk", "S", "ls", "S", "g", "S"),
		KeySchema:             mkKS("pk", "HASH", "sk", "RANGE"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(6)},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("bylocal"), KeySchema: mkKS("pk", "HASH", "ls", "RANGE"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byg"), KeySchema: mkKS("g", "HASH"),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)}}},
	}
	if mod != nil {
		mod(in)
	}
	if _, err := c.CreateTable(t.Context(), in); err != nil {
		t.Fatal(err)
	}
}

func bkPut(t *testing.T, c *dynamodb.Client, table string, n int, val string) {
	t.Helper()
	for i := range n {
		if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: mkItem{
			"pk": mkS(fmt.Sprintf("p%d", i%7)), "sk": mkS(fmt.Sprintf("s%04d", i)), "ls": mkS("l"), "g": mkS("gv"), "v": mkS(val)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// bkScan returns "pk/sk=v" for every item of table, sorted.
func bkScan(t *testing.T, c *dynamodb.Client, table string) []string {
	t.Helper()
	var out []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			v := ""
			if s, ok := it["v"].(*types.AttributeValueMemberS); ok {
				v = s.Value
			}
			out = append(out, it["pk"].(*types.AttributeValueMemberS).Value+"/"+it["sk"].(*types.AttributeValueMemberS).Value+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

func bkBackup(t *testing.T, c *dynamodb.Client, table, name string) *types.BackupDetails {
	t.Helper()
	out, err := c.CreateBackup(t.Context(), &dynamodb.CreateBackupInput{TableName: aws.String(table), BackupName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return out.BackupDetails
}

func bkRestore(t *testing.T, s *testserver.Server, c *dynamodb.Client, in *dynamodb.RestoreTableFromBackupInput) *types.TableDescription {
	t.Helper()
	out, err := c.RestoreTableFromBackup(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	emulator.WaitBackups(s.Engine())
	d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: in.TargetTableName})
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != types.TableStatusCreating || !aws.ToBool(out.TableDescription.RestoreSummary.RestoreInProgress) {
		t.Errorf("restore answer: %s, RestoreSummary %+v; want CREATING, in progress", out.TableDescription.TableStatus, out.TableDescription.RestoreSummary)
	}
	return d.Table
}

var backupArnRE = regexp.MustCompile(`^arn:aws:dynamodb:us-east-1:\d{12}:table/orders/backup/(\d{14})-[0-9a-f]{8}$`)

// TestBackupCreateAndDescribe: CreateBackup answers CREATING with an ARN in
// the table's account and Region whose suffix holds the request time; the
// job makes it AVAILABLE; DescribeBackup reports the source table and its
// features as they were.
func TestBackupCreateAndDescribe(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", func(in *dynamodb.CreateTableInput) {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
		in.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
	})
	if _, err := c.UpdateTimeToLive(t.Context(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	bkPut(t, c, "orders", 20, "a")
	tbl, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	d := bkBackup(t, c, "orders", "nightly")
	m := backupArnRE.FindStringSubmatch(aws.ToString(d.BackupArn))
	if m == nil {
		t.Fatalf("BackupArn %q", aws.ToString(d.BackupArn))
	}
	if ms := fmt.Sprintf("%014d", d.BackupCreationDateTime.UnixMilli()); ms != m[1] {
		t.Errorf("ARN time %s, BackupCreationDateTime %s", m[1], ms)
	}
	if d.BackupStatus != types.BackupStatusCreating || d.BackupType != types.BackupTypeUser || aws.ToString(d.BackupName) != "nightly" || d.BackupExpiryDateTime != nil {
		t.Errorf("CreateBackup details %+v", d)
	}
	emulator.WaitBackups(s.Engine())
	out, err := c.DescribeBackup(t.Context(), &dynamodb.DescribeBackupInput{BackupArn: d.BackupArn})
	if err != nil {
		t.Fatal(err)
	}
	bd := out.BackupDescription
	if bd.BackupDetails.BackupStatus != types.BackupStatusAvailable || aws.ToInt64(bd.BackupDetails.BackupSizeBytes) != aws.ToInt64(tbl.Table.TableSizeBytes) {
		t.Errorf("details %+v, want AVAILABLE with size %d", bd.BackupDetails, aws.ToInt64(tbl.Table.TableSizeBytes))
	}
	src := bd.SourceTableDetails
	if aws.ToString(src.TableName) != "orders" || aws.ToString(src.TableId) != aws.ToString(tbl.Table.TableId) ||
		aws.ToString(src.TableArn) != aws.ToString(tbl.Table.TableArn) || aws.ToInt64(src.ItemCount) != 20 ||
		aws.ToInt64(src.ProvisionedThroughput.ReadCapacityUnits) != 5 || aws.ToInt64(src.ProvisionedThroughput.WriteCapacityUnits) != 6 ||
		src.BillingMode != types.BillingModeProvisioned || len(src.KeySchema) != 2 || !src.TableCreationDateTime.Equal(*tbl.Table.CreationDateTime) {
		t.Errorf("SourceTableDetails %+v", src)
	}
	f := bd.SourceTableFeatureDetails
	if len(f.LocalSecondaryIndexes) != 1 || aws.ToString(f.LocalSecondaryIndexes[0].IndexName) != "bylocal" ||
		len(f.GlobalSecondaryIndexes) != 1 || aws.ToInt64(f.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits) != 4 ||
		f.StreamDescription == nil || f.StreamDescription.StreamViewType != types.StreamViewTypeNewImage ||
		f.TimeToLiveDescription == nil || aws.ToString(f.TimeToLiveDescription.AttributeName) != "exp" ||
		f.SSEDescription == nil || f.SSEDescription.Status != types.SSEStatusEnabled {
		t.Errorf("SourceTableFeatureDetails %+v", f)
	}
}

// TestBackupIsolatedFromLaterChanges: a backup holds the table as it was
// at the request, whatever later writes, DeleteTable and a re-created table
// of the same name do; the restore brings back exactly those items.
func TestBackupIsolatedFromLaterChanges(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", nil)
	bkPut(t, c, "orders", 30, "before")
	want := bkScan(t, c, "orders")
	d := bkBackup(t, c, "orders", "snap")
	// Writes racing with the copy, then after it: neither is in the backup.
	bkPut(t, c, "orders", 40, "after")
	emulator.WaitBackups(s.Engine())
	if _, err := c.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	bkCreate(t, c, "orders", nil)
	bkPut(t, c, "orders", 5, "new")
	got := bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("orders2"), BackupArn: d.BackupArn})
	if rows := bkScan(t, c, "orders2"); strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Fatalf("restored items:\n%v\nwant\n%v", rows, want)
	}
	if aws.ToInt64(got.ItemCount) != 30 || got.TableStatus != types.TableStatusActive {
		t.Errorf("restored table %s with %d items", got.TableStatus, aws.ToInt64(got.ItemCount))
	}
	// The indexes were rebuilt from the items.
	q, err := c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("orders2"), IndexName: aws.String("byg"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: mkItem{":g": mkS("gv")}, Select: types.SelectCount})
	if err != nil || q.Count != 30 {
		t.Fatalf("Query on the restored GSI: %v, %v", q, err)
	}
	q, err = c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("orders2"), IndexName: aws.String("bylocal"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: mkItem{":p": mkS("p0")}, Select: types.SelectCount})
	if err != nil || q.Count != 5 {
		t.Fatalf("Query on the restored LSI: %v, %v", q, err)
	}
	// The backup survives a restart.
	s.Restart()
	if out, err := c.DescribeBackup(t.Context(), &dynamodb.DescribeBackupInput{BackupArn: d.BackupArn}); err != nil || out.BackupDescription.BackupDetails.BackupStatus != types.BackupStatusAvailable {
		t.Fatalf("after restart: %v, %v", out, err)
	}
}

// TestRestoreKeepsAndDrops: what a restore keeps (data, indexes, billing
// and capacity as of the backup, encryption) and what it does not (tags,
// stream, TTL, PITR, table class, deletion protection), and RestoreSummary.
func TestRestoreKeepsAndDrops(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", func(in *dynamodb.CreateTableInput) {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
		in.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
		in.Tags = []types.Tag{{Key: aws.String("team"), Value: aws.String("x")}}
		in.TableClass = types.TableClassStandardInfrequentAccess
		in.DeletionProtectionEnabled = aws.Bool(true)
	})
	if _, err := c.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("orders"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	bkPut(t, c, "orders", 3, "a")
	src, _ := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	d := bkBackup(t, c, "orders", "keepdrop")
	emulator.WaitBackups(s.Engine())
	// Capacity changes after the backup do not reach the restore.
	if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(9)}}); err != nil {
		t.Fatal(err)
	}
	got := bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("copy"), BackupArn: d.BackupArn})
	if aws.ToInt64(got.ProvisionedThroughput.ReadCapacityUnits) != 5 || aws.ToInt64(got.ProvisionedThroughput.WriteCapacityUnits) != 6 ||
		len(got.GlobalSecondaryIndexes) != 1 || len(got.LocalSecondaryIndexes) != 1 ||
		got.SSEDescription == nil || got.SSEDescription.Status != types.SSEStatusEnabled {
		t.Errorf("kept: %+v", got)
	}
	if got.StreamSpecification != nil || got.LatestStreamArn != nil || got.TableClassSummary != nil || aws.ToBool(got.DeletionProtectionEnabled) {
		t.Errorf("not kept: stream %+v %v, class %+v, deletion protection %v", got.StreamSpecification, got.LatestStreamArn, got.TableClassSummary, aws.ToBool(got.DeletionProtectionEnabled))
	}
	if aws.ToString(got.TableId) == aws.ToString(src.Table.TableId) {
		t.Error("the restored table reuses the source's TableId")
	}
	rs := got.RestoreSummary
	if rs == nil || aws.ToString(rs.SourceBackupArn) != aws.ToString(d.BackupArn) || aws.ToString(rs.SourceTableArn) != aws.ToString(src.Table.TableArn) ||
		!rs.RestoreDateTime.Equal(*d.BackupCreationDateTime) || aws.ToBool(rs.RestoreInProgress) {
		t.Errorf("RestoreSummary %+v", rs)
	}
	tags, err := c.ListTagsOfResource(t.Context(), &dynamodb.ListTagsOfResourceInput{ResourceArn: got.TableArn})
	if err != nil || len(tags.Tags) != 0 {
		t.Errorf("tags of the restored table: %v, %v", tags, err)
	}
	ttl, err := c.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("copy")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("TTL of the restored table: %v, %v", ttl, err)
	}
	cb, err := c.DescribeContinuousBackups(t.Context(), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("copy")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("PITR of the restored table: %v, %v", cb, err)
	}
}

// TestRestoreOverrides: billing, capacity, index and SSE overrides; an
// index override can drop indexes but not add one.
func TestRestoreOverrides(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", nil)
	bkPut(t, c, "orders", 4, "a")
	d := bkBackup(t, c, "orders", "ovr")
	emulator.WaitBackups(s.Engine())

	got := bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("ppr"), BackupArn: d.BackupArn,
		BillingModeOverride: types.BillingModePayPerRequest, GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{},
		LocalSecondaryIndexOverride: []types.LocalSecondaryIndex{}, SSESpecificationOverride: &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}})
	if got.BillingModeSummary == nil || got.BillingModeSummary.BillingMode != types.BillingModePayPerRequest ||
		len(got.GlobalSecondaryIndexes) != 0 || len(got.LocalSecondaryIndexes) != 0 || got.SSEDescription == nil || aws.ToInt64(got.ItemCount) != 4 {
		t.Errorf("PAY_PER_REQUEST restore without indexes: %+v", got)
	}
	got = bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("prov"), BackupArn: d.BackupArn,
		ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(8)},
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{{IndexName: aws.String("byg"), KeySchema: mkKS("g", "HASH"),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(2)}}}})
	if aws.ToInt64(got.ProvisionedThroughput.ReadCapacityUnits) != 7 || len(got.GlobalSecondaryIndexes) != 1 ||
		aws.ToInt64(got.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits) != 2 || aws.ToInt64(got.GlobalSecondaryIndexes[0].ItemCount) != 4 ||
		len(got.LocalSecondaryIndexes) != 1 || got.SSEDescription != nil {
		t.Errorf("provisioned override: %+v", got)
	}

	_, err := c.RestoreTableFromBackup(t.Context(), &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("bad"), BackupArn: d.BackupArn,
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{{IndexName: aws.String("nosuch"), KeySchema: mkKS("g", "HASH"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	var ve smithy.APIError
	if !isValidation(err, &ve) {
		t.Errorf("an override adding an index: %v, want ValidationException", err)
	}
	_, err = c.RestoreTableFromBackup(t.Context(), &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("bad"), BackupArn: d.BackupArn,
		BillingModeOverride: types.BillingModePayPerRequest, ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	if !isValidation(err, &ve) {
		t.Errorf("capacity with PAY_PER_REQUEST: %v, want ValidationException", err)
	}
	if _, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("bad")}); err == nil {
		t.Error("a refused restore left a table")
	}
}

// TestRestoreCrossRegion: a restore sent to another Region with the
// backup's ARN creates the table there; SSESpecificationOverride is required.
func TestRestoreCrossRegion(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", nil)
	bkPut(t, c, "orders", 6, "a")
	d := bkBackup(t, c, "orders", "xregion")
	emulator.WaitBackups(s.Engine())
	eu := s.ClientFor("eu-west-1", testserver.DefaultAccessKeyID)
	_, err := eu.RestoreTableFromBackup(t.Context(), &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("orders"), BackupArn: d.BackupArn})
	var ve smithy.APIError
	if !isValidation(err, &ve) {
		t.Fatalf("cross-Region restore without SSESpecificationOverride: %v, want ValidationException", err)
	}
	got := bkRestore(t, s, eu, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("orders"), BackupArn: d.BackupArn,
		SSESpecificationOverride: &types.SSESpecification{Enabled: aws.Bool(false)}})
	if !strings.HasPrefix(aws.ToString(got.TableArn), "arn:aws:dynamodb:eu-west-1:") || aws.ToInt64(got.ItemCount) != 6 {
		t.Errorf("cross-Region restore: %s with %d items", aws.ToString(got.TableArn), aws.ToInt64(got.ItemCount))
	}
	// The backup stays in its own Region's listing.
	l, err := eu.ListBackups(t.Context(), &dynamodb.ListBackupsInput{})
	if err != nil || len(l.BackupSummaries) != 0 {
		t.Errorf("eu-west-1 ListBackups: %v, %v", l, err)
	}
}

// TestListBackupsFilters: TableName, BackupType (USER by default), the time
// range (lower inclusive, upper exclusive), Limit and paging.
func TestListBackupsFilters(t *testing.T) {
	s, c, clk := bkServer(t)
	bkCreate(t, c, "orders", nil)
	bkCreate(t, c, "other", nil)
	var arns []string
	var times []time.Time
	for i, table := range []string{"orders", "other", "orders", "orders", "other"} {
		d := bkBackup(t, c, table, fmt.Sprintf("bk-%d", i))
		emulator.WaitBackups(s.Engine())
		arns = append(arns, aws.ToString(d.BackupArn))
		times = append(times, *d.BackupCreationDateTime)
		clk.add(time.Minute)
	}
	// A SYSTEM backup: DeleteTable with PITR on.
	bkCreate(t, c, "gone", nil)
	if _, err := c.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("gone"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("gone")}); err != nil {
		t.Fatal(err)
	}
	emulator.WaitBackups(s.Engine())

	list := func(in *dynamodb.ListBackupsInput) []string {
		t.Helper()
		out, err := c.ListBackups(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, b := range out.BackupSummaries {
			names = append(names, aws.ToString(b.BackupName))
		}
		return names
	}
	for _, tc := range []struct {
		name string
		in   dynamodb.ListBackupsInput
		want string
	}{
		{"default USER", dynamodb.ListBackupsInput{}, "bk-0,bk-1,bk-2,bk-3,bk-4"},
		{"table", dynamodb.ListBackupsInput{TableName: aws.String("orders")}, "bk-0,bk-2,bk-3"},
		{"table ARN", dynamodb.ListBackupsInput{TableName: aws.String("arn:aws:dynamodb:us-east-1:999999999999:table/other")}, ""},
		{"SYSTEM", dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem}, "gone$DeletedTableBackup"},
		{"ALL", dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterAll}, "bk-0,bk-1,bk-2,bk-3,bk-4,gone$DeletedTableBackup"},
		{"AWS_BACKUP", dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterAwsBackup}, ""},
		{"range", dynamodb.ListBackupsInput{TimeRangeLowerBound: aws.Time(times[1]), TimeRangeUpperBound: aws.Time(times[3])}, "bk-1,bk-2"},
	} {
		if got := strings.Join(list(&tc.in), ","); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// The table ARN of this account filters like the name.
	acct := strings.Split(arns[0], ":")[4]
	if got := strings.Join(list(&dynamodb.ListBackupsInput{TableName: aws.String("arn:aws:dynamodb:us-east-1:" + acct + ":table/other")}), ","); got != "bk-1,bk-4" {
		t.Errorf("table ARN: %q", got)
	}
	// Paging: Limit 2 walks the five USER backups in three pages.
	var pages []string
	in := &dynamodb.ListBackupsInput{Limit: aws.Int32(2)}
	for {
		out, err := c.ListBackups(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, b := range out.BackupSummaries {
			names = append(names, aws.ToString(b.BackupName))
		}
		pages = append(pages, strings.Join(names, ","))
		if out.LastEvaluatedBackupArn == nil {
			break
		}
		if aws.ToString(out.LastEvaluatedBackupArn) != aws.ToString(out.BackupSummaries[len(out.BackupSummaries)-1].BackupArn) {
			t.Fatalf("LastEvaluatedBackupArn %q is not the page's last", aws.ToString(out.LastEvaluatedBackupArn))
		}
		in.ExclusiveStartBackupArn = out.LastEvaluatedBackupArn
	}
	if got := strings.Join(pages, "|"); got != "bk-0,bk-1|bk-2,bk-3|bk-4" {
		t.Errorf("pages %q", got)
	}
	out, err := c.ListBackups(t.Context(), &dynamodb.ListBackupsInput{TableName: aws.String("orders"), Limit: aws.Int32(1)})
	if err != nil || len(out.BackupSummaries) != 1 {
		t.Fatal(out, err)
	}
	b := out.BackupSummaries[0]
	if aws.ToString(b.TableName) != "orders" || aws.ToString(b.TableArn) == "" || aws.ToString(b.TableId) == "" || b.BackupStatus != types.BackupStatusAvailable ||
		b.BackupType != types.BackupTypeUser || b.BackupSizeBytes == nil || !b.BackupCreationDateTime.Equal(times[0]) {
		t.Errorf("BackupSummary %+v", b)
	}
}

// TestDeletedTableSystemBackup: deleting a table with PITR on leaves the
// SYSTEM backup <table>$DeletedTableBackup, kept 35 days, which restores
// the table as it was before the deletion; without PITR there is none.
func TestDeletedTableSystemBackup(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", nil)
	bkCreate(t, c, "nopitr", nil)
	if _, err := c.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("orders"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	bkPut(t, c, "orders", 12, "x")
	want := bkScan(t, c, "orders")
	for _, n := range []string{"orders", "nopitr"} {
		if _, err := c.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String(n)}); err != nil {
			t.Fatal(err)
		}
	}
	emulator.WaitBackups(s.Engine())
	out, err := c.ListBackups(t.Context(), &dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem})
	if err != nil || len(out.BackupSummaries) != 1 {
		t.Fatalf("SYSTEM backups: %v, %v", out, err)
	}
	b := out.BackupSummaries[0]
	if aws.ToString(b.BackupName) != "orders$DeletedTableBackup" || b.BackupType != types.BackupTypeSystem ||
		b.BackupExpiryDateTime == nil || b.BackupExpiryDateTime.Sub(*b.BackupCreationDateTime) != 35*24*time.Hour {
		t.Errorf("SYSTEM backup %+v", b)
	}
	bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("orders"), BackupArn: b.BackupArn})
	if got := bkScan(t, c, "orders"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("restored from the SYSTEM backup: %v", got)
	}
}

// TestBackupErrors: each operation's errors, with DynamoDB's types.
func TestBackupErrors(t *testing.T) {
	s, c, _ := bkServer(t)
	bkCreate(t, c, "orders", nil)
	bkPut(t, c, "orders", 2*emulator.BackupChunk+1, "a")
	ctx := t.Context()
	var ve smithy.APIError
	var tnf *types.TableNotFoundException
	var bnf *types.BackupNotFoundException
	var biu *types.BackupInUseException
	var tae *types.TableAlreadyExistsException
	var tiu *types.TableInUseException

	_, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("nosuch"), BackupName: aws.String("bkp")})
	if !errors.As(err, &tnf) || tnf.ErrorMessage() != "Table not found: nosuch" {
		t.Errorf("CreateBackup of a missing table: %v", err)
	}
	_, err = c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("orders"), BackupName: aws.String("a$b")})
	if !isValidation(err, &ve) || !strings.Contains(ve.ErrorMessage(), "backupName") {
		t.Errorf("CreateBackup with a bad name: %v", err)
	}

	// A backup being copied conflicts with another backup of the table,
	// its deletion and its restore.
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	emulator.SetBackupAfterChunk(s.Engine(), func(job string, rows int) {
		if job == "backup" && rows == emulator.BackupChunk {
			once.Do(func() {
				close(reached)
				<-release
			})
		}
	})
	d := bkBackup(t, c, "orders", "busy")
	<-reached
	_, err = c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("orders"), BackupName: aws.String("second")})
	if !errors.As(err, &biu) {
		t.Errorf("CreateBackup during a backup: %v, want BackupInUseException", err)
	}
	_, err = c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: d.BackupArn})
	if !errors.As(err, &biu) {
		t.Errorf("DeleteBackup of a CREATING backup: %v, want BackupInUseException", err)
	}
	_, err = c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("copy"), BackupArn: d.BackupArn})
	if !errors.As(err, &biu) {
		t.Errorf("restore of a CREATING backup: %v, want BackupInUseException", err)
	}
	l, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{})
	if err != nil || len(l.BackupSummaries) != 1 || l.BackupSummaries[0].BackupStatus != types.BackupStatusCreating {
		t.Errorf("ListBackups lists a CREATING backup: %v, %v", l, err)
	}
	close(release)
	emulator.WaitBackups(s.Engine())
	emulator.SetBackupAfterChunk(s.Engine(), nil)

	_, err = c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("orders"), BackupArn: d.BackupArn})
	if !errors.As(err, &tae) || tae.ErrorMessage() != "Table already exists: orders" {
		t.Errorf("restore onto an existing table: %v", err)
	}
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("copy"), BackupArn: d.BackupArn}); err != nil {
		t.Fatal(err)
	}
	// copy is CREATING until its job ends (it may have ended already).
	_, err = c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("copy"), BackupArn: d.BackupArn})
	if !errors.As(err, &tiu) && !errors.As(err, &tae) {
		t.Errorf("restore onto a table being restored: %v", err)
	}
	emulator.WaitBackups(s.Engine())

	missing := strings.Replace(aws.ToString(d.BackupArn), "/backup/0", "/backup/9", 1)
	for name, call := range map[string]func() error{
		"DescribeBackup": func() error {
			_, err := c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(missing)})
			return err
		},
		"DeleteBackup": func() error {
			_, err := c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: aws.String(missing)})
			return err
		},
		"RestoreTableFromBackup": func() error {
			_, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("zzz"), BackupArn: aws.String(missing)})
			return err
		},
	} {
		if err := call(); !errors.As(err, &bnf) || bnf.ErrorMessage() != "Backup not found: "+missing {
			t.Errorf("%s of a missing backup: %v", name, err)
		}
	}
	_, err = c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String("arn:short")})
	if !isValidation(err, &ve) || !strings.Contains(ve.ErrorMessage(), "Member must have length greater than or equal to 37") {
		t.Errorf("DescribeBackup with a short ARN: %v", err)
	}
	_, err = c.ListBackups(ctx, &dynamodb.ListBackupsInput{Limit: aws.Int32(101), BackupType: "NONE"})
	if !isValidation(err, &ve) || !strings.HasPrefix(ve.ErrorMessage(), "2 validation errors detected") {
		t.Errorf("ListBackups with a bad Limit and type: %v", err)
	}

	// DeleteBackup answers DELETED, then the backup is gone.
	del, err := c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: d.BackupArn})
	if err != nil || del.BackupDescription.BackupDetails.BackupStatus != types.BackupStatusDeleted || del.BackupDescription.SourceTableDetails == nil {
		t.Fatalf("DeleteBackup: %v, %v", del, err)
	}
	if _, err := c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: d.BackupArn}); !errors.As(err, &bnf) {
		t.Errorf("DescribeBackup after DeleteBackup: %v", err)
	}
	// The restored table outlives its backup.
	if got := bkScan(t, c, "copy"); len(got) != 2*emulator.BackupChunk+1 {
		t.Errorf("copy has %d items", len(got))
	}
}

// isValidation reports whether err is a ValidationException, and sets *ve.
func isValidation(err error, ve *smithy.APIError) bool {
	return errors.As(err, ve) && (*ve).ErrorCode() == "ValidationException"
}
