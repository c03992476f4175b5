package emulator_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/wire"
)

// Several ExtendDB processes on one shared store (issue 21): two engines,
// each behind its own HTTP server and client, over two connections to the
// same database, as two processes would be.

// proc is one ExtendDB "process".
type proc struct {
	eng    *emulator.Engine
	st     kv.Store
	srv    *httptest.Server
	c      *dynamodb.Client
	cfg    aws.Config // c's, for other services' clients
	closed bool
}

// shortLeases makes leader changes quick enough for a test.
func shortLeases(o *emulator.Options) {
	o.LeaseDuration = 600 * time.Millisecond
	o.LeaseRenewInterval = 100 * time.Millisecond
}

// startProc starts a process over st (which it closes when it stops).
func startProc(t *testing.T, st kv.Store, mods ...func(*emulator.Options)) *proc {
	t.Helper()
	o := emulator.Options{Store: st, Throttle: emulator.ThrottleOptions{Off: true}}
	shortLeases(&o)
	for _, m := range mods {
		m(&o)
	}
	eng, err := emulator.New(o)
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{eng: eng, st: st}
	p.srv = httptest.NewServer(wire.NewHandler(eng, wire.Options{}))
	p.cfg = aws.Config{
		Region:       testserver.DefaultRegion,
		BaseEndpoint: aws.String(p.srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(testserver.DefaultAccessKeyID, testserver.DefaultSecretKey, ""),
		// One attempt: the tests see every error the server gives.
		RetryMaxAttempts: 1,
		HTTPClient:       testserver.SDKHTTPClient(p.srv.Client()),
	}
	p.c = dynamodb.NewFromConfig(p.cfg)
	t.Cleanup(p.stop)
	return p
}

// stop ends the process: its engine (which gives up its leases), its
// server and its store connection.
func (p *proc) stop() {
	if p.closed {
		return
	}
	p.closed = true
	p.srv.Close()
	_ = p.eng.Close()
	_ = p.st.Close()
}

// crash ends the process as a kill would: its store connection goes
// first, so it cannot give up its leases, which expire.
func (p *proc) crash() {
	if p.closed {
		return
	}
	p.closed = true
	p.srv.Close()
	_ = p.st.Close()
	_ = p.eng.Close()
}

// twoProcs starts A, then B, over one shared database: A takes the
// leader lease first.
func twoProcs(t *testing.T, modA, modB func(*emulator.Options)) (a, b *proc) {
	t.Helper()
	open := sharedStore(t)
	if modA == nil {
		modA = func(*emulator.Options) {}
	}
	if modB == nil {
		modB = func(*emulator.Options) {}
	}
	a = startProc(t, open(), modA)
	waitFor(t, "A to lead", func() bool { return emulator.Leading(a.eng) })
	b = startProc(t, open(), modB)
	return a, b
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mpTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
}

func mpPut(t *testing.T, c *dynamodb.Client, table, pk string, sk int, extra map[string]types.AttributeValue) error {
	t.Helper()
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
	}
	for k, v := range extra {
		item[k] = v
	}
	_, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	return err
}

func errCode(err error) string {
	var ae interface{ ErrorCode() string }
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestSharedCreateTableServedByOther: a table A creates is written and
// queried through B at once, and described ACTIVE there.
func TestSharedCreateTableServedByOther(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	// B caches the (empty) catalog before A changes it.
	if _, err := b.c.ListTables(t.Context(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := mpPut(t, b.c, "Tbl", "p", i, nil); err != nil {
			t.Fatalf("PutItem through B: %v", err)
		}
	}
	q, err := b.c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("Tbl"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p"}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 3 {
		t.Errorf("Query through B: %d items, want 3", q.Count)
	}
	d, err := b.c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.TableStatus != types.TableStatusActive {
		t.Errorf("B describes T %s, want ACTIVE", d.Table.TableStatus)
	}
	// And back: A reads what B wrote.
	g, err := a.c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("Tbl"), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberN{Value: "2"}}})
	if err != nil || g.Item == nil {
		t.Errorf("GetItem through A: %v, item %v", err, g.Item)
	}
}

// TestSharedDeleteTableSeenByOther: once A deleted the table, B answers
// ResourceNotFoundException for its items and its description.
func TestSharedDeleteTableSeenByOther(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	if err := mpPut(t, b.c, "Tbl", "p", 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("Tbl")}); err != nil {
		t.Fatal(err)
	}
	if err := mpPut(t, b.c, "Tbl", "p", 2, nil); errCode(err) != "ResourceNotFoundException" {
		t.Errorf("PutItem through B after DeleteTable in A: %v, want ResourceNotFoundException", err)
	}
	if _, err := b.c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Tbl")}); errCode(err) != "ResourceNotFoundException" {
		t.Errorf("DescribeTable through B: %v, want ResourceNotFoundException", err)
	}
	// B can create it again: its catalog lock validates against the store.
	if _, err := b.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Errorf("CreateTable through B: %v", err)
	}
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); errCode(err) != "ResourceInUseException" {
		t.Errorf("CreateTable again through A: %v, want ResourceInUseException", err)
	}
}

// TestSharedCreateTableRace: two processes creating one table at once:
// one succeeds, the other gets ResourceInUseException, every round.
func TestSharedCreateTableRace(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	for round := range 8 {
		name := fmt.Sprintf("Race%d", round)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, p := range []*proc{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = p.c.CreateTable(t.Context(), mpTable(name))
			}()
		}
		wg.Wait()
		ok, inUse := 0, 0
		for _, err := range errs {
			switch errCode(err) {
			case "":
				ok++
			case "ResourceInUseException":
				inUse++
			default:
				t.Errorf("round %d: %v", round, err)
			}
		}
		if ok != 1 || inUse != 1 {
			t.Errorf("round %d: %d created, %d ResourceInUseException; want 1 and 1 (%v)", round, ok, inUse, errs)
		}
	}
}

// TestSharedAddGSIMaintainedByOther: a GSI A adds is maintained by B's
// writes, backfilled (by the leader), reaches ACTIVE, and B's Query on it
// finds the items written through B before and after.
func TestSharedAddGSIMaintainedByOther(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	g := func(v string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"g": &types.AttributeValueMemberS{Value: v}}
	}
	for i := range 20 {
		if err := mpPut(t, b.c, "Tbl", "p", i, g("x")); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("Tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 40; i++ {
		if err := mpPut(t, b.c, "Tbl", "p", i, g("x")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "byG ACTIVE through B", func() bool {
		d, err := b.c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Tbl")})
		if err != nil || len(d.Table.GlobalSecondaryIndexes) != 1 {
			return false
		}
		return d.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive
	})
	q, err := b.c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("Tbl"), IndexName: aws.String("byG"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 40 {
		t.Errorf("Query byG through B: %d items, want 40", q.Count)
	}
}

// TestSharedLeaderRunsTTL: only the leader expires items; when it stops,
// the other process takes the lease and expires them.
func TestSharedLeaderRunsTTL(t *testing.T) {
	// A leads but never runs an expiry pass; B would, every 50 ms.
	a, b := twoProcs(t,
		func(o *emulator.Options) { o.TTLInterval = time.Hour },
		func(o *emulator.Options) { o.TTLInterval = 50 * time.Millisecond })
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.UpdateTimeToLive(t.Context(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	past := map[string]types.AttributeValue{"exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)}}
	if err := mpPut(t, b.c, "Tbl", "p", 1, past); err != nil {
		t.Fatal(err)
	}
	count := func() int32 {
		s, err := b.c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("Tbl")})
		if err != nil {
			t.Fatal(err)
		}
		return s.Count
	}
	time.Sleep(500 * time.Millisecond)
	if n := count(); n != 1 {
		t.Fatalf("B, not leading, expired the item (%d left)", n)
	}
	if emulator.Leading(b.eng) {
		t.Fatal("B leads while A does")
	}
	a.stop()
	waitFor(t, "B to lead", func() bool { return emulator.Leading(b.eng) })
	waitFor(t, "B to expire the item", func() bool { return count() == 0 })
}

// TestSharedLeaderResumesBackfill: a backfill the leader started and did
// not finish is finished by the process that takes the lease after it.
func TestSharedLeaderResumesBackfill(t *testing.T) {
	reached := make(chan struct{})
	var once sync.Once
	a, b := twoProcs(t, nil, nil)
	// A's job stops after its first chunk until A stops.
	emulator.SetBackfillAfterChunk(a.eng, func(int) {
		once.Do(func() { close(reached) })
		<-emulator.BackfillContext(a.eng).Done()
	})
	// B copies nothing while A leads.
	var early atomic.Int32
	emulator.SetBackfillAfterChunk(b.eng, func(int) {
		if !emulator.Leading(b.eng) {
			early.Add(1)
		}
	})
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	const n = 600 // more than one backfill chunk
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				if err := mpPut(t, b.c, "Tbl", "p", i, map[string]types.AttributeValue{"g": &types.AttributeValueMemberS{Value: "x"}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// Added through B, which does not lead: A's poll starts the job.
	_, err := b.c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("Tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-reached:
	case <-time.After(20 * time.Second):
		t.Fatal("A never ran the backfill")
	}
	// A dies without giving up its lease: B takes it once it expires.
	a.crash()
	waitFor(t, "byG ACTIVE through B", func() bool {
		d, err := b.c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Tbl")})
		return err == nil && len(d.Table.GlobalSecondaryIndexes) == 1 &&
			d.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive
	})
	q, err := b.c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("Tbl"), IndexName: aws.String("byG"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != n {
		t.Errorf("Query byG through B: %d items, want %d", q.Count, n)
	}
	if n := early.Load(); n > 0 {
		t.Errorf("B, not leading, ran %d backfill chunks", n)
	}
}

// TestSharedBackupOfDeadProcessFails: a backup runs in the process that
// took the request (it copies that process's snapshot); while it does,
// the other process refuses a second backup of the table, and once its
// process dies the leader marks it DELETED, as a restart does on Pebble.
func TestSharedBackupOfDeadProcessFails(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	started := make(chan struct{})
	var once sync.Once
	emulator.SetBackupAfterChunk(b.eng, func(job string, rows int) {
		if job == "backup" {
			once.Do(func() { close(started) })
			<-emulator.BackupContext(b.eng).Done()
		}
	})
	if _, err := a.c.CreateTable(t.Context(), mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	if err := mpPut(t, a.c, "Tbl", "p", 1, nil); err != nil {
		t.Fatal(err)
	}
	out, err := b.c.CreateBackup(t.Context(), &dynamodb.CreateBackupInput{TableName: aws.String("Tbl"), BackupName: aws.String("bk1")})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := a.c.CreateBackup(t.Context(), &dynamodb.CreateBackupInput{TableName: aws.String("Tbl"), BackupName: aws.String("bk2")}); errCode(err) != "BackupInUseException" {
		t.Errorf("CreateBackup through A while B copies one: %v, want BackupInUseException", err)
	}
	time.Sleep(300 * time.Millisecond) // a few leader polls: B is alive
	status := func() types.BackupStatus {
		d, err := a.c.DescribeBackup(t.Context(), &dynamodb.DescribeBackupInput{BackupArn: out.BackupDetails.BackupArn})
		if err != nil {
			t.Fatal(err)
		}
		return d.BackupDescription.BackupDetails.BackupStatus
	}
	if s := status(); s != types.BackupStatusCreating {
		t.Fatalf("backup of live B: %s, want CREATING", s)
	}
	b.crash()
	waitFor(t, "the leader to fail B's backup", func() bool { return status() == types.BackupStatusDeleted })
}

// TestSharedTableSettingsSeenByOther: tags, TTL, the resource policy,
// PITR and backups changed through A are what B reports at once.
func TestSharedTableSettingsSeenByOther(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	ctx := t.Context()
	out, err := a.c.CreateTable(ctx, mpTable("Tbl"))
	if err != nil {
		t.Fatal(err)
	}
	arn := out.TableDescription.TableArn
	// B caches the table before A changes its settings.
	if _, err := b.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Tbl")}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("x")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"dynamodb:GetItem","Resource":"` + *arn + `"}]}`
	if _, err := a.c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: arn, Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Tbl"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Tbl"), BackupName: aws.String("bk-settings")}); err != nil {
		t.Fatal(err)
	}

	tags, err := b.c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
	if err != nil || len(tags.Tags) != 1 {
		t.Errorf("B's tags: %v, %v; want team=x", err, tags)
	}
	ttl, err := b.c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Tbl")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("B's TTL: %v, %+v; want ENABLED", err, ttl)
	}
	pol, err := b.c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: arn})
	if err != nil || aws.ToString(pol.Policy) == "" {
		t.Errorf("B's resource policy: %v, %+v", err, pol)
	}
	cb, err := b.c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Tbl")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
		t.Errorf("B's PITR: %v, %+v; want ENABLED", err, cb)
	}
	waitFor(t, "B to list the backup", func() bool {
		l, err := b.c.ListBackups(ctx, &dynamodb.ListBackupsInput{TableName: aws.String("Tbl")})
		return err == nil && len(l.BackupSummaries) == 1
	})
}

// TestSharedRestoreThroughNonLeader: a restore requested through the
// process that does not lead is run by the leader, and the restored table
// is served by both.
func TestSharedRestoreThroughNonLeader(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	var early atomic.Int32
	emulator.SetBackupAfterChunk(b.eng, func(job string, rows int) {
		if job == "restore" && !emulator.Leading(b.eng) {
			early.Add(1)
		}
	})
	ctx := t.Context()
	if _, err := a.c.CreateTable(ctx, mpTable("Src")); err != nil {
		t.Fatal(err)
	}
	const n = emulator.BackupChunk + 100 // more than one restore chunk
	for i := 0; i < n; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < min(i+25, n); j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberN{Value: strconv.Itoa(j)}}}})
		}
		out, err := a.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Src": reqs}})
		if err != nil || len(out.UnprocessedItems) > 0 {
			t.Fatalf("BatchWriteItem: %v, unprocessed %v", err, out.UnprocessedItems)
		}
	}
	bk, err := a.c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Src"), BackupName: aws.String("bk-restore")})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the backup to be AVAILABLE", func() bool {
		d, err := b.c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: bk.BackupDetails.BackupArn})
		return err == nil && d.BackupDescription.BackupDetails.BackupStatus == types.BackupStatusAvailable
	})
	if _, err := b.c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{
		BackupArn: bk.BackupDetails.BackupArn, TargetTableName: aws.String("Dst")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Dst ACTIVE through B", func() bool {
		d, err := b.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Dst")})
		return err == nil && d.Table.TableStatus == types.TableStatusActive
	})
	for _, p := range []*proc{a, b} {
		s, err := p.c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Dst"), Select: types.SelectCount})
		if err != nil || s.Count != n {
			t.Errorf("Scan of Dst: %v, %d items, want %d", err, s.Count, n)
		}
	}
	if k := early.Load(); k > 0 {
		t.Errorf("B, not leading, ran %d restore chunks", k)
	}
}

// TestSharedLostLeadFailsOwnBackup: a process that loses the lead while
// alive stops its jobs, its backup included; that backup is then failed
// like a dead process's, not left CREATING while the process lives on.
func TestSharedLostLeadFailsOwnBackup(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	emulator.SetBackupAfterChunk(a.eng, func(job string, rows int) {
		if job == "backup" {
			<-emulator.BackupContext(a.eng).Done()
		}
	})
	ctx := t.Context()
	if _, err := a.c.CreateTable(ctx, mpTable("Tbl")); err != nil {
		t.Fatal(err)
	}
	out, err := a.c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Tbl"), BackupName: aws.String("bk-lost")})
	if err != nil {
		t.Fatal(err)
	}
	emulator.LoseLead(a.eng)
	waitFor(t, "the backup to be failed", func() bool {
		d, err := b.c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: out.BackupDetails.BackupArn})
		return err == nil && d.BackupDescription.BackupDetails.BackupStatus == types.BackupStatusDeleted
	})
	// A keeps serving.
	if err := mpPut(t, a.c, "Tbl", "p", 1, nil); err != nil {
		t.Errorf("PutItem through A after it lost the lead: %v", err)
	}
}

// TestSharedVectorSearchSeesOtherWrites: a search through B finds what A
// wrote after B's first search (no stale in-memory copy on a shared store).
func TestSharedVectorSearchSeesOtherWrites(t *testing.T) {
	a, b := twoProcs(t, nil, nil)
	vecTable(t, a.c, "vshared", nil, vecIndex("near", "v", 2, types.VectorDistanceFunctionEuclidean))
	search := func() []string {
		out, err := b.c.SearchVectors(t.Context(), &dynamodb.SearchVectorsInput{TableName: aws.String("vshared"), IndexName: aws.String("near"),
			SearchVector: vecQuery(0, 0), TopK: aws.Int32(5)})
		if err != nil {
			t.Fatal(err)
		}
		ks, _ := searchKeys(t, out)
		return ks
	}
	vecPut(t, a.c, "vshared", "far", map[string]types.AttributeValue{"v": vecList(9, 9)})
	if got := fmt.Sprint(search()); got != "[far]" {
		t.Fatalf("first search: %s", got)
	}
	vecPut(t, a.c, "vshared", "near", map[string]types.AttributeValue{"v": vecList(1, 1)})
	if got := fmt.Sprint(search()); got != "[near far]" {
		t.Errorf("after A's write: %s", got)
	}
}
