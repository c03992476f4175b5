package wire

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestInsightsAdmin(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	call := func(op, body string) response {
		return do(h, http.MethodPost, "DynamoDB_20120810."+op, contentTypeJSON10, body)
	}
	if r := call("CreateTable", `{"TableName":"Hot","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}`); r.status != 200 {
		t.Fatal(r.body)
	}
	get := func(path string) (int, insightsAdminAnswer, string) {
		t.Helper()
		res := doPath(h, http.MethodGet, path)
		var ans insightsAdminAnswer
		if err := json.Unmarshal([]byte(res.body), &ans); err != nil {
			t.Fatalf("%s: %d %q", path, res.status, res.body)
		}
		return res.status, ans, res.body
	}
	// Off: a report with no lists.
	if code, ans, body := get(InsightsAdminPath + "?table=Hot"); code != 200 || ans.Status != "DISABLED" || ans.Account != "000000000000" ||
		ans.Region != "us-east-1" || strings.Contains(body, "accessedPartitionKeys") {
		t.Fatalf("off: %d %s", code, body)
	}
	if r := call("UpdateContributorInsights", `{"TableName":"Hot","ContributorInsightsAction":"ENABLE"}`); r.status != 200 {
		t.Fatal(r.body)
	}
	for _, pk := range []string{"a", "b", "a", "c", "a"} {
		if r := call("PutItem", `{"TableName":"Hot","Item":{"pk":{"S":"`+pk+`"},"sk":{"S":"x"}}}`); r.status != 200 {
			t.Fatal(r.body)
		}
	}
	code, ans, body := get(InsightsAdminPath + "?table=Hot&top=2&minutes=5")
	if code != 200 || ans.Status != "ENABLED" || ans.WindowSeconds != 300 || len(ans.AccessedPartitionKeys) != 2 || len(ans.AccessedItems) != 2 {
		t.Fatalf("on: %d %s", code, body)
	}
	// Keys come in DynamoDB JSON, heaviest first, with their units.
	if !strings.Contains(body, `"accessedPartitionKeys":[{"key":{"pk":{"S":"a"}},"count":3}`) ||
		!strings.Contains(body, `"accessedItems":[{"key":{"pk":{"S":"a"},"sk":{"S":"x"}},"count":3}`) {
		t.Fatalf("lists: %s", body)
	}

	// Another Region's table of the same name is answered there.
	auth := "AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x"
	if r := do(h, http.MethodPost, "DynamoDB_20120810.CreateTable", contentTypeJSON10, `{"TableName":"Hot","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`, "Authorization", auth); r.status != 200 {
		t.Fatal(r.body)
	}
	if code, ans, body := get(InsightsAdminPath + "?table=Hot&region=eu-west-1"); code != 200 || ans.Region != "eu-west-1" || ans.Status != "DISABLED" {
		t.Fatalf("eu-west-1: %d %s", code, body)
	}

	for _, c := range []struct {
		path string
		code int
		msg  string
	}{
		{InsightsAdminPath + "?table=Hot&index=Nope", 404, "Index: Nope not found for table: Hot"},
		{InsightsAdminPath + "?table=Nope", 404, "Table: Nope not found in account 000000000000, Region us-east-1"},
		{InsightsAdminPath + "?table=Hot&region=eu-central-1", 404, "Region eu-central-1"},
		{InsightsAdminPath + "?table=Hot&account=111122223333", 404, "account 111122223333"},
		{InsightsAdminPath, 400, "the table query parameter is required"},
		{InsightsAdminPath + "?table=Hot&top=x", 400, "top must be"},
		{InsightsAdminPath + "?table=Hot&minutes=0", 400, "minutes must be"},
	} {
		code, ans, _ := get(c.path)
		if code != c.code || !strings.Contains(ans.Error, c.msg) {
			t.Errorf("%s: %d %q; want %d %q", c.path, code, ans.Error, c.code, c.msg)
		}
	}
}
