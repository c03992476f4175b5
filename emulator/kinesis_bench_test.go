package emulator

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

// acceptSink takes every record (the benchmark measures the engine's side
// of delivery, not a Kinesis server).
type acceptSink struct{ n atomic.Int64 }

func (*acceptSink) StreamExists(context.Context, string) (bool, error) { return true, nil }

func (s *acceptSink) PutRecords(_ context.Context, _ string, recs []KinesisRecord) ([]bool, error) {
	s.n.Add(int64(len(recs)))
	ok := make([]bool, len(recs))
	for i := range ok {
		ok[i] = true
	}
	return ok, nil
}

// BenchmarkPutItemKinesis measures PutItem on a table without a
// destination (with a sink configured: the case that must cost nothing)
// and with an active one (the record is built and queued in the write's
// batch; the deliverer drains meanwhile).
func BenchmarkPutItemKinesis(b *testing.B) {
	for _, dest := range []bool{false, true} {
		name := "no-destination"
		if dest {
			name = "destination"
		}
		b.Run(name, func(b *testing.B) {
			te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1; o.Kinesis = &acceptSink{} })
			te.mustCreate(nsA, simpleTable("bench"))
			ctx := context.Background()
			if dest {
				if _, err := te.EnableKinesisStreamingDestination(ctx, nsA, &api.KinesisStreamingDestinationInput{TableName: sp("bench"),
					StreamArn: sp("arn:aws:kinesis:" + nsA.Region + ":" + nsA.Account + ":stream/bench")}); err != nil {
					b.Fatal(err)
				}
			}
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
