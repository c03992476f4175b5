package e2e_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestCrashRecovery builds the binary and kills it with SIGKILL at random
// points: during a burst of writes and transactions without --sync, during
// CreateTable/DeleteTable, and during a GSI backfill; after each restart
// it checks that nothing acknowledged long enough ago is lost, that every
// transaction is all or nothing, and that an index is either CREATING or
// complete. It stays well under 90 s.
func TestCrashRecovery(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	if testing.Short() {
		t.Skip("builds and crashes the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 12))

	s := start(t, bin, "--data-dir", dir, "--ttl-interval", "0")
	c := s.client()
	createTable(t, c, "crash")

	// Writes, transactions and table churn, killed at a random moment.
	ctx := context.Background()
	type ack struct {
		key string
		at  time.Time
	}
	var mu sync.Mutex
	var acked []ack
	var txAcked []ack
	tablesAlive := map[string]time.Time{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("w%d-%d", w, i)
				if w == 3 {
					_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						{Put: &types.Put{TableName: aws.String("crash"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k + "-a"}}}},
						{Put: &types.Put{TableName: aws.String("crash"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k + "-b"}}}},
					}})
					if err == nil {
						mu.Lock()
						txAcked = append(txAcked, ack{k, time.Now()})
						mu.Unlock()
					}
					continue
				}
				if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("crash"),
					Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}}); err == nil {
					mu.Lock()
					acked = append(acked, ack{k, time.Now()})
					mu.Unlock()
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("churn%d", i)
			if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				BillingMode:          types.BillingModePayPerRequest}); err != nil {
				continue
			}
			mu.Lock()
			tablesAlive[name] = time.Now()
			mu.Unlock()
			if i%2 == 0 {
				if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err == nil {
					mu.Lock()
					delete(tablesAlive, name)
					mu.Unlock()
				}
			}
		}
	}()
	time.Sleep(time.Duration(1500+rng.IntN(1000)) * time.Millisecond)
	_ = s.stop(t, syscall.SIGKILL)
	killed := time.Now()
	close(stop)
	wg.Wait()

	// What was acknowledged more than the flush bound (100 ms, with a
	// margin for a loaded machine) before the kill must be there.
	margin := time.Second
	s = start(t, bin, "--data-dir", dir, "--ttl-interval", "0")
	c = s.client()
	has := func(k string) bool {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("crash"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	checked := 0
	for _, a := range acked {
		if a.at.Before(killed.Add(-margin)) {
			checked++
			if !has(a.key) {
				t.Errorf("acknowledged write %s (%v before the kill) lost", a.key, killed.Sub(a.at))
			}
		}
	}
	for _, a := range txAcked {
		ha, hb := has(a.key+"-a"), has(a.key+"-b")
		if ha != hb {
			t.Errorf("transaction %s half applied: a=%v b=%v", a.key, ha, hb)
		}
		if a.at.Before(killed.Add(-margin)) && !ha {
			t.Errorf("acknowledged transaction %s lost", a.key)
		}
	}
	for name, at := range tablesAlive {
		if at.Before(killed.Add(-margin)) {
			wantTable(t, c, name)
		}
	}
	t.Logf("writes: %d acknowledged, %d checked (acknowledged > %v before the kill), %d transactions, %d tables", len(acked), checked, margin, len(txAcked), len(tablesAlive))

	// The reported scenario: a table and five items, acknowledged, then the
	// process idles and is killed. Without the WAL flush loop they were all
	// lost (Pebble held them in a partly filled block in memory).
	createTable(t, c, "idle")
	for i := range 5 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("idle"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint(i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(margin)
	_ = s.stop(t, syscall.SIGKILL)
	s = start(t, bin, "--data-dir", dir, "--ttl-interval", "0")
	c = s.client()
	wantTable(t, c, "idle")
	for i := range 5 {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("idle"),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint(i)}}})
		if err != nil || out.Item == nil {
			t.Fatalf("item %d acknowledged %v before a kill -9 was lost: %v", i, margin, err)
		}
	}

	// A GSI backfill, killed twice part-way.
	const n = 20000
	var bw sync.WaitGroup
	for w := range 8 {
		bw.Add(1)
		go func() {
			defer bw.Done()
			for b := w; b < n/25; b += 8 {
				reqs := make([]types.WriteRequest, 25)
				for j := range reqs {
					reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("bf-%d", b*25+j)}, "g": &types.AttributeValueMemberS{Value: "x"}}}}
				}
				out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"crash": reqs}})
				if err != nil || len(out.UnprocessedItems) > 0 {
					t.Errorf("BatchWriteItem: %v, unprocessed %d", err, len(out.UnprocessedItems))
					return
				}
			}
		}()
	}
	bw.Wait()
	if t.Failed() {
		return
	}
	// The items are acknowledged; past the sync interval they survive any
	// kill, so the index must end with all of them.
	time.Sleep(margin)
	addIndex := func() time.Time {
		t.Helper()
		before := time.Now()
		if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("crash"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("byG"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}}); err != nil {
			t.Fatal(err)
		}
		t.Logf("UpdateTable answered in %v", time.Since(before))
		return time.Now()
	}
	added := addIndex()
	for round := range 2 {
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		killed := time.Now()
		_ = s.stop(t, syscall.SIGKILL)
		s = start(t, bin, "--data-dir", dir, "--ttl-interval", "0")
		c = s.client()
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("crash")})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Table.GlobalSecondaryIndexes) == 0 {
			// Without --sync a kill within the sync interval may lose the
			// UpdateTable itself: the index is then absent, never partial.
			if killed.Sub(added) >= margin {
				t.Fatalf("after kill %d: an UpdateTable acknowledged %v before the kill was lost", round, killed.Sub(added))
			}
			t.Logf("after kill %d, %v after UpdateTable: the index is absent; adding it again", round, killed.Sub(added))
			added = addIndex()
			continue
		}
		g := d.Table.GlobalSecondaryIndexes[0]
		switch {
		case g.IndexStatus == types.IndexStatusCreating && aws.ToBool(g.Backfilling):
		case g.IndexStatus == types.IndexStatusActive && aws.ToInt64(g.ItemCount) == n:
		default:
			t.Fatalf("after kill %d: index %s backfilling=%v with %d items", round, g.IndexStatus, aws.ToBool(g.Backfilling), aws.ToInt64(g.ItemCount))
		}
		t.Logf("after kill %d: %s, %d items", round, g.IndexStatus, aws.ToInt64(g.ItemCount))
	}
	// The restarted server finishes the job; the index then has every item.
	deadline := time.Now().Add(60 * time.Second)
	for {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("crash")})
		if err != nil {
			t.Fatal(err)
		}
		if g := d.Table.GlobalSecondaryIndexes[0]; g.IndexStatus == types.IndexStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the resumed backfill did not finish within 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	count := int32(0)
	var start map[string]types.AttributeValue
	for {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("crash"), IndexName: aws.String("byG"), Select: types.SelectCount,
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "x"}},
			ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		count += out.Count
		if out.LastEvaluatedKey == nil {
			break
		}
		start = out.LastEvaluatedKey
	}
	if count != n {
		t.Fatalf("the index holds %d items, want %d", count, n)
	}
	if err := s.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, s.stderr.String())
	}
}
