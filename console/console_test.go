package console_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/console"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
)

// env is a server with the console mounted as cmd mounts it.
type env struct {
	t   *testing.T
	s   *testserver.Server
	rec *console.Recorder
	ns  string
	// h is the console's handler, for requests from made-up addresses.
	h http.Handler
}

func newEnv(t *testing.T, opts ...testserver.Option) *env {
	t.Helper()
	return newEnvWith(t, nil, opts...)
}

// newEnvWith is newEnv with fn adjusting the console's options.
func newEnvWith(t *testing.T, fn func(*console.Options), opts ...testserver.Option) *env {
	t.Helper()
	rec := console.NewRecorder(console.RecorderOptions{})
	var handler http.Handler
	opts = append(opts,
		testserver.WithEngineOptions(func(o *emulator.Options) { o.Observer = rec }),
		testserver.WithWiring(func(eng *emulator.Engine, _ *pebblestore.Store, o *wire.Options) {
			co := console.Options{Engine: eng, Recorder: rec, PageSize: 10,
				Provisioned: []console.Provisioned{{Namespace: api.Namespace{Account: "000000000000", Region: "us-east-1"},
					Table: "Orders", Position: "main.tf:3:1", Resource: "aws_dynamodb_table.orders"}}}
			if fn != nil {
				fn(&co)
			}
			h, err := console.New(co)
			if err != nil {
				t.Fatal(err)
			}
			handler = h
			o.Mounts = append(o.Mounts, wire.Mount{Prefix: console.Prefix, Handler: h})
		}))
	s := testserver.New(t, opts...)
	e := &env{t: t, s: s, rec: rec, h: handler}
	out, err := s.Client.CreateTable(s.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		BillingMode:         types.BillingModePayPerRequest,
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The namespace the SDK client's requests land in.
	arn := *out.TableDescription.TableArn
	parts := strings.Split(arn, ":")
	e.ns = parts[4] + "/" + parts[3]
	return e
}

func (e *env) put(pk string, sk int, extra string) {
	e.t.Helper()
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: fmt.Sprint(sk)},
	}
	if extra != "" {
		item["note"] = &types.AttributeValueMemberS{Value: extra}
	}
	if _, err := e.s.Client.PutItem(e.s.Context(), &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) note(pk string, sk int) (string, bool) {
	e.t.Helper()
	out, err := e.s.Client.GetItem(e.s.Context(), &dynamodb.GetItemInput{TableName: aws.String("Orders"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: fmt.Sprint(sk)}}})
	if err != nil {
		e.t.Fatal(err)
	}
	if out.Item == nil {
		return "", false
	}
	n, _ := out.Item["note"].(*types.AttributeValueMemberS)
	if n == nil {
		return "", true
	}
	return n.Value, true
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get fetches a console page (path with query) and returns status and body.
func (e *env) get(path string, q url.Values) (int, string) {
	e.t.Helper()
	if q != nil && !q.Has("ns") {
		q.Set("ns", e.ns)
	}
	u := e.s.URL + console.Prefix + path
	if q != nil {
		u += "?" + q.Encode()
	}
	resp, err := noRedirect.Get(u)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post submits the item form.
func (e *env) post(form url.Values) (int, string, string) {
	e.t.Helper()
	if !form.Has("ns") {
		form.Set("ns", e.ns)
	}
	resp, err := noRedirect.PostForm(e.s.URL+console.Prefix+"/item", form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Location")
}

func mustContain(t *testing.T, what, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("%s: no %q in\n%s", what, s, body)
		}
	}
}

const key2 = `{"pk":{"S":"c1"},"sk":{"N":"2"}}`

func TestPagesRender(t *testing.T) {
	e := newEnv(t)
	e.createTiny()
	e.put("c1", 1, "first")
	e.put("c1", 2, "second")
	cases := []struct {
		path string
		q    url.Values
		want []string
	}{
		{"/", url.Values{}, []string{"Orders", "PAY_PER_REQUEST", `<td class="num">2</td>`}},
		{"/table", url.Values{"t": {"Orders"}}, []string{"Partition key", "<code>pk</code> (S)", "Sort key", "NEW_AND_OLD_IMAGES", "DISABLED",
			`<dd id="read-bucket">on demand: 40,000 RCU/s ceiling, 12,000,000 burst; `, `<dd id="write-bucket">on demand: 40,000 WCU/s ceiling, 12,000,000 burst; `}},
		{"/table", url.Values{"t": {"Tiny"}}, []string{`<dd id="write-bucket">1 WCU/s, 300 burst; `}},
		{"/static/query.js", nil, []string{"pkname"}},
		{"/items", url.Values{"t": {"Orders"}}, []string{"2 items on this page", "first", "second"}},
		{"/item", url.Values{"t": {"Orders"}, "key": {key2}}, []string{`id="dynamojson"`, "&#34;S&#34;: &#34;second&#34;", `&#34;sk&#34;: 2`}},
		{"/query", url.Values{"t": {"Orders"}, "pk": {"c1"}, "op": {">"}, "sk": {"1"}}, []string{"1 items on this page", "second"}},
		{"/query", url.Values{"t": {"Orders"}, "pk": {"c1"}, "filter": {"note = :n"}, "values": {`{":n":{"S":"first"}}`}}, []string{"1 items on this page (2 scanned)", "first"}},
		{"/stream", url.Values{"t": {"Orders"}}, []string{"INSERT", "second"}},
		{"/throttle", url.Values{"t": {"Orders"}}, []string{`id="chart-write"`, "timeline.js"}},
		{"/iac", url.Values{}, []string{"aws_dynamodb_table.orders", "main.tf:3:1"}},
		{"/new", url.Values{"t": {"Orders"}}, []string{`value="create"`}},
		{"/static/timeline.js", nil, []string{"createElementNS"}},
	}
	for _, c := range cases {
		status, body := e.get(c.path, c.q)
		if status != http.StatusOK {
			t.Errorf("%s %v: status %d\n%s", c.path, c.q, status, body)
			continue
		}
		mustContain(t, c.path, body, c.want...)
	}
}

// TestScanPages: Scan shows one page at a time and links the next from
// LastEvaluatedKey; the last page has no link.
func TestScanPages(t *testing.T) {
	e := newEnv(t)
	for i := range 15 {
		e.put("p", i, "")
	}
	_, body := e.get("/items", url.Values{"t": {"Orders"}})
	mustContain(t, "page 1", body, "10 items on this page", `id="next"`)
	i := strings.Index(body, `id="next" href="/console/items?`)
	if i < 0 {
		t.Fatalf("no next link in\n%s", body)
	}
	next := body[i+len(`id="next" href="/console/items?`):]
	next = strings.ReplaceAll(next[:strings.Index(next, `"`)], "&amp;", "&")
	q, err := url.ParseQuery(next)
	if err != nil {
		t.Fatal(err)
	}
	_, body = e.get("/items", q)
	mustContain(t, "page 2", body, "5 items on this page")
	if strings.Contains(body, `id="next"`) {
		t.Error("last page links a next page")
	}
}

// TestBadInput: every action's bad input gets a clear message on the page,
// a 4xx status, and writes nothing.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	e.put("c1", 2, "orig")
	seen := `{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"S":"orig"}}`
	gets := []struct {
		name   string
		path   string
		q      url.Values
		status int
		want   string
	}{
		{"wrong table", "/table", url.Values{"t": {"Nope"}}, 404, "ResourceNotFoundException"},
		{"wrong table items", "/items", url.Values{"t": {"Nope"}}, 404, "ResourceNotFoundException"},
		{"bad namespace", "/", url.Values{"ns": {"nonsense"}}, 400, "want ACCOUNT/REGION"},
		{"bad page start", "/items", url.Values{"t": {"Orders"}, "start": {"{not json"}}, 400, "malformed item JSON"},
		{"bad filter", "/query", url.Values{"t": {"Orders"}, "pk": {"c1"}, "filter": {"note = "}}, 400, "ValidationException"},
		{"bad filter values", "/query", url.Values{"t": {"Orders"}, "pk": {"c1"}, "filter": {"note = :n"}, "values": {"[1]"}}, 400, "filter values"},
		{"bad sort op", "/query", url.Values{"t": {"Orders"}, "pk": {"c1"}, "op": {"~"}, "sk": {"1"}}, 400, "unknown sort key condition"},
		{"sort key not a number", "/query", url.Values{"t": {"Orders"}, "pk": {"c1"}, "op": {"="}, "sk": {"abc"}}, 400, "ValidationException"},
		{"wrong index", "/query", url.Values{"t": {"Orders"}, "index": {"nope"}, "pk": {"c1"}}, 400, "no index nope"},
		{"malformed key", "/item", url.Values{"t": {"Orders"}, "key": {`{"pk":`}}, 400, "malformed item JSON"},
		{"key of the wrong type", "/item", url.Values{"t": {"Orders"}, "key": {`{"pk":{"N":"1"},"sk":{"N":"2"}}`}}, 400, "ValidationException"},
		{"timeline of a missing table", "/api/timeline", url.Values{"t": {"Nope"}}, 404, "ResourceNotFoundException"},
	}
	for _, c := range gets {
		status, body := e.get(c.path, c.q)
		if status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, status, c.status)
		}
		mustContain(t, c.name, body, c.want)
	}
	posts := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"create in a wrong table", url.Values{"t": {"Nope"}, "action": {"create"}, "item": {`{"pk":{"S":"x"},"sk":{"N":"1"}}`}}, 404, "ResourceNotFoundException"},
		{"create malformed JSON", url.Values{"t": {"Orders"}, "action": {"create"}, "item": {`{"pk":{"S":"x"`}}, 400, "malformed item JSON"},
		{"create without the sort key", url.Values{"t": {"Orders"}, "action": {"create"}, "item": {`{"pk":{"S":"x"}}`}}, 400, "ValidationException"},
		{"create over an existing item", url.Values{"t": {"Orders"}, "action": {"create"}, "item": {`{"pk":{"S":"c1"},"sk":{"N":"2"}}`}}, 400, "already exists"},
		{"save malformed JSON", url.Values{"t": {"Orders"}, "action": {"save"}, "seen": {seen}, "item": {`nope`}}, 400, "malformed item JSON"},
		{"save without a version", url.Values{"t": {"Orders"}, "action": {"save"}, "item": {seen}}, 400, "version you saw"},
		{"save changing the key", url.Values{"t": {"Orders"}, "action": {"save"}, "seen": {seen}, "item": {`{"pk":{"S":"c1"},"sk":{"N":"3"}}`}}, 400, "key cannot be changed"},
		{"save a stale version", url.Values{"t": {"Orders"}, "action": {"save"}, "seen": {`{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"S":"older"}}`},
			"item": {`{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"S":"mine"}}`}}, 409, "changed (or deleted) since you opened it"},
		{"delete a stale version", url.Values{"t": {"Orders"}, "action": {"delete"}, "seen": {`{"pk":{"S":"c1"},"sk":{"N":"2"}}`}}, 409, "changed (or deleted) since you opened it"},
		{"save an invalid value", url.Values{"t": {"Orders"}, "action": {"save"}, "seen": {seen}, "item": {`{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"N":"x"}}`}}, 400, "ValidationException"},
		{"unknown action", url.Values{"t": {"Orders"}, "action": {"explode"}}, 400, "unknown action"},
	}
	for _, c := range posts {
		status, body, _ := e.post(c.form)
		if status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, status, c.status)
		}
		mustContain(t, c.name, body, c.want, `role="alert"`)
	}
	// Nothing was written: the one item is as it was, and no other exists.
	if n, ok := e.note("c1", 2); !ok || n != "orig" {
		t.Errorf("item after bad input: note %q exists %v, want orig", n, ok)
	}
	out, err := e.s.Client.Scan(e.s.Context(), &dynamodb.ScanInput{TableName: aws.String("Orders")})
	if err != nil || out.Count != 1 {
		t.Errorf("scan after bad input: %d items, %v", out.Count, err)
	}
}

// TestEditConditional: create, edit and delete succeed on the version
// seen; a change made by someone else in between is reported and kept.
func TestEditConditional(t *testing.T) {
	e := newEnv(t)
	status, _, loc := e.post(url.Values{"t": {"Orders"}, "action": {"create"}, "item": {`{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"S":"v1"}}`}})
	if status != http.StatusSeeOther || !strings.Contains(loc, "/console/item?") {
		t.Fatalf("create: %d %q", status, loc)
	}
	if n, _ := e.note("c1", 2); n != "v1" {
		t.Fatalf("after create: note %q", n)
	}
	// The page shows v1; the form carries it as the version seen.
	_, page := e.get("/item", url.Values{"t": {"Orders"}, "key": {key2}})
	mustContain(t, "item page", page, `name="seen" value="{&#34;note&#34;:{&#34;S&#34;:&#34;v1&#34;}`)
	seenV1 := `{"note":{"S":"v1"},"pk":{"S":"c1"},"sk":{"N":"2"}}`
	status, _, _ = e.post(url.Values{"t": {"Orders"}, "action": {"save"}, "seen": {seenV1}, "item": {`{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"S":"v2"}}`}})
	if status != http.StatusSeeOther {
		t.Fatalf("save on the version seen: %d", status)
	}
	if n, _ := e.note("c1", 2); n != "v2" {
		t.Fatalf("after save: note %q", n)
	}
	// Someone else writes v3 while the page still shows v2.
	seenV2 := `{"note":{"S":"v2"},"pk":{"S":"c1"},"sk":{"N":"2"}}`
	e.put("c1", 2, "v3")
	status, body, _ := e.post(url.Values{"t": {"Orders"}, "action": {"save"}, "seen": {seenV2}, "item": {`{"pk":{"S":"c1"},"sk":{"N":"2"},"note":{"S":"mine"}}`}})
	if status != http.StatusConflict {
		t.Errorf("stale save: %d\n%s", status, body)
	}
	status, _, _ = e.post(url.Values{"t": {"Orders"}, "action": {"delete"}, "seen": {seenV2}})
	if status != http.StatusConflict {
		t.Errorf("stale delete: %d", status)
	}
	if n, ok := e.note("c1", 2); !ok || n != "v3" {
		t.Fatalf("the concurrent change was overwritten: note %q exists %v", n, ok)
	}
	// An attribute added by someone else also makes the version stale.
	seenV3 := `{"note":{"S":"v3"},"pk":{"S":"c1"},"sk":{"N":"2"}}`
	if _, err := e.s.Client.UpdateItem(e.s.Context(), &dynamodb.UpdateItemInput{TableName: aws.String("Orders"),
		Key:              map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "c1"}, "sk": &types.AttributeValueMemberN{Value: "2"}},
		UpdateExpression: aws.String("SET extra = :x"), ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberS{Value: "y"}}}); err != nil {
		t.Fatal(err)
	}
	if status, _, _ = e.post(url.Values{"t": {"Orders"}, "action": {"delete"}, "seen": {seenV3}}); status != http.StatusConflict {
		t.Errorf("delete over an added attribute: %d", status)
	}
	seenNow := `{"note":{"S":"v3"},"extra":{"S":"y"},"pk":{"S":"c1"},"sk":{"N":"2"}}`
	status, _, loc = e.post(url.Values{"t": {"Orders"}, "action": {"delete"}, "seen": {seenNow}})
	if status != http.StatusSeeOther || !strings.Contains(loc, "/console/items?") {
		t.Fatalf("delete on the version seen: %d %q", status, loc)
	}
	if _, ok := e.note("c1", 2); ok {
		t.Error("item still there after delete")
	}
}

// TestCrossSitePost: a form posted from another site is refused.
func TestCrossSitePost(t *testing.T) {
	e := newEnv(t)
	req, _ := http.NewRequest(http.MethodPost, e.s.URL+"/console/item", strings.NewReader(url.Values{"ns": {e.ns}, "t": {"Orders"},
		"action": {"create"}, "item": {`{"pk":{"S":"evil"},"sk":{"N":"1"}}`}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site post: %d, want 403", resp.StatusCode)
	}
	if _, ok := e.note("evil", 1); ok {
		t.Error("cross-site post wrote an item")
	}
}

// createTiny creates table Tiny with 1 RCU and 1 WCU.
func (e *env) createTiny() {
	e.t.Helper()
	if _, err := e.s.Client.CreateTable(e.s.Context(), &dynamodb.CreateTableInput{
		TableName:             aws.String("Tiny"),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	}); err != nil {
		e.t.Fatal(err)
	}
}

// createShipments makes table Shipments (partition key id) with index
// ByCustomer (customer, shipped) and one item in it.
func (e *env) createShipments() {
	e.t.Helper()
	str := types.ScalarAttributeTypeS
	if _, err := e.s.Client.CreateTable(e.s.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String("Shipments"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: str},
			{AttributeName: aws.String("customer"), AttributeType: str}, {AttributeName: aws.String("shipped"), AttributeType: str}},
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode: types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("ByCustomer"),
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("customer"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("shipped"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.s.Client.PutItem(e.s.Context(), &dynamodb.PutItemInput{TableName: aws.String("Shipments"), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "s1"}, "customer": &types.AttributeValueMemberS{Value: "c9"},
		"shipped": &types.AttributeValueMemberS{Value: "2026-12-01"}}}); err != nil {
		e.t.Fatal(err)
	}
}

// overrunTiny writes key "hot" of Tiny every 50ms for d, or (d zero) until
// one write is throttled, and fails the test if none was.
func (e *env) overrunTiny(d time.Duration) {
	e.t.Helper()
	throttled := 0
	end := time.Now().Add(d)
	for i := 0; i < 400; i++ {
		if d == 0 && throttled > 0 || d > 0 && time.Now().After(end) {
			break
		}
		_, err := e.s.Client.PutItem(e.s.Context(), &dynamodb.PutItemInput{TableName: aws.String("Tiny"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "hot"}}})
		var pte *types.ProvisionedThroughputExceededException
		switch {
		case errors.As(err, &pte):
			throttled++
		case err != nil:
			e.t.Fatal(err)
		}
		if d > 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if throttled == 0 {
		e.t.Fatal("no write was throttled")
	}
}

// TestTimeline: writes past a 1-WCU table's capacity show on the timeline
// as consumed units, capacity, balance, a throttle event with its reason
// and the hot key.
func TestTimeline(t *testing.T) {
	e := newEnv(t)
	e.createTiny()
	e.overrunTiny(0)
	ns := strings.SplitN(e.ns, "/", 2)
	tl := e.rec.Timeline(api.Namespace{Account: ns[0], Region: ns[1]}, "Tiny", 5)
	var write float64
	var reasons []string
	var capSeen bool
	for _, p := range tl.Points {
		write += p.Write
		for r := range p.Throttles {
			reasons = append(reasons, r)
		}
		if p.WriteCapacity != nil && *p.WriteCapacity == 1 {
			capSeen = true
		}
	}
	if write < 1 || !capSeen {
		t.Errorf("timeline points %+v: want write units and a capacity of 1", tl.Points)
	}
	if len(reasons) == 0 || reasons[0] != "TableWriteProvisionedThroughputExceeded" {
		t.Errorf("throttle reasons %v", reasons)
	}
	if len(tl.Events) == 0 || tl.Events[0].Key != "hot" || tl.Events[0].Code != "ProvisionedThroughputExceededException" {
		t.Errorf("events %+v", tl.Events)
	}
	if len(tl.Hot) == 0 || tl.Hot[0].Key != "hot" || tl.Hot[0].Throttled == 0 {
		t.Errorf("hot keys %+v", tl.Hot)
	}
	status, body := e.get("/api/timeline", url.Values{"t": {"Tiny"}, "seconds": {"5"}})
	if status != http.StatusOK {
		t.Fatalf("timeline JSON: %d %s", status, body)
	}
	mustContain(t, "timeline JSON", body, `"reason":"TableWriteProvisionedThroughputExceeded"`, `"writeCap":1`, `"key":"hot"`)
}

// TestRecorderNoAllocation: recording a charge on a known table and key
// allocates nothing (the console is on by default).
func TestRecorderNoAllocation(t *testing.T) {
	rec := console.NewRecorder(console.RecorderOptions{Now: func() time.Time { return time.Unix(1000, 0) }})
	c := emulator.Consumption{Namespace: api.Namespace{Account: "1", Region: "r"}, Table: "t", Units: 1}
	rec.Consumed(c)
	if n := testing.AllocsPerRun(1000, func() { rec.Consumed(c) }); n != 0 {
		t.Errorf("Consumed allocates %v times per call", n)
	}
}

// TestBulkOperationsListed: the home page lists the bulk operations with
// their status and progress (FAILED here: the server has no object store).
func TestBulkOperationsListed(t *testing.T) {
	e := newEnv(t)
	out, err := e.s.Client.StartBulkPutItems(e.s.Context(), &dynamodb.StartBulkPutItemsInput{TableName: aws.String("Orders"),
		InputS3Configuration:  &types.InputS3Configuration{S3Bucket: aws.String("bkt"), InputFormat: types.BulkOperationInputFormatDynamodbJson},
		OutputS3Configuration: &types.OutputS3Configuration{OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError}}})
	if err != nil {
		t.Fatal(err)
	}
	arn := *out.BulkOperationDescription.BulkOperationArn
	id := arn[strings.LastIndex(arn, "/")+1:]
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, body := e.get("/", url.Values{})
		if strings.Contains(body, "FAILED (S3NoSuchBucket)") {
			mustContain(t, "/", body, `id="bulk"`, "<code>"+id+"</code>")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no FAILED bulk operation in\n%s", body)
		}
	}
}
