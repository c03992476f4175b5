package emulator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
)

func TestSequenceNumbers(t *testing.T) {
	for _, n := range []uint64{0, 1, 42, 1 << 40, ^uint64(0)} {
		s := formatSeq(n)
		if len(s) != 21 {
			t.Errorf("formatSeq(%d) = %q: %d digits", n, s, len(s))
		}
		if got, ok := parseSeq(s); !ok || got != n {
			t.Errorf("parseSeq(%q) = %d, %v", s, got, ok)
		}
		if n > 0 && formatSeq(n-1) >= s {
			t.Errorf("formatSeq not increasing at %d", n)
		}
	}
	for _, bad := range []string{"", "1", "200000000000000000001", "1000000000000000000x1", "1000000000000000000001"} {
		if _, ok := parseSeq(bad); ok {
			t.Errorf("parseSeq(%q) accepted", bad)
		}
	}
}

func TestTTLExpired(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	n := func(s string) av.Item { return av.Item{"e": {Type: av.TypeN, S: s}} }
	for _, tc := range []struct {
		name string
		item av.Item
		want bool
	}{
		{"past", n("1699999999"), true},
		{"fraction past", n("1699999999.9"), true},
		{"now", n("1700000000"), false},
		{"future", n("1700000001"), false},
		{"exponent past", n("1.6E9"), true},
		{"under five years past", n("1545000000"), true},
		{"over five years past", n("1540000000"), false},
		{"ancient", n("100"), false},
		{"negative", n("-5"), false},
		{"missing", av.Item{}, false},
		{"string", av.Item{"e": {Type: av.TypeS, S: "1"}}, false},
	} {
		if got := ttlExpired(tc.item, "e", now); got != tc.want {
			t.Errorf("%s: ttlExpired = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func FuzzDecodeIterator(f *testing.F) {
	f.Add(shardIterator{Arn: "arn:aws:dynamodb:us-east-1:1:table/T/stream/x", Shard: "s", Pos: 3, Created: 9}.encode())
	f.Add("garbage")
	f.Add("a|v1|")
	f.Fuzz(func(t *testing.T, s string) {
		it, ok := decodeIterator(s)
		if ok {
			if again, ok2 := decodeIterator(it.encode()); !ok2 || again != it {
				t.Fatalf("round trip of %q: %+v %v", s, again, ok2)
			}
		}
	})
}

// TestTrimStreams: records past the retention period are deleted from the
// store, and positions before them answer TrimmedDataAccessException.
func TestTrimStreams(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1; o.StreamShardRollover = 48 * time.Hour })
	in := simpleTable("trim")
	in.StreamSpecification = &StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
	te.mustCreate(nsA, in)
	ctx := context.Background()
	put := func(pk string) {
		t.Helper()
		if _, err := te.PutItem(ctx, nsA, &PutItemInput{TableName: sp("trim"), Item: av.Item{"pk": {Type: av.TypeS, S: pk}}}); err != nil {
			t.Fatal(err)
		}
	}
	arn := nsA.TableARN("trim") + "/stream/" + te.clock.Now().UTC().Format(streamLabelLayout)
	put("a")
	put("b")
	d, err := te.DescribeStream(ctx, nsA, &DescribeStreamInput{StreamArn: sp(arn)})
	if err != nil {
		t.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	read := func() []StreamRecord {
		t.Helper()
		it, err := te.GetShardIterator(ctx, nsA, &GetShardIteratorInput{StreamArn: sp(arn), ShardId: sp(shard), ShardIteratorType: sp("TRIM_HORIZON")})
		if err != nil {
			t.Fatal(err)
		}
		out, err := te.GetRecords(ctx, nsA, &GetRecordsInput{ShardIterator: sp(it.ShardIterator)})
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
	var id tableID
	te.mu.RLock()
	id = te.tables[nsA]["trim"].ID
	te.mu.RUnlock()
	p := streamKey(id, 'r')
	it, err := te.store.NewIter(p, prefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	_ = it.Close()
	if n != 1 {
		t.Fatalf("%d records stored after trim, want 1", n)
	}
	_, err = te.GetShardIterator(ctx, nsA, &GetShardIteratorInput{StreamArn: sp(arn), ShardId: sp(shard), ShardIteratorType: sp("AT_SEQUENCE_NUMBER"), SequenceNumber: sp(old)})
	if !errors.Is(err, NewError(CodeTrimmedDataAccess, "")) {
		t.Fatalf("AT_SEQUENCE_NUMBER of a trimmed record: %v", err)
	}
}
