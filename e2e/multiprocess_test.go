package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/pgtest"
	"go.yaml.in/yaml/v3"
)

// Several extenddb processes serving one PostgreSQL database (issue 21):
// the reliability tests of the single-process suites, with the clients
// spread over two processes, and a kill -9 of one of them under load.
// They skip where pgtest skips (no EXTENDDB_TEST_POSTGRES) and fail in CI.

// cluster is two (or more) `extenddb serve --store DSN` processes on one
// fresh database.
type cluster struct {
	bin, dsn string
	procs    []*server
}

// mpFlags are the flags every process of a cluster gets. Throttling is off:
// the tests hammer one item on purpose, and buckets are per process anyway.
// A 5 s lease halves the wait for a dead leader's work and still leaves a
// loaded machine room to renew it in time.
var mpFlags = []string{"--throttle=off", "--ttl-interval", "1s", "--log-level", "warn", "--lease", "5s"}

// newCluster builds the binary and starts n processes on one fresh
// database, one after the other: the first takes the leader lease.
func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	dsn := pgtest.DSN(t)
	c := &cluster{bin: buildBinary(t), dsn: dsn}
	for range n {
		c.procs = append(c.procs, c.start(t))
	}
	return c
}

// start runs one more process on the cluster's database.
func (c *cluster) start(t *testing.T) *server {
	t.Helper()
	return start(t, c.bin, append([]string{"--store", c.dsn}, mpFlags...)...)
}

// client is an SDK client of process i that retries what DynamoDB's
// clients retry (5xx, TransactionConflict, throttling) without a retry
// quota, as a loaded production client would: a shared store may refuse a
// conflicting write with a retryable error, never lose or double it.
func (c *cluster) client(i int) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(c.procs[i].url),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIAIOSFODNN7EXAMPLE", "secret", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 10
			o.MaxBackoff = 200 * time.Millisecond
			o.RateLimiter = ratelimit.None
		}),
	})
}

// clients returns one client per process, in process order.
func (c *cluster) clients() []*dynamodb.Client {
	out := make([]*dynamodb.Client, len(c.procs))
	for i := range c.procs {
		out[i] = c.client(i)
	}
	return out
}

// TestMultiProcess runs the reliability tests against two processes on one
// PostgreSQL database, then kills one of them under write load.
func TestMultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two processes on PostgreSQL")
	}
	c := newCluster(t, 2)
	// Each subtest uses tables of its own names, so they share the cluster.
	t.Run("ConcurrentAdd", func(t *testing.T) { testMPConcurrentAdd(t, c) })
	t.Run("ConditionalRace", func(t *testing.T) { testMPConditionalRace(t, c) })
	t.Run("BankTransfers", func(t *testing.T) { bankTransfers(t, c.clients(), 2000) })
	t.Run("CatalogAcrossProcesses", func(t *testing.T) { testMPCatalog(t, c) })
	t.Run("CreateTableRace", func(t *testing.T) { testMPCreateTableRace(t, c) })
	// Last: it kills a process.
	t.Run("KillOneUnderLoad", func(t *testing.T) { testMPKill(t, c) })
}

// mpTable creates a hash-key table through cl; the others must serve it at
// once, without waiting for anything.
func mpTable(t *testing.T, cl *dynamodb.Client, name string) {
	t.Helper()
	if _, err := cl.CreateTable(context.Background(), hashTableFor(name)); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// testMPConcurrentAdd: 16 clients, 8 on each process, each ADD 1 a hundred
// times to one item: exactly 1,600.
func testMPConcurrentAdd(t *testing.T, c *cluster) {
	const workers, each = 16, 100
	cls := c.clients()
	mpTable(t, cls[0], "mpadd")
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := range workers {
		wg.Go(func() {
			cl := cls[w%len(cls)]
			for range each {
				_, err := cl.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String("mpadd"), Key: hk("ctr"),
					UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: item{":one": itN("1")}})
				if err != nil && failed.Add(1) <= 3 {
					t.Errorf("worker %d: %v", w, err)
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Fatalf("%d updates failed", n)
	}
	for i, cl := range cls {
		got := getOne(t, cl, "mpadd", hk("ctr"))
		if n, ok := got["n"].(*types.AttributeValueMemberN); !ok || n.Value != strconv.Itoa(workers*each) {
			t.Errorf("process %d reads n = %s, want %d", i, itDump(got), workers*each)
		}
	}
}

// testMPConditionalRace: 16 racers, 8 through each process, put one new
// item with attribute_not_exists(pk): exactly one wins each round.
func testMPConditionalRace(t *testing.T, c *cluster) {
	const racers, rounds = 16, 10
	cls := c.clients()
	mpTable(t, cls[1], "mprace")
	for round := range rounds {
		key := fmt.Sprintf("race%d", round)
		var wins, losses atomic.Int64
		winner := make(chan int, racers)
		var wg sync.WaitGroup
		// Racers start together, so that they meet in the store.
		gate := make(chan struct{})
		for w := range racers {
			wg.Go(func() {
				<-gate
				_, err := cls[w%len(cls)].PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("mprace"),
					Item: item{"pk": itS(key), "w": itN(strconv.Itoa(w))}, ConditionExpression: aws.String("attribute_not_exists(pk)")})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					wins.Add(1)
					winner <- w
				case errors.As(err, &ccf):
					losses.Add(1)
				default:
					t.Errorf("round %d racer %d: %v", round, w, err)
				}
			})
		}
		close(gate)
		wg.Wait()
		if wins.Load() != 1 || losses.Load() != racers-1 {
			t.Fatalf("round %d: %d winners, %d losers", round, wins.Load(), losses.Load())
		}
		// The item holds the winner's write, whichever process reads it.
		w := <-winner
		for i, cl := range cls {
			if got := getOne(t, cl, "mprace", hk(key)); itDump(got) != itDump(item{"pk": itS(key), "w": itN(strconv.Itoa(w))}) {
				t.Errorf("round %d: process %d reads %s, want racer %d's item", round, i, itDump(got), w)
			}
		}
	}
}

// testMPCatalog: a table created, given a GSI, and deleted through one
// process is served correctly by the other at once: no waiting, no stale
// schema.
func testMPCatalog(t *testing.T, c *cluster) {
	ctx := context.Background()
	a, b := c.client(0), c.client(1)

	// Created in A, written and queried in B at once.
	if _, err := a.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("mpcat"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	}); err != nil {
		t.Fatal(err)
	}
	put := func(cl *dynamodb.Client, sk int, g string) {
		t.Helper()
		if _, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mpcat"),
			Item: item{"pk": itS("p"), "sk": itN(strconv.Itoa(sk)), "g": itS(g)}}); err != nil {
			t.Fatalf("PutItem sk=%d: %v", sk, err)
		}
	}
	put(b, 1, "G")
	d, err := b.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("mpcat")})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Table.KeySchema) != 2 {
		t.Errorf("B describes key schema %+v", d.Table.KeySchema)
	}
	put(a, 2, "G")
	q, err := b.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("mpcat"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": itS("p")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 2 {
		t.Errorf("B's Query found %d items, want 2", len(q.Items))
	}

	// A GSI added through A: B's writes from then on maintain it, the
	// backfill (run by whichever process leads) brings it to ACTIVE, and
	// B's Query on it finds what both processes wrote.
	if _, err := a.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("mpcat"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}}); err != nil {
		t.Fatal(err)
	}
	d, err = b.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("mpcat")})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Table.GlobalSecondaryIndexes) != 1 || aws.ToString(d.Table.GlobalSecondaryIndexes[0].IndexName) != "byG" {
		t.Fatalf("B describes indexes %+v right after A's UpdateTable", d.Table.GlobalSecondaryIndexes)
	}
	// A write of B's with a wrong type for the new key attribute is refused
	// as DynamoDB refuses it: B validates against the new schema.
	_, err = b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mpcat"), Item: item{"pk": itS("p"), "sk": itN("99"), "g": itN("1")}})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "ValidationException" {
		t.Errorf("B's put with a number for the new index key: %v, want ValidationException", err)
	}
	for sk := 3; sk < 20; sk++ {
		put(b, sk, "G")
	}
	waitIndexActive(t, b, "mpcat", "byG", 60*time.Second)
	put(b, 20, "G")
	put(a, 21, "G")
	var got []string
	var lek map[string]types.AttributeValue
	for {
		q, err := b.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("mpcat"), IndexName: aws.String("byG"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": itS("G")}, ExclusiveStartKey: lek})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range q.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberN).Value)
		}
		if lek = q.LastEvaluatedKey; lek == nil {
			break
		}
	}
	if len(got) != 21 {
		sort.Strings(got)
		t.Errorf("B's Query on byG found %d items %v, want sk 1..21", len(got), got)
	}

	// Deleted through B: A answers ResourceNotFoundException at once.
	if _, err := b.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("mpcat")}); err != nil {
		t.Fatal(err)
	}
	waitTableGone(t, b, "mpcat", 30*time.Second)
	_, err = a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("mpcat"), Key: item{"pk": itS("p"), "sk": itN("1")}})
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "ResourceNotFoundException" {
		t.Errorf("A's GetItem on the table B deleted: %v, want ResourceNotFoundException", err)
	}
}

// testMPCreateTableRace: both processes create one name at once, several
// rounds: exactly one succeeds, the other gets ResourceInUseException.
func testMPCreateTableRace(t *testing.T, c *cluster) {
	cls := c.clients()
	for round := range 5 {
		name := fmt.Sprintf("mpct%d", round)
		errs := make([]error, 2*len(cls))
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := range errs {
			wg.Go(func() {
				<-gate
				_, errs[i] = cls[i%len(cls)].CreateTable(context.Background(), hashTableFor(name))
			})
		}
		close(gate)
		wg.Wait()
		wins := 0
		for i, err := range errs {
			var riu *types.ResourceInUseException
			switch {
			case err == nil:
				wins++
			case errors.As(err, &riu):
			default:
				t.Errorf("round %d, caller %d: %v", round, i, err)
			}
		}
		if wins != 1 {
			t.Errorf("round %d: %d CreateTable calls succeeded, want 1", round, wins)
		}
	}
}

// testMPKill kills process 0 (the first started, so the leader) with
// SIGKILL during a write load spread over both and a GSI backfill it runs:
// every write either process acknowledged is there afterwards, every
// transaction is whole, process 1 keeps serving and takes the leader lease
// (the backfill, and a TTL expiry and another backfill asked for after the
// kill, finish), and the killed process, restarted, serves the same data.
func testMPKill(t *testing.T, c *cluster) {
	ctx := context.Background()
	// Clients without retries: an error is simply not an acknowledgement.
	a, b := c.procs[0].client(), c.procs[1].client()
	mpTable(t, b, "mpkill")

	// A backfill the leader is running when it dies: process 1 must resume
	// it. The items go in first; the GSI is asked of process 0, the leader,
	// which starts the backfill at once.
	const bfItems = 3000
	mpTable(t, b, "mpbf")
	var bw sync.WaitGroup
	for w := range 4 {
		bw.Go(func() {
			cl := []*dynamodb.Client{a, b}[w%2]
			for n := w * 25; n < bfItems; n += 4 * 25 {
				reqs := make([]types.WriteRequest, 25)
				for j := range reqs {
					reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": itS(fmt.Sprintf("bf%d", n+j)), "g": itS("G")}}}
				}
				out, err := cl.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"mpbf": reqs}})
				if err != nil || len(out.UnprocessedItems) > 0 {
					t.Errorf("BatchWriteItem: %v", err)
					return
				}
			}
		})
	}
	bw.Wait()
	if t.Failed() {
		return
	}
	if _, err := a.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("mpbf"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}

	type ack struct {
		key  string
		proc int
	}
	var mu sync.Mutex
	var acked, txAcked []ack
	var txTried []string
	var afterKill atomic.Int64
	var killed atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			proc := w % 2
			cl := []*dynamodb.Client{a, b}[proc]
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("w%d-%d", w, i)
				var err error
				if w >= 6 {
					mu.Lock()
					txTried = append(txTried, k)
					mu.Unlock()
					_, err = cl.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						txPut("mpkill", item{"pk": itS(k + "-a")}), txPut("mpkill", item{"pk": itS(k + "-b")})}})
				} else {
					_, err = cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mpkill"), Item: item{"pk": itS(k)}})
				}
				if err != nil {
					if proc == 0 && killed.Load() {
						return // the killed process's clients stop
					}
					continue
				}
				mu.Lock()
				if w >= 6 {
					txAcked = append(txAcked, ack{k, proc})
				} else {
					acked = append(acked, ack{k, proc})
				}
				mu.Unlock()
				if killed.Load() && proc == 1 {
					afterKill.Add(1)
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	bfAtKill := "absent"
	if d, err := b.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("mpbf")}); err == nil && len(d.Table.GlobalSecondaryIndexes) == 1 {
		bfAtKill = string(d.Table.GlobalSecondaryIndexes[0].IndexStatus)
	}
	_ = c.procs[0].stop(t, syscall.SIGKILL)
	killed.Store(true)
	// Process 1 keeps serving the load for a while without its peer.
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if afterKill.Load() == 0 {
		t.Errorf("process 1 acknowledged no write in the second after process 0 was killed")
	}

	has := func(k string) bool {
		out, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("mpkill"), ConsistentRead: aws.Bool(true), Key: hk(k)})
		if err != nil {
			t.Fatalf("process 1, GetItem after the kill: %v", err)
		}
		return out.Item != nil
	}
	// PostgreSQL commits durably before a write is acknowledged: no margin.
	byProc := [2]int{}
	for _, x := range acked {
		byProc[x.proc]++
		if !has(x.key) {
			t.Errorf("write %s acknowledged by process %d lost", x.key, x.proc)
		}
	}
	for _, x := range txAcked {
		if !has(x.key+"-a") || !has(x.key+"-b") {
			t.Errorf("transaction %s acknowledged by process %d lost", x.key, x.proc)
		}
	}
	for _, k := range txTried {
		if ha, hb := has(k+"-a"), has(k+"-b"); ha != hb {
			t.Errorf("transaction %s half applied: a=%v b=%v", k, ha, hb)
		}
	}
	if byProc[0] == 0 || byProc[1] == 0 {
		t.Errorf("acknowledged puts by process: %v; the test needs both processes serving the load before the kill", byProc)
	}
	t.Logf("acknowledged: %d puts by process 0, %d by process 1 (%d after the kill), %d transactions of %d tried",
		byProc[0], byProc[1], afterKill.Load(), len(txAcked), len(txTried))

	// Process 1 becomes the leader once process 0's lease expires: a TTL
	// expiry and a backfill asked for now finish only through it.
	if _, err := b.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("mpkill"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	past := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	for i := range 5 {
		if _, err := b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mpkill"),
			Item: item{"pk": itS(fmt.Sprintf("expired%d", i)), "exp": itN(past), "g": itS("G")}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("mpkill"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
		t.Fatal(err)
	}
	waitIndexActive(t, b, "mpkill", "byG", 60*time.Second)
	waitIndexActive(t, b, "mpbf", "byG", 60*time.Second)
	var indexed int32
	var lek map[string]types.AttributeValue
	for {
		out, err := b.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("mpbf"), IndexName: aws.String("byG"), Select: types.SelectCount, ExclusiveStartKey: lek})
		if err != nil {
			t.Fatal(err)
		}
		indexed += out.Count
		if lek = out.LastEvaluatedKey; lek == nil {
			break
		}
	}
	t.Logf("the backfill of %d items was %s when process 0 was killed; it ended with %d", bfItems, bfAtKill, indexed)
	if indexed != bfItems {
		t.Errorf("the index backfilled across the kill holds %d items, want %d", indexed, bfItems)
	}
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < 5; {
		if !has(fmt.Sprintf("expired%d", i)) {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("item expired%d not expired 60s after the kill: no process took over TTL (the lease is 5s)", i)
		}
		time.Sleep(500 * time.Millisecond)
	}

	// The killed process, restarted, serves everything that was written.
	c.procs[0] = c.start(t)
	a = c.procs[0].client()
	for _, x := range acked {
		out, err := a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("mpkill"), ConsistentRead: aws.Bool(true), Key: hk(x.key)})
		if err != nil {
			t.Fatalf("restarted process 0: %v", err)
		}
		if out.Item == nil {
			t.Errorf("restarted process 0 lacks %s", x.key)
			break
		}
	}
}

// waitIndexActive polls DescribeTable through cl until index is ACTIVE.
func waitIndexActive(t *testing.T, cl *dynamodb.Client, table, index string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		d, err := cl.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range d.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == index && g.IndexStatus == types.IndexStatusActive {
				return
			}
		}
		if time.Now().After(deadline) {
			var st []string
			for _, g := range d.Table.GlobalSecondaryIndexes {
				st = append(st, fmt.Sprintf("%s %s backfilling=%v", aws.ToString(g.IndexName), g.IndexStatus, aws.ToBool(g.Backfilling)))
			}
			t.Fatalf("index %s of %s not ACTIVE within %v: %v", index, table, within, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitTableGone polls DescribeTable through cl until the table is gone.
func waitTableGone(t *testing.T, cl *dynamodb.Client, table string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_, err := cl.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		var rnf *types.ResourceNotFoundException
		if errors.As(err, &rnf) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s still there %v after DeleteTable", table, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestClusterComposeFile keeps examples/cluster/docker-compose.yml, which
// CI cannot run (no Docker engine), honest where it can: every ExtendDB
// service runs `extenddb serve` with flags the binary has, on a store URL,
// published on loopback only.
func TestClusterComposeFile(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if testing.Short() {
		t.Skip("builds the binary")
	}
	b, err := os.ReadFile("../examples/cluster/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Services map[string]struct {
			Entrypoint []string `yaml:"entrypoint"`
			Ports      []string `yaml:"ports"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t)
	_, help, _ := run(t, bin, "serve", "--help")
	servers := 0
	for name, s := range f.Services {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond loopback", name, p)
			}
		}
		if len(s.Entrypoint) < 2 || s.Entrypoint[0] != "/usr/local/bin/extenddb" {
			continue
		}
		servers++
		if s.Entrypoint[1] != "serve" {
			t.Errorf("%s runs extenddb %s", name, s.Entrypoint[1])
		}
		for i, a := range s.Entrypoint[2:] {
			if strings.HasPrefix(a, "--") && !strings.Contains(help, a+" ") {
				t.Errorf("%s: serve --help lacks %s", name, a)
			}
			if a == "--store" && (i+3 >= len(s.Entrypoint) || !strings.HasPrefix(s.Entrypoint[i+3], "postgres://")) {
				t.Errorf("%s: --store without a postgres:// URL", name)
			}
		}
	}
	if servers != 3 {
		t.Errorf("%d ExtendDB services, want 3", servers)
	}
}

// TestMultiProcessStartTogether starts four processes at the same moment
// on a fresh database, as `docker compose up` does with examples/cluster:
// all must come up (the store's schema is created by whichever is first,
// and found by the others), round after round. The race it looks for
// (concurrent CREATE TABLE IF NOT EXISTS refused with SQLSTATE 42710 or
// 23505) hit about one pair of processes in 20 from a shell; eight rounds
// of this test caught it in one run of three, so this is a net with holes: the
// precise test belongs in pgstore (many concurrent Opens).
func TestMultiProcessStartTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes on PostgreSQL")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	pgtest.DSN(t) // skips (or fails in CI) before the build when there is no server
	bin := buildBinary(t)
	for round := range 12 {
		dsn := pgtest.DSN(t)
		errs := make([]error, 4)
		procs := make([]*server, 4)
		var wg sync.WaitGroup
		for i := range procs {
			wg.Go(func() {
				procs[i], errs[i] = tryStart(t, bin, append([]string{"--store", dsn}, mpFlags...)...)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, process %d of four started together: %v", round, i, err)
			}
		}
		for _, p := range procs {
			_ = p.stop(t, syscall.SIGKILL)
		}
	}
}
