package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/extenddb/extenddb/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The snapshot tools use the server's snapshot controls (wire's
// SnapshotAdminPath and the rest; docs/configuration.md, "Snapshots and
// resets"): keeping and listing snapshots changes no table, so a
// read-only server has them; restoring and resetting need --allow-writes.

type snapshotNameIn struct {
	Name string `json:"name" jsonschema:"the snapshot's name on the server"`
}

type resetIn struct {
	Account string `json:"account,omitempty" jsonschema:"12-digit account ID: drop only this account's tables (with region, one namespace; default: every table of the server)"`
	Region  string `json:"region,omitempty" jsonschema:"Region: drop only this Region's tables (with account, one namespace)"`
}

func (s *server) addSnapshotReadTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "list_snapshots", Description: "List the snapshots kept on the server (name, keys, bytes, when saved).", Annotations: readOnly()}, s.listSnapshots)
	mcp.AddTool(srv, &mcp.Tool{Name: "save_snapshot", Description: "Keep the server's whole state (every table, item, stream, backup) on the server as a named snapshot, to restore it later; changes no table.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}}, s.saveSnapshot)
}

func (s *server) addSnapshotWriteTools(srv *mcp.Server, write *mcp.ToolAnnotations) {
	mcp.AddTool(srv, &mcp.Tool{Name: "restore_snapshot", Description: "Replace the server's whole state with a snapshot kept on it (atomic: requests see the state before or after). Tables and items made since are gone.", Annotations: write}, s.restoreSnapshot)
	mcp.AddTool(srv, &mcp.Tool{Name: "reset", Description: "Drop every table of the server, or of one account and Region.", Annotations: write}, s.reset)
}

func (s *server) listSnapshots(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	out, err := s.admin(ctx, wire.SnapshotsAdminPath, url.Values{}, "")
	if err == nil && out["snapshots"] == nil {
		out["snapshots"] = []any{}
	}
	return nil, out, err
}

func (s *server) saveSnapshot(ctx context.Context, _ *mcp.CallToolRequest, in snapshotNameIn) (*mcp.CallToolResult, any, error) {
	if in.Name == "" {
		return nil, nil, errors.New("name: give the snapshot a name")
	}
	out, err := s.control(ctx, http.MethodPost, wire.SnapshotAdminPath, url.Values{"name": {in.Name}}, "")
	return nil, out, err
}

func (s *server) restoreSnapshot(ctx context.Context, _ *mcp.CallToolRequest, in snapshotNameIn) (*mcp.CallToolResult, any, error) {
	if in.Name == "" {
		return nil, nil, errors.New("name: which kept snapshot (list_snapshots lists them)")
	}
	out, err := s.control(ctx, http.MethodPost, wire.RestoreAdminPath, url.Values{"name": {in.Name}}, "")
	return nil, out, err
}

func (s *server) reset(ctx context.Context, _ *mcp.CallToolRequest, in resetIn) (*mcp.CallToolResult, any, error) {
	q := url.Values{}
	setNonEmpty(q, "account", in.Account)
	setNonEmpty(q, "region", in.Region)
	out, err := s.control(ctx, http.MethodPost, wire.ResetAdminPath, q, in.Region)
	return nil, out, err
}
