package wire

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// FuzzAuthenticate holds the Authorization header and credential-scope
// parsing of --auth=sigv4 to "no panic, and a refusal is always one of
// DynamoDB's authentication errors".
func FuzzAuthenticate(f *testing.F) {
	creds, err := ParseCredentials([]byte("users:\n  - {accessKeyId: AKID, secretAccessKey: s, account: \"111111111111\"}\n"))
	if err != nil {
		f.Fatal(err)
	}
	h := newHandler(nil, Options{Credentials: creds})
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	f.Add("AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", "20260101T120000Z")
	f.Add("AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request,SignedHeaders=host,Signature=", "20260101T120000Z")
	f.Add("AWS4-ECDSA-P256-SHA256 Credential=AKID/20260101/dynamodb/aws4_request, SignedHeaders=host, Signature=1", "x")
	f.Add("Credential=////, Signature, =", "")
	f.Add("", "20260101T120000Z")
	known := map[string]bool{CodeMissingAuthenticationToken: true, CodeIncompleteSignature: true, CodeInvalidSignature: true,
		CodeUnrecognizedClient: true, CodeExpiredToken: true}
	f.Fuzz(func(t *testing.T, auth, date string) {
		r, _ := http.NewRequest(http.MethodPost, "http://localhost/", strings.NewReader("{}"))
		r.Header.Set("Authorization", auth)
		r.Header.Set("X-Amz-Date", date)
		id, _, aerr := h.authenticate(r, []byte("{}"), "dynamodb", now)
		if aerr == nil {
			if id == nil {
				t.Fatal("no identity and no error")
			}
			return
		}
		if !known[aerr.Code] || aerr.Message == "" {
			t.Fatalf("authenticate(%q, %q) = %s %q", auth, date, aerr.Code, aerr.Message)
		}
		if _, body, err := encodeError(aerr); err != nil || len(body) == 0 {
			t.Fatalf("encodeError: %v", err)
		}
	})
}

func TestParseSigV4Errors(t *testing.T) {
	h := "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders, Signature=x"
	_, err := parseSigV4(h, true)
	if err == nil || err.Code != CodeIncompleteSignature || err.Message != "'SignedHeaders' not a valid key=value pair (missing equal-sign) in Authorization header: '"+h+"'." {
		t.Fatalf("got %+v", err)
	}
	_, cerr := checkScope("AKID/20250101/us-east-1/s3/aws4", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "20260101T000000Z", "dynamodb")
	want := "Credential should be scoped to correct service: 'dynamodb'. Credential should be scoped with a valid terminator: 'aws4_request', not 'aws4'. " +
		"Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20250101' != '20260101', from '20260101T000000Z'."
	if cerr == nil || cerr.Code != CodeInvalidSignature || cerr.Message != want {
		t.Fatalf("got %+v", cerr)
	}
	if _, cerr := checkScope("a/b/c", time.Now(), "", "dynamodb"); cerr == nil || cerr.Code != CodeIncompleteSignature {
		t.Fatalf("got %+v", cerr)
	}
}

// A request refused by authentication gets its request log line and its
// OnRequest report, as any answered request does.
func TestRefusalLoggedAndCounted(t *testing.T) {
	creds, err := ParseCredentials([]byte("users:\n  - {accessKeyId: AKID, secretAccessKey: s, account: \"111111111111\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	l := zerolog.New(&buf).Level(zerolog.InfoLevel)
	var done []RequestDone
	h := newTestHandler(t, Options{Credentials: creds, Logger: &l, OnRequest: func(d RequestDone) { done = append(done, d) }}).routes()
	r := do(h, http.MethodPost, "DynamoDB_20120810.ListTables", contentTypeJSON10, `{}`)
	if r.status != 400 || !strings.Contains(r.body, "MissingAuthenticationTokenException") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if !strings.Contains(buf.String(), `"error":"MissingAuthenticationTokenException"`) || !strings.Contains(buf.String(), `"op":"ListTables"`) {
		t.Errorf("log: %s", buf.String())
	}
	if len(done) != 1 || done[0].Operation != "ListTables" || done[0].ErrorCode != CodeMissingAuthenticationToken {
		t.Errorf("OnRequest: %+v", done)
	}
}
