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

// hotKeysOut is what hot_keys answers: Contributor Insights' lists, and
// the console's recent partition keys.
type hotKeysOut struct {
	// ContributorInsights is GET /_extenddb/insights' answer, what
	// `extenddb top` prints: counted only while Contributor Insights is
	// enabled on the table (its status says).
	ContributorInsights map[string]any `json:"contributor_insights"`
	// Recent is the hottest partition keys of the last minutes by consumed
	// capacity, with their throttled requests, as the console's throttling
	// page shows them (its /console/api/timeline), recorded whether or not
	// Contributor Insights is on; absent when the console is off or asks
	// for a sign-in, RecentError saying why.
	Recent      []any  `json:"recent_partition_keys"`
	RecentError string `json:"recent_error,omitempty"`
}

// consoleTimelinePath is the console's JSON of its throttling page
// (console.Prefix + "/api/timeline").
const consoleTimelinePath = "/console/api/timeline"

// hotKeys reads GET /_extenddb/insights, the endpoint `extenddb top`
// reads, and the console's timeline, whose hot list its throttling page
// shows.
func (s *server) hotKeys(ctx context.Context, _ *mcp.CallToolRequest, in hotKeysIn) (*mcp.CallToolResult, hotKeysOut, error) {
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
	var out hotKeysOut
	ci, err := s.admin(ctx, wire.InsightsAdminPath, q, in.Region)
	if err != nil {
		return nil, out, err
	}
	out.ContributorInsights = ci
	if in.Index != "" {
		return nil, out, nil // the console counts tables' keys only
	}
	// The namespace the insights answer resolved (the server's defaults
	// filled in), so both lists are of one table.
	account, _ := ci["account"].(string)
	region, _ := ci["region"].(string)
	tl, err := s.admin(ctx, consoleTimelinePath, url.Values{"t": {in.Table}, "ns": {account + "/" + region}, "seconds": {"300"}}, in.Region)
	if err != nil {
		out.RecentError = "the console's hot keys are unavailable (is the server's console off, or does it ask for a sign-in?): " + err.Error()
		return nil, out, nil
	}
	out.Recent, _ = tl["hot"].([]any)
	if out.Recent == nil {
		out.Recent = []any{}
	}
	return nil, out, nil
}

func setNonEmpty(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// emptySHA256 is the SHA-256 of the empty body a control request has.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// admin GETs one of the server's controls (control's GET).
func (s *server) admin(ctx context.Context, path string, q url.Values, region string) (map[string]any, error) {
	return s.control(ctx, http.MethodGet, path, q, region)
}

// control sends one of the server's controls a request without a body,
// signed with the credentials (a server with --auth=sigv4 checks them and
// the caller's permission), and returns its JSON answer, or its error
// member as the error.
func (s *server) control(ctx context.Context, method, path string, q url.Values, region string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	u := *s.base
	u.Path += path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
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
		return nil, fmt.Errorf("%s%s answered %s, not JSON: is it an extenddb?", s.base, path, resp.Status)
	}
	if msg, _ := ans["error"].(string); msg != "" || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, msg)
	}
	return ans, nil
}
