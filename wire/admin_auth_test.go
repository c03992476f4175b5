package wire_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

// adminCredentials: ops may use the throttle controls and read top keys
// of account 111111111111's tables; dev may do anything in DynamoDB but
// holds no ExtendDB action ("dynamodb:*" does not reach them).
const adminCredentials = `
users:
  - accessKeyId: AKIAOPS
    secretAccessKey: ops-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/ops
    policies:
      - {Version: "2012-10-17", Statement: [
          {Effect: Allow, Action: "dynamodb:*", Resource: "*"},
          {Effect: Allow, Action: ["extenddb:Throttle", "extenddb:GetInsights", "extenddb:GetImportErrors"], Resource: "arn:aws:dynamodb:*:111111111111:table/*"}]}
  - accessKeyId: AKIADEV
    secretAccessKey: dev-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/dev
    policies:
      - {Version: "2012-10-17", Statement: [{Effect: Allow, Action: "dynamodb:*", Resource: "*"}]}
`

// TestAdminControlsNeedSigV4: under --auth=sigv4 every /_extenddb/
// control refuses an unsigned request, a badly signed one, and a signed
// one whose caller lacks the ExtendDB action; the allowed caller is
// served, in its own account and signing Region by default.
func TestAdminControlsNeedSigV4(t *testing.T) {
	creds, err := wire.ParseCredentials([]byte(adminCredentials))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.New(t, testserver.WithWireOptions(func(o *wire.Options) { o.Credentials = creds }))
	ops := s.ClientWith("us-east-1", static("AKIAOPS", "ops-secret"))
	createKV(t, ops, "Tab")
	if _, err := ops.UpdateContributorInsights(context.Background(), &dynamodb.UpdateContributorInsightsInput{
		TableName: aws.String("Tab"), ContributorInsightsAction: "ENABLE"}); err != nil {
		t.Fatal(err)
	}

	call := func(method, path, key, secret string) (int, string) {
		t.Helper()
		r, err := http.NewRequest(method, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
			r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
			if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
				r, emptySHA256, "dynamodb", "us-east-1", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := s.HTTPClient().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	importARN := "arn:aws:dynamodb:us-east-1:111111111111:table/Tab/import/01234567890123-abcdefgh"
	for _, c := range []struct {
		method, path, action string
	}{
		{http.MethodGet, wire.ThrottleAdminPath + "?table=Tab", "extenddb:Throttle"},
		{http.MethodPost, wire.ThrottleAdminPath + "/reset?table=Tab", "extenddb:Throttle"},
		{http.MethodPost, wire.ThrottleAdminPath + "/drain?table=Tab", "extenddb:Throttle"},
		{http.MethodPost, wire.ThrottleAdminPath + "/pin?table=Tab&rate=5", "extenddb:Throttle"},
		{http.MethodPost, wire.ThrottleAdminPath + "/unpin?table=Tab", "extenddb:Throttle"},
		{http.MethodGet, wire.InsightsAdminPath + "?table=Tab", "extenddb:GetInsights"},
		{http.MethodGet, wire.ImportErrorsPath + "?arn=" + importARN, "extenddb:GetImportErrors"},
	} {
		name := c.method + " " + c.path
		if code, body := call(c.method, c.path, "", ""); code != http.StatusForbidden || !strings.Contains(body, "MissingAuthenticationToken") {
			t.Errorf("%s unsigned: %d %s", name, code, body)
		}
		if code, body := call(c.method, c.path, "AKIAOPS", "wrong-secret"); code != http.StatusForbidden || !strings.Contains(body, "signature") {
			t.Errorf("%s with a wrong secret: %d %s", name, code, body)
		}
		code, body := call(c.method, c.path, "AKIADEV", "dev-secret")
		if code != http.StatusForbidden || !strings.Contains(body, "user/dev is not authorized to perform: "+c.action) {
			t.Errorf("%s by dev (no %s): %d %s", name, c.action, code, body)
		}
		code, body = call(c.method, c.path, "AKIAOPS", "ops-secret")
		// The import does not exist: the control itself answers 404,
		// past authorization.
		want := http.StatusOK
		if strings.HasPrefix(c.path, wire.ImportErrorsPath) {
			want = http.StatusNotFound
		}
		if code != want {
			t.Errorf("%s by ops: %d %s", name, code, body)
			continue
		}
		if strings.HasPrefix(c.path, wire.ThrottleAdminPath) {
			var ans struct{ Account, Region string }
			if err := json.Unmarshal([]byte(body), &ans); err != nil || ans.Account != "111111111111" || ans.Region != "us-east-1" {
				t.Errorf("%s by ops answered for %+v, want the signer's account and Region (%v)", name, ans, err)
			}
		}
	}
}
