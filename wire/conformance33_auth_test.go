package wire_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAuthDateBeforeHeaderParts: under --auth=sigv4 a request whose date is
// more than 15 minutes old or ahead is refused for its date
// (InvalidSignatureException "Signature expired: …" / "Signature not yet
// current: …") before the Authorization header's credential scope, signed
// headers, algorithm, key and signature are looked at, and also when the
// header's parts are separated by spaces rather than ", ": AWS reads
// commas and white space alike between the parts (ScyllaDB's Alternator
// tests send exactly these headers to DynamoDB). A correctly signed
// request whose parts are separated by spaces only, or by commas only,
// passes.
func TestAuthDateBeforeHeaderParts(t *testing.T) {
	s, _ := authServer(t)
	const coral = "com.amazon.coral.service#"
	f := func(x time.Time) string { return x.UTC().Format("20060102T150405Z") }
	raw := func(auth, date string) *http.Request {
		r, err := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeEndpoints")
		r.Header.Set("X-Amz-Date", date)
		r.Header.Set("Authorization", auth)
		return r
	}
	const (
		spaced = "AWS4-HMAC-SHA256 Credential=cassandra/2/3/4/aws4_request SignedHeaders=x-amz-date;host Signature=123"
		past   = "20170101T010101Z"
		future = "30200101T010101Z"
	)
	cred := func(day string) string { return "Credential=AKIAALICE/" + day + "/us-east-1/dynamodb/aws4_request" }
	for _, c := range []struct{ name, auth string }{
		{"spaces", spaced},
		{"bad scope", "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=00"},
		{"short credential", "AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=host, Signature=00"},
		{"host not signed", "AWS4-HMAC-SHA256 " + cred("20170101") + ", SignedHeaders=x-amz-date, Signature=00"},
		{"algorithm", "AWS4-HMAC-SHA1 " + cred("20170101") + ", SignedHeaders=host, Signature=00"},
		{"unknown key", "AWS4-HMAC-SHA256 Credential=AKIANOBODY/20170101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"},
		{"signature", "AWS4-HMAC-SHA256 " + cred("20170101") + ",SignedHeaders=host;x-amz-date,Signature=00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := time.Now()
			got := send(t, s, raw(c.auth, past))
			if got.status != 400 || got.Type != coral+"InvalidSignatureException" ||
				!strings.HasPrefix(got.Msg, "Signature expired: "+past+" is now earlier than ") || !strings.HasSuffix(got.Msg, " - 15 min.)") {
				t.Fatalf("past date: %d %s %q", got.status, got.Type, got.Msg)
			}
			// "… is now earlier than NOW-15min (NOW - 15 min.)", NOW the server's clock.
			lo, _, _ := strings.Cut(strings.TrimPrefix(got.Msg, "Signature expired: "+past+" is now earlier than "), " ")
			if lo < f(before.Add(-15*time.Minute)) || lo > f(time.Now().Add(-15*time.Minute)) {
				t.Errorf("past date message %q", got.Msg)
			}
			got = send(t, s, raw(c.auth, future))
			if got.status != 400 || got.Type != coral+"InvalidSignatureException" ||
				!strings.HasPrefix(got.Msg, "Signature not yet current: "+future+" is still later than ") || !strings.HasSuffix(got.Msg, " + 15 min.)") {
				t.Fatalf("future date: %d %s %q", got.status, got.Type, got.Msg)
			}
		})
	}

	// With a current date the spaced header's parts are read one by one:
	// its credential scope is what is wrong.
	now := time.Now().UTC()
	got := send(t, s, raw(spaced, f(now)))
	if got.Type != coral+"InvalidSignatureException" || !strings.HasPrefix(got.Msg, "Credential should be scoped to correct service: 'dynamodb'. ") {
		t.Errorf("spaced header, current date: %s %q", got.Type, got.Msg)
	}
	// A space inside a value splits it, as AWS reads it.
	got = send(t, s, raw("AWS4-HMAC-SHA256 Credential=not valid/20170101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00", f(now)))
	if got.Type != coral+"IncompleteSignatureException" || !strings.HasPrefix(got.Msg, "'valid/20170101/us-east-1/dynamodb/aws4_request' not a valid key=value pair (missing equal-sign) in Authorization header: ") {
		t.Errorf("space in a value: %s %q", got.Type, got.Msg)
	}

	// A signed request passes with its parts separated by spaces alone or
	// by commas alone.
	for _, sep := range []string{" ", ","} {
		r := signed(t, s, "AKIAALICE", "alice-secret", "", time.Now(), "{}")
		alg, params, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		r.Header.Set("Authorization", alg+" "+strings.ReplaceAll(params, ", ", sep))
		if got := send(t, s, r); got.status != 200 {
			t.Errorf("parts separated by %q: %+v", sep, got)
		}
	}
}
