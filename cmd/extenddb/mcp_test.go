package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMCPFlags(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{args: []string{"mcp", "--help"}, code: 0, stdout: "--allow-writes"},
		{args: []string{"help", "mcp"}, code: 0, stdout: "Usage: extenddb mcp"},
		{args: []string{"mcp", "--token", "x"}, code: 2, stderr: "--token is for --http"},
		{args: []string{"mcp", "--endpoint", "http://localhost:1", "--load", "x.tf"}, code: 2, stderr: "--load provisions the embedded server"},
		{args: []string{"mcp", "--endpoint", "localhost:8000"}, code: 1, stderr: "want a URL"},
		{args: []string{"mcp", "--http", "0.0.0.0:0"}, code: 1, stderr: "loopback only"},
		{args: []string{"mcp", "--http", ":0"}, code: 1, stderr: "loopback only"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", code, tc.code, out, tc.stdout, errOut, tc.stderr)
			}
		})
	}
}

type withToken struct{ token string }

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPOverHTTP runs `extenddb mcp --http` on an embedded server and
// talks to it with the SDK's client: the token it was given opens it,
// and it is read-only.
func TestMCPOverHTTP(t *testing.T) {
	var errb syncBuffer
	var out bytes.Buffer
	c := &cli{stdout: &out, stderr: &errb, getenv: env("HOME", t.TempDir()), notify: context.WithCancel}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	done := make(chan int, 1)
	tmpl := filepath.Join(t.TempDir(), "notes.yaml")
	if err := os.WriteFile(tmpl, []byte(`Resources:
  Notes:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: Notes
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- c.main(ctx, []string{"mcp", "--http", "127.0.0.1:0", "--token", "t0ken", "--load", tmpl})
	}()
	var url string
	re := regexp.MustCompile(`serving MCP on (http://127\.0\.0\.1:\d+/)`)
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("no serving line; stderr: %s", errb.String())
	}
	for _, token := range []string{"t0ken", "wrong"} {
		tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withToken{token}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, tr, nil)
		if token == "wrong" {
			if err == nil {
				cs.Close()
				t.Error("connected with a wrong token")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_tables", Arguments: map[string]any{}})
		if err != nil || res.IsError || jsonText(res.StructuredContent) != `{"tables":["Notes"]}` {
			t.Errorf("list_tables: %v %s", err, jsonText(res))
		}
		// The embedded server has its console, whose hot keys hot_keys reads.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hot_keys", Arguments: map[string]any{"table": "Notes"}})
		if err != nil || res.IsError || !strings.Contains(jsonText(res.StructuredContent), `"recent_partition_keys":[]`) {
			t.Errorf("hot_keys: %v %s", err, jsonText(res))
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "put_item", Arguments: map[string]any{"table": "T", "item": map[string]any{}}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("put_item without --allow-writes: %v, want an unknown tool", err)
		}
		cs.Close()
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d; stderr: %s", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q, want nothing", out.String())
	}
}
