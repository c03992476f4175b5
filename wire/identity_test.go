package wire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/emulator/api"
)

func TestParseAuthorization(t *testing.T) {
	for _, tc := range []struct {
		name, header         string
		key, region, service string
	}{
		{
			name:   "aws-sdk-go-v2",
			header: "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-date;x-amz-target, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
			key:    "AKIAIOSFODNN7EXAMPLE", region: "eu-west-1", service: "dynamodb",
		},
		{
			name:   "botocore and the AWS CLI",
			header: "AWS4-HMAC-SHA256 Credential=AKIAI27BC4DWAXEILKPQ/20200611/us-west-2/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=934acabca2a197515488610c7198d938202b89351d9cead42c1f9447ba2459c4",
			key:    "AKIAI27BC4DWAXEILKPQ", region: "us-west-2", service: "dynamodb",
		},
		{
			name:   "session token client, STS scope",
			header: "AWS4-HMAC-SHA256 Credential=ASIAXXXXXXXXXXXXXXXX/20260101/cn-north-1/sts/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token, Signature=abc",
			key:    "ASIAXXXXXXXXXXXXXXXX", region: "cn-north-1", service: "sts",
		},
		{
			name:   "no spaces after commas",
			header: "AWS4-HMAC-SHA256 Credential=111122223333/20130609/ap-southeast-2/dynamodb/aws4_request,SignedHeaders=host;x-amz-date,Signature=b",
			key:    "111122223333", region: "ap-southeast-2", service: "dynamodb",
		},
		{
			name:   "Credential last",
			header: "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=b, Credential=K/20130609/us-east-2/dynamodb/aws4_request",
			key:    "K", region: "us-east-2", service: "dynamodb",
		},
		{
			name:   "SigV4a has no Region in the scope",
			header: "AWS4-ECDSA-P256-SHA256 Credential=AKID/20260101/dynamodb/aws4_request, SignedHeaders=host;x-amz-region-set, Signature=3045",
			key:    "AKID", service: "dynamodb",
		},
		{name: "missing parts", header: "AWS4-HMAC-SHA256 Credential=AKID/20260101", key: "AKID"},
		{name: "empty credential", header: "AWS4-HMAC-SHA256 Credential=, SignedHeaders=host"},
		{name: "only a key", header: "AWS4-HMAC-SHA256 Credential=AKID", key: "AKID"},
		{name: "space in region", header: "AWS4-HMAC-SHA256 Credential=AKID/d/us east/dynamodb/aws4_request", key: "AKID"},
		{name: "garbage region", header: "AWS4-HMAC-SHA256 Credential=AKID/d/us;east/dynamodb/aws4_request", key: "AKID", service: "dynamodb"},
		{name: "no credential", header: "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=b"},
		{name: "SigV2-era header", header: "AWS3-HTTPS AWSAccessKeyId=AKID,Algorithm=HmacSHA256,Signature=x"},
		{name: "empty", header: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := parseAuthorization(tc.header)
			if cs.AccessKeyID != tc.key || cs.Region != tc.region || cs.Service != tc.service {
				t.Errorf("parseAuthorization = %+v, want key %q region %q service %q", cs, tc.key, tc.region, tc.service)
			}
		})
	}
}

// TestRequestScopeFromSigner signs requests with aws-sdk-go-v2's own signer,
// header and presigned, and reads their scope back.
func TestRequestScopeFromSigner(t *testing.T) {
	signer := v4.NewSigner()
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "token"}
	const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	ctx := context.Background()

	r := httptest.NewRequest(http.MethodPost, "http://localhost:8000/", nil)
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	if err := signer.SignHTTP(ctx, creds, r, emptySHA, "dynamodb", "ap-northeast-3", time.Now()); err != nil {
		t.Fatal(err)
	}
	if cs := requestScope(r); cs.AccessKeyID != "AKIDEXAMPLE" || cs.Region != "ap-northeast-3" || cs.Service != "dynamodb" {
		t.Errorf("signed header: scope %+v (Authorization %q)", cs, r.Header.Get("Authorization"))
	}

	r = httptest.NewRequest(http.MethodGet, "http://localhost:8000/", nil)
	url, _, err := signer.PresignHTTP(ctx, creds, r, emptySHA, "dynamodb", "sa-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r = httptest.NewRequest(http.MethodGet, url, nil)
	if cs := requestScope(r); cs.AccessKeyID != "AKIDEXAMPLE" || cs.Region != "sa-east-1" {
		t.Errorf("presigned %s: scope %+v", url, cs)
	}
}

func TestRequestScopeSigV4aRegionSet(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"eu-central-1", "eu-central-1"},
		{"*", ""},
		{"us-east-1,us-west-2", ""},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Set("Authorization", "AWS4-ECDSA-P256-SHA256 Credential=AKID/20260101/dynamodb/aws4_request, SignedHeaders=host;x-amz-region-set, Signature=3045")
		r.Header.Set("X-Amz-Region-Set", tc.set)
		if got := requestScope(r).Region; got != tc.want {
			t.Errorf("X-Amz-Region-Set %q: region %q, want %q", tc.set, got, tc.want)
		}
	}
}

func TestNamespace(t *testing.T) {
	o := Options{
		DefaultAccount:    "999999999999",
		DefaultRegion:     "eu-north-1",
		AccessKeyAccounts: map[string]string{"AKIAMAPPED": "222233334444", "AKIAEMPTY": ""},
	}
	for _, tc := range []struct {
		name string
		cs   credentialScope
		want api.Namespace
	}{
		{"12-digit key is the account", credentialScope{AccessKeyID: "111122223333", Region: "us-west-2"}, api.Namespace{Account: "111122223333", Region: "us-west-2"}},
		{"mapped key", credentialScope{AccessKeyID: "AKIAMAPPED", Region: "us-west-2"}, api.Namespace{Account: "222233334444", Region: "us-west-2"}},
		{"unmapped key gets the default", credentialScope{AccessKeyID: "AKIAOTHER", Region: "us-west-2"}, api.Namespace{Account: "999999999999", Region: "us-west-2"}},
		{"empty mapping gets the default", credentialScope{AccessKeyID: "AKIAEMPTY", Region: "us-west-2"}, api.Namespace{Account: "999999999999", Region: "us-west-2"}},
		{"11 digits is a key, not an account", credentialScope{AccessKeyID: "11112222333"}, api.Namespace{Account: "999999999999", Region: "eu-north-1"}},
		{"13 digits is a key, not an account", credentialScope{AccessKeyID: "1111222233334"}, api.Namespace{Account: "999999999999", Region: "eu-north-1"}},
		{"unsigned", credentialScope{}, api.Namespace{Account: "999999999999", Region: "eu-north-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := o.namespace(tc.cs); got != tc.want {
				t.Errorf("namespace(%+v) = %+v, want %+v", tc.cs, got, tc.want)
			}
		})
	}
}

func TestNamespaceModes(t *testing.T) {
	per := Options{DefaultAccount: "999999999999", DefaultRegion: "eu-north-1", AccountPerAccessKey: true,
		AccessKeyAccounts: map[string]string{"AKIAMAPPED": "222233334444"}}
	a, b := per.namespace(credentialScope{AccessKeyID: "test", Region: "us-west-2"}), per.namespace(credentialScope{AccessKeyID: "other", Region: "us-west-2"})
	if a.Account == b.Account || a.Account == "999999999999" || !isAccountID(a.Account) || !isAccountID(b.Account) {
		t.Errorf("per-key accounts: test=%s other=%s; want two distinct 12-digit accounts", a.Account, b.Account)
	}
	if a.Account != DerivedAccount("test") || per.namespace(credentialScope{AccessKeyID: "test"}).Account != a.Account {
		t.Errorf("per-key account of %q is not stable: %s vs %s", "test", a.Account, DerivedAccount("test"))
	}
	for cs, want := range map[credentialScope]string{
		{AccessKeyID: "AKIAMAPPED"}:   "222233334444", // the map wins
		{AccessKeyID: "111122223333"}: "111122223333", // a 12-digit key is its account
		{}:                            "999999999999", // unsigned
	} {
		if got := per.namespace(cs).Account; got != want {
			t.Errorf("per-key mode, key %q: account %s, want %s", cs.AccessKeyID, got, want)
		}
	}
	shared := Options{DefaultAccount: "999999999999", DefaultRegion: "eu-north-1", SingleNamespace: true}
	want := api.Namespace{Account: "999999999999", Region: "eu-north-1"}
	for _, cs := range []credentialScope{{AccessKeyID: "111122223333", Region: "us-west-2"}, {AccessKeyID: "x"}} {
		if got := shared.namespace(cs); got != want {
			t.Errorf("single namespace: %+v -> %+v, want %+v", cs, got, want)
		}
	}
}

func FuzzParseAuthorization(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=5d")
	f.Add("AWS4-ECDSA-P256-SHA256 Credential=AKID/20260101/dynamodb/aws4_request")
	f.Add("Credential=////")
	f.Fuzz(func(t *testing.T, h string) {
		cs := parseAuthorization(h)
		for _, s := range []string{cs.AccessKeyID, cs.Region} {
			if s != "" && !validToken(s) {
				t.Fatalf("parseAuthorization(%q) returned unusable %q", h, s)
			}
		}
		if cs.Region != "" && !strings.Contains(h, cs.Region) {
			t.Fatalf("region %q not in header %q", cs.Region, h)
		}
	})
}

// splitCredential is parseCredential as it was, with strings.Split: the
// reference the array-based split must match.
func splitCredential(v string) credentialScope {
	parts := strings.Split(strings.TrimSpace(v), "/")
	var cs credentialScope
	if len(parts) > 0 && validToken(parts[0]) {
		cs.AccessKeyID = parts[0]
	}
	if len(parts) > 1 {
		cs.Date = parts[1]
	}
	switch {
	case len(parts) >= 5:
		if validToken(parts[2]) {
			cs.Region = parts[2]
		}
		cs.Service = parts[3]
	case len(parts) == 4 && parts[3] == "aws4_request":
		cs.Service = parts[2]
	}
	return cs
}

func FuzzParseCredentialMatchesSplit(f *testing.F) {
	for _, v := range []string{"AKID/20260101/eu-west-1/dynamodb/aws4_request", "AKID/20260101/dynamodb/aws4_request",
		"AKID/20260101/dynamodb/other", "", "/", "a/b/c/d/e/f/g/h", " AKID/d/r/s/aws4_request ", "AKID/d/r/s/aws4_request/x"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := parseCredential(v), splitCredential(v); got != want {
			t.Fatalf("parseCredential(%q) = %+v, want %+v", v, got, want)
		}
	})
}
