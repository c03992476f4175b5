package wire

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

func sampleItems(t testing.TB) []av.Item {
	var in api.PutItemInput
	if e := decodeInput([]byte(`{"Item":`+typicalItemJSON()+`}`), &in); e != nil {
		t.Fatal(e)
	}
	return []av.Item{
		nil,
		{},
		in.Item,
		{"k": {Type: av.TypeS, S: "a<b>&c \u2028 \x01 \"q\" \\ é 😀 \xff"}},
		{"n": {Type: av.TypeN, S: "-1.5E+10"}, "b": {Type: av.TypeB, S: "\x00\x01bin"}, "nul": {Type: av.TypeNULL, Bool: true},
			"ns": {Type: av.TypeNS, Set: []string{"1", "2"}}, "bs": {Type: av.TypeBS, Set: []string{"x", "y"}},
			"l": {Type: av.TypeL, L: []av.Value{}}, "m": {Type: av.TypeM, M: map[string]av.Value{}}},
	}
}

// TestEncodeFastPathMatchesGeneric: the direct encoders produce exactly
// the bytes encoding/json produces for the same value.
func TestEncodeFastPathMatchesGeneric(t *testing.T) {
	half, one := 0.5, 1.0
	ccs := []*api.ConsumedCapacity{nil, {TableName: "T", CapacityUnits: &half,
		Table:                  &api.Capacity{CapacityUnits: &one},
		GlobalSecondaryIndexes: map[string]api.Capacity{"g<1>": {ReadCapacityUnits: &half}}}}
	icm := &api.ItemCollectionMetrics{ItemCollectionKey: av.Item{"pk": {Type: av.TypeS, S: "a"}}, SizeEstimateRangeGB: []float64{0, 1}}
	var outs []any
	items := sampleItems(t)
	for _, it := range items {
		for _, cc := range ccs {
			outs = append(outs,
				&api.GetItemOutput{Item: it, ConsumedCapacity: cc},
				&api.WriteItemOutput{Attributes: it, ConsumedCapacity: cc},
				&api.WriteItemOutput{Attributes: it, ConsumedCapacity: cc, ItemCollectionMetrics: icm},
				&api.ReadManyOutput{Items: items, Count: 5, ScannedCount: 7, LastEvaluatedKey: it, ConsumedCapacity: cc},
				&api.ReadManyOutput{Items: []av.Item{}, LastEvaluatedKey: it},
				&api.ReadManyOutput{Items: []av.Item{it}, Count: -1},
			)
		}
	}
	outs = append(outs, &api.ReadManyOutput{}, &api.GetItemOutput{Item: av.Item{}}, &api.GetItemOutput{})
	projection := "a, #b"
	unprocessed := map[string]api.KeysAndAttributes{"T<2>": {Keys: []av.Item{items[2]}, ProjectionExpression: &projection}}
	cc := []api.ConsumedCapacity{*ccs[1], {TableName: "U", CapacityUnits: &one}}
	outs = append(outs,
		&api.BatchGetItemOutput{},
		&api.BatchGetItemOutput{Responses: map[string][]av.Item{}, UnprocessedKeys: map[string]api.KeysAndAttributes{}},
		&api.BatchGetItemOutput{Responses: map[string][]av.Item{"b": items, "a": {}, "c<\u2028é>": nil, "arn:aws:dynamodb:us-east-1:000000000000:table/z": items[2:3]},
			UnprocessedKeys: unprocessed, ConsumedCapacity: cc},
		&api.BatchGetItemOutput{Responses: map[string][]av.Item{"T": items}, ConsumedCapacity: []api.ConsumedCapacity{}},
	)
	for _, out := range outs {
		fast, err := encodeOutput(out)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := encodeGeneric(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, slow) {
			t.Errorf("%T:\nfast    %s\ngeneric %s", out, fast, slow)
		}
	}
}

// TestEncodeFastPathKnowsEveryField fails when a field is added to an output
// that has a direct encoder, so the encoder is updated with it.
func TestEncodeFastPathKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		v      any
		fields []string
	}{
		{api.GetItemOutput{}, []string{"Item", "ConsumedCapacity", "stored"}},
		{api.WriteItemOutput{}, []string{"Attributes", "ConsumedCapacity", "ItemCollectionMetrics"}},
		{api.ReadManyOutput{}, []string{"Items", "Count", "ScannedCount", "LastEvaluatedKey", "ConsumedCapacity", "stored"}},
		{api.BatchGetItemOutput{}, []string{"Responses", "UnprocessedKeys", "ConsumedCapacity", "stored"}},
	} {
		var got []string
		for f := range reflect.TypeOf(tc.v).Fields() {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, tc.fields) {
			t.Errorf("%T has fields %v; encode.go knows %v: update its encoder", tc.v, got, tc.fields)
		}
	}
}

func FuzzEncodeItem(f *testing.F) {
	f.Add([]byte(typicalItemJSON()))
	f.Add([]byte(`{"a":{"S":"<&>\u2028"},"b":{"L":[{"NULL":true},{"M":{}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		it, err := av.DecodeItemJSON(body)
		if err != nil {
			return
		}
		for _, out := range []any{
			&api.GetItemOutput{Item: it},
			&api.ReadManyOutput{Items: []av.Item{it, it}, LastEvaluatedKey: it},
			&api.BatchGetItemOutput{Responses: map[string][]av.Item{"t": {it}, "u": {it, nil}}},
		} {
			fast, err1 := encodeOutput(out)
			slow, err2 := encodeGeneric(out)
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(fast, slow) {
				t.Fatalf("fast %s (%v)\ngeneric %s (%v)", fast, err1, slow, err2)
			}
		}
	})
}

// TestGetItemStoredMatchesGeneric: GetItem through the handler, whose item
// is written from its stored form, answers exactly what encoding/json
// writes for the engine's decoded answer.
func TestGetItemStoredMatchesGeneric(t *testing.T) {
	h := newTestHandler(t, Options{})
	srv := h.routes()
	call := func(op, body string) string {
		t.Helper()
		r := do(srv, http.MethodPost, "DynamoDB_20120810."+op, contentTypeJSON10, body)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", op, r.status, r.body)
		}
		return r.body
	}
	call("CreateTable", `{"TableName":"Tbl","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	for i, it := range sampleItems(t)[2:] {
		pk := fmt.Sprintf("k%d", i)
		it = maps.Clone(it)
		it["pk"] = av.Value{Type: av.TypeS, S: pk}
		call("PutItem", `{"TableName":"Tbl","Item":`+string(av.AppendItemJSON(nil, it))+`}`)
		for _, extra := range []string{``, `,"ReturnConsumedCapacity":"TOTAL"`, `,"ProjectionExpression":"pk"`, `,"ProjectionExpression":"nothing"`} {
			req := `{"TableName":"Tbl","Key":{"pk":{"S":"` + pk + `"}}` + extra + `}`
			got := call("GetItem", req)
			if !strings.HasPrefix(got, `{"Item":{`) {
				t.Fatalf("GetItem %s: %s, want the item", req, got)
			}
			var in api.GetItemInput
			if e := decodeInput([]byte(req), &in); e != nil {
				t.Fatal(e)
			}
			out, err := h.eng.GetItem(t.Context(), api.Namespace{Account: DefaultAccount, Region: DefaultRegion}, &in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := encodeGeneric(out)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("GetItem %s:\nserved  %s\ngeneric %s", req, got, want)
			}
		}
	}
}
