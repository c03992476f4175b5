package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/objstore/s3store"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// exportThrough runs an export on the server at addr to bucket bkt and
// returns the key of its manifest once it is COMPLETED.
func exportThrough(t *testing.T, addr string) string {
	t.Helper()
	ctx := t.Context()
	c := dynamodb.NewFromConfig(aws.Config{Region: "us-east-1", BaseEndpoint: aws.String("http://" + addr),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("exp"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("exp"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("exp"), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "a"}}}); err != nil {
		t.Fatal(err)
	}
	ex, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: out.TableDescription.TableArn, S3Bucket: aws.String("bkt")})
	if err != nil {
		t.Fatal(err)
	}
	w := dynamodb.NewExportCompletedWaiter(c, func(o *dynamodb.ExportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	})
	d, err := w.WaitForOutput(ctx, &dynamodb.DescribeExportInput{ExportArn: ex.ExportDescription.ExportArn}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(d.ExportDescription.ExportManifest)
}

// TestServeS3Endpoint: serve --s3-endpoint writes exports to an S3 server
// (gofakes3, in-process).
func TestServeS3Endpoint(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	addr, _, stop, done := startServe(t, "--in-memory", "--s3-endpoint", srv.URL)
	defer func() { stop(); <-done }()
	manifest := exportThrough(t, addr)
	s3, err := s3store.New(s3store.Options{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s3.Get(context.Background(), "bkt", manifest); err != nil || len(b) == 0 {
		t.Errorf("manifest %s on the S3 server: %v", manifest, err)
	}
}

// TestServeS3Dir: serve --s3-dir writes exports to the bucket's folder.
func TestServeS3Dir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	addr, _, stop, done := startServe(t, "--in-memory", "--s3-dir", dir)
	defer func() { stop(); <-done }()
	manifest := exportThrough(t, addr)
	if _, err := os.Stat(filepath.Join(dir, "bkt", filepath.FromSlash(manifest))); err != nil {
		t.Errorf("manifest in the folder: %v", err)
	}
}
