package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testAuthSigV4CLI runs docs/configuration.md's two-account example with
// the AWS CLI (botocore's signer, not the Go SDK's) against --auth=sigv4.
func testAuthSigV4CLI(t *testing.T, bin string) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws (AWS CLI) not on PATH")
	}
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)The credentials file.*?```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no credentials file example in docs/configuration.md")
	}
	creds := filepath.Join(t.TempDir(), "creds.yaml")
	if err := os.WriteFile(creds, m[1], 0o600); err != nil {
		t.Fatal(err)
	}
	s := start(t, bin, "--in-memory", "--auth=sigv4", "--credentials", creds)
	owner := func(args ...string) (string, error) { return s.awsAs(t, "AKIAOWNER", "owner-secret", "", args...) }
	reader := func(args ...string) (string, error) { return s.awsAs(t, "AKIAREADER", "reader-secret", "", args...) }
	const arn = "arn:aws:dynamodb:us-east-1:111111111111:table/Orders"
	mustOK := func(out string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	denied := func(out string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("want %q, got %v\n%s", want, err, out)
		}
	}
	mustOK(owner("dynamodb", "create-table", "--table-name", "Orders", "--billing-mode", "PAY_PER_REQUEST",
		"--attribute-definitions", "AttributeName=pk,AttributeType=S", "--key-schema", "AttributeName=pk,KeyType=HASH"))
	mustOK(owner("dynamodb", "put-item", "--table-name", "Orders", "--item", `{"pk":{"S":"o1"}}`))
	out, err := reader("dynamodb", "get-item", "--table-name", arn, "--key", `{"pk":{"S":"o1"}}`)
	denied(out, err, "because no resource-based policy allows the dynamodb:GetItem action")
	mustOK(owner("dynamodb", "put-resource-policy", "--resource-arn", arn, "--policy",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::222222222222:user/reader"]},`+
			`"Action":["dynamodb:GetItem","dynamodb:Query"],"Resource":"`+arn+`"}]}`))
	if out := mustOK(reader("dynamodb", "get-item", "--table-name", arn, "--key", `{"pk":{"S":"o1"}}`)); !strings.Contains(out, `"o1"`) {
		t.Errorf("cross-account get-item: %s", out)
	}
	out, err = reader("dynamodb", "put-item", "--table-name", arn, "--item", `{"pk":{"S":"x"}}`)
	denied(out, err, "because no identity-based policy allows the dynamodb:PutItem action")
	out, err = s.awsAs(t, "AKIAREADER", "wrong", "", "dynamodb", "list-tables")
	denied(out, err, "InvalidSignatureException")

	var assumed struct {
		Credentials struct{ AccessKeyId, SecretAccessKey, SessionToken string }
	}
	out = mustOK(owner("sts", "assume-role", "--role-arn", "arn:aws:iam::333333333333:role/deployer", "--role-session-name", "ci"))
	if err := json.Unmarshal([]byte(out), &assumed); err != nil {
		t.Fatalf("assume-role: %v\n%s", err, out)
	}
	c := assumed.Credentials
	out = mustOK(s.awsAs(t, c.AccessKeyId, c.SecretAccessKey, c.SessionToken, "sts", "get-caller-identity"))
	if !strings.Contains(out, "arn:aws:sts::333333333333:assumed-role/deployer/ci") {
		t.Errorf("get-caller-identity: %s", out)
	}
	mustOK(s.awsAs(t, c.AccessKeyId, c.SecretAccessKey, c.SessionToken, "dynamodb", "list-tables"))
}
