package mcpserver

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
	opts, err := s.ddbOpts(where{in.Account, in.Region})
	if err != nil {
		return nil, out, err
	}
	p := dynamodb.NewListTablesPaginator(s.ddb, &dynamodb.ListTablesInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, opts...)
		if err != nil {
			return nil, out, err
		}
		out.Tables = append(out.Tables, page.TableNames...)
	}
	return nil, out, nil
}

type describeOut struct {
	Table *types.TableDescription      `json:"table"`
	TTL   *types.TimeToLiveDescription `json:"time_to_live,omitempty"`
}

func (s *server) describeTable(ctx context.Context, _ *mcp.CallToolRequest, in tableIn) (*mcp.CallToolResult, any, error) {
	opts, err := s.ddbOpts(where{in.Account, in.Region})
	if err != nil {
		return nil, nil, err
	}
	d, err := s.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &in.Table}, opts...)
	if err != nil {
		return nil, nil, err
	}
	out := describeOut{Table: d.Table}
	if ttl, err := s.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &in.Table}, opts...); err == nil {
		out.TTL = ttl.TimeToLiveDescription
	}
	return nil, out, nil
}

func (s *server) getItem(ctx context.Context, _ *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, itemOut, error) {
	opts, err := s.ddbOpts(where{in.Account, in.Region})
	if err != nil {
		return nil, itemOut{}, err
	}
	key, err := toItem(in.Key)
	if err != nil {
		return nil, itemOut{}, err
	}
	got, err := s.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: &in.Table, Key: key, ConsistentRead: aws.Bool(in.ConsistentRead)}, opts...)
	if err != nil {
		return nil, itemOut{}, err
	}
	return nil, itemOut{Item: fromItem(got.Item), Found: got.Item != nil}, nil
}

// readParams is what query and scan share, converted.
type readParams struct {
	names  map[string]string
	values map[string]types.AttributeValue
	start  map[string]types.AttributeValue
	limit  int32
	opts   []func(*dynamodb.Options)
}

func (s *server) readParams(in readIn) (readParams, error) {
	var p readParams
	var err error
	if p.opts, err = s.ddbOpts(where{in.Account, in.Region}); err != nil {
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

func (s *server) query(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, itemsOut, error) {
	p, err := s.readParams(in)
	if err != nil {
		return nil, itemsOut{}, err
	}
	got, err := s.ddb.Query(ctx, &dynamodb.QueryInput{
		TableName: &in.Table, IndexName: optional(in.Index),
		KeyConditionExpression: optional(in.KeyConditionExpression), FilterExpression: optional(in.FilterExpression),
		ProjectionExpression:     optional(in.ProjectionExpression),
		ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		Limit: &p.limit, ScanIndexForward: in.ScanIndexForward, ConsistentRead: aws.Bool(in.ConsistentRead),
		ExclusiveStartKey: p.start,
	}, p.opts...)
	if err != nil {
		return nil, itemsOut{}, err
	}
	return nil, itemsOut{Items: fromItems(got.Items), Count: got.Count, ScannedCount: got.ScannedCount, LastEvaluatedKey: fromItem(got.LastEvaluatedKey)}, nil
}

func (s *server) scan(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, itemsOut, error) {
	p, err := s.readParams(in)
	if err != nil {
		return nil, itemsOut{}, err
	}
	got, err := s.ddb.Scan(ctx, &dynamodb.ScanInput{
		TableName: &in.Table, IndexName: optional(in.Index),
		FilterExpression: optional(in.FilterExpression), ProjectionExpression: optional(in.ProjectionExpression),
		ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		Limit: &p.limit, ConsistentRead: aws.Bool(in.ConsistentRead), ExclusiveStartKey: p.start,
	}, p.opts...)
	if err != nil {
		return nil, itemsOut{}, err
	}
	return nil, itemsOut{Items: fromItems(got.Items), Count: got.Count, ScannedCount: got.ScannedCount, LastEvaluatedKey: fromItem(got.LastEvaluatedKey)}, nil
}

func (s *server) partiql(ctx context.Context, _ *mcp.CallToolRequest, in partiqlIn) (*mcp.CallToolResult, itemsOut, error) {
	if !s.opts.AllowWrites && !isSelect(in.Statement) {
		return nil, itemsOut{}, errReadOnly
	}
	opts, err := s.ddbOpts(where{in.Account, in.Region})
	if err != nil {
		return nil, itemsOut{}, err
	}
	var params []types.AttributeValue
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
	got, err := s.ddb.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
		Statement: &in.Statement, Parameters: params, Limit: &limit,
		NextToken: optional(in.NextToken), ConsistentRead: aws.Bool(in.ConsistentRead),
	}, opts...)
	if err != nil {
		return nil, itemsOut{}, err
	}
	return nil, itemsOut{Items: fromItems(got.Items), Count: int32(len(got.Items)), LastEvaluatedKey: fromItem(got.LastEvaluatedKey), NextToken: aws.ToString(got.NextToken)}, nil
}

// isSelect reports whether a PartiQL statement reads only: its first
// word is SELECT (DynamoDB's PartiQL has SELECT, INSERT, UPDATE, DELETE
// and EXISTS only inside transactions).
func isSelect(stmt string) bool {
	f := strings.Fields(stmt)
	return len(f) > 0 && strings.EqualFold(f[0], "SELECT")
}

func (s *server) putItem(ctx context.Context, _ *mcp.CallToolRequest, in putIn) (*mcp.CallToolResult, writeOut, error) {
	opts, err := s.ddbOpts(where{in.Account, in.Region})
	if err != nil {
		return nil, writeOut{}, err
	}
	item, err := toItem(in.Item)
	if err != nil {
		return nil, writeOut{}, err
	}
	values, err := toItem(in.ExpressionAttributeValues)
	if err != nil {
		return nil, writeOut{}, err
	}
	got, err := s.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &in.Table, Item: item, ConditionExpression: optional(in.ConditionExpression),
		ExpressionAttributeNames: emptyNil(in.ExpressionAttributeNames), ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllOld,
	}, opts...)
	if err != nil {
		return nil, writeOut{}, err
	}
	return nil, writeOut{Old: fromItem(got.Attributes)}, nil
}

func (s *server) deleteItem(ctx context.Context, _ *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, writeOut, error) {
	opts, err := s.ddbOpts(where{in.Account, in.Region})
	if err != nil {
		return nil, writeOut{}, err
	}
	key, err := toItem(in.Key)
	if err != nil {
		return nil, writeOut{}, err
	}
	values, err := toItem(in.ExpressionAttributeValues)
	if err != nil {
		return nil, writeOut{}, err
	}
	got, err := s.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &in.Table, Key: key, ConditionExpression: optional(in.ConditionExpression),
		ExpressionAttributeNames: emptyNil(in.ExpressionAttributeNames), ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllOld,
	}, opts...)
	if err != nil {
		return nil, writeOut{}, err
	}
	return nil, writeOut{Old: fromItem(got.Attributes)}, nil
}

// optional is s as an optional member: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func emptyNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
