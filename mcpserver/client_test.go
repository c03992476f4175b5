package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testServer is a server whose DynamoDB client sends to endpoint.
func testServer(t *testing.T, endpoint string) *server {
	t.Helper()
	base, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return &server{base: base, opts: Options{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), HTTPClient: http.DefaultClient}}
}

// sdkClient is aws-sdk-go-v2's DynamoDB client for endpoint, the client
// the package's own replaced: what it did is what ours must do.
func sdkClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
}

// answer is one canned HTTP answer.
type answer struct {
	status int
	header map[string]string
	body   string
}

// TestErrorsAsSDK: for each sequence of answers, the package's client
// makes as many attempts as the SDK's and fails with the same text.
func TestErrorsAsSDK(t *testing.T) {
	const ns = "com.amazonaws.dynamodb.v20120810#"
	ok := answer{200, nil, `{"Table":{"TableName":"T","TableStatus":"ACTIVE"}}`}
	for _, tc := range []struct {
		name    string
		answers []answer // the last repeats
	}{
		{"modeled", []answer{{400, nil, `{"__type":"` + ns + `ResourceNotFoundException","message":"Requested resource not found"}`}}},
		{"modeled, Message", []answer{{400, nil, `{"__type":"` + ns + `TransactionCanceledException","Message":"upper case"}`}}},
		{"modeled, no message", []answer{{400, nil, `{"__type":"` + ns + `ResourceNotFoundException"}`}}},
		{"not modeled", []answer{{400, nil, `{"__type":"com.amazon.coral.validate#ValidationException","message":"bad"}`}}},
		{"not modeled, no message", []answer{{400, nil, `{"__type":"` + ns + `SomethingNew"}`}}},
		{"code member", []answer{{400, nil, `{"code":"AccessDeniedException","Message":"no"}`}}},
		{"header code", []answer{{400, map[string]string{"X-Amzn-ErrorType": "ResourceInUseException:http://internal.amazon.com/"}, `{"message":"in use"}`}}},
		{"empty body", []answer{{400, nil, ``}}},
		{"500, retried to the end", []answer{{500, nil, `{"__type":"` + ns + `InternalServerError","message":"boom"}`}}},
		{"503 not JSON", []answer{{503, nil, `oops`}}},
		{"500 then fine", []answer{{500, nil, `{"__type":"` + ns + `InternalServerError","message":"boom"}`}, ok}},
		{"throttled then fine", []answer{{400, nil, `{"__type":"` + ns + `ProvisionedThroughputExceededException","message":"slow down"}`}, ok}},
		{"429 not modeled, then fine", []answer{{429, nil, `{"__type":"TooManyRequests"}`}, ok}},
		{"fine", []answer{ok}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				a := tc.answers[min(int(n.Add(1)), len(tc.answers))-1]
				w.Header().Set("X-Amzn-RequestId", "REQ1")
				for k, v := range a.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(a.status)
				io.WriteString(w, a.body)
			}))
			defer hs.Close()
			_, sdkErr := sdkClient(hs.URL).DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("T")})
			sdkN := n.Swap(0)
			var out struct{ Table *dTableDescription }
			err := testServer(t, hs.URL).call(t.Context(), target{region: "us-east-1", creds: credentials.NewStaticCredentialsProvider("test", "test", "")}, "DescribeTable", request{"TableName": "T"}, &out)
			if got := n.Load(); got != sdkN {
				t.Errorf("%d attempts, the SDK made %d", got, sdkN)
			}
			if (err == nil) != (sdkErr == nil) || (err != nil && err.Error() != sdkErr.Error()) {
				t.Errorf("error\n %v\nthe SDK's\n %v", err, sdkErr)
			}
			if err == nil && (out.Table == nil || *out.Table.TableName != "T") {
				t.Errorf("answer %+v", out.Table)
			}
		})
	}
}

// TestSendErrorsAsSDK: a refused connection is retried and worded as
// the SDK did; an ended context stops the request, worded as the SDK did.
func TestSendErrorsAsSDK(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	tg := target{region: "us-east-1", creds: credentials.NewStaticCredentialsProvider("test", "test", "")}
	_, sdkErr := sdkClient(closed).ListTables(t.Context(), &dynamodb.ListTablesInput{})
	err = testServer(t, closed).call(t.Context(), tg, "ListTables", request{}, nil)
	if err == nil || err.Error() != sdkErr.Error() {
		t.Errorf("refused: error\n %v\nthe SDK's\n %v", err, sdkErr)
	}

	hang := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		case <-time.After(5 * time.Second): // a client that ignores its context fails, not hangs
		}
	}))
	defer hs.Close()
	defer close(hang)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, sdkErr = sdkClient(hs.URL).ListTables(ctx, &dynamodb.ListTablesInput{})
	ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	err = testServer(t, hs.URL).call(ctx, tg, "ListTables", request{}, nil)
	if err == nil || err.Error() != sdkErr.Error() {
		t.Errorf("deadline: error\n %v\nthe SDK's\n %v", err, sdkErr)
	}
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("the call outlived its context by %v", d)
	}
}

// TestRequestAsSDK: a request goes as the SDK's went: POST /, JSON 1.0,
// the operation in X-Amz-Target, signed for dynamodb in the target's
// Region with the target's key.
func TestRequestAsSDK(t *testing.T) {
	type seen struct {
		method, path, target, ctype, auth string
		body                              map[string]any
	}
	var got []seen
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		json.NewDecoder(r.Body).Decode(&b)
		got = append(got, seen{r.Method, r.URL.Path, r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type"), r.Header.Get("Authorization"), b})
		io.WriteString(w, `{}`)
	}))
	defer hs.Close()
	sdk := dynamodb.New(dynamodb.Options{Region: "eu-west-1", BaseEndpoint: aws.String(hs.URL), Credentials: credentials.NewStaticCredentialsProvider("111111111111", "test", "")})
	if _, err := sdk.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("T"), ConsistentRead: aws.Bool(false),
		Key: map[string]types.AttributeValue{"k": &types.AttributeValueMemberB{Value: []byte{0, 255}}, "n": &types.AttributeValueMemberNULL{Value: true}}}); err != nil {
		t.Fatal(err)
	}
	s := testServer(t, hs.URL)
	tg, err := s.target(where{account: "111111111111", region: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	// As the tools take it: binary in base64 that is not canonical, NULL
	// as anything.
	key, err := toItem(map[string]any{"k": map[string]any{"B": "AP9="}, "n": map[string]any{"NULL": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.call(t.Context(), tg, "GetItem", request{"TableName": "T", "ConsistentRead": false, "Key": key}, nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	sdkReq, ours := got[0], got[1]
	scope := func(auth string) string { // Credential=KEY/DATE/REGION/SERVICE/aws4_request
		_, after, _ := strings.Cut(auth, "Credential=")
		key, rest, _ := strings.Cut(after, "/")
		_, rest, _ = strings.Cut(rest, "/")
		scope, _, _ := strings.Cut(rest, ",")
		return key + " " + scope
	}
	if ours.method != sdkReq.method || ours.path != sdkReq.path || ours.target != sdkReq.target || ours.ctype != sdkReq.ctype || scope(ours.auth) != scope(sdkReq.auth) {
		t.Errorf("request\n %s %s %s %s %s\nthe SDK's\n %s %s %s %s %s", ours.method, ours.path, ours.target, ours.ctype, scope(ours.auth),
			sdkReq.method, sdkReq.path, sdkReq.target, sdkReq.ctype, scope(sdkReq.auth))
	}
	if a, b := jsonText(ours.body), jsonText(sdkReq.body); a != b {
		t.Errorf("body %s, the SDK's %s", a, b)
	}
}

// TestAnswerAsSDK: values of an answer that the tools never see from
// ExtendDB but the SDK accepted come out as it decoded them: NULL false as
// NULL true, binary in non-canonical base64 canonical.
func TestAnswerAsSDK(t *testing.T) {
	const body = `{"Item":{"n":{"NULL":false},"b":{"B":"AP9="},"bs":{"BS":["AR=="]},"l":{"L":[{"NULL":false}]}}}`
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
	defer hs.Close()
	got, err := sdkClient(hs.URL).GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("T"), Key: map[string]types.AttributeValue{}})
	if err != nil {
		t.Fatal(err)
	}
	// What the SDK decoded, which the tools showed as want says.
	if n, ok := got.Item["n"].(*types.AttributeValueMemberNULL); !ok || n.Value {
		t.Errorf("the SDK decoded NULL false as %#v", got.Item["n"])
	}
	if b, ok := got.Item["b"].(*types.AttributeValueMemberB); !ok || string(b.Value) != "\x00\xff" {
		t.Errorf("the SDK decoded B as %#v", got.Item["b"])
	}
	const want = `{"b":{"B":"AP8="},"bs":{"BS":["AQ=="]},"l":{"L":[{"NULL":true}]},"n":{"NULL":true}}`
	var ours struct{ Item map[string]any }
	if err := testServer(t, hs.URL).call(t.Context(), target{region: "us-east-1", creds: credentials.NewStaticCredentialsProvider("test", "test", "")}, "GetItem", request{}, &ours); err != nil {
		t.Fatal(err)
	}
	if s := jsonText(fromItem(ours.Item)); s != want {
		t.Errorf("item %s, want %s", s, want)
	}
}

// TestRetryDelay: throttling backs off from a second, other failures
// from 25 ms, doubling per attempt up to 20 s, as the SDK's DynamoDB
// client did.
func TestRetryDelay(t *testing.T) {
	throttled := &responseError{status: 400, err: &apiError{code: "ProvisionedThroughputExceededException", modeled: true}}
	failed := &responseError{status: 500, err: &apiError{code: "InternalServerError", modeled: true}}
	tooMany := &responseError{status: 429, err: &apiError{code: "TooManyRequests"}}
	for _, tc := range []struct {
		err             error
		throttle, retry bool
	}{{throttled, true, true}, {failed, false, true}, {tooMany, true, true}, {&responseError{status: 400, err: &apiError{code: "ValidationException"}}, false, false}} {
		if th, re := retryable(tc.err); th != tc.throttle || re != tc.retry {
			t.Errorf("retryable(%v) = %v, %v, want %v, %v", tc.err, th, re, tc.throttle, tc.retry)
		}
	}
	for _, tc := range []struct {
		attempt  int
		throttle bool
		max      time.Duration
	}{{1, false, 25 * time.Millisecond}, {3, false, 100 * time.Millisecond}, {1, true, time.Second}, {3, true, 4 * time.Second}, {9, true, 20 * time.Second}} {
		var most time.Duration
		for range 200 {
			most = max(most, retryDelay(tc.attempt, tc.throttle))
		}
		if most >= tc.max || most < tc.max/2 {
			t.Errorf("retryDelay(%d, %v): at most %v of 200, want below %v and near it", tc.attempt, tc.throttle, most, tc.max)
		}
	}
}
