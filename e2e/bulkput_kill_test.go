package e2e_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBulkPutSurvivesSIGKILL kills the binary twice while a bulk put runs
// and restarts it: the operation resumes where its last commit left it
// and ends with the counts and the table of an uninterrupted run. Every
// record carries attribute_not_exists(pk), so a record written twice
// would show as a condition-check failure.
func TestBulkPutSurvivesSIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	s3 := t.TempDir()
	const objects, perObject = 4, 6000
	good, bad := 0, 0
	for o := range objects {
		var raw bytes.Buffer
		for i := range perObject {
			if i%997 == 5 {
				raw.WriteString("{\"Item\":{\"nokey\":{\"S\":\"x\"}}}\n")
				bad++
				continue
			}
			fmt.Fprintf(&raw, `{"Item":{"pk":{"S":"o%d-%d"},"v":{"N":"%d"}},"ConditionExpression":"attribute_not_exists(pk)"}`+"\n", o, i, i)
			good++
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		_, _ = w.Write(raw.Bytes())
		_ = w.Close()
		p := filepath.Join(s3, "bkt", "in", fmt.Sprintf("part-%d.json.gz", o))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--data-dir", dir, "--s3-dir", s3, "--ttl-interval", "0"}
	s := start(t, bin, args...)
	c := s.client()
	ctx := context.Background()
	createTable(t, c, "bulk")
	out, err := c.StartBulkPutItems(ctx, &dynamodb.StartBulkPutItemsInput{TableName: aws.String("bulk"),
		InputS3Configuration: &types.InputS3Configuration{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("in/"),
			InputFormat: types.BulkOperationInputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip},
		OutputS3Configuration: &types.OutputS3Configuration{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("out"),
			OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError, types.OutputTypeEnumConditionCheckFailure}},
		// About 6 s for 24,000 items: time to be killed twice.
		MaxWriteRequestUnits: aws.Int64(4000)})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BulkOperationDescription.BulkOperationArn
	describe := func() *types.BulkOperationDescription {
		d, err := c.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		return d.BulkOperationDescription
	}
	var seen []int64
	for kill := range 2 {
		// Kill once it has made progress since the (re)start.
		deadline := time.Now().Add(30 * time.Second)
		var before int64
		if len(seen) > 0 {
			before = seen[len(seen)-1]
		}
		for {
			d := describe()
			if d.BulkOperationStatus != types.BulkOperationStatusInProgress {
				t.Fatalf("kill %d: the operation ended before it (%s, %d processed)", kill, d.BulkOperationStatus, d.ProcessedItemCount)
			}
			// The second kill lands in a later object than the first.
			if d.ProcessedItemCount > before+1000+int64(kill)*perObject {
				seen = append(seen, d.ProcessedItemCount)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("kill %d: no progress: %+v", kill, d)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = s.stop(t, syscall.SIGKILL)
		s = start(t, bin, args...)
		c = s.client()
		// Without --sync the last moments' commits may be lost, the
		// progress with the writes it counts: the job resumes before them.
		t.Logf("after kill %d: %d processed (%d seen before it)", kill, describe().ProcessedItemCount, seen[len(seen)-1])
	}
	var d *types.BulkOperationDescription
	deadline := time.Now().Add(60 * time.Second)
	for {
		d = describe()
		if d.BulkOperationStatus != types.BulkOperationStatusInProgress {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not done: %+v", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("killed at %v processed; end %s, %d processed, %d failed", seen, d.BulkOperationStatus, d.ProcessedItemCount, d.FailedItemCount)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != int64(good+bad) ||
		d.FailedItemCount != int64(bad) {
		t.Fatalf("end %+v, want %d processed, %d failed", d, good+bad, bad)
	}
	id := (*arn)[strings.LastIndex(*arn, "/")+1:]
	base := filepath.Join(s3, "bkt", "out", "AWSDynamoDB", "BulkPut", id)
	if m, _ := filepath.Glob(filepath.Join(base, "CONDITION_CHECK_FAILURE", "*")); len(m) != 0 {
		b, _ := os.ReadFile(m[0])
		t.Errorf("condition-check failures after the restarts (a record written twice): %.500s", b)
	}
	if m, _ := filepath.Glob(filepath.Join(base, "ERROR", "*")); len(m) != 1 {
		t.Errorf("ERROR report files %v", m)
	}
	n := int32(0)
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("bulk"), Select: types.SelectCount})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += page.Count
	}
	if int(n) != good {
		t.Errorf("table has %d items, want %d", n, good)
	}
}
