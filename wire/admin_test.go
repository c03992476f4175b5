package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestThrottleAdmin(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	call := func(op, body string) response {
		return do(h, http.MethodPost, "DynamoDB_20120810."+op, contentTypeJSON10, body)
	}
	if r := call("CreateTable", `{"TableName":"Steered","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`); r.status != 200 {
		t.Fatal(r.body)
	}
	admin := func(method, path string) (int, throttleAdminAnswer) {
		t.Helper()
		res := doPath(h, method, path)
		var ans throttleAdminAnswer
		if err := json.Unmarshal([]byte(res.body), &ans); err != nil {
			t.Fatalf("%s %s: %d %q", method, path, res.status, res.body)
		}
		return res.status, ans
	}
	put := func() response { return call("PutItem", `{"TableName":"Steered","Item":{"pk":{"S":"a"}}}`) }

	code, ans := admin(http.MethodGet, ThrottleAdminPath+"?table=Steered")
	if code != 200 || ans.Account != "000000000000" || ans.Region != "us-east-1" || ans.Buckets == nil ||
		ans.Buckets.Write.Rate != 5 || ans.Buckets.Write.Balance < 5 || ans.Buckets.Write.Pinned {
		t.Fatalf("state: %d %+v", code, ans)
	}
	// Drained, the next write is refused as DynamoDB would refuse it.
	if code, ans = admin(http.MethodPost, ThrottleAdminPath+"/drain?table=Steered&direction=write"); code != 200 || ans.Buckets.Write.Debt < 4.9 || ans.Buckets.Read.Debt != 0 {
		t.Fatalf("drain: %d %+v", code, ans)
	}
	if r := put(); r.status != 400 || !strings.Contains(r.body, "ProvisionedThroughputExceededException") {
		t.Fatalf("write after drain: %d %s", r.status, r.body)
	}
	if r := call("GetItem", `{"TableName":"Steered","Key":{"pk":{"S":"a"}}}`); r.status != 200 {
		t.Errorf("read after draining writes: %d %s", r.status, r.body)
	}
	if code, ans = admin(http.MethodPost, ThrottleAdminPath+"/reset?table=Steered"); code != 200 || ans.Buckets.Write.Balance < 5 || ans.Buckets.Write.Debt != 0 {
		t.Fatalf("reset: %d %+v", code, ans)
	}
	if r := put(); r.status != 200 {
		t.Fatalf("write after reset: %d %s", r.status, r.body)
	}
	// Pinned, the table runs at the pinned rate until unpinned.
	if code, ans = admin(http.MethodPost, ThrottleAdminPath+"/pin?table=Steered&rate=1000"); code != 200 ||
		ans.Buckets.Write.Rate != 1000 || !ans.Buckets.Write.Pinned || ans.Buckets.Read.Rate != 1000 {
		t.Fatalf("pin: %d %+v", code, ans)
	}
	if code, ans = admin(http.MethodPost, ThrottleAdminPath+"/unpin?table=Steered&direction=read"); code != 200 ||
		ans.Buckets.Read.Rate != 5 || ans.Buckets.Read.Pinned || ans.Buckets.Write.Rate != 1000 {
		t.Fatalf("unpin read: %d %+v", code, ans)
	}

	// index=I steers a GSI's buckets: drained, a write the index holds is
	// refused for the index (back-pressure) and one it does not hold is not.
	if r := call("CreateTable", `{"TableName":"SteeredIdx","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5},
		"GlobalSecondaryIndexes":[{"IndexName":"ByG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"},
		"ProvisionedThroughput":{"ReadCapacityUnits":3,"WriteCapacityUnits":3}}]}`); r.status != 200 {
		t.Fatal(r.body)
	}
	if code, ans = admin(http.MethodGet, ThrottleAdminPath+"?table=SteeredIdx&index=ByG"); code != 200 || ans.Index != "ByG" || ans.Buckets.Write.Rate != 3 {
		t.Fatalf("index state: %d %+v", code, ans)
	}
	if code, ans = admin(http.MethodPost, ThrottleAdminPath+"/drain?table=SteeredIdx&index=ByG&direction=write"); code != 200 || ans.Buckets.Write.Debt < 2.9 || ans.Buckets.Read.Debt != 0 {
		t.Fatalf("index drain: %d %+v", code, ans)
	}
	if r := call("PutItem", `{"TableName":"SteeredIdx","Item":{"pk":{"S":"a"},"g":{"S":"x"}}}`); r.status != 400 ||
		!strings.Contains(r.body, `"reason":"IndexWriteProvisionedThroughputExceeded","resource":"arn:aws:dynamodb:us-east-1:000000000000:table/SteeredIdx/index/ByG"`) {
		t.Fatalf("indexed write after draining the index: %d %s", r.status, r.body)
	}
	if r := call("PutItem", `{"TableName":"SteeredIdx","Item":{"pk":{"S":"b"}}}`); r.status != 200 {
		t.Fatalf("unindexed write after draining the index: %d %s", r.status, r.body)
	}
	if code, ans = admin(http.MethodGet, ThrottleAdminPath+"?table=SteeredIdx"); code != 200 || ans.Buckets.Write.Debt != 0 {
		t.Fatalf("the table's buckets after draining its index: %d %+v", code, ans)
	}

	for _, c := range []struct {
		method, path string
		code         int
		msg          string
	}{
		{http.MethodGet, ThrottleAdminPath + "?table=Steered&index=Nope", 404, "Index: Nope is not a global secondary index of table Steered"},
		{http.MethodGet, ThrottleAdminPath + "?table=Nope", 404, "Table: Nope not found in account 000000000000, Region us-east-1"},
		{http.MethodGet, ThrottleAdminPath + "?table=Steered&region=eu-west-1", 404, "Region eu-west-1"},
		{http.MethodGet, ThrottleAdminPath + "?table=Steered&account=111122223333", 404, "account 111122223333"},
		{http.MethodGet, ThrottleAdminPath, 400, "the table query parameter is required"},
		{http.MethodPost, ThrottleAdminPath + "/pin?table=Steered", 400, "pin needs rate"},
		{http.MethodPost, ThrottleAdminPath + "/pin?table=Steered&rate=-1", 400, "positive"},
		{http.MethodPost, ThrottleAdminPath + "/drain?table=Steered&direction=up", 400, "direction must be"},
	} {
		code, ans := admin(c.method, c.path)
		if code != c.code || !strings.Contains(ans.Error, c.msg) {
			t.Errorf("%s %s: %d %q; want %d %q", c.method, c.path, code, ans.Error, c.code, c.msg)
		}
	}
}

func doPath(h http.Handler, method, path string) response {
	r := httptest.NewRequest(method, "http://localhost:8000"+path, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return response{w.Code, w.Header(), w.Body.String()}
}
