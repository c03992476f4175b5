package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// typicalItemJSON is a ~1 KB item with S, N, M, L, SS and BOOL attributes.
func typicalItemJSON() string {
	var b strings.Builder
	b.WriteString(`{"pk":{"S":"customer#000123"},"sk":{"S":"order#2026-01-01T10:00:00Z#9f86d081"},`)
	b.WriteString(`"total":{"N":"1234.56"},"quantity":{"N":"3"},"paid":{"BOOL":true},`)
	b.WriteString(`"tags":{"SS":["gift","priority","fragile","international"]},`)
	b.WriteString(`"address":{"M":{"street":{"S":"1 Infinite Loop"},"city":{"S":"Cupertino"},"zip":{"S":"95014"},"country":{"S":"US"},"geo":{"M":{"lat":{"N":"37.33182"},"lon":{"N":"-122.03118"}}}}},`)
	b.WriteString(`"lines":{"L":[`)
	for i := range 6 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"M":{"sku":{"S":"SKU-` + strconv.Itoa(10000+i) + `"},"qty":{"N":"` + strconv.Itoa(i+1) + `"},"price":{"N":"19.99"},"gift":{"BOOL":false}}}`)
	}
	b.WriteString(`]},"note":{"S":"` + strings.Repeat("Leave at the front desk. ", 6) + `"}}`)
	return b.String()
}

func putItemBody() []byte {
	return []byte(`{"TableName":"Orders","Item":` + typicalItemJSON() +
		`,"ConditionExpression":"attribute_not_exists(pk)","ReturnConsumedCapacity":"TOTAL"}`)
}

func BenchmarkDecodePutItem(b *testing.B) {
	body := putItemBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var in api.PutItemInput
		if e := decodeInput(body, &in); e != nil {
			b.Fatal(e)
		}
	}
}

// BenchmarkDecodePutItemGeneric is the encoding/json path the fast decoder
// replaces for plain requests, for comparison.
func BenchmarkDecodePutItemGeneric(b *testing.B) {
	body := putItemBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var in api.PutItemInput
		if err := json.Unmarshal(body, &in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeGetItem(b *testing.B) { benchEncodeGetItem(b, encodeOutput) }

// BenchmarkEncodeGetItemGeneric is the encoding/json path the direct encoder
// replaces, for comparison.
func BenchmarkEncodeGetItemGeneric(b *testing.B) { benchEncodeGetItem(b, encodeGeneric) }

func benchEncodeGetItem(b *testing.B, encode func(any) ([]byte, error)) {
	units := 0.5
	benchEncode(b, encode, &api.GetItemOutput{Item: typicalItem(b), ConsumedCapacity: &api.ConsumedCapacity{TableName: "Orders", CapacityUnits: &units}})
}

// BenchmarkEncodeBatchGet is a BatchGetItem response of 100 typical items.
func BenchmarkEncodeBatchGet(b *testing.B) { benchEncodeBatchGet(b, encodeOutput) }

// BenchmarkEncodeBatchGetGeneric is the encoding/json path it replaced.
func BenchmarkEncodeBatchGetGeneric(b *testing.B) { benchEncodeBatchGet(b, encodeGeneric) }

func benchEncodeBatchGet(b *testing.B, encode func(any) ([]byte, error)) {
	items := make([]av.Item, 100)
	for i := range items {
		items[i] = typicalItem(b)
	}
	units := 50.0
	benchEncode(b, encode, &api.BatchGetItemOutput{Responses: map[string][]av.Item{"Orders": items},
		UnprocessedKeys: map[string]api.KeysAndAttributes{}, ConsumedCapacity: []api.ConsumedCapacity{{TableName: "Orders", CapacityUnits: &units}}})
}

func typicalItem(b *testing.B) av.Item {
	var in api.PutItemInput
	if e := decodeInput([]byte(`{"Item":`+typicalItemJSON()+`}`), &in); e != nil {
		b.Fatal(e)
	}
	return in.Item
}

func benchEncode(b *testing.B, encode func(any) ([]byte, error), out any) {
	first, err := encode(out)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(first)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encode(out); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchmarkBodiesRoundTrip(t *testing.T) {
	item := typicalItemJSON()
	if n := len(item); n < 900 || n > 1400 {
		t.Errorf("typical item is %d bytes, want about 1 KB", n)
	}
	var in api.PutItemInput
	if e := decodeInput([]byte(`{"Item":`+item+`}`), &in); e != nil {
		t.Fatal(e)
	}
	if len(in.Item) != 9 {
		t.Fatalf("decoded %d attributes, want 9", len(in.Item))
	}
	b, err := encodeOutput(&api.GetItemOutput{Item: in.Item})
	if err != nil {
		t.Fatal(err)
	}
	var again api.PutItemInput
	if e := decodeInput([]byte(`{"Item":`+string(b[len(`{"Item":`):len(b)-1])+`}`), &again); e != nil {
		t.Fatal(e)
	}
	b2, _ := encodeOutput(&api.GetItemOutput{Item: again.Item})
	if string(b) != string(b2) {
		t.Errorf("round trip changed the item:\n%s\n%s", b, b2)
	}
}

// BenchmarkHeaderBytes is the per-request cost of sizing the headers of a
// typical SDK request for refuseOversized.
func BenchmarkHeaderBytes(b *testing.B) {
	r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", nil)
	for k, v := range map[string]string{
		"Content-Type":          contentTypeJSON10,
		"X-Amz-Target":          "DynamoDB_20120810.PutItem",
		"X-Amz-Date":            "20261203T074000Z",
		"Authorization":         "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261203/us-east-1/dynamodb/aws4_request, SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target, Signature=" + strings.Repeat("0", 64),
		"Amz-Sdk-Invocation-Id": "9f86d081-884c-4d63-a6a1-123456789abc",
		"Amz-Sdk-Request":       "attempt=1; max=3",
		"User-Agent":            "aws-sdk-go-v2/1.41.0 ua/2.1 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/dynamodb#1.55.0",
		"Accept-Encoding":       "identity",
		"Content-Length":        "1234",
	} {
		r.Header.Set(k, v)
	}
	b.ReportAllocs()
	for b.Loop() {
		if headerBytes(r) > MaxHeaderBytes {
			b.Fatal("typical headers over the limit")
		}
	}
}

// BenchmarkReadBody is the cost of reading a PutItem body of about 1.1 KB
// whose length the client declared, as every SDK does.
func BenchmarkReadBody(b *testing.B) {
	body := putItemBody()
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", bytes.NewReader(body))
		got, err := readBody(r, nil)
		if err != nil || len(got) != len(body) {
			b.Fatalf("read %d bytes, %v", len(got), err)
		}
	}
}

// BenchmarkServeGetItem and BenchmarkServePutItem are one request through
// the whole handler (routing, middleware, decoding, the engine on an
// in-memory store, encoding), without the network.
func BenchmarkServeGetItem(b *testing.B) {
	benchServe(b, "GetItem", `{"TableName":"Orders","Key":{"pk":{"S":"customer#000123"}}}`)
}

func BenchmarkServePutItem(b *testing.B) {
	benchServe(b, "PutItem", `{"TableName":"Orders","Item":`+typicalItemJSON()+`}`)
}

// BenchmarkServeQuery and BenchmarkServeBatchGet are loadgen's query (one
// partition of 10 items of 1 KB) and batchget (100 keys over ten
// partitions) through the whole handler.
func BenchmarkServeQuery(b *testing.B) {
	benchServeRead(b, "Query", `{"TableName":"loadgen","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p0000003"}}}`)
}

func BenchmarkServeBatchGet(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"RequestItems":{"loadgen":{"Keys":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"pk":{"S":"p%07d"},"sk":{"N":"%d"}}`, i/10, i%10)
	}
	sb.WriteString(`]}}}`)
	benchServeRead(b, "BatchGetItem", sb.String())
}

func benchServeRead(b *testing.B, op, body string) {
	benchServeSetup(b, op, body, func(call func(op, body string) *httptest.ResponseRecorder) {
		call("CreateTable", `{"TableName":"loadgen","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`)
		for i := range 100 {
			call("PutItem", fmt.Sprintf(`{"TableName":"loadgen","Item":{"pk":{"S":"p%07d"},"sk":{"N":"%d"},"data":{"S":"%s"}}}`, i/10, i%10, strings.Repeat("x", 1004)))
		}
	})
}

func benchServe(b *testing.B, op, body string) {
	benchServeSetup(b, op, body, func(call func(op, body string) *httptest.ResponseRecorder) {
		call("CreateTable", `{"TableName":"Orders","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
		call("PutItem", `{"TableName":"Orders","Item":`+typicalItemJSON()+`}`)
	})
}

func benchServeSetup(b *testing.B, op, body string, setup func(call func(op, body string) *httptest.ResponseRecorder)) {
	h := newTestHandlerEngine(b, Options{}, emulator.Options{Throttle: emulator.ThrottleOptions{Off: true}})
	srv := h.routes()
	call := func(op, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", strings.NewReader(body))
		r.Header.Set("Content-Type", contentTypeJSON10)
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261203/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature="+strings.Repeat("0", 64))
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", op, w.Code, w.Body)
		}
		return w
	}
	setup(call)
	b.ReportAllocs()
	for b.Loop() {
		call(op, body)
	}
}

func BenchmarkNewRequestID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = newRequestID()
	}
}

// BenchmarkDecodeLoadgenPutItem decodes the load generator's PutItem: two
// key attributes and a 1 KB ASCII string.
func BenchmarkDecodeLoadgenPutItem(b *testing.B) {
	body := []byte(`{"TableName":"loadgen-abc","Item":{"pk":{"S":"p0000123"},"sk":{"N":"7"},"data":{"S":"` + strings.Repeat("x", 1004) + `"}}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var in api.PutItemInput
		if e := decodeInput(body, &in); e != nil {
			b.Fatal(e)
		}
	}
}

// BenchmarkDecodeBatchGet100 decodes the load generator's BatchGetItem:
// 100 keys of one table.
func BenchmarkDecodeBatchGet100(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"RequestItems":{"loadgen-abc":{"Keys":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"pk":{"S":"p` + strconv.Itoa(1000000+i/10) + `"},"sk":{"N":"` + strconv.Itoa(i%10) + `"}}`)
	}
	sb.WriteString(`]}}}`)
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var in api.BatchGetItemInput
		if e := decodeInput(body, &in); e != nil {
			b.Fatal(e)
		}
	}
}

// BenchmarkNewHandler is the handler's share of every start before the
// first answer (NewHandler with the console's and /metrics' mounts), and
// the first health check, which builds the router.
func BenchmarkNewHandler(b *testing.B) {
	eng := newTestHandler(b, Options{}).eng
	mounts := []Mount{{Prefix: "/console", Handler: http.NotFoundHandler()}, {Prefix: "/metrics", Handler: http.NotFoundHandler()}}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = NewHandler(eng, Options{Mounts: mounts})
		}
	})
	b.Run("new+health", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h := NewHandler(eng, Options{Mounts: mounts})
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		}
	})
}
