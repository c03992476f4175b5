package mcpserver_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests here pin, byte for byte, what the tools answered when they
// went through aws-sdk-go-v2's DynamoDB client (the want texts were
// recorded then), now that the client is the package's own: items of
// every attribute type both ways, pages, and the server's errors.

// rawCall calls a tool and returns the text of its answer (the JSON the
// caller reads, or the error's text) and whether it is an error.
func rawCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return strings.Join(text, "\n"), res.IsError
}

// volatile are the parts of an answer that differ from run to run.
var volatile = regexp.MustCompile(`RequestID: [^,]*,|"CreationDateTime":"[^"]*"|"TableId":"[^"]*"`)

// creation is the SDK's rendering of a timestamp: UTC, milliseconds.
var creation = regexp.MustCompile(`"CreationDateTime":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z"`)

type step struct {
	tool string
	args map[string]any
}

// goldenSteps are the calls TestGolden makes, in order; pages continue
// from the previous answer.
func goldenSteps() []step {
	item := map[string]any{
		"pk": map[string]any{"S": "every"}, "sk": map[string]any{"N": "3"},
		"s": map[string]any{"S": "text ü \"q\" <&>"}, "n": map[string]any{"N": "-1.50e2"}, "big": map[string]any{"N": "12345678901234567890.000000001"},
		"b": map[string]any{"B": "AAEC/w=="}, "t": map[string]any{"BOOL": true}, "f": map[string]any{"BOOL": false}, "null": map[string]any{"NULL": true},
		"ss": map[string]any{"SS": []any{"b", "a"}}, "ns": map[string]any{"NS": []any{"10", "1.0", "-3"}}, "bs": map[string]any{"BS": []any{"AQ==", "Ag=="}},
		"l": map[string]any{"L": []any{map[string]any{"S": "x"}, map[string]any{"L": []any{}}, map[string]any{"M": map[string]any{}}, map[string]any{"NULL": true}}},
		"m": map[string]any{"M": map[string]any{"inner": map[string]any{"M": map[string]any{"deep": map[string]any{"NS": []any{"7"}}}}, "e": map[string]any{"S": ""}}},
	}
	key := map[string]any{"pk": map[string]any{"S": "every"}, "sk": map[string]any{"N": "3"}}
	alice := map[string]any{":p": map[string]any{"S": "alice"}}
	return []step{
		{"put_item", map[string]any{"table": "Orders", "item": item}},
		{"get_item", map[string]any{"table": "Orders", "key": key}},
		{"put_item", map[string]any{"table": "Orders", "item": item}},
		{"get_item", map[string]any{"table": "Orders", "key": map[string]any{"pk": map[string]any{"S": "none"}, "sk": map[string]any{"N": "3"}}}},
		{"describe_table", map[string]any{"table": "Nope"}},
		{"get_item", map[string]any{"table": "Nope", "key": key}},
		{"query", map[string]any{"table": "Orders", "key_condition_expression": "nope = :p", "expression_attribute_values": alice}},
		{"put_item", map[string]any{"table": "Orders", "item": item, "condition_expression": "attribute_not_exists(pk)"}},
		{"put_item", map[string]any{"table": "Orders", "item": item, "expression_attribute_values": map[string]any{}}},
		{"execute_partiql", map[string]any{"statement": `SELECT * FROM "Nope"`}},
		{"execute_partiql", map[string]any{"statement": `SELECT * FROM "Orders" WHERE pk = ?`, "parameters": []any{map[string]any{"S": "every"}}}},
		{"delete_item", map[string]any{"table": "Orders", "key": key, "condition_expression": "#b = :b", "expression_attribute_names": map[string]any{"#b": "b"}, "expression_attribute_values": map[string]any{":b": map[string]any{"B": "AAEC/w=="}}}},
		{"delete_item", map[string]any{"table": "Orders", "key": key}},
		{"put_item", map[string]any{"table": "Orders", "item": item}},
		{"describe_table", map[string]any{"table": "Orders"}},
		{"query", map[string]any{"table": "Orders", "key_condition_expression": "pk = :p", "expression_attribute_values": alice, "limit": 1}},
		{"query", nil}, {"query", nil},
		{"query", map[string]any{"table": "Orders", "key_condition_expression": "pk = :p", "expression_attribute_values": alice, "limit": 1, "scan_index_forward": false, "projection_expression": "sk"}},
		{"query", nil}, {"query", nil},
		{"scan", map[string]any{"table": "Orders", "limit": 1}},
		{"scan", nil}, {"scan", nil}, {"scan", nil},
		{"scan", map[string]any{"table": "Orders", "limit": 2, "filter_expression": "attribute_exists(#t)", "expression_attribute_names": map[string]any{"#t": "total"}}},
		{"scan", nil},
		{"execute_partiql", map[string]any{"statement": `SELECT * FROM "Orders" WHERE pk = ?`, "parameters": []any{map[string]any{"S": "alice"}}, "limit": 1}},
		{"execute_partiql", nil}, {"execute_partiql", nil},
	}
}

func TestGolden(t *testing.T) {
	cs, _ := start(t, mcpserver.Options{AllowWrites: true})
	var prev map[string]any
	var got []string
	for i, st := range goldenSteps() {
		args := st.args
		if args == nil { // the next page of the step before
			args = map[string]any{}
			for k, v := range prev {
				args[k] = v
			}
			var out struct {
				LEK  map[string]any `json:"last_evaluated_key"`
				Next string         `json:"next_token"`
			}
			mustCall(t, cs, st.tool, prev, &out)
			if st.tool == "execute_partiql" {
				args["next_token"] = out.Next
			} else {
				args["exclusive_start_key"] = out.LEK
			}
		}
		prev = args
		text, isErr := rawCall(t, cs, st.tool, args)
		if strings.Contains(text, "CreationDateTime") && !creation.MatchString(text) {
			t.Errorf("step %d, %s: CreationDateTime is not the SDK's form: %s", i, st.tool, text)
		}
		g := fmt.Sprintf("%v %s", isErr, volatile.ReplaceAllString(text, "…"))
		got = append(got, g)
		if i >= len(golden) || golden[i] != g {
			want := "(none)"
			if i < len(golden) {
				want = golden[i]
			}
			t.Errorf("step %d, %s %v:\n got %s\nwant %s", i, st.tool, args, g, want)
		}
	}
	if t.Failed() {
		for _, g := range got {
			fmt.Printf("GOLDEN %q,\n", g)
		}
	}
}

// golden are the answers recorded through aws-sdk-go-v2 (RequestID, the
// table's creation time and ID masked).
var golden = []string{
	"false {}",
	"false {\"found\":true,\"item\":{\"b\":{\"B\":\"AAEC/w==\"},\"big\":{\"N\":\"12345678901234567890.000000001\"},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]},\"f\":{\"BOOL\":false},\"l\":{\"L\":[{\"S\":\"x\"},{\"L\":[]},{\"M\":{}},{\"NULL\":true}]},\"m\":{\"M\":{\"e\":{\"S\":\"\"},\"inner\":{\"M\":{\"deep\":{\"NS\":[\"7\"]}}}}},\"n\":{\"N\":\"-150\"},\"ns\":{\"NS\":[\"10\",\"1\",\"-3\"]},\"null\":{\"NULL\":true},\"pk\":{\"S\":\"every\"},\"s\":{\"S\":\"text ü \\\"q\\\" \\u003c\\u0026\\u003e\"},\"sk\":{\"N\":\"3\"},\"ss\":{\"SS\":[\"b\",\"a\"]},\"t\":{\"BOOL\":true}}}",
	"false {\"old_item\":{\"b\":{\"B\":\"AAEC/w==\"},\"big\":{\"N\":\"12345678901234567890.000000001\"},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]},\"f\":{\"BOOL\":false},\"l\":{\"L\":[{\"S\":\"x\"},{\"L\":[]},{\"M\":{}},{\"NULL\":true}]},\"m\":{\"M\":{\"e\":{\"S\":\"\"},\"inner\":{\"M\":{\"deep\":{\"NS\":[\"7\"]}}}}},\"n\":{\"N\":\"-150\"},\"ns\":{\"NS\":[\"10\",\"1\",\"-3\"]},\"null\":{\"NULL\":true},\"pk\":{\"S\":\"every\"},\"s\":{\"S\":\"text ü \\\"q\\\" \\u003c\\u0026\\u003e\"},\"sk\":{\"N\":\"3\"},\"ss\":{\"SS\":[\"b\",\"a\"]},\"t\":{\"BOOL\":true}}}",
	"false {\"found\":false}",
	"true operation error DynamoDB: DescribeTable, https response error StatusCode: 400, … ResourceNotFoundException: Requested resource not found: Table: Nope not found",
	"true operation error DynamoDB: GetItem, https response error StatusCode: 400, … ResourceNotFoundException: Requested resource not found",
	"true operation error DynamoDB: Query, https response error StatusCode: 400, … api error ValidationException: Query condition missed key schema element: pk",
	"true operation error DynamoDB: PutItem, https response error StatusCode: 400, … ConditionalCheckFailedException: The conditional request failed",
	"true operation error DynamoDB: PutItem, https response error StatusCode: 400, … api error ValidationException: 1 validation error detected: ExpressionAttributeValues can only be specified when using expressions",
	"true operation error DynamoDB: ExecuteStatement, https response error StatusCode: 400, … ResourceNotFoundException: Requested resource not found",
	"false {\"count\":1,\"items\":[{\"b\":{\"B\":\"AAEC/w==\"},\"big\":{\"N\":\"12345678901234567890.000000001\"},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]},\"f\":{\"BOOL\":false},\"l\":{\"L\":[{\"S\":\"x\"},{\"L\":[]},{\"M\":{}},{\"NULL\":true}]},\"m\":{\"M\":{\"e\":{\"S\":\"\"},\"inner\":{\"M\":{\"deep\":{\"NS\":[\"7\"]}}}}},\"n\":{\"N\":\"-150\"},\"ns\":{\"NS\":[\"10\",\"1\",\"-3\"]},\"null\":{\"NULL\":true},\"pk\":{\"S\":\"every\"},\"s\":{\"S\":\"text ü \\\"q\\\" \\u003c\\u0026\\u003e\"},\"sk\":{\"N\":\"3\"},\"ss\":{\"SS\":[\"b\",\"a\"]},\"t\":{\"BOOL\":true}}]}",
	"false {\"old_item\":{\"b\":{\"B\":\"AAEC/w==\"},\"big\":{\"N\":\"12345678901234567890.000000001\"},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]},\"f\":{\"BOOL\":false},\"l\":{\"L\":[{\"S\":\"x\"},{\"L\":[]},{\"M\":{}},{\"NULL\":true}]},\"m\":{\"M\":{\"e\":{\"S\":\"\"},\"inner\":{\"M\":{\"deep\":{\"NS\":[\"7\"]}}}}},\"n\":{\"N\":\"-150\"},\"ns\":{\"NS\":[\"10\",\"1\",\"-3\"]},\"null\":{\"NULL\":true},\"pk\":{\"S\":\"every\"},\"s\":{\"S\":\"text ü \\\"q\\\" \\u003c\\u0026\\u003e\"},\"sk\":{\"N\":\"3\"},\"ss\":{\"SS\":[\"b\",\"a\"]},\"t\":{\"BOOL\":true}}}",
	"false {}",
	"false {}",
	"false {\"table\":{\"ArchivalSummary\":null,\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\",\"AttributeType\":\"N\"}],\"BillingModeSummary\":null,…,\"DeletionProtectionEnabled\":false,\"DisassociationProtectionEnabled\":null,\"GlobalSecondaryIndexes\":null,\"GlobalTableSettingsReplicationMode\":\"\",\"GlobalTableVersion\":null,\"GlobalTableWitnesses\":null,\"ItemCount\":3,\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],\"LatestStreamArn\":null,\"LatestStreamLabel\":null,\"LocalSecondaryIndexes\":null,\"MultiRegionConsistency\":\"\",\"OnDemandThroughput\":null,\"ProvisionedThroughput\":{\"LastDecreaseDateTime\":null,\"LastIncreaseDateTime\":null,\"NumberOfDecreasesToday\":0,\"ReadCapacityUnits\":5,\"WriteCapacityUnits\":5},\"Replicas\":null,\"RestoreSummary\":null,\"SSEDescription\":null,\"StreamSpecification\":null,\"TableArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/Orders\",\"TableClassSummary\":null,…,\"TableName\":\"Orders\",\"TableSizeBytes\":458,\"TableStatus\":\"ACTIVE\",\"VectorIndexes\":null,\"WarmThroughput\":{\"ReadUnitsPerSecond\":5,\"Status\":\"ACTIVE\",\"WriteUnitsPerSecond\":5}},\"time_to_live\":{\"AttributeName\":null,\"TimeToLiveStatus\":\"DISABLED\"}}",
	"false {\"count\":1,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"},\"total\":{\"N\":\"12.5\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"}},\"scanned_count\":1}",
	"false {\"count\":1,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"},\"total\":{\"N\":\"12.5\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"}},\"scanned_count\":1}",
	"false {\"count\":0,\"items\":[]}",
	"false {\"count\":1,\"items\":[{\"sk\":{\"N\":\"2\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"}},\"scanned_count\":1}",
	"false {\"count\":1,\"items\":[{\"sk\":{\"N\":\"1\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"}},\"scanned_count\":1}",
	"false {\"count\":0,\"items\":[]}",
	"false {\"count\":1,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"},\"total\":{\"N\":\"12.5\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"}},\"scanned_count\":1}",
	"false {\"count\":1,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"},\"total\":{\"N\":\"12.5\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"}},\"scanned_count\":1}",
	"false {\"count\":1,\"items\":[{\"b\":{\"B\":\"AAEC/w==\"},\"big\":{\"N\":\"12345678901234567890.000000001\"},\"bs\":{\"BS\":[\"AQ==\",\"Ag==\"]},\"f\":{\"BOOL\":false},\"l\":{\"L\":[{\"S\":\"x\"},{\"L\":[]},{\"M\":{}},{\"NULL\":true}]},\"m\":{\"M\":{\"e\":{\"S\":\"\"},\"inner\":{\"M\":{\"deep\":{\"NS\":[\"7\"]}}}}},\"n\":{\"N\":\"-150\"},\"ns\":{\"NS\":[\"10\",\"1\",\"-3\"]},\"null\":{\"NULL\":true},\"pk\":{\"S\":\"every\"},\"s\":{\"S\":\"text ü \\\"q\\\" \\u003c\\u0026\\u003e\"},\"sk\":{\"N\":\"3\"},\"ss\":{\"SS\":[\"b\",\"a\"]},\"t\":{\"BOOL\":true}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"every\"},\"sk\":{\"N\":\"3\"}},\"scanned_count\":1}",
	"false {\"count\":0,\"items\":[]}",
	"false {\"count\":2,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"},\"total\":{\"N\":\"12.5\"}},{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"},\"total\":{\"N\":\"12.5\"}}],\"last_evaluated_key\":{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"}},\"scanned_count\":2}",
	"false {\"count\":0,\"items\":[],\"scanned_count\":1}",
	"false {\"count\":1,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"1\"},\"total\":{\"N\":\"12.5\"}}],\"next_token\":\"eyJoIjoiMTIzMzdjMmRiYjg3ODBiMzUyNmNkNTIxOWJjOGM4MTciLCJrIjp7InBrIjp7IlMiOiJhbGljZSJ9LCJzayI6eyJOIjoiMSJ9fX0\"}",
	"false {\"count\":1,\"items\":[{\"pk\":{\"S\":\"alice\"},\"sk\":{\"N\":\"2\"},\"total\":{\"N\":\"12.5\"}}],\"next_token\":\"eyJoIjoiMTIzMzdjMmRiYjg3ODBiMzUyNmNkNTIxOWJjOGM4MTciLCJrIjp7InBrIjp7IlMiOiJhbGljZSJ9LCJzayI6eyJOIjoiMiJ9fX0\"}",
	"false {\"count\":0,\"items\":[]}",
}

// TestListTablesPages: list_tables follows LastEvaluatedTableName over
// ListTables' pages of 100.
func TestListTablesPages(t *testing.T) {
	cs, es := start(t, mcpserver.Options{})
	want := []string{"Orders"}
	for i := range 120 {
		name := fmt.Sprintf("T%03d", i)
		if _, err := es.DynamoDB().CreateTable(t.Context(), &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		}); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	slices.Sort(want)
	var out struct{ Tables []string }
	mustCall(t, cs, "list_tables", nil, &out)
	if !slices.Equal(out.Tables, want) {
		t.Errorf("list_tables: %d tables %v, want %d", len(out.Tables), out.Tables, len(want))
	}
}
