package wire

import (
	"net/http"
	"strings"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/emulator/api"
)

// Defaults of Options.
const (
	DefaultAccount = accounts.Default
	DefaultRegion  = "us-east-1"
)

// credentialScope is what a SigV4 credential names. Empty fields were
// absent or unusable.
type credentialScope struct {
	AccessKeyID string
	Date        string
	Region      string
	Service     string
}

// parseAuthorization extracts the credential scope of a SigV4 (or SigV4a)
// Authorization header. It never fails: what it cannot read stays empty.
//
// Forms seen from real clients:
//
//	AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=…, Signature=…
//	AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request,SignedHeaders=…,Signature=…
//	AWS4-ECDSA-P256-SHA256 Credential=AKID/20260101/dynamodb/aws4_request, … (SigV4a: no Region)
func parseAuthorization(h string) credentialScope {
	i := strings.Index(h, "Credential=")
	if i < 0 {
		return credentialScope{}
	}
	v := h[i+len("Credential="):]
	if j := strings.IndexAny(v, ", \t"); j >= 0 {
		v = v[:j]
	}
	return parseCredential(v)
}

// parseCredential reads KEY/DATE/REGION/SERVICE/aws4_request (SigV4) or
// KEY/DATE/SERVICE/aws4_request (SigV4a).
func parseCredential(v string) credentialScope {
	// Split on '/' into an array (every request's scope is parsed: no
	// slice to allocate); the last part keeps any further slashes, which
	// changes nothing below, where only the first four and the count (4,
	// or 5 and more) matter.
	var arr [6]string
	parts := arr[:0]
	rest := strings.TrimSpace(v)
	for len(parts) < len(arr)-1 {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			break
		}
		parts = append(parts, rest[:i])
		rest = rest[i+1:]
	}
	parts = append(parts, rest)
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

// validToken accepts the characters of access key IDs and Region names, so
// garbage never becomes a namespace.
func validToken(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// requestScope finds the credential scope of r: the Authorization header,
// else a presigned URL's X-Amz-Credential. A SigV4a request's Region comes
// from X-Amz-Region-Set when it names exactly one.
func requestScope(r *http.Request) credentialScope {
	var cs credentialScope
	if h := r.Header.Get("Authorization"); h != "" {
		cs = parseAuthorization(h)
	} else if q := r.URL.Query().Get("X-Amz-Credential"); q != "" {
		cs = parseCredential(q)
	}
	if cs.Region == "" {
		if set := r.Header.Get("X-Amz-Region-Set"); set != "" && !strings.ContainsAny(set, ",*") && validToken(strings.TrimSpace(set)) {
			cs.Region = strings.TrimSpace(set)
		}
	}
	return cs
}

// isAccountID reports whether s is a 12-digit AWS account ID.
func isAccountID(s string) bool { return accounts.IsID(s) }

// resolveAccount maps an access key ID to its account by the one rule
// (package accounts) the IaC loaders use too: a key that is itself a
// 12-digit account ID is that account, then the configured map, then (with
// AccountPerAccessKey) the key's derived account, then the default.
func (o *Options) resolveAccount(accessKeyID string) string {
	return o.AccountRule().Account(accessKeyID)
}

// AccountRule is the rule these options resolve access keys with; `serve
// --load` hands the same rule to the loaders.
func (o *Options) AccountRule() accounts.Rule {
	return accounts.Rule{Default: o.DefaultAccount, Keys: o.AccessKeyAccounts, PerKey: o.AccountPerAccessKey}
}

// DerivedAccount is the account an access key ID gets under
// Options.AccountPerAccessKey (accounts.Derived).
func DerivedAccount(accessKeyID string) string { return accounts.Derived(accessKeyID) }

// namespace returns the (account, Region) of a request with scope cs.
func (o *Options) namespace(cs credentialScope) api.Namespace {
	if o.SingleNamespace {
		return api.Namespace{Account: o.DefaultAccount, Region: o.DefaultRegion}
	}
	region := cs.Region
	if region == "" {
		region = o.DefaultRegion
	}
	return api.Namespace{Account: o.resolveAccount(cs.AccessKeyID), Region: region}
}
