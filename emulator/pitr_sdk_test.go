package emulator_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// RestoreTableToPointInTime through the SDK, with an injected clock.

func pitrServer(t *testing.T, lag time.Duration) (*testserver.Server, *dynamodb.Client, *stepClock) {
	t.Helper()
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) {
		o.TTLInterval = -1
		o.PITRTrimInterval = -1
		o.Throttle.Off = true
		o.PITRLag = lag
	}))
	return s, s.Client, clk
}

func pitrEnable(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	if _, err := c.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
}

// pitrRestore restores source at `at` (nil: the latest restorable time)
// into target and waits for the job.
func pitrRestore(t *testing.T, s *testserver.Server, c *dynamodb.Client, in *dynamodb.RestoreTableToPointInTimeInput) *types.TableDescription {
	t.Helper()
	out, err := c.RestoreTableToPointInTime(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	r := out.TableDescription
	if r.TableStatus != types.TableStatusCreating || r.RestoreSummary == nil || !aws.ToBool(r.RestoreSummary.RestoreInProgress) ||
		r.RestoreSummary.SourceBackupArn != nil || aws.ToInt64(r.ItemCount) != 0 {
		t.Errorf("restore answer: %s, %+v, in progress %v, %d items", r.TableStatus, r.RestoreSummary, aws.ToBool(r.RestoreSummary.RestoreInProgress), aws.ToInt64(r.ItemCount))
	}
	emulator.WaitBackups(s.Engine())
	d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: in.TargetTableName})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.TableStatus != types.TableStatusActive || aws.ToBool(d.Table.RestoreSummary.RestoreInProgress) {
		t.Fatalf("restored table %s, in progress %v", d.Table.TableStatus, aws.ToBool(d.Table.RestoreSummary.RestoreInProgress))
	}
	return d.Table
}

// row renders an item of the history tables as "pk/sk g=… v=…".
func row(it map[string]types.AttributeValue) string {
	s := it["pk"].(*types.AttributeValueMemberS).Value + "/" + it["sk"].(*types.AttributeValueMemberN).Value
	if g, ok := it["g"].(*types.AttributeValueMemberS); ok {
		s += " g=" + g.Value
	}
	if v, ok := it["v"].(*types.AttributeValueMemberN); ok {
		s += " v=" + v.Value
	}
	return s
}

func scanRows(t *testing.T, c *dynamodb.Client, table string) []string {
	t.Helper()
	var out []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			out = append(out, row(it))
		}
	}
	sort.Strings(out)
	return out
}

func queryRows(t *testing.T, c *dynamodb.Client, table, index, g string) []string {
	t.Helper()
	var out []string
	p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: mkItem{":g": mkS(g)}})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			out = append(out, row(it))
		}
	}
	sort.Strings(out)
	return out
}

// histModel is the reference model: the table's items by "pk/sk".
type histModel map[string]string

func (m histModel) rows() []string {
	out := make([]string, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func (m histModel) withG(g string) []string {
	var out []string
	for _, r := range m {
		if strings.Contains(r, " g="+g+" ") || strings.HasSuffix(r, " g="+g) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// TestPITRRestoreMatchesHistory: a scripted history of puts, updates,
// deletes (single item, batch, transactions, PartiQL) and a GSI added
// mid-way, one step per second; restores at ten chosen seconds each hold
// exactly the reference model of the table at that second, items and
// index query results (the restored table has the source's current GSI,
// built from the items of that second).
func TestPITRRestoreMatchesHistory(t *testing.T) {
	s, c, clk := pitrServer(t, -1)
	ctx := t.Context()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("hist"),
		AttributeDefinitions: mkDefs("pk", "S", "sk", "N"), KeySchema: mkKS("pk", "HASH", "sk", "RANGE"),
		BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	// Items written before PITR is on are in every restore that does not
	// change them.
	model := histModel{}
	put := func(pk string, sk, v int, g string) {
		it := mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk)), "v": mkN(fmt.Sprint(v))}
		if g != "" {
			it["g"] = mkS(g)
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hist"), Item: it}); err != nil {
			t.Fatal(err)
		}
		model[fmt.Sprintf("%s/%d", pk, sk)] = row(it)
	}
	for i := range 8 {
		put("p"+fmt.Sprint(i%3), i, 0, "g"+fmt.Sprint(i%2))
	}
	clk.add(time.Second)
	pitrEnable(t, c, "hist")
	start := clk.Now()
	rng := rand.New(rand.NewPCG(15, 15))
	const steps = 40
	snapshots := make([]histModel, steps)
	for sec := range steps {
		clk.add(time.Second)
		if sec == 20 {
			if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("hist"),
				AttributeDefinitions: mkDefs("g", "S"),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("byg"), KeySchema: mkKS("g", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}}); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			pk, sk := "p"+fmt.Sprint(rng.IntN(3)), rng.IntN(12)
			key := fmt.Sprintf("%s/%d", pk, sk)
			g := "g" + fmt.Sprint(rng.IntN(3))
			switch op := rng.IntN(6); op {
			case 0, 1:
				put(pk, sk, sec*10+op, g)
			case 2: // UpdateItem: changes v and the GSI key
				if _, ok := model[key]; !ok {
					put(pk, sk, sec, "")
					continue
				}
				out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("hist"),
					Key:              mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk))},
					UpdateExpression: aws.String("SET v = v + :one, g = :g"), ExpressionAttributeValues: mkItem{":one": mkN("1"), ":g": mkS(g)},
					ReturnValues: types.ReturnValueAllNew})
				if err != nil {
					t.Fatal(err)
				}
				model[key] = row(out.Attributes)
			case 3: // DeleteItem
				if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("hist"),
					Key: mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk))}}); err != nil {
					t.Fatal(err)
				}
				delete(model, key)
			case 4: // BatchWriteItem: a put and a delete
				it := mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk)), "v": mkN(fmt.Sprint(sec)), "g": mkS(g)}
				other := fmt.Sprintf("%s/%d", pk, (sk+1)%12)
				if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hist": {
					{PutRequest: &types.PutRequest{Item: it}},
					{DeleteRequest: &types.DeleteRequest{Key: mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint((sk + 1) % 12))}}},
				}}}); err != nil {
					t.Fatal(err)
				}
				model[key] = row(it)
				delete(model, other)
			case 5: // a transaction and a PartiQL delete
				it := mkItem{"pk": mkS(pk), "sk": mkN(fmt.Sprint(sk)), "v": mkN(fmt.Sprint(-sec))}
				if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: aws.String("hist"), Item: it}}}}); err != nil {
					t.Fatal(err)
				}
				model[key] = row(it)
				o := fmt.Sprintf("%s/%d", pk, (sk+5)%12)
				if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
					Statement: aws.String(fmt.Sprintf(`DELETE FROM "hist" WHERE pk = '%s' AND sk = %d`, pk, (sk+5)%12))}); err != nil {
					t.Fatal(err)
				}
				delete(model, o)
			}
		}
		if sec == 20 {
			waitIndexActive(t, c, "hist", "byg")
		}
		snap := histModel{}
		for k, v := range model {
			snap[k] = v
		}
		snapshots[sec] = snap
	}
	clk.add(time.Second)
	if got, want := scanRows(t, c, "hist"), model.rows(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the model is off before any restore:\n%v\nwant\n%v", got, want)
	}
	// Ten seconds: the enable time, each side of the GSI's creation,
	// the last, and some between. Restoring at sec+0.5 s takes every
	// write of second sec (made at start+sec+1 s) and none after.
	for i, sec := range []int{-1, 0, 3, 7, 19, 20, 21, 28, 33, 39} {
		at := start.Add(time.Duration(sec+1)*time.Second + 500*time.Millisecond)
		want := histModel{}
		if sec >= 0 {
			want = snapshots[sec]
		} else {
			// Before any step: the items written before PITR was on.
			at = start
			for j := range 8 {
				pk := "p" + fmt.Sprint(j%3)
				want[fmt.Sprintf("%s/%d", pk, j)] = fmt.Sprintf("%s/%d g=g%d v=0", pk, j, j%2)
			}
		}
		target := fmt.Sprintf("hist-at-%d", i)
		d := pitrRestore(t, s, c, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("hist"),
			TargetTableName: aws.String(target), RestoreDateTime: aws.Time(at)})
		if !d.RestoreSummary.RestoreDateTime.Equal(at) || aws.ToInt64(d.ItemCount) != int64(len(want)) {
			t.Errorf("second %d: RestoreSummary %v, %d items; want %v, %d", sec, d.RestoreSummary.RestoreDateTime, aws.ToInt64(d.ItemCount), at, len(want))
		}
		if got := scanRows(t, c, target); strings.Join(got, "\n") != strings.Join(want.rows(), "\n") {
			t.Errorf("second %d: restored items\n%v\nwant\n%v", sec, got, want.rows())
		}
		for _, g := range []string{"g0", "g1", "g2"} {
			if got := queryRows(t, c, target, "byg", g); strings.Join(got, "\n") != strings.Join(want.withG(g), "\n") {
				t.Errorf("second %d: Query byg %s\n%v\nwant\n%v", sec, g, got, want.withG(g))
			}
		}
	}
}

func waitIndexActive(t *testing.T, c *dynamodb.Client, table, index string) {
	t.Helper()
	for range 500 {
		d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range d.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == index && g.IndexStatus == types.IndexStatusActive {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("index %s never ACTIVE", index)
}

func wantCode(t *testing.T, what string, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || (msg != "" && ae.ErrorMessage() != msg) {
		t.Errorf("%s: %v; want %s %q", what, err, code, msg)
	}
}

// TestPITRRestoreErrors: RestoreTableToPointInTime's validation and errors,
// in order: the request's shape, the source table, the target table, PITR
// on the source, the restore time.
func TestPITRRestoreErrors(t *testing.T) {
	_, c, clk := pitrServer(t, 0) // DynamoDB's five-minute lag
	ctx := t.Context()
	bkCreate(t, c, "src", nil)
	bkCreate(t, c, "plain", nil)
	pitrEnable(t, c, "src")
	enabled := clk.Now()
	clk.add(10 * time.Minute)
	restore := func(in dynamodb.RestoreTableToPointInTimeInput) error {
		_, err := c.RestoreTableToPointInTime(ctx, &in)
		return err
	}
	at := func(d time.Duration) *time.Time { return aws.Time(enabled.Add(d)) }
	wantCode(t, "no source", restore(dynamodb.RestoreTableToPointInTimeInput{TargetTableName: aws.String("tgt1"), UseLatestRestorableTime: aws.Bool(true)}),
		"ValidationException", "")
	wantCode(t, "both sources", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), SourceTableArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/src"),
		TargetTableName: aws.String("tgt1"), UseLatestRestorableTime: aws.Bool(true)}), "ValidationException", "")
	wantCode(t, "both times", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("tgt1"),
		UseLatestRestorableTime: aws.Bool(true), RestoreDateTime: at(time.Minute)}), "ValidationException", "")
	wantCode(t, "bad target name", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("a"),
		UseLatestRestorableTime: aws.Bool(true)}), "ValidationException", "")
	wantCode(t, "missing source", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("nope"), TargetTableName: aws.String("plain"),
		UseLatestRestorableTime: aws.Bool(true)}), "TableNotFoundException", "Table not found: nope")
	wantCode(t, "target exists", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("plain"), TargetTableName: aws.String("src"),
		UseLatestRestorableTime: aws.Bool(true)}), "TableAlreadyExistsException", "Table already exists: src")
	wantCode(t, "PITR off", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("plain"), TargetTableName: aws.String("tgt1"),
		UseLatestRestorableTime: aws.Bool(true)}), "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table 'plain'")
	const badTime = "RestoreDateTime must be between EarliestRestorableDateTime and LatestRestorableDateTime"
	wantCode(t, "before earliest", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("tgt1"),
		RestoreDateTime: at(-time.Second)}), "InvalidRestoreTimeException", badTime)
	// Latest trails the clock by five minutes: now-4m is too late.
	wantCode(t, "after latest", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("tgt1"),
		RestoreDateTime: at(6 * time.Minute)}), "InvalidRestoreTimeException", badTime)
	wantCode(t, "unknown index override", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("tgt1"),
		UseLatestRestorableTime: aws.Bool(true), GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{{IndexName: aws.String("nope"),
			KeySchema: mkKS("g", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}), "ValidationException", "")
	wantCode(t, "cross-Region without SSE", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: aws.String("arn:aws:dynamodb:eu-west-1:000000000000:table/src"),
		TargetTableName: aws.String("tgt1"), UseLatestRestorableTime: aws.Bool(true)}), "TableNotFoundException", "Table not found: src")
	// The ends of the window are restorable, to the millisecond
	// DescribeContinuousBackups reports.
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("src")})
	if err != nil {
		t.Fatal(err)
	}
	p := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	if !p.EarliestRestorableDateTime.Equal(enabled) || !p.LatestRestorableDateTime.Equal(clk.Now().Add(-5*time.Minute)) {
		t.Errorf("window %v – %v", p.EarliestRestorableDateTime, p.LatestRestorableDateTime)
	}
	for i, ts := range []*time.Time{p.EarliestRestorableDateTime, p.LatestRestorableDateTime} {
		if err := restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String(fmt.Sprintf("edge%d", i)),
			RestoreDateTime: ts}); err != nil {
			t.Errorf("restore at %v: %v", ts, err)
		}
	}
	// Turning PITR off drops the history; on again, the window starts anew.
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("src"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "PITR turned off", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("tgt1"),
		RestoreDateTime: at(time.Minute)}), "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table 'src'")
	pitrEnable(t, c, "src")
	wantCode(t, "before the new window", restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("src"), TargetTableName: aws.String("tgt1"),
		RestoreDateTime: at(time.Minute)}), "InvalidRestoreTimeException", badTime)
}

// TestPITRRestoreSettings: what a point-in-time restore keeps (GSIs,
// LSIs, billing, capacity, encryption: the source's current settings) and
// drops (tags, stream, TTL, PITR, deletion protection), the overrides,
// RestoreSummary, by name and by ARN.
func TestPITRRestoreSettings(t *testing.T) {
	s, c, clk := pitrServer(t, -1)
	ctx := t.Context()
	bkCreate(t, c, "orders", func(in *dynamodb.CreateTableInput) {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
		in.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
		in.Tags = []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}
		in.DeletionProtectionEnabled = aws.Bool(true)
	})
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	pitrEnable(t, c, "orders")
	bkPut(t, c, "orders", 10, "a")
	clk.add(time.Second)
	src, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"dynamodb:GetItem","Resource":"` +
		aws.ToString(src.Table.TableArn) + `"}]}`
	if _, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: src.Table.TableArn, Policy: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	d := pitrRestore(t, s, c, &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: src.Table.TableArn,
		TargetTableName: aws.String("copy"), UseLatestRestorableTime: aws.Bool(true)})
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: d.TableArn})
	wantCode(t, "resource policy of the restored table", err, "PolicyNotFoundException", "")
	rs := d.RestoreSummary
	if aws.ToString(rs.SourceTableArn) != aws.ToString(src.Table.TableArn) || rs.SourceBackupArn != nil || !rs.RestoreDateTime.Equal(clk.Now()) {
		t.Errorf("RestoreSummary %+v", rs)
	}
	if aws.ToInt64(d.ItemCount) != 10 || aws.ToString(d.TableId) == aws.ToString(src.Table.TableId) ||
		aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 6 || len(d.LocalSecondaryIndexes) != 1 || len(d.GlobalSecondaryIndexes) != 1 ||
		aws.ToInt64(d.GlobalSecondaryIndexes[0].ItemCount) != 10 || d.SSEDescription == nil || d.SSEDescription.Status != types.SSEStatusEnabled ||
		d.StreamSpecification != nil || aws.ToBool(d.DeletionProtectionEnabled) {
		t.Errorf("restored table %+v", d)
	}
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("copy")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Errorf("TTL of the restored table: %+v, %v", ttl, err)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.TableArn})
	if err != nil || len(tags.Tags) != 0 {
		t.Errorf("tags of the restored table: %+v, %v", tags, err)
	}
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("copy")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("PITR of the restored table: %+v, %v", cb, err)
	}
	// Overrides: on-demand, no GSI, one LSI kept, SSE off.
	d = pitrRestore(t, s, c, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("orders"),
		TargetTableName: aws.String("copy2"), UseLatestRestorableTime: aws.Bool(true),
		BillingModeOverride:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{},
		LocalSecondaryIndexOverride: []types.LocalSecondaryIndex{{IndexName: aws.String("bylocal"), KeySchema: mkKS("pk", "HASH", "ls", "RANGE"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		OnDemandThroughputOverride: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100), MaxWriteRequestUnits: aws.Int64(50)},
		SSESpecificationOverride:   &types.SSESpecification{Enabled: aws.Bool(false)}})
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || len(d.GlobalSecondaryIndexes) != 0 ||
		len(d.LocalSecondaryIndexes) != 1 || aws.ToInt64(d.OnDemandThroughput.MaxWriteRequestUnits) != 50 ||
		(d.SSEDescription != nil && d.SSEDescription.Status == types.SSEStatusEnabled) || aws.ToInt64(d.ItemCount) != 10 {
		t.Errorf("restored table with overrides %+v", d)
	}
	// Provisioned capacity override (and neither time: the latest).
	d = pitrRestore(t, s, c, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("orders"),
		TargetTableName:               aws.String("copy3"),
		ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(7), WriteCapacityUnits: aws.Int64(8)}})
	if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 7 || aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 8 ||
		!d.RestoreSummary.RestoreDateTime.Equal(clk.Now()) {
		t.Errorf("ProvisionedThroughputOverride: %+v, restored at %v", d.ProvisionedThroughput, d.RestoreSummary.RestoreDateTime)
	}
	// A deleted table restores from its SYSTEM backup only.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("orders"),
		TargetTableName: aws.String("copy4"), UseLatestRestorableTime: aws.Bool(true)})
	wantCode(t, "deleted source", err, "TableNotFoundException", "Table not found: orders")
	emulator.WaitBackups(s.Engine())
	l, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem})
	if err != nil || len(l.BackupSummaries) != 1 {
		t.Fatalf("SYSTEM backups: %+v, %v", l, err)
	}
	bkRestore(t, s, c, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("copy4"), BackupArn: l.BackupSummaries[0].BackupArn})
	if rows := scanRows4(t, c, "copy4"); rows != 10 {
		t.Errorf("restored from the SYSTEM backup: %d items", rows)
	}
}

func scanRows4(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	out, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

// TestPITRRestoreCrossRegion: a request to another Region with the
// source's ARN restores there; SSESpecificationOverride is required.
func TestPITRRestoreCrossRegion(t *testing.T) {
	s, c, clk := pitrServer(t, -1)
	bkCreate(t, c, "orders", nil)
	pitrEnable(t, c, "orders")
	bkPut(t, c, "orders", 5, "a")
	clk.add(time.Second)
	src, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	eu := s.ClientFor("eu-west-1", testserver.DefaultAccessKeyID)
	_, err = eu.RestoreTableToPointInTime(t.Context(), &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: src.Table.TableArn,
		TargetTableName: aws.String("orders"), UseLatestRestorableTime: aws.Bool(true)})
	wantCode(t, "cross-Region without SSE", err, "ValidationException", "SSESpecificationOverride is required for a cross-region restore")
	d := pitrRestore(t, s, eu, &dynamodb.RestoreTableToPointInTimeInput{SourceTableArn: src.Table.TableArn,
		TargetTableName: aws.String("orders"), UseLatestRestorableTime: aws.Bool(true),
		SSESpecificationOverride: &types.SSESpecification{Enabled: aws.Bool(false)}})
	if !strings.Contains(aws.ToString(d.TableArn), ":eu-west-1:") || aws.ToInt64(d.ItemCount) != 5 ||
		aws.ToString(d.RestoreSummary.SourceTableArn) != aws.ToString(src.Table.TableArn) {
		t.Errorf("cross-Region restore: %s, %d items, source %s", aws.ToString(d.TableArn), aws.ToInt64(d.ItemCount), aws.ToString(d.RestoreSummary.SourceTableArn))
	}
}

// TestPITRHistoryOfReplicatedWrites: a global table's replica with PITR
// on keeps the history of the writes replicated into it, so a restore of
// the replica at a moment between two replicated writes holds the first.
func TestPITRHistoryOfReplicatedWrites(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f := newGlobalFixture(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) {
		o.TTLInterval, o.PITRTrimInterval, o.PITRLag, o.Throttle.Off = -1, -1, -1, true
	}))
	f.addReplica(t)
	pitrEnable(t, f.repl, "gtab")
	clk.add(time.Second)
	f.put(t, f.home, "k", "1", "first")
	f.settle(t)
	clk.add(time.Second)
	at := clk.Now()
	clk.add(time.Second)
	f.put(t, f.home, "k", "1", "second")
	f.put(t, f.home, "seed", "1", "changed")
	f.settle(t)
	if v := f.get(t, f.repl, "k", "1"); v != "second" {
		t.Fatalf("replica holds %q", v)
	}
	pitrRestore(t, f.s, f.repl, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("gtab"),
		TargetTableName: aws.String("back"), RestoreDateTime: aws.Time(at)})
	for key, want := range map[[2]string]string{{"k", "1"}: "first", {"seed", "1"}: "old", {"seed", "2"}: "old"} {
		out, err := f.repl.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("back"),
			Key: mkItem{"pk": mkS(key[0]), "sk": mkN(key[1])}})
		if err != nil || out.Item == nil || out.Item["v"].(*types.AttributeValueMemberS).Value != want {
			t.Errorf("restored replica %v: %v, %v; want v=%s", key, out, err, want)
		}
	}
}
