package emulator

import (
	"context"
	"strconv"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// TestVectorCopyFilledOnFirstSearch: a start reads no vector; the first
// search fills the index's copy from the entries the previous run stored.
func TestVectorCopyFilledOnFirstSearch(t *testing.T) {
	te := newTestEngine(t)
	in := simpleTable("vlazy")
	x := api.VectorIndex{IndexName: sp("near"), VectorAttribute: &api.VectorAttributeDefinition{AttributeName: sp("v")},
		Dimensions: i64(2), DistanceFunction: sp("EUCLIDEAN"), Projection: &api.Projection{ProjectionType: sp("ALL")}}
	in.VectorIndexes = []api.VectorIndex{x}
	te.mustCreate(nsA, in)
	ctx := context.Background()
	for i := range 10 {
		item := av.Item{"pk": {Type: av.TypeS, S: strconv.Itoa(i)}, "v": {Type: av.TypeL, L: []av.Value{{Type: av.TypeN, S: strconv.Itoa(i)}, {Type: av.TypeN, S: "0"}}}}
		if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("vlazy"), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	te.restart()
	if n := te.VectorMemory(); n != 0 {
		t.Fatalf("after a start the copies hold %d bytes, want none", n)
	}
	out, err := te.SearchVectors(ctx, nsA, &api.SearchVectorsInput{TableName: sp("vlazy"), IndexName: sp("near"),
		SearchVector: []av.Value{{Type: av.TypeN, S: "6.9"}, {Type: av.TypeN, S: "0"}}, TopK: i64(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SearchResults) != 1 || out.SearchResults[0].Item["pk"].S != "7" {
		t.Errorf("search after a restart: %+v", out.SearchResults)
	}
	if n := te.VectorMemory(); n < 10*2*4 {
		t.Errorf("after the first search the copy holds %d bytes", n)
	}
}
