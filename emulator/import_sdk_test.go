package emulator_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
	"github.com/klauspost/compress/zstd"
)

// ImportTable from the S3 stand-in (a folder per bucket) through the SDK.

func putObj(t *testing.T, root, key string, data []byte) {
	t.Helper()
	p := filepath.Join(root, "bkt", filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imParams is a table (pk S, sk N) with a GSI on g (S).
func imParams(name string) *types.TableCreationParameters {
	return &types.TableCreationParameters{TableName: aws.String(name),
		AttributeDefinitions: mkDefs("pk", "S", "sk", "N", "g", "S"), KeySchema: mkKS("pk", "HASH", "sk", "RANGE"),
		BillingMode: types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byg"), KeySchema: mkKS("g", "HASH"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}
}

func imWait(t *testing.T, s *testserver.Server, arn *string) *types.ImportTableDescription {
	t.Helper()
	emulator.WaitExports(s.Engine())
	out, err := s.Client.DescribeImport(t.Context(), &dynamodb.DescribeImportInput{ImportArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	return out.ImportTableDescription
}

func tableStatus(t *testing.T, c *dynamodb.Client, name string) types.TableStatus {
	t.Helper()
	out, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return ""
	}
	return out.Table.TableStatus
}

func TestImportDynamoDBJSONGzip(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	a := "{\"Item\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"},\"g\":{\"S\":\"x\"},\"v\":{\"SS\":[\"p\",\"q\"]}}}\n\n" +
		"{\"Item\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"2\"},\"g\":{\"S\":\"x\"}}}\n"
	b := "{\"Item\":{\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"1\"}}}\n{\"Item\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"},\"g\":{\"S\":\"x\"},\"v\":{\"SS\":[\"p\",\"q\"]}}}\n"
	putObj(t, root, "in/a.json.gz", gz(t, a))
	putObj(t, root, "in/sub/b.anything", gz(t, b))
	putObj(t, root, "other/c.json.gz", gz(t, "not json"))
	out, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("in/")},
		InputFormat:    types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: imParams("imported")})
	if err != nil {
		t.Fatal(err)
	}
	d := out.ImportTableDescription
	if d.ImportStatus != types.ImportStatusInProgress || d.EndTime != nil || d.ProcessedSizeBytes != nil || d.FailureCode != nil ||
		d.ProcessedItemCount != 0 || d.ClientToken == nil || d.TableId == nil ||
		!strings.HasSuffix(aws.ToString(d.CloudWatchLogGroupArn), ":log-group:/aws-dynamodb/imports:*") ||
		!strings.HasPrefix(aws.ToString(d.ImportArn), aws.ToString(d.TableArn)+"/import/0") {
		t.Fatalf("first answer %+v", d)
	}
	d2 := imWait(t, s, d.ImportArn)
	if d2.ImportStatus != types.ImportStatusCompleted || d2.ProcessedItemCount != 4 || d2.ImportedItemCount != 4 ||
		d2.ErrorCount != 0 || aws.ToInt64(d2.ProcessedSizeBytes) != int64(len(a)+len(b)) || d2.EndTime == nil ||
		aws.ToString(d2.TableId) != aws.ToString(d.TableId) {
		t.Fatalf("end %+v", d2)
	}
	if st := tableStatus(t, c, "imported"); st != types.TableStatusActive {
		t.Errorf("table %s", st)
	}
	q, err := c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("imported"), IndexName: aws.String("byg"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: mkItem{":g": mkS("x")}})
	if err != nil || q.Count != 2 {
		t.Errorf("GSI query: %v %v", err, q)
	}
	dt, _ := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("imported")})
	if aws.ToInt64(dt.Table.ItemCount) != 3 {
		t.Errorf("ItemCount %d", aws.ToInt64(dt.Table.ItemCount))
	}
}

func TestImportBadItemsFail(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	// Object 1: a good item, an item without the sort key (abandons the
	// rest: the third item is not read), object 2: broken JSON after a
	// good item, object 3: a line without Item.
	putObj(t, root, "in/1", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}
{"Item":{"pk":{"S":"a"}}}
{"Item":{"pk":{"S":"a"},"sk":{"N":"3"}}}
`))
	putObj(t, root, "in/2", []byte("{\"Item\":{\"pk\":{\"S\":\"b\"},\"sk\":{\"N\":\"1\"}}}\n{\"Item\":{\"pk\":\n"))
	putObj(t, root, "in/3", []byte(`{"Stuff":{"pk":{"S":"c"},"sk":{"N":"1"}}}`))
	out, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("in/")},
		InputFormat:    types.InputFormatDynamodbJson, TableCreationParameters: imParams("imbad")})
	if err != nil {
		t.Fatal(err)
	}
	d := imWait(t, s, out.ImportTableDescription.ImportArn)
	if d.ImportStatus != types.ImportStatusFailed || aws.ToString(d.FailureCode) != "ItemValidationError" ||
		aws.ToString(d.FailureMessage) != "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details." ||
		d.ProcessedItemCount != 5 || d.ImportedItemCount != 2 || d.ErrorCount != 3 ||
		d.InputCompressionType != types.InputCompressionTypeNone {
		t.Errorf("%+v", d)
	}
	if st := tableStatus(t, c, "imbad"); st != types.TableStatusActive {
		t.Errorf("the table is kept ACTIVE with the valid items: %s", st)
	}
	// The error log (CloudWatch's stand-in): one record per error.
	resp, err := http.Get(s.URL + wire.ImportErrorsPath + "?arn=" + url.QueryEscape(*d.ImportArn))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log struct {
		Records []struct {
			ItemS3Pointer struct {
				Bucket, Key string
				ItemIndex   int
			}
			ImportArn     string
			ErrorMessages []string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil || resp.StatusCode != 200 || len(log.Records) != 3 {
		t.Fatalf("error log: %d %v %+v", resp.StatusCode, err, log)
	}
	r := log.Records[0]
	if r.ItemS3Pointer.Bucket != "bkt" || r.ItemS3Pointer.Key != "in/1" || r.ItemS3Pointer.ItemIndex != 1 || r.ImportArn != *d.ImportArn ||
		len(r.ErrorMessages) != 1 || r.ErrorMessages[0] != "One or more parameter values were invalid: Missing the key sk in the item" {
		t.Errorf("first record %+v", r)
	}
	if k := log.Records[1].ItemS3Pointer; k.Key != "in/2" || k.ItemIndex != 1 {
		t.Errorf("second record %+v", log.Records[1])
	}
	resp2, err := http.Get(s.URL + wire.ImportErrorsPath + "?arn=" + url.QueryEscape(*d.ImportArn+"0"))
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusNotFound {
		t.Errorf("unknown import: %d", resp2.StatusCode)
	}
}

func TestImportMissingBucketNoTable(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	out, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("nobucket")},
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imnobucket")})
	if err != nil {
		t.Fatal(err)
	}
	d := imWait(t, s, out.ImportTableDescription.ImportArn)
	if d.ImportStatus != types.ImportStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" {
		t.Errorf("%+v", d)
	}
	if st := tableStatus(t, c, "imnobucket"); st != "" {
		t.Errorf("a table was left: %s", st)
	}
	// A prefix matching nothing completes with an empty table.
	out, err = c.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("none/")},
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imempty")})
	if err != nil {
		t.Fatal(err)
	}
	if d := imWait(t, s, out.ImportTableDescription.ImportArn); d.ImportStatus != types.ImportStatusCompleted || tableStatus(t, c, "imempty") != types.TableStatusActive {
		t.Errorf("%+v", d)
	}
}

func TestImportCSVAndZstd(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	zw, _ := zstd.NewWriter(nil)
	putObj(t, root, "csv/h.csv.zst", zw.EncodeAll([]byte("pk;sk;g;note\na;1;x;hello\na;2;;\n"), nil))
	out, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("csv/")},
		InputFormat: types.InputFormatCsv, InputCompressionType: types.InputCompressionTypeZstd,
		InputFormatOptions:      &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String(";")}},
		TableCreationParameters: imParams("imcsv")})
	if err != nil {
		t.Fatal(err)
	}
	if d := imWait(t, s, out.ImportTableDescription.ImportArn); d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 2 {
		t.Fatalf("%+v", d)
	}
	got, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("imcsv"), Key: mkItem{"pk": mkS("a"), "sk": &types.AttributeValueMemberN{Value: "1"}}})
	if err != nil || got.Item["note"].(*types.AttributeValueMemberS).Value != "hello" {
		t.Errorf("%v %v", err, got)
	}
	// HeaderList: every line is data; a row of the wrong width is an error.
	putObj(t, root, "csv2/a.csv", []byte("b,5,y\nb,6\nb,7,y\n"))
	out, err = c.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("csv2/")},
		InputFormat:             types.InputFormatCsv,
		InputFormatOptions:      &types.InputFormatOptions{Csv: &types.CsvOptions{HeaderList: []string{"pk", "sk", "g"}}},
		TableCreationParameters: imParams("imcsv2")})
	if err != nil {
		t.Fatal(err)
	}
	if d := imWait(t, s, out.ImportTableDescription.ImportArn); d.ImportStatus != types.ImportStatusFailed || d.ImportedItemCount != 1 || d.ErrorCount != 1 {
		t.Fatalf("%+v", d)
	}
}

func TestImportION(t *testing.T) {
	s, root := exServer(t)
	putObj(t, root, "ion/a.ion", []byte(`$ion_1_0 {Item:{pk:"a",sk:1.,g:"x",n:2d1,ss:$dynamodb_SS::["p","q"],b:{{aGk=}}}}
$ion_1_0 {Item:{pk:"a",sk:2.}}
`))
	out, err := s.Client.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("ion/")},
		InputFormat: types.InputFormatIon, TableCreationParameters: imParams("imion")})
	if err != nil {
		t.Fatal(err)
	}
	if d := imWait(t, s, out.ImportTableDescription.ImportArn); d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 2 {
		t.Fatalf("%+v", d)
	}
	got, err := s.Client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("imion"), Key: mkItem{"pk": mkS("a"), "sk": &types.AttributeValueMemberN{Value: "1"}}})
	if err != nil || got.Item["n"].(*types.AttributeValueMemberN).Value != "20" || string(got.Item["b"].(*types.AttributeValueMemberB).Value) != "hi" {
		t.Errorf("%v %v", err, got)
	}
}

func TestImportErrors(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	ctx := t.Context()
	src := &types.S3BucketSource{S3Bucket: aws.String("bkt")}
	first, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{ClientToken: aws.String("tok"), S3BucketSource: src,
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imerr")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{ClientToken: aws.String("tok"), S3BucketSource: src,
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imerr2")})
	wantAPIError(t, err, "ImportConflictException", "Duplicate request detected with conflicting parameters")
	emulator.WaitExports(s.Engine())
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{ClientToken: aws.String("tok"), S3BucketSource: src,
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imerr")})
	wantAPIError(t, err, "ResourceInUseException", "Table already exists: imerr")
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{S3BucketSource: src, InputFormat: types.InputFormatDynamodbJson,
		InputFormatOptions:      &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String(",")}},
		TableCreationParameters: imParams("imerr3")})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: InputFormatOptions with CSV options is only supported for CSV input format")
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{S3BucketSource: src, InputFormat: "XML", TableCreationParameters: imParams("imerr3")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'XML' at 'inputFormat' failed to satisfy constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION, CSV]")

	arn := *first.ImportTableDescription.ImportArn
	// Another last character, so the ARN names no import whatever it ends in.
	other := arn[:len(arn)-1] + "0"
	if other == arn {
		other = arn[:len(arn)-1] + "1"
	}
	_, err = c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: aws.String(other)})
	wantAPIError(t, err, "ImportNotFoundException", "Import not found: "+other)
	bad := strings.Replace(arn, "/import/", "/imports/", 1)
	_, err = c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: &bad})
	wantAPIError(t, err, "ValidationException", "Invalid importArn: "+bad)
	_, err = c.ListImports(ctx, &dynamodb.ListImportsInput{PageSize: aws.Int32(26)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '26' at 'pageSize' failed to satisfy constraint: Member must have value less than or equal to 25")
}

func TestListImports(t *testing.T) {
	s, _ := exServer(t)
	c := s.Client
	var want []string
	for i := range 3 {
		out, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt")},
			InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams(fmt.Sprintf("imlist%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, *out.ImportTableDescription.ImportArn)
	}
	emulator.WaitExports(s.Engine())
	sort.Sort(sort.Reverse(sort.StringSlice(want)))
	var got []string
	p := dynamodb.NewListImportsPaginator(c, &dynamodb.ListImportsInput{PageSize: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.ImportSummaryList {
			if e.ImportStatus != types.ImportStatusCompleted || e.InputFormat != types.InputFormatDynamodbJson || e.EndTime == nil {
				t.Errorf("%+v", e)
			}
			got = append(got, *e.ImportArn)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v\nwant %v", got, want)
	}
	tbl := strings.SplitN(want[0], "/import/", 2)[0]
	out, err := c.ListImports(t.Context(), &dynamodb.ListImportsInput{TableArn: &tbl})
	if err != nil || len(out.ImportSummaryList) != 1 {
		t.Errorf("TableArn filter: %v %+v", err, out)
	}
}

// TestImportRestartResumes: an import cut short by a restart runs again at
// the next start and completes with every item; the table is CREATING, not
// ACTIVE, in between.
func TestImportRestartResumes(t *testing.T) {
	s, root := exServer(t, testserver.WithDataDir(t.TempDir()))
	for i := range 3 {
		putObj(t, root, fmt.Sprintf("in/%d", i), []byte(fmt.Sprintf("{\"Item\":{\"pk\":{\"S\":\"p%d\"},\"sk\":{\"N\":\"1\"}}}\n{\"Item\":{\"pk\":{\"S\":\"p%d\"},\"sk\":{\"N\":\"2\"}}}\n", i, i)))
	}
	eng := s.Engine()
	emulator.SetExportHooks(eng, 0, func(job string, n int) {
		if n == 1 {
			emulator.CancelJobs(eng)
		}
	})
	out, err := s.Client.ImportTable(t.Context(), &dynamodb.ImportTableInput{S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("in/")},
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imrestart")})
	if err != nil {
		t.Fatal(err)
	}
	emulator.WaitExports(eng)
	if st := tableStatus(t, s.Client, "imrestart"); st != types.TableStatusCreating {
		t.Fatalf("cut short: table %s", st)
	}
	s.Restart()
	d := imWait(t, s, out.ImportTableDescription.ImportArn)
	if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 6 || d.ProcessedItemCount != 6 {
		t.Errorf("%+v", d)
	}
	dt, err := s.Client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("imrestart")})
	if err != nil || dt.Table.TableStatus != types.TableStatusActive || aws.ToInt64(dt.Table.ItemCount) != 6 {
		t.Errorf("%v %+v", err, dt)
	}
}

// TestImportTokenRetryWhileRunning: the same ClientToken and table with
// another source, while the import runs, answers the original import.
func TestImportTokenRetryWhileRunning(t *testing.T) {
	s, root := exServer(t)
	putObj(t, root, "in/a", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`))
	release := make(chan struct{})
	emulator.SetExportHooks(s.Engine(), 0, func(string, int) { <-release })
	in := &dynamodb.ImportTableInput{ClientToken: aws.String("tok"), S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("in/")},
		InputFormat: types.InputFormatDynamodbJson, TableCreationParameters: imParams("imretry")}
	first, err := s.Client.ImportTable(t.Context(), in)
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	in.S3BucketSource.S3KeyPrefix = aws.String("other/")
	in.InputFormat = types.InputFormatCsv
	again, err := s.Client.ImportTable(t.Context(), in)
	close(release)
	if err != nil || *again.ImportTableDescription.ImportArn != *first.ImportTableDescription.ImportArn ||
		aws.ToString(again.ImportTableDescription.S3BucketSource.S3KeyPrefix) != "in/" {
		t.Errorf("retry: %v %+v", err, again)
	}
	if d := imWait(t, s, first.ImportTableDescription.ImportArn); d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 1 {
		t.Errorf("%+v", d)
	}
}
