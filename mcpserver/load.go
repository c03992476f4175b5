package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/extenddb/extenddb/iac"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type loadIn struct {
	Paths  []string `json:"paths" jsonschema:"Terraform root module directories, .tf files, CloudFormation/SAM templates or cdk.out directories, on the MCP server's machine"`
	Vars   []string `json:"vars,omitempty" jsonschema:"Terraform variables, NAME=VALUE"`
	Params []string `json:"parameters,omitempty" jsonschema:"CloudFormation parameters, KEY=VALUE"`
}

type loadedTable struct {
	Table   string   `json:"table"`
	Account string   `json:"account"`
	Region  string   `json:"region"`
	Source  string   `json:"source" jsonschema:"where it is declared"`
	Action  string   `json:"action" jsonschema:"created, updated, unchanged, replaced, kept, exists or failed"`
	Notes   []string `json:"notes,omitempty"`
}

type loadOut struct {
	Tables      []loadedTable `json:"tables"`
	Diagnostics []string      `json:"diagnostics,omitempty" jsonschema:"warnings and errors, file:line:col first"`
}

func (s *server) loadIaC(ctx context.Context, _ *mcp.CallToolRequest, in loadIn) (*mcp.CallToolResult, loadOut, error) {
	out := loadOut{Tables: []loadedTable{}}
	if len(in.Paths) == 0 {
		return nil, out, errors.New("give at least one path")
	}
	opts := s.opts.Load
	opts.Vars = append(append([]string(nil), opts.Vars...), in.Vars...)
	opts.Params = append(append([]string(nil), opts.Params...), in.Params...)
	specs, diags := iac.Load(in.Paths, opts)
	if !diags.HasErrors() {
		var outcomes []iac.Outcome
		var more iac.Diagnostics
		if s.opts.Provision != nil {
			outcomes, more = s.opts.Provision(ctx, specs)
			for _, o := range outcomes {
				out.Tables = append(out.Tables, loaded(o.Spec, o.Action))
			}
		} else {
			for i := range specs {
				out.Tables = append(out.Tables, s.provisionOverAPI(ctx, &specs[i]))
			}
		}
		diags = append(diags, more...)
	}
	for _, d := range diags {
		out.Diagnostics = append(out.Diagnostics, d.String())
	}
	if diags.HasErrors() {
		return nil, out, fmt.Errorf("loading failed:\n%s", joinLines(out.Diagnostics))
	}
	return nil, out, nil
}

func loaded(sp *iac.TableSpec, action string) loadedTable {
	return loadedTable{Table: aws.ToString(sp.Create.TableName), Account: sp.Account, Region: sp.Region, Source: sp.Pos.String() + " " + sp.Source, Action: action}
}

func joinLines(l []string) string { return strings.Join(l, "\n") }

// provisionOverAPI creates one declared table through the DynamoDB API,
// as a user's deployment would: CreateTable, then the table's Time to
// Live, point-in-time recovery and Contributor Insights, then its seed
// items where absent. A table that exists is left as it is (only
// missing seed items are written): reconciling it with the declaration
// is `extenddb serve --load`'s work, in the server's process. What the
// API path does not apply is in the table's notes.
func (s *server) provisionOverAPI(ctx context.Context, sp *iac.TableSpec) loadedTable {
	lt := loaded(sp, "created")
	fail := func(what string, err error) loadedTable {
		lt.Action = "failed"
		lt.Notes = append(lt.Notes, what+": "+err.Error())
		return lt
	}
	w := where{region: sp.Region}
	if sp.Account != s.opts.Load.DefaultAccount {
		// The server places a request signed with a 12-digit key in that
		// account (the rule Terraform's access_key = "111111111111" uses).
		w.account = sp.Account
	}
	t, err := s.target(w)
	if err != nil {
		return fail("account", err)
	}
	// The declaration is in the API's vocabulary, whose JSON is the
	// request's.
	err = s.call(ctx, t, "CreateTable", &sp.Create, nil)
	switch {
	case errorCode(err) == "ResourceInUseException":
		lt.Action = "exists"
		lt.Notes = append(lt.Notes, "the table exists: left as it is (serve --load would reconcile it with the declaration)")
	case err != nil:
		return fail("CreateTable", err)
	}
	table := aws.ToString(sp.Create.TableName)
	if err := s.waitActive(ctx, table, t); err != nil {
		return fail("waiting for ACTIVE", err)
	}
	if lt.Action == "created" {
		if err := s.applySettings(ctx, sp, t); err != nil {
			return fail("settings", err)
		}
	}
	n, err := s.seed(ctx, sp, t)
	if err != nil {
		return fail("seed items", err)
	}
	if n > 0 {
		lt.Notes = append(lt.Notes, fmt.Sprintf("%d seed items written", n))
	}
	for what, declared := range map[string]bool{
		"Kinesis streaming destination": sp.Kinesis != nil,
		"stream resource policy":        sp.StreamPolicy != nil,
		"import from S3":                sp.Import != nil,
		"replicas":                      len(sp.Replicas) > 1,
		"legacy global table":           sp.LegacyGlobal != nil,
	} {
		if declared {
			lt.Notes = append(lt.Notes, what+" declared but not applied over the API: use extenddb serve --load")
		}
	}
	sort.Strings(lt.Notes)
	return lt
}

// applySettings applies a new table's declared Time to Live,
// point-in-time recovery and Contributor Insights.
func (s *server) applySettings(ctx context.Context, sp *iac.TableSpec, t target) error {
	name := aws.ToString(sp.Create.TableName)
	if sp.TTL != nil {
		if err := s.call(ctx, t, "UpdateTimeToLive", request{"TableName": name, "TimeToLiveSpecification": sp.TTL}, nil); err != nil {
			return err
		}
	}
	if sp.PITR != nil {
		if err := s.call(ctx, t, "UpdateContinuousBackups", request{"TableName": name, "PointInTimeRecoverySpecification": sp.PITR}, nil); err != nil {
			return err
		}
	}
	for index, set := range sp.Insights {
		if !set.Enabled {
			continue
		}
		req := request{"TableName": name, "ContributorInsightsAction": "ENABLE"}
		req.str("IndexName", index)
		if set.Mode != nil {
			req.str("ContributorInsightsMode", *set.Mode)
		}
		if err := s.call(ctx, t, "UpdateContributorInsights", req, nil); err != nil {
			return err
		}
	}
	return nil
}

// seed writes the declared items whose key is absent, and returns how
// many it wrote.
func (s *server) seed(ctx context.Context, sp *iac.TableSpec, t target) (int, error) {
	var hash string
	for _, k := range sp.Create.KeySchema {
		if aws.ToString(k.KeyType) == "HASH" {
			hash = aws.ToString(k.AttributeName)
		}
	}
	n := 0
	for _, it := range sp.Items {
		var m map[string]any
		if err := convert(it, &m); err != nil {
			return n, err
		}
		item, err := toItem(m)
		if err != nil {
			return n, err
		}
		req := request{"TableName": aws.ToString(sp.Create.TableName), "ConditionExpression": "attribute_not_exists(#k)",
			"ExpressionAttributeNames": map[string]string{"#k": hash}}
		req.item("Item", item)
		err = s.call(ctx, t, "PutItem", req, nil)
		switch {
		case errorCode(err) == "ConditionalCheckFailedException":
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}

// waitActive polls DescribeTable until the table is ACTIVE (a server
// with --transition-delay keeps it CREATING a while).
func (s *server) waitActive(ctx context.Context, table string, t target) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		var d struct{ Table struct{ TableStatus string } }
		if err := s.call(ctx, t, "DescribeTable", request{"TableName": table}, &d); err != nil {
			return err
		}
		if d.Table.TableStatus == "ACTIVE" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still %s: %w", d.Table.TableStatus, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// convert moves a value of the engine's API vocabulary (whose JSON is
// the wire's) into another shape of the same JSON, such as an item into
// map[string]any.
func convert(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
