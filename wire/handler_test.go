package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/pebblestore"
)

func newTestHandler(t testing.TB, opts Options) *handler {
	return newTestHandlerEngine(t, opts, emulator.Options{})
}

func newTestHandlerEngine(t testing.TB, opts Options, eopts emulator.Options) *handler {
	t.Helper()
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	eopts.Store = st
	eng, err := emulator.New(eopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = eng.Close()
		_ = st.Close()
	})
	return newHandler(eng, opts)
}

type response struct {
	status int
	header http.Header
	body   string
}

func do(h http.Handler, method, target, contentType, body string, hdr ...string) response {
	r := httptest.NewRequest(method, "http://localhost:8000/", strings.NewReader(body))
	if target != "" {
		r.Header.Set("X-Amz-Target", target)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return response{w.Code, w.Header(), w.Body.String()}
}

var requestIDPattern = regexp.MustCompile(`^[A-Z0-9]{52}$`)

// checkEnvelope checks the headers DynamoDB puts on every JSON response.
func checkEnvelope(t *testing.T, r response) {
	t.Helper()
	if got := r.header.Get("x-amz-crc32"); got != strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(r.body))), 10) {
		t.Errorf("x-amz-crc32 %q does not match the body %q", got, r.body)
	}
	if id := r.header.Get("x-amzn-RequestId"); !requestIDPattern.MatchString(id) {
		t.Errorf("x-amzn-RequestId %q is not 52 upper-case alphanumerics", id)
	}
	if got := r.header.Get("Content-Length"); got != strconv.Itoa(len(r.body)) {
		t.Errorf("Content-Length %q, body has %d bytes", got, len(r.body))
	}
	if r.header.Get("X-Amzn-ErrorType") != "" {
		t.Errorf("X-Amzn-ErrorType sent; DynamoDB does not send it")
	}
}

func TestUnknownTargets(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	unknown := func(msg string) string {
		return `{"__type":"com.amazon.coral.service#UnknownOperationException","message":"` + msg + `"}`
	}
	for _, tc := range []struct {
		name, target, contentType, body, want string
	}{
		{"unknown operation", "DynamoDB_20120810.NoSuchOp", contentTypeJSON10, `{}`, unknown("Unknown operation: DynamoDB_20120810.NoSuchOp")},
		{"unknown streams operation", "DynamoDBStreams_20120810.NoSuchOp", contentTypeJSON10, `{}`, unknown("Unknown operation: DynamoDBStreams_20120810.NoSuchOp")},
		{"streams operation under the DynamoDB prefix", "DynamoDB_20120810.ListStreams", contentTypeJSON10, `{}`, unknown("Unknown operation: DynamoDB_20120810.ListStreams")},
		{"DynamoDB operation under the Streams prefix", "DynamoDBStreams_20120810.ListTables", contentTypeJSON10, `{}`, unknown("Unknown operation: DynamoDBStreams_20120810.ListTables")},
		{"old API version", "DynamoDB_20111205.ListTables", contentTypeJSON10, `{}`, unknown("Unknown operation: DynamoDB_20111205.ListTables")},
		{"no target", "", contentTypeJSON10, `{}`, unknown("Missing X-Amz-Target header: it names the operation, e.g. DynamoDB_20120810.ListTables")},
		{"case matters", "dynamodb_20120810.ListTables", contentTypeJSON10, `{}`, unknown("Unknown operation: dynamodb_20120810.ListTables")},
		{"unknown operation, empty body", "DynamoDB_20120810.NoSuchOp", contentTypeJSON10, ``, unknown("Unknown operation: DynamoDB_20120810.NoSuchOp")},
		{"malformed JSON is reported first", "DynamoDB_20120810.NoSuchOp", contentTypeJSON10, `{`, `{"__type":"com.amazon.coral.service#SerializationException"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(h, http.MethodPost, tc.target, tc.contentType, tc.body)
			if r.status != http.StatusBadRequest || r.body != tc.want {
				t.Errorf("got %d %s, want 400 %s", r.status, r.body, tc.want)
			}
			if ct := r.header.Get("Content-Type"); ct != contentTypeJSON10 {
				t.Errorf("Content-Type %q", ct)
			}
			checkEnvelope(t, r)
		})
	}
}

func TestContentTypes(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	target := "DynamoDB_20120810.NoSuchOp"
	for _, tc := range []struct {
		contentType, wantType string
		wantStatus            int
	}{
		{contentTypeJSON10, contentTypeJSON10, 400},
		{contentTypeJSON10 + "; charset=utf-8", contentTypeJSON10, 400},
		{"application/json", "application/json", 400},
		{"", contentTypeJSON10, 400},
		{"text/plain", "", 404},
	} {
		r := do(h, http.MethodPost, target, tc.contentType, `{}`)
		if r.status != tc.wantStatus || r.header.Get("Content-Type") != tc.wantType {
			t.Errorf("Content-Type %q: got %d %q, want %d %q", tc.contentType, r.status, r.header.Get("Content-Type"), tc.wantStatus, tc.wantType)
		}
	}
	r := do(h, http.MethodPost, target, "text/plain", `{}`)
	if r.body != "<UnknownOperationException/>\n" {
		t.Errorf("unsupported content type: body %q", r.body)
	}
	checkEnvelope(t, r)
}

func TestOtherMethods(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := do(h, m, "DynamoDB_20120810.ListTables", contentTypeJSON10, `{}`)
		if r.status != http.StatusNotFound || r.body != "<UnknownOperationException/>\n" {
			t.Errorf("%s: %d %q", m, r.status, r.body)
		}
	}
}

func TestHealth(t *testing.T) {
	h := newTestHandler(t, Options{DefaultRegion: "eu-west-3"}).routes()
	for _, tc := range []struct {
		name string
		hdr  []string
		want string
	}{
		{"default region", nil, "healthy: dynamodb.eu-west-3.amazonaws.com "},
		{"host names the region", []string{"Host", "dynamodb.ap-south-1.amazonaws.com"}, "healthy: dynamodb.ap-south-1.amazonaws.com "},
		{"signed", []string{"Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/cn-north-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x"}, "healthy: dynamodb.cn-north-1.amazonaws.com.cn "},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			if tc.hdr[i] == "Host" {
				r.Host = tc.hdr[i+1]
			}
			r.Header.Set(tc.hdr[i], tc.hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 || w.Body.String() != tc.want {
			t.Errorf("%s: %d %q, want 200 %q", tc.name, w.Code, w.Body.String(), tc.want)
		}
	}
}

func TestRequestTooLarge(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	body := `{"TableName":"` + strings.Repeat("a", MaxRequestBytes) + `"}`
	r := do(h, http.MethodPost, "DynamoDB_20120810.DescribeTable", contentTypeJSON10, body)
	want := `{"__type":"com.amazon.coral.service#RequestEntityTooLargeException","message":"Request body of 16777232 bytes exceeds the 16 MB (16,777,216 bytes) limit of a DynamoDB request"}`
	if r.status != http.StatusRequestEntityTooLarge || r.body != want {
		t.Errorf("oversized body: %d %q", r.status, r.body)
	}
	checkEnvelope(t, r)
	// Exactly at the limit is read (and then rejected for what it says).
	body = `{"TableName":"` + strings.Repeat("a", MaxRequestBytes-16) + `"}`
	if len(body) != MaxRequestBytes {
		t.Fatalf("body is %d bytes", len(body))
	}
	r = do(h, http.MethodPost, "DynamoDB_20120810.NoSuchOp", contentTypeJSON10, body)
	if r.status != http.StatusBadRequest {
		t.Errorf("16 MB body: %d %q", r.status, r.body)
	}
}

func TestPanicAndInternalErrorsAre500(t *testing.T) {
	hd := newTestHandler(t, Options{})
	hd.dynamo["Boom"] = func(context.Context, *emulator.Engine, api.Namespace, []byte) (any, error) {
		panic("boom")
	}
	hd.dynamo["Plain"] = func(context.Context, *emulator.Engine, api.Namespace, []byte) (any, error) {
		return nil, errors.New("disk on fire")
	}
	hd.dynamo["Unencodable"] = func(context.Context, *emulator.Engine, api.Namespace, []byte) (any, error) {
		return map[string]any{"x": func() {}}, nil
	}
	h := hd.routes()
	for _, op := range []string{"Boom", "Plain", "Unencodable"} {
		r := do(h, http.MethodPost, "DynamoDB_20120810."+op, contentTypeJSON10, `{}`)
		want := `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`
		if r.status != http.StatusInternalServerError || r.body != want {
			t.Errorf("%s: %d %s", op, r.status, r.body)
		}
		checkEnvelope(t, r)
	}
	// The server still serves after a panic.
	if r := do(h, http.MethodPost, "DynamoDB_20120810.NoSuchOp", contentTypeJSON10, `{}`); r.status != 400 {
		t.Errorf("after panic: %d", r.status)
	}
}

func TestDispatchDecodesAndPassesNamespace(t *testing.T) {
	hd := newTestHandler(t, Options{AccessKeyAccounts: map[string]string{"AKIAMAPPED": "444455556666"}})
	var gotNS api.Namespace
	var gotIn *api.ListTablesInput
	hd.dynamo["Probe"] = op(func(_ *emulator.Engine, _ context.Context, ns api.Namespace, in *api.ListTablesInput) (*api.DescribeLimitsOutput, error) {
		gotNS, gotIn = ns, in
		return &api.DescribeLimitsOutput{AccountMaxReadCapacityUnits: 80000}, nil
	})
	r := do(hd.routes(), http.MethodPost, "DynamoDB_20120810.Probe", contentTypeJSON10, `{"Limit":7,"Other":1}`,
		"Authorization", "AWS4-HMAC-SHA256 Credential=AKIAMAPPED/20260101/me-south-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x")
	if r.status != 200 || !strings.Contains(r.body, `"AccountMaxReadCapacityUnits":80000`) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	checkEnvelope(t, r)
	if gotNS != (api.Namespace{Account: "444455556666", Region: "me-south-1"}) || gotIn == nil || *gotIn.Limit != 7 {
		t.Errorf("engine saw %+v %+v", gotNS, gotIn)
	}
}

// TestDispatchCoversEngine: every engine method with the operation
// signature has exactly one entry in the dispatch tables (DynamoDB or
// Streams), and the tables have nothing else.
func TestDispatchCoversEngine(t *testing.T) {
	servedAs := map[string]string{"GetItemStored": "GetItem", "QueryStored": "Query", "ScanStored": "Scan", "BatchGetItemStored": "BatchGetItem"}
	table := dynamoDBOperations()
	for name, fn := range streamsOperations() {
		if table[name] != nil {
			t.Errorf("%s is in both the DynamoDB and the Streams table", name)
		}
		table[name] = fn
	}
	et := reflect.TypeFor[*emulator.Engine]()
	ctxT := reflect.TypeFor[context.Context]()
	nsT := reflect.TypeFor[api.Namespace]()
	errT := reflect.TypeFor[error]()
	n := 0
	for m := range et.Methods() {
		ft := m.Type
		if ft.NumIn() != 4 || ft.NumOut() != 2 || ft.In(1) != ctxT || ft.In(2) != nsT ||
			ft.In(3).Kind() != reflect.Pointer || ft.Out(0).Kind() != reflect.Pointer || ft.Out(1) != errT {
			continue
		}
		if op, ok := servedAs[m.Name]; ok {
			// A variant of an operation that the table serves instead.
			if table[op] == nil {
				t.Errorf("engine method %s serves %s, which is not in the dispatch table", m.Name, op)
			}
			continue
		}
		n++
		if table[m.Name] == nil {
			t.Errorf("engine method %s is not in the dispatch table", m.Name)
		}
	}
	if n != len(table) {
		t.Errorf("dispatch table has %d entries, engine has %d operations", len(table), n)
	}
}

func TestResponseNumbers(t *testing.T) {
	ts := 1767225600.123
	units := 0.5
	out := api.DescribeTableOutput{Table: &api.TableDescription{CreationDateTime: ts,
		ProvisionedThroughput: api.ProvisionedThroughputDescription{LastIncreaseDateTime: &ts}}}
	b, err := encodeOutput(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"CreationDateTime":1767225600.123`)) || !bytes.Contains(b, []byte(`"LastIncreaseDateTime":1767225600.123`)) {
		t.Errorf("timestamp rendering: %s", b)
	}
	b, _ = encodeOutput(api.ConsumedCapacity{CapacityUnits: &units})
	if string(b) != `{"CapacityUnits":0.5}` {
		t.Errorf("capacity rendering: %s", b)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
}

func TestSTSQuery(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	auth := []string{"Authorization", "AWS4-HMAC-SHA256 Credential=111122223333/20260101/cn-northwest-1/sts/aws4_request, SignedHeaders=host, Signature=x"}
	r := do(h, http.MethodPost, "", "application/x-www-form-urlencoded", "Action=GetCallerIdentity&Version=2011-06-15", auth...)
	want := `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>arn:aws-cn:iam::111122223333:root</Arn>
    <UserId>111122223333</UserId>
    <Account>111122223333</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata>
    <RequestId>` + r.header.Get("x-amzn-RequestId") + `</RequestId>
  </ResponseMetadata>
</GetCallerIdentityResponse>
`
	if r.status != 200 || r.body != want || r.header.Get("Content-Type") != "text/xml" {
		t.Errorf("GetCallerIdentity: %d %s\n%s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(r.header.Get("x-amzn-RequestId")) {
		t.Errorf("STS request ID %q is not a UUID", r.header.Get("x-amzn-RequestId"))
	}

	r = do(h, http.MethodPost, "", "application/x-www-form-urlencoded", "Action=GetUser&Version=2010-05-08", auth...)
	if r.status != 400 || !strings.Contains(r.body, "<Code>InvalidAction</Code>") ||
		!strings.Contains(r.body, "<Message>Could not find operation GetUser for version 2010-05-08</Message>") {
		t.Errorf("unknown action: %d %s", r.status, r.body)
	}
	r = do(h, http.MethodPost, "", "application/x-www-form-urlencoded", "Version=2011-06-15", auth...)
	if r.status != 400 || !strings.Contains(r.body, "<Code>MissingAction</Code>") {
		t.Errorf("missing action: %d %s", r.status, r.body)
	}

	// Presigned GET.
	req := httptest.NewRequest(http.MethodGet, "/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Credential=222233334444%2F20260101%2Fus-west-2%2Fsts%2Faws4_request", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "<Arn>arn:aws:iam::222233334444:root</Arn>") {
		t.Errorf("presigned GET: %d %s", w.Code, w.Body.String())
	}

	// The JSON protocol form.
	r = do(h, http.MethodPost, "AWSSecurityTokenServiceV20110615.GetCallerIdentity", contentTypeJSON10, "{}", auth...)
	if r.status != 200 || r.body != `{"Account":"111122223333","Arn":"arn:aws-cn:iam::111122223333:root","UserId":"111122223333"}` {
		t.Errorf("JSON GetCallerIdentity: %d %s", r.status, r.body)
	}
	r = do(h, http.MethodPost, "AWSSecurityTokenServiceV20110615.AssumeRole", contentTypeJSON10, "{}", auth...)
	if r.status != 400 || r.body != `{"__type":"com.amazon.coral.service#UnknownOperationException"}` {
		t.Errorf("JSON unknown action: %d %s", r.status, r.body)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestBodyReadErrorIsNotTooLarge(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	r := httptest.NewRequest(http.MethodPost, "/", failingReader{})
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	w := httptest.NewRecorder()
	// An unreadable body aborts the handler (net/http drops the
	// connection); it is never answered, least of all 413 or 200.
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("unreadable body: panic %v, want http.ErrAbortHandler", p)
		}
		if w.Body.Len() != 0 {
			t.Errorf("unreadable body answered %d %q", w.Code, w.Body.String())
		}
	}()
	h.ServeHTTP(w, r)
}

// TestRequestIDsAreDistinct: every response gets an ID of its own, in
// DynamoDB's form.
func TestRequestIDsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := newRequestID()
		if !requestIDPattern.MatchString(id) || seen[id] {
			t.Fatalf("request ID %q: not 52 upper-case alphanumerics, or repeated", id)
		}
		seen[id] = true
	}
}
