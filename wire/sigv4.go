package wire

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// SigV4 verification for --auth=sigv4. The checks run in the order DynamoDB
// runs them (observed by dynalite against the service): the Authorization
// header's parameters, the date and its skew, Host among the signed
// headers, the algorithm, the credential scope, the access key, the
// signature, the session token. The signature is checked by re-signing the
// request with the aws-sdk-go-v2 signer over the headers the client says it
// signed, and comparing.

// Codes of authentication failures only the wire produces (see errors.go for
// the others).
const CodeExpiredToken = "ExpiredTokenException"

// maxSkew is how far a request's date may be from the server's clock.
const maxSkew = 15 * time.Minute

const (
	msgInvalidToken  = "The security token included in the request is invalid."
	msgExpiredToken  = "The security token included in the request is expired"
	msgSigMismatch   = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	msgMissingToken  = "Request is missing Authentication Token"
	amzDateLayout    = "20060102T150405Z"
	signingAlgorithm = "AWS4-HMAC-SHA256"
)

func authError(code, msg string) *api.Error { return &api.Error{Code: code, Message: msg} }

// authorization is a parsed SigV4 Authorization header.
type authorization struct {
	Algorithm     string
	Credential    string
	SignedHeaders []string
	Signature     string
}

// parseSigV4 parses an Authorization header, failing with DynamoDB's
// IncompleteSignatureException. hasDate says whether X-Amz-Date or Date is
// present (its absence is reported with the missing parameters).
//
// The parameters are separated by commas, white space or both, as AWS
// reads them: "Credential=K/D/R/S/aws4_request SignedHeaders=host
// Signature=…" has its three parameters (so the request's date is checked
// next and an expired one is refused for it), and a space inside a value
// splits it ("Credential=not valid/…" makes 'valid/…' a part without an
// equal sign).
func parseSigV4(h string, hasDate bool) (authorization, *api.Error) {
	var a authorization
	alg, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	a.Algorithm = alg
	params := map[string]string{}
	for part := range strings.FieldsFuncSeq(rest, isParamSeparator) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return a, authError(CodeIncompleteSignature, "'"+part+"' not a valid key=value pair (missing equal-sign) in Authorization header: '"+h+"'.")
		}
		params[k] = v
	}
	msg := ""
	for _, k := range []string{"Credential", "Signature", "SignedHeaders"} {
		if params[k] == "" {
			msg += "Authorization header requires '" + k + "' parameter. "
		}
	}
	if !hasDate {
		msg += "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
	}
	if msg != "" {
		return a, authError(CodeIncompleteSignature, msg+"Authorization="+h)
	}
	a.Credential, a.Signature = params["Credential"], params["Signature"]
	a.SignedHeaders = strings.Split(params["SignedHeaders"], ";")
	return a, nil
}

// isParamSeparator reports the characters between an Authorization
// header's parameters.
func isParamSeparator(r rune) bool { return r == ',' || r == ' ' || r == '\t' }

// requestDate reads X-Amz-Date (else Date) and checks it against now.
func requestDate(r *http.Request, now time.Time) (time.Time, string, *api.Error) {
	raw := r.Header.Get("X-Amz-Date")
	t, err := time.Parse(amzDateLayout, raw)
	if raw == "" {
		raw = r.Header.Get("Date")
		t, err = http.ParseTime(raw)
	}
	if err != nil {
		return t, raw, authError(CodeIncompleteSignature, "Date must be in ISO-8601 'basic format'. Got '"+raw+"'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	t = t.UTC()
	now = now.UTC()
	f := func(x time.Time) string { return x.Format(amzDateLayout) }
	if t.Before(now.Add(-maxSkew)) {
		return t, raw, authError(CodeInvalidSignature, "Signature expired: "+f(t)+" is now earlier than "+f(now.Add(-maxSkew))+" ("+f(now)+" - 15 min.)")
	}
	if t.After(now.Add(maxSkew)) {
		return t, raw, authError(CodeInvalidSignature, "Signature not yet current: "+f(t)+" is still later than "+f(now.Add(maxSkew))+" ("+f(now)+" + 15 min.)")
	}
	return t, raw, nil
}

// checkScope checks KEY/DATE/REGION/SERVICE/aws4_request against the
// request's date and the service it reached.
func checkScope(cred string, date time.Time, rawDate, service string) (credentialScope, *api.Error) {
	parts := strings.Split(strings.TrimRight(cred, "/"), "/")
	if len(parts) != 5 {
		return credentialScope{}, authError(CodeIncompleteSignature, "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '"+cred+"'")
	}
	cs := credentialScope{AccessKeyID: parts[0], Date: parts[1], Region: parts[2], Service: parts[3]}
	msg := ""
	if !validToken(cs.Region) {
		msg += "Credential should be scoped to a valid region, not '" + cs.Region + "'. "
	}
	if cs.Service != service {
		msg += "Credential should be scoped to correct service: '" + service + "'. "
	}
	if parts[4] != "aws4_request" {
		msg += "Credential should be scoped with a valid terminator: 'aws4_request', not '" + parts[4] + "'. "
	}
	if day := date.Format("20060102"); cs.Date != day {
		msg += "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" + cs.Date + "' != '" + day + "', from '" + rawDate + "'."
	}
	if msg != "" {
		return cs, authError(CodeInvalidSignature, strings.TrimSuffix(msg, " "))
	}
	return cs, nil
}

// authenticate verifies r (body read already) as a request to service
// ("dynamodb" or "sts") and returns the caller and its credential scope.
func (h *handler) authenticate(r *http.Request, body []byte, service string, now time.Time) (*Identity, credentialScope, *api.Error) {
	creds := h.opts.Credentials
	hdr := r.Header.Get("Authorization")
	if hdr == "" {
		return nil, credentialScope{}, authError(CodeMissingAuthenticationToken, msgMissingToken)
	}
	_, hasAmzDate := r.Header["X-Amz-Date"]
	_, hasDate := r.Header["Date"]
	a, aerr := parseSigV4(hdr, hasAmzDate || hasDate)
	if aerr != nil {
		return nil, credentialScope{}, aerr
	}
	date, rawDate, aerr := requestDate(r, now)
	if aerr != nil {
		return nil, credentialScope{}, aerr
	}
	hostSigned := false
	for _, s := range a.SignedHeaders {
		if strings.EqualFold(s, "host") || s == ":authority" {
			hostSigned = true
		}
	}
	if !hostSigned {
		return nil, credentialScope{}, authError(CodeInvalidSignature, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
	}
	if a.Algorithm != signingAlgorithm {
		return nil, credentialScope{}, authError(CodeIncompleteSignature, "Unsupported AWS 'algorithm': '"+a.Algorithm+"' (only AWS4-HMAC-SHA256 for now). ")
	}
	cs, aerr := checkScope(a.Credential, date, rawDate, service)
	if aerr != nil {
		return nil, cs, aerr
	}
	id, expired := creds.lookup(cs.AccessKeyID)
	if id == nil {
		return nil, cs, authError(CodeUnrecognizedClient, msgInvalidToken)
	}
	if !signatureMatches(r, body, a, id, cs, date, creds) {
		return nil, cs, authError(CodeInvalidSignature, msgSigMismatch)
	}
	token := r.Header.Get("X-Amz-Security-Token")
	if subtle.ConstantTimeCompare([]byte(token), []byte(id.SessionToken)) != 1 {
		// No period here: DynamoDB's message for a bad token differs
		// from the one for an unknown key.
		return nil, cs, authError(CodeUnrecognizedClient, strings.TrimSuffix(msgInvalidToken, "."))
	}
	if expired {
		return nil, cs, authError(CodeExpiredToken, msgExpiredToken)
	}
	return id, cs, nil
}

// signatureMatches re-signs a copy of r made of the headers a names, with
// the SDK signer and id's secret, and compares the signatures.
func signatureMatches(r *http.Request, body []byte, a authorization, id *Identity, cs credentialScope, date time.Time, creds *Credentials) bool {
	payloadHash := r.Header.Get("X-Amz-Content-Sha256")
	sum := sha256.Sum256(body)
	actual := hex.EncodeToString(sum[:])
	if payloadHash == "" {
		payloadHash = actual
	} else if payloadHash != actual {
		return false
	}
	// The signer rewrites the URL's query (and the Host): sign a copy.
	u := *r.URL
	c := &http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: http.Header{}}
	for _, name := range a.SignedHeaders {
		switch strings.ToLower(name) {
		case "host", ":authority":
		case "content-length":
			c.ContentLength = r.ContentLength
		default:
			if vs, ok := r.Header[http.CanonicalHeaderKey(name)]; ok {
				c.Header[http.CanonicalHeaderKey(name)] = vs
			} else {
				return false // a signed header that was not sent
			}
		}
	}
	// The signer adds X-Amz-Security-Token itself from the credentials; a
	// client that did not sign it is checked by value afterwards.
	// A signed token is signed as sent, so that a wrong one is reported
	// as such (after the signature) rather than as a bad signature.
	cr := id.awsCredentials()
	cr.SessionToken = ""
	if vs, signed := c.Header["X-Amz-Security-Token"]; signed && len(vs) > 0 {
		cr.SessionToken = vs[0]
	}
	if err := creds.signer(id.AccessKeyID).SignHTTP(r.Context(), cr, c, payloadHash, cs.Service, cs.Region, date); err != nil {
		return false
	}
	want := c.Header.Get("Authorization")
	_, sig, ok := strings.Cut(want, "Signature=")
	if !ok {
		return false
	}
	// The signed-header lists must agree too: the client may not claim
	// headers the signer would have left out (User-Agent, for one).
	_, wantSigned, _ := strings.Cut(want, "SignedHeaders=")
	wantSigned, _, _ = strings.Cut(wantSigned, ",")
	if !strings.EqualFold(wantSigned, strings.Join(a.SignedHeaders, ";")) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(sig), []byte(a.Signature)) == 1
}
