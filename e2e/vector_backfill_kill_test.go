package e2e_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// vbfDims is the vectors' length in TestVectorBackfillSurvivesSIGKILL.
const vbfDims = 16

// vbfVector is a vector of integer elements in [-100, 100]: every squared
// L2 distance between two of them is an integer below 2^24, so it is the
// same in float32 and float64 whatever the order of the sum.
func vbfVector(rng *rand.Rand) []float32 {
	v := make([]float32, vbfDims)
	for j := range v {
		v[j] = float32(rng.IntN(201) - 100)
	}
	return v
}

func vbfList(v []float32) *types.AttributeValueMemberL {
	l := &types.AttributeValueMemberL{}
	for _, x := range v {
		l.Value = append(l.Value, &types.AttributeValueMemberN{Value: strconv.FormatFloat(float64(x), 'g', -1, 32)})
	}
	return l
}

// vbfDist2 is the squared L2 distance of a and b, float32 elements
// summed in float64 (exact for vbfVector's vectors).
func vbfDist2(a, b []float32) float64 {
	var d float64
	for i := range a {
		x := float64(a[i]) - float64(b[i])
		d += x * x
	}
	return d
}

type vbfHit struct {
	pk string
	d2 float64
}

// vbfNearest is the k items of model nearest q, nearest first, ties by
// the smaller pk.
func vbfNearest(model map[string][]float32, q []float32, k int) []vbfHit {
	hits := make([]vbfHit, 0, len(model))
	for pk, v := range model {
		hits = append(hits, vbfHit{pk, vbfDist2(q, v)})
	}
	slices.SortFunc(hits, func(a, b vbfHit) int {
		if a.d2 != b.d2 {
			if a.d2 < b.d2 {
				return -1
			}
			return 1
		}
		return strings.Compare(a.pk, b.pk)
	})
	return hits[:min(k, len(hits))]
}

// TestVectorBackfillSurvivesSIGKILL adds a vector index to a table of
// 3,000 items and kills the binary with SIGKILL twice while the index is
// built: right after UpdateTable's answer, then (after a restart) while
// the resumed job backfills. The server runs with --sync, so the
// acknowledged UpdateTable must survive the first kill. Once the index is
// ACTIVE it holds exactly the items with a vector of the right length,
// including those written, changed and deleted while the job ran (each
// item is found by its own vector, each one gone is not, ItemCount is
// their number), and SearchVectors answers the top K computed here.
func TestVectorBackfillSurvivesSIGKILL(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	if testing.Short() {
		t.Skip("builds and kills the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "data")
	args := []string{"--data-dir", dir, "--ttl-interval", "0", "--sync"}
	s := start(t, bin, args...)
	c := s.client()
	ctx := context.Background()
	const table, index = "vbf", "vix"
	createTable(t, c, table)

	// model is what the index must end with: pk -> vector.
	rng := rand.New(rand.NewPCG(34, 16))
	model := map[string][]float32{}
	var reqs []types.WriteRequest
	put := func(item map[string]types.AttributeValue) {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	const n = 3000
	for i := range n {
		pk := fmt.Sprintf("a%05d", i)
		v := vbfVector(rng)
		model[pk] = v
		put(map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "v": vbfList(v)})
	}
	// Items the index cannot hold: no vector, a vector of the wrong
	// length, a vector attribute that is no list. Each is near the
	// queries' vectors, so one wrongly indexed would show in the results.
	for i := range 8 {
		pk := fmt.Sprintf("x%02d", i)
		item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
		switch i % 4 {
		case 0:
			item["w"] = vbfList(make([]float32, vbfDims))
		case 1:
			item["v"] = vbfList(make([]float32, vbfDims-1))
		case 2:
			item["v"] = vbfList(make([]float32, vbfDims+1))
		default:
			item["v"] = &types.AttributeValueMemberS{Value: "0"}
		}
		put(item)
	}
	for len(reqs) > 0 {
		batch := reqs[:min(25, len(reqs))]
		reqs = reqs[len(batch):]
		for len(batch) > 0 {
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: batch}})
			if err != nil {
				t.Fatal(err)
			}
			batch = out.UnprocessedItems[table]
		}
	}

	describe := func() *types.TableDescription {
		t.Helper()
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		return d.Table
	}
	vecIndex := func(d *types.TableDescription) *types.VectorIndexDescription {
		t.Helper()
		for i := range d.VectorIndexes {
			if aws.ToString(d.VectorIndexes[i].IndexName) == index {
				return &d.VectorIndexes[i]
			}
		}
		return nil
	}
	restart := func() {
		t.Helper()
		_ = s.stop(t, syscall.SIGKILL)
		s = start(t, bin, args...)
		c = s.client()
	}

	// Kill 1: right after UpdateTable's answer.
	up, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Create: &types.CreateVectorIndexAction{IndexName: aws.String(index),
			VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("v")}, Dimensions: aws.Int64(vbfDims),
			DistanceFunction: types.VectorDistanceFunctionEuclidean, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
	if err != nil {
		t.Fatal(err)
	}
	restart()
	if vi := vecIndex(up.TableDescription); vi == nil || vi.IndexStatus != types.IndexStatusCreating {
		t.Fatalf("UpdateTable answered %+v, want the index CREATING", up.TableDescription.VectorIndexes)
	}
	d := describe()
	vi := vecIndex(d)
	if vi == nil {
		t.Fatalf("after a SIGKILL right after UpdateTable's answer (--sync), the acknowledged index is gone: %+v", d.VectorIndexes)
	}
	t.Logf("after kill 1: table %s, index %s backfilling=%v, %d items", d.TableStatus, vi.IndexStatus, aws.ToBool(vi.Backfilling), aws.ToInt64(vi.ItemCount))
	if vi.IndexStatus == types.IndexStatusActive && aws.ToInt64(vi.ItemCount) != int64(len(model)) {
		t.Fatalf("after kill 1: ACTIVE with %d items, want %d", aws.ToInt64(vi.ItemCount), len(model))
	}

	// Kill 2: while the resumed job backfills (if it is still running).
	midKill := false
	deadline := time.Now().Add(60 * time.Second)
	for vi.IndexStatus == types.IndexStatusCreating {
		if aws.ToBool(vi.Backfilling) {
			count := aws.ToInt64(vi.ItemCount)
			restart()
			midKill = true
			d = describe()
			vi = vecIndex(d)
			if vi == nil {
				t.Fatalf("after kill 2: the index is gone: %+v", d.VectorIndexes)
			}
			t.Logf("after kill 2 (at %d items): table %s, index %s backfilling=%v, %d items", count, d.TableStatus, vi.IndexStatus, aws.ToBool(vi.Backfilling), aws.ToInt64(vi.ItemCount))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index did not start backfilling within 60 s: %s backfilling=%v, %d items\n%s", vi.IndexStatus, aws.ToBool(vi.Backfilling), aws.ToInt64(vi.ItemCount), s.stderr.String())
		}
		time.Sleep(time.Millisecond)
		vi = vecIndex(describe())
	}
	if !midKill {
		t.Logf("the backfill ended before a second kill could land in it")
	}

	// Writes while the job runs: new items, changed vectors, deletions,
	// vectors removed. (A vector of the wrong length is refused now that
	// the index exists.)
	type op struct {
		pk    string
		v     []float32 // nil: delete
		novec bool      // put the item without its vector: it leaves the index
	}
	var ops []op
	for i := range 60 {
		ops = append(ops, op{pk: fmt.Sprintf("b%03d", i), v: vbfVector(rng)})
		k := fmt.Sprintf("a%05d", (i*53)%n)
		switch i % 4 {
		case 0, 1:
			ops = append(ops, op{pk: k, v: vbfVector(rng)})
		case 2:
			ops = append(ops, op{pk: k})
		default:
			ops = append(ops, op{pk: k, novec: true})
		}
	}
	done := make(chan error, 1)
	var written atomic.Int64
	wc := c
	go func() {
		for _, o := range ops {
			key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: o.pk}}
			var err error
			switch {
			case o.novec:
				key["w"] = vbfList(make([]float32, vbfDims))
				_, err = wc.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key})
			case o.v == nil:
				_, err = wc.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key})
			default:
				key["v"] = vbfList(o.v)
				_, err = wc.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key})
			}
			if err != nil {
				done <- fmt.Errorf("%s: %w", o.pk, err)
				return
			}
			written.Add(1)
		}
		done <- nil
	}()
	gone := map[string][]float32{} // items that left the index: their last vector
	for _, o := range ops {
		if o.v == nil || o.novec {
			gone[o.pk] = model[o.pk]
			delete(model, o.pk)
		} else {
			model[o.pk] = o.v
		}
	}
	polls, duringJob := 0, int64(0)
	for {
		d = describe()
		vi = vecIndex(d)
		if vi == nil {
			t.Fatalf("the index is gone: %+v", d.VectorIndexes)
		}
		if vi.IndexStatus == types.IndexStatusActive {
			duringJob = written.Load()
			break
		}
		if vi.IndexStatus != types.IndexStatusCreating {
			t.Fatalf("index %s while resuming", vi.IndexStatus)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index is not ACTIVE within 60 s: %s backfilling=%v, %d items\n%s", vi.IndexStatus, aws.ToBool(vi.Backfilling), aws.ToInt64(vi.ItemCount), s.stderr.String())
		}
		polls++
		time.Sleep(10 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatalf("write during the backfill: %v", err)
	}
	t.Logf("ACTIVE after %d polls of CREATING since the last restart; %d of the %d writes were acknowledged before", polls, duringJob, len(ops))
	d = describe()
	if vi = vecIndex(d); vi == nil || vi.IndexStatus != types.IndexStatusActive {
		t.Fatalf("after the writes: %+v", d.VectorIndexes)
	}
	if d.TableStatus != types.TableStatusActive {
		t.Errorf("table %s with the index ACTIVE", d.TableStatus)
	}
	if vi.Backfilling != nil {
		t.Errorf("ACTIVE index reports Backfilling=%v", *vi.Backfilling)
	}
	if got := aws.ToInt64(vi.ItemCount); got != int64(len(model)) {
		t.Errorf("ItemCount %d, want %d (the items with a %d-element vector)", got, len(model), vbfDims)
	}

	// The queries: random vectors without a tie among their K+1 nearest,
	// and the vectors of items written during the job (distance 0).
	const k = 10
	var queries [][]float32
	for len(queries) < 5 {
		q := vbfVector(rng)
		h := vbfNearest(model, q, k+1)
		tie := false
		for i := 1; i < len(h); i++ {
			tie = tie || h[i].d2 == h[i-1].d2
		}
		if !tie {
			queries = append(queries, q)
		}
	}
	queries = append(queries, model["b000"], model["b059"], model["a00000"])
	for qi, q := range queries {
		want := vbfNearest(model, q, k)
		for i := 1; i < len(want); i++ {
			if want[i].d2 == want[i-1].d2 {
				t.Logf("query %d: a tie at %d (%s, %s), broken by pk", qi, i, want[i-1].pk, want[i].pk)
			}
		}
		sv := vbfList(q).Value
		out, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String(index),
			SearchVector: sv, TopK: aws.Int32(k)})
		if err != nil {
			t.Fatalf("query %d: %v", qi, err)
		}
		var got, exp []string
		for _, h := range want {
			exp = append(exp, h.pk)
		}
		for i, r := range out.SearchResults {
			pk, _ := r.Item["pk"].(*types.AttributeValueMemberS)
			if pk == nil {
				t.Fatalf("query %d: result %d without pk: %v", qi, i, r.Item)
			}
			got = append(got, pk.Value)
			if i < len(want) && pk.Value == want[i].pk {
				if w := math.Sqrt(want[i].d2); math.Abs(r.Score-w) > 1e-5*math.Max(1, w) {
					t.Errorf("query %d: score of %s = %v, want %v", qi, pk.Value, r.Score, w)
				}
			}
		}
		if !slices.Equal(got, exp) {
			t.Errorf("query %d: top %d = %v\nwant %v", qi, k, got, exp)
		}
	}
	// Every item of the model is in the index: the nearest item to its
	// own vector is itself, at distance 0 (the vectors are distinct).
	var missing []string
	for pk, v := range model {
		out, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String(index),
			SearchVector: vbfList(v).Value, TopK: aws.Int32(1)})
		if err != nil {
			t.Fatalf("search %s: %v", pk, err)
		}
		if len(out.SearchResults) != 1 || out.SearchResults[0].Score != 0 {
			missing = append(missing, pk)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%d items missing from the index, first %v", len(missing), missing[:min(20, len(missing))])
	}
	// And the items deleted, or stripped of their vector, during the job
	// are not: the nearest item to their last vector is another one.
	for pk, v := range gone {
		out, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String(table), IndexName: aws.String(index),
			SearchVector: vbfList(v).Value, TopK: aws.Int32(1)})
		if err != nil {
			t.Fatalf("search %s: %v", pk, err)
		}
		if len(out.SearchResults) == 1 && out.SearchResults[0].Score == 0 {
			t.Errorf("%s left the index during the job but is still found: %v", pk, out.SearchResults[0].Item)
		}
	}
	if err := s.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, s.stderr.String())
	}
}
