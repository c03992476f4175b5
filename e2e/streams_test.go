package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// DynamoDB Streams through the real aws-sdk-go-v2 dynamodbstreams client.

// stClock is a settable engine clock.
type stClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type stEnv struct {
	t   *testing.T
	s   *testserver.Server
	db  *dynamodb.Client
	st  *dynamodbstreams.Client
	clk *stClock
	ctx context.Context
}

func newStEnv(t *testing.T, opts ...testserver.Option) *stEnv {
	t.Helper()
	clk := &stClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	opts = append([]testserver.Option{testserver.WithClock(clk), itNoThrottle(),
		testserver.WithEngineOptions(func(o *emulator.Options) { o.TTLInterval = -1 })}, opts...)
	s := testserver.New(t, opts...)
	return &stEnv{t: t, s: s, db: s.Client, clk: clk, ctx: context.Background(),
		st: dynamodbstreams.NewFromConfig(s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID))}
}

// table creates a pk(S)/sk(N) table with a stream of view type view ("" for none).
func (e *stEnv) table(name, view string) string {
	e.t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	}
	if view != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(view)}
	}
	out, err := e.db.CreateTable(e.ctx, in)
	if err != nil {
		e.t.Fatal(err)
	}
	return aws.ToString(out.TableDescription.LatestStreamArn)
}

func (e *stEnv) put(table, pk string, sk int, attrs ...string) {
	e.t.Helper()
	it := map[string]types.AttributeValue{"pk": itS(pk), "sk": itN(fmt.Sprint(sk))}
	for i := 0; i+1 < len(attrs); i += 2 {
		it[attrs[i]] = itS(attrs[i+1])
	}
	if _, err := e.db.PutItem(e.ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *stEnv) del(table, pk string, sk int) {
	e.t.Helper()
	if _, err := e.db.DeleteItem(e.ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": itS(pk), "sk": itN(fmt.Sprint(sk))}}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *stEnv) describe(arn string) *sttypes.StreamDescription {
	e.t.Helper()
	var all []sttypes.Shard
	var desc *sttypes.StreamDescription
	var start *string
	for {
		out, err := e.st.DescribeStream(e.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start})
		if err != nil {
			e.t.Fatal(err)
		}
		desc = out.StreamDescription
		all = append(all, desc.Shards...)
		if desc.LastEvaluatedShardId == nil {
			break
		}
		start = desc.LastEvaluatedShardId
	}
	desc.Shards = all
	return desc
}

func (e *stEnv) iterator(arn, shard string, typ sttypes.ShardIteratorType, seq *string) string {
	e.t.Helper()
	out, err := e.st.GetShardIterator(e.ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: typ, SequenceNumber: seq})
	if err != nil {
		e.t.Fatal(err)
	}
	return aws.ToString(out.ShardIterator)
}

// drain reads a shard from iter until an empty page (open shard) or the
// end (closed shard), returning the records and whether the shard ended.
func (e *stEnv) drain(iter string, limit int32) ([]sttypes.Record, bool) {
	e.t.Helper()
	var recs []sttypes.Record
	for range 10000 {
		in := &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iter)}
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		out, err := e.st.GetRecords(e.ctx, in)
		if err != nil {
			e.t.Fatal(err)
		}
		recs = append(recs, out.Records...)
		if out.NextShardIterator == nil {
			return recs, true
		}
		if len(out.Records) == 0 {
			return recs, false
		}
		iter = *out.NextShardIterator
	}
	e.t.Fatal("drain did not end")
	return nil, false
}

// readAll reads every shard of the stream to its end, parents first.
func (e *stEnv) readAll(arn string) []sttypes.Record {
	e.t.Helper()
	d := e.describe(arn)
	var recs []sttypes.Record
	for _, sh := range d.Shards {
		r, ended := e.drain(e.iterator(arn, *sh.ShardId, sttypes.ShardIteratorTypeTrimHorizon, nil), 0)
		if ended != (sh.SequenceNumberRange.EndingSequenceNumber != nil) {
			e.t.Fatalf("shard %s: ended=%v but range %+v", *sh.ShardId, ended, sh.SequenceNumberRange)
		}
		recs = append(recs, r...)
	}
	return recs
}

func stAPIErr(t *testing.T, err error, code, msgPrefix string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want %s", err, code)
	}
	if ae.ErrorCode() != code || !strings.HasPrefix(ae.ErrorMessage(), msgPrefix) {
		t.Fatalf("got %s: %q, want %s: %q…", ae.ErrorCode(), ae.ErrorMessage(), code, msgPrefix)
	}
}

func sAttr(img map[string]sttypes.AttributeValue, name string) string {
	switch v := img[name].(type) {
	case *sttypes.AttributeValueMemberS:
		return v.Value
	case *sttypes.AttributeValueMemberN:
		return v.Value
	case nil:
		return "<nil>"
	}
	return "?"
}

func TestStreamsViewTypesAndRecords(t *testing.T) {
	for _, view := range []string{"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"} {
		t.Run(view, func(t *testing.T) {
			e := newStEnv(t)
			arn := e.table("Tab", view)
			if !strings.HasPrefix(arn, "arn:aws:dynamodb:us-east-1:") || !strings.Contains(arn, ":table/Tab/stream/2026-03-01T12:00:00.000") {
				t.Fatalf("LatestStreamArn %q", arn)
			}
			e.put("Tab", "a", 1, "v", "one")
			e.put("Tab", "a", 1, "v", "one") // unchanged: no record
			e.put("Tab", "a", 1, "v", "two")
			e.del("Tab", "a", 1)
			e.del("Tab", "a", 1) // absent: no record
			recs := e.readAll(arn)
			if len(recs) != 3 {
				t.Fatalf("%d records, want 3: %+v", len(recs), recs)
			}
			wantNames := []sttypes.OperationType{"INSERT", "MODIFY", "REMOVE"}
			wantNew := []string{"one", "two", "<nil>"}
			wantOld := []string{"<nil>", "one", "two"}
			prev := ""
			for i, r := range recs {
				d := r.Dynamodb
				if r.EventName != wantNames[i] || aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.EventVersion) != "1.1" ||
					aws.ToString(r.AwsRegion) != "us-east-1" || len(aws.ToString(r.EventID)) == 0 || r.UserIdentity != nil {
					t.Errorf("record %d envelope: %+v", i, r)
				}
				seq := aws.ToString(d.SequenceNumber)
				if len(seq) < 21 || seq <= prev {
					t.Errorf("record %d sequence %q after %q", i, seq, prev)
				}
				prev = seq
				if sAttr(d.Keys, "pk") != "a" || sAttr(d.Keys, "sk") != "1" || len(d.Keys) != 2 {
					t.Errorf("record %d keys %+v", i, d.Keys)
				}
				if string(d.StreamViewType) != view || aws.ToInt64(d.SizeBytes) <= 0 || d.ApproximateCreationDateTime == nil ||
					!d.ApproximateCreationDateTime.Equal(e.clk.Now()) {
					t.Errorf("record %d data %+v", i, d)
				}
				hasNew := view == "NEW_IMAGE" || view == "NEW_AND_OLD_IMAGES"
				hasOld := view == "OLD_IMAGE" || view == "NEW_AND_OLD_IMAGES"
				gotNew, gotOld := "<nil>", "<nil>"
				if d.NewImage != nil {
					gotNew = sAttr(d.NewImage, "v")
				}
				if d.OldImage != nil {
					gotOld = sAttr(d.OldImage, "v")
				}
				if (hasNew && gotNew != wantNew[i]) || (!hasNew && d.NewImage != nil) {
					t.Errorf("record %d NewImage %+v", i, d.NewImage)
				}
				if (hasOld && gotOld != wantOld[i]) || (!hasOld && d.OldImage != nil) {
					t.Errorf("record %d OldImage %+v", i, d.OldImage)
				}
			}
		})
	}
}

func TestStreamsNoStreamNoRecords(t *testing.T) {
	e := newStEnv(t)
	e.table("Plain", "")
	e.put("Plain", "a", 1)
	out, err := e.st.ListStreams(e.ctx, &dynamodbstreams.ListStreamsInput{})
	if err != nil || len(out.Streams) != 0 {
		t.Fatalf("ListStreams: %+v %v", out, err)
	}
}

func TestStreamsBatchAndTransaction(t *testing.T) {
	e := newStEnv(t)
	arn := e.table("Tab", "NEW_IMAGE")
	var reqs []types.WriteRequest
	for i := range 5 {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": itS("b"), "sk": itN(fmt.Sprint(i))}}})
	}
	if _, err := e.db.BatchWriteItem(e.ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Tab": reqs}}); err != nil {
		t.Fatal(err)
	}
	key := func(sk int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": itS("b"), "sk": itN(fmt.Sprint(sk))}
	}
	_, err := e.db.TransactWriteItems(e.ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String("Tab"), Key: key(0)}},
		{Update: &types.Update{TableName: aws.String("Tab"), Key: key(1), UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": itS("x")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("Tab"), Key: key(2), ConditionExpression: aws.String("attribute_exists(pk)")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	recs := e.readAll(arn)
	var got []string
	for _, r := range recs {
		got = append(got, string(r.EventName)+sAttr(r.Dynamodb.Keys, "sk"))
	}
	// Batch items in any order, then the transaction's two changes (not the check).
	if len(got) != 7 || got[5] == got[6] {
		t.Fatalf("records %v", got)
	}
	if want := map[string]bool{"REMOVE0": true, "MODIFY1": true}; !want[got[5]] || !want[got[6]] {
		t.Fatalf("transaction records %v", got[5:])
	}
}

func TestStreamsIteratorTypesAndLimit(t *testing.T) {
	e := newStEnv(t)
	arn := e.table("Tab", "KEYS_ONLY")
	for i := range 10 {
		e.put("Tab", "p", i)
	}
	shard := *e.describe(arn).Shards[0].ShardId
	all, _ := e.drain(e.iterator(arn, shard, sttypes.ShardIteratorTypeTrimHorizon, nil), 3)
	if len(all) != 10 {
		t.Fatalf("paged read got %d records", len(all))
	}
	for i, r := range all {
		if sAttr(r.Dynamodb.Keys, "sk") != fmt.Sprint(i) {
			t.Fatalf("record %d is %v", i, r.Dynamodb.Keys)
		}
	}
	seq4 := all[4].Dynamodb.SequenceNumber
	at, _ := e.drain(e.iterator(arn, shard, sttypes.ShardIteratorTypeAtSequenceNumber, seq4), 0)
	after, _ := e.drain(e.iterator(arn, shard, sttypes.ShardIteratorTypeAfterSequenceNumber, seq4), 0)
	if len(at) != 6 || *at[0].Dynamodb.SequenceNumber != *seq4 || len(after) != 5 || sAttr(after[0].Dynamodb.Keys, "sk") != "5" {
		t.Fatalf("AT %d records, AFTER %d", len(at), len(after))
	}
	latest := e.iterator(arn, shard, sttypes.ShardIteratorTypeLatest, nil)
	out, err := e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(latest)})
	if err != nil || len(out.Records) != 0 || out.NextShardIterator == nil {
		t.Fatalf("LATEST before writes: %+v %v", out, err)
	}
	e.put("Tab", "p", 99)
	out, err = e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: out.NextShardIterator})
	if err != nil || len(out.Records) != 1 || sAttr(out.Records[0].Dynamodb.Keys, "sk") != "99" {
		t.Fatalf("LATEST after a write: %+v %v", out, err)
	}
	one, err := e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(e.iterator(arn, shard, sttypes.ShardIteratorTypeTrimHorizon, nil)), Limit: aws.Int32(1)})
	if err != nil || len(one.Records) != 1 {
		t.Fatalf("Limit 1: %+v %v", one, err)
	}
}

// TestStreamsAtTimestamp: AT_TIMESTAMP starts at the first record whose
// ApproximateCreationDateTime is at or after the time; before the trim
// horizon it is TRIM_HORIZON; past the last record it waits for the next
// one; in the future, missing or beside another type it is refused.
func TestStreamsAtTimestamp(t *testing.T) {
	e := newStEnv(t)
	arn := e.table("Tab", "KEYS_ONLY")
	start := e.clk.Now()
	e.put("Tab", "p", 0)
	e.put("Tab", "p", 1)
	e.clk.add(10 * time.Second)
	e.put("Tab", "p", 2)
	e.put("Tab", "p", 3)
	e.clk.add(10 * time.Second)
	e.put("Tab", "p", 4)
	shard := *e.describe(arn).Shards[0].ShardId
	at := func(ts time.Time) string {
		t.Helper()
		out, err := e.st.GetShardIterator(e.ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
			ShardIteratorType: sttypes.ShardIteratorTypeAtTimestamp, Timestamp: aws.Time(ts)})
		if err != nil {
			t.Fatalf("AT_TIMESTAMP %s: %v", ts, err)
		}
		return aws.ToString(out.ShardIterator)
	}
	sks := func(recs []sttypes.Record) string {
		var s []string
		for _, r := range recs {
			s = append(s, sAttr(r.Dynamodb.Keys, "sk"))
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		after time.Duration
		want  string
	}{
		{-25 * time.Hour, "0,1,2,3,4"}, // before the trim horizon: TRIM_HORIZON
		{-time.Second, "0,1,2,3,4"},
		{0, "0,1,2,3,4"},
		{5500 * time.Millisecond, "2,3,4"},
		{10 * time.Second, "2,3,4"},
		{10*time.Second + time.Millisecond, "4"},
		{20 * time.Second, "4"},
	} {
		if recs, _ := e.drain(at(start.Add(c.after)), 0); sks(recs) != c.want {
			t.Errorf("AT_TIMESTAMP start%+v: records %q, want %q", c.after, sks(recs), c.want)
		}
	}
	// Past the last record: nothing yet, then the next write.
	e.clk.add(time.Second)
	iter := at(e.clk.Now())
	out, err := e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iter)})
	if err != nil || len(out.Records) != 0 || out.NextShardIterator == nil {
		t.Fatalf("AT_TIMESTAMP now: %+v %v", out, err)
	}
	e.put("Tab", "p", 5)
	if recs, _ := e.drain(*out.NextShardIterator, 0); sks(recs) != "5" {
		t.Fatalf("AT_TIMESTAMP now, after a write: records %q, want 5", sks(recs))
	}

	gsi := func(in dynamodbstreams.GetShardIteratorInput) error {
		in.StreamArn, in.ShardId = aws.String(arn), aws.String(shard)
		_, err := e.st.GetShardIterator(e.ctx, &in)
		return err
	}
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{ShardIteratorType: "AT_TIMESTAMP", Timestamp: aws.Time(e.clk.Now().Add(time.Minute))}),
		"ValidationException", "The Timestamp parameter cannot be in the future.")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{ShardIteratorType: "AT_TIMESTAMP"}),
		"ValidationException", "Must specify timestamp for iterator type AT_TIMESTAMP")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{ShardIteratorType: "TRIM_HORIZON", Timestamp: aws.Time(start)}),
		"ValidationException", "Timestamp must not be specified for iterator type TRIM_HORIZON")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{ShardIteratorType: "AT_TIMESTAMP", Timestamp: aws.Time(start), SequenceNumber: aws.String("100000000000000000001")}),
		"ValidationException", "Sequence number must not be specified for iterator type AT_TIMESTAMP")
}

func TestStreamsListAndDescribe(t *testing.T) {
	e := newStEnv(t)
	var arns []string
	for _, n := range []string{"TabA", "TabB", "TabC"} {
		arns = append(arns, e.table(n, "NEW_IMAGE"))
	}
	e.table("TabD", "")
	out, err := e.st.ListStreams(e.ctx, &dynamodbstreams.ListStreamsInput{})
	if err != nil || len(out.Streams) != 3 || out.LastEvaluatedStreamArn != nil {
		t.Fatalf("ListStreams: %+v %v", out, err)
	}
	for i, s := range out.Streams {
		if *s.StreamArn != arns[i] || *s.TableName != "Tab"+string(rune('A'+i)) || !strings.HasSuffix(arns[i], "/stream/"+*s.StreamLabel) {
			t.Errorf("stream %d: %+v", i, s)
		}
	}
	var paged []string
	var start *string
	for {
		p, err := e.st.ListStreams(e.ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(2), ExclusiveStartStreamArn: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Streams {
			paged = append(paged, *s.StreamArn)
		}
		if p.LastEvaluatedStreamArn == nil {
			break
		}
		start = p.LastEvaluatedStreamArn
	}
	if strings.Join(paged, " ") != strings.Join(arns, " ") {
		t.Fatalf("paged ListStreams %v", paged)
	}
	one, err := e.st.ListStreams(e.ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("TabB")})
	if err != nil || len(one.Streams) != 1 || *one.Streams[0].StreamArn != arns[1] {
		t.Fatalf("ListStreams(B): %+v %v", one, err)
	}
	_, err = e.st.ListStreams(e.ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Nope")})
	stAPIErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")

	d := e.describe(arns[0])
	if d.StreamStatus != sttypes.StreamStatusEnabled || d.StreamViewType != sttypes.StreamViewTypeNewImage || *d.TableName != "TabA" ||
		*d.StreamArn != arns[0] || len(d.KeySchema) != 2 || *d.KeySchema[0].AttributeName != "pk" || d.KeySchema[1].KeyType != sttypes.KeyTypeRange ||
		!d.CreationRequestDateTime.Equal(e.clk.Now()) || len(d.Shards) != 1 || d.Shards[0].ParentShardId != nil ||
		d.Shards[0].SequenceNumberRange.StartingSequenceNumber == nil || d.Shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
		t.Fatalf("DescribeStream: %+v", d)
	}
	if l := len(*d.Shards[0].ShardId); l < 28 || l > 65 {
		t.Errorf("shard id %q length %d", *d.Shards[0].ShardId, l)
	}
	bogus := strings.Replace(arns[0], "/stream/", "/stream/1999-", 1)
	_, err = e.st.DescribeStream(e.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(bogus)})
	stAPIErr(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+bogus+" not found")
	_, err = e.st.DescribeStream(e.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arns[0]), Limit: aws.Int32(0)})
	stAPIErr(t, err, "ValidationException", "1 validation error detected: Value '0' at 'limit'")
}

func TestStreamsErrors(t *testing.T) {
	e := newStEnv(t)
	arn := e.table("Tab", "KEYS_ONLY")
	e.put("Tab", "a", 1)
	shard := *e.describe(arn).Shards[0].ShardId
	gsi := func(in dynamodbstreams.GetShardIteratorInput) error {
		_, err := e.st.GetShardIterator(e.ctx, &in)
		return err
	}
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: "TRIM_HORIZON"}),
		"ResourceNotFoundException", "Requested resource not found: Shard does not exist")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn + "x"), ShardId: aws.String(shard), ShardIteratorType: "TRIM_HORIZON"}),
		"ResourceNotFoundException", "Requested resource not found: Stream: "+arn+"x not found")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: "AT_SEQUENCE_NUMBER"}),
		"ValidationException", "Must specify sequence number")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: "AT_SEQUENCE_NUMBER", SequenceNumber: aws.String("999999999999999999999")}),
		"ValidationException", "Invalid SequenceNumber")
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: "SIDEWAYS"}),
		"ValidationException", "1 validation error detected: Value 'SIDEWAYS' at 'shardIteratorType'")

	iter := e.iterator(arn, shard, sttypes.ShardIteratorTypeTrimHorizon, nil)
	_, err := e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iter), Limit: aws.Int32(1001)})
	stAPIErr(t, err, "ValidationException", "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000")
	_, err = e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("garbage")})
	stAPIErr(t, err, "ValidationException", "Invalid ShardIterator")

	// Iterators expire after 15 minutes.
	e.clk.add(15*time.Minute + time.Second)
	_, err = e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iter)})
	stAPIErr(t, err, "ExpiredIteratorException", "Iterator expired. The iterator was created at time Sun Mar 01 12:00:00 UTC 2026 while right now it is Sun Mar 01 12:15:01 UTC 2026")

	// Records older than 24 hours are trimmed.
	seq := e.readAll(arn)[0].Dynamodb.SequenceNumber
	e.clk.add(24 * time.Hour)
	stAPIErr(t, gsi(dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: "AT_SEQUENCE_NUMBER", SequenceNumber: seq}),
		"TrimmedDataAccessException", "")
	if recs := e.readAll(arn); len(recs) != 0 {
		t.Fatalf("TRIM_HORIZON after 24h read %d trimmed records", len(recs))
	}
}

func TestStreamsShardRollover(t *testing.T) {
	e := newStEnv(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.StreamShardRollover = time.Hour }))
	arn := e.table("Tab", "NEW_AND_OLD_IMAGES")
	for i := range 3 {
		e.put("Tab", "p", i)
		e.clk.add(time.Hour)
	}
	d := e.describe(arn)
	if len(d.Shards) != 4 {
		t.Fatalf("%d shards after 3 hours, want 4", len(d.Shards))
	}
	for i, sh := range d.Shards {
		r := sh.SequenceNumberRange
		closed := i < 3
		if (r.EndingSequenceNumber != nil) != closed || (i > 0) != (sh.ParentShardId != nil) || (i > 0 && *sh.ParentShardId != *d.Shards[i-1].ShardId) {
			t.Errorf("shard %d: %+v", i, sh)
		}
		if closed && *r.EndingSequenceNumber < *r.StartingSequenceNumber {
			t.Errorf("shard %d range %v..%v", i, *r.StartingSequenceNumber, *r.EndingSequenceNumber)
		}
		if i > 0 && *r.StartingSequenceNumber <= *d.Shards[i-1].SequenceNumberRange.EndingSequenceNumber {
			t.Errorf("shard %d starts at %s before its parent ends", i, *r.StartingSequenceNumber)
		}
	}
	recs := e.readAll(arn)
	if len(recs) != 3 {
		t.Fatalf("%d records across shards", len(recs))
	}
	// Paged DescribeStream.
	p, err := e.st.DescribeStream(e.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), Limit: aws.Int32(3)})
	if err != nil || len(p.StreamDescription.Shards) != 3 || p.StreamDescription.LastEvaluatedShardId == nil || *p.StreamDescription.LastEvaluatedShardId != *d.Shards[2].ShardId {
		t.Fatalf("DescribeStream Limit 3: %+v %v", p, err)
	}
	// A closed shard read from LATEST ends at once.
	out, err := e.st.GetRecords(e.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(e.iterator(arn, *d.Shards[0].ShardId, sttypes.ShardIteratorTypeLatest, nil))})
	if err != nil || len(out.Records) != 0 || out.NextShardIterator != nil {
		t.Fatalf("LATEST on a closed shard: %+v %v", out, err)
	}
}

func TestStreamsDisableReenable(t *testing.T) {
	e := newStEnv(t)
	first := e.table("Tab", "KEYS_ONLY")
	e.put("Tab", "a", 1)
	upd := func(spec *types.StreamSpecification) {
		t.Helper()
		e.clk.add(time.Second)
		if _, err := e.db.UpdateTable(e.ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Tab"), StreamSpecification: spec}); err != nil {
			t.Fatal(err)
		}
	}
	upd(&types.StreamSpecification{StreamEnabled: aws.Bool(false)})
	e.put("Tab", "a", 2) // no stream: no record anywhere
	d := e.describe(first)
	if d.StreamStatus != sttypes.StreamStatusDisabled || d.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Fatalf("disabled stream: %+v", d)
	}
	if recs := e.readAll(first); len(recs) != 1 {
		t.Fatalf("disabled stream has %d records", len(recs))
	}
	upd(&types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage})
	dt, err := e.db.DescribeTable(e.ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Tab")})
	if err != nil {
		t.Fatal(err)
	}
	second := aws.ToString(dt.Table.LatestStreamArn)
	if second == first {
		t.Fatal("re-enabling kept the stream ARN")
	}
	e.put("Tab", "a", 3)
	recs := e.readAll(second)
	if len(recs) != 1 || sAttr(recs[0].Dynamodb.Keys, "sk") != "3" || recs[0].Dynamodb.NewImage == nil {
		t.Fatalf("new stream records %+v", recs)
	}
	if d := e.describe(second); d.StreamStatus != sttypes.StreamStatusEnabled {
		t.Fatalf("new stream status %s", d.StreamStatus)
	}
	ls, err := e.st.ListStreams(e.ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Tab")})
	if err != nil || len(ls.Streams) != 2 {
		t.Fatalf("ListStreams: %+v %v", ls, err)
	}
	// The old stream ages out 24 hours after it was disabled.
	e.clk.add(25 * time.Hour)
	_, err = e.st.DescribeStream(e.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	stAPIErr(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+first+" not found")
}

func TestStreamsSurviveRestart(t *testing.T) {
	e := newStEnv(t, testserver.WithDataDir(t.TempDir()))
	arn := e.table("Tab", "NEW_IMAGE")
	e.put("Tab", "a", 1)
	e.put("Tab", "a", 2)
	before := e.readAll(arn)
	e.s.Restart()
	e.put("Tab", "a", 3)
	after := e.readAll(arn)
	if len(before) != 2 || len(after) != 3 {
		t.Fatalf("records before %d, after restart %d", len(before), len(after))
	}
	for i := range before {
		if *before[i].Dynamodb.SequenceNumber != *after[i].Dynamodb.SequenceNumber || *before[i].EventID != *after[i].EventID {
			t.Fatalf("record %d changed across restart", i)
		}
	}
	if *after[2].Dynamodb.SequenceNumber <= *after[1].Dynamodb.SequenceNumber {
		t.Fatalf("sequence went back after restart: %s then %s", *after[1].Dynamodb.SequenceNumber, *after[2].Dynamodb.SequenceNumber)
	}
}

// TestStreamsBoto3 runs e2e/python/streams_check.py (boto3's dynamodb and
// dynamodbstreams clients) against the server; skipped without python3 and boto3.
func TestStreamsBoto3(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	if err := exec.Command(py, "-c", "import boto3").Run(); err != nil {
		t.Skip("boto3 not installed")
	}
	e := newStEnv(t)
	cmd := exec.CommandContext(t.Context(), py, filepath.Join("python", "streams_check.py"), e.s.URL)
	cmd.Env = append(os.Environ(), "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "OK 3") {
		t.Fatalf("boto3 check: %v\n%s", err, out)
	}
}

// TestStreamsConcurrentWriters: every acknowledged write has exactly one
// record, sequence numbers are unique and increasing in read order, and
// each item's records are in its write order.
func TestStreamsConcurrentWriters(t *testing.T) {
	e := newStEnv(t)
	arn := e.table("Tab", "NEW_IMAGE")
	const writers, per = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				it := map[string]types.AttributeValue{"pk": itS(fmt.Sprint("w", w)), "sk": itN("1"), "v": itN(fmt.Sprint(i))}
				if _, err := e.db.PutItem(e.ctx, &dynamodb.PutItemInput{TableName: aws.String("Tab"), Item: it}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	recs := e.readAll(arn)
	if len(recs) != writers*per {
		t.Fatalf("%d records, want %d", len(recs), writers*per)
	}
	last := map[string]int{}
	prev := ""
	for _, r := range recs {
		seq := *r.Dynamodb.SequenceNumber
		if seq <= prev {
			t.Fatalf("sequence %s after %s", seq, prev)
		}
		prev = seq
		pk := sAttr(r.Dynamodb.Keys, "pk")
		v := 0
		fmt.Sscan(sAttr(r.Dynamodb.NewImage, "v"), &v)
		if n, ok := last[pk]; ok && v != n+1 {
			t.Fatalf("item %s: record v=%d after v=%d", pk, v, n)
		}
		last[pk] = v
	}
}
