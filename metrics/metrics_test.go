package metrics_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/metrics"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// stillClock never moves, so a 1-WCU table refuses the second write.
type stillClock struct{ t time.Time }

func (c stillClock) Now() time.Time { return c.t }

// newServer starts a server with /metrics mounted as cmd mounts it.
func newServer(t *testing.T, opts ...testserver.Option) *testserver.Server {
	t.Helper()
	m := metrics.New(metrics.Options{})
	opts = append(opts,
		testserver.WithEngineOptions(func(o *emulator.Options) { o.Observer = m }),
		testserver.WithWiring(func(eng *emulator.Engine, st *pebblestore.Store, o *wire.Options) {
			m.Attach(eng)
			m.AttachPebble(st.Metrics)
			o.Mounts = append(o.Mounts, wire.Mount{Prefix: "/metrics", Handler: m.Handler()})
			o.OnRequest = m.Request
		}))
	return testserver.New(t, opts...)
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value returns the value of the sample of family name whose labels
// include want ("k=v" pairs), or fails the test.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("%s: no sample with %v", name, want)
	return 0
}

// TestScrapeAfterWorkload: a known workload (a 1-WCU table written twice in
// one instant, a read, a miss) shows in the scraped counters.
func TestScrapeAfterWorkload(t *testing.T) {
	s := newServer(t, testserver.WithClock(stillClock{time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}))
	ctx, c := s.Context(), s.Client
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             aws.String("mtab"),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "v": &types.AttributeValueMemberS{Value: strings.Repeat("x", 100)}}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mtab"), Item: item}); err != nil {
		t.Fatal(err)
	}
	var pte *types.ProvisionedThroughputExceededException
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("mtab"), Item: item}); !errors.As(err, &pte) {
		t.Fatalf("second write: %v, want ProvisionedThroughputExceededException", err)
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("mtab"), Key: key}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("missing"), Key: key}); err == nil {
		t.Fatal("GetItem on a missing table succeeded")
	}

	f := scrape(t, s.URL)
	table := []string{"region=us-east-1", "table=mtab"}
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"extenddb_requests_total", []string{"operation=CreateTable", "status=200", "error="}, 1},
		{"extenddb_requests_total", []string{"operation=PutItem", "status=200", "error="}, 1},
		{"extenddb_requests_total", []string{"operation=PutItem", "status=400", "error=ProvisionedThroughputExceededException"}, 1},
		{"extenddb_requests_total", []string{"operation=GetItem", "status=200", "error="}, 1},
		{"extenddb_requests_total", []string{"operation=GetItem", "status=400", "error=ResourceNotFoundException"}, 1},
		{"extenddb_request_duration_seconds", []string{"operation=PutItem"}, 2},
		{"extenddb_consumed_capacity_units_total", append([]string{"index=", "direction=write"}, table...), 1},
		{"extenddb_consumed_capacity_units_total", append([]string{"index=", "direction=read"}, table...), 0.5},
		{"extenddb_throttled_requests_total", append([]string{"index=", "direction=write", "bucket=table",
			"error=ProvisionedThroughputExceededException", "reason=TableWriteProvisionedThroughputExceeded"}, table...), 1},
		{"extenddb_table_items", append([]string{"index="}, table...), 1},
		{"extenddb_table_capacity_units", append([]string{"direction=write"}, table...), 1},
		{"extenddb_table_bucket_balance_units", append([]string{"direction=write"}, table...), 0},
	}
	for _, c := range checks {
		if got := value(t, f, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := value(t, f, "extenddb_table_size_bytes", append([]string{"index="}, table...)...); got < 100 {
		t.Errorf("table size %v, want the item's bytes", got)
	}
	if got := value(t, f, "extenddb_pebble_memtables"); got < 1 {
		t.Errorf("pebble memtables %v, want at least 1", got)
	}
}

// TestThrottledIndexLabel: a refused read of a GSI with capacity of its
// own is counted under the index's name.
func TestThrottledIndexLabel(t *testing.T) {
	s := newServer(t)
	ctx, c := s.Context(), s.Client
	s1 := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	pt := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("gtab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:           types.BillingModeProvisioned,
		ProvisionedThroughput: pt(100, 100),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gidx"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: pt(1, 100)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 20000)
	for _, k := range []string{"a", "b", "c"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("gtab"), Item: map[string]types.AttributeValue{"pk": s1(k), "g": s1("G"), "v": s1(big)}}); err != nil {
			t.Fatal(err)
		}
	}
	var pte *types.ProvisionedThroughputExceededException
	q := &dynamodb.QueryInput{TableName: aws.String("gtab"), IndexName: aws.String("gidx"), KeyConditionExpression: aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s1("G")}}
	for i := 0; ; i++ {
		_, err := c.Query(ctx, q)
		if errors.As(err, &pte) {
			break
		}
		if err != nil || i == 20 {
			t.Fatalf("query %d of the index: %v, want ProvisionedThroughputExceededException", i, err)
		}
	}
	f := scrape(t, s.URL)
	if got := value(t, f, "extenddb_throttled_requests_total", "table=gtab", "index=gidx", "direction=read"); got < 1 {
		t.Errorf("throttled reads of the index = %v, want at least 1", got)
	}
}

// TestUnknownOperationLabel: a made-up target is counted as "Unknown", so
// clients cannot add label values at will.
func TestUnknownOperationLabel(t *testing.T) {
	s := newServer(t)
	for _, op := range []string{"Nope1", "Nope2"} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader("{}"))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	f := scrape(t, s.URL)
	if got := value(t, f, "extenddb_requests_total", "operation=Unknown", "error=UnknownOperationException"); got != 2 {
		t.Errorf("unknown operations counted %v, want 2", got)
	}
	if n := len(f["extenddb_requests_total"].Metric); n != 1 {
		t.Errorf("%d request series, want 1", n)
	}
}

// BenchmarkConsumed is the observer call every charged request makes.
func BenchmarkConsumed(b *testing.B) {
	m := metrics.New(metrics.Options{})
	c := emulator.Consumption{Namespace: api.Namespace{Account: "123456789012", Region: "us-east-1"}, Table: "loadgen", Units: 1}
	b.ReportAllocs()
	for b.Loop() {
		m.Consumed(c)
	}
}

// BenchmarkRequest is wire's OnRequest for every answered request.
func BenchmarkRequest(b *testing.B) {
	m := metrics.New(metrics.Options{})
	d := wire.RequestDone{Operation: "PutItem", Status: 200, Duration: time.Millisecond}
	b.ReportAllocs()
	for b.Loop() {
		m.Request(d)
	}
}

// TestCountersKeptApart: the counters cached per label set keep every
// label apart (namespace, table, index, direction; operation, status,
// error).
func TestCountersKeptApart(t *testing.T) {
	m := metrics.New(metrics.Options{})
	a := api.Namespace{Account: "111111111111", Region: "us-east-1"}
	b := api.Namespace{Account: "111111111111", Region: "eu-west-1"}
	for _, c := range []emulator.Consumption{
		{Namespace: a, Table: "t", Units: 1},
		{Namespace: a, Table: "t", Units: 2, Read: true},
		{Namespace: a, Table: "t", Index: "g", Units: 4},
		{Namespace: b, Table: "t", Units: 8},
		{Namespace: a, Table: "u", Units: 16},
		{Namespace: a, Table: "t", Units: 32},
	} {
		m.Consumed(c)
	}
	for _, d := range []wire.RequestDone{
		{Operation: "PutItem", Status: 200}, {Operation: "PutItem", Status: 400, ErrorCode: "ValidationException"},
		{Operation: "GetItem", Status: 200}, {Operation: "PutItem", Status: 200}, {Operation: "GetItem", Status: 413},
	} {
		m.Request(d)
	}
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	const cu = "extenddb_consumed_capacity_units_total"
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"region=us-east-1", "table=t", "index=", "direction=write"}, 33},
		{[]string{"region=us-east-1", "table=t", "index=", "direction=read"}, 2},
		{[]string{"region=us-east-1", "table=t", "index=g", "direction=write"}, 4},
		{[]string{"region=eu-west-1", "table=t", "index=", "direction=write"}, 8},
		{[]string{"region=us-east-1", "table=u", "index=", "direction=write"}, 16},
	} {
		if got := value(t, byName, cu, c.labels...); got != c.want {
			t.Errorf("%v: %v, want %v", c.labels, got, c.want)
		}
	}
	const rq = "extenddb_requests_total"
	if got := value(t, byName, rq, "operation=PutItem", "status=200", "error="); got != 2 {
		t.Errorf("PutItem 200: %v", got)
	}
	if got := value(t, byName, rq, "operation=PutItem", "status=400", "error=ValidationException"); got != 1 {
		t.Errorf("PutItem 400: %v", got)
	}
	if got := value(t, byName, rq, "operation=GetItem", "status=200"); got != 1 {
		t.Errorf("GetItem 200: %v", got)
	}
	if got := value(t, byName, rq, "operation=GetItem", "status=413"); got != 1 {
		t.Errorf("GetItem 413: %v", got)
	}
}

// TestStoppedRequests: requests stopped early are counted by operation
// and reason; a cancelled one (never answered) stays out of
// requests_total, one past its deadline (answered 500) is in both.
func TestStoppedRequests(t *testing.T) {
	m := metrics.New(metrics.Options{})
	for _, d := range []wire.RequestDone{
		{Operation: "Scan", Stopped: wire.StoppedCancelled},
		{Operation: "Scan", Stopped: wire.StoppedCancelled},
		{Operation: "Query", Status: 500, ErrorCode: "InternalServerError", Stopped: wire.StoppedDeadline},
		{Operation: "Query", Status: 200},
	} {
		m.Request(d)
	}
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	const st = "extenddb_requests_stopped_total"
	if got := value(t, byName, st, "operation=Scan", "reason=cancelled"); got != 2 {
		t.Errorf("Scan cancelled: %v, want 2", got)
	}
	if got := value(t, byName, st, "operation=Query", "reason=deadline"); got != 1 {
		t.Errorf("Query deadline: %v, want 1", got)
	}
	const rq = "extenddb_requests_total"
	if got := value(t, byName, rq, "operation=Query", "status=500", "error=InternalServerError"); got != 1 {
		t.Errorf("Query 500: %v, want 1", got)
	}
	for _, mt := range byName[rq].GetMetric() {
		for _, l := range mt.GetLabel() {
			if l.GetName() == "operation" && l.GetValue() == "Scan" {
				t.Errorf("a cancelled Scan is in %s: %v", rq, mt)
			}
		}
	}
}

// TestScrapeBulkOperations: a bulk operation started, and its end by
// status (FAILED here: the server has no object store).
func TestScrapeBulkOperations(t *testing.T) {
	s := newServer(t)
	ctx, c := s.Context(), s.Client
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("btab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	out, err := c.StartBulkPutItems(ctx, &dynamodb.StartBulkPutItemsInput{TableName: aws.String("btab"),
		InputS3Configuration:  &types.InputS3Configuration{S3Bucket: aws.String("bkt"), InputFormat: types.BulkOperationInputFormatDynamodbJson},
		OutputS3Configuration: &types.OutputS3Configuration{OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError}}})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d, err := c.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: out.BulkOperationDescription.BulkOperationArn})
		if err != nil {
			t.Fatal(err)
		}
		if d.BulkOperationDescription.BulkOperationStatus == types.BulkOperationStatusFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %s", d.BulkOperationDescription.BulkOperationStatus)
		}
	}
	// The job's end is counted just after its record is stored.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		f := scrape(t, s.URL)
		if value(t, f, "extenddb_bulk_operations_started_total") == 1 && value(t, f, "extenddb_bulk_operations_finished_total", "status=FAILED") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("bulk operation counters not 1 and 1")
		}
	}
}

// TestVectorIndexMetrics: a vector index's entries and size are reported
// under its name, and the in-memory copy a search filled is counted.
func TestVectorIndexMetrics(t *testing.T) {
	s := newServer(t)
	ctx, c := s.Context(), s.Client
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("vtab"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		VectorIndexes: []types.VectorIndex{{IndexName: aws.String("near"), VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("v")},
			Dimensions: aws.Int64(2), DistanceFunction: types.VectorDistanceFunctionEuclidean, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	for _, pk := range []string{"a", "b"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("vtab"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), n("2")}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String("vtab"), IndexName: aws.String("near"),
		SearchVector: []types.AttributeValue{n("0"), n("0")}, TopK: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	f := scrape(t, s.URL)
	if got := value(t, f, "extenddb_table_items", "index=near", "table=vtab"); got != 2 {
		t.Errorf("vector index items %v, want 2", got)
	}
	if got := value(t, f, "extenddb_vector_index_memory_bytes"); got < 16 {
		t.Errorf("vector memory %v, want the two vectors at least", got)
	}
	if got := value(t, f, "extenddb_requests_total", "operation=SearchVectors", "status=200", "error="); got != 1 {
		t.Errorf("SearchVectors requests %v, want 1", got)
	}
}
