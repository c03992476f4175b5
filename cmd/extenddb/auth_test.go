package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeAuthFlags(t *testing.T) {
	for _, bad := range [][]string{{"--auth", "iam"}, {"--auth", "sigv4"}} {
		if _, err := parseServe(append(bad, "--in-memory"), env()); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	c, err := parseServe([]string{"--in-memory"}, env("EXTENDDB_AUTH", "sigv4", "EXTENDDB_CREDENTIALS", "/x.yaml"))
	if err != nil || c.auth != "sigv4" || c.credentials != "/x.yaml" {
		t.Errorf("from the environment: %+v %v", c, err)
	}
}

// With --auth=sigv4 an unsigned request is refused and a malformed
// credentials file stops the server.
func TestServeAuthSigV4(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "creds.yaml")
	if err := os.WriteFile(path, []byte("users:\n  - {accessKeyId: AKIDA, secretAccessKey: s, account: \"111111111111\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, _, stop, done := startServe(t, "--in-memory", "--auth=sigv4", "--credentials", path)
	defer func() { stop(); <-done }()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("unsigned request: %d", resp.StatusCode)
	}

	if err := os.WriteFile(path, []byte("users:\n  - {accessKeyId: AKIDA, secretAccessKey: s, account: \"12\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "serve", "--in-memory", "--addr", "127.0.0.1:0", "--auth=sigv4", "--credentials", path); code != 1 || !strings.Contains(errOut, "12-digit") {
		t.Errorf("malformed credentials file: exit %d\n%s", code, errOut)
	}
}
