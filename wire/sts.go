package wire

import (
	"crypto/rand"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator"
)

// STS answers GetCallerIdentity for the caller's (account, Region) so tools
// that look up their account (the Terraform AWS provider) need no skip
// flags. Every caller is the account's root user.

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

func identityOf(ns emulator.Namespace) callerIdentity {
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
func (h *handler) serveSTSQuery(w http.ResponseWriter, r *http.Request, ns emulator.Namespace, body []byte, start time.Time) {
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
		resp = stsCallerIdentityXML(identityOf(ns), requestID)
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
func (h *handler) serveSTSJSON(w http.ResponseWriter, _ *http.Request, ns emulator.Namespace, action string, start time.Time) {
	requestID := newUUID()
	w.Header().Set("x-amzn-RequestId", requestID)
	status := http.StatusOK
	var resp []byte
	if action == "GetCallerIdentity" {
		resp, _ = json.Marshal(identityOf(ns))
	} else {
		status, resp, _ = encodeError(&emulator.Error{Code: emulator.CodeUnknownOperation})
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
