package extenddbtest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/extenddb/extenddb/extenddbtest"
	"github.com/extenddb/extenddb/internal/sdkhttp"
)

func createTable(t *testing.T, db *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := db.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableDescription
}

func TestStart(t *testing.T) {
	srv := extenddbtest.Start(t)
	if !strings.HasPrefix(srv.Endpoint, "http://127.0.0.1:") {
		t.Errorf("Endpoint = %s", srv.Endpoint)
	}
	td := createTable(t, srv.DynamoDB(), "Things")
	if got := aws.ToString(td.TableArn); got != "arn:aws:dynamodb:us-east-1:000000000000:table/Things" {
		t.Errorf("TableArn = %s", got)
	}
	// Every client built from Config reaches the server, not AWS.
	id, err := sts.NewFromConfig(srv.Config).GetCallerIdentity(t.Context(), &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(id.Account) != "000000000000" {
		t.Errorf("GetCallerIdentity: %v %v", id, err)
	}
	// Its clients hand net/http a private copy of each request body, so a
	// large response never fails on the SDK's own race and is never sent
	// twice by its retry (internal/sdkhttp).
	if _, ok := srv.Config.HTTPClient.(sdkhttp.Client); !ok {
		t.Errorf("Config.HTTPClient is %T; want sdkhttp.Client", srv.Config.HTTPClient)
	}
	// Each Start is a new, empty server.
	other := extenddbtest.Start(t)
	out, err := other.DynamoDB().ListTables(t.Context(), &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 0 {
		t.Errorf("a second server sees %v (%v)", out.TableNames, err)
	}
}

func TestStartOptions(t *testing.T) {
	srv := extenddbtest.Start(t, extenddbtest.WithRegion("eu-west-1"), extenddbtest.WithAccessKey("111122223333"))
	td := createTable(t, srv.DynamoDB(), "Things")
	if got := aws.ToString(td.TableArn); got != "arn:aws:dynamodb:eu-west-1:111122223333:table/Things" {
		t.Errorf("TableArn = %s", got)
	}
}

func TestStartWithLoad(t *testing.T) {
	dir := t.TempDir()
	tf := `variable "name" { default = "orders" }
resource "aws_dynamodb_table" "t" {
  name         = var.name
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := extenddbtest.Start(t, extenddbtest.WithLoad(dir), extenddbtest.WithTerraformVars("name=carts"))
	if _, err := srv.DynamoDB().DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("carts")}); err != nil {
		t.Fatalf("the loaded table: %v", err)
	}
}

// TestStartWithLoadAccounts: WithLoad provisions each Terraform provider's
// tables in the account its access key is on this server (a 12-digit key,
// WithAccessKeyAccount, WithAccountPerAccessKey), so a client with the
// provider's key finds them, as after terraform apply (issue 37).
func TestStartWithLoadAccounts(t *testing.T) {
	dir := t.TempDir()
	tf := ""
	for _, p := range [][2]string{{"prod", "AKIAPROD00000000"}, {"own", "222222222222"}, {"dev", "AKIADEV000000000"}} {
		tf += fmt.Sprintf(`provider "aws" {
  alias      = %[1]q
  region     = "eu-west-1"
  access_key = %[2]q
}
resource "aws_dynamodb_table" %[1]q {
  provider     = aws.%[1]s
  name         = %[1]q
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
`, p[0], p[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := []extenddbtest.Option{extenddbtest.WithLoad(dir), extenddbtest.WithRegion("eu-west-1"),
		extenddbtest.WithAccessKeyAccount("AKIAPROD00000000", "111111111111"), extenddbtest.WithAccountPerAccessKey()}
	for _, c := range []struct{ key, table, account string }{
		{"AKIAPROD00000000", "prod", "111111111111"},
		{"222222222222", "own", "222222222222"},
		{"AKIADEV000000000", "dev", ""},
	} {
		srv := extenddbtest.Start(t, append(opts, extenddbtest.WithAccessKey(c.key))...)
		out, err := srv.DynamoDB().ListTables(t.Context(), &dynamodb.ListTablesInput{})
		if err != nil || len(out.TableNames) != 1 || out.TableNames[0] != c.table {
			t.Errorf("key %s sees tables %v (%v), want [%s]", c.key, out.TableNames, err, c.table)
			continue
		}
		d, err := srv.DynamoDB().DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(c.table)})
		if err != nil {
			t.Fatal(err)
		}
		if c.account != "" && aws.ToString(d.Table.TableArn) != "arn:aws:dynamodb:eu-west-1:"+c.account+":table/"+c.table {
			t.Errorf("key %s: ARN %s, want account %s", c.key, aws.ToString(d.Table.TableArn), c.account)
		}
	}
}

// failingT records Fatalf instead of stopping the test, to check that a bad
// definition fails the caller's test with its diagnostic.
type failingT struct {
	testing.TB
	msg string
}

func (f *failingT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(errFatal)
}

var errFatal = errors.New("fatal")

func TestStartWithBadLoadFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(`resource "aws_dynamodb_table" "t" { name = var.missing }`), 0o600); err != nil {
		t.Fatal(err)
	}
	ft := &failingT{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != errFatal {
				panic(p)
			}
		}()
		extenddbtest.Start(ft, extenddbtest.WithLoad(dir))
	}()
	if !strings.Contains(ft.msg, "main.tf:1") || !strings.Contains(ft.msg, "missing") {
		t.Errorf("Start with a broken definition: %q; want its diagnostic", ft.msg)
	}
}

func TestStartWithDataDir(t *testing.T) {
	dir := t.TempDir()
	t.Run("first", func(t *testing.T) {
		createTable(t, extenddbtest.Start(t, extenddbtest.WithDataDir(dir)).DynamoDB(), "Kept")
	})
	srv := extenddbtest.Start(t, extenddbtest.WithDataDir(dir))
	if _, err := srv.DynamoDB().DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Kept")}); err != nil {
		t.Fatalf("table from the first server: %v", err)
	}
}

// TestStartWithThrottleInitialBurst: a fresh 5/5 provisioned table serves
// 20 writes sent at once when its buckets start with 300 seconds (one
// second, the default, refuses most of them).
func TestStartWithThrottleInitialBurst(t *testing.T) {
	srv := extenddbtest.Start(t, extenddbtest.WithThrottleInitialBurst(300))
	db := dynamodb.NewFromConfig(srv.Config, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	_, err := db.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:             aws.String("Small"),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			_, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("Small"),
				Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint(i)}}},
				func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a write of the burst was refused: %v", err)
		}
	}
}

func TestStartWithThrottleInitialBurstOutOfRange(t *testing.T) {
	for _, v := range []float64{0, 0.5, 301} {
		ft := &failingT{TB: t}
		func() {
			defer func() {
				if p := recover(); p != nil && p != errFatal {
					panic(p)
				}
			}()
			extenddbtest.Start(ft, extenddbtest.WithThrottleInitialBurst(v))
		}()
		if !strings.Contains(ft.msg, "WithThrottleInitialBurst") || !strings.Contains(ft.msg, "from 1 to 300") {
			t.Errorf("WithThrottleInitialBurst(%v): %q, want a range error", v, ft.msg)
		}
	}
}

func TestStartWithReplicationDelay(t *testing.T) {
	const delay = 400 * time.Millisecond
	srv := extenddbtest.Start(t, extenddbtest.WithReplicationDelay(delay))
	home := srv.DynamoDB()
	westCfg := srv.Config.Copy()
	westCfg.Region = "us-west-2"
	west := dynamodb.NewFromConfig(westCfg)
	createTable(t, home, "Orders")
	if _, err := home.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("Orders"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}}); err != nil {
		t.Fatal(err)
	}
	waitReplicaActive(t, home, "Orders")
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "o-1"}}
	written := time.Now()
	if _, err := home.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: key}); err != nil {
		t.Fatal(err)
	}
	for {
		out, err := west.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if out.Item != nil {
			if lag := time.Since(written); lag < delay {
				t.Fatalf("the write reached the replica after %v, before the %v delay", lag, delay)
			}
			return
		}
		if time.Since(written) > delay+10*time.Second {
			t.Fatal("the write never reached the replica")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitReplicaActive(t *testing.T, db *dynamodb.Client, table string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Table.Replicas) == 1 && out.Table.Replicas[0].ReplicaStatus == types.ReplicaStatusActive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica not ACTIVE: %+v", out.Table.Replicas)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartWithLegacyGlobalTables(t *testing.T) {
	create := func(srv *extenddbtest.Server) error {
		db := srv.DynamoDB()
		if _, err := db.CreateTable(t.Context(), &dynamodb.CreateTableInput{
			TableName:            aws.String("Legacy"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
			StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		}); err != nil {
			t.Fatal(err)
		}
		_, err := db.CreateGlobalTable(t.Context(), &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("Legacy"),
			ReplicationGroup: []types.Replica{{RegionName: aws.String("us-east-1")}}})
		return err
	}
	if err := create(extenddbtest.Start(t)); err == nil || !strings.Contains(err.Error(), "2017.11.29 is not supported") {
		t.Errorf("by default: %v, want today's ValidationException", err)
	}
	if err := create(extenddbtest.Start(t, extenddbtest.WithLegacyGlobalTables())); err != nil {
		t.Errorf("WithLegacyGlobalTables: %v", err)
	}
}

// TestAutoScaleDatapoint: with 500 ms datapoints a provisioned table under
// sustained writes is scaled out by the auto scaling the test configured,
// within a generous deadline, as a user's test would watch it.
func TestAutoScaleDatapoint(t *testing.T) {
	srv := extenddbtest.Start(t, extenddbtest.WithAutoScaleDatapoint(500*time.Millisecond))
	db := srv.DynamoDB()
	if _, err := db.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:             aws.String("Scaled"),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("Scaled"),
		ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(5), MaximumUnits: aws.Int64(10),
			ScalingPolicyUpdate: &types.AutoScalingPolicyUpdate{TargetTrackingScalingPolicyConfiguration: &types.AutoScalingTargetTrackingScalingPolicyConfigurationUpdate{TargetValue: aws.Float64(70)}}},
	}); err != nil {
		t.Fatal(err)
	}
	for i, deadline := 0, time.Now().Add(20*time.Second); ; i++ {
		// Throttled writes are expected: the table is at capacity.
		_, _ = db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("Scaled"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint(i)}}},
			func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
		d, err := db.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Scaled")})
		if err != nil {
			t.Fatal(err)
		}
		if w := aws.ToInt64(d.Table.ProvisionedThroughput.WriteCapacityUnits); w > 5 {
			if w > 10 {
				t.Fatalf("write capacity %d above the maximum, 10", w)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("sustained writes did not scale the table out within 20s")
		}
	}
}

func TestStartWithPITRLag(t *testing.T) {
	srv := extenddbtest.Start(t, extenddbtest.WithPITRLag(0))
	db := srv.DynamoDB()
	createTable(t, db, "Orders")
	if _, err := db.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Orders"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "o-1"}}
	if _, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: key}); err != nil {
		t.Fatal(err)
	}
	// With no lag the latest restorable time is now: the put is in.
	if _, err := db.RestoreTableToPointInTime(t.Context(), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Orders"),
		TargetTableName: aws.String("Restored"), UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 10 * time.Millisecond })
	if err := w.Wait(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("Restored")}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	out, err := db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("Restored"), Key: key})
	if err != nil || out.Item == nil {
		t.Fatalf("the item written just before the restore: %v, %v", out, err)
	}
}

// TestExportToS3Dir: an export lands in Server.S3Dir, in AWS's layout.
func TestExportToS3Dir(t *testing.T) {
	s := extenddbtest.Start(t)
	if err := os.Mkdir(filepath.Join(s.S3Dir, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := s.DynamoDB()
	out, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{TableName: aws.String("exp"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("exp"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	ex, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{TableArn: out.TableDescription.TableArn, S3Bucket: aws.String("bkt")})
	if err != nil {
		t.Fatal(err)
	}
	w := dynamodb.NewExportCompletedWaiter(c, func(o *dynamodb.ExportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	})
	d, err := w.WaitForOutput(t.Context(), &dynamodb.DescribeExportInput{ExportArn: ex.ExportDescription.ExportArn}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.S3Dir, "bkt", *d.ExportDescription.ExportManifest)); err != nil {
		t.Errorf("manifest: %v", err)
	}
}
