package emulator_test

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/objstore"
)

// Export to the S3 stand-in (a folder per bucket) through the SDK.

func exServer(t *testing.T, opts ...testserver.Option) (*testserver.Server, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts = append([]testserver.Option{testserver.WithEngineOptions(func(o *emulator.Options) {
		o.TTLInterval = -1
		o.Throttle.Off = true
		o.Objects = objstore.Dir{Root: root}
	})}, opts...)
	return testserver.New(t, opts...), root
}

// exTable creates table name (pk S, sk N) with PITR on and n items.
func exTable(t *testing.T, c *dynamodb.Client, name string, n int) string {
	t.Helper()
	out, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: mkDefs("pk", "S", "sk", "N"), KeySchema: mkKS("pk", "HASH", "sk", "RANGE"),
		BillingMode: types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateContinuousBackups(t.Context(), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(name), Item: mkItem{
			"pk": mkS(fmt.Sprintf("p%d", i%3)), "sk": &types.AttributeValueMemberN{Value: fmt.Sprint(i)},
			"b": &types.AttributeValueMemberB{Value: []byte{0, byte(i)}}, "ss": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
			"m": &types.AttributeValueMemberM{Value: mkItem{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberBOOL{Value: true}}}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	return *out.TableDescription.TableArn
}

func readObj(t *testing.T, root, key string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "bkt", filepath.FromSlash(key)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func b64md5(b []byte) string {
	s := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(s[:])
}

func TestExportLayout(t *testing.T) {
	s, root := exServer(t)
	emulator.SetExportHooks(s.Engine(), 4, nil)
	c := s.Client
	arn := exTable(t, c, "extbl", 10)
	out, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{
		TableArn: &arn, S3Bucket: aws.String("bkt"), S3Prefix: aws.String("exports")})
	if err != nil {
		t.Fatal(err)
	}
	d := out.ExportDescription
	if d.ExportStatus != types.ExportStatusInProgress || d.ExportFormat != types.ExportFormatDynamodbJson ||
		d.ExportType != types.ExportTypeFullExport || aws.ToString(d.S3Prefix) != "exports" || d.ClientToken == nil || d.EndTime != nil {
		t.Fatalf("first answer %+v", d)
	}
	if !strings.HasPrefix(*d.ExportArn, arn+"/export/0") {
		t.Errorf("ExportArn %s", *d.ExportArn)
	}
	emulator.WaitExports(s.Engine())
	got, err := c.DescribeExport(t.Context(), &dynamodb.DescribeExportInput{ExportArn: d.ExportArn})
	if err != nil {
		t.Fatal(err)
	}
	d = got.ExportDescription
	id := (*d.ExportArn)[strings.LastIndexByte(*d.ExportArn, '/')+1:]
	base := "exports/AWSDynamoDB/" + id + "/"
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != 10 || aws.ToInt64(d.BilledSizeBytes) == 0 ||
		aws.ToString(d.ExportManifest) != base+"manifest-summary.json" || d.EndTime == nil {
		t.Fatalf("completed %+v", d)
	}
	if b := readObj(t, root, base+"_started"); len(b) != 0 {
		t.Errorf("_started holds %q", b)
	}
	sum := readObj(t, root, base+"manifest-summary.json")
	if string(readObj(t, root, base+"manifest-summary.md5")) != b64md5(sum) {
		t.Errorf("manifest-summary.md5 does not match")
	}
	var ms map[string]any
	if err := json.Unmarshal(sum, &ms); err != nil {
		t.Fatal(err)
	}
	if ms["version"] != "2020-06-30" || ms["exportArn"] != *d.ExportArn || ms["itemCount"] != 10.0 || ms["outputFormat"] != "DYNAMODB_JSON" ||
		ms["manifestFilesS3Key"] != base+"manifest-files.json" || ms["billedSizeBytes"] != float64(*d.BilledSizeBytes) {
		t.Errorf("manifest-summary %s", sum)
	}
	if st, _ := ms["startTime"].(string); !strings.HasSuffix(st, "Z") || len(st) != len("2026-03-01T12:00:00.000Z") {
		t.Errorf("startTime %q", st)
	}
	files := readObj(t, root, base+"manifest-files.json")
	if string(readObj(t, root, base+"manifest-files.md5")) != b64md5(files) {
		t.Errorf("manifest-files.md5 does not match")
	}
	var pks []string
	var nfiles int
	for _, line := range strings.Split(strings.TrimSpace(string(files)), "\n") {
		var f struct {
			ItemCount     int    `json:"itemCount"`
			MD5Checksum   string `json:"md5Checksum"`
			ETag          string `json:"etag"`
			DataFileS3Key string `json:"dataFileS3Key"`
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		nfiles++
		gz := readObj(t, root, f.DataFileS3Key)
		if f.MD5Checksum != b64md5(gz) || objstore.ETag(gz) != `"`+f.ETag+`"` || !strings.HasPrefix(f.DataFileS3Key, base+"data/") ||
			!strings.HasSuffix(f.DataFileS3Key, ".json.gz") {
			t.Errorf("manifest line %s", line)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(zr)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != f.ItemCount {
			t.Errorf("%s: %d lines, itemCount %d", f.DataFileS3Key, len(lines), f.ItemCount)
		}
		for _, l := range lines {
			var w struct{ Item json.RawMessage }
			if err := json.Unmarshal([]byte(l), &w); err != nil {
				t.Fatal(err)
			}
			it, err := av.DecodeItemJSON(w.Item)
			if err != nil {
				t.Fatal(err)
			}
			if it["ss"].Type != av.TypeSS || it["b"].Type != av.TypeB || it["m"].M["l"].L[0].Type != av.TypeNULL {
				t.Errorf("item %s", l)
			}
			pks = append(pks, it["pk"].S+"/"+it["sk"].S)
		}
	}
	sort.Strings(pks)
	if nfiles != 3 || len(pks) != 10 {
		t.Errorf("%d files, %d items: %v", nfiles, len(pks), pks)
	}
}

func TestExportMissingBucketFails(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	arn := exTable(t, c, "extbl", 1)
	out, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("nobucket")})
	if err != nil {
		t.Fatal(err)
	}
	emulator.WaitExports(s.Engine())
	got, err := c.DescribeExport(t.Context(), &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
	if err != nil {
		t.Fatal(err)
	}
	d := got.ExportDescription
	if d.ExportStatus != types.ExportStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" ||
		!strings.Contains(aws.ToString(d.FailureMessage), "The specified bucket does not exist") || d.ItemCount != nil {
		t.Errorf("%+v", d)
	}
}

func TestExportErrors(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	arn := exTable(t, c, "extbl", 1)
	if _, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{TableName: aws.String("nopitr"),
		AttributeDefinitions: mkDefs("pk", "S"), KeySchema: mkKS("pk", "HASH"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	nopitr := strings.Replace(arn, "table/extbl", "table/nopitr", 1)
	missing := strings.Replace(arn, "table/extbl", "table/nope", 1)
	ctx := t.Context()
	exp := func(in *dynamodb.ExportTableToPointInTimeInput) (*dynamodb.ExportTableToPointInTimeOutput, error) {
		return c.ExportTableToPointInTime(ctx, in)
	}
	_, err := exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &missing, S3Bucket: aws.String("bkt")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: "+missing)
	_, err = exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &nopitr, S3Bucket: aws.String("bkt")})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table 'nopitr'")
	_, err = exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ExportFormat: "CSV"})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'CSV' at 'exportFormat' failed to satisfy constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION]")
	_, err = exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("-bad")})
	wantAPIError(t, err, "ValidationException", `1 validation error detected: Value '-bad' at 's3Bucket' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`)
	_, err = exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ExportTime: aws.Time(time.Now().Add(-time.Hour))})
	wantAPIError(t, err, "InvalidExportTimeException", "Export Time is invalid")
	_, err = exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ExportType: types.ExportTypeIncrementalExport,
		IncrementalExportSpecification: &types.IncrementalExportSpecification{ExportFromTime: aws.Time(time.Now().Add(-time.Hour)), ExportToTime: aws.Time(time.Now())}})
	wantAPIError(t, err, "InvalidExportTimeException", "Export Time is invalid")

	// ClientToken: the same request answers the same export; a changed one
	// is a conflict.
	first, err := exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ClientToken: aws.String("tok")})
	if err != nil {
		t.Fatal(err)
	}
	again, err := exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ClientToken: aws.String("tok")})
	if err != nil || *again.ExportDescription.ExportArn != *first.ExportDescription.ExportArn {
		t.Errorf("retry: %v %v", err, again)
	}
	_, err = exp(&dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ClientToken: aws.String("tok"), ExportFormat: types.ExportFormatIon})
	wantAPIError(t, err, "ExportConflictException", "Duplicate request detected with conflicting parameters")
	emulator.WaitExports(s.Engine())

	_, err = c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn + "/export/01234567890123-a1b2c3d4")})
	wantAPIError(t, err, "ExportNotFoundException", "Export not found: "+arn+"/export/01234567890123-a1b2c3d4")
	_, err = c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn + "/index/abcdefghijklmnopqrstu")})
	wantAPIError(t, err, "ValidationException", "Invalid Export ARN")
	other := strings.Replace(*first.ExportDescription.ExportArn, ":us-east-1:", ":eu-west-1:", 1)
	_, err = c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: &other})
	wantAPIError(t, err, "AccessDeniedException", "Access is denied")
}

func TestListExports(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	a := exTable(t, c, "exa", 1)
	b := exTable(t, c, "exb", 1)
	var want []string
	for _, arn := range []string{a, b, a} {
		out, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt")})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, *out.ExportDescription.ExportArn)
	}
	emulator.WaitExports(s.Engine())
	sort.Sort(sort.Reverse(sort.StringSlice(want)))
	var got []string
	p := dynamodb.NewListExportsPaginator(c, &dynamodb.ListExportsInput{MaxResults: aws.Int32(2)})
	pages := 0
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, e := range page.ExportSummaries {
			if e.ExportStatus != types.ExportStatusCompleted || e.ExportType != types.ExportTypeFullExport {
				t.Errorf("%+v", e)
			}
			got = append(got, *e.ExportArn)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || pages != 2 {
		t.Errorf("got %v in %d pages\nwant %v", got, pages, want)
	}
	out, err := c.ListExports(t.Context(), &dynamodb.ListExportsInput{TableArn: &b})
	if err != nil || len(out.ExportSummaries) != 1 || out.NextToken != nil {
		t.Errorf("TableArn filter: %v %+v", err, out)
	}
	_, err = c.ListExports(t.Context(), &dynamodb.ListExportsInput{MaxResults: aws.Int32(26)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '26' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 25")
}

// TestExportRestartFails: an export cut short by a restart ends FAILED,
// with no manifest written, never COMPLETED with part of the data.
func TestExportRestartFails(t *testing.T) {
	s, root := exServer(t, testserver.WithDataDir(t.TempDir()))
	c := s.Client
	arn := exTable(t, c, "extbl", 10)
	eng := s.Engine()
	emulator.SetExportHooks(eng, 2, func(job string, n int) {
		if n == 1 {
			emulator.CancelJobs(eng)
		}
	})
	out, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt")})
	if err != nil {
		t.Fatal(err)
	}
	emulator.WaitExports(eng)
	s.Restart()
	got, err := s.Client.DescribeExport(t.Context(), &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
	if err != nil {
		t.Fatal(err)
	}
	d := got.ExportDescription
	if d.ExportStatus != types.ExportStatusFailed || d.FailureCode == nil || d.ItemCount != nil || d.ExportManifest != nil {
		t.Errorf("after restart: %+v", d)
	}
	id := (*d.ExportArn)[strings.LastIndexByte(*d.ExportArn, '/')+1:]
	if _, err := os.Stat(filepath.Join(root, "bkt", "AWSDynamoDB", id, "manifest-summary.json")); !os.IsNotExist(err) {
		t.Errorf("a manifest exists: %v", err)
	}
}

// exportLines reads every line of a finished export's data files, through
// its manifest-files.json.
func exportLines(t *testing.T, root string, d *types.ExportDescription) []string {
	t.Helper()
	base := strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json")
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(readObj(t, root, base+"manifest-files.json"))), "\n") {
		var f struct{ DataFileS3Key string }
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(readObj(t, root, f.DataFileS3Key)))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(zr)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// exportedItems reads every item of a finished DYNAMODB_JSON export as
// "pk/sk" → item.
func exportedItems(t *testing.T, root string, d *types.ExportDescription) map[string]av.Item {
	t.Helper()
	got := map[string]av.Item{}
	for _, l := range exportLines(t, root, d) {
		var w struct{ Item json.RawMessage }
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatal(err)
		}
		it, err := av.DecodeItemJSON(w.Item)
		if err != nil {
			t.Fatal(err)
		}
		got[it["pk"].S+"/"+it["sk"].S] = it
	}
	return got
}

// TestExportAtPastTime: an ExportTime in the recovery window exports the
// table as it was then, from the point-in-time history: an item deleted
// since is in, one written since is not, an updated one has its old image.
func TestExportAtPastTime(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	ctx := t.Context()
	arn := exTable(t, c, "extbl", 6)
	time.Sleep(20 * time.Millisecond)
	at := time.Now()
	time.Sleep(20 * time.Millisecond)
	key := func(pk, sk string) mkItem {
		return mkItem{"pk": mkS(pk), "sk": &types.AttributeValueMemberN{Value: sk}}
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("extbl"), Key: key("p0", "0")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("extbl"), Key: key("p1", "1"),
		UpdateExpression: aws.String("SET later = :v"), ExpressionAttributeValues: mkItem{":v": mkS("x")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("extbl"), Item: key("p9", "99")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"), ExportTime: aws.Time(at)})
	if err != nil {
		t.Fatal(err)
	}
	emulator.WaitExports(s.Engine())
	d, err := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
	if err != nil || d.ExportDescription.ExportStatus != types.ExportStatusCompleted {
		t.Fatalf("%+v, %v", d, err)
	}
	got := exportedItems(t, root, d.ExportDescription)
	if len(got) != 6 || aws.ToInt64(d.ExportDescription.ItemCount) != 6 || got["p0/0"] == nil || got["p9/99"] != nil {
		t.Fatalf("exported %d items (ItemCount %d), want the 6 of the export time: %v", len(got), aws.ToInt64(d.ExportDescription.ItemCount), got)
	}
	if _, ok := got["p1/1"]["later"]; ok {
		t.Errorf("p1/1 has the attribute set after the export time: %v", got["p1/1"])
	}
}

// TestIncrementalExport: an INCREMENTAL_EXPORT holds each item written in
// [ExportFromTime, ExportToTime) once, in its final state: an update with
// both images, a delete with Keys and OldImage, an insert with NewImage;
// an item inserted and deleted in the window and writes after it are out.
// NEW_IMAGE leaves OldImage out.
func TestIncrementalExport(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	ctx := t.Context()
	arn := exTable(t, c, "extbl", 3)
	key := func(pk, sk string) mkItem {
		return mkItem{"pk": mkS(pk), "sk": &types.AttributeValueMemberN{Value: sk}}
	}
	time.Sleep(20 * time.Millisecond)
	from := time.Now()
	time.Sleep(20 * time.Millisecond)
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("extbl"), Key: key("p1", "1"),
		UpdateExpression: aws.String("SET later = :v"), ExpressionAttributeValues: mkItem{":v": mkS("x")}}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("extbl"), Key: key("p0", "0")})
			return err
		},
		func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("extbl"), Item: key("p9", "9")})
			return err
		},
		func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("extbl"), Key: key("p9", "9")})
			return err
		},
		func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("extbl"), Item: key("p8", "8")})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(20 * time.Millisecond)
	to := time.Now()
	time.Sleep(20 * time.Millisecond)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("extbl"), Item: key("p7", "7")}); err != nil {
		t.Fatal(err)
	}
	for _, view := range []types.ExportViewType{types.ExportViewTypeNewAndOldImages, types.ExportViewTypeNewImage} {
		out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"),
			ExportType:                     types.ExportTypeIncrementalExport,
			IncrementalExportSpecification: &types.IncrementalExportSpecification{ExportFromTime: aws.Time(from), ExportToTime: aws.Time(to), ExportViewType: view}})
		if err != nil {
			t.Fatal(err)
		}
		emulator.WaitExports(s.Engine())
		d, err := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
		if err != nil || d.ExportDescription.ExportStatus != types.ExportStatusCompleted {
			t.Fatalf("%s: %+v, %v", view, d, err)
		}
		got := map[string]string{}
		for _, l := range exportLines(t, root, d.ExportDescription) {
			var rec map[string]map[string]map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			if rec["Metadata"]["WriteTimestampMicros"]["N"] == nil {
				t.Errorf("%s: no WriteTimestampMicros in %s", view, l)
			}
			var members []string
			for _, m := range []string{"NewImage", "OldImage"} {
				if rec[m] != nil {
					members = append(members, m)
				}
			}
			k := rec["Keys"]
			got[fmt.Sprint(k["pk"]["S"], "/", k["sk"]["N"])] = strings.Join(members, "+")
		}
		want := map[string]string{"p1/1": "NewImage+OldImage", "p0/0": "OldImage", "p8/8": "NewImage"}
		if view == types.ExportViewTypeNewImage {
			want = map[string]string{"p1/1": "NewImage", "p0/0": "", "p8/8": "NewImage"}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || aws.ToInt64(d.ExportDescription.ItemCount) != 3 {
			t.Errorf("%s: lines %v (ItemCount %d), want %v", view, got, aws.ToInt64(d.ExportDescription.ItemCount), want)
		}
	}
}
