package emulator_test

// Two ExtendDB engines on one PostgreSQL database (pgstore), each behind
// its own HTTP server, with the SDK's clients spread over both: the write
// path must be atomic in the store itself, not just within one process.
// The tests skip without EXTENDDB_TEST_POSTGRES (internal/pgtest).

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/pgtest"
	"github.com/extenddb/extenddb/pgstore"
)

// openPGNode starts a process (proc) on its own connection pool to dsn,
// its workers off: which process runs them is not what these tests check.
func openPGNode(t *testing.T, dsn string, maxTries ...int) *proc {
	t.Helper()
	po := pgstore.Options{DSN: dsn}
	if len(maxTries) > 0 {
		po.MaxTries = maxTries[0]
	}
	st, err := pgstore.Open(po)
	if err != nil {
		t.Fatal(err)
	}
	return startProc(t, st, func(o *emulator.Options) { o.TTLInterval = -1 })
}

// pgPair opens two engines on one fresh database. setup runs on the first
// before the second opens, so the second loads the tables it creates (the
// catalog's cross-process refresh is not what these tests exercise).
func pgPair(t *testing.T, setup func(c *dynamodb.Client)) [2]*proc {
	t.Helper()
	dsn := pgtest.DSN(t)
	a := openPGNode(t, dsn)
	setup(a.c)
	return [2]*proc{a, openPGNode(t, dsn)}
}

// createPKTable creates an on-demand table with string key pk.
func createPKTable(t *testing.T, c *dynamodb.Client, name string, stream *types.StreamSpecification) {
	t.Helper()
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  stream,
	})
	if err != nil {
		t.Fatal(err)
	}
}

func strKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

func numOf(t *testing.T, item map[string]types.AttributeValue, name string) int {
	t.Helper()
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("%s is %#v, want a number", name, item[name])
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSharedStoreAddIsAtomic: 16 clients, half on each process, each add 1
// to one item 100 times: the item ends at exactly 1,600.
func TestSharedStoreAddIsAtomic(t *testing.T) {
	nodes := pgPair(t, func(c *dynamodb.Client) { createPKTable(t, c, "ctr", nil) })
	const clients, adds = 16, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		c := nodes[i%2].c
		wg.Go(func() {
			for range adds {
				_, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
					TableName: aws.String("ctr"), Key: strKey("k"), UpdateExpression: aws.String("ADD n :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, nd := range nodes {
		out, err := nd.c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("ctr"), Key: strKey("k"), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if got := numOf(t, out.Item, "n"); got != clients*adds {
			t.Errorf("process %d reads n = %d, want %d", i, got, clients*adds)
		}
	}
}

// TestSharedStoreConditionalPutOneWinner: in each round, clients on both
// processes put one new key with attribute_not_exists(pk): exactly one
// succeeds, the others get ConditionalCheckFailedException.
func TestSharedStoreConditionalPutOneWinner(t *testing.T) {
	nodes := pgPair(t, func(c *dynamodb.Client) { createPKTable(t, c, "race", nil) })
	const rounds, racers = 20, 8
	for r := range rounds {
		var wins, lost atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, racers)
		for i := range racers {
			c := nodes[i%2].c
			wg.Go(func() {
				item := strKey(fmt.Sprintf("r%d", r))
				item["by"] = &types.AttributeValueMemberN{Value: strconv.Itoa(i)}
				_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("race"), Item: item,
					ConditionExpression: aws.String("attribute_not_exists(pk)")})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &ccf):
					lost.Add(1)
				default:
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", r, err)
		}
		if wins.Load() != 1 || lost.Load() != racers-1 {
			t.Fatalf("round %d: %d winners and %d refused, want 1 and %d", r, wins.Load(), lost.Load(), racers-1)
		}
	}
}

// TestSharedStoreBankTransfers: transfers between accounts with
// TransactWriteItems on both processes while TransactGetItems on both
// read every account: every read sees the total, and so does the end.
func TestSharedStoreBankTransfers(t *testing.T) {
	const accounts, start = 3, 1000
	nodes := pgPair(t, func(c *dynamodb.Client) {
		createPKTable(t, c, "bank", nil)
		for i := range accounts {
			item := strKey(fmt.Sprintf("a%d", i))
			item["bal"] = &types.AttributeValueMemberN{Value: strconv.Itoa(start)}
			if _, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("bank"), Item: item}); err != nil {
				t.Fatal(err)
			}
		}
	})
	for _, nd := range nodes {
		// Transactions that last a millisecond overlap across processes.
		emulator.SetAfterPrepare(nd.eng, func() { time.Sleep(time.Millisecond) })
	}
	readAll := &dynamodb.TransactGetItemsInput{}
	for i := range accounts {
		readAll.TransactItems = append(readAll.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: aws.String("bank"), Key: strKey(fmt.Sprintf("a%d", i))}})
	}
	sum := func(c *dynamodb.Client) (int, error) {
		out, err := c.TransactGetItems(context.Background(), readAll)
		if err != nil {
			return 0, err
		}
		s := 0
		for _, r := range out.Responses {
			s += numOf(t, r.Item, "bal")
		}
		return s, nil
	}
	const writers, transfers = 8, 50
	var wg sync.WaitGroup
	var done atomic.Bool
	var committed, cancels atomic.Int32
	errs := make(chan error, 2*writers)
	for w := range writers {
		c := nodes[w%2].c
		wg.Go(func() {
			for i := 0; i < transfers; {
				from, to := (w+i)%accounts, (w+3*i+1)%accounts
				if from == to {
					to = (to + 1) % accounts
				}
				amt := &types.AttributeValueMemberN{Value: strconv.Itoa(1 + i%7)}
				_, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String("bank"), Key: strKey(fmt.Sprintf("a%d", from)),
						UpdateExpression: aws.String("SET bal = bal - :a"), ConditionExpression: aws.String("bal >= :a"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":a": amt}}},
					{Update: &types.Update{TableName: aws.String("bank"), Key: strKey(fmt.Sprintf("a%d", to)),
						UpdateExpression:          aws.String("SET bal = bal + :a"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":a": amt}}},
				}})
				var tce *types.TransactionCanceledException
				if errors.As(err, &tce) {
					cancels.Add(1)
					continue // a conflict or too low a balance: try again, as a client would
				}
				if err != nil {
					errs <- err
					return
				}
				committed.Add(1)
				i++
			}
		})
	}
	var readers sync.WaitGroup
	var reads atomic.Int32
	for r := range 2 {
		c := nodes[r].c
		readers.Go(func() {
			for !done.Load() {
				s, err := sum(c)
				var tce *types.TransactionCanceledException
				if errors.As(err, &tce) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
				if s != accounts*start {
					errs <- fmt.Errorf("process %d read a total of %d, want %d", r, s, accounts*start)
					return
				}
			}
		})
	}
	wg.Wait()
	done.Store(true)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, nd := range nodes {
		if s, err := sum(nd.c); err != nil || s != accounts*start {
			t.Errorf("process %d: final total %d (%v), want %d", i, s, err, accounts*start)
		}
	}
	t.Logf("%d transfers (%d cancelled and retried), %d consistent reads", committed.Load(), cancels.Load(), reads.Load())
}

// TestSharedStoreStreamOrder: writes of several items through both
// processes at once give one record each, with distinct sequence numbers,
// and each item's records come out in write order with increasing ones.
func TestSharedStoreStreamOrder(t *testing.T) {
	nodes := pgPair(t, func(c *dynamodb.Client) {
		createPKTable(t, c, "str", &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage})
	})
	const items, writes = 4, 12
	var wg sync.WaitGroup
	errs := make(chan error, items)
	for it := range items {
		wg.Go(func() {
			for v := range writes {
				// Each write of an item goes to the other process than
				// the one before.
				c := nodes[(it+v)%2].c
				item := strKey(fmt.Sprintf("i%d", it))
				item["v"] = &types.AttributeValueMemberN{Value: strconv.Itoa(v)}
				// A write the store refused past its retry budget (the
				// processes' writers all contend for the table's stream
				// counter; a loaded machine makes that long) is answered
				// with the retryable 500 and wrote nothing: try it again,
				// as an SDK's retryer would.
				for try := 1; ; try++ {
					_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("str"), Item: item})
					var ise *types.InternalServerError
					if err != nil && try < 5 && errors.As(err, &ise) && ise.ErrorMessage() == "Internal server error" {
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for n, nd := range nodes {
		recs := readStream(t, nd, "str")
		if len(recs) != items*writes {
			t.Errorf("process %d reads %d records, want %d", n, len(recs), items*writes)
		}
		seen := map[string]bool{}
		last := map[string]string{}
		next := map[string]int{}
		for _, r := range recs {
			seq := aws.ToString(r.Dynamodb.SequenceNumber)
			if seen[seq] {
				t.Errorf("process %d: sequence number %s twice", n, seq)
			}
			seen[seq] = true
			pk := r.Dynamodb.Keys["pk"].(*sttypes.AttributeValueMemberS).Value
			v, _ := strconv.Atoi(r.Dynamodb.NewImage["v"].(*sttypes.AttributeValueMemberN).Value)
			if v != next[pk] {
				t.Errorf("process %d: item %s: record of write %d where write %d was due", n, pk, v, next[pk])
			}
			next[pk] = v + 1
			if p := last[pk]; p != "" && !(len(p) == len(seq) && p < seq) {
				t.Errorf("process %d: item %s: sequence number %s after %s", n, pk, seq, p)
			}
			last[pk] = seq
		}
	}
}

// readStream returns every record of table name's stream, shard by shard.
func readStream(t *testing.T, nd *proc, name string) []sttypes.Record {
	t.Helper()
	ctx := t.Context()
	d, err := nd.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	st := dynamodbstreams.NewFromConfig(nd.cfg)
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: d.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	var out []sttypes.Record
	for _, sh := range ds.StreamDescription.Shards {
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: d.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		iter := it.ShardIterator
		for iter != nil {
			recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, recs.Records...)
			if len(recs.Records) == 0 {
				break // the open shard's end for now
			}
			iter = recs.NextShardIterator
		}
	}
	return out
}

// TestSharedStoreTokenReplayOtherProcess: a ClientRequestToken's
// transaction replayed to the other process answers as a replay (writing
// nothing); with other parameters it is IdempotentParameterMismatch.
func TestSharedStoreTokenReplayOtherProcess(t *testing.T) {
	nodes := pgPair(t, func(c *dynamodb.Client) { createPKTable(t, c, "tok", nil) })
	in := func(by string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("token-1"), TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("tok"), Key: strKey("k"), UpdateExpression: aws.String("ADD n :by"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":by": &types.AttributeValueMemberN{Value: by}}}},
		}}
	}
	if _, err := nodes[0].c.TransactWriteItems(t.Context(), in("1")); err != nil {
		t.Fatal(err)
	}
	out, err := nodes[1].c.TransactWriteItems(t.Context(), func() *dynamodb.TransactWriteItemsInput {
		x := in("1")
		x.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		return x
	}())
	if err != nil {
		t.Fatalf("replay to the other process: %v", err)
	}
	// A replay reads: one read unit per action (transact_token.go).
	if len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].ReadCapacityUnits) != 1 {
		t.Errorf("replay's consumed capacity %+v, want one read unit", out.ConsumedCapacity)
	}
	_, err = nodes[1].c.TransactWriteItems(t.Context(), in("2"))
	var mismatch *types.IdempotentParameterMismatchException
	if !errors.As(err, &mismatch) {
		t.Errorf("other parameters on the other process: %v, want IdempotentParameterMismatchException", err)
	}
	got, err := nodes[1].c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("tok"), Key: strKey("k"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := numOf(t, got.Item, "n"); n != 1 {
		t.Errorf("n = %d after a transaction and its replay, want 1", n)
	}
}

// TestSharedStoreTokenRace: one token sent to both processes at once runs
// its transaction once; every answer is a success.
func TestSharedStoreTokenRace(t *testing.T) {
	nodes := pgPair(t, func(c *dynamodb.Client) { createPKTable(t, c, "tokr", nil) })
	for r := range 10 {
		in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(fmt.Sprintf("race-%d", r)), TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("tokr"), Key: strKey("k"), UpdateExpression: aws.String("ADD n :one"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}},
		}}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for _, nd := range nodes {
			wg.Go(func() {
				_, err := nd.c.TransactWriteItems(context.Background(), in)
				var inProgress *types.TransactionInProgressException
				if err != nil && !errors.As(err, &inProgress) {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", r, err)
		}
	}
	got, err := nodes[0].c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("tokr"), Key: strKey("k"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if n := numOf(t, got.Item, "n"); n != 10 {
		t.Errorf("n = %d after 10 tokens each sent to both processes, want 10", n)
	}
}

// TestSharedStoreItemCountAcrossProcesses: DescribeTable on one process
// reports the items the other wrote, even after it answered before them.
func TestSharedStoreItemCountAcrossProcesses(t *testing.T) {
	nodes := pgPair(t, func(c *dynamodb.Client) { createPKTable(t, c, "cnt", nil) })
	count := func(nd *proc) int64 {
		d, err := nd.c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("cnt")})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToInt64(d.Table.ItemCount)
	}
	if n := count(nodes[1]); n != 0 {
		t.Fatalf("ItemCount %d before any write", n)
	}
	for i := range 5 {
		if _, err := nodes[0].c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("cnt"), Item: strKey(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(nodes[1]); n != 5 {
		t.Errorf("the other process reports ItemCount %d, want 5", n)
	}
	for i := range 2 {
		if _, err := nodes[1].c.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String("cnt"), Key: strKey(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(nodes[0]); n != 3 {
		t.Errorf("the first process reports ItemCount %d after the other deleted 2, want 3", n)
	}
}

// TestSharedStoreConflictAnswers: with a store that gives up at the first
// serialization failure, conflicting writes fail with the retryable
// answers (InternalServerError for UpdateItem, a TransactionConflict
// cancellation for TransactWriteItems) and write nothing: the counters
// end at exactly the number of successes.
func TestSharedStoreConflictAnswers(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := openPGNode(t, dsn, 1)
	createPKTable(t, a.c, "cfl", nil)
	nodes := [2]*proc{a, openPGNode(t, dsn, 1)}
	for _, nd := range nodes {
		// A write's transaction lasts a millisecond: the processes'
		// writes overlap, and conflict, often.
		emulator.SetAfterPrepare(nd.eng, func() { time.Sleep(time.Millisecond) })
	}
	add := func(c *dynamodb.Client, key string, tx bool) error {
		vals := map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}
		if !tx {
			_, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String("cfl"), Key: strKey(key),
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: vals})
			return err
		}
		_, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("cfl"), Key: strKey(key), UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: vals}},
		}})
		return err
	}
	for _, tx := range []bool{false, true} {
		key := fmt.Sprint("tx=", tx)
		var ok, refused atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			c := nodes[i%2].c
			wg.Go(func() {
				for range 40 {
					err := add(c, key, tx)
					var ise *types.InternalServerError
					var tce *types.TransactionCanceledException
					switch {
					case err == nil:
						ok.Add(1)
					case !tx && errors.As(err, &ise) && ise.ErrorMessage() == "Internal server error":
						refused.Add(1)
					case tx && errors.As(err, &tce) && len(tce.CancellationReasons) == 1 &&
						aws.ToString(tce.CancellationReasons[0].Code) == "TransactionConflict":
						refused.Add(1)
					default:
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("tx=%v: %v", tx, err)
		}
		got, err := a.c.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("cfl"), Key: strKey(key), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if n := numOf(t, got.Item, "n"); n != int(ok.Load()) {
			t.Errorf("tx=%v: n = %d after %d successes", tx, n, ok.Load())
		}
		if refused.Load() == 0 {
			t.Errorf("tx=%v: no write conflicted; the test exercised nothing", tx)
		}
		t.Logf("tx=%v: %d committed, %d refused as conflicts", tx, ok.Load(), refused.Load())
	}
}
