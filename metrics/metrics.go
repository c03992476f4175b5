package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/wire"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options configures Metrics.
type Options struct {
	// Engine, when set, is read at scrape time for every table's item
	// count and size. Set it with Attach when the engine is built after
	// Metrics (the engine needs the observer first).
	Engine *emulator.Engine
	// Pebble, when set, returns Pebble's metrics at scrape time (nil when
	// the store is closed); or set it with AttachPebble.
	Pebble func() *pebble.Metrics
	// GoRuntime adds the Go runtime and process collectors; default off
	// (tests keep the output small), cmd turns it on.
	GoRuntime bool
}

// Metrics is the collector set behind /metrics. Its methods are safe for
// concurrent use.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	consumed  *prometheus.CounterVec
	throttled *prometheus.CounterVec
	stopped   *prometheus.CounterVec

	// runtimeOnce registers the Go runtime's collectors (registerRuntime).
	runtimeOnce sync.Once

	mu     sync.RWMutex
	eng    *emulator.Engine
	pebble func() *pebble.Metrics
	// ops caches each operation's latency observer, so a request costs no
	// label hashing for the histogram; reqs and cons do the same for the
	// request and capacity counters (a Go map lookup is a fraction of the
	// vector's hashing of every label value).
	ops  map[string]prometheus.Observer
	reqs map[requestKey]prometheus.Counter
	cons map[consumedKey]prometheus.Counter
}

type requestKey struct {
	op, code string
	status   int
}

type consumedKey struct {
	ns           api.Namespace
	table, index string
	read         bool
}

// New returns Metrics with its collectors registered.
func New(opts Options) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "extenddb", Name: "requests_total",
			Help: "DynamoDB and DynamoDB Streams requests answered, by operation, HTTP status and error type (\"\" on success).",
		}, []string{"operation", "status", "error"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "extenddb", Name: "request_duration_seconds",
			Help:    "Time from a request's arrival to its response, by operation.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9), // 100µs … 6.5s
		}, []string{"operation"}),
		consumed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "extenddb", Name: "consumed_capacity_units_total",
			Help: "Capacity units consumed (as ReturnConsumedCapacity reports them), by table, index (\"\" for the table) and direction.",
		}, []string{"account", "region", "table", "index", "direction"}),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "extenddb", Name: "throttled_requests_total",
			Help: "Requests (or batch items, transaction actions) refused by the throttle manager, by table, index (\"\" for the table), direction, refusing bucket, error type and ThrottlingReasons reason.",
		}, []string{"account", "region", "table", "index", "direction", "bucket", "error", "reason"}),
		stopped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "extenddb", Name: "requests_stopped_total",
			Help: "Requests stopped before their work was done, by operation and why: \"cancelled\" (the client went away; not answered, not in requests_total) or \"deadline\" (ran past --request-timeout; answered 500).",
		}, []string{"operation", "reason"}),
		eng:    opts.Engine,
		pebble: opts.Pebble,
		ops:    map[string]prometheus.Observer{},
		reqs:   map[requestKey]prometheus.Counter{},
		cons:   map[consumedKey]prometheus.Counter{},
	}
	m.reg.MustRegister(m.requests, m.latency, m.consumed, m.throttled, m.stopped, tableCollector{m}, pebbleCollector{m})
	if !opts.GoRuntime {
		m.runtimeOnce.Do(func() {})
	}
	return m
}

// registerRuntime registers the Go runtime's and the process's collectors
// (Options.GoRuntime) on the first scrape rather than in New: building
// them is 3× the rest of New (BenchmarkNew: about 105 µs and 220
// allocations more, warm), spent before the server's first answer for
// metrics nobody may read.
func (m *Metrics) registerRuntime() {
	m.runtimeOnce.Do(func() {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	})
}

// Attach sets the engine read at scrape time.
func (m *Metrics) Attach(eng *emulator.Engine) {
	m.mu.Lock()
	m.eng = eng
	m.mu.Unlock()
}

// AttachPebble sets where Pebble's metrics are read at scrape time.
func (m *Metrics) AttachPebble(get func() *pebble.Metrics) {
	m.mu.Lock()
	m.pebble = get
	m.mu.Unlock()
}

// Handler serves the metrics in Prometheus' text (or negotiated) format.
func (m *Metrics) Handler() http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.registerRuntime()
		h.ServeHTTP(w, r)
	})
}

// Registry is where the collectors live (for tests and extra collectors).
func (m *Metrics) Registry() *prometheus.Registry {
	m.registerRuntime()
	return m.reg
}

// Request counts one answered request: wire.Options.OnRequest.
func (m *Metrics) Request(d wire.RequestDone) {
	if d.Stopped != "" {
		// Rare: no cached counter.
		m.stopped.WithLabelValues(d.Operation, d.Stopped).Inc()
		if d.Stopped == wire.StoppedCancelled {
			return
		}
	}
	k := requestKey{op: d.Operation, code: d.ErrorCode, status: d.Status}
	m.mu.RLock()
	c := m.reqs[k]
	m.mu.RUnlock()
	if c == nil {
		c = m.requests.WithLabelValues(d.Operation, statusText(d.Status), d.ErrorCode)
		m.mu.Lock()
		m.reqs[k] = c
		m.mu.Unlock()
	}
	c.Inc()
	m.opLatency(d.Operation).Observe(d.Duration.Seconds())
}

func (m *Metrics) opLatency(op string) prometheus.Observer {
	m.mu.RLock()
	o := m.ops[op]
	m.mu.RUnlock()
	if o != nil {
		return o
	}
	o = m.latency.WithLabelValues(op)
	m.mu.Lock()
	m.ops[op] = o
	m.mu.Unlock()
	return o
}

func statusText(s int) string {
	switch s {
	case http.StatusOK:
		return "200"
	case http.StatusBadRequest:
		return "400"
	}
	return strconv.Itoa(s)
}

func direction(read bool) string {
	if read {
		return "read"
	}
	return "write"
}

// Consumed implements emulator.Observer.
func (m *Metrics) Consumed(c emulator.Consumption) {
	k := consumedKey{ns: c.Namespace, table: c.Table, index: c.Index, read: c.Read}
	m.mu.RLock()
	ctr := m.cons[k]
	m.mu.RUnlock()
	if ctr == nil {
		ctr = m.consumed.WithLabelValues(c.Namespace.Account, c.Namespace.Region, c.Table, c.Index, direction(c.Read))
		m.mu.Lock()
		m.cons[k] = ctr
		m.mu.Unlock()
	}
	ctr.Add(c.Units)
}

// Throttled implements emulator.Observer.
func (m *Metrics) Throttled(t emulator.ThrottleEvent) {
	m.throttled.WithLabelValues(t.Namespace.Account, t.Namespace.Region, t.Table, t.Index, direction(t.Read), t.Bucket, t.Code, t.Reason).Inc()
}

var _ emulator.Observer = (*Metrics)(nil)

// tableCollector reads every table's item count and size from the engine at
// scrape time (DescribeTable's ItemCount and TableSizeBytes, and each
// index's).
type tableCollector struct{ m *Metrics }

var (
	itemsDesc = prometheus.NewDesc("extenddb_table_items", "Items in a table or index (DescribeTable's ItemCount).",
		[]string{"account", "region", "table", "index"}, nil)
	bytesDesc = prometheus.NewDesc("extenddb_table_size_bytes", "Size of a table or index (DescribeTable's TableSizeBytes / IndexSizeBytes).",
		[]string{"account", "region", "table", "index"}, nil)
	capacityDesc = prometheus.NewDesc("extenddb_table_capacity_units", "The rate of a table's throttle bucket (provisioned capacity, on-demand cap or default ceiling), units/s.",
		[]string{"account", "region", "table", "direction"}, nil)
	balanceDesc = prometheus.NewDesc("extenddb_table_bucket_balance_units", "The balance of a table's throttle bucket now (negative after a charge past it).",
		[]string{"account", "region", "table", "direction"}, nil)
	vectorMemDesc   = prometheus.NewDesc("extenddb_vector_index_memory_bytes", "Memory held by the in-memory copies of the vector indexes searched since the start.", nil, nil)
	bulkStartedDesc = prometheus.NewDesc("extenddb_bulk_operations_started_total", "Bulk put operations (StartBulkPutItems) this process started.", nil, nil)
	bulkEndedDesc   = prometheus.NewDesc("extenddb_bulk_operations_finished_total", "Bulk put operations whose job ended in this process, by final status.",
		[]string{"status"}, nil)
)

func (tableCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- itemsDesc
	ch <- bytesDesc
	ch <- capacityDesc
	ch <- balanceDesc
	ch <- bulkStartedDesc
	ch <- bulkEndedDesc
	ch <- vectorMemDesc
}

func (c tableCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.RLock()
	eng := c.m.eng
	c.m.mu.RUnlock()
	if eng == nil {
		return
	}
	started, ended := eng.BulkOperationCounts()
	ch <- prometheus.MustNewConstMetric(bulkStartedDesc, prometheus.CounterValue, float64(started))
	ch <- prometheus.MustNewConstMetric(vectorMemDesc, prometheus.GaugeValue, float64(eng.VectorMemory()))
	for status, n := range ended {
		ch <- prometheus.MustNewConstMetric(bulkEndedDesc, prometheus.CounterValue, float64(n), status)
	}
	ctx := context.Background()
	for _, ns := range eng.Namespaces() {
		names, _ := eng.TableNames(ctx, ns) // a failed page: report the tables listed before it
		for _, name := range names {
			out, err := eng.DescribeTable(ctx, ns, &api.DescribeTableInput{TableName: &name})
			if err != nil || out.Table == nil {
				continue // deleted since the listing
			}
			td := out.Table
			gauge := func(d *prometheus.Desc, v float64, labels ...string) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{ns.Account, ns.Region, name}, labels...)...)
			}
			gauge(itemsDesc, float64(td.ItemCount), "")
			gauge(bytesDesc, float64(td.TableSizeBytes), "")
			for _, g := range td.GlobalSecondaryIndexes {
				gauge(itemsDesc, float64(g.ItemCount), g.IndexName)
				gauge(bytesDesc, float64(g.IndexSizeBytes), g.IndexName)
			}
			for _, l := range td.LocalSecondaryIndexes {
				gauge(itemsDesc, float64(l.ItemCount), l.IndexName)
				gauge(bytesDesc, float64(l.IndexSizeBytes), l.IndexName)
			}
			for _, v := range td.VectorIndexes {
				gauge(itemsDesc, float64(v.ItemCount), v.IndexName)
				gauge(bytesDesc, float64(v.IndexSizeBytes), v.IndexName)
			}
			if st, err := eng.TableThrottleStatus(ns, name); err == nil {
				gauge(capacityDesc, st.ReadCapacity, "read")
				gauge(capacityDesc, st.WriteCapacity, "write")
				gauge(balanceDesc, st.ReadBalance, "read")
				gauge(balanceDesc, st.WriteBalance, "write")
			}
		}
	}
}
