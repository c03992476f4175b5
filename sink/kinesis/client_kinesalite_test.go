package kinesis_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	ktypes "github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/extenddb/extenddb/emulator"
	sink "github.com/extenddb/extenddb/sink/kinesis"
)

// The Sink's own client against kinesalite, read back with the SDK's:
// errors keep their Kinesis code, and binary data arrives byte for byte.
func TestSinkClientAgainstKinesalite(t *testing.T) {
	k := startKinesalite(t)
	k.createStream("bin")
	snk, err := sink.New(sink.Options{Endpoint: k.url()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	arn := "arn:aws:kinesis:eu-west-1:" + account + ":stream/"
	if ok, err := snk.StreamExists(ctx, arn+"bin"); !ok || err != nil {
		t.Fatalf("StreamExists(bin) = %v, %v", ok, err)
	}
	if ok, err := snk.StreamExists(ctx, arn+"nope"); ok || err != nil {
		t.Fatalf("StreamExists(nope) = %v, %v; want false, nil", ok, err)
	}

	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	recs := []emulator.KinesisRecord{{PartitionKey: "p1", Data: all}, {PartitionKey: "p2", Data: []byte{0xff, 0xfe, '"', '\\', 0}}, {PartitionKey: "p3", Data: []byte(`{"a":"é"}`)}}
	ok, err := snk.PutRecords(ctx, arn+"bin", recs)
	if err != nil || len(ok) != 3 || !ok[0] || !ok[1] || !ok[2] {
		t.Fatalf("PutRecords = %v, %v", ok, err)
	}
	c := k.client()
	it, err := c.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{StreamName: aws.String("bin"), ShardId: aws.String("shardId-000000000000"), ShardIteratorType: ktypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil || len(out.Records) != len(recs) {
		t.Fatalf("GetRecords: %d records, %v", len(out.Records), err)
	}
	for i, r := range out.Records {
		if !bytes.Equal(r.Data, recs[i].Data) || aws.ToString(r.PartitionKey) != recs[i].PartitionKey {
			t.Fatalf("record %d = %q %q, want %q %q", i, aws.ToString(r.PartitionKey), r.Data, recs[i].PartitionKey, recs[i].Data)
		}
	}

	// Errors of the whole request carry kinesalite's code.
	var coded interface{ ErrorCode() string }
	if _, err := snk.PutRecords(ctx, arn+"nope", recs); !errors.As(err, &coded) || coded.ErrorCode() != "ResourceNotFoundException" {
		t.Fatalf("PutRecords to a missing stream: %v", err)
	}
	if _, err := snk.PutRecords(ctx, arn+"bin", []emulator.KinesisRecord{{PartitionKey: "", Data: []byte("x")}}); !errors.As(err, &coded) || coded.ErrorCode() != "ValidationException" {
		t.Fatalf("PutRecords with an empty partition key: %v", err)
	}
}
