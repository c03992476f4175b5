package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// The shape of LargeResponses' table: each read below answers about
// 100 items × 1 KB, the size at which "use of closed network connection"
// was seen (a response larger than the client's 4 KB read buffer).
const (
	largeItems = 100
	largeValue = 1000
)

// LargeResponses is a table whose one-partition Query, BatchGetItem of
// every key and GetRecords of its stream each answer about 100 KB, for
// hammering the server with large responses from the real SDK client.
type LargeResponses struct {
	Table     string
	StreamARN string
	ShardID   string
}

// LargeResponseOps are the operations Round knows.
var LargeResponseOps = []string{"Query", "BatchGetItem", "GetRecords"}

// largeValueOf is item sk's value: different per item, so a response
// that mixed up items or buffers would not pass the check.
func largeValueOf(sk int) string {
	p := strconv.Itoa(sk) + "-"
	return (strings.Repeat(p, largeValue/len(p)+1))[:largeValue]
}

// SeedLargeResponses creates table (with a NEW_IMAGE stream) and writes
// its items through db.
func SeedLargeResponses(ctx context.Context, db *dynamodb.Client, st *dynamodbstreams.Client, table string) (*LargeResponses, error) {
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		return nil, err
	}
	l := &LargeResponses{Table: table, StreamARN: aws.ToString(out.TableDescription.LatestStreamArn)}
	for first := 0; first < largeItems; first += 25 {
		var reqs []types.WriteRequest
		for sk := first; sk < first+25 && sk < largeItems; sk++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "p"},
				"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
				"v":  &types.AttributeValueMemberS{Value: largeValueOf(sk)},
			}}})
		}
		bw, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		if err != nil {
			return nil, err
		}
		if n := len(bw.UnprocessedItems[table]); n > 0 {
			return nil, fmt.Errorf("seeding %s: %d unprocessed items", table, n)
		}
	}
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(l.StreamARN)})
	if err != nil {
		return nil, err
	}
	if len(ds.StreamDescription.Shards) == 0 {
		return nil, fmt.Errorf("stream %s has no shard", l.StreamARN)
	}
	l.ShardID = aws.ToString(ds.StreamDescription.Shards[0].ShardId)
	return l, nil
}

// Round runs op (one of LargeResponseOps) once and checks that every item
// came back whole.
func (l *LargeResponses) Round(ctx context.Context, db *dynamodb.Client, st *dynamodbstreams.Client, op string) error {
	var items []map[string]types.AttributeValue
	switch op {
	case "Query":
		out, err := db.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(l.Table),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p"}},
		})
		if err != nil {
			return err
		}
		items = out.Items
	case "BatchGetItem":
		keys := make([]map[string]types.AttributeValue, largeItems)
		for sk := range keys {
			keys[sk] = map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "p"},
				"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
			}
		}
		out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{l.Table: {Keys: keys}}})
		if err != nil {
			return err
		}
		if n := len(out.UnprocessedKeys[l.Table].Keys); n > 0 {
			return fmt.Errorf("BatchGetItem: %d unprocessed keys", n)
		}
		items = out.Responses[l.Table]
	case "GetRecords":
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(l.StreamARN), ShardId: aws.String(l.ShardID), ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			return err
		}
		out, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(largeItems)})
		if err != nil {
			return err
		}
		return checkRecords(out.Records)
	default:
		return fmt.Errorf("unknown op %q", op)
	}
	return checkItems(op, items)
}

func checkItems(op string, items []map[string]types.AttributeValue) error {
	if len(items) != largeItems {
		return fmt.Errorf("%s: %d items, want %d", op, len(items), largeItems)
	}
	for _, it := range items {
		sk, _ := it["sk"].(*types.AttributeValueMemberN)
		v, _ := it["v"].(*types.AttributeValueMemberS)
		if sk == nil || v == nil {
			return fmt.Errorf("%s: item without sk or v: %v", op, it)
		}
		n, err := strconv.Atoi(sk.Value)
		if err != nil || v.Value != largeValueOf(n) {
			return fmt.Errorf("%s: item %s has a wrong value", op, sk.Value)
		}
	}
	return nil
}

func checkRecords(recs []sttypes.Record) error {
	if len(recs) != largeItems {
		return fmt.Errorf("GetRecords: %d records, want %d", len(recs), largeItems)
	}
	seen := make(map[int]bool, largeItems)
	for i, r := range recs {
		if r.Dynamodb == nil {
			return fmt.Errorf("GetRecords: record %d has no change", i)
		}
		img := r.Dynamodb.NewImage
		sk, _ := img["sk"].(*sttypes.AttributeValueMemberN)
		v, _ := img["v"].(*sttypes.AttributeValueMemberS)
		if sk == nil || v == nil {
			return fmt.Errorf("GetRecords: record %d has no sk or v", i)
		}
		n, err := strconv.Atoi(sk.Value)
		if err != nil || seen[n] || v.Value != largeValueOf(n) {
			return fmt.Errorf("GetRecords: record %d (sk %s) is repeated or has a wrong image", i, sk.Value)
		}
		seen[n] = true
	}
	return nil
}

// WriteResult records what net/http's write loop made of each request
// (httptrace's WroteRequest), so a failed call can be told apart.
type WriteResult struct {
	mu  sync.Mutex
	err error
	set bool
}

// Context returns ctx with the trace that fills r.
func (r *WriteResult) Context(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		r.mu.Lock()
		r.err, r.set = i.Err, true
		r.mu.Unlock()
	}})
}

// Get returns whether the write loop reported, and its error.
func (r *WriteResult) Get() (reported bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set, r.err
}

// Hammer runs LargeResponseOps from workers goroutines, rounds times
// each, and returns how many calls it made and the failed ones.
func (l *LargeResponses) Hammer(ctx context.Context, db *dynamodb.Client, st *dynamodbstreams.Client, workers, rounds int) (calls int, failures []LargeResponseFailure) {
	var mu sync.Mutex
	var n atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				op := LargeResponseOps[(w+r)%len(LargeResponseOps)]
				var wr WriteResult
				err := l.Round(wr.Context(ctx), db, st, op)
				n.Add(1)
				if err != nil {
					set, werr := wr.Get()
					mu.Lock()
					failures = append(failures, LargeResponseFailure{Op: op, Err: err, Write: werr, Wrote: set})
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return int(n.Load()), failures
}

// LargeResponseFailure is a failed call of Hammer.
type LargeResponseFailure struct {
	Op    string
	Err   error
	Write error // what the transport's write loop ended the request with
	Wrote bool  // whether the write loop reported at all
}

// SDKRace reports whether f is the client-side race of ownedBodyClient
// (TestSDKBodyCloseRace): the connection closed by the client's own write
// loop after it ended the request with io.EOF. Nothing else is excused.
func (f LargeResponseFailure) SDKRace() bool {
	return errors.Is(f.Err, net.ErrClosed) && f.Wrote && errors.Is(f.Write, io.EOF)
}

func (f LargeResponseFailure) String() string {
	return fmt.Sprintf("%s: %v (write loop: %v)", f.Op, f.Err, f.Write)
}

// Check hammers l (8 workers) through the clients tests use
// (SDKHTTPClient: must never fail) and through the bare SDK client (may
// fail only by the client-side race, each failure checked to be it), and
// logs how often the bare client failed. newClients makes the DynamoDB and
// Streams clients of the server under test over an HTTP client.
func (l *LargeResponses) Check(t testing.TB, rounds int, newClients func(aws.HTTPClient) (*dynamodb.Client, *dynamodbstreams.Client)) {
	t.Helper()
	const workers = 8
	owned := &http.Transport{MaxIdleConnsPerHost: workers}
	defer owned.CloseIdleConnections()
	db, st := newClients(SDKHTTPClient(&http.Client{Transport: owned}))
	calls, fails := l.Hammer(t.Context(), db, st, workers, rounds)
	for _, f := range fails {
		t.Errorf("SDKHTTPClient: %v", f)
	}
	t.Logf("SDKHTTPClient: %d failures in %d calls", len(fails), calls)

	bare := &http.Transport{MaxIdleConnsPerHost: workers}
	defer bare.CloseIdleConnections()
	db, st = newClients(&http.Client{Transport: bare})
	calls, fails = l.Hammer(t.Context(), db, st, workers, rounds)
	races := 0
	for _, f := range fails {
		if !f.SDKRace() {
			t.Errorf("bare SDK client, not the client-side race: %v", f)
			continue
		}
		if races++; races <= 3 {
			t.Logf("bare SDK client, the client-side race: %v", f)
		}
	}
	t.Logf("bare SDK client: %d failures in %d calls, %d of them the client-side race", len(fails), calls, races)
}
