package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultLimit bounds the items one query, scan or PartiQL call reads
// when the caller gives no limit, so an answer fits an assistant's
// context; last_evaluated_key or next_token continues.
const defaultLimit = 100

// Inputs. Every one names its (account, Region) with the same two members.

type listTablesIn struct {
	Account string `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region  string `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
}

type tableIn struct {
	Account string `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region  string `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
	Table   string `json:"table" jsonschema:"table name or ARN"`
}

type keyIn struct {
	Account        string         `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region         string         `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
	Table          string         `json:"table" jsonschema:"table name or ARN"`
	Key            map[string]any `json:"key" jsonschema:"the item's primary key in DynamoDB JSON, e.g. {\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}}"`
	ConsistentRead bool           `json:"consistent_read,omitempty" jsonschema:"strongly consistent read"`
}

type readIn struct {
	Account                   string            `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region                    string            `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
	Table                     string            `json:"table" jsonschema:"table name or ARN"`
	Index                     string            `json:"index,omitempty" jsonschema:"secondary index to read instead of the table"`
	KeyConditionExpression    string            `json:"key_condition_expression,omitempty" jsonschema:"query only (required there): e.g. pk = :pk AND begins_with(sk, :p)"`
	FilterExpression          string            `json:"filter_expression,omitempty" jsonschema:"filter applied after the read"`
	ProjectionExpression      string            `json:"projection_expression,omitempty" jsonschema:"attributes to return"`
	ExpressionAttributeNames  map[string]string `json:"expression_attribute_names,omitempty" jsonschema:"placeholders for names, e.g. {\"#s\":\"status\"}"`
	ExpressionAttributeValues map[string]any    `json:"expression_attribute_values,omitempty" jsonschema:"placeholders for values in DynamoDB JSON, e.g. {\":pk\":{\"S\":\"a\"}}"`
	Limit                     int32             `json:"limit,omitempty" jsonschema:"most items to evaluate (default 100)"`
	ScanIndexForward          *bool             `json:"scan_index_forward,omitempty" jsonschema:"query only: false reads the sort key descending"`
	ConsistentRead            bool              `json:"consistent_read,omitempty" jsonschema:"strongly consistent read"`
	ExclusiveStartKey         map[string]any    `json:"exclusive_start_key,omitempty" jsonschema:"the last_evaluated_key of the previous page"`
}

type putIn struct {
	Account                   string            `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region                    string            `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
	Table                     string            `json:"table" jsonschema:"table name or ARN"`
	Item                      map[string]any    `json:"item" jsonschema:"the whole item in DynamoDB JSON, key included"`
	ConditionExpression       string            `json:"condition_expression,omitempty" jsonschema:"write only if it holds, e.g. attribute_not_exists(pk)"`
	ExpressionAttributeNames  map[string]string `json:"expression_attribute_names,omitempty"`
	ExpressionAttributeValues map[string]any    `json:"expression_attribute_values,omitempty"`
}

type deleteIn struct {
	Account                   string            `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region                    string            `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
	Table                     string            `json:"table" jsonschema:"table name or ARN"`
	Key                       map[string]any    `json:"key" jsonschema:"the item's primary key in DynamoDB JSON"`
	ConditionExpression       string            `json:"condition_expression,omitempty" jsonschema:"delete only if it holds"`
	ExpressionAttributeNames  map[string]string `json:"expression_attribute_names,omitempty"`
	ExpressionAttributeValues map[string]any    `json:"expression_attribute_values,omitempty"`
}

type partiqlIn struct {
	Account        string `json:"account,omitempty" jsonschema:"12-digit account ID (default: the credentials' account)"`
	Region         string `json:"region,omitempty" jsonschema:"Region (default: the server's)"`
	Statement      string `json:"statement" jsonschema:"one PartiQL statement, e.g. SELECT * FROM \"Orders\" WHERE pk = ?"`
	Parameters     []any  `json:"parameters,omitempty" jsonschema:"values of the ? placeholders, in order, in DynamoDB JSON"`
	Limit          int32  `json:"limit,omitempty" jsonschema:"most items to evaluate (default 100)"`
	NextToken      string `json:"next_token,omitempty" jsonschema:"the next_token of the previous page"`
	ConsistentRead bool   `json:"consistent_read,omitempty"`
}

// Outputs.

type listTablesOut struct {
	Tables []string `json:"tables"`
}

type itemOut struct {
	Item  map[string]any `json:"item,omitempty" jsonschema:"the item; absent when there is none"`
	Found bool           `json:"found"`
}

type itemsOut struct {
	Items            []map[string]any `json:"items"`
	Count            int32            `json:"count"`
	ScannedCount     int32            `json:"scanned_count,omitempty"`
	LastEvaluatedKey map[string]any   `json:"last_evaluated_key,omitempty" jsonschema:"pass as exclusive_start_key for the next page"`
	NextToken        string           `json:"next_token,omitempty" jsonschema:"PartiQL: pass as next_token for the next page"`
}

type writeOut struct {
	// Old is the item the write replaced or deleted.
	Old map[string]any `json:"old_item,omitempty"`
}

func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
}

func (s *server) addReadTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "list_tables", Description: "List the tables of an account and Region.", Annotations: readOnly()}, s.listTables)
	mcp.AddTool(srv, &mcp.Tool{Name: "describe_table", Description: "Describe a table: key schema, indexes, billing mode and throughput, status, item count, stream and TTL settings (DescribeTable, DescribeTimeToLive).", Annotations: readOnly()}, s.describeTable)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_item", Description: "Read one item by its primary key.", Annotations: readOnly()}, s.getItem)
	mcp.AddTool(srv, &mcp.Tool{Name: "query", Description: "Query a table or index by key condition; one page of at most limit items.", Annotations: readOnly()}, s.query)
	mcp.AddTool(srv, &mcp.Tool{Name: "scan", Description: "Scan a table or index; one page of at most limit items.", Annotations: readOnly()}, s.scan)
	desc := "Run one PartiQL statement (ExecuteStatement)."
	if !s.opts.AllowWrites {
		desc += " Read-only server: SELECT only."
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "execute_partiql", Description: desc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: !s.opts.AllowWrites, DestructiveHint: ptr(s.opts.AllowWrites), OpenWorldHint: ptr(false)}}, s.partiql)
	mcp.AddTool(srv, &mcp.Tool{Name: "throttle_state", Description: "Show a table's (or a global secondary index's) throttle buckets on the server: rate, balance, debt, ceiling and whether pinned, per direction (what `extenddb throttle show` prints).", Annotations: readOnly()}, s.throttleState)
	mcp.AddTool(srv, &mcp.Tool{Name: "hot_keys", Description: "Show a table's most accessed and most throttled keys, as Contributor Insights counts them (what `extenddb top` prints); Contributor Insights must be enabled on the table (UpdateContributorInsights).", Annotations: readOnly()}, s.hotKeys)
	s.addSnapshotReadTools(srv)
}

func (s *server) addWriteTools(srv *mcp.Server) {
	write := &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
	mcp.AddTool(srv, &mcp.Tool{Name: "put_item", Description: "Write one item (PutItem): creates it or replaces the item with its key. Returns the replaced item.", Annotations: write}, s.putItem)
	mcp.AddTool(srv, &mcp.Tool{Name: "delete_item", Description: "Delete one item by its primary key (DeleteItem). Returns the deleted item.", Annotations: write}, s.deleteItem)
	mcp.AddTool(srv, &mcp.Tool{Name: "load_iac", Description: "Provision the tables a Terraform directory or a CloudFormation/SAM template declares (paths on the MCP server's machine), as `extenddb serve --load` does; existing tables keep their items.", Annotations: write}, s.loadIaC)
	s.addSnapshotWriteTools(srv, write)
}

func (s *server) listTables(ctx context.Context, _ *mcp.CallToolRequest, in listTablesIn) (*mcp.CallToolResult, listTablesOut, error) {
	out := listTablesOut{Tables: []string{}}
	t, err := s.target(where{in.Account, in.Region})
	if err != nil {
		return nil, out, err
	}
	// Every page, as the SDK's paginator read them: it stops at the last
	// page, or at a token that repeats.
	var start string
	for {
		req := request{}
		req.str("ExclusiveStartTableName", start)
		var page struct {
			TableNames             []string
			LastEvaluatedTableName string
		}
		if err := s.call(ctx, t, "ListTables", req, &page); err != nil {
			return nil, out, err
		}
		out.Tables = append(out.Tables, page.TableNames...)
		if page.LastEvaluatedTableName == "" || page.LastEvaluatedTableName == start {
			return nil, out, nil
		}
		start = page.LastEvaluatedTableName
	}
}

type describeOut struct {
	Table *dTableDescription      `json:"table"`
	TTL   *dTimeToLiveDescription `json:"time_to_live,omitempty"`
}

func (s *server) describeTable(ctx context.Context, _ *mcp.CallToolRequest, in tableIn) (*mcp.CallToolResult, any, error) {
	t, err := s.target(where{in.Account, in.Region})
	if err != nil {
		return nil, nil, err
	}
	var d struct{ Table *dTableDescription }
	if err := s.call(ctx, t, "DescribeTable", request{"TableName": in.Table}, &d); err != nil {
		return nil, nil, err
	}
	out := describeOut{Table: d.Table}
	var ttl struct{ TimeToLiveDescription *dTimeToLiveDescription }
	if err := s.call(ctx, t, "DescribeTimeToLive", request{"TableName": in.Table}, &ttl); err == nil {
		out.TTL = ttl.TimeToLiveDescription
	}
	return nil, out, nil
}

func (s *server) getItem(ctx context.Context, _ *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, itemOut, error) {
	t, err := s.target(where{in.Account, in.Region})
	if err != nil {
		return nil, itemOut{}, err
	}
	key, err := toItem(in.Key)
	if err != nil {
		return nil, itemOut{}, err
	}
	req := request{"TableName": in.Table, "ConsistentRead": in.ConsistentRead}
	req.item("Key", key)
	var got struct{ Item map[string]any }
	if err := s.call(ctx, t, "GetItem", req, &got); err != nil {
		return nil, itemOut{}, err
	}
	return nil, itemOut{Item: fromItem(got.Item), Found: got.Item != nil}, nil
}

// readParams is what query and scan share, converted.
type readParams struct {
	names  map[string]string
	values map[string]any
	start  map[string]any
	limit  int32
	target target
}

func (s *server) readParams(in readIn) (readParams, error) {
	var p readParams
	var err error
	if p.target, err = s.target(where{in.Account, in.Region}); err != nil {
		return p, err
	}
	if p.values, err = toItem(in.ExpressionAttributeValues); err != nil {
		return p, err
	}
	if p.start, err = toItem(in.ExclusiveStartKey); err != nil {
		return p, err
	}
	p.names, p.limit = in.ExpressionAttributeNames, in.Limit
	if len(p.names) == 0 {
		p.names = nil
	}
	if p.limit <= 0 {
		p.limit = defaultLimit
	}
	return p, nil
}

// request is the body of a DynamoDB request. Its setters leave out what
// is absent, as the SDK left out nil members.
type request map[string]any

// str sets k to v, unless v is empty.
func (r request) str(k, v string) {
	if v != "" {
		r[k] = v
	}
}

// item sets k to an item, a key or ExpressionAttributeValues, unless it
// is nil: an empty one is sent (and refused), as the SDK sent it.
func (r request) item(k string, v map[string]any) {
	if v != nil {
		r[k] = v
	}
}

// names sets k to ExpressionAttributeNames, unless nil.
func (r request) names(k string, v map[string]string) {
	if v != nil {
		r[k] = v
	}
}

// read is a request of query or scan, from what they share.
func (p readParams) request(in readIn) request {
	req := request{"TableName": in.Table, "Limit": p.limit, "ConsistentRead": in.ConsistentRead}
	req.str("IndexName", in.Index)
	req.str("FilterExpression", in.FilterExpression)
	req.str("ProjectionExpression", in.ProjectionExpression)
	req.names("ExpressionAttributeNames", p.names)
	req.item("ExpressionAttributeValues", p.values)
	req.item("ExclusiveStartKey", p.start)
	return req
}

// readAnswer is the answer of Query, Scan and ExecuteStatement.
type readAnswer struct {
	Items            []map[string]any
	Count            int32
	ScannedCount     int32
	LastEvaluatedKey map[string]any
	NextToken        string
}

func (a readAnswer) out() itemsOut {
	return itemsOut{Items: fromItems(a.Items), Count: a.Count, ScannedCount: a.ScannedCount, LastEvaluatedKey: fromItem(a.LastEvaluatedKey)}
}

func (s *server) query(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, itemsOut, error) {
	p, err := s.readParams(in)
	if err != nil {
		return nil, itemsOut{}, err
	}
	req := p.request(in)
	req.str("KeyConditionExpression", in.KeyConditionExpression)
	if in.ScanIndexForward != nil {
		req["ScanIndexForward"] = *in.ScanIndexForward
	}
	var got readAnswer
	if err := s.call(ctx, p.target, "Query", req, &got); err != nil {
		return nil, itemsOut{}, err
	}
	return nil, got.out(), nil
}

func (s *server) scan(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, itemsOut, error) {
	p, err := s.readParams(in)
	if err != nil {
		return nil, itemsOut{}, err
	}
	var got readAnswer
	if err := s.call(ctx, p.target, "Scan", p.request(in), &got); err != nil {
		return nil, itemsOut{}, err
	}
	return nil, got.out(), nil
}

func (s *server) partiql(ctx context.Context, _ *mcp.CallToolRequest, in partiqlIn) (*mcp.CallToolResult, itemsOut, error) {
	if !s.opts.AllowWrites && !isSelect(in.Statement) {
		return nil, itemsOut{}, errReadOnly
	}
	t, err := s.target(where{in.Account, in.Region})
	if err != nil {
		return nil, itemsOut{}, err
	}
	var params []any
	for _, v := range in.Parameters {
		av, err := toAV(v)
		if err != nil {
			return nil, itemsOut{}, err
		}
		params = append(params, av)
	}
	limit := in.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	req := request{"Statement": in.Statement, "Limit": limit, "ConsistentRead": in.ConsistentRead}
	if params != nil {
		req["Parameters"] = params
	}
	req.str("NextToken", in.NextToken)
	var got readAnswer
	if err := s.call(ctx, t, "ExecuteStatement", req, &got); err != nil {
		return nil, itemsOut{}, err
	}
	out := got.out()
	out.Count, out.ScannedCount, out.NextToken = int32(len(got.Items)), 0, got.NextToken
	return nil, out, nil
}

// isSelect reports whether a PartiQL statement reads only: its first
// word is SELECT (DynamoDB's PartiQL has SELECT, INSERT, UPDATE, DELETE
// and EXISTS only inside transactions).
func isSelect(stmt string) bool {
	f := strings.Fields(stmt)
	return len(f) > 0 && strings.EqualFold(f[0], "SELECT")
}

func (s *server) putItem(ctx context.Context, _ *mcp.CallToolRequest, in putIn) (*mcp.CallToolResult, writeOut, error) {
	out, err := s.write(ctx, where{in.Account, in.Region}, "PutItem", in.Table, "Item", in.Item, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	return nil, out, err
}

func (s *server) deleteItem(ctx context.Context, _ *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, writeOut, error) {
	out, err := s.write(ctx, where{in.Account, in.Region}, "DeleteItem", in.Table, "Key", in.Key, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	return nil, out, err
}

// write runs PutItem of an item or DeleteItem of a key (member says
// which), and returns the item it replaced or deleted.
func (s *server) write(ctx context.Context, w where, op, table, member string, it map[string]any, cond string, names map[string]string, values map[string]any) (writeOut, error) {
	t, err := s.target(w)
	if err != nil {
		return writeOut{}, err
	}
	item, err := toItem(it)
	if err != nil {
		return writeOut{}, err
	}
	vals, err := toItem(values)
	if err != nil {
		return writeOut{}, err
	}
	req := request{"TableName": table, "ReturnValues": "ALL_OLD"}
	req.item(member, item)
	req.str("ConditionExpression", cond)
	if len(names) > 0 {
		req.names("ExpressionAttributeNames", names)
	}
	req.item("ExpressionAttributeValues", vals)
	var got struct{ Attributes map[string]any }
	if err := s.call(ctx, t, op, req, &got); err != nil {
		return writeOut{}, err
	}
	return writeOut{Old: fromItem(got.Attributes)}, nil
}
