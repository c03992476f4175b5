package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/console"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/extenddbtest"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/mcpserver"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// start starts an ExtendDB with the table Orders (pk S, sk N; 5 RCU, 5
// WCU) holding two items, and an MCP server over it, and returns a
// client session of the SDK's own client, connected in memory.
func start(t *testing.T, opts mcpserver.Options) (*mcp.ClientSession, *extenddbtest.Server) {
	t.Helper()
	es := extenddbtest.Start(t)
	ddb := es.DynamoDB()
	ctx := t.Context()
	_, err := ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range []string{"1", "2"} {
		_, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "alice"}, "sk": &types.AttributeValueMemberN{Value: sk},
			"total": &types.AttributeValueMemberN{Value: "12.50"},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	opts.Endpoint = es.Endpoint
	opts.Region = es.Config.Region
	opts.Credentials = es.Config.Credentials
	srv, err := mcpserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, es
}

// call calls a tool and decodes its structured answer into out (nil:
// not decoded), and returns the tool's error text or the protocol error
// (an unknown tool), "" when the call succeeded.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error()
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, tc.Text)
			}
		}
		return strings.Join(msg, "\n")
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v in %s", tool, err, b)
		}
	}
	return ""
}

func mustCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	if msg := call(t, cs, tool, args, out); msg != "" {
		t.Fatalf("%s: %s", tool, msg)
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

var key1 = map[string]any{"pk": map[string]any{"S": "alice"}, "sk": map[string]any{"N": "1"}}

func TestReadOnlyRefusesWrites(t *testing.T) {
	cs, es := start(t, mcpserver.Options{})
	want := []string{"describe_table", "execute_partiql", "get_item", "hot_keys", "list_snapshots", "list_tables", "query", "save_snapshot", "scan", "throttle_state"}
	if got := toolNames(t, cs); !slices.Equal(got, want) {
		t.Errorf("read-only tools = %v, want %v", got, want)
	}
	// A write tool is not there to call.
	if msg := call(t, cs, "put_item", map[string]any{"table": "Orders", "item": key1}, nil); !strings.Contains(msg, "unknown tool") {
		t.Errorf("put_item on a read-only server: %q, want an unknown tool", msg)
	}
	if msg := call(t, cs, "delete_item", map[string]any{"table": "Orders", "key": key1}, nil); !strings.Contains(msg, "unknown tool") {
		t.Errorf("delete_item on a read-only server: %q, want an unknown tool", msg)
	}
	mustCall(t, cs, "save_snapshot", map[string]any{"name": "kept"}, nil) // changes no table
	for _, tool := range []string{"restore_snapshot", "reset"} {
		if msg := call(t, cs, tool, map[string]any{"name": "kept"}, nil); !strings.Contains(msg, "unknown tool") {
			t.Errorf("%s on a read-only server: %q, want an unknown tool", tool, msg)
		}
	}
	for _, stmt := range []string{
		`DELETE FROM "Orders" WHERE pk = 'alice' AND sk = 1`,
		`INSERT INTO "Orders" VALUE {'pk': 'bob', 'sk': 1}`,
		`  update "Orders" SET total = 0 WHERE pk = 'alice' AND sk = 2`,
	} {
		if msg := call(t, cs, "execute_partiql", map[string]any{"statement": stmt}, nil); !strings.Contains(msg, "--allow-writes") {
			t.Errorf("%s on a read-only server: %q, want a refusal naming --allow-writes", stmt, msg)
		}
	}
	// Nothing changed.
	got, err := es.DynamoDB().Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("Orders")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Count != 2 {
		t.Errorf("Orders holds %d items after refused writes, want 2", got.Count)
	}
	for _, it := range got.Items {
		if n := it["total"].(*types.AttributeValueMemberN).Value; n != "12.5" {
			t.Errorf("total changed to %s", n)
		}
	}
	// SELECT still runs.
	var sel struct{ Items []map[string]any }
	mustCall(t, cs, "execute_partiql", map[string]any{"statement": `SELECT * FROM "Orders" WHERE pk = ?`, "parameters": []any{map[string]any{"S": "alice"}}}, &sel)
	if len(sel.Items) != 2 {
		t.Errorf("SELECT: %d items, want 2", len(sel.Items))
	}
}

func TestReadTools(t *testing.T) {
	cs, _ := start(t, mcpserver.Options{})
	var tables struct{ Tables []string }
	mustCall(t, cs, "list_tables", nil, &tables)
	if !slices.Equal(tables.Tables, []string{"Orders"}) {
		t.Errorf("list_tables = %v", tables.Tables)
	}
	var other struct{ Tables []string }
	mustCall(t, cs, "list_tables", map[string]any{"region": "eu-west-1"}, &other)
	if len(other.Tables) != 0 {
		t.Errorf("list_tables in eu-west-1 = %v, want none", other.Tables)
	}

	var desc struct {
		Table struct {
			TableName             string
			TableStatus           string
			ItemCount             int64
			KeySchema             []struct{ AttributeName, KeyType string }
			ProvisionedThroughput struct{ ReadCapacityUnits int64 }
		} `json:"table"`
	}
	mustCall(t, cs, "describe_table", map[string]any{"table": "Orders"}, &desc)
	if d := desc.Table; d.TableName != "Orders" || d.TableStatus != "ACTIVE" || len(d.KeySchema) != 2 || d.KeySchema[0].AttributeName != "pk" || d.ProvisionedThroughput.ReadCapacityUnits != 5 {
		t.Errorf("describe_table = %+v", d)
	}
	if msg := call(t, cs, "describe_table", map[string]any{"table": "Nope"}, nil); !strings.Contains(msg, "ResourceNotFoundException") {
		t.Errorf("describe_table Nope: %q, want ResourceNotFoundException", msg)
	}

	var got struct {
		Item  map[string]map[string]any
		Found bool
	}
	mustCall(t, cs, "get_item", map[string]any{"table": "Orders", "key": key1}, &got)
	if !got.Found || got.Item["total"]["N"] != "12.5" || got.Item["pk"]["S"] != "alice" {
		t.Errorf("get_item = %+v", got)
	}
	got.Found, got.Item = false, nil
	mustCall(t, cs, "get_item", map[string]any{"table": "Orders", "key": map[string]any{"pk": map[string]any{"S": "bob"}, "sk": map[string]any{"N": "1"}}}, &got)
	if got.Found || got.Item != nil {
		t.Errorf("get_item of an absent key = %+v", got)
	}
	if msg := call(t, cs, "get_item", map[string]any{"table": "Orders", "key": map[string]any{"pk": "alice"}}, nil); !strings.Contains(msg, `{"S":"text"}`) {
		t.Errorf("get_item with a plain value: %q, want the DynamoDB JSON hint", msg)
	}

	type page struct {
		Items            []map[string]map[string]any
		Count            int
		LastEvaluatedKey map[string]any `json:"last_evaluated_key"`
	}
	var q page
	mustCall(t, cs, "query", map[string]any{
		"table": "Orders", "key_condition_expression": "pk = :p AND sk > :s",
		"expression_attribute_values": map[string]any{":p": map[string]any{"S": "alice"}, ":s": map[string]any{"N": "1"}},
	}, &q)
	if q.Count != 1 || q.Items[0]["sk"]["N"] != "2" {
		t.Errorf("query = %+v", q)
	}
	var desc1 page
	mustCall(t, cs, "query", map[string]any{
		"table": "Orders", "key_condition_expression": "pk = :p", "scan_index_forward": false, "limit": 1,
		"expression_attribute_values": map[string]any{":p": map[string]any{"S": "alice"}},
	}, &desc1)
	if desc1.Count != 1 || desc1.Items[0]["sk"]["N"] != "2" || desc1.LastEvaluatedKey == nil {
		t.Errorf("query descending, limit 1 = %+v", desc1)
	}
	var s1, s2 page
	mustCall(t, cs, "scan", map[string]any{"table": "Orders", "limit": 1}, &s1)
	mustCall(t, cs, "scan", map[string]any{"table": "Orders", "limit": 1, "exclusive_start_key": s1.LastEvaluatedKey}, &s2)
	if s1.Count != 1 || s2.Count != 1 || s1.Items[0]["sk"]["N"] == s2.Items[0]["sk"]["N"] {
		t.Errorf("scan pages = %+v, %+v", s1, s2)
	}
	var f page
	mustCall(t, cs, "scan", map[string]any{"table": "Orders", "filter_expression": "#s = :two",
		"expression_attribute_names": map[string]any{"#s": "sk"}, "expression_attribute_values": map[string]any{":two": map[string]any{"N": "2"}}}, &f)
	if f.Count != 1 {
		t.Errorf("scan with a filter = %+v", f)
	}
}

func TestWriteTools(t *testing.T) {
	cs, es := start(t, mcpserver.Options{AllowWrites: true})
	if got := toolNames(t, cs); !slices.Contains(got, "put_item") || !slices.Contains(got, "delete_item") || !slices.Contains(got, "load_iac") {
		t.Errorf("tools with --allow-writes = %v", got)
	}
	item := map[string]any{"pk": map[string]any{"S": "bob"}, "sk": map[string]any{"N": "7"},
		"tags": map[string]any{"SS": []any{"a", "b"}}, "doc": map[string]any{"M": map[string]any{"ok": map[string]any{"BOOL": true}, "l": map[string]any{"L": []any{map[string]any{"NULL": true}, map[string]any{"B": "AQI="}}}}}}
	mustCall(t, cs, "put_item", map[string]any{"table": "Orders", "item": item}, nil)
	got, err := es.DynamoDB().GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "bob"}, "sk": &types.AttributeValueMemberN{Value: "7"}}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := got.Item["doc"].(*types.AttributeValueMemberM)
	if doc == nil || len(got.Item["tags"].(*types.AttributeValueMemberSS).Value) != 2 || string(doc.Value["l"].(*types.AttributeValueMemberL).Value[1].(*types.AttributeValueMemberB).Value) != "\x01\x02" {
		t.Errorf("put_item wrote %#v", got.Item)
	}
	// A condition is the API's.
	if msg := call(t, cs, "put_item", map[string]any{"table": "Orders", "item": item, "condition_expression": "attribute_not_exists(pk)"}, nil); !strings.Contains(msg, "ConditionalCheckFailed") {
		t.Errorf("conditional put_item: %q", msg)
	}
	var del struct {
		Old map[string]map[string]any `json:"old_item"`
	}
	mustCall(t, cs, "delete_item", map[string]any{"table": "Orders", "key": key1}, &del)
	if del.Old["total"]["N"] != "12.5" {
		t.Errorf("delete_item old item = %v", del.Old)
	}
	mustCall(t, cs, "execute_partiql", map[string]any{"statement": `UPDATE "Orders" SET total = 3 WHERE pk = 'alice' AND sk = 2`}, nil)
	var g struct{ Item map[string]map[string]any }
	mustCall(t, cs, "get_item", map[string]any{"table": "Orders", "key": map[string]any{"pk": map[string]any{"S": "alice"}, "sk": map[string]any{"N": "2"}}}, &g)
	if g.Item["total"]["N"] != "3" {
		t.Errorf("after the PartiQL UPDATE: %v", g.Item)
	}
	var sc struct{ Count int }
	mustCall(t, cs, "scan", map[string]any{"table": "Orders"}, &sc)
	if sc.Count != 2 { // bob/7 and alice/2
		t.Errorf("scan after the writes: %d items, want 2", sc.Count)
	}
}

func TestThrottleState(t *testing.T) {
	cs, es := start(t, mcpserver.Options{})
	var st struct {
		Table   string
		Account string
		Region  string
		Buckets struct {
			Read, Write struct {
				Rate, Debt float64
				Pinned     bool
			}
		}
	}
	mustCall(t, cs, "throttle_state", map[string]any{"table": "Orders"}, &st)
	if st.Table != "Orders" || st.Account != "000000000000" || st.Region != "us-east-1" || st.Buckets.Read.Rate != 5 || st.Buckets.Write.Rate != 5 || st.Buckets.Read.Pinned {
		t.Errorf("throttle_state = %+v", st)
	}
	// What `extenddb throttle pin` changes shows.
	if _, err := es.Engine.ThrottleControl(t.Context(), api.Namespace{Account: "000000000000", Region: "us-east-1"}, "Orders", emulator.ThrottleAction{Kind: "pin", Rate: 42}); err != nil {
		t.Fatal(err)
	}
	mustCall(t, cs, "throttle_state", map[string]any{"table": "Orders"}, &st)
	if st.Buckets.Read.Rate != 42 || !st.Buckets.Read.Pinned {
		t.Errorf("throttle_state after pin = %+v", st.Buckets.Read)
	}
	if msg := call(t, cs, "throttle_state", map[string]any{"table": "Nope"}, nil); !strings.Contains(msg, "404") || !strings.Contains(msg, "Nope") {
		t.Errorf("throttle_state of a missing table: %q", msg)
	}
}

func TestHotKeys(t *testing.T) {
	cs, es := start(t, mcpserver.Options{})
	ddb := es.DynamoDB()
	ctx := t.Context()
	if _, err := ddb.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("Orders"), ContributorInsightsAction: types.ContributorInsightsActionEnable}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"), Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "hot"}, "sk": &types.AttributeValueMemberN{Value: "1"}}}); err != nil {
			t.Fatal(err)
		}
	}
	var rep struct {
		CI struct {
			Table                 string
			Status                string
			AccessedPartitionKeys []struct {
				Key   map[string]map[string]any
				Count float64
			}
		} `json:"contributor_insights"`
		Recent      []any  `json:"recent_partition_keys"`
		RecentError string `json:"recent_error"`
	}
	mustCall(t, cs, "hot_keys", map[string]any{"table": "Orders", "top": 1}, &rep)
	if ci := rep.CI; ci.Table != "Orders" || ci.Status != "ENABLED" || len(ci.AccessedPartitionKeys) != 1 || ci.AccessedPartitionKeys[0].Key["pk"]["S"] != "hot" {
		t.Errorf("hot_keys' Contributor Insights = %+v", ci)
	}
	// extenddbtest serves no console: its list is missing, and says why.
	if rep.Recent != nil || !strings.Contains(rep.RecentError, "console") {
		t.Errorf("hot_keys without a console: recent %v, error %q", rep.Recent, rep.RecentError)
	}
	if msg := call(t, cs, "hot_keys", map[string]any{"table": "Nope"}, nil); !strings.Contains(msg, "Nope") {
		t.Errorf("hot_keys of a missing table: %q", msg)
	}
}

// TestHotKeysFromConsole: on a server with its console (as serve has by
// default), hot_keys also gives the partition keys the console's
// throttling page ranks, without Contributor Insights.
func TestHotKeysFromConsole(t *testing.T) {
	store, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	rec := console.NewRecorder(console.RecorderOptions{})
	eng, err := emulator.New(emulator.Options{Store: store, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	con, err := console.New(console.Options{Engine: eng, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(wire.NewHandler(eng, wire.Options{Mounts: []wire.Mount{{Prefix: console.Prefix, Handler: con}}}))
	t.Cleanup(hs.Close)
	ctx := t.Context()
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(hs.URL), Credentials: aws.AnonymousCredentials{}})
	if _, err := ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Hot"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"cold", "blazing", "blazing", "blazing"} {
		if _, err := ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Hot"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: id}, "n": &types.AttributeValueMemberN{Value: fmt.Sprint(i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := mcpserver.New(mcpserver.Options{Endpoint: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var rep struct {
		CI     struct{ Status string } `json:"contributor_insights"`
		Recent []struct {
			Key   string
			Write float64
		} `json:"recent_partition_keys"`
		RecentError string `json:"recent_error"`
	}
	mustCall(t, cs, "hot_keys", map[string]any{"table": "Hot"}, &rep)
	if rep.CI.Status != "DISABLED" || rep.RecentError != "" || len(rep.Recent) != 2 || !strings.Contains(rep.Recent[0].Key, "blazing") || rep.Recent[0].Write != 3 {
		t.Errorf("hot_keys = %+v", rep)
	}
}

const template = `AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Users:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: Users
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: id, AttributeType: S}
      KeySchema:
        - {AttributeName: id, KeyType: HASH}
      TimeToLiveSpecification: {AttributeName: expires, Enabled: true}
`

func TestLoadIaC(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "template.yaml")
	if err := os.WriteFile(path, []byte(template), 0o644); err != nil {
		t.Fatal(err)
	}
	type loadOut struct {
		Tables []struct{ Table, Account, Region, Action string }
	}
	check := func(t *testing.T, cs *mcp.ClientSession, es *extenddbtest.Server, first, again string) {
		t.Helper()
		var out loadOut
		mustCall(t, cs, "load_iac", map[string]any{"paths": []any{path}}, &out)
		if len(out.Tables) != 1 || out.Tables[0].Table != "Users" || out.Tables[0].Action != first || out.Tables[0].Region != "us-east-1" {
			t.Errorf("load_iac = %+v", out)
		}
		ttl, err := es.DynamoDB().DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Users")})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "expires" {
			t.Errorf("Users' TTL = %+v", ttl.TimeToLiveDescription)
		}
		mustCall(t, cs, "load_iac", map[string]any{"paths": []any{path}}, &out)
		if out.Tables[0].Action != again {
			t.Errorf("load_iac again: %+v, want %s", out, again)
		}
		if msg := call(t, cs, "load_iac", map[string]any{"paths": []any{filepath.Join(dir, "missing.yaml")}}, nil); !strings.Contains(msg, "missing.yaml") {
			t.Errorf("load_iac of a missing file: %q", msg)
		}
	}
	t.Run("over the API", func(t *testing.T) {
		cs, es := start(t, mcpserver.Options{AllowWrites: true})
		check(t, cs, es, "created", "exists")
	})
	t.Run("into the engine", func(t *testing.T) {
		var es *extenddbtest.Server
		var cs *mcp.ClientSession
		cs, es = start(t, mcpserver.Options{AllowWrites: true, Provision: func(ctx context.Context, specs []iac.TableSpec) ([]iac.Outcome, iac.Diagnostics) {
			return iac.ProvisionWith(ctx, es.Engine, specs, iac.ProvisionOptions{})
		}})
		check(t, cs, es, iac.Created, iac.Unchanged)
	})
	t.Run("read-only", func(t *testing.T) {
		cs, _ := start(t, mcpserver.Options{})
		if msg := call(t, cs, "load_iac", map[string]any{"paths": []any{path}}, nil); !strings.Contains(msg, "unknown tool") {
			t.Errorf("load_iac on a read-only server: %q, want an unknown tool", msg)
		}
	})
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

func TestHTTPNeedsToken(t *testing.T) {
	es := extenddbtest.Start(t)
	srv, err := mcpserver.New(mcpserver.Options{Endpoint: es.Endpoint, Credentials: es.Config.Credentials})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcpserver.Handler(srv, ""); err == nil {
		t.Error("Handler with an empty token: no error")
	}
	h, err := mcpserver.Handler(srv, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := mcpserver.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	hs.Start()
	t.Cleanup(hs.Close)
	connect := func(token string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
		return mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), tr, nil)
	}
	for _, token := range []string{"", "wrong", "s3cre", "s3cret2"} {
		if cs, err := connect(token); err == nil {
			cs.Close()
			t.Errorf("token %q: connected", token)
		}
	}
	// Without the SDK: 401 with the scheme named.
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	cs, err := connect("s3cret")
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	defer cs.Close()
	if got := toolNames(t, cs); !slices.Contains(got, "list_tables") {
		t.Errorf("tools over HTTP = %v", got)
	}
	var tables struct{ Tables []string }
	mustCall(t, cs, "list_tables", nil, &tables)
}

func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0", "nonsense"} {
		if ln, err := mcpserver.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) listened on %s", addr, ln.Addr())
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := mcpserver.Listen(addr)
		if err != nil {
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		ln.Close()
	}
}

func TestNewChecksEndpoint(t *testing.T) {
	for _, ep := range []string{"", "localhost:8000", "ftp://x"} {
		if _, err := mcpserver.New(mcpserver.Options{Endpoint: ep}); err == nil {
			t.Errorf("New(Endpoint %q): no error", ep)
		}
	}
}

func TestAccountAndRegion(t *testing.T) {
	cs, es := start(t, mcpserver.Options{})
	cfg := es.Config.Copy()
	cfg.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "111111111111", SecretAccessKey: "x"}, nil
	})
	cfg.Region = "eu-west-1"
	_, err := dynamodb.NewFromConfig(cfg).CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String("Theirs"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, `["Orders"]`},
		{map[string]any{"account": "111111111111"}, `[]`},
		{map[string]any{"account": "111111111111", "region": "eu-west-1"}, `["Theirs"]`},
	} {
		var out struct{ Tables []string }
		mustCall(t, cs, "list_tables", tc.args, &out)
		if b, _ := json.Marshal(out.Tables); string(b) != tc.want {
			t.Errorf("list_tables %v = %s, want %s", tc.args, b, tc.want)
		}
	}
	var st struct{ Account, Region string }
	mustCall(t, cs, "throttle_state", map[string]any{"table": "Theirs", "account": "111111111111", "region": "eu-west-1"}, &st)
	if st.Account != "111111111111" || st.Region != "eu-west-1" {
		t.Errorf("throttle_state of Theirs = %+v", st)
	}
	if msg := call(t, cs, "list_tables", map[string]any{"account": "alice"}, nil); !strings.Contains(msg, "12-digit") {
		t.Errorf("list_tables with account alice: %q", msg)
	}
}

// TestLoadIaCAccount loads Terraform whose provider's access key is an
// account ID, with a seed item, over the API: the table and its item land
// in that account and Region, as terraform apply would put them.
func TestLoadIaCAccount(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(`
provider "aws" {
  region     = "eu-west-1"
  access_key = "111111111111"
  secret_key = "x"
}
resource "aws_dynamodb_table" "t" {
  name         = "Seeded"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_dynamodb_table_item" "one" {
  table_name = aws_dynamodb_table.t.name
  hash_key   = aws_dynamodb_table.t.hash_key
  item       = jsonencode({ id = { S = "one" }, v = { N = "1" } })
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := start(t, mcpserver.Options{AllowWrites: true})
	var out struct {
		Tables []struct {
			Table, Account, Region, Action string
			Notes                          []string
		}
	}
	mustCall(t, cs, "load_iac", map[string]any{"paths": []any{dir}}, &out)
	if len(out.Tables) != 1 || out.Tables[0].Account != "111111111111" || out.Tables[0].Region != "eu-west-1" || out.Tables[0].Action != "created" || !slices.Contains(out.Tables[0].Notes, "1 seed items written") {
		t.Errorf("load_iac = %+v", out)
	}
	var got struct {
		Item  map[string]map[string]any
		Found bool
	}
	mustCall(t, cs, "get_item", map[string]any{"table": "Seeded", "account": "111111111111", "region": "eu-west-1", "key": map[string]any{"id": map[string]any{"S": "one"}}}, &got)
	if !got.Found || got.Item["v"]["N"] != "1" {
		t.Errorf("the seed item = %+v", got)
	}
	// Again: the table exists, the item is there, nothing is written.
	mustCall(t, cs, "put_item", map[string]any{"table": "Seeded", "account": "111111111111", "region": "eu-west-1", "item": map[string]any{"id": map[string]any{"S": "one"}, "v": map[string]any{"N": "2"}}}, nil)
	mustCall(t, cs, "load_iac", map[string]any{"paths": []any{dir}}, &out)
	if out.Tables[0].Action != "exists" || slices.ContainsFunc(out.Tables[0].Notes, func(n string) bool { return strings.Contains(n, "seed items written") }) {
		t.Errorf("load_iac again = %+v", out)
	}
	mustCall(t, cs, "get_item", map[string]any{"table": "Seeded", "account": "111111111111", "region": "eu-west-1", "key": map[string]any{"id": map[string]any{"S": "one"}}}, &got)
	if got.Item["v"]["N"] != "2" {
		t.Errorf("reloading overwrote the item: %+v", got)
	}
}

// TestSnapshotTools: save_snapshot keeps the state on the server,
// list_snapshots lists it, restore_snapshot brings it back after a
// change, and reset drops every table.
func TestSnapshotTools(t *testing.T) {
	cs, es := start(t, mcpserver.Options{AllowWrites: true})
	mustCall(t, cs, "save_snapshot", map[string]any{"name": "two-orders"}, nil)
	var list struct {
		Snapshots []struct {
			Name string
			Keys int
		}
	}
	mustCall(t, cs, "list_snapshots", map[string]any{}, &list)
	if len(list.Snapshots) != 1 || list.Snapshots[0].Name != "two-orders" || list.Snapshots[0].Keys == 0 {
		t.Fatalf("list_snapshots: %+v", list)
	}
	count := func() int32 {
		t.Helper()
		out, err := es.DynamoDB().Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String("Orders")})
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	mustCall(t, cs, "put_item", map[string]any{"table": "Orders", "item": map[string]any{"pk": map[string]any{"S": "bob"}, "sk": map[string]any{"N": "9"}}}, nil)
	if n := count(); n != 3 {
		t.Fatalf("%d items after put_item, want 3", n)
	}
	mustCall(t, cs, "restore_snapshot", map[string]any{"name": "two-orders"}, nil)
	if n := count(); n != 2 {
		t.Errorf("%d items after restore_snapshot, want the snapshot's 2", n)
	}
	if msg := call(t, cs, "restore_snapshot", map[string]any{"name": "nope"}, nil); msg == "" {
		t.Error("restore_snapshot of an unknown name succeeded")
	}
	mustCall(t, cs, "reset", map[string]any{}, nil)
	var tables struct{ Tables []string }
	mustCall(t, cs, "list_tables", map[string]any{}, &tables)
	if len(tables.Tables) != 0 {
		t.Errorf("tables after reset: %v", tables.Tables)
	}
}
