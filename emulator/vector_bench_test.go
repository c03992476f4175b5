package emulator

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// Vector search at the size issue 34 names: 100,000 items of 768
// dimensions (EXTENDDB_BENCH_VECTOR_ITEMS changes the count), built at run
// time. Run with -benchtime=Nx: one iteration is one search, one put or
// one backfill.

const benchDims = 768

func vectorBenchItems(b *testing.B) int {
	if s := os.Getenv("EXTENDDB_BENCH_VECTOR_ITEMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

func benchVector(r *rand.Rand) av.Value {
	l := make([]av.Value, benchDims)
	for i := range l {
		l[i] = av.Value{Type: av.TypeN, S: strconv.FormatFloat(r.Float64()*2-1, 'f', 6, 32)}
	}
	return av.Value{Type: av.TypeL, L: l}
}

func benchVectorIndex() api.VectorIndex {
	return api.VectorIndex{IndexName: sp("vix"), VectorAttribute: &api.VectorAttributeDefinition{AttributeName: sp("emb")},
		Dimensions: ip(benchDims), DistanceFunction: sp("COSINE"), Projection: &api.Projection{ProjectionType: sp("ALL")}}
}

func ip(n int64) *int64 { return &n }

// vectorBenchTable creates table "vbench" (with the index when indexed) and
// writes n items of a 768-dimension vector and a small payload.
func vectorBenchTable(b *testing.B, n int, indexed bool) *testEngine {
	te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	in := simpleTable("vbench")
	if indexed {
		in.VectorIndexes = []api.VectorIndex{benchVectorIndex()}
	}
	te.mustCreate(nsA, in)
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for i := 0; i < n; i += 25 {
		var reqs []api.WriteRequest
		for j := i; j < min(i+25, n); j++ {
			item := av.Item{"pk": {Type: av.TypeS, S: strconv.Itoa(j)}, "emb": benchVector(r), "title": {Type: av.TypeS, S: "document " + strconv.Itoa(j)}}
			reqs = append(reqs, api.WriteRequest{PutRequest: &api.PutRequest{Item: item}})
		}
		if _, err := te.BatchWriteItem(ctx, nsA, &api.BatchWriteItemInput{RequestItems: map[string][]api.WriteRequest{"vbench": reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	return te
}

// BenchmarkSearchVectors768 reports a top-10 search's p50 and p99 over
// the index (after the first search filled its in-memory copy: fill-ms),
// and the copy's memory against the vectors' float32 size.
func BenchmarkSearchVectors768(b *testing.B) {
	n := vectorBenchItems(b)
	te := vectorBenchTable(b, n, true)
	// As after a restart: the first search fills the copy from the store.
	te.restart()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	search := func() {
		q := benchVector(r)
		out, err := te.SearchVectors(ctx, nsA, &api.SearchVectorsInput{TableName: sp("vbench"), IndexName: sp("vix"), SearchVector: q.L, TopK: ip(10)})
		if err != nil || len(out.SearchResults) != 10 {
			b.Fatal(err)
		}
	}
	start := time.Now()
	search()
	fill := time.Since(start)
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		search()
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(fill.Milliseconds()), "fill-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(te.VectorMemory())/float64(n*benchDims*4), "mem/f32")
}

// BenchmarkPutItemVector768 is a PutItem of a 768-dimension item on a
// table with a vector index and on one without: cpu-µs/op is the
// process's CPU time per put.
func BenchmarkPutItemVector768(b *testing.B) {
	for _, indexed := range []bool{false, true} {
		name := "none"
		if indexed {
			name = "indexed"
		}
		b.Run(name, func(b *testing.B) {
			te := vectorBenchTable(b, 0, indexed)
			ctx := context.Background()
			r := rand.New(rand.NewPCG(5, 6))
			items := make([]av.Item, 1000)
			for i := range items {
				items[i] = av.Item{"pk": {Type: av.TypeS, S: strconv.Itoa(i)}, "emb": benchVector(r), "title": {Type: av.TypeS, S: "document"}}
			}
			cpu0 := cpuTime()
			i := 0
			for b.Loop() {
				if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("vbench"), Item: items[i%len(items)]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkVectorBackfill768 adds the index to a table of the items and
// waits for it to be ACTIVE: items/s is the backfill's rate.
func BenchmarkVectorBackfill768(b *testing.B) {
	n := vectorBenchItems(b)
	for b.Loop() {
		b.StopTimer()
		te := vectorBenchTable(b, n, false)
		b.StartTimer()
		start := time.Now()
		x := benchVectorIndex()
		if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("vbench"),
			VectorIndexUpdates: []api.VectorIndexUpdate{{Create: &x}}}); err != nil {
			b.Fatal(err)
		}
		te.bf.tasks.Wait()
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "items/s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
