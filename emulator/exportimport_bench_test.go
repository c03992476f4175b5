package emulator

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/pebblestore"
)

// benchExportItems is the table size of the export and import benchmarks:
// EXTENDDB_BENCH_EXPORT_ITEMS, 100,000 by default (1,000,000 for the
// figure quoted in docs/differences.md).
func benchExportItems(b *testing.B) int {
	if s := os.Getenv("EXTENDDB_BENCH_EXPORT_ITEMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// peakHeap samples the heap in use until stop is called and returns the
// highest figure above the heap at the start, in MB.
func peakHeap() (stop func() float64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	return func() float64 {
		close(done)
		p := peak.Load()
		if p < base {
			return 0
		}
		return float64(p-base) / (1 << 20)
	}
}

// BenchmarkExportImport measures a full DYNAMODB_JSON export of a table of
// n items (~200 bytes of every attribute type, Pebble on disk, the S3
// stand-in a folder) until COMPLETED, then the import of its data files
// into a new table until COMPLETED, with the heap's peak growth.
func BenchmarkExportImport(b *testing.B) {
	n := benchExportItems(b)
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "s3", "bkt"), 0o755); err != nil {
		b.Fatal(err)
	}
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
	if _, err := e.CreateTable(ctx, nsA, &api.CreateTableInput{TableName: sp("bench"), AttributeDefinitions: attrs("pk", "S", "sk", "N"),
		KeySchema: keys("pk", "HASH", "sk", "RANGE"), BillingMode: sp(billingPayPerRequest)}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("bench"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: bl(true)}}); err != nil {
		b.Fatal(err)
	}
	t := e.lookup(nsA, "bench", e.now())
	batch := st.NewBatch()
	for i := range n {
		item := av.Item{"pk": avS("item-" + strconv.Itoa(i%5000)), "sk": {Type: av.TypeN, S: strconv.Itoa(i)},
			"s": avS("some text of a few dozen bytes, é ☃ and \"quotes\""), "n": {Type: av.TypeN, S: "-123.456"},
			"b": {Type: av.TypeB, S: "\x00\x01\x02binary"}, "ss": {Type: av.TypeSS, Set: []string{"a", "b", "c"}},
			"m": {Type: av.TypeM, M: map[string]av.Value{"l": {Type: av.TypeL, L: []av.Value{{Type: av.TypeBOOL, Bool: true}, {Type: av.TypeNULL, Bool: true}}}}}}
		if err := batch.Set(itemKey(t, item), av.AppendItem(nil, item)); err != nil {
			b.Fatal(err)
		}
		if i%10_000 == 9_999 {
			if err := batch.Commit(false); err != nil {
				b.Fatal(err)
			}
			batch = st.NewBatch()
		}
	}
	if err := batch.Commit(false); err != nil {
		b.Fatal(err)
	}
	var prefix string
	b.Run("export", func(b *testing.B) {
		var peak float64
		for i := 0; b.Loop(); i++ {
			stop := peakHeap()
			out, err := e.ExportTableToPointInTime(ctx, nsA, &api.ExportTableToPointInTimeInput{TableArn: sp(nsA.TableARN("bench")),
				S3Bucket: sp("bkt"), S3Prefix: sp("run" + strconv.Itoa(i))})
			if err != nil {
				b.Fatal(err)
			}
			WaitExports(e)
			peak = max(peak, stop())
			d, err := e.DescribeExport(ctx, nsA, &api.DescribeExportInput{ExportArn: &out.ExportDescription.ExportArn})
			if err != nil || d.ExportDescription.ExportStatus != "COMPLETED" {
				b.Fatalf("%v %+v", err, d)
			}
			m := *d.ExportDescription.ExportManifest
			prefix = m[:len(m)-len("manifest-summary.json")] + "data/"
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(peak, "peak-heap-MB")
	})
	b.Run("import", func(b *testing.B) {
		var peak float64
		for i := 0; b.Loop(); i++ {
			stop := peakHeap()
			out, err := e.ImportTable(ctx, nsA, &api.ImportTableInput{ClientToken: sp("t" + strconv.Itoa(i)),
				S3BucketSource: &api.S3BucketSource{S3Bucket: sp("bkt"), S3KeyPrefix: &prefix}, InputFormat: sp("DYNAMODB_JSON"),
				InputCompressionType: sp("GZIP"), TableCreationParameters: &api.TableCreationParameters{TableName: sp("imported-" + strconv.Itoa(i)),
					AttributeDefinitions: attrs("pk", "S", "sk", "N"), KeySchema: keys("pk", "HASH", "sk", "RANGE"), BillingMode: sp(billingPayPerRequest)}})
			if err != nil {
				b.Fatal(err)
			}
			WaitExports(e)
			peak = max(peak, stop())
			d, err := e.DescribeImport(ctx, nsA, &api.DescribeImportInput{ImportArn: &out.ImportTableDescription.ImportArn})
			if err != nil || d.ImportTableDescription.ImportStatus != "COMPLETED" || d.ImportTableDescription.ImportedItemCount != int64(n) {
				b.Fatalf("%v %+v", err, d)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		b.ReportMetric(peak, "peak-heap-MB")
	})
}
