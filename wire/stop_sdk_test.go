package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
	"github.com/rs/zerolog"
)

// doneLog collects the RequestDone of every request a server finished,
// and its request log.
type doneLog struct {
	mu   sync.Mutex
	done []wire.RequestDone
	log  bytes.Buffer
}

func (l *doneLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.log.Write(p)
}

// options has the server report to l.
func (l *doneLog) options(o *wire.Options) {
	o.OnRequest = l.add
	logger := zerolog.New(l)
	o.Logger = &logger
}

// logged is the request log's line for op that stopped for why.
func (l *doneLog) logged(t *testing.T, op, why string) map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.Lines(l.log.String()) {
		m := map[string]any{}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["op"] == op && m["stopped"] == why {
			return m
		}
	}
	t.Fatalf("no log line of a %s stopped=%s in:\n%s", op, why, l.log.String())
	return nil
}

func (l *doneLog) add(d wire.RequestDone) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = append(l.done, d)
}

// find is the first RequestDone of op that stopped for why.
func (l *doneLog) find(op, why string) (wire.RequestDone, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.done {
		if d.Operation == op && d.Stopped == why {
			return d, true
		}
	}
	return wire.RequestDone{}, false
}

// heavyScan makes a table whose Scan with the returned input runs for
// seconds: two items of 100,000 list elements each, and a filter of 100
// contains() over the list that never matches, evaluated in full for
// every item. The items go in through the engine's Go API, so that a
// short request timeout applies to the Scan alone.
func heavyScan(t *testing.T, s *testserver.Server) *dynamodb.ScanInput {
	t.Helper()
	ctx := s.Context()
	_, err := s.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Heavy"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	list := make([]av.Value, 100_000)
	for i := range list {
		list[i] = av.Value{Type: av.TypeN, S: "1"}
	}
	ns := api.Namespace{Account: wire.DefaultAccount, Region: testserver.DefaultRegion}
	for _, pk := range []string{"a", "b"} {
		if _, err := s.Engine().PutItem(ctx, ns, &api.PutItemInput{TableName: aws.String("Heavy"), Item: av.Item{
			"pk": {Type: av.TypeS, S: pk}, "l": {Type: av.TypeL, L: list},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	return &dynamodb.ScanInput{
		TableName:                 aws.String("Heavy"),
		FilterExpression:          aws.String(strings.TrimSuffix(strings.Repeat("contains(l, :x) OR ", 100), " OR ")),
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberN{Value: "2"}},
	}
}

// settle waits until the engine's work counter stops moving (unchanged
// across 100 ms) and returns it.
func settle(t *testing.T, s *testserver.Server) uint64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := s.Engine().WorkDone()
	for {
		time.Sleep(100 * time.Millisecond)
		now := s.Engine().WorkDone()
		if now == last {
			return now
		}
		if time.Now().After(deadline) {
			t.Fatalf("the work counter still moves after 30 s (%d)", now)
		}
		last = now
	}
}

// fronts runs a test on both HTTP fronts `extenddb serve` can run.
func fronts(t *testing.T, test func(t *testing.T, opts ...testserver.Option)) {
	t.Run("httpfront", func(t *testing.T) { test(t, testserver.WithFastFront()) })
	t.Run("net/http", func(t *testing.T) { test(t) })
}

// TestAbandonedRequestStops: a request whose client goes away stops its
// work (the engine's work counter stops moving long before the work a
// whole request does) and is not answered; the request log and
// OnRequest say it was cancelled.
func TestAbandonedRequestStops(t *testing.T) {
	fronts(t, func(t *testing.T, opts ...testserver.Option) {
		var log doneLog
		s := testserver.New(t, append(opts, testserver.WithWireOptions(log.options))...)
		in := heavyScan(t, s)
		// The same filter on PartiQL reads by key (a batch's SELECT may
		// test the key alone, so a statement reads both keys).
		filter := strings.TrimSuffix(strings.Repeat("contains(l, 2) OR ", 100), " OR ")
		stmt := &dynamodb.ExecuteStatementInput{Statement: aws.String("SELECT * FROM Heavy WHERE pk IN ['a', 'b'] AND (" + filter + ")")}
		for op, call := range map[string]func(context.Context) error{
			"Scan": func(ctx context.Context) error { _, err := s.Client.Scan(ctx, in); return err },
			"ExecuteStatement": func(ctx context.Context) error {
				_, err := s.Client.ExecuteStatement(ctx, stmt)
				return err
			},
		} {
			abandon(t, s, &log, op, call)
		}
	})
}

// abandon runs call once to its end, then again abandoning it early, and
// checks that the abandoned one stopped its work and was not answered.
func abandon(t *testing.T, s *testserver.Server, log *doneLog, op string, call func(context.Context) error) {
	t.Helper()
	start := settle(t, s)
	if err := call(s.Context()); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	whole := settle(t, s) - start
	if whole < 10_000_000 {
		t.Fatalf("a whole %s counted %d steps; the test wants a long one", op, whole)
	}

	ctx, cancel := context.WithCancel(s.Context())
	defer cancel()
	errc := make(chan error, 1)
	start = s.Engine().WorkDone()
	go func() { errc <- call(ctx) }()
	for s.Engine().WorkDone()-start < whole/20 {
		time.Sleep(time.Millisecond)
	}
	cancel() // the SDK closes its connection
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned %s returned %v", op, err)
	}
	done := settle(t, s) - start
	if done > whole/4 {
		t.Errorf("the abandoned %s went on: %d steps of the %d a whole one takes", op, done, whole)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, ok := log.find(op, wire.StoppedCancelled)
		if ok {
			if d.Status != 0 {
				t.Errorf("the abandoned %s was answered %d", op, d.Status)
			}
			if l := log.logged(t, op, wire.StoppedCancelled); l["level"] != "warn" || l["status"] != nil {
				t.Errorf("log line of the abandoned %s: %v", op, l)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no RequestDone says the %s was cancelled: %+v", op, log.done)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRequestPastDeadline: a request still running at --request-timeout
// stops and is answered InternalServerError (HTTP 500, which SDKs retry).
func TestRequestPastDeadline(t *testing.T) {
	fronts(t, func(t *testing.T, opts ...testserver.Option) {
		var log doneLog
		s := testserver.New(t, append(opts, testserver.WithWireOptions(func(o *wire.Options) {
			log.options(o)
			o.RequestTimeout = 50 * time.Millisecond
		}))...)
		in := heavyScan(t, s)
		start := settle(t, s)
		_, err := s.Client.Scan(s.Context(), in)
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "InternalServerError" {
			t.Fatalf("Scan past its deadline: %v; want InternalServerError", err)
		}
		var re *awshttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusInternalServerError {
			t.Errorf("status: %v; want 500", err)
		}
		if d, ok := log.find("Scan", wire.StoppedDeadline); !ok || d.Status != http.StatusInternalServerError || d.ErrorCode != "InternalServerError" {
			t.Errorf("RequestDone %+v, %v; want Stopped deadline, 500 InternalServerError", d, ok)
		}
		if l := log.logged(t, "Scan", wire.StoppedDeadline); l["level"] != "warn" || l["status"] != 500.0 || l["error"] != "InternalServerError" {
			t.Errorf("log line of the Scan past its deadline: %v", l)
		}
		if n := settle(t, s) - start; n > 10_000_000 {
			t.Errorf("the Scan counted %d steps after a 50 ms deadline", n)
		}
		// Short requests are untouched by the deadline.
		if _, err := s.Client.ListTables(s.Context(), &dynamodb.ListTablesInput{}); err != nil {
			t.Fatal(err)
		}
	})
}
