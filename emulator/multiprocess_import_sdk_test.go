package emulator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/objstore"
)

// TestSharedImportThroughNonLeader: an ImportTable accepted by B, which
// does not lead, is persisted and run by A, the leader; the import and the
// table it creates reach their end states as both processes see them, and
// every item is served by both.
func TestSharedImportThroughNonLeader(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	objects := func(o *emulator.Options) { o.Objects = objstore.Dir{Root: root} }
	a, b := twoProcs(t, objects, objects)
	if emulator.Leading(b.eng) {
		t.Fatal("B leads; the test needs A to")
	}
	const n = 300
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "{\"Item\":{\"pk\":{\"S\":\"p%d\"},\"sk\":{\"N\":\"%d\"},\"g\":{\"S\":\"x\"}}}\n", i%7, i)
	}
	putObj(t, root, "in/part-1.json", []byte(lines.String()))
	ctx := t.Context()
	out, err := b.c.ImportTable(ctx, &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("in/")},
		InputFormat:    types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeNone,
		TableCreationParameters: imParams("imported")})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.ImportTableDescription.ImportArn
	for _, p := range []*proc{b, a} {
		waitFor(t, "the import to complete", func() bool {
			d, err := p.c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: arn})
			return err == nil && d.ImportTableDescription.ImportStatus == types.ImportStatusCompleted
		})
		d, err := p.c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: arn})
		if err != nil || d.ImportTableDescription.ImportedItemCount != n || d.ImportTableDescription.ErrorCount != 0 {
			t.Fatalf("DescribeImport: %v %+v", err, d)
		}
		waitFor(t, "the table ACTIVE", func() bool { return tableStatus(t, p.c, "imported") == types.TableStatusActive })
	}
	for _, p := range []*proc{a, b} {
		s, err := p.c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("imported"), Select: types.SelectCount})
		if err != nil || s.Count != n {
			t.Errorf("Scan: %v, %d items, want %d", err, s.Count, n)
		}
		q, err := p.c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("imported"), IndexName: aws.String("byg"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: mkItem{":g": mkS("x")}, Select: types.SelectCount})
		if err != nil || q.Count != n {
			t.Errorf("GSI Query: %v, %d items, want %d", err, q.Count, n)
		}
	}
	if emulator.Leading(b.eng) {
		t.Error("B took the lead while A lived")
	}
}
