package kinesis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/emulator"
)

// The client against a fake Kinesis: what goes on the wire, and how each
// kind of answer comes back. The kinesalite tests cover a real server.

const arnPrefix = "arn:aws:kinesis:eu-west-2:111122223333:stream/"

// fake answers every request with status, header and body, and keeps the
// requests it saw (with their bodies).
type fake struct {
	status int
	header map[string]string
	body   string
	n      atomic.Int32
	reqs   chan *http.Request
	bodies chan []byte
}

func newFake(t *testing.T, status int, body string) (*fake, *Sink) {
	t.Helper()
	f := &fake{status: status, body: body, reqs: make(chan *http.Request, 10), bodies: make(chan []byte, 10)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.n.Add(1)
		b, _ := io.ReadAll(r.Body)
		f.reqs <- r
		f.bodies <- b
		for k, v := range f.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, f.body)
	}))
	t.Cleanup(srv.Close)
	s, err := New(Options{Endpoint: srv.URL, AccessKeyID: "AKID", SecretAccessKey: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

// checkSigned re-signs what the server received with the same time and
// credentials and wants the same Authorization: the signature covers this
// body, Region and service.
func checkSigned(t *testing.T, r *http.Request, body []byte, region string) {
	t.Helper()
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || time.Since(at).Abs() > time.Minute {
		t.Fatalf("X-Amz-Date %q: %v", r.Header.Get("X-Amz-Date"), err)
	}
	auth := r.Header.Get("Authorization")
	if want := "AWS4-HMAC-SHA256 Credential=AKID/" + at.Format("20060102") + "/" + region + "/kinesis/aws4_request"; !strings.HasPrefix(auth, want) {
		t.Fatalf("Authorization = %q, want it to start with %q", auth, want)
	}
	again, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	for _, h := range []string{"Content-Type", "X-Amz-Target"} {
		again.Header.Set(h, r.Header.Get(h))
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}, again,
		hex.EncodeToString(sum[:]), "kinesis", region, at); err != nil {
		t.Fatal(err)
	}
	if got := again.Header.Get("Authorization"); got != auth {
		t.Fatalf("signature does not match the request:\n got %s\nwant %s", auth, got)
	}
}

func TestWireRequests(t *testing.T) {
	f, s := newFake(t, 200, `{"StreamDescriptionSummary":{"StreamStatus":"ACTIVE"}}`)
	ctx := context.Background()
	if ok, err := s.StreamExists(ctx, arnPrefix+"orders"); !ok || err != nil {
		t.Fatalf("StreamExists = %v, %v", ok, err)
	}
	r, body := <-f.reqs, <-f.bodies
	if r.Method != http.MethodPost || r.URL.Path != "/" || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" ||
		r.Header.Get("X-Amz-Target") != "Kinesis_20131202.DescribeStreamSummary" {
		t.Fatalf("request: %s %s %v", r.Method, r.URL, r.Header)
	}
	if string(body) != `{"StreamName":"orders"}` {
		t.Fatalf("DescribeStreamSummary body = %s", body)
	}
	checkSigned(t, r, body, "eu-west-2")

	f.body = `{"FailedRecordCount":0,"Records":[{"SequenceNumber":"1","ShardId":"shardId-000000000000"},{"SequenceNumber":"2","ShardId":"shardId-000000000000"}]}`
	data := []byte{0, 0xff, '"', '\n', 0xc3}
	ok, err := s.PutRecords(ctx, "arn:aws:kinesis:ap-south-1:111122223333:stream/bin", []emulator.KinesisRecord{{PartitionKey: "p1", Data: data}, {PartitionKey: "p2", Data: []byte("{}")}})
	if err != nil || len(ok) != 2 || !ok[0] || !ok[1] {
		t.Fatalf("PutRecords = %v, %v", ok, err)
	}
	r, body = <-f.reqs, <-f.bodies
	if r.Header.Get("X-Amz-Target") != "Kinesis_20131202.PutRecords" {
		t.Fatalf("X-Amz-Target = %q", r.Header.Get("X-Amz-Target"))
	}
	if want := `{"StreamName":"bin","Records":[{"Data":"AP8iCsM=","PartitionKey":"p1"},{"Data":"e30=","PartitionKey":"p2"}]}`; string(body) != want {
		t.Fatalf("PutRecords body = %s, want %s", body, want)
	}
	checkSigned(t, r, body, "ap-south-1")
}

// codeOf is the Kinesis error code in err, "" if it has none.
func codeOf(err error) string {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

func TestErrorAnswers(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		header map[string]string
		body   string
		exists bool   // StreamExists's answer when it has no error
		code   string // the error's code; "" with fail: an error without one
		fail   bool
	}{
		{name: "not found", status: 400, body: `{"__type":"ResourceNotFoundException","message":"Stream nope not found"}`},
		{name: "not found, namespaced", status: 400, body: `{"__type":"com.amazonaws.kinesis.v20131202#ResourceNotFoundException","Message":"m"}`},
		{name: "not found, header", status: 400, header: map[string]string{"X-Amzn-ErrorType": "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazonaws.kinesis/"}, body: `{}`},
		{name: "not found, code", status: 400, body: `{"code":"ResourceNotFoundException"}`},
		{name: "header wins", status: 400, header: map[string]string{"X-Amzn-ErrorType": "AccessDeniedException"}, body: `{"__type":"ResourceNotFoundException"}`, code: "AccessDeniedException", fail: true},
		{name: "denied", status: 400, body: `{"__type":"AccessDeniedException","message":"no"}`, code: "AccessDeniedException", fail: true},
		{name: "limit", status: 400, body: `{"__type":"LimitExceededException"}`, code: "LimitExceededException", fail: true},
		{name: "server error", status: 500, body: `{"__type":"InternalFailure"}`, code: "InternalFailure", fail: true},
		{name: "empty error", status: 400, code: "UnknownError", fail: true},
		{name: "not JSON, 5xx", status: 503, body: `<html>Service Unavailable</html>`, fail: true},
		{name: "not JSON, 4xx", status: 404, body: `<UnknownOperationException/>`, fail: true},
		{name: "OK not JSON", status: 200, body: `Listening`, fail: true},
		{name: "OK empty", status: 200, fail: true},
		{name: "OK", status: 200, body: `{"StreamDescriptionSummary":{}}`, exists: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, s := newFake(t, c.status, c.body)
			f.header = c.header
			ok, err := s.StreamExists(context.Background(), arnPrefix+"s")
			if (err != nil) != c.fail || codeOf(err) != c.code || (err == nil && ok != c.exists) {
				t.Fatalf("StreamExists = %v, %v (code %q); want exists=%v fail=%v code %q", ok, err, codeOf(err), c.exists, c.fail, c.code)
			}
			if ok && err != nil {
				t.Fatalf("exists with an error: %v", err)
			}
			if n := f.n.Load(); n != 1 {
				t.Fatalf("%d requests, want 1 (no retries of our own)", n)
			}
		})
	}
}

func TestPutRecordsAnswers(t *testing.T) {
	recs := make([]emulator.KinesisRecord, 4)
	for i := range recs {
		recs[i] = emulator.KinesisRecord{PartitionKey: fmt.Sprint(i), Data: []byte("x")}
	}
	// Per record: refused ones carry an ErrorCode; missing ones count as refused.
	f, s := newFake(t, 200, `{"FailedRecordCount":1,"Records":[{"SequenceNumber":"1","ShardId":"s"},`+
		`{"ErrorCode":"ProvisionedThroughputExceededException","ErrorMessage":"Rate exceeded"},{"SequenceNumber":"3","ShardId":"s"}]}`)
	ok, err := s.PutRecords(context.Background(), arnPrefix+"s", recs)
	if err != nil || fmt.Sprint(ok) != "[true false true false]" {
		t.Fatalf("PutRecords = %v, %v", ok, err)
	}

	// The whole request refused: an error with the code and message, one request.
	f.status, f.body = 400, `{"__type":"ProvisionedThroughputExceededException","message":"Rate exceeded for stream s"}`
	ok, err = s.PutRecords(context.Background(), arnPrefix+"s", recs)
	wrapped := fmt.Errorf("stream x: %w", err) // as the deliverer wraps it
	if ok != nil || codeOf(wrapped) != "ProvisionedThroughputExceededException" || !strings.Contains(err.Error(), "Rate exceeded for stream s") {
		t.Fatalf("PutRecords = %v, %v", ok, err)
	}
	var coded interface{ ErrorCode() string }
	if !errors.As(wrapped, &coded) || coded.ErrorCode() != "ProvisionedThroughputExceededException" {
		t.Fatalf("no ErrorCode() in %v", err)
	}
	if n := f.n.Load(); n != 2 {
		t.Fatalf("%d requests, want 2 (no retries of our own)", n)
	}
}

func TestContextAndTransport(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // so that the server notices the client leaving
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(5 * time.Second): // bounds the test if ctx is ignored
		}
	}))
	defer srv.Close()
	defer close(release) // before srv.Close, which waits for the handler
	var calls atomic.Int32
	s, err := New(Options{Endpoint: srv.URL + "/base", HTTPClient: doFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		if r.URL.Path != "/base" {
			return nil, fmt.Errorf("path %q", r.URL.Path)
		}
		return http.DefaultClient.Do(r)
	})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.StreamExists(ctx, arnPrefix+"s")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("StreamExists past its deadline = %v after %v", err, time.Since(start))
	}
	if calls.Load() != 1 {
		t.Fatalf("Options.HTTPClient called %d times, want 1", calls.Load())
	}

	// Nothing listens on port 1: the transport's error comes back.
	s, _ = New(Options{Endpoint: "http://127.0.0.1:1"})
	if _, err := s.PutRecords(context.Background(), arnPrefix+"s", []emulator.KinesisRecord{{PartitionKey: "p", Data: []byte("x")}}); err == nil {
		t.Fatal("PutRecords to a closed server: no error")
	}
}

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
