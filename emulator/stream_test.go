package emulator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// TestTrimStreams: records past the retention period are deleted from the
// store, and positions before them answer TrimmedDataAccessException.
func TestTrimStreams(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1; o.StreamShardRollover = 48 * time.Hour })
	in := simpleTable("trim")
	in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
	te.mustCreate(nsA, in)
	ctx := context.Background()
	put := func(pk string) {
		t.Helper()
		if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("trim"), Item: av.Item{"pk": {Type: av.TypeS, S: pk}}}); err != nil {
			t.Fatal(err)
		}
	}
	arn := nsA.TableARN("trim") + "/stream/" + te.clock.Now().UTC().Format(streamLabelLayout)
	put("a")
	put("b")
	d, err := te.DescribeStream(ctx, nsA, &api.DescribeStreamInput{StreamArn: sp(arn)})
	if err != nil {
		t.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	read := func() []api.StreamRecord {
		t.Helper()
		it, err := te.GetShardIterator(ctx, nsA, &api.GetShardIteratorInput{StreamArn: sp(arn), ShardId: sp(shard), ShardIteratorType: sp("TRIM_HORIZON")})
		if err != nil {
			t.Fatal(err)
		}
		out, err := te.GetRecords(ctx, nsA, &api.GetRecordsInput{ShardIterator: sp(it.ShardIterator)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Records
	}
	old := read()[0].Dynamodb.SequenceNumber
	te.clock.Add(25 * time.Hour)
	put("c")
	if err := te.trimStreams(te.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if recs := read(); len(recs) != 1 || recs[0].Dynamodb.Keys["pk"].S != "c" {
		t.Fatalf("after trim: %+v", recs)
	}
	if n := storedRecords(t, te, "trim"); n != 1 {
		t.Fatalf("%d records stored after trim, want 1", n)
	}
	_, err = te.GetShardIterator(ctx, nsA, &api.GetShardIteratorInput{StreamArn: sp(arn), ShardId: sp(shard), ShardIteratorType: sp("AT_SEQUENCE_NUMBER"), SequenceNumber: sp(old)})
	if !errors.Is(err, api.NewError(api.CodeTrimmedDataAccess, "")) {
		t.Fatalf("AT_SEQUENCE_NUMBER of a trimmed record: %v", err)
	}
}

// storedRecords counts the stream records the store holds for table name
// of nsA, hidden or not.
func storedRecords(t *testing.T, te *testEngine, name string) int {
	t.Helper()
	te.mu.RLock()
	id := te.tables[nsA][name].ID
	te.mu.RUnlock()
	p := streamKey(id, 'r')
	it, err := te.store.NewIter(p, kv.PrefixEnd(p))
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

// TestStreamTrimWorkerRunsWithTTLOff: the stream trim worker deletes
// records past the retention on its own period, with the TTL worker off.
func TestStreamTrimWorkerRunsWithTTLOff(t *testing.T) {
	te := newTestEngine(t, func(o *Options) {
		o.Throttle.Off = true
		o.TTLInterval = -1
		o.StreamTrimInterval = 5 * time.Millisecond
		o.StreamShardRollover = 48 * time.Hour
	})
	in := simpleTable("trimw")
	in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
	te.mustCreate(nsA, in)
	for _, pk := range []string{"a", "b"} {
		if _, err := te.PutItem(context.Background(), nsA, &api.PutItemInput{TableName: sp("trimw"), Item: av.Item{"pk": {Type: av.TypeS, S: pk}}}); err != nil {
			t.Fatal(err)
		}
	}
	te.clock.Add(25 * time.Hour)
	deadline := time.Now().Add(20 * time.Second)
	for storedRecords(t, te, "trimw") != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d records stored 25 hours on with TTL off, want 0: the trim worker did not run", storedRecords(t, te, "trimw"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
