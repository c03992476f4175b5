package e2e_test

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// BatchGetItem and BatchWriteItem through the real SDK client.

func bPut(it qItem) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func bDel(key qItem) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
}

func bServer(t testing.TB, opts ...testserver.Option) *testserver.Server {
	s := testserver.New(t, opts...)
	qTable(t, s.Client, "qtab", "N")
	if _, err := s.Client.CreateTable(context.Background(), hashTableFor("hash")); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBatchWriteAndGet(t *testing.T) {
	s := bServer(t)
	c := s.Client
	ctx := context.Background()
	var reqs []types.WriteRequest
	for i := range 20 {
		reqs = append(reqs, bPut(qItem{"pk": itS("p"), "sk": itN(strconv.Itoa(i)), "v": itS(strings.Repeat("v", 100*i))}))
	}
	hashReqs := []types.WriteRequest{bPut(qItem{"pk": itS("h1"), "a": itS("x")}), bPut(qItem{"pk": itS("h2")}), bDel(qItem{"pk": itS("absent")})}
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems:                map[string][]types.WriteRequest{"qtab": reqs, "hash": hashReqs},
		ReturnConsumedCapacity:      types.ReturnConsumedCapacityTotal,
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.UnprocessedItems == nil || len(out.UnprocessedItems) != 0 {
		t.Fatalf("UnprocessedItems: %v", out.UnprocessedItems)
	}
	// Each item rounded up on its own: sizes 1..~2 KB per item.
	caps := map[string]float64{}
	for _, cc := range out.ConsumedCapacity {
		caps[*cc.TableName] = *cc.CapacityUnits
	}
	var want float64
	for i := range 20 {
		size := len("pk") + 1 + len("sk") + 2 + len("v") + 100*i
		want += float64((size + 1023) / 1024)
	}
	// The LSI and GSIs hold none of these items (no g, no l).
	if caps["qtab"] != want || caps["hash"] != 3 {
		t.Fatalf("capacity %v, want qtab %v hash 3", caps, want)
	}
	// Only tables with an LSI report item collections.
	if len(out.ItemCollectionMetrics["qtab"]) != 20 || out.ItemCollectionMetrics["hash"] != nil {
		t.Fatalf("ItemCollectionMetrics: %v", out.ItemCollectionMetrics)
	}
	if k := out.ItemCollectionMetrics["qtab"][0].ItemCollectionKey; len(k) != 1 || sOf(k["pk"]) != "p" {
		t.Fatalf("ItemCollectionKey %v", k)
	}

	// Read them back, with a projection on one table.
	keys := []qItem{}
	for i := range 20 {
		keys = append(keys, qItem{"pk": itS("p"), "sk": itN(strconv.Itoa(i))})
	}
	keys = append(keys, qItem{"pk": itS("p"), "sk": itN("999")}) // missing: costs the minimum
	g, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{
			"qtab": {Keys: keys, ConsistentRead: aws.Bool(true)},
			"hash": {Keys: []qItem{{"pk": itS("h1")}, {"pk": itS("h2")}, {"pk": itS("absent")}}, ProjectionExpression: aws.String("#a"), ExpressionAttributeNames: map[string]string{"#a": "a"}},
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Responses["qtab"]) != 20 || len(g.UnprocessedKeys) != 0 {
		t.Fatalf("responses %d, unprocessed %v", len(g.Responses["qtab"]), g.UnprocessedKeys)
	}
	var hs []string
	for _, it := range g.Responses["hash"] {
		if _, ok := it["pk"]; ok {
			t.Fatalf("projection leaked pk: %v", itDump(it))
		}
		if a, ok := it["a"]; ok {
			hs = append(hs, sOf(a))
		}
	}
	if len(g.Responses["hash"]) != 2 || len(hs) != 1 || hs[0] != "x" {
		t.Fatalf("hash responses %v", g.Responses["hash"])
	}
	caps = map[string]float64{}
	for _, cc := range g.ConsumedCapacity {
		caps[*cc.TableName] = *cc.CapacityUnits
	}
	// Strongly consistent, every item < 4 KB: 1 each, the missing one too;
	// the hash table's reads are eventually consistent: 0.5 each.
	if caps["qtab"] != 21 || caps["hash"] != 1.5 {
		t.Fatalf("BatchGetItem capacity %v", caps)
	}

	// Deletes through the batch.
	var dels []types.WriteRequest
	for i := range 10 {
		dels = append(dels, bDel(qItem{"pk": itS("p"), "sk": itN(strconv.Itoa(i))}))
	}
	if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"qtab": dels}}); err != nil {
		t.Fatal(err)
	}
	q, err := c.Query(ctx, kce("pk = :p", ":p", itS("p")))
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 10 {
		t.Fatalf("after batch delete: %d items", q.Count)
	}
}

func TestBatchGetUnprocessedPast16MB(t *testing.T) {
	s := bServer(t)
	c := s.Client
	ctx := context.Background()
	big := strings.Repeat("z", 390*1024)
	var keys []qItem
	for i := range 50 {
		k := "k" + strconv.Itoa(i)
		qPut(t, c, "hash", qItem{"pk": itS(k), "v": itS(big)})
		keys = append(keys, qItem{"pk": itS(k)})
	}
	var got []string
	rounds := 0
	req := map[string]types.KeysAndAttributes{"hash": {Keys: keys}}
	for len(req) > 0 {
		rounds++
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Responses["hash"] {
			got = append(got, sOf(it["pk"]))
		}
		if rounds == 1 && len(out.UnprocessedKeys) == 0 {
			t.Fatal("a 19 MB answer left nothing unprocessed")
		}
		req = out.UnprocessedKeys
	}
	sort.Strings(got)
	if len(got) != 50 || rounds != 2 {
		t.Fatalf("%d items in %d rounds", len(got), rounds)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("%s returned twice", got[i])
		}
	}
}

func TestBatchValidation(t *testing.T) {
	s := bServer(t)
	c := s.Client
	ctx := context.Background()
	const v = "ValidationException"
	keys := func(n int) []qItem {
		var out []qItem
		for i := range n {
			out = append(out, qItem{"pk": itS(strconv.Itoa(i))})
		}
		return out
	}
	puts := func(n int) []types.WriteRequest {
		var out []types.WriteRequest
		for i := range n {
			out = append(out, bPut(qItem{"pk": itS(strconv.Itoa(i))}))
		}
		return out
	}
	_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"hash": {Keys: keys(60)}, "qtab": {Keys: []qItem{{"pk": itS("a"), "sk": itN("1")}}}}})
	if err != nil {
		t.Fatalf("61 keys: %v", err)
	}
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"hash": {Keys: keys(60)}, "hash2": {Keys: keys(41)}}})
	itErr(t, err, v, "Too many items requested for the BatchGetItem call")
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"hash": {Keys: []qItem{{"pk": itS("a")}, {"pk": itS("a")}}}}})
	itErr(t, err, v, "Provided list of item keys contains duplicates")
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"hash": {Keys: []qItem{{"pk": itN("1")}}}}})
	itErr(t, err, v, "The provided key element does not match the schema")
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"nope": {Keys: keys(1)}}})
	itErr(t, err, "ResourceNotFoundException", "Requested resource not found")
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}})
	itErr(t, err, v, "The requestItems parameter is required for BatchGetItem")

	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": puts(20), "hash2": puts(6)}})
	itErr(t, err, v, "Too many items requested for the BatchWriteItem call")
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": {bPut(qItem{"pk": itS("a")}), bDel(qItem{"pk": itS("a")})}}})
	itErr(t, err, v, "Provided list of item keys contains duplicates")
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": {bPut(qItem{"x": itS("a")})}}})
	itErr(t, err, v, "The provided key element does not match the schema")
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": {bDel(qItem{"pk": itS("a"), "x": itS("b")})}}})
	itErr(t, err, v, "The provided key element does not match the schema")
	// A valid put of an earlier table (in name order) must not be written
	// when a later request is refused.
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"hash": {bPut(qItem{"pk": itS("fine")})},
		"qtab": {bPut(qItem{"pk": itS("a"), "sk": itN("1"), "g": itN("5")})}}})
	itErr(t, err, v, "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: gsi")
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": {bPut(qItem{"pk": itS("a"), "v": itS(strings.Repeat("x", 400*1024))})}}})
	itErr(t, err, v, "Item size has exceeded the maximum allowed size")
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": {{}}}})
	itErr(t, err, v, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	// Nothing was written by the refused batches: validation comes first.
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("hash"), Select: types.SelectCount})
	if err != nil || out.Count != 0 {
		t.Fatalf("refused batches wrote %d items (%v)", out.Count, err)
	}
}

// benchNoThrottle keeps the throttle manager out of the batch benchmarks.
func benchNoThrottle() testserver.Option {
	return testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true })
}

func BenchmarkBatchWriteItem25(b *testing.B) {
	s := bServer(b, benchNoThrottle())
	reqs := make([]types.WriteRequest, 25)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for j := range reqs {
			reqs[j] = bPut(benchItem(strconv.Itoa((i*25 + j) % 5000)))
		}
		out, err := s.Client.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"hash": reqs}})
		if err != nil || len(out.UnprocessedItems) != 0 {
			b.Fatal(err, out.UnprocessedItems)
		}
	}
}

func BenchmarkBatchGetItem100(b *testing.B) {
	s := bServer(b, benchNoThrottle())
	keys := make([]qItem, 100)
	for i := range 100 {
		qPut(b, s.Client, "hash", benchItem(strconv.Itoa(i)))
		keys[i] = qItem{"pk": itS(strconv.Itoa(i))}
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := s.Client.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"hash": {Keys: keys}}})
		if err != nil || len(out.Responses["hash"]) != 100 {
			b.Fatal(err)
		}
	}
}
