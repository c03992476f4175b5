package e2e

// The throttle manager through the real HTTP handler and the real SDK client
// (retries off), reading the raw response body of every refusal. Each test
// runs its own server with small limits and a settable clock, so a bucket
// runs dry in a request or two and refills without sleeping.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

const (
	thrMsgPTEE    = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	thrMsgHotKey  = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	thrMsgCaps    = "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
	thrMsgAccount = "Throughput exceeds the current throughput limit for your account. To request a limit increase, contact AWS Support at https://aws.amazon.com/support."

	thrTypePTEE       = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"
	thrTypeThrottling = "com.amazon.coral.availability#ThrottlingException"
	thrTypeRLE        = "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded"
)

// thrClock is the engine's clock; tests move it.
type thrClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *thrClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *thrClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// thrRecorder keeps the body of the last response.
type thrRecorder struct {
	mu   sync.Mutex
	last []byte
	next http.RoundTripper
}

func (r *thrRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	r.mu.Lock()
	r.last = b
	r.mu.Unlock()
	return resp, nil
}

func (r *thrRecorder) body() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

type thrEnv struct {
	t   *testing.T
	s   *testserver.Server
	c   *dynamodb.Client
	clk *thrClock
	rec *thrRecorder
	ctx context.Context
}

// newThrEnv starts a server whose engine options fn adjusts, with a fixed
// clock and a client that records raw bodies and never retries.
func newThrEnv(t *testing.T, fn func(*emulator.Options)) *thrEnv {
	t.Helper()
	clk := &thrClock{now: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithEngineOptions(fn))
	rec := &thrRecorder{next: http.DefaultTransport}
	cfg := s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID)
	cfg.HTTPClient = &http.Client{Transport: rec}
	return &thrEnv{t: t, s: s, c: dynamodb.NewFromConfig(cfg), clk: clk, rec: rec, ctx: context.Background()}
}

func thrARN(name string) string {
	return "arn:aws:dynamodb:" + testserver.DefaultRegion + ":" + wire.DefaultAccount + ":table/" + name
}

// table creates a table keyed by pk (S) and, when sk, sk (N).
func (e *thrEnv) table(name string, sk bool, mod func(*dynamodb.CreateTableInput)) {
	e.t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if sk {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	if mod != nil {
		mod(in)
	}
	out, err := e.c.CreateTable(e.ctx, in)
	if err != nil {
		e.t.Fatalf("CreateTable %s: %v", name, err)
	}
	if got := aws.ToString(out.TableDescription.TableArn); got != thrARN(name) {
		e.t.Fatalf("TableArn %s, want %s", got, thrARN(name))
	}
}

func provisioned(rcu, wcu int64) func(*dynamodb.CreateTableInput) {
	return func(in *dynamodb.CreateTableInput) {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(rcu), WriteCapacityUnits: aws.Int64(wcu)}
	}
}

func capped(maxRead, maxWrite int64) func(*dynamodb.CreateTableInput) {
	return func(in *dynamodb.CreateTableInput) {
		in.OnDemandThroughput = &types.OnDemandThroughput{}
		if maxRead != 0 {
			in.OnDemandThroughput.MaxReadRequestUnits = aws.Int64(maxRead)
		}
		if maxWrite != 0 {
			in.OnDemandThroughput.MaxWriteRequestUnits = aws.Int64(maxWrite)
		}
	}
}

func thrItem(pk string, sk int) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	if sk >= 0 {
		it["sk"] = &types.AttributeValueMemberN{Value: strconv.Itoa(sk)}
	}
	return it
}

func (e *thrEnv) put(table string, item map[string]types.AttributeValue) error {
	_, err := e.c.PutItem(e.ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	return err
}

func (e *thrEnv) get(table string, key map[string]types.AttributeValue) error {
	_, err := e.c.GetItem(e.ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	return err
}

func (e *thrEnv) mustServe(what string, err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("%s: %v (body %s)", what, err, e.rec.body())
	}
}

// thrBody is a throttle error body with both spellings of the list.
type thrBody struct {
	Type  string `json:"__type"`
	Msg   string `json:"message"`
	Upper *[]struct {
		Reason   string `json:"reason"`
		Resource string `json:"resource"`
	} `json:"ThrottlingReasons"`
	Lower *[]struct {
		Reason   string `json:"reason"`
		Resource string `json:"resource"`
	} `json:"throttlingReasons"`
}

// wantThrottle checks err and the raw body of the last response: __type,
// message, and the reasons list under exactly the member key (absent when
// reason is ""), holding one {reason, resource} entry; no other members.
func (e *thrEnv) wantThrottle(err error, typ, msg, key, reason, resource string) {
	e.t.Helper()
	if err == nil {
		e.t.Fatalf("served; want %s", typ)
	}
	raw := e.rec.body()
	var members map[string]json.RawMessage
	if jerr := json.Unmarshal(raw, &members); jerr != nil {
		e.t.Fatalf("body %s: %v", raw, jerr)
	}
	var b thrBody
	if jerr := json.Unmarshal(raw, &b); jerr != nil {
		e.t.Fatalf("body %s: %v", raw, jerr)
	}
	if b.Type != typ || b.Msg != msg {
		e.t.Fatalf("body %s\nwant __type %s, message %q", raw, typ, msg)
	}
	want := 2
	if reason != "" {
		want = 3
		list := b.Upper
		if key == "throttlingReasons" {
			list = b.Lower
		}
		if list == nil || len(*list) != 1 || (*list)[0].Reason != reason || (*list)[0].Resource != resource {
			e.t.Fatalf("body %s\nwant %s [{%s %s}]", raw, key, reason, resource)
		}
	}
	if len(members) != want {
		e.t.Fatalf("body %s has %d members, want %d", raw, len(members), want)
	}
	// The parsed SDK exception exposes the same list.
	var got []types.ThrottlingReason
	var pt *types.ProvisionedThroughputExceededException
	var te *types.ThrottlingException
	var rl *types.RequestLimitExceeded
	switch {
	case errors.As(err, &pt):
		got = pt.ThrottlingReasons
	case errors.As(err, &te):
		got = te.ThrottlingReasons
	case errors.As(err, &rl):
		got = rl.ThrottlingReasons
	default:
		e.t.Fatalf("SDK error %T %v is not a throttle exception", err, err)
	}
	if reason == "" {
		if len(got) != 0 {
			e.t.Fatalf("SDK ThrottlingReasons %+v, want none", got)
		}
		return
	}
	if len(got) != 1 || aws.ToString(got[0].Reason) != reason || aws.ToString(got[0].Resource) != resource {
		e.t.Fatalf("SDK ThrottlingReasons %+v, want [{%s %s}]", got, reason, resource)
	}
}

func TestThrottleProvisionedWriteAndRead(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Prov", false, provisioned(1, 1))
	e.mustServe("first write", e.put("Prov", thrItem("a", -1)))
	err := e.put("Prov", thrItem("b", -1))
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded", thrARN("Prov"))

	e.mustServe("first read", e.get("Prov", thrItem("a", -1)))
	err = e.get("Prov", thrItem("a", -1))
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableReadProvisionedThroughputExceeded", thrARN("Prov"))

	// One second refills one unit of each: served again, no sleeping.
	e.clk.add(time.Second)
	e.mustServe("write after refill", e.put("Prov", thrItem("b", -1)))
	e.mustServe("read after refill", e.get("Prov", thrItem("a", -1)))
}

func TestThrottleProvisionedHotKey(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) {
		o.Throttle.PartitionWriteUnits, o.Throttle.PartitionReadUnits = 2, 2
	})
	e.table("ProvHot", true, provisioned(10, 10))
	for i := range 2 {
		e.mustServe("hot write", e.put("ProvHot", thrItem("hot", i)))
	}
	err := e.put("ProvHot", thrItem("hot", 9))
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteKeyRangeThroughputExceeded", thrARN("ProvHot"))
	e.mustServe("another key", e.put("ProvHot", thrItem("cold", 0)))
}

func TestThrottleOnDemandHotKey(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) {
		o.Throttle.PartitionWriteUnits, o.Throttle.PartitionReadUnits = 2, 2
	})
	e.table("Hot", true, nil)
	for i := range 2 {
		e.mustServe("hot write", e.put("Hot", thrItem("hot", i)))
	}
	// Another sort key of the same partition key value shares its bucket.
	err := e.put("Hot", thrItem("hot", 9))
	e.wantThrottle(err, thrTypeThrottling, thrMsgHotKey, "throttlingReasons", "TableWriteKeyRangeThroughputExceeded", thrARN("Hot"))
	e.mustServe("another key", e.put("Hot", thrItem("cold", 0)))

	for range 2 {
		e.mustServe("hot read", e.get("Hot", thrItem("hot", 0)))
	}
	// Measured: an on-demand hot-key read carries no reasons list.
	err = e.get("Hot", thrItem("hot", 1))
	e.wantThrottle(err, thrTypeThrottling, thrMsgHotKey, "throttlingReasons", "", "")
	e.mustServe("another key read", e.get("Hot", thrItem("cold", 0)))

	// A Query of the hot partition is refused too; another partition is not.
	q := func(pk string) error {
		_, err := e.c.Query(e.ctx, &dynamodb.QueryInput{
			TableName:                 aws.String("Hot"),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}},
		})
		return err
	}
	e.wantThrottle(q("hot"), thrTypeThrottling, thrMsgHotKey, "throttlingReasons", "", "")
	e.mustServe("query another partition", q("cold"))
}

func TestThrottleCappedQueryAndPut(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Capped", true, capped(1, 1))
	e.mustServe("first write", e.put("Capped", thrItem("a", 1)))
	err := e.put("Capped", thrItem("a", 2))
	e.wantThrottle(err, thrTypeThrottling, thrMsgCaps, "throttlingReasons", "TableWriteMaxOnDemandThroughputExceeded", thrARN("Capped"))

	q := func() error {
		_, err := e.c.Query(e.ctx, &dynamodb.QueryInput{
			TableName:                 aws.String("Capped"),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "a"}},
			ConsistentRead:            aws.Bool(true),
		})
		return err
	}
	e.mustServe("first query", q())
	e.wantThrottle(q(), thrTypeThrottling, thrMsgCaps, "throttlingReasons", "TableReadMaxOnDemandThroughputExceeded", thrARN("Capped"))
}

func TestThrottleHalfCapped(t *testing.T) {
	// A default per-table ceiling of 1 read unit, so the uncapped read side
	// runs dry as quickly as the capped write side.
	e := newThrEnv(t, func(o *emulator.Options) { o.Limits.TableMaxReadCapacityUnits = 1 })
	e.table("Half", false, capped(0, 1))
	e.mustServe("first write", e.put("Half", thrItem("a", -1)))
	err := e.put("Half", thrItem("b", -1))
	e.wantThrottle(err, thrTypeThrottling, thrMsgCaps, "throttlingReasons", "TableWriteMaxOnDemandThroughputExceeded", thrARN("Half"))

	e.mustServe("first read", e.get("Half", thrItem("a", -1)))
	err = e.get("Half", thrItem("a", -1))
	e.wantThrottle(err, thrTypeThrottling, thrMsgHotKey, "throttlingReasons", "TableReadAccountLimitExceeded", thrARN("Half"))
}

func TestThrottleAccount(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) { o.Limits.AccountMaxWriteCapacityUnits = 1 })
	e.table("Acct", false, nil)
	e.mustServe("first write", e.put("Acct", thrItem("a", -1)))

	// An ARN-form name is reduced to the bare name: the resource is the
	// table's ARN.
	err := e.put(thrARN("Acct"), thrItem("b", -1))
	e.wantThrottle(err, thrTypeRLE, thrMsgAccount, "ThrottlingReasons", "TableWriteAccountLimitExceeded", thrARN("Acct"))
	err = e.put("Acct", thrItem("b", -1))
	e.wantThrottle(err, thrTypeRLE, thrMsgAccount, "ThrottlingReasons", "TableWriteAccountLimitExceeded", thrARN("Acct"))
	// A name no table can have: the class and message, no reasons.
	for _, name := range []string{"a;b", thrARN("Acct") + "/index/I", "arn:aws:dynamodb:eu-west-1:" + wire.DefaultAccount + ":table/Acct"} {
		err = e.put(name, thrItem("b", -1))
		e.wantThrottle(err, thrTypeRLE, thrMsgAccount, "ThrottlingReasons", "", "")
	}
	// Reads draw on the read aggregate, which is not exhausted.
	e.mustServe("read", e.get("Acct", thrItem("a", -1)))
}

func TestThrottleBatchPartly(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Batch", false, provisioned(2, 2))
	reqs := func(keys ...string) []types.WriteRequest {
		var out []types.WriteRequest
		for _, k := range keys {
			out = append(out, types.WriteRequest{PutRequest: &types.PutRequest{Item: thrItem(k, -1)}})
		}
		return out
	}
	out, err := e.c.BatchWriteItem(e.ctx, &dynamodb.BatchWriteItemInput{
		RequestItems:           map[string][]types.WriteRequest{"Batch": reqs("a", "b", "c")},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	e.mustServe("partly throttled batch write", err)
	un := out.UnprocessedItems["Batch"]
	if len(un) != 1 || !reflect.DeepEqual(un[0].PutRequest.Item, thrItem("c", -1)) {
		t.Fatalf("UnprocessedItems %s", e.rec.body())
	}
	if len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 2 {
		t.Fatalf("ConsumedCapacity %s", e.rec.body())
	}
	// Nothing can be processed now: the throttle error itself.
	_, err = e.c.BatchWriteItem(e.ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Batch": reqs("c")}})
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded", thrARN("Batch"))

	keys := &types.KeysAndAttributes{Keys: []map[string]types.AttributeValue{thrItem("a", -1), thrItem("b", -1), thrItem("x", -1)}, ConsistentRead: aws.Bool(true)}
	gout, err := e.c.BatchGetItem(e.ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"Batch": *keys}})
	e.mustServe("partly throttled batch get", err)
	if len(gout.Responses["Batch"]) != 2 {
		t.Fatalf("Responses %s", e.rec.body())
	}
	uk := gout.UnprocessedKeys["Batch"]
	if len(uk.Keys) != 1 || !reflect.DeepEqual(uk.Keys[0], thrItem("x", -1)) || !aws.ToBool(uk.ConsistentRead) {
		t.Fatalf("UnprocessedKeys %s", e.rec.body())
	}
	_, err = e.c.BatchGetItem(e.ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"Batch": uk}})
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableReadProvisionedThroughputExceeded", thrARN("Batch"))
}

// wantCancelled checks a TransactionCanceledException's raw body: codes in
// order, each throttle code with its message.
func (e *thrEnv) wantCancelled(err error, codes ...string) {
	e.t.Helper()
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		e.t.Fatalf("got %v, want TransactionCanceledException (body %s)", err, e.rec.body())
	}
	var b struct {
		Message string
		Reasons []struct{ Code, Message string } `json:"CancellationReasons"`
	}
	if jerr := json.Unmarshal(e.rec.body(), &b); jerr != nil {
		e.t.Fatal(jerr)
	}
	want := "Transaction cancelled, please refer cancellation reasons for specific reasons ["
	for i, c := range codes {
		if i > 0 {
			want += ", "
		}
		want += c
	}
	want += "]"
	if b.Message != want || len(b.Reasons) != len(codes) {
		e.t.Fatalf("body %s\nwant Message %q", e.rec.body(), want)
	}
	for i, c := range codes {
		msg := ""
		switch c {
		case "ProvisionedThroughputExceeded":
			msg = thrMsgPTEE
		case "ThrottlingError":
			msg = thrMsgHotKey
		}
		if b.Reasons[i].Code != c || b.Reasons[i].Message != msg {
			e.t.Fatalf("reason %d: %+v, want %s %q", i, b.Reasons[i], c, msg)
		}
	}
}

func TestThrottleTransaction(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) { o.Throttle.PartitionWriteUnits = 2 })
	e.table("TxProv", false, provisioned(5, 1))
	e.table("TxHot", false, nil)
	tx := func(items ...types.TransactWriteItem) error {
		_, err := e.c.TransactWriteItems(e.ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
	put := func(table, pk string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: thrItem(pk, -1)}}
	}
	// Admitted on a positive balance, charged 2 transactional WCU: 1 in debt.
	e.mustServe("first transaction", tx(put("TxProv", "a")))
	e.wantCancelled(tx(put("TxHot", "x"), put("TxProv", "b")), "None", "ProvisionedThroughputExceeded")
	if err := e.get("TxHot", thrItem("x", -1)); err != nil {
		t.Fatal(err)
	}
	var gi struct{ Item map[string]any }
	if err := json.Unmarshal(e.rec.body(), &gi); err != nil || gi.Item != nil {
		t.Fatalf("a cancelled transaction wrote: %s", e.rec.body())
	}

	// On-demand hot key: ThrottlingError. 2 WCU per key, one transaction
	// of 2 transactional WCU empties it.
	e.mustServe("hot transaction", tx(put("TxHot", "hot")))
	e.wantCancelled(tx(put("TxHot", "hot")), "ThrottlingError")

	// TransactGetItems: 5 RCU, 2 per transactional read; the third is
	// admitted (1 left) and the fourth cancelled.
	get := func() error {
		_, err := e.c.TransactGetItems(e.ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String("TxProv"), Key: thrItem("a", -1)}},
		}})
		return err
	}
	for range 3 {
		e.mustServe("transactional read", get())
	}
	e.wantCancelled(get(), "ProvisionedThroughputExceeded")
}

func TestThrottleServed(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Served", false, provisioned(1, 1))
	out, err := e.c.PutItem(e.ctx, &dynamodb.PutItemInput{
		TableName: aws.String("Served"), Item: thrItem("a", -1),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	e.mustServe("put", err)
	if out.ConsumedCapacity == nil || aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != 1 {
		t.Fatalf("ConsumedCapacity %s", e.rec.body())
	}
	// Scan (no partition key) is metered on the table's bucket alone.
	_, err = e.c.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String("Served"), ConsistentRead: aws.Bool(true)})
	e.mustServe("scan", err)
	_, err = e.c.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String("Served")})
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableReadProvisionedThroughputExceeded", thrARN("Served"))
}

// TestThrottleOff: with refusals off, capacity is still reported and
// nothing is refused.
func TestThrottleOff(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) { o.Throttle.Off = true })
	e.table("Off", false, provisioned(1, 1))
	for i := range 20 {
		out, err := e.c.PutItem(e.ctx, &dynamodb.PutItemInput{
			TableName: aws.String("Off"), Item: thrItem(strconv.Itoa(i), -1),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		e.mustServe("put", err)
		if aws.ToFloat64(out.ConsumedCapacity.CapacityUnits) != 1 {
			t.Fatalf("ConsumedCapacity %s", e.rec.body())
		}
	}
}

// TestThrottleUpdateTable: raising a table's throughput re-registers it,
// scaling the balance to the new rate; a restart registers tables afresh.
func TestThrottleUpdateTableAndRestart(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Upd", false, provisioned(1, 1))
	e.mustServe("write", e.put("Upd", thrItem("a", -1)))
	e.wantThrottle(e.put("Upd", thrItem("b", -1)), thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded", thrARN("Upd"))
	// Half a second at 1 WCU: 0.5 units. Switching to 10 WCU scales it to
	// 5, so five 1-WCU writes are admitted and the sixth is refused.
	e.clk.add(500 * time.Millisecond)
	_, err := e.c.UpdateTable(e.ctx, &dynamodb.UpdateTableInput{
		TableName:             aws.String("Upd"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(10)},
	})
	e.mustServe("UpdateTable", err)
	for i := range 5 {
		e.mustServe("write after update", e.put("Upd", thrItem(strconv.Itoa(i), -1)))
	}
	e.wantThrottle(e.put("Upd", thrItem("z", -1)), thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded", thrARN("Upd"))

	// Switching to on-demand moves the table to the on-demand mapping (the
	// balance, empty now, keeps its seconds of capacity: one second's worth).
	e.clk.add(time.Second)
	_, err = e.c.UpdateTable(e.ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Upd"), BillingMode: types.BillingModePayPerRequest})
	e.mustServe("UpdateTable on-demand", err)
	e.mustServe("write on-demand", e.put("Upd", thrItem("z", -1)))

	// After a restart the table is registered from its stored metadata.
	_, err = e.c.UpdateTable(e.ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String("Upd"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	})
	e.mustServe("UpdateTable provisioned", err)
	e.s.Restart()
	e.mustServe("write after restart", e.put("Upd", thrItem("r", -1)))
	e.wantThrottle(e.put("Upd", thrItem("s", -1)), thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded", thrARN("Upd"))
}

// TestThrottleDescribeLimits: DescribeLimits reports the configured account
// and table figures, the ones the buckets use.
func TestThrottleDescribeLimits(t *testing.T) {
	want := api.DescribeLimitsOutput{AccountMaxReadCapacityUnits: 1000, AccountMaxWriteCapacityUnits: 900, TableMaxReadCapacityUnits: 800, TableMaxWriteCapacityUnits: 700}
	e := newThrEnv(t, func(o *emulator.Options) { o.Limits = want })
	out, err := e.c.DescribeLimits(e.ctx, &dynamodb.DescribeLimitsInput{})
	e.mustServe("DescribeLimits", err)
	got := api.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits: aws.ToInt64(out.AccountMaxReadCapacityUnits), AccountMaxWriteCapacityUnits: aws.ToInt64(out.AccountMaxWriteCapacityUnits),
		TableMaxReadCapacityUnits: aws.ToInt64(out.TableMaxReadCapacityUnits), TableMaxWriteCapacityUnits: aws.ToInt64(out.TableMaxWriteCapacityUnits),
	}
	if got != want {
		t.Fatalf("DescribeLimits %+v, want %+v", got, want)
	}
}
