package emulator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/klauspost/compress/gzip"
)

// benchBulkItems is the input size of BenchmarkBulkPut:
// EXTENDDB_BENCH_BULK_ITEMS, 100,000 by default (1,000,000 for the
// figure quoted in docs/differences.md).
func benchBulkItems(b *testing.B) int {
	if s := os.Getenv("EXTENDDB_BENCH_BULK_ITEMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// bulkBenchItem is item i, about 200 bytes.
func bulkBenchItem(i int) av.Item {
	return av.Item{"pk": avS(fmt.Sprintf("%08x", uint32(i)*2654435761)), "sk": {Type: av.TypeN, S: strconv.Itoa(i)},
		"s": avS("some text of a few dozen bytes, é ☃ and \"quotes\", and a little more text"), "n": {Type: av.TypeN, S: "-123.456"},
		"b": {Type: av.TypeB, S: "\x00\x01\x02binary"}, "ss": {Type: av.TypeSS, Set: []string{"a", "b", "c"}},
		"m": {Type: av.TypeM, M: map[string]av.Value{"l": {Type: av.TypeL, L: []av.Value{{Type: av.TypeBOOL, Bool: true}, {Type: av.TypeNULL, Bool: true}}}}}}
}

// BenchmarkBulkPut loads n items of about 200 bytes from 20 GZIP DynamoDB
// JSON objects (written at run time) three ways into a new table (pk S,
// sk N, Pebble on disk, no rate limit): ImportTable, StartBulkPutItems,
// and BatchWriteItem from 16 goroutines (the engine's API, no HTTP), with
// the heap's peak growth. Each reports items/s.
func BenchmarkBulkPut(b *testing.B) {
	n := benchBulkItems(b)
	dir := b.TempDir()
	st, err := pebblestore.Open(pebblestore.Options{Dir: filepath.Join(dir, "db")})
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Options{Store: st, Throttle: ThrottleOptions{Off: true}, TTLInterval: -1, Objects: objstore.Dir{Root: filepath.Join(dir, "s3")}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close(); _ = st.Close() })
	ctx := context.Background()
	const objects = 20
	var inputBytes int
	for o := range objects {
		var raw bytes.Buffer
		for i := o; i < n; i += objects {
			raw.WriteString(`{"Item":`)
			raw.Write(av.AppendItemJSON(nil, bulkBenchItem(i)))
			raw.WriteString("}\n")
		}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
		_, _ = w.Write(raw.Bytes())
		_ = w.Close()
		inputBytes += z.Len()
		p := filepath.Join(dir, "s3", "bkt", "in", fmt.Sprintf("part-%02d.json.gz", o))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d items in %d GZIP objects, %d bytes", n, objects, inputBytes)
	newTable := func(name string) {
		if _, err := e.CreateTable(ctx, nsA, &api.CreateTableInput{TableName: sp(name), AttributeDefinitions: attrs("pk", "S", "sk", "N"),
			KeySchema: keys("pk", "HASH", "sk", "RANGE"), BillingMode: sp(billingPayPerRequest)}); err != nil {
			b.Fatal(err)
		}
	}
	run := 0
	b.Run("import", func(b *testing.B) {
		var peak float64
		for b.Loop() {
			run++
			stop := peakHeap()
			out, err := e.ImportTable(ctx, nsA, &api.ImportTableInput{ClientToken: sp("t" + strconv.Itoa(run)),
				S3BucketSource: &api.S3BucketSource{S3Bucket: sp("bkt"), S3KeyPrefix: sp("in/")}, InputFormat: sp("DYNAMODB_JSON"),
				InputCompressionType: sp("GZIP"), TableCreationParameters: &api.TableCreationParameters{TableName: sp("imported-" + strconv.Itoa(run)),
					AttributeDefinitions: attrs("pk", "S", "sk", "N"), KeySchema: keys("pk", "HASH", "sk", "RANGE"), BillingMode: sp(billingPayPerRequest)}})
			if err != nil {
				b.Fatal(err)
			}
			WaitExports(e)
			peak = max(peak, stop())
			d, err := e.DescribeImport(ctx, nsA, &api.DescribeImportInput{ImportArn: &out.ImportTableDescription.ImportArn})
			if err != nil || d.ImportTableDescription.ImportedItemCount != int64(n) {
				b.Fatalf("%v %+v", err, d)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(peak, "peak-heap-MB")
	})
	b.Run("bulkput", func(b *testing.B) {
		var peak float64
		for b.Loop() {
			run++
			name := "bulk-" + strconv.Itoa(run)
			b.StopTimer()
			newTable(name)
			b.StartTimer()
			stop := peakHeap()
			out, err := e.StartBulkPutItems(ctx, nsA, &api.StartBulkPutItemsInput{TableName: sp(name),
				InputS3Configuration:  &api.InputS3Configuration{S3Bucket: sp("bkt"), S3KeyPrefix: sp("in/"), InputFormat: sp("DYNAMODB_JSON"), InputCompressionType: sp("GZIP")},
				OutputS3Configuration: &api.OutputS3Configuration{OutputType: []string{"ERROR"}, S3Bucket: sp("bkt")}})
			if err != nil {
				b.Fatal(err)
			}
			WaitBulk(e)
			peak = max(peak, stop())
			d, err := e.DescribeBulkOperation(ctx, nsA, &api.DescribeBulkOperationInput{BulkOperationArn: out.BulkOperationDescription.BulkOperationArn})
			if err != nil || d.BulkOperationDescription.BulkOperationStatus != "COMPLETED" || d.BulkOperationDescription.ProcessedItemCount != int64(n) {
				b.Fatalf("%v %+v", err, d)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(peak, "peak-heap-MB")
	})
	b.Run("batchwrite16", func(b *testing.B) {
		for b.Loop() {
			run++
			name := "batch-" + strconv.Itoa(run)
			b.StopTimer()
			newTable(name)
			b.StartTimer()
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w * 25; i < n; i += 16 * 25 {
						var reqs []api.WriteRequest
						for j := i; j < min(i+25, n); j++ {
							reqs = append(reqs, api.WriteRequest{PutRequest: &api.PutRequest{Item: bulkBenchItem(j)}})
						}
						out, err := e.BatchWriteItem(ctx, nsA, &api.BatchWriteItemInput{RequestItems: map[string][]api.WriteRequest{name: reqs}})
						if err != nil || len(out.UnprocessedItems) > 0 {
							b.Errorf("%v %v", err, out)
							return
						}
					}
				}()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
}
