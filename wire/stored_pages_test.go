package wire

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// The wire serves Query, Scan and BatchGetItem through the engine's
// *Stored variants, whose pages of whole items are written from the
// items' stored bytes. The tests here hold every answer to exactly the
// bytes encoding/json writes for the public (decoded) method's answer to
// the same request: items, Count, ScannedCount, LastEvaluatedKey,
// ConsumedCapacity and the 1 MB page limit included.

// randValue is a random attribute value of any type, nested to depth.
func randValue(r *rand.Rand, depth int) av.Value {
	str := func() string {
		const alphabet = "abcXYZ019 \"\\<>&\u2028é😀\x01"
		rs := []rune(alphabet)
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteRune(rs[r.IntN(len(rs))])
		}
		return sb.String()
	}
	num := func() string {
		return []string{"0", "1", "-1", "12.5", "-0.001", "1E+10", "99999999999999999999999999999999999999", strconv.Itoa(r.IntN(1e6))}[r.IntN(8)]
	}
	set := func(gen func() string) []string {
		seen := map[string]bool{}
		var out []string
		for range 1 + r.IntN(4) {
			s := gen()
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		if out == nil {
			out = []string{"x"}
		}
		return out
	}
	kinds := 7
	if depth < 3 {
		kinds = 10
	}
	switch r.IntN(kinds) {
	case 0:
		return av.Value{Type: av.TypeS, S: str()}
	case 1:
		return av.Value{Type: av.TypeN, S: num()}
	case 2:
		return av.Value{Type: av.TypeB, S: str()}
	case 3:
		return av.Value{Type: av.TypeBOOL, Bool: r.IntN(2) == 1}
	case 4:
		return av.Value{Type: av.TypeNULL, Bool: true}
	case 5:
		return av.Value{Type: av.TypeSS, Set: set(str)}
	case 6:
		if r.IntN(2) == 0 {
			return av.Value{Type: av.TypeNS, Set: []string{"1", "2.5", "-3"}[:1+r.IntN(3)]}
		}
		return av.Value{Type: av.TypeBS, Set: set(str)}
	case 7, 8:
		l := []av.Value{}
		for range r.IntN(4) {
			l = append(l, randValue(r, depth+1))
		}
		return av.Value{Type: av.TypeL, L: l}
	}
	m := map[string]av.Value{}
	for range r.IntN(4) {
		m["m"+strconv.Itoa(r.IntN(10))] = randValue(r, depth+1)
	}
	return av.Value{Type: av.TypeM, M: m}
}

// randItem is a random item under the key (pk, sk), sometimes with the
// indexes' keys, sometimes large (bigBytes of padding).
func randItem(r *rand.Rand, pk string, sk, bigBytes int) av.Item {
	it := av.Item{"pk": {Type: av.TypeS, S: pk}, "sk": {Type: av.TypeN, S: strconv.Itoa(sk)}}
	for range r.IntN(6) {
		it["a"+strconv.Itoa(r.IntN(8))] = randValue(r, 0)
	}
	if r.IntN(2) == 0 {
		it["gk"] = av.Value{Type: av.TypeS, S: "g" + strconv.Itoa(r.IntN(3))}
	}
	if r.IntN(2) == 0 {
		it["lk"] = av.Value{Type: av.TypeN, S: strconv.Itoa(r.IntN(20))}
	}
	if bigBytes > 0 {
		it["zpad"] = av.Value{Type: av.TypeS, S: strings.Repeat("p", bigBytes)}
	}
	return it
}

// storedPagesHandler serves a table Tbl (pk S, sk N; GSI gsi on gk with
// ALL, LSI lsi on lk with KEYS_ONLY) and a hash-only table Hsh.
func storedPagesHandler(t testing.TB) (*handler, http.Handler, func(op, body string) string) {
	h := newTestHandlerEngine(t, Options{}, emulator.Options{Throttle: emulator.ThrottleOptions{Off: true}})
	srv := h.routes()
	call := caller(t, srv)
	call("CreateTable", `{"TableName":"Tbl","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},
			{"AttributeName":"gk","AttributeType":"S"},{"AttributeName":"lk","AttributeType":"N"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],
		"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"lk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	call("CreateTable", `{"TableName":"Hsh","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	return h, srv, call
}

// caller calls an operation on srv and fails t unless it succeeds.
func caller(t testing.TB, srv http.Handler) func(op, body string) string {
	return func(op, body string) string {
		t.Helper()
		r := do(srv, http.MethodPost, "DynamoDB_20120810."+op, contentTypeJSON10, body)
		if r.status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", op, body, r.status, r.body)
		}
		return r.body
	}
}

var testNS = api.Namespace{Account: DefaultAccount, Region: DefaultRegion}

// checkPages runs a Query or Scan request (a JSON object without its
// closing brace) page by page through the handler and through the
// engine's decoded method, and fails unless every page is the same bytes.
// It returns the number of pages; it stops after maxPages (0: none).
func checkPages(t *testing.T, h *handler, call func(op, body string) string, op, req string, maxPages int) int {
	t.Helper()
	esk := ""
	for page := 1; ; page++ {
		body := req + esk + "}"
		got := call(op, body)
		var out any
		var err error
		switch op {
		case "Query":
			var in api.QueryInput
			if e := decodeInput([]byte(body), &in); e != nil {
				t.Fatal(e)
			}
			var o *api.ReadManyOutput
			o, err = h.eng.Query(t.Context(), testNS, &in)
			if err == nil {
				out = o
				esk = lekMember(o.LastEvaluatedKey)
			}
		case "Scan":
			var in api.ScanInput
			if e := decodeInput([]byte(body), &in); e != nil {
				t.Fatal(e)
			}
			var o *api.ReadManyOutput
			o, err = h.eng.Scan(t.Context(), testNS, &in)
			if err == nil {
				out = o
				esk = lekMember(o.LastEvaluatedKey)
			}
		}
		if err != nil {
			t.Fatalf("%s %s: %v", op, body, err)
		}
		want, err := encodeGeneric(out)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Fatalf("%s %s, page %d:\nserved  %.2000s\ngeneric %.2000s", op, body, page, got, want)
		}
		if esk == "" || page == maxPages {
			return page
		}
	}
}

func lekMember(lek av.Item) string {
	if lek == nil {
		return ""
	}
	return `,"ExclusiveStartKey":` + string(av.AppendItemJSON(nil, lek))
}

func TestStoredPagesMatchDecoded(t *testing.T) {
	h, _, call := storedPagesHandler(t)
	r := rand.New(rand.NewPCG(1, 2))
	for p := range 4 {
		for sk := range 25 {
			call("PutItem", `{"TableName":"Tbl","Item":`+string(av.AppendItemJSON(nil, randItem(r, "p"+strconv.Itoa(p), sk, 0)))+`}`)
		}
	}
	// Partition "big" is 1.2 MB: its first page stops at 1 MB.
	for sk := range 12 {
		call("PutItem", `{"TableName":"Tbl","Item":`+string(av.AppendItemJSON(nil, randItem(r, "big", sk, 100_000)))+`}`)
	}
	// Partition "edge" holds items of exactly 128 KB: the page's items add
	// up to exactly 1 MB at the eighth, where the page must stop, and its
	// capacity is a whole number of 4 KB units.
	for sk := range 10 {
		it := randItem(r, "edge", sk, 1)
		it["zpad"] = av.Value{Type: av.TypeS, S: strings.Repeat("e", 1+128<<10-av.ItemSize(it))}
		call("PutItem", `{"TableName":"Tbl","Item":`+string(av.AppendItemJSON(nil, it))+`}`)
	}
	for i := range 10 {
		it := randItem(r, "h"+strconv.Itoa(i), 0, 0)
		delete(it, "sk")
		call("PutItem", `{"TableName":"Hsh","Item":`+string(av.AppendItemJSON(nil, it))+`}`)
	}
	multi := 0
	for _, pk := range []string{"p0", "p1", "big", "edge", "none"} {
		q := `{"TableName":"Tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"` + pk + `"}`
		for _, req := range []string{
			q + `}`,
			q + `},"Limit":3`,
			q + `},"Limit":1,"ScanIndexForward":false,"ReturnConsumedCapacity":"TOTAL"`,
			q + `},"ConsistentRead":true,"ReturnConsumedCapacity":"INDEXES"`,
			q + `,":a":{"N":"3"},":b":{"N":"17"}},"KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","Limit":4`,
			q + `},"FilterExpression":"attribute_exists(a1) OR attribute_exists(zpad)","Limit":5`,
			q + `},"FilterExpression":"attribute_exists(a2)"`,
			q + `},"ProjectionExpression":"a1, sk","Limit":6`,
			q + `},"Select":"COUNT","Limit":7`,
			q + `},"IndexName":"lsi","Limit":4`,
			q + `},"IndexName":"lsi","Select":"ALL_ATTRIBUTES","Limit":4,"ReturnConsumedCapacity":"INDEXES"`,
		} {
			if checkPages(t, h, call, "Query", req, 0) > 1 {
				multi++
			}
		}
	}
	for _, req := range []string{
		`{"TableName":"Tbl","IndexName":"gsi","KeyConditionExpression":"gk = :g","ExpressionAttributeValues":{":g":{"S":"g1"}},"Limit":4,"ReturnConsumedCapacity":"INDEXES"`,
		`{"TableName":"Tbl","IndexName":"gsi","KeyConditionExpression":"gk = :g","ExpressionAttributeValues":{":g":{"S":"g2"}},"ScanIndexForward":false`,
		`{"TableName":"Hsh","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"h3"}}`,
	} {
		checkPages(t, h, call, "Query", req, 0)
	}
	for _, req := range []string{
		`{"TableName":"Tbl"`,
		`{"TableName":"Tbl","Limit":7,"ReturnConsumedCapacity":"TOTAL"`,
		`{"TableName":"Tbl","Segment":1,"TotalSegments":3,"Limit":9`,
		`{"TableName":"Tbl","FilterExpression":"attribute_type(a3, :s)","ExpressionAttributeValues":{":s":{"S":"M"}},"Limit":11`,
		`{"TableName":"Tbl","IndexName":"gsi","Limit":5,"ReturnConsumedCapacity":"INDEXES"`,
		`{"TableName":"Tbl","IndexName":"lsi"`,
		`{"TableName":"Tbl","ProjectionExpression":"pk, a4","ConsistentRead":true`,
		`{"TableName":"Tbl","Select":"COUNT"`,
		`{"TableName":"Hsh","Limit":3`,
	} {
		if checkPages(t, h, call, "Scan", req, 0) > 1 {
			multi++
		}
	}
	if multi < 10 {
		t.Errorf("only %d requests ran to more than one page", multi)
	}

	var keys []string
	for i := range 30 {
		keys = append(keys, fmt.Sprintf(`{"pk":{"S":"p%d"},"sk":{"N":"%d"}}`, i%5, i)) // p4 and sk ≥ 25 are missing
	}
	hkeys := `{"pk":{"S":"h1"}},{"pk":{"S":"h2"}},{"pk":{"S":"nope"}}`
	bigKeys := ""
	for sk := range 12 {
		bigKeys += fmt.Sprintf(`,{"pk":{"S":"big"},"sk":{"N":"%d"}}`, sk)
	}
	for _, req := range []string{
		`{"RequestItems":{"Tbl":{"Keys":[` + strings.Join(keys, ",") + `]},"Hsh":{"Keys":[` + hkeys + `]}},"ReturnConsumedCapacity":"TOTAL"}`,
		`{"RequestItems":{"Tbl":{"Keys":[` + strings.Join(keys[:10], ",") + `],"ProjectionExpression":"a1, pk"},"Hsh":{"Keys":[` + hkeys + `],"ConsistentRead":true}},"ReturnConsumedCapacity":"INDEXES"}`,
		`{"RequestItems":{"Hsh":{"Keys":[` + hkeys + `],"AttributesToGet":["pk"]}}}`,
		`{"RequestItems":{"Tbl":{"Keys":[` + bigKeys[1:] + `]}}}`,
	} {
		checkBatchGet(t, h, call, req)
	}
}

func checkBatchGet(t testing.TB, h *handler, call func(op, body string) string, req string) {
	t.Helper()
	got := call("BatchGetItem", req)
	var in api.BatchGetItemInput
	if e := decodeInput([]byte(req), &in); e != nil {
		t.Fatal(e)
	}
	out, err := h.eng.BatchGetItem(t.Context(), testNS, &in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeGeneric(out)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("BatchGetItem %s:\nserved  %.2000s\ngeneric %.2000s", req, got, want)
	}
}

// FuzzStoredPagesMatchDecoded puts the fuzzed item (its own key set) and
// a neighbour in a partition of their own and reads them back with Query
// (Limit), Scan (from just before the partition's items) and
// BatchGetItem: served and decoded answers must be the same bytes.
func FuzzStoredPagesMatchDecoded(f *testing.F) {
	f.Add([]byte(typicalItemJSON()), uint8(1))
	f.Add([]byte(`{"a":{"S":"<&>\u2028"},"b":{"L":[{"NULL":true},{"M":{}}]},"n":{"NS":["1","-2.50"]}}`), uint8(0))
	h, srv, _ := storedPagesHandler(f)
	n := 0
	f.Fuzz(func(t *testing.T, body []byte, limit uint8) {
		call := caller(t, srv)
		it, err := av.DecodeItemJSON(body)
		if err != nil {
			return
		}
		n++
		pk := "f" + strconv.Itoa(n)
		it["pk"] = av.Value{Type: av.TypeS, S: pk}
		it["sk"] = av.Value{Type: av.TypeN, S: "1"}
		delete(it, "gk")
		delete(it, "lk")
		var in api.PutItemInput
		if e := decodeInput([]byte(`{"TableName":"Tbl","Item":`+string(av.AppendItemJSON(nil, it))+`}`), &in); e != nil {
			return
		}
		if _, err := h.eng.PutItem(t.Context(), testNS, &in); err != nil {
			return // not a valid item
		}
		call("PutItem", `{"TableName":"Tbl","Item":{"pk":{"S":"`+pk+`"},"sk":{"N":"2"},"x":{"S":"y"}}}`)
		lim := ""
		if limit%4 > 0 {
			lim = `,"Limit":` + strconv.Itoa(int(limit%4))
		}
		checkPages(t, h, call, "Query", `{"TableName":"Tbl","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"`+pk+`"}},"ReturnConsumedCapacity":"TOTAL"`+lim, 0)
		checkPages(t, h, call, "Scan", `{"TableName":"Tbl","Limit":2,"ExclusiveStartKey":{"pk":{"S":"`+pk+`"},"sk":{"N":"0"}}`, 1)
		checkBatchGet(t, h, call, `{"RequestItems":{"Tbl":{"Keys":[{"pk":{"S":"`+pk+`"},"sk":{"N":"1"}},{"pk":{"S":"`+pk+`"},"sk":{"N":"2"}}]}}}`)
	})
}

// TestStoredBatchGetPast16MB: past 16 MB of items BatchGetItem leaves the
// rest of the keys unprocessed, counting stored items as decoded ones.
func TestStoredBatchGetPast16MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 17 MB of items")
	}
	h, _, call := storedPagesHandler(t)
	var keys []string
	for i := range 45 {
		pk := "big" + strconv.Itoa(i)
		call("PutItem", `{"TableName":"Hsh","Item":{"pk":{"S":"`+pk+`"},"zpad":{"S":"`+strings.Repeat("z", 390_000)+`"}}}`)
		keys = append(keys, `{"pk":{"S":"`+pk+`"}}`)
	}
	req := `{"RequestItems":{"Hsh":{"Keys":[` + strings.Join(keys, ",") + `]}},"ReturnConsumedCapacity":"TOTAL"}`
	if got := call("BatchGetItem", req); !strings.Contains(got, `"UnprocessedKeys":{"Hsh":{"Keys":[{"pk":{"S":"big44"}}]}}`) {
		t.Fatalf("no unprocessed keys past 16 MB: %.300s", got[len(got)-300:])
	}
	checkBatchGet(t, h, call, req)
}
