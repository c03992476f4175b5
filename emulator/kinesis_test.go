package emulator

import (
	"context"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

// queuedKinesis counts the records in the Kinesis queue.
func queuedKinesis(t *testing.T, te *testEngine) int {
	t.Helper()
	it, err := te.store.NewIter([]byte{famKinesis}, []byte{famKinesis + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n
}

// refuseSink is a Kinesis that is down: records stay queued.
type refuseSink struct{}

func (refuseSink) StreamExists(context.Context, string) (bool, error) { return true, nil }
func (refuseSink) PutRecords(_ context.Context, _ string, recs []KinesisRecord) ([]bool, error) {
	return make([]bool, len(recs)), nil
}

// Records are queued only for a table with a delivering destination and
// only when a sink is configured (without one, destinations are
// bookkeeping and the queue must not grow).
func TestKinesisQueuesOnlyWhatIsDelivered(t *testing.T) {
	ctx := context.Background()
	for _, withSink := range []bool{false, true} {
		te := newTestEngine(t, func(o *Options) {
			o.TTLInterval = -1
			if withSink {
				o.Kinesis = refuseSink{}
			}
		})
		te.mustCreate(nsA, simpleTable("plain"))
		te.mustCreate(nsA, simpleTable("dest"))
		if _, err := te.EnableKinesisStreamingDestination(ctx, nsA, &api.KinesisStreamingDestinationInput{TableName: sp("dest"),
			StreamArn: sp("arn:aws:kinesis:" + nsA.Region + ":" + nsA.Account + ":stream/s")}); err != nil {
			t.Fatal(err)
		}
		for i, table := range []string{"plain", "dest", "dest"} {
			if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp(table), Item: benchItem(i)}); err != nil {
				t.Fatal(err)
			}
		}
		want := 0
		if withSink {
			want = 2
		}
		if n := queuedKinesis(t, te); n != want {
			t.Fatalf("sink %v: %d records queued, want %d", withSink, n, want)
		}
		// A disabled destination queues nothing more.
		if _, err := te.DisableKinesisStreamingDestination(ctx, nsA, &api.KinesisStreamingDestinationInput{TableName: sp("dest"),
			StreamArn: sp("arn:aws:kinesis:" + nsA.Region + ":" + nsA.Account + ":stream/s")}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("dest"), Item: benchItem(9)}); err != nil {
			t.Fatal(err)
		}
		if n := queuedKinesis(t, te); n != want {
			t.Fatalf("sink %v after disable: %d records queued, want %d", withSink, n, want)
		}
	}
}
