package e2e

// Per-index capacity through the real HTTP handler and the real SDK client
// (retries off), reading raw bodies: a global secondary index has buckets
// of its own, its reads are refused with the Index reasons and its ARN, and
// a base-table write the index cannot absorb is refused (GSI back-pressure)
// while the table itself has capacity. Each refusal has a control beside it
// that the same request without the index's share is served.

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
)

const (
	thrMsgGSIProv     = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API."
	thrMsgGSIOnDemand = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
)

func thrIndexARN(table, index string) string { return thrARN(table) + "/index/" + index }

// withGSI adds GSI "ByG" on g (S), projecting keys only, to a table made by
// thrEnv.table; tp is its provisioned throughput (nil on an on-demand table)
// and odt its OnDemandThroughput (nil for none).
func withGSI(tp *types.ProvisionedThroughput, odt *types.OnDemandThroughput) func(*dynamodb.CreateTableInput) {
	return func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:             aws.String("ByG"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: tp,
			OnDemandThroughput:    odt,
		})
	}
}

func both(mods ...func(*dynamodb.CreateTableInput)) func(*dynamodb.CreateTableInput) {
	return func(in *dynamodb.CreateTableInput) {
		for _, m := range mods {
			m(in)
		}
	}
}

func gsiTP(rcu, wcu int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(rcu), WriteCapacityUnits: aws.Int64(wcu)}
}

// gItem is an item keyed pk whose index key is g ("" leaves it out of the
// index: the index is sparse).
func gItem(pk, g string) map[string]types.AttributeValue {
	it := thrItem(pk, -1)
	if g != "" {
		it["g"] = &types.AttributeValueMemberS{Value: g}
	}
	return it
}

func (e *thrEnv) queryIndex(table, g string) error {
	_, err := e.c.Query(e.ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String("ByG"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: g}},
	})
	return err
}

// wantAbsent checks that item pk of table was not written.
func (e *thrEnv) wantAbsent(table, pk string) {
	e.t.Helper()
	e.mustServe("get", e.get(table, thrItem(pk, -1)))
	var gi struct{ Item map[string]any }
	if err := json.Unmarshal(e.rec.body(), &gi); err != nil || gi.Item != nil {
		e.t.Fatalf("a refused write wrote %s: %s", pk, e.rec.body())
	}
}

// wantIndexCancelled checks a TransactionCanceledException whose reasons
// are codes, a throttle code carrying msg.
func (e *thrEnv) wantIndexCancelled(err error, msg string, codes ...string) {
	e.t.Helper()
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		e.t.Fatalf("got %v, want TransactionCanceledException (body %s)", err, e.rec.body())
	}
	var b struct {
		Reasons []struct{ Code, Message string } `json:"CancellationReasons"`
	}
	if jerr := json.Unmarshal(e.rec.body(), &b); jerr != nil {
		e.t.Fatal(jerr)
	}
	if len(b.Reasons) != len(codes) {
		e.t.Fatalf("body %s, want codes %v", e.rec.body(), codes)
	}
	for i, c := range codes {
		want := ""
		if c != "None" {
			want = msg
		}
		if b.Reasons[i].Code != c || b.Reasons[i].Message != want {
			e.t.Fatalf("reason %d: %+v, want %s %q (body %s)", i, b.Reasons[i], c, want, e.rec.body())
		}
	}
}

// A Query of a provisioned GSI is metered on the GSI's own RCU.
func TestIndexThrottleQueryProvisioned(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("QProv", false, both(provisioned(100, 100), withGSI(gsiTP(1, 100), nil)))
	e.mustServe("put", e.put("QProv", gItem("a", "x")))
	// One small entry, eventually consistent: 0.5 RCU a Query; the bucket
	// starts with 1.
	for range 2 {
		e.mustServe("index query", e.queryIndex("QProv", "x"))
	}
	err := e.queryIndex("QProv", "x")
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "IndexReadProvisionedThroughputExceeded", thrIndexARN("QProv", "ByG"))
	// Control: the table's own reads have their own capacity.
	e.mustServe("table read", e.get("QProv", thrItem("a", -1)))
	_, err = e.c.Query(e.ctx, &dynamodb.QueryInput{
		TableName:                 aws.String("QProv"),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "a"}},
	})
	e.mustServe("table query", err)
	// A Scan of the index is metered there too.
	_, err = e.c.Scan(e.ctx, &dynamodb.ScanInput{TableName: aws.String("QProv"), IndexName: aws.String("ByG")})
	e.wantThrottle(err, thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "IndexReadProvisionedThroughputExceeded", thrIndexARN("QProv", "ByG"))
	e.clk.add(time.Second)
	e.mustServe("index query after refill", e.queryIndex("QProv", "x"))
}

// On an on-demand table, an index partition key value has its own bucket:
// base-table writes of different table keys that share an index key run it
// dry, and a Query of that index key is refused.
func TestIndexThrottleOnDemandHotIndexKey(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) {
		o.Throttle.PartitionWriteUnits, o.Throttle.PartitionReadUnits = 2, 2
	})
	e.table("HotIdx", false, withGSI(nil, nil))
	for i := range 2 {
		e.mustServe("hot index write", e.put("HotIdx", gItem("t"+strconv.Itoa(i), "hot")))
	}
	err := e.put("HotIdx", gItem("t9", "hot"))
	e.wantThrottle(err, thrTypeThrottling, thrMsgGSIOnDemand, "throttlingReasons", "IndexWriteKeyRangeThroughputExceeded", thrIndexARN("HotIdx", "ByG"))
	e.wantAbsent("HotIdx", "t9")
	// Controls: another index key, and an item the index does not hold.
	e.mustServe("cold index write", e.put("HotIdx", gItem("t9", "cold")))
	e.mustServe("sparse write", e.put("HotIdx", gItem("t8", "")))

	// 0.5 RRU a Query, 2 in the bucket.
	for range 4 {
		e.mustServe("hot index read", e.queryIndex("HotIdx", "hot"))
	}
	// As for a table's hot key, an on-demand hot-key read has no reasons.
	e.wantThrottle(e.queryIndex("HotIdx", "hot"), thrTypeThrottling, thrMsgHotKey, "throttlingReasons", "", "")
	e.mustServe("cold index read", e.queryIndex("HotIdx", "cold"))
}

// GSI back-pressure: a base-table PutItem is refused because a 1-WCU GSI
// is exhausted, naming the index, while the table has capacity; an item
// the (sparse) index does not hold is written.
func TestIndexThrottleBackPressure(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Back", false, both(provisioned(100, 100), withGSI(gsiTP(100, 1), nil)))
	e.mustServe("first indexed write", e.put("Back", gItem("a", "x")))
	err := e.put("Back", gItem("b", "x"))
	e.wantThrottle(err, thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("Back", "ByG"))
	e.wantAbsent("Back", "b")
	// Control: not in the index, so not the index's to refuse.
	e.mustServe("sparse write", e.put("Back", gItem("c", "")))
	// An update moving the item into the index is refused too; one that
	// leaves the index alone is not.
	upd := func(pk, set string) error {
		_, err := e.c.UpdateItem(e.ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String("Back"), Key: thrItem(pk, -1),
			UpdateExpression:          aws.String("SET " + set + " = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "y"}},
		})
		return err
	}
	e.wantThrottle(upd("c", "g"), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("Back", "ByG"))
	e.mustServe("unindexed update", upd("c", "note"))
	// A second refills the index's one WCU.
	e.clk.add(time.Second)
	e.mustServe("indexed write after refill", e.put("Back", gItem("b", "x")))
}

// BatchWriteItem puts the items the index refuses in UnprocessedItems, and
// fails with the index's error when it refuses every item.
func TestIndexThrottleBatch(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("BBack", false, both(provisioned(100, 100), withGSI(gsiTP(100, 1), nil)))
	reqs := func(items ...map[string]types.AttributeValue) map[string][]types.WriteRequest {
		var out []types.WriteRequest
		for _, it := range items {
			out = append(out, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		return map[string][]types.WriteRequest{"BBack": out}
	}
	out, err := e.c.BatchWriteItem(e.ctx, &dynamodb.BatchWriteItemInput{RequestItems: reqs(gItem("a", "x"), gItem("b", "x"), gItem("c", ""))})
	e.mustServe("partly refused batch", err)
	un := out.UnprocessedItems["BBack"]
	if len(un) != 1 || !reflect.DeepEqual(un[0].PutRequest.Item, gItem("b", "x")) {
		t.Fatalf("UnprocessedItems %s", e.rec.body())
	}
	e.wantAbsent("BBack", "b")
	_, err = e.c.BatchWriteItem(e.ctx, &dynamodb.BatchWriteItemInput{RequestItems: reqs(gItem("b", "x"))})
	e.wantThrottle(err, thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("BBack", "ByG"))
	// Control: a batch of items the index does not hold.
	out, err = e.c.BatchWriteItem(e.ctx, &dynamodb.BatchWriteItemInput{RequestItems: reqs(gItem("d", ""), gItem("e", ""))})
	e.mustServe("unindexed batch", err)
	if len(out.UnprocessedItems) != 0 {
		t.Fatalf("UnprocessedItems %s", e.rec.body())
	}
}

// A transaction with an action the index cannot absorb is cancelled with
// the throttle code and the GSI message, and writes nothing.
func TestIndexThrottleTransaction(t *testing.T) {
	e := newThrEnv(t, func(o *emulator.Options) { o.Throttle.PartitionWriteUnits = 2 })
	e.table("TBack", false, both(provisioned(100, 100), withGSI(gsiTP(100, 1), nil)))
	e.table("TOd", false, withGSI(nil, nil))
	tx := func(items ...types.TransactWriteItem) error {
		_, err := e.c.TransactWriteItems(e.ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
	put := func(table string, it map[string]types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: it}}
	}
	// 2 transactional WCU on a 1-WCU index: admitted, then in debt.
	e.mustServe("first transaction", tx(put("TBack", gItem("a", "x"))))
	e.wantIndexCancelled(tx(put("TBack", gItem("s", "")), put("TBack", gItem("b", "x"))), thrMsgGSIProv, "None", "ProvisionedThroughputExceeded")
	e.wantAbsent("TBack", "s")
	e.wantAbsent("TBack", "b")
	// Control: the same transaction without the indexed item.
	e.mustServe("unindexed transaction", tx(put("TBack", gItem("s", ""))))

	// On-demand: a hot index key (2 WCU) is ThrottlingError.
	e.mustServe("hot transaction", tx(put("TOd", gItem("a", "hot"))))
	e.wantIndexCancelled(tx(put("TOd", gItem("b", "hot"))), thrMsgGSIOnDemand, "ThrottlingError")
	e.mustServe("cold transaction", tx(put("TOd", gItem("b", "cold"))))
}

// An on-demand GSI's own OnDemandThroughput caps are its limit.
func TestIndexThrottleCapped(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("ICap", false, withGSI(nil, &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(1)}))
	e.mustServe("first indexed write", e.put("ICap", gItem("a", "x")))
	err := e.put("ICap", gItem("b", "y"))
	e.wantThrottle(err, thrTypeThrottling, thrMsgCaps, "throttlingReasons", "IndexWriteMaxOnDemandThroughputExceeded", thrIndexARN("ICap", "ByG"))
	e.mustServe("sparse write", e.put("ICap", gItem("c", "")))
	// Reads are not capped.
	for range 5 {
		e.mustServe("index read", e.queryIndex("ICap", "x"))
	}
}

// UpdateTable changing a GSI's throughput re-registers its buckets, the
// balance scaled to the new rate; a restart registers it again.
func TestIndexThrottleUpdateTable(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("IUpd", false, both(provisioned(100, 100), withGSI(gsiTP(1, 1), nil)))
	e.mustServe("write", e.put("IUpd", gItem("a", "x")))
	e.wantThrottle(e.put("IUpd", gItem("b", "x")), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("IUpd", "ByG"))
	// Half a second at 1 WCU is 0.5; at 10 WCU it is 5: five writes, then
	// a refusal.
	e.clk.add(500 * time.Millisecond)
	_, err := e.c.UpdateTable(e.ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String("IUpd"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
			IndexName: aws.String("ByG"), ProvisionedThroughput: gsiTP(1, 10),
		}}},
	})
	e.mustServe("UpdateTable", err)
	for i := range 5 {
		e.mustServe("write after update", e.put("IUpd", gItem("u"+strconv.Itoa(i), "x")))
	}
	e.wantThrottle(e.put("IUpd", gItem("z", "x")), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("IUpd", "ByG"))
	// After a restart the index starts afresh with one second of 10 WCU.
	e.s.Restart()
	for i := range 10 {
		e.mustServe("write after restart", e.put("IUpd", gItem("r"+strconv.Itoa(i), "x")))
	}
	e.wantThrottle(e.put("IUpd", gItem("z", "x")), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("IUpd", "ByG"))
}

// An LSI has no capacity of its own: its writes are the table's.
func TestIndexThrottleLSISharesTable(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Lsi", true, both(provisioned(100, 2), func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS})
		in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{
			IndexName:  aws.String("ByL"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}}
	}))
	it := thrItem("a", 1)
	it["l"] = &types.AttributeValueMemberS{Value: "x"}
	// 1 WCU for the item and 1 for its LSI entry: the table's 2.
	e.mustServe("write", e.put("Lsi", it))
	e.wantThrottle(e.put("Lsi", thrItem("b", 1)), thrTypePTEE, thrMsgPTEE, "ThrottlingReasons", "TableWriteProvisionedThroughputExceeded", thrARN("Lsi"))
}

// A GSI added by UpdateTable is not metered for its backfill: once ACTIVE,
// its one second of WCU is intact although it copied more items than that.
func TestIndexThrottleBackfillNotMetered(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Fill", false, provisioned(100, 100))
	for i := range 5 {
		e.mustServe("put", e.put("Fill", gItem("f"+strconv.Itoa(i), "x")))
	}
	_, err := e.c.UpdateTable(e.ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String("Fill"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:             aws.String("ByG"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: gsiTP(100, 1),
		}}},
	})
	e.mustServe("UpdateTable", err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := e.c.DescribeTable(e.ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Fill")})
		e.mustServe("DescribeTable", err)
		if g := out.Table.GlobalSecondaryIndexes; len(g) == 1 && g[0].IndexStatus == types.IndexStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("index not ACTIVE after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.mustServe("indexed write after backfill", e.put("Fill", gItem("n", "x")))
	e.wantThrottle(e.put("Fill", gItem("m", "x")), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("Fill", "ByG"))
}

// A GSI deleted and created again under its name starts afresh.
func TestIndexThrottleDeleteAndRecreate(t *testing.T) {
	e := newThrEnv(t, func(*emulator.Options) {})
	e.table("Recr", false, both(provisioned(100, 100), withGSI(gsiTP(1, 1), nil)))
	e.mustServe("first indexed write", e.put("Recr", gItem("a", "x")))
	e.wantThrottle(e.put("Recr", gItem("b", "x")), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("Recr", "ByG"))
	update := func(u types.GlobalSecondaryIndexUpdate) {
		t.Helper()
		in := &dynamodb.UpdateTableInput{TableName: aws.String("Recr"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{u}}
		if u.Create != nil {
			in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}}
		}
		_, err := e.c.UpdateTable(e.ctx, in)
		e.mustServe("UpdateTable", err)
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, err := e.c.DescribeTable(e.ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Recr")})
			e.mustServe("DescribeTable", err)
			g := out.Table.GlobalSecondaryIndexes
			if (u.Delete != nil && len(g) == 0) || (u.Create != nil && len(g) == 1 && g[0].IndexStatus == types.IndexStatusActive) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("index not settled after 10s: %+v", g)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	update(types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("ByG")}})
	// Control: with no index, nothing holds the write back.
	e.mustServe("write without the index", e.put("Recr", gItem("b", "x")))
	update(types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{
		IndexName:             aws.String("ByG"),
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
		Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		ProvisionedThroughput: gsiTP(1, 1),
	}})
	e.mustServe("write to the new index", e.put("Recr", gItem("c", "x")))
	e.wantThrottle(e.put("Recr", gItem("d", "x")), thrTypePTEE, thrMsgGSIProv, "ThrottlingReasons", "IndexWriteProvisionedThroughputExceeded", thrIndexARN("Recr", "ByG"))
}
