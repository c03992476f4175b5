package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/testserver"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// cpClock is a settable clock for the engine.
type cpClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *cpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *cpClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// apiErr asserts err is a DynamoDB error with code and message.
func apiErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want %s: %s", err, code, msg)
	}
	if ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Fatalf("got %s: %q\nwant %s: %q", ae.ErrorCode(), ae.ErrorMessage(), code, msg)
	}
}

func hashTable(name string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
}

func TestControlPlaneLifecycle(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	ctx := context.Background()

	// Create, then the usual errors.
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String("byG"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
		}},
		Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("test")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TableDescription.TableArn)
	if arn != "arn:aws:dynamodb:us-east-1:000000000000:table/Orders" {
		t.Fatalf("TableArn %s", arn)
	}
	_, err = c.CreateTable(ctx, hashTable("Orders"))
	var inUse *types.ResourceInUseException
	if !errors.As(err, &inUse) {
		t.Fatalf("duplicate CreateTable: %v", err)
	}
	apiErr(t, err, "ResourceInUseException", "Table already exists: Orders")
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Nope")})
	var notFound *types.ResourceNotFoundException
	if !errors.As(err, &notFound) {
		t.Fatalf("DescribeTable missing: %v", err)
	}
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Bad"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	apiErr(t, err, "ValidationException", "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")

	// Describe by name and by ARN.
	for _, ref := range []string{"Orders", arn} {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(ref)})
		if err != nil {
			t.Fatal(err)
		}
		tb := d.Table
		if tb.TableStatus != types.TableStatusActive || aws.ToInt64(tb.ProvisionedThroughput.ReadCapacityUnits) != 5 ||
			len(tb.GlobalSecondaryIndexes) != 1 || tb.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive ||
			aws.ToString(tb.GlobalSecondaryIndexes[0].IndexArn) != arn+"/index/byG" || tb.BillingModeSummary != nil {
			t.Fatalf("DescribeTable(%s): %+v", ref, tb)
		}
	}

	// Update, one kind at a time.
	steps := []dynamodb.UpdateTableInput{
		{ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(10)}},
		{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(2)}}}}},
		{StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}},
		{TableClass: types.TableClassStandardInfrequentAccess},
		{DeletionProtectionEnabled: aws.Bool(true)},
		{SSESpecification: &types.SSESpecification{Enabled: aws.Bool(true)}},
		{BillingMode: types.BillingModePayPerRequest},
		{OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100)}},
		{WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(13000)}},
		{AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("h"), AttributeType: types.ScalarAttributeTypeB}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("byH"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("h"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}},
		{GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}}}},
	}
	for i := range steps {
		steps[i].TableName = aws.String("Orders")
		if _, err := c.UpdateTable(ctx, &steps[i]); err != nil {
			t.Fatalf("UpdateTable step %d: %v", i, err)
		}
		// As DynamoDB, a table takes one index creation or deletion at a
		// time: the next step waits for the backfill.
		for _, u := range steps[i].GlobalSecondaryIndexUpdates {
			if u.Create != nil {
				waitIndexActive(t, c, "Orders", aws.ToString(u.Create.IndexName), 30*time.Second)
			}
		}
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	if err != nil {
		t.Fatal(err)
	}
	tb := d.Table
	if tb.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || aws.ToInt64(tb.ProvisionedThroughput.ReadCapacityUnits) != 0 ||
		!aws.ToBool(tb.StreamSpecification.StreamEnabled) || aws.ToString(tb.LatestStreamArn) == "" ||
		tb.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess || !aws.ToBool(tb.DeletionProtectionEnabled) ||
		tb.SSEDescription.Status != types.SSEStatusEnabled || aws.ToInt64(tb.OnDemandThroughput.MaxReadRequestUnits) != 100 ||
		aws.ToInt64(tb.WarmThroughput.ReadUnitsPerSecond) != 13000 || len(tb.GlobalSecondaryIndexes) != 1 ||
		aws.ToString(tb.GlobalSecondaryIndexes[0].IndexName) != "byH" || len(tb.AttributeDefinitions) != 3 {
		t.Fatalf("after updates: %+v", tb)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Orders")})
	apiErr(t, err, "ValidationException", "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")

	// Tags.
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("db")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"env"}}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	if err != nil || len(tags.Tags) != 1 || aws.ToString(tags.Tags[0].Key) != "team" {
		t.Fatalf("tags: %+v %v", tags, err)
	}

	// TTL.
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Orders")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Fatalf("TTL: %+v %v", ttl, err)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Orders"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	apiErr(t, err, "ValidationException", "TimeToLive is already enabled")

	// PITR, and its own not-found code.
	pitr, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Orders"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	if err != nil || pitr.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled ||
		aws.ToInt32(pitr.ContinuousBackupsDescription.PointInTimeRecoveryDescription.RecoveryPeriodInDays) != 35 {
		t.Fatalf("PITR: %+v %v", pitr, err)
	}
	_, err = c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Nope")})
	var tnf *types.TableNotFoundException
	if !errors.As(err, &tnf) {
		t.Fatalf("DescribeContinuousBackups missing: %v", err)
	}

	// Limits and endpoints.
	lim, err := c.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	if err != nil || aws.ToInt64(lim.TableMaxReadCapacityUnits) != 40000 || aws.ToInt64(lim.AccountMaxWriteCapacityUnits) != 80000 {
		t.Fatalf("DescribeLimits: %+v %v", lim, err)
	}
	eps, err := c.DescribeEndpoints(ctx, &dynamodb.DescribeEndpointsInput{})
	if err != nil || len(eps.Endpoints) != 1 || aws.ToString(eps.Endpoints[0].Address) != "dynamodb.us-east-1.amazonaws.com" || eps.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Fatalf("DescribeEndpoints: %+v %v", eps, err)
	}

	// Delete: protected, then unprotected.
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Orders")})
	apiErr(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Orders"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	del, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(arn)})
	if err != nil || del.TableDescription.TableStatus != types.TableStatusDeleting {
		t.Fatalf("DeleteTable: %+v %v", del, err)
	}
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Orders")})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Orders not found")
}

func TestControlPlaneListTablesPaginates(t *testing.T) {
	s := testserver.New(t)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("t%03d", 6-i)
		want = append(want, name)
		if _, err := s.Client.CreateTable(ctx, hashTable(name)); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(want)
	var got []string
	pages := 0
	p := dynamodb.NewListTablesPaginator(s.Client, &dynamodb.ListTablesInput{Limit: aws.Int32(3)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, out.TableNames...)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || pages != 3 {
		t.Fatalf("%d pages: %v", pages, got)
	}
	_, err := s.Client.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	apiErr(t, err, "ValidationException", "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")
}

func TestControlPlaneNamespaces(t *testing.T) {
	s := testserver.New(t, testserver.WithAccessKeyAccount("AKIDOTHERACCOUNT0001", "444455556666"))
	ctx := context.Background()
	clients := map[string]*dynamodb.Client{
		"arn:aws:dynamodb:us-east-1:000000000000:table/Shared": s.Client,
		"arn:aws:dynamodb:eu-west-1:000000000000:table/Shared": s.ClientFor("eu-west-1", testserver.DefaultAccessKeyID),
		"arn:aws:dynamodb:us-east-1:444455556666:table/Shared": s.ClientFor("us-east-1", "AKIDOTHERACCOUNT0001"),
		"arn:aws:dynamodb:us-east-1:111122223333:table/Shared": s.ClientFor("us-east-1", "111122223333"),
	}
	ids := map[string]bool{}
	for arn, c := range clients {
		out, err := c.CreateTable(ctx, hashTable("Shared"))
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToString(out.TableDescription.TableArn); got != arn {
			t.Errorf("TableArn %s, want %s", got, arn)
		}
		ids[aws.ToString(out.TableDescription.TableId)] = true
	}
	if len(ids) != 4 {
		t.Fatalf("table IDs %v are not distinct", ids)
	}
	eu := s.ClientFor("eu-west-1", testserver.DefaultAccessKeyID)
	if _, err := eu.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Shared")}); err != nil {
		t.Fatal(err)
	}
	for arn, c := range clients {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Shared")})
		if strings.Contains(arn, "eu-west-1") {
			apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Shared not found")
		} else if err != nil {
			t.Fatalf("%s: %v", arn, err)
		}
	}
	// Another Region's ARN is refused.
	_, err := s.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("arn:aws:dynamodb:eu-west-1:000000000000:table/Shared")})
	apiErr(t, err, "ValidationException", "1 validation error detected: Invalid AWS region in 'arn:aws:dynamodb:eu-west-1:000000000000:table/Shared'")
}

func TestControlPlaneRestart(t *testing.T) {
	for _, mode := range []string{"memory", "disk"} {
		t.Run(mode, func(t *testing.T) {
			var opts []testserver.Option
			if mode == "disk" {
				opts = append(opts, testserver.WithDataDir(t.TempDir()))
			}
			s := testserver.New(t, opts...)
			ctx := context.Background()
			in := hashTable("Kept")
			in.Tags = []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}
			in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
			created, err := s.Client.CreateTable(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Kept"),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Client.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Kept"),
				PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
				t.Fatal(err)
			}
			s.Restart()
			d, err := s.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Kept")})
			if err != nil {
				t.Fatal(err)
			}
			if aws.ToString(d.Table.TableId) != aws.ToString(created.TableDescription.TableId) || aws.ToString(d.Table.LatestStreamArn) != aws.ToString(created.TableDescription.LatestStreamArn) {
				t.Fatalf("after restart: %+v", d.Table)
			}
			ttl, err := s.Client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Kept")})
			if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
				t.Fatalf("TTL after restart: %+v %v", ttl, err)
			}
			pitr, err := s.Client.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Kept")})
			if err != nil || pitr.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled {
				t.Fatalf("PITR after restart: %+v %v", pitr, err)
			}
			tags, err := s.Client.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
			if err != nil || len(tags.Tags) != 1 {
				t.Fatalf("tags after restart: %+v %v", tags, err)
			}
		})
	}
}

func TestControlPlaneWaiters(t *testing.T) {
	const delay = 300 * time.Millisecond
	s := testserver.New(t, testserver.WithTransitionDelay(delay))
	ctx := context.Background()
	out, err := s.Client.CreateTable(ctx, hashTable("Slow"))
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != types.TableStatusCreating {
		t.Fatalf("CreateTable status %s, want CREATING", out.TableDescription.TableStatus)
	}
	d, err := s.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")})
	if err != nil || d.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("DescribeTable right after create: %v %v", d, err)
	}
	_, err = s.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Slow")})
	apiErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: Slow")

	fast := func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 100*time.Millisecond
	}
	start := time.Now()
	if err := dynamodb.NewTableExistsWaiter(s.Client, fast).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < delay/2 {
		t.Fatalf("TableExists returned after %v; the table was CREATING for %v", el, delay)
	}
	if _, err := s.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Slow")}); err != nil {
		t.Fatal(err)
	}
	d, err = s.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")})
	if err != nil || d.Table.TableStatus != types.TableStatusDeleting {
		t.Fatalf("DescribeTable right after delete: %v %v", d, err)
	}
	gone := func(o *dynamodb.TableNotExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, 100*time.Millisecond
	}
	if err := dynamodb.NewTableNotExistsWaiter(s.Client, gone).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// recorder keeps the body of every DynamoDB response.
type recorder struct {
	mu     sync.Mutex
	bodies map[string][]byte // by operation
	next   http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	op := strings.TrimPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	r.mu.Lock()
	r.bodies[op] = b
	r.mu.Unlock()
	return resp, nil
}

// TestControlPlaneDescribeGolden compares the wire JSON of DescribeTable for
// a table with every feature against a golden file (TableId masked; the
// clock is fixed). Run with -update to rewrite it.
func TestControlPlaneDescribeGolden(t *testing.T) {
	clk := &cpClock{now: time.Date(2026, 12, 2, 11, 30, 0, 123000000, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk))
	rec := &recorder{bodies: map[string][]byte{}, next: http.DefaultTransport}
	cfg := s.AWSConfig("eu-west-1", "111122223333")
	cfg.HTTPClient = &http.Client{Transport: rec}
	c := dynamodb.NewFromConfig(cfg)
	ctx := context.Background()

	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Everything"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeB},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode:        types.BillingModePayPerRequest,
		OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(500), MaxWriteRequestUnits: aws.Int64(200)},
		WarmThroughput:     &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(15000)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:          aws.String("byG"),
			KeySchema:          []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			Projection:         &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"zz", "aa"}},
			OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(50)},
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName:  aws.String("byL"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"zz", "aa"}},
		}},
		StreamSpecification:       &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		SSESpecification:          &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms, KMSMasterKeyId: aws.String("arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab")},
		TableClass:                types.TableClassStandardInfrequentAccess,
		DeletionProtectionEnabled: aws.Bool(true),
		Tags:                      []types.Tag{{Key: aws.String("env"), Value: aws.String("test")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(time.Minute)
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Everything")}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	body := rec.bodies["DescribeTable"]
	rec.mu.Unlock()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("DescribeTable body %q: %v", body, err)
	}
	tb := v["Table"].(map[string]any)
	if id, _ := tb["TableId"].(string); len(id) != 36 {
		t.Fatalf("TableId %q is not a UUID", id)
	}
	tb["TableId"] = "MASKED"
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "controlplane", "describe_everything.golden.json")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("DescribeTable JSON differs from %s:\n%s", path, got)
	}
}
