package e2e_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// testPartiQLCLI runs `aws dynamodb execute-statement` against the built
// binary: an INSERT with parameters, a SELECT that reads it back, and the
// duplicate INSERT's DuplicateItemException. It is a subtest of TestCLI so
// the binary is built once.
func testPartiQLCLI(t *testing.T, bin string) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws (AWS CLI) not on PATH")
	}
	s := start(t, bin, "--in-memory")
	if _, err := s.aws(t, "dynamodb", "create-table", "--table-name", "Pql",
		"--attribute-definitions", "AttributeName=pk,AttributeType=S",
		"--key-schema", "AttributeName=pk,KeyType=HASH", "--billing-mode", "PAY_PER_REQUEST"); err != nil {
		t.Fatal(err)
	}
	insert := []string{"dynamodb", "execute-statement", "--statement", `INSERT INTO "Pql" VALUE {'pk': ?, 'n': ?}`,
		"--parameters", `[{"S":"a"},{"N":"42"}]`}
	if _, err := s.aws(t, insert...); err != nil {
		t.Fatal(err)
	}
	out, err := s.aws(t, "dynamodb", "execute-statement", "--statement", `SELECT n FROM "Pql" WHERE pk = 'a'`)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Items []map[string]map[string]string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("execute-statement output: %v\n%s", err, out)
	}
	if len(res.Items) != 1 || res.Items[0]["n"]["N"] != "42" {
		t.Fatalf("SELECT returned %s", out)
	}
	out, err = s.aws(t, insert...)
	if err == nil || !strings.Contains(out, "DuplicateItemException") || !strings.Contains(out, "Duplicate primary key exists in table") {
		t.Fatalf("duplicate INSERT: %v\n%s", err, out)
	}
}
