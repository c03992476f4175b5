package emulator_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/pebblestore"
)

// BenchmarkScanLargerThanCache scans, page by page, on-disk tables 20 and
// 80 times the size of Pebble's block cache and reports how far the heap
// rises above its level before the scan: it stays flat as the table grows,
// because a page (at most 1 MB of items) is all the engine holds.
func BenchmarkScanLargerThanCache(b *testing.B) {
	for _, items := range []int{20_000, 80_000} {
		b.Run(fmt.Sprintf("items=%d", items), func(b *testing.B) { benchmarkScanMemory(b, items) })
	}
}

func benchmarkScanMemory(b *testing.B, items int) {
	const (
		itemBytes = 1_000
		cacheSize = 1 << 20
	)
	st, err := pebblestore.Open(pebblestore.Options{Dir: b.TempDir(), CacheSize: cacheSize})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	opts := emulator.Options{Store: st, TTLInterval: -1}
	opts.Throttle.Off = true
	e, err := emulator.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	ns := api.Namespace{Account: "111122223333", Region: "us-east-1"}
	name, pk, s, od := "big", "pk", "S", "PAY_PER_REQUEST"
	hash := "HASH"
	if _, err := e.CreateTable(ctx, ns, &api.CreateTableInput{
		TableName:            &name,
		AttributeDefinitions: []api.AttributeDefinition{{AttributeName: &pk, AttributeType: &s}},
		KeySchema:            []api.KeySchemaElement{{AttributeName: &pk, KeyType: &hash}},
		BillingMode:          &od,
	}); err != nil {
		b.Fatal(err)
	}
	pad := av.Value{Type: av.TypeS, S: strings.Repeat("x", itemBytes)}
	for i := 0; i < items; i += 25 {
		reqs := make([]api.WriteRequest, 0, 25)
		for j := i; j < i+25; j++ {
			item := av.Item{"pk": {Type: av.TypeS, S: fmt.Sprintf("k%07d", j)}, "pad": pad}
			reqs = append(reqs, api.WriteRequest{PutRequest: &api.PutRequest{Item: item}})
		}
		out, err := e.BatchWriteItem(ctx, ns, &api.BatchWriteItemInput{RequestItems: map[string][]api.WriteRequest{name: reqs}})
		if err != nil || len(out.UnprocessedItems) > 0 {
			b.Fatalf("load: %v", err)
		}
	}
	if err := st.Flush(); err != nil {
		b.Fatal(err)
	}

	// The baseline is the heap before the scan (Pebble's own state). A
	// sampler reads the heap (live and not yet collected) every millisecond
	// during the scan; the metric is how far it rises above the baseline.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	}()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		seen := 0
		var start av.Item
		for {
			out, err := e.Scan(ctx, ns, &api.ScanInput{TableName: &name, ExclusiveStartKey: start})
			if err != nil {
				b.Fatal(err)
			}
			seen += int(out.Count)
			start = out.LastEvaluatedKey
			if start == nil {
				break
			}
		}
		if seen != items {
			b.Fatalf("scanned %d items, want %d", seen, items)
		}
	}
	b.StopTimer()
	close(stop)
	<-done
	over := uint64(0)
	if p := peak.Load(); p > base {
		over = p - base
	}
	b.ReportMetric(float64(over)/(1<<20), "scan-heap-MB")
	b.ReportMetric(float64(items*itemBytes)/(1<<20), "table-MB")
}
