package console

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

// vectorRows reads Backfilling, the HASH element and the projection's
// attributes; parseVector keeps the numbers' text.
func TestVectorRows(t *testing.T) {
	d := &api.TableDescription{VectorIndexes: []api.VectorIndexDescription{
		{IndexName: "a", IndexStatus: "CREATING", Backfilling: ptr(true), Projection: api.DescribedProjection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"x", "y"}},
			SearchSchema: []api.DescribedSearchSchemaElement{{AttributeName: "f", SearchSchemaElementType: "INLINE_FILTER"}, {AttributeName: "h", SearchSchemaElementType: "HASH"}}},
		{IndexName: "b", IndexStatus: "ACTIVE", Backfilling: ptr(false), Projection: api.DescribedProjection{ProjectionType: "ALL"}},
	}}
	rs := vectorRows(d)
	if len(rs) != 2 || !rs[0].Backfilling || rs[0].Hash != "h" || rs[0].Projection != "INCLUDE (x, y)" || rs[1].Backfilling || rs[1].Hash != "" || rs[1].Projection != "ALL" {
		t.Errorf("vectorRows: %+v", rs)
	}
	v, err := parseVector(" [0.10, -2e3, 7] ")
	if err != nil || len(v) != 3 || v[0].S+" "+v[1].S+" "+v[2].S != "0.10 -2e3 7" {
		t.Errorf("parseVector: %v %v", v, err)
	}
	for _, s := range []string{"", "{}", "[1] [2]", `["1"]`, "[1,"} {
		if _, err := parseVector(s); err == nil {
			t.Errorf("parseVector(%q) accepted", s)
		}
	}
}
