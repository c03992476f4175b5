package emulator

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/pebblestore"
)

// diskEngine is an engine over an on-disk store in a temporary directory,
// with table "bench" (hash key pk).
func diskEngine(b *testing.B, sync bool, flush int) *Engine {
	st, err := pebblestore.Open(pebblestore.Options{Dir: b.TempDir(), WALFlushInterval: pebbleFlush(flush)})
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Options{Store: st, Sync: sync, Throttle: ThrottleOptions{Off: true}, TTLInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close(); _ = st.Close() })
	if _, err := e.CreateTable(context.Background(), testNS, simpleTable("bench")); err != nil {
		b.Fatal(err)
	}
	return e
}

func pebbleFlush(ms int) time.Duration {
	if ms < 0 {
		return -1
	}
	return time.Duration(ms) * time.Millisecond
}

// BenchmarkPutItemDurability: PutItem from 16 concurrent writers, with and
// without --sync, and without --sync with the WAL flush loop off (the old,
// unsafe behaviour) to price the process-crash guarantee.
func BenchmarkPutItemDurability(b *testing.B) {
	for _, c := range []struct {
		name  string
		sync  bool
		flush int
	}{{"nosync-noflush", false, -1}, {"nosync-flush100ms", false, 100}, {"nosync-flush10ms", false, 10}, {"sync", true, -1}} {
		b.Run(c.name, func(b *testing.B) {
			e := diskEngine(b, c.sync, c.flush)
			var n atomic.Int64
			b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0))) // 16 writers
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					if _, err := e.PutItem(context.Background(), testNS, &api.PutItemInput{TableName: sp("bench"),
						Item: av.Item{"pk": avS(strconv.FormatInt(i, 10)), "v": avS("0123456789abcdef")}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// BenchmarkBatchWriteSync: BatchWriteItem of 25 items with --sync; the
// items share one fsync.
func BenchmarkBatchWriteSync(b *testing.B) {
	e := diskEngine(b, true, -1)
	n := 0
	for b.Loop() {
		reqs := make([]api.WriteRequest, 25)
		for j := range reqs {
			n++
			reqs[j] = api.WriteRequest{PutRequest: &api.PutRequest{Item: av.Item{"pk": avS(strconv.Itoa(n)), "v": avS("x")}}}
		}
		if _, err := e.BatchWriteItem(context.Background(), testNS, &api.BatchWriteItemInput{RequestItems: map[string][]api.WriteRequest{"bench": reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}
