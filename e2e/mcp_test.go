package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio runs the built `extenddb mcp` as an MCP client launches
// it, over a stdin/stdout pipe, with the SDK's own client: an embedded
// server, loaded with a template at start, read and written through the
// tools.
func TestMCPStdio(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "template.yaml")
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
	cmd := exec.Command(bin, "mcp", "--allow-writes", "--load", tmpl)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	ctx := t.Context()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v; stderr: %s", err, stderr.String())
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init.ServerInfo.Name != "extenddb" || !strings.Contains(init.Instructions, "Writes are allowed") {
		t.Errorf("initialize: %+v", init)
	}
	callTool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: %+v", name, res.Content[0])
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out
	}
	if got := callTool("list_tables", nil); mcpJSON(got["tables"]) != `["Notes"]` {
		t.Errorf("list_tables = %v", got)
	}
	item := map[string]any{"id": map[string]any{"S": "n1"}, "text": map[string]any{"S": "hello"}}
	callTool("put_item", map[string]any{"table": "Notes", "item": item})
	if got := callTool("get_item", map[string]any{"table": "Notes", "key": map[string]any{"id": map[string]any{"S": "n1"}}}); mcpJSON(got["item"]) != mcpJSON(item) {
		t.Errorf("get_item = %v", got)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "embedded in-memory server at http://127.0.0.1:") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func mcpJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
