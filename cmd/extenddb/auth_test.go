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

// TestServeMetricsUnderSigV4: with --auth=sigv4, /metrics (whose labels
// name every table) is not served without --metrics-token, and with one
// it answers only requests that carry it, and the console asks for a
// sign-in before any page; with --auth=off both stay open.
func TestServeMetricsUnderSigV4(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "creds.yaml")
	if err := os.WriteFile(path, []byte("users:\n  - {accessKeyId: AKIDA, secretAccessKey: s, account: \"111111111111\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	get := func(addr, auth string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		name string
		args []string
		want map[string]int // Authorization header → status
	}{
		{"off", nil, map[string]int{"": 200}},
		{"sigv4 without a token", []string{"--auth=sigv4", "--credentials", path}, map[string]int{"": 404, "Bearer x": 404}},
		{"sigv4 with a token", []string{"--auth=sigv4", "--credentials", path, "--metrics-token", "s3cret"},
			map[string]int{"": 401, "Bearer wrong": 401, "s3cret": 401, "Bearer s3cret": 200}},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, _, stop, done := startServe(t, append([]string{"--in-memory"}, c.args...)...)
			defer func() { stop(); <-done }()
			for auth, want := range c.want {
				if got := get(addr, auth); got != want {
					t.Errorf("GET /metrics with Authorization %q: %d, want %d", auth, got, want)
				}
			}
			// The console is open with --auth=off; with sigv4 every page
			// sends to the sign-in page, which is served.
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			for path, want := range map[string]int{"/console/": 200, "/console/iac": 200, "/console/signin": 404} {
				if c.name != "off" {
					want = map[bool]int{true: 200, false: 303}[path == "/console/signin"]
				}
				resp, err := noRedirect.Get("http://" + addr + path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != want || (want == 303 && !strings.HasPrefix(resp.Header.Get("Location"), "/console/signin?next=")) {
					t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, resp.Header.Get("Location"), want)
				}
			}
		})
	}
}

// TestThrottleCommandSigns: under --auth=sigv4 `extenddb throttle` and
// `extenddb top` sign their requests with the environment's credentials;
// without them the server refuses them.
func TestThrottleCommandSigns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "creds.yaml")
	if err := os.WriteFile(path, []byte(`users:
  - accessKeyId: AKIAOPS
    secretAccessKey: ops-secret
    account: "111111111111"
    policies:
      - {Statement: [{Effect: Allow, Action: "extenddb:*", Resource: "*"}]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, _, stop, done := startServe(t, "--in-memory", "--auth=sigv4", "--credentials", path)
	defer func() { stop(); <-done }()
	endpoint := "http://" + addr
	for _, args := range [][]string{
		{"throttle", "show", "--table", "Missing", "--endpoint", endpoint},
		{"top", "Missing", "--once", "--endpoint", endpoint},
	} {
		code, _, errOut := runEnv(t, env("HOME", t.TempDir()), args...)
		if code != 1 || !strings.Contains(errOut, "403") || !strings.Contains(errOut, "MissingAuthenticationToken") {
			t.Errorf("%v without credentials: exit %d\n%s", args, code, errOut)
		}
		// Signed and allowed, the request reaches the control, which does
		// not find the table.
		code, _, errOut = runEnv(t, env("HOME", t.TempDir(), "AWS_ACCESS_KEY_ID", "AKIAOPS", "AWS_SECRET_ACCESS_KEY", "ops-secret", "AWS_REGION", "eu-west-1"), args...)
		if code != 1 || !strings.Contains(errOut, "404") || !strings.Contains(errOut, "Missing") {
			t.Errorf("%v signed: exit %d\n%s", args, code, errOut)
		}
	}
}
