package wire

import (
	"crypto/rand"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// STS answers GetCallerIdentity for the caller's (account, Region) so tools
// that look up their account (the Terraform AWS provider) need no skip
// flags. Without --auth every caller is the account's root user; with
// --auth=sigv4 it is the principal of its credentials, and AssumeRole hands
// out temporary credentials for the roles of the credentials file.

const (
	stsXMLNS   = "https://sts.amazonaws.com/doc/2011-06-15/"
	stsVersion = "2011-06-15"
)

// callerIdentity is the caller as STS describes it.
type callerIdentity struct {
	Account string `json:"Account"`
	Arn     string `json:"Arn"`
	UserId  string `json:"UserId"` //nolint:revive // STS's member name
}

func identityOf(ns api.Namespace, id *Identity) callerIdentity {
	if id != nil {
		return callerIdentity{Account: id.Account, Arn: id.ARN, UserId: id.UserID}
	}
	return callerIdentity{
		Account: ns.Account,
		Arn:     "arn:" + ns.Partition() + ":iam::" + ns.Account + ":root",
		UserId:  ns.Account,
	}
}

// newUUID returns a random (version 4) UUID, the form of STS request IDs.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexd = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexd[c>>4], hexd[c&0x0f])
	}
	return string(out)
}

// serveSTSQuery serves the query protocol (form-encoded Action=…), which
// every STS client up to aws-sdk-go-v2 service/sts v1.52 uses, and its
// presigned GET form (GET /?Action=GetCallerIdentity&X-Amz-Credential=…),
// which tools such as EKS and Vault authenticators send.
func (h *handler) serveSTSQuery(w http.ResponseWriter, r *http.Request, ns api.Namespace, id *Identity, body []byte, start time.Time) {
	requestID := newUUID()
	params, err := url.ParseQuery(string(body))
	if err != nil {
		params = url.Values{}
	}
	for k, v := range r.URL.Query() {
		if _, ok := params[k]; !ok {
			params[k] = v
		}
	}
	action := params.Get("Action")
	w.Header().Set("x-amzn-RequestId", requestID)
	status := http.StatusOK
	var resp []byte
	switch action {
	case "GetCallerIdentity":
		resp = stsCallerIdentityXML(identityOf(ns, id), requestID)
	case "AssumeRole":
		if id == nil {
			status = http.StatusBadRequest
			resp = stsErrorXML("InvalidAction", "Could not find operation AssumeRole for version "+stsVersion+" (start ExtendDB with --auth=sigv4 and a credentials file listing roles)", requestID)
			break
		}
		s, ferr := h.assumeRole(id, params)
		if ferr != nil {
			status = ferr.status
			resp = stsErrorXML(ferr.code, ferr.message, requestID)
			break
		}
		resp = stsAssumeRoleXML(s, requestID)
	case "":
		status = http.StatusBadRequest
		resp = stsErrorXML("MissingAction", "Missing Action", requestID)
	default:
		status = http.StatusBadRequest
		version := params.Get("Version")
		if version == "" {
			version = stsVersion
		}
		resp = stsErrorXML("InvalidAction", "Could not find operation "+action+" for version "+version, requestID)
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(resp)))
	w.WriteHeader(status)
	_, _ = w.Write(resp)
	h.log.Debug().Str("action", "sts:"+action).Str("account", ns.Account).Str("region", ns.Region).
		Int("status", status).Str("requestId", requestID).Dur("took", time.Since(start)).Msg("request")
}

// serveSTSJSON serves STS over awsJson1_0 (X-Amz-Target
// AWSSecurityTokenServiceV20110615.<Action>), which newer SDKs may use.
func (h *handler) serveSTSJSON(w http.ResponseWriter, _ *http.Request, ns api.Namespace, id *Identity, body []byte, action string, start time.Time) {
	requestID := newUUID()
	w.Header().Set("x-amzn-RequestId", requestID)
	status := http.StatusOK
	var resp []byte
	switch {
	case action == "GetCallerIdentity":
		resp, _ = json.Marshal(identityOf(ns, id))
	case action == "AssumeRole" && id != nil:
		var in struct {
			RoleArn         string
			RoleSessionName string
			DurationSeconds *int64
		}
		_ = json.Unmarshal(body, &in)
		params := url.Values{"RoleArn": {in.RoleArn}, "RoleSessionName": {in.RoleSessionName}}
		if in.DurationSeconds != nil {
			params.Set("DurationSeconds", strconv.FormatInt(*in.DurationSeconds, 10))
		}
		s, ferr := h.assumeRole(id, params)
		if ferr != nil {
			status = ferr.status
			resp, _ = json.Marshal(map[string]string{"__type": ferr.code, "message": ferr.message})
			break
		}
		resp, _ = json.Marshal(map[string]any{
			"AssumedRoleUser": map[string]string{"Arn": s.ARN, "AssumedRoleId": s.UserID},
			"Credentials": map[string]any{"AccessKeyId": s.AccessKeyID, "SecretAccessKey": s.secret,
				"SessionToken": s.SessionToken, "Expiration": s.Expires.Unix()},
		})
	default:
		status, resp, _ = encodeError(&api.Error{Code: api.CodeUnknownOperation})
	}
	writeBody(w, status, contentTypeJSON10, resp)
	h.log.Debug().Str("action", "sts:"+action).Str("account", ns.Account).Str("region", ns.Region).
		Int("status", status).Str("requestId", requestID).Dur("took", time.Since(start)).Msg("request")
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}

// stsCallerIdentityXML is GetCallerIdentity's response, laid out as STS
// sends it.
func stsCallerIdentityXML(id callerIdentity, requestID string) []byte {
	return []byte(`<GetCallerIdentityResponse xmlns="` + stsXMLNS + `">
  <GetCallerIdentityResult>
    <Arn>` + xmlText(id.Arn) + `</Arn>
    <UserId>` + xmlText(id.UserId) + `</UserId>
    <Account>` + xmlText(id.Account) + `</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata>
    <RequestId>` + requestID + `</RequestId>
  </ResponseMetadata>
</GetCallerIdentityResponse>
`)
}

// stsErrorXML is an STS (query protocol) error document.
func stsErrorXML(code, message, requestID string) []byte {
	return []byte(`<ErrorResponse xmlns="` + stsXMLNS + `">
  <Error>
    <Type>Sender</Type>
    <Code>` + xmlText(code) + `</Code>
    <Message>` + xmlText(message) + `</Message>
  </Error>
  <RequestId>` + requestID + `</RequestId>
</ErrorResponse>
`)
}

// stsFault is an STS error.
type stsFault struct {
	status        int
	code, message string
}

// assumeRole serves AssumeRole for the authenticated caller id.
func (h *handler) assumeRole(id *Identity, params url.Values) (*Identity, *stsFault) {
	invalid := func(format string, args ...any) *stsFault {
		return &stsFault{http.StatusBadRequest, "ValidationError", fmt.Sprintf(format, args...)}
	}
	roleARN, session := params.Get("RoleArn"), params.Get("RoleSessionName")
	var errs []string
	if _, ok := params["RoleArn"]; !ok || roleARN == "" {
		errs = append(errs, "Value null at 'roleArn' failed to satisfy constraint: Member must not be null")
	} else if len(roleARN) < 20 || len(roleARN) > 2048 {
		errs = append(errs, fmt.Sprintf("Value '%s' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20", roleARN))
	}
	switch {
	case session == "":
		errs = append(errs, "Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null")
	case !validSessionName(session):
		errs = append(errs, fmt.Sprintf("Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", session))
	case len(session) < 2:
		errs = append(errs, fmt.Sprintf("Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2", session))
	case len(session) > 64:
		errs = append(errs, fmt.Sprintf("Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must have length less than or equal to 64", session))
	}
	d := defaultSessionDuration
	if v := params.Get("DurationSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			return nil, invalid("1 validation error detected: Value '%s' at 'durationSeconds' failed to satisfy constraint: Member must be an integer", v)
		case n < 900:
			errs = append(errs, fmt.Sprintf("Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900", n))
		case n > 43200:
			errs = append(errs, fmt.Sprintf("Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to 43200", n))
		}
		d = time.Duration(n) * time.Second
	}
	if len(errs) > 0 {
		word := "error"
		if len(errs) > 1 {
			word = "errors"
		}
		return nil, invalid("%d validation %s detected: %s", len(errs), word, strings.Join(errs, "; "))
	}
	creds := h.opts.Credentials
	s, ok := creds.assumeRole(id, roleARN, session, d, creds.now())
	if !ok {
		return nil, &stsFault{http.StatusForbidden, "AccessDenied",
			"User: " + id.ARN + " is not authorized to perform: sts:AssumeRole on resource: " + roleARN}
	}
	if role := creds.roles[roleARN]; d > role.MaxSessionDuration {
		creds.forget(s.AccessKeyID)
		return nil, invalid("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	return s, nil
}

// validSessionName matches [\w+=,.@-]*.
func validSessionName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_+=,.@-", c) >= 0) {
			return false
		}
	}
	return true
}

// stsAssumeRoleXML is AssumeRole's response, laid out as STS sends it.
func stsAssumeRoleXML(s *Identity, requestID string) []byte {
	return []byte(`<AssumeRoleResponse xmlns="` + stsXMLNS + `">
  <AssumeRoleResult>
    <AssumedRoleUser>
      <AssumedRoleId>` + xmlText(s.UserID) + `</AssumedRoleId>
      <Arn>` + xmlText(s.ARN) + `</Arn>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>` + s.AccessKeyID + `</AccessKeyId>
      <SecretAccessKey>` + xmlText(s.secret) + `</SecretAccessKey>
      <SessionToken>` + s.SessionToken + `</SessionToken>
      <Expiration>` + s.Expires.UTC().Format(time.RFC3339) + `</Expiration>
    </Credentials>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>` + requestID + `</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>
`)
}
