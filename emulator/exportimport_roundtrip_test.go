package emulator_test

import (
	"fmt"
	"net/http/httptest"
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
	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/objstore/s3store"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// The round trip: export a table of items of every attribute type, import
// the export's data files into a new table, and the two are equal.

// rtItem is item i, with every attribute type.
func rtItem(i int) mkItem {
	return mkItem{
		"pk":   mkS(fmt.Sprintf("p%03d", i%211)),
		"sk":   &types.AttributeValueMemberN{Value: fmt.Sprint(i)},
		"s":    mkS(fmt.Sprintf("text \"%d\" é\n\t\\ ☃", i)),
		"n":    &types.AttributeValueMemberN{Value: fmt.Sprintf("-%d.%03d", i, i%1000)},
		"big":  &types.AttributeValueMemberN{Value: "1.2345678901234567890123456789012345678E+120"},
		"b":    &types.AttributeValueMemberB{Value: []byte{0, 0xff, byte(i), byte(i >> 8)}},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", fmt.Sprint(i)}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "0.5", fmt.Sprint(i + 2)}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, byte(i)}}},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"bool": &types.AttributeValueMemberBOOL{Value: i%2 == 0},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{mkS(""), &types.AttributeValueMemberN{Value: "0"},
			&types.AttributeValueMemberM{Value: mkItem{"deep": &types.AttributeValueMemberL{Value: []types.AttributeValue{}}}}}},
		"m":         &types.AttributeValueMemberM{Value: mkItem{"odd key": mkS("v"), "$x": &types.AttributeValueMemberBOOL{Value: false}, "e": &types.AttributeValueMemberM{Value: mkItem{}}}},
		"empty str": mkS(""),
	}
}

// canon is a stable text of an attribute value (sets sorted).
func canon(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S%q", x.Value)
	case *types.AttributeValueMemberN:
		return "N" + x.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B%x", x.Value)
	case *types.AttributeValueMemberSS:
		s := append([]string(nil), x.Value...)
		sort.Strings(s)
		return fmt.Sprintf("SS%q", s)
	case *types.AttributeValueMemberNS:
		s := append([]string(nil), x.Value...)
		sort.Strings(s)
		return fmt.Sprintf("NS%q", s)
	case *types.AttributeValueMemberBS:
		var s []string
		for _, b := range x.Value {
			s = append(s, fmt.Sprintf("%x", b))
		}
		sort.Strings(s)
		return fmt.Sprintf("BS%q", s)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint("BOOL", x.Value)
	case *types.AttributeValueMemberL:
		var s []string
		for _, e := range x.Value {
			s = append(s, canon(e))
		}
		return "L[" + strings.Join(s, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M" + canonItem(x.Value)
	}
	return "?"
}

func canonItem(it mkItem) string {
	var s []string
	for k, v := range it {
		s = append(s, fmt.Sprintf("%q:%s", k, canon(v)))
	}
	sort.Strings(s)
	return "{" + strings.Join(s, ",") + "}"
}

func scanCanon(t *testing.T, c *dynamodb.Client, table string) []string {
	t.Helper()
	var out []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			out = append(out, canonItem(it))
		}
	}
	sort.Strings(out)
	return out
}

func roundTrip(t *testing.T, obj objstore.Store, n int, format types.ExportFormat) {
	s := testserver.New(t, testserver.WithEngineOptions(func(o *emulator.Options) {
		o.TTLInterval = -1
		o.Throttle.Off = true
		o.Objects = obj
	}))
	emulator.SetExportHooks(s.Engine(), 2500, nil)
	c := s.Client
	arn := exTable(t, c, "rtsrc", 0)
	for i := 0; i < n; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < min(n, i+25); j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: rtItem(j)}})
		}
		if _, err := c.BatchWriteItem(t.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"rtsrc": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := c.ExportTableToPointInTime(t.Context(), &dynamodb.ExportTableToPointInTimeInput{TableArn: &arn, S3Bucket: aws.String("bkt"),
		S3Prefix: aws.String("rt"), ExportFormat: format})
	if err != nil {
		t.Fatal(err)
	}
	emulator.WaitExports(s.Engine())
	d, err := c.DescribeExport(t.Context(), &dynamodb.DescribeExportInput{ExportArn: ex.ExportDescription.ExportArn})
	if err != nil {
		t.Fatal(err)
	}
	if d.ExportDescription.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ExportDescription.ItemCount) != int64(n) {
		t.Fatalf("export %+v", d.ExportDescription)
	}
	manifest := aws.ToString(d.ExportDescription.ExportManifest)
	dataPrefix := strings.TrimSuffix(manifest, "manifest-summary.json") + "data/"
	inFormat := types.InputFormatDynamodbJson
	if format == types.ExportFormatIon {
		inFormat = types.InputFormatIon
	}
	im, err := c.ImportTable(t.Context(), &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bkt"), S3KeyPrefix: &dataPrefix},
		InputFormat:    inFormat, InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("rtdst"),
			AttributeDefinitions: mkDefs("pk", "S", "sk", "N"), KeySchema: mkKS("pk", "HASH", "sk", "RANGE"),
			BillingMode: types.BillingModePayPerRequest}})
	if err != nil {
		t.Fatal(err)
	}
	di := imWait(t, s, im.ImportTableDescription.ImportArn)
	if di.ImportStatus != types.ImportStatusCompleted || di.ImportedItemCount != int64(n) || di.ErrorCount != 0 {
		t.Fatalf("import %+v", di)
	}
	src, dst := scanCanon(t, c, "rtsrc"), scanCanon(t, c, "rtdst")
	if len(src) != n || len(dst) != n {
		t.Fatalf("%d source items, %d imported, want %d", len(src), len(dst), n)
	}
	for i := range src {
		if src[i] != dst[i] {
			t.Fatalf("item %d differs:\nsource   %s\nimported %s", i, src[i], dst[i])
		}
	}
}

func rtDir(t *testing.T) objstore.Store {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	return objstore.Dir{Root: root}
}

// rtItems is the 100,000 items, or 10,000 with -short.
func rtItems() int {
	if testing.Short() {
		return 10_000
	}
	return 100_000
}

func TestRoundTripDynamoDBJSON(t *testing.T) {
	roundTrip(t, rtDir(t), rtItems(), types.ExportFormatDynamodbJson)
}

func TestRoundTripION(t *testing.T) {
	roundTrip(t, rtDir(t), 3_000, types.ExportFormatIon)
}

// TestRoundTripS3Endpoint runs the round trip against an S3 server
// (gofakes3) started in-process, through the --s3-endpoint store.
func TestRoundTripS3Endpoint(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	obj, err := s3store.New(s3store.Options{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, obj, rtItems(), types.ExportFormatDynamodbJson)
}
