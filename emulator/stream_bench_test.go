package emulator

import (
	"context"
	"fmt"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

func streamBenchEngine(b *testing.B, view string) *testEngine {
	te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	in := simpleTable("bench")
	if view != "" {
		in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp(view)}
	}
	te.mustCreate(nsA, in)
	return te
}

func benchItem(i int) av.Item {
	return av.Item{"pk": {Type: av.TypeS, S: fmt.Sprintf("k%08d", i)}, "v": {Type: av.TypeS, S: "some payload of a typical size for an item"}, "n": {Type: av.TypeN, S: fmt.Sprint(i)}}
}

// BenchmarkPutItemStream measures PutItem without a stream and with each
// view type: the difference is the stream's overhead.
func BenchmarkPutItemStream(b *testing.B) {
	for _, view := range []string{"", "KEYS_ONLY", "NEW_AND_OLD_IMAGES"} {
		name := view
		if name == "" {
			name = "none"
		}
		b.Run(name, func(b *testing.B) {
			te := streamBenchEngine(b, view)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: benchItem(i)}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkGetRecords measures reading a shard of 10,000 records in pages
// of 1,000; records/s is the throughput.
func BenchmarkGetRecords(b *testing.B) {
	te := streamBenchEngine(b, "NEW_AND_OLD_IMAGES")
	ctx := context.Background()
	const n = 10000
	for i := range n {
		if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: benchItem(i)}); err != nil {
			b.Fatal(err)
		}
	}
	arn := nsA.TableARN("bench") + "/stream/" + te.clock.Now().UTC().Format(streamLabelLayout)
	d, err := te.DescribeStream(ctx, nsA, &api.DescribeStreamInput{StreamArn: sp(arn)})
	if err != nil {
		b.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	b.ReportAllocs()
	read := 0
	for b.Loop() {
		it, err := te.GetShardIterator(ctx, nsA, &api.GetShardIteratorInput{StreamArn: sp(arn), ShardId: sp(shard), ShardIteratorType: sp("TRIM_HORIZON")})
		if err != nil {
			b.Fatal(err)
		}
		iter := it.ShardIterator
		for {
			out, err := te.GetRecords(ctx, nsA, &api.GetRecordsInput{ShardIterator: sp(iter)})
			if err != nil {
				b.Fatal(err)
			}
			read += len(out.Records)
			if len(out.Records) == 0 {
				break
			}
			iter = out.NextShardIterator
		}
	}
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "records/s")
}
