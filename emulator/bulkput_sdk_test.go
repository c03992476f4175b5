package emulator_test

import (
	"encoding/json"
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
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/klauspost/compress/zstd"
)

// StartBulkPutItems, DescribeBulkOperation, ListBulkOperations and
// CancelBulkOperation through the SDK, against the S3 stand-in (a folder
// per bucket).

// bpTable creates table name (pk S, sk N) with a GSI on g and an LSI on l.
func bpTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: mkDefs("pk", "S", "sk", "N", "g", "S", "l", "S"), KeySchema: mkKS("pk", "HASH", "sk", "RANGE"),
		BillingMode: types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byg"), KeySchema: mkKS("g", "HASH"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byl"), KeySchema: mkKS("pk", "HASH", "l", "RANGE"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
}

func bpStart(t *testing.T, c *dynamodb.Client, in *dynamodb.StartBulkPutItemsInput) *types.BulkOperationDescription {
	t.Helper()
	out, err := c.StartBulkPutItems(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out.BulkOperationDescription
}

func bpInput(table, prefix string, comp types.InputCompressionType) *dynamodb.StartBulkPutItemsInput {
	return &dynamodb.StartBulkPutItemsInput{TableName: aws.String(table),
		InputS3Configuration: &types.InputS3Configuration{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String(prefix),
			InputFormat: types.BulkOperationInputFormatDynamodbJson, InputCompressionType: comp},
		OutputS3Configuration: &types.OutputS3Configuration{S3Bucket: aws.String("bkt"), S3KeyPrefix: aws.String("out"),
			OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError, types.OutputTypeEnumConditionCheckFailure}}}
}

func bpWait(t *testing.T, s *testserver.Server, arn *string) *types.BulkOperationDescription {
	t.Helper()
	emulator.WaitBulk(s.Engine())
	out, err := s.Client.DescribeBulkOperation(t.Context(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	return out.BulkOperationDescription
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// readLines reads the JSON lines of every object under dir of the bucket.
func readLines(t *testing.T, root, dir string) []map[string]any {
	t.Helper()
	var out []map[string]any
	files, _ := filepath.Glob(filepath.Join(root, "bkt", filepath.FromSlash(dir), "data-*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: %q: %v", f, l, err)
			}
			out = append(out, m)
		}
	}
	return out
}

const bpLines = `{"Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"x"},"l":{"S":"l1"},"v":{"S":"new"}}}
{"Item":{"pk":{"S":"b"},"sk":{"N":"1"},"g":{"S":"x"}},"ConditionExpression":"attribute_not_exists(pk)"}
{"Item":{"pk":{"S":"kept"},"sk":{"N":"1"},"v":{"S":"replaced?"}},"ConditionExpression":"attribute_not_exists(pk)"}
not json
{"Item":{"sk":{"N":"2"}}}
{"Item":{"pk":{"N":"5"},"sk":{"N":"2"}}}
{"Item":{"pk":{"S":"c"},"sk":{"N":"1"},"v":{"N":"1"}},"ConditionExpression":"#v = :v","ExpressionAttributeNames":{"#v":"v"},"ExpressionAttributeValues":{":v":{"N":"7"}}}
`

func TestBulkPutGzipPrefixReportsAndCounts(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("bpt"),
		Item: mkItem{"pk": mkS("kept"), "sk": mkN("1"), "v": mkS("old")}}); err != nil {
		t.Fatal(err)
	}
	second := `{"Item":{"pk":{"S":"d"},"sk":{"N":"1"},"g":{"S":"y"}}}` + "\n" + `{"Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"again"}}}` + "\n"
	putObj(t, root, "in/a.json.gz", gz(t, bpLines))
	putObj(t, root, "in/sub/b.gz", gz(t, second))
	putObj(t, root, "other/c.json.gz", gz(t, "not json"))
	total := int64(len(gz(t, bpLines)) + len(gz(t, second)))
	in := bpInput("bpt", "in/", types.InputCompressionTypeGzip)
	d := bpStart(t, c, in)
	if d.BulkOperationStatus != types.BulkOperationStatusInProgress || d.EndTime != nil || d.StartTime == nil ||
		!strings.HasPrefix(aws.ToString(d.BulkOperationArn), "arn:aws:dynamodb:us-east-1:") ||
		!strings.Contains(aws.ToString(d.BulkOperationArn), ":table/bpt/bulk-operation/") ||
		d.PerformanceTier != types.BulkOperationPerformanceTierStandard || d.ClientToken == nil || len(d.TableDetails) != 1 {
		t.Fatalf("first answer %+v", d)
	}
	d = bpWait(t, s, d.BulkOperationArn)
	// Processed: 7 + 2 records; failed: not json, no key, mistyped key.
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 9 ||
		d.FailedItemCount != 3 || d.EndTime == nil || aws.ToInt64(d.TotalInputBytes) != total ||
		aws.ToInt64(d.ProcessedInputBytes) != total || d.FailureCode != nil {
		t.Fatalf("end %+v", d)
	}
	if len(d.BulkOperationUsage) != 1 || aws.ToInt64(d.BulkOperationUsage[0].Table.BulkPutBytes) == 0 ||
		aws.ToInt64(d.BulkOperationUsage[0].GlobalSecondaryIndexes["byg"].BulkPutBytes) == 0 ||
		aws.ToInt64(d.BulkOperationUsage[0].LocalSecondaryIndexes["byl"].BulkPutBytes) == 0 {
		t.Errorf("usage %+v", d.BulkOperationUsage)
	}
	get := func(pk string) mkItem {
		out, err := c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("bpt"), Key: mkItem{"pk": mkS(pk), "sk": mkN("1")}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	if v := get("a")["v"].(*types.AttributeValueMemberS).Value; v != "again" {
		t.Errorf("a.v = %s, want the later record's", v)
	}
	if v := get("kept")["v"].(*types.AttributeValueMemberS).Value; v != "old" {
		t.Errorf("kept.v = %s: a failed condition wrote", v)
	}
	if get("b") == nil || get("d") == nil || get("c") != nil {
		t.Error("b and d written, c (condition on a missing item) not")
	}
	q, err := c.Query(t.Context(), &dynamodb.QueryInput{TableName: aws.String("bpt"), IndexName: aws.String("byg"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: mkItem{":g": mkS("x")}})
	if err != nil || q.Count != 1 { // a was rewritten without g
		t.Errorf("GSI query: %v %v", err, q)
	}
	base := "out/AWSDynamoDB/BulkPut/" + (*d.BulkOperationArn)[strings.LastIndex(*d.BulkOperationArn, "/")+1:] + "/"
	errs := readLines(t, root, base+"ERROR")
	if len(errs) != 3 || errs[0]["record"] != "not json" || errs[0]["objectKey"] != "in/a.json.gz" || errs[0]["recordIndex"] != 3.0 ||
		errs[1]["errorCode"] != "ValidationException" || !strings.Contains(fmt.Sprint(errs[2]["errorMessage"]), "key") {
		t.Errorf("ERROR report %v", errs)
	}
	ccf := readLines(t, root, base+"CONDITION_CHECK_FAILURE")
	if len(ccf) != 2 || ccf[0]["existingItem"] == nil || ccf[1]["existingItem"] != nil || ccf[0]["item"] == nil {
		t.Errorf("CONDITION_CHECK_FAILURE report %v", ccf)
	}
	var manifest struct {
		Status      string `json:"status"`
		OutputFiles []struct {
			OutputType string `json:"outputType"`
			ItemCount  int    `json:"itemCount"`
		} `json:"outputFiles"`
	}
	b, err := os.ReadFile(filepath.Join(root, "bkt", filepath.FromSlash(base), "manifest-summary.json"))
	if err != nil || json.Unmarshal(b, &manifest) != nil || manifest.Status != "COMPLETED_WITH_ERRORS" || len(manifest.OutputFiles) != 2 {
		t.Errorf("manifest %s %v", b, err)
	}
}

func TestBulkPutNoneOneObjectConditionFailureCompleted(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("bpt"),
		Item: mkItem{"pk": mkS("a"), "sk": mkN("1")}}); err != nil {
		t.Fatal(err)
	}
	body := `{"Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"x"}},"ConditionExpression":"attribute_not_exists(pk)"}` + "\n" +
		`{"Item":{"pk":{"S":"b"},"sk":{"N":"1"}}}` + "\n"
	putObj(t, root, "one.json", []byte(body))
	in := bpInput("bpt", "one.json", types.InputCompressionTypeNone)
	in.OutputS3Configuration.OutputType = []types.OutputTypeEnum{types.OutputTypeEnumError}
	in.InputS3Configuration.S3KeyPrefix = aws.String("one.json")
	d := bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 2 || d.FailedItemCount != 0 {
		t.Fatalf("end %+v", d)
	}
	base := "out/AWSDynamoDB/BulkPut/" + (*d.BulkOperationArn)[strings.LastIndex(*d.BulkOperationArn, "/")+1:] + "/"
	if _, err := os.Stat(filepath.Join(root, "bkt", filepath.FromSlash(base), "CONDITION_CHECK_FAILURE")); err == nil {
		t.Error("a CONDITION_CHECK_FAILURE report that was not asked for")
	}
	// The stream sees the bulk put's write as any write, and nothing of
	// the record whose condition failed.
	if ev := streamEvents(t, s, "bpt"); len(ev) != 2 || ev[0] != "INSERT a" || ev[1] != "INSERT b" {
		t.Errorf("stream records %v", ev)
	}
}

// streamEvents lists the stream records of table name as "EVENT pk".
func streamEvents(t *testing.T, s *testserver.Server, name string) []string {
	t.Helper()
	ctx := t.Context()
	st := dynamodbstreams.NewFromConfig(s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID))
	d, err := s.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, sh := range ds.StreamDescription.Shards {
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs.Records {
			events = append(events, string(r.EventName)+" "+r.Dynamodb.Keys["pk"].(*sttypes.AttributeValueMemberS).Value)
		}
	}
	return events
}

func TestBulkPutZstdAndIon(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	enc, _ := zstd.NewWriter(nil)
	putObj(t, root, "z/a.json.zst", enc.EncodeAll([]byte(`{"Item":{"pk":{"S":"z"},"sk":{"N":"1"}}}`+"\n"), nil))
	in := bpInput("bpt", "z/", types.InputCompressionTypeZstd)
	d := bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 1 {
		t.Fatalf("zstd %+v", d)
	}
	putObj(t, root, "i/a.ion", []byte(`$ion_1_0 {Item:{pk:"i",sk:1.}} {Item:{pk:"j",sk:2.},ConditionExpression:"attribute_not_exists(pk)"}`))
	in = bpInput("bpt", "i/", types.InputCompressionTypeNone)
	in.InputS3Configuration.InputFormat = types.BulkOperationInputFormatIon
	d = bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 2 {
		t.Fatalf("ion %+v", d)
	}
	out, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("bpt")})
	if err != nil || out.Count != 3 {
		t.Fatalf("scan %v %v", err, out)
	}
}

func TestBulkPutFailed(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	putObj(t, root, "in/a.json", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`))
	for _, tc := range []struct {
		name string
		set  func(in *dynamodb.StartBulkPutItemsInput)
		code string
	}{
		{"no objects", func(in *dynamodb.StartBulkPutItemsInput) { in.InputS3Configuration.S3KeyPrefix = aws.String("none/") }, "S3NoSuchKey"},
		{"no input bucket", func(in *dynamodb.StartBulkPutItemsInput) { in.InputS3Configuration.S3Bucket = aws.String("nobucket") }, "S3NoSuchBucket"},
		{"no output bucket", func(in *dynamodb.StartBulkPutItemsInput) { in.OutputS3Configuration.S3Bucket = aws.String("nobucket") }, "S3NoSuchBucket"},
	} {
		in := bpInput("bpt", "in/", types.InputCompressionTypeNone)
		tc.set(in)
		d := bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
		if d.BulkOperationStatus != types.BulkOperationStatusFailed || aws.ToString(d.FailureCode) != tc.code ||
			aws.ToString(d.FailureMessage) == "" || d.EndTime == nil {
			t.Errorf("%s: %+v", tc.name, d)
		}
	}
}

func TestBulkPutClientToken(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	putObj(t, root, "in/a.json", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`))
	in := bpInput("bpt", "in/", types.InputCompressionTypeNone)
	in.ClientToken = aws.String("tok")
	a := bpStart(t, c, in)
	b := bpStart(t, c, in)
	if aws.ToString(a.BulkOperationArn) != aws.ToString(b.BulkOperationArn) || aws.ToString(b.ClientToken) != "tok" {
		t.Fatalf("repeat: %v %v", aws.ToString(a.BulkOperationArn), aws.ToString(b.BulkOperationArn))
	}
	in.MaxWriteRequestUnits = aws.Int64(2048)
	_, err := c.StartBulkPutItems(t.Context(), in)
	if apiCode(err) != "IdempotentParameterMismatchException" {
		t.Fatalf("changed request: %v", err)
	}
	in.ClientToken = aws.String("other")
	if d := bpStart(t, c, in); aws.ToString(d.BulkOperationArn) == aws.ToString(a.BulkOperationArn) || aws.ToInt64(d.MaxWriteRequestUnits) != 2048 {
		t.Fatalf("new token: %+v", d)
	}
	emulator.WaitBulk(s.Engine())
}

func TestBulkPutValidationAndRestrictions(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	putObj(t, root, "in/a.json", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`))
	check := func(name string, err error, code string) {
		t.Helper()
		if apiCode(err) != code {
			t.Errorf("%s: %v, want %s", name, err, code)
		}
	}
	in := bpInput("bpt", "in/", types.InputCompressionTypeNone)
	in.MaxWriteRequestUnits = aws.Int64(1023)
	_, err := c.StartBulkPutItems(t.Context(), in)
	check("MaxWriteRequestUnits 1023", err, "ValidationException")
	in = bpInput("nope", "in/", types.InputCompressionTypeNone)
	_, err = c.StartBulkPutItems(t.Context(), in)
	check("missing table", err, "ResourceNotFoundException")
	in = bpInput("bpt", "in/", types.InputCompressionTypeNone)
	in.InputS3Configuration.InputFormat = "CSV"
	_, err = c.StartBulkPutItems(t.Context(), in)
	check("CSV", err, "ValidationException")
	_, err = c.DescribeBulkOperation(t.Context(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/bpt/import/01")})
	check("describe a malformed ARN", err, "ValidationException")
	_, err = c.DescribeBulkOperation(t.Context(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/bpt/bulk-operation/01")})
	check("describe an unknown operation", err, "ResourceNotFoundException")
	_, err = c.CancelBulkOperation(t.Context(), &dynamodb.CancelBulkOperationInput{BulkOperationArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/bpt/bulk-operation/01")})
	check("cancel an unknown operation", err, "ResourceNotFoundException")
	_, err = c.ListBulkOperations(t.Context(), &dynamodb.ListBulkOperationsInput{NextToken: aws.String("xyz")})
	check("list with a bad token", err, "ValidationException")

	// A global table.
	if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("bpt"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.StartBulkPutItems(t.Context(), bpInput("bpt", "in/", types.InputCompressionTypeNone))
	check("global table", err, "ValidationException")

	// An index being created.
	s2, _ := exServer(t, testserver.WithTransitionDelay(time.Hour))
	_, err = s2.Client.CreateTable(t.Context(), &dynamodb.CreateTableInput{TableName: aws.String("slow"),
		AttributeDefinitions: mkDefs("pk", "S"), KeySchema: mkKS("pk", "HASH"), BillingMode: types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s2.Client.StartBulkPutItems(t.Context(), bpInput("slow", "in/", types.InputCompressionTypeNone))
	check("CREATING table", err, "ResourceInUseException")

	// Shapes.
	in = bpInput("bpt", "in/", types.InputCompressionTypeNone)
	in.OutputS3Configuration.S3SseKmsKeyId = aws.String("key")
	_, err = c.StartBulkPutItems(t.Context(), in)
	check("a KMS key without KMS", err, "ValidationException")
	_, err = c.DescribeBulkOperation(t.Context(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String("arn:short")})
	check("a short ARN", err, "ValidationException")
	_, err = c.ListBulkOperations(t.Context(), &dynamodb.ListBulkOperationsInput{MaxResults: aws.Int32(26)})
	check("MaxResults 26", err, "ValidationException")
}

// TestBulkPutIndexBeingCreated: no bulk put while a GSI is created.
func TestBulkPutIndexBeingCreated(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	putObj(t, root, "in/a.json", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`))
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"1"},"h":{"S":"x"}}}`+"\n", i)
	}
	putObj(t, root, "big/a.json", []byte(big.String()))
	d := bpWait(t, s, bpStart(t, c, bpInput("bpt", "big/", types.InputCompressionTypeNone)).BulkOperationArn)
	if d.ProcessedItemCount != 3000 {
		t.Fatalf("load %+v", d)
	}
	if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("bpt"),
		AttributeDefinitions: mkDefs("h", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byh"),
			KeySchema: mkKS("h", "HASH"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}}); err != nil {
		t.Fatal(err)
	}
	dt, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("bpt")})
	if err != nil {
		t.Fatal(err)
	}
	creating := false
	for _, g := range dt.Table.GlobalSecondaryIndexes {
		creating = creating || aws.ToString(g.IndexName) == "byh" && g.IndexStatus == types.IndexStatusCreating
	}
	_, err = c.StartBulkPutItems(t.Context(), bpInput("bpt", "in/", types.InputCompressionTypeNone))
	if creating && apiCode(err) != "ResourceInUseException" {
		t.Errorf("while the index is CREATING: %v", err)
	}
	if !creating && err != nil {
		t.Errorf("the index was ACTIVE already: %v", err)
	}
	if !creating {
		t.Log("the backfill ended before the check")
	}
	emulator.WaitBulk(s.Engine())
}

// TestBulkPutBadObjects: an object that does not decompress, an item over
// 400 KB and an Ion value that does not parse are ERROR records; the
// operation ends COMPLETED_WITH_ERRORS with the rest written.
func TestBulkPutBadObjects(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	putObj(t, root, "g/a.gz", []byte("not gzip at all"))
	putObj(t, root, "g/b.gz", gz(t, `{"Item":{"pk":{"S":"big"},"sk":{"N":"1"},"v":{"S":"`+strings.Repeat("x", 410*1024)+`"}}}`+"\n"+
		`{"Item":{"pk":{"S":"ok"},"sk":{"N":"1"}}}`+"\n"))
	d := bpWait(t, s, bpStart(t, c, bpInput("bpt", "g/", types.InputCompressionTypeGzip)).BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 3 || d.FailedItemCount != 2 {
		t.Fatalf("gzip %+v", d)
	}
	putObj(t, root, "i/a.ion", []byte(`{Item:{pk:"i",sk:1.}} {Item:{pk:"j",sk:2.}} {Item:{pk: `))
	in := bpInput("bpt", "i/", types.InputCompressionTypeNone)
	in.InputS3Configuration.InputFormat = types.BulkOperationInputFormatIon
	d = bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 3 || d.FailedItemCount != 1 {
		t.Fatalf("ion %+v", d)
	}
	out, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("bpt")})
	if err != nil || out.Count != 3 {
		t.Fatalf("scan %v %v", err, out)
	}
}

// bpBlocker holds a job after its first commit until released.
type bpBlocker struct {
	once    sync.Once
	reached chan struct{}
	release chan struct{}
}

func newBlocker(e *emulator.Engine) *bpBlocker {
	b := &bpBlocker{reached: make(chan struct{}), release: make(chan struct{})}
	emulator.SetBulkHooks(e, 2, func(int64) {
		b.once.Do(func() {
			close(b.reached)
			<-b.release
		})
	})
	return b
}

func TestBulkPutCancelAndReplicaRefused(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	var lines strings.Builder
	for i := range 10 {
		fmt.Fprintf(&lines, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"1"}}}`+"\n", i)
	}
	putObj(t, root, "in/a.json", []byte(lines.String()))
	blk := newBlocker(s.Engine())
	d := bpStart(t, c, bpInput("bpt", "in/", types.InputCompressionTypeNone))
	<-blk.reached
	_, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("bpt"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}})
	if apiCode(err) != "ResourceInUseException" {
		t.Errorf("replica added during a bulk operation: %v", err)
	}
	out, err := c.CancelBulkOperation(t.Context(), &dynamodb.CancelBulkOperationInput{BulkOperationArn: d.BulkOperationArn})
	if err != nil || out.BulkOperationStatus != types.BulkOperationStatusCancelling || aws.ToString(out.BulkOperationArn) != aws.ToString(d.BulkOperationArn) {
		t.Fatalf("cancel: %v %+v", err, out)
	}
	dd, err := c.DescribeBulkOperation(t.Context(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: d.BulkOperationArn})
	if err != nil || dd.BulkOperationDescription.BulkOperationStatus != types.BulkOperationStatusCancelling || dd.BulkOperationDescription.EndTime != nil {
		t.Fatalf("describe while cancelling: %v %+v", err, dd)
	}
	close(blk.release)
	end := bpWait(t, s, d.BulkOperationArn)
	if end.BulkOperationStatus != types.BulkOperationStatusCancelled || end.ProcessedItemCount != 2 || end.EndTime == nil {
		t.Fatalf("end %+v", end)
	}
	scan, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("bpt")})
	if err != nil || scan.Count != 2 {
		t.Fatalf("written items kept: %v %v", err, scan)
	}
	if _, err := c.CancelBulkOperation(t.Context(), &dynamodb.CancelBulkOperationInput{BulkOperationArn: d.BulkOperationArn}); apiCode(err) != "ValidationException" {
		t.Errorf("cancel a cancelled operation: %v", err)
	}
	if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("bpt"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Errorf("replica after the bulk operation: %v", err)
	}
}

func TestBulkPutListNewestFirstPaged(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	putObj(t, root, "in/a.json", []byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`))
	var arns []string
	for range 5 {
		arns = append(arns, aws.ToString(bpStart(t, c, bpInput("bpt", "in/", types.InputCompressionTypeNone)).BulkOperationArn))
		time.Sleep(2 * time.Millisecond)
	}
	emulator.WaitBulk(s.Engine())
	var got []string
	var tok *string
	pages := 0
	for {
		out, err := c.ListBulkOperations(t.Context(), &dynamodb.ListBulkOperationsInput{MaxResults: aws.Int32(2), NextToken: tok})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range out.BulkOperationsSummaryList {
			if s.BulkOperationStatus != types.BulkOperationStatusCompleted || s.StartTime == nil || s.EndTime == nil {
				t.Errorf("summary %+v", s)
			}
			got = append(got, aws.ToString(s.BulkOperationArn))
		}
		if tok = out.NextToken; tok == nil {
			break
		}
	}
	if pages != 3 || len(got) != 5 {
		t.Fatalf("%d pages, %v", pages, got)
	}
	for i := range got {
		if got[i] != arns[len(arns)-1-i] {
			t.Fatalf("order %v, started %v", got, arns)
		}
	}
}

// TestBulkPutRateLimit measures the job's write rate over a window in the
// middle of a run: with MaxWriteRequestUnits 1024 and items of one write
// unit it stays near 1024 items a second.
func TestBulkPutRateLimit(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	var lines strings.Builder
	for i := range 4096 {
		fmt.Fprintf(&lines, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"1"}}}`+"\n", i)
	}
	putObj(t, root, "in/a.json", []byte(lines.String()))
	type mark struct {
		at time.Time
		n  int64
	}
	var mu sync.Mutex
	var marks []mark
	emulator.SetBulkHooks(s.Engine(), 64, func(n int64) {
		mu.Lock()
		marks = append(marks, mark{time.Now(), n})
		mu.Unlock()
	})
	in := bpInput("bpt", "in/", types.InputCompressionTypeNone)
	in.MaxWriteRequestUnits = aws.Int64(1024)
	d := bpWait(t, s, bpStart(t, c, in).BulkOperationArn)
	if d.ProcessedItemCount != 4096 || aws.ToInt64(d.MaxWriteRequestUnits) != 1024 {
		t.Fatalf("end %+v", d)
	}
	// The window from the 1024th item to the last.
	var from mark
	for _, m := range marks {
		if m.n >= 1024 {
			from = m
			break
		}
	}
	last := marks[len(marks)-1]
	rate := float64(last.n-from.n) / last.at.Sub(from.at).Seconds()
	t.Logf("%.0f items/s over %v", rate, last.at.Sub(from.at))
	if rate > 1024*1.1 || rate < 1024*0.8 {
		t.Errorf("rate %.0f items/s, want about 1024", rate)
	}
}

// TestBulkPutTableDeleted: a table deleted while its bulk put runs fails
// the operation; the operation stays listed.
func TestBulkPutTableDeleted(t *testing.T) {
	s, root := exServer(t)
	c := s.Client
	bpTable(t, c, "bpt")
	var lines strings.Builder
	for i := range 6 {
		fmt.Fprintf(&lines, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"1"}}}`+"\n", i)
	}
	putObj(t, root, "in/a.json", []byte(lines.String()))
	blk := newBlocker(s.Engine())
	d := bpStart(t, c, bpInput("bpt", "in/", types.InputCompressionTypeNone))
	<-blk.reached
	if _, err := c.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("bpt")}); err != nil {
		t.Fatal(err)
	}
	close(blk.release)
	end := bpWait(t, s, d.BulkOperationArn)
	if end.BulkOperationStatus != types.BulkOperationStatusFailed || aws.ToString(end.FailureCode) != "ResourceNotFound" || end.ProcessedItemCount != 2 {
		t.Fatalf("end %+v", end)
	}
}

// TestBulkPutPointInTimeHistory: point-in-time recovery sees a bulk put's
// writes as any write: a restore to a moment before it has none of them,
// a restore to the latest time has them all.
func TestBulkPutPointInTimeHistory(t *testing.T) {
	s, root := exServer(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.PITRLag = -1 }))
	c := s.Client
	exTable(t, c, "pitr", 2)
	var lines strings.Builder
	for i := range 3 {
		fmt.Fprintf(&lines, `{"Item":{"pk":{"S":"bulk%d"},"sk":{"N":"1"}}}`+"\n", i)
	}
	putObj(t, root, "in/a.json", []byte(lines.String()))
	time.Sleep(1100 * time.Millisecond)
	before := time.Now()
	time.Sleep(1100 * time.Millisecond)
	if d := bpWait(t, s, bpStart(t, c, bpInput("pitr", "in/", types.InputCompressionTypeNone)).BulkOperationArn); d.ProcessedItemCount != 3 {
		t.Fatalf("bulk %+v", d)
	}
	count := func(name string) int32 {
		emulator.WaitBackups(s.Engine())
		out, err := c.Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	if _, err := c.RestoreTableToPointInTime(t.Context(), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("pitr"),
		TargetTableName: aws.String("before"), RestoreDateTime: aws.Time(before)}); err != nil {
		t.Fatal(err)
	}
	if n := count("before"); n != 2 {
		t.Errorf("restored before the bulk put: %d items, want 2", n)
	}
	if _, err := c.RestoreTableToPointInTime(t.Context(), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("pitr"),
		TargetTableName: aws.String("after"), UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if n := count("after"); n != 5 {
		t.Errorf("restored after the bulk put: %d items, want 5", n)
	}
}
