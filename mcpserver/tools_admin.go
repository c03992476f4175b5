package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type throttleIn struct {
	Account string `json:"account,omitempty" jsonschema:"12-digit account ID of the table (default: the server's default account)"`
	Region  string `json:"region,omitempty" jsonschema:"Region of the table (default: the server's)"`
	Table   string `json:"table" jsonschema:"table name"`
	Index   string `json:"index,omitempty" jsonschema:"a global secondary index of the table, whose buckets to show instead"`
}

type hotKeysIn struct {
	Account string `json:"account,omitempty" jsonschema:"12-digit account ID of the table (default: the server's default account)"`
	Region  string `json:"region,omitempty" jsonschema:"Region of the table (default: the server's)"`
	Table   string `json:"table" jsonschema:"table name"`
	Index   string `json:"index,omitempty" jsonschema:"a global secondary index of the table, whose keys to show instead"`
	Top     int    `json:"top,omitempty" jsonschema:"keys per list (default 10)"`
	Minutes int    `json:"minutes,omitempty" jsonschema:"minutes back the lists reach (default: the whole window, an hour)"`
}

// throttleState reads GET /_extenddb/throttle, the endpoint `extenddb
// throttle show` reads.
func (s *server) throttleState(ctx context.Context, _ *mcp.CallToolRequest, in throttleIn) (*mcp.CallToolResult, any, error) {
	q := url.Values{"table": {in.Table}}
	setNonEmpty(q, "index", in.Index)
	setNonEmpty(q, "account", in.Account)
	setNonEmpty(q, "region", in.Region)
	out, err := s.admin(ctx, wire.ThrottleAdminPath, q, in.Region)
	return nil, out, err
}

// hotKeys reads GET /_extenddb/insights, the endpoint `extenddb top`
// reads.
func (s *server) hotKeys(ctx context.Context, _ *mcp.CallToolRequest, in hotKeysIn) (*mcp.CallToolResult, any, error) {
	q := url.Values{"table": {in.Table}}
	setNonEmpty(q, "index", in.Index)
	setNonEmpty(q, "account", in.Account)
	setNonEmpty(q, "region", in.Region)
	if in.Top > 0 {
		q.Set("top", strconv.Itoa(in.Top))
	}
	if in.Minutes > 0 {
		q.Set("minutes", strconv.Itoa(in.Minutes))
	}
	out, err := s.admin(ctx, wire.InsightsAdminPath, q, in.Region)
	return nil, out, err
}

func setNonEmpty(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// emptySHA256 is the SHA-256 of the empty body a control GET has.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// admin GETs one of the server's controls, signed with the credentials
// (a server with --auth=sigv4 checks them and the caller's permission),
// and returns its JSON answer, or its error member as the error.
func (s *server) admin(ctx context.Context, path string, q url.Values, region string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	u := *s.base
	u.Path += path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if region == "" {
		region = s.opts.Region
	}
	creds, err := s.opts.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, emptySHA256, "dynamodb", region, time.Now()); err != nil {
		return nil, err
	}
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var ans map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("%s answered %s, not ExtendDB's %s (is it an extenddb?)", s.base, resp.Status, path)
	}
	if msg, _ := ans["error"].(string); msg != "" || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, msg)
	}
	return ans, nil
}
