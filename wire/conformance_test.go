package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Behaviours the public suites written against DynamoDB (issue 11) pin at
// the wire: exact validation texts, HTTP-level refusals, empty bodies.

type rawResponse struct {
	status int
	header http.Header
	body   string
}

// post sends one raw JSON 1.0 request: the SDK refuses some of these
// inputs before sending them.
func post(t *testing.T, s *testserver.Server, target, body string, hdr ...string) rawResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{resp.StatusCode, resp.Header, string(b)}
}

func errorOf(t *testing.T, r rawResponse) (code, msg string) {
	t.Helper()
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Msg     string `json:"Message"`
	}
	if err := json.Unmarshal([]byte(r.body), &e); err != nil {
		t.Fatalf("status %d, body %q: %v", r.status, r.body, err)
	}
	_, code, _ = strings.Cut(e.Type, "#")
	return code, e.Message + e.Msg
}

func newServerWithTable(t *testing.T) *testserver.Server {
	t.Helper()
	s := testserver.New(t)
	_, err := s.Client.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String("conf"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformanceValidationTexts(t *testing.T) {
	s := newServerWithTable(t)
	long := strings.Repeat("a", 256)
	const ge1 = "Member must have length greater than or equal to 1"
	var puts []string
	for i := range 26 {
		puts = append(puts, `{"PutRequest":{"Item":{"pk":{"S":"bw-`+string(rune('a'+i%26))+`"}}}}`)
	}
	var keys []string
	for range 101 {
		keys = append(keys, `{"pk":{"S":"k"}}`)
	}
	avFields := func(set string) string {
		all := []string{"s", "n", "b", "iNT", "dECIMAL", "dOUBLE", "sS", "nS", "bS", "iNTSET", "dECIMALSET", "dOUBLESET", "m", "l", "nULL", "bOOL"}
		var parts []string
		for _, f := range all {
			v := "null"
			if k, val, _ := strings.Cut(set, "="); k == f {
				v = val
			}
			parts = append(parts, f+"="+v)
		}
		return "AttributeValue(" + strings.Join(parts, ", ") + ")"
	}
	var echoed []string
	for i := range 26 {
		echoed = append(echoed, "WriteRequest(putRequest=PutRequest(item={pk="+avFields("s=bw-"+string(rune('a'+i%26)))+"}, workloadProfileName=null), deleteRequest=null)")
	}
	mapValue := "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"
	cases := []struct {
		name, op, body, msg string
	}{
		{"BatchGetItem no RequestItems", "BatchGetItem", `{"ReturnConsumedCapacity":"hi"}`, "The requestItems parameter is required for BatchGetItem"},
		{"BatchGetItem empty RequestItems", "BatchGetItem", `{"RequestItems":{}}`, "The requestItems parameter is required for BatchGetItem"},
		{"BatchWriteItem no RequestItems", "BatchWriteItem", `{"ReturnItemCollectionMetrics":"hi"}`, "The requestItems parameter is required for BatchWriteItem"},
		{"BatchWriteItem empty RequestItems", "BatchWriteItem", `{"RequestItems":{}}`, "The requestItems parameter is required for BatchWriteItem"},
		{"CreateTable no TableName", "CreateTable", `{}`, "The parameter 'TableName' is required but was not present in the request"},
		{"DescribeTable no TableName", "DescribeTable", `{}`, "The parameter 'TableName' is required but was not present in the request"},
		{"DeleteTable no TableName", "DeleteTable", `{}`, "The parameter 'TableName' is required but was not present in the request"},
		{"UpdateTable no TableName", "UpdateTable", `{"BillingMode":"X"}`, "The parameter 'TableName' is required but was not present in the request"},
		{"PutItem empty TableName", "PutItem", `{"TableName":"","Item":{"pk":{"S":"a"}}}`, "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: " + ge1},
		{"GetItem empty TableName", "GetItem", `{"TableName":"","Key":{"pk":{"S":"a"}}}`, "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: " + ge1},
		{"Query empty TableName", "Query", `{"TableName":""}`, "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: " + ge1},
		{"PutItem long TableName", "PutItem", `{"TableName":"` + long + `","Item":{"pk":{"S":"a"}}}`, "1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"DeleteItem long TableName", "DeleteItem", `{"TableName":"` + long + `","Key":{"pk":{"S":"a"}}}`, "1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"Scan long TableName", "Scan", `{"TableName":"` + long + `"}`, "1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"Scan Limit 0", "Scan", `{"TableName":"conf","Limit":0}`, "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"Query Limit -1", "Query", `{"TableName":"conf","Limit":-1}`, "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"Scan Select", "Scan", `{"TableName":"conf","Select":"X"}`, "1 validation error detected: Value 'X' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"},
		{"Scan Segment alone", "Scan", `{"TableName":"conf","Segment":0}`, "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{"BatchGetItem 101 keys", "BatchGetItem", `{"RequestItems":{"conf":{"Keys":[` + strings.Join(keys, ",") + `]}}}`, "1 validation error detected: Value at 'RequestItems.conf.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"},
		{"BatchGetItem no keys", "BatchGetItem", `{"RequestItems":{"conf":{"Keys":[]}}}`, "1 validation error detected: Value at 'RequestItems.conf.member.Keys' failed to satisfy constraint: " + ge1},
		{"BatchWriteItem 26 requests", "BatchWriteItem", `{"RequestItems":{"conf":[` + strings.Join(puts, ",") + `]}}`, "1 validation error detected: Value '{conf=[" + strings.Join(echoed, ", ") + "]}' at 'requestItems' failed to satisfy constraint: " + mapValue},
		{"BatchWriteItem no requests", "BatchWriteItem", `{"RequestItems":{"conf":[]}}`, "1 validation error detected: Value '{conf=[]}' at 'requestItems' failed to satisfy constraint: " + mapValue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := post(t, s, "DynamoDB_20120810."+c.op, c.body)
			code, msg := errorOf(t, r)
			if r.status != http.StatusBadRequest || code != "ValidationException" || msg != c.msg {
				t.Errorf("got %d %s: %s\nwant 400 ValidationException: %s", r.status, code, msg, c.msg)
			}
		})
	}
}

// TestConformanceValidationTextsSDK: the same texts reach an SDK caller.
func TestConformanceValidationTextsSDK(t *testing.T) {
	s := newServerWithTable(t)
	_, err := s.Client.Query(t.Context(), &dynamodb.QueryInput{
		TableName:              aws.String("conf"),
		KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: "a"},
		},
		Limit: aws.Int32(0),
	})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	_, err = s.Client.PutItem(t.Context(), &dynamodb.PutItemInput{
		TableName: aws.String(""),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
	})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1")
}

func wantAPIError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Errorf("got %v\nwant %s: %s", err, code, msg)
	}
}

func TestConformanceServerHeader(t *testing.T) {
	s := testserver.New(t)
	for _, r := range []rawResponse{
		post(t, s, "DynamoDB_20120810.ListTables", `{}`),
		post(t, s, "DynamoDB_20120810.DescribeTable", `{"TableName":"nope"}`),
	} {
		if got := r.header.Get("Server"); got != "Server" {
			t.Errorf("Server header %q, want %q", got, "Server")
		}
	}
}

func TestConformanceOversizedRequests(t *testing.T) {
	s := testserver.New(t)
	if r := post(t, s, "DynamoDB_20120810.ListTables", `{}`, "X-Padding", strings.Repeat("p", 15<<10)); r.status != http.StatusOK {
		t.Errorf("headers under 16 KB: status %d, want 200", r.status)
	}
	if r := post(t, s, "DynamoDB_20120810.ListTables", `{}`, "X-Padding", strings.Repeat("p", 17<<10)); r.status != http.StatusBadRequest || r.body != "" {
		t.Errorf("headers over 16 KB: status %d body %q, want 400 and no body", r.status, r.body)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/"+strings.Repeat("x", 17000), strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("URL over 16 KB: status %d, want 400", resp.StatusCode)
	}
}

func TestConformanceTagResourceEmptyBody(t *testing.T) {
	s := newServerWithTable(t)
	d, err := s.Client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("conf")})
	if err != nil {
		t.Fatal(err)
	}
	arn := *d.Table.TableArn
	for _, c := range []struct{ op, body string }{
		{"TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"k","Value":"v"}]}`},
		{"UntagResource", `{"ResourceArn":"` + arn + `","TagKeys":["k"]}`},
	} {
		r := post(t, s, "DynamoDB_20120810."+c.op, c.body)
		if r.status != http.StatusOK || r.body != "" {
			t.Errorf("%s: status %d body %q, want 200 and an empty body", c.op, r.status, r.body)
		}
	}
	// The SDK takes the empty body as success.
	if _, err := s.Client.TagResource(t.Context(), &dynamodb.TagResourceInput{ResourceArn: &arn, Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.UntagResource(t.Context(), &dynamodb.UntagResourceInput{ResourceArn: &arn, TagKeys: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
}

func TestConformanceNullBodyRefused(t *testing.T) {
	s := testserver.New(t)
	for _, body := range []string{"null", " null\n"} {
		r := post(t, s, "DynamoDB_20120810.ListTables", body)
		if code, _ := errorOf(t, r); r.status != http.StatusBadRequest || code != "SerializationException" {
			t.Errorf("body %q: status %d %s, want 400 SerializationException", body, r.status, code)
		}
	}
}
