package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/testserver"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	cases := []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of odd", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"median of even is the lower", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p50 of 100", ms(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 10 is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p100", ms(1, 2, 3), 100, 3 * time.Millisecond},
	}
	for _, c := range cases {
		if got := percentile(c.sorted, c.q); got != c.want {
			t.Errorf("%s: percentile(%v, %v) = %v, want %v", c.name, c.sorted, c.q, got, c.want)
		}
	}
}

func TestSummarizeMergesWorkers(t *testing.T) {
	r := result{op: "get", ops: 4, elapsed: 2 * time.Second}
	summarize(&r, [][]time.Duration{{4 * time.Millisecond, time.Millisecond}, {3 * time.Millisecond}, nil, {2 * time.Millisecond}})
	if r.p50 != 2*time.Millisecond || r.p99 != 4*time.Millisecond {
		t.Errorf("p50 %v p99 %v, want 2ms 4ms", r.p50, r.p99)
	}
	want := "op=get ops=4 errors=0 seconds=2.00 ops_per_sec=2 p50_ms=2.000 p99_ms=4.000"
	if got := r.line(); got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}

func TestNewRequestHasTheSDKsHeaders(t *testing.T) {
	c := newClient("http://127.0.0.1:1", "eu-west-2", 4)
	req, err := c.newRequest(context.Background(), "GetItem", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != http.MethodPost || req.URL.String() != "http://127.0.0.1:1/" {
		t.Errorf("%s %s", req.Method, req.URL)
	}
	day := time.Now().UTC().Format("20060102")
	for h, want := range map[string]string{
		"X-Amz-Target":  "DynamoDB_20120810.GetItem",
		"Content-Type":  "application/x-amz-json-1.0",
		"Authorization": "AWS4-HMAC-SHA256 Credential=AKIDLOADGEN/" + day + "/eu-west-2/dynamodb/aws4_request, SignedHeaders=",
		"X-Amz-Date":    day + "T",
	} {
		if got := req.Header.Get(h); !strings.HasPrefix(got, want) {
			t.Errorf("%s = %q, want it to start %q", h, got, want)
		}
	}
	if tr := c.hc.Transport.(*http.Transport); tr.MaxIdleConnsPerHost != 4 || tr.Proxy != nil {
		t.Errorf("transport: MaxIdleConnsPerHost %d, proxy set %v", tr.MaxIdleConnsPerHost, tr.Proxy != nil)
	}
}

func TestBodies(t *testing.T) {
	k := newKeyspace("T", 20, 1024)
	decode := func(b []byte) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return m
	}
	put := decode(k.putItem(nil, 3, 7))
	item := put["Item"].(map[string]any)
	size := 0
	for name, v := range item {
		for _, s := range v.(map[string]any) {
			size += len(name) + len(s.(string))
		}
	}
	// DynamoDB counts a number by its digits, roughly; one byte either way.
	if size < 1020 || size > 1024 {
		t.Errorf("item size %d, want about 1024: %v", size, item["pk"])
	}
	if put["TableName"] != "T" || item["pk"].(map[string]any)["S"] != "p0000003" || item["sk"].(map[string]any)["N"] != "7" {
		t.Errorf("put: %v", put)
	}
	if get := decode(k.getItem(nil, 3, 7)); get["Key"].(map[string]any)["sk"].(map[string]any)["N"] != "7" {
		t.Errorf("get: %v", get)
	}
	if q := decode(k.query(nil, 5)); q["KeyConditionExpression"] != "pk = :p" {
		t.Errorf("query: %v", q)
	}
	// A batch starting near the end wraps around, and never repeats a key.
	keys := decode(k.batchGet(nil, 15))["RequestItems"].(map[string]any)["T"].(map[string]any)["Keys"].([]any)
	seen := map[string]bool{}
	for _, key := range keys {
		b, _ := json.Marshal(key)
		seen[string(b)] = true
	}
	if len(keys) != batchKeys || len(seen) != batchKeys {
		t.Errorf("batchget: %d keys, %d distinct", len(keys), len(seen))
	}
	puts := decode(k.batchWrite(nil, 195, 5))["RequestItems"].(map[string]any)["T"].([]any)
	if len(puts) != 5 {
		t.Errorf("batchwrite: %d puts", len(puts))
	}
	// mixed draws every kind of request.
	r := rand.New(rand.NewPCG(1, 2))
	targets := map[string]int{}
	for range 1000 {
		target, body := k.next(nil, "mixed", r)
		decode(body)
		targets[target]++
	}
	for _, want := range []string{"GetItem", "PutItem", "Query", "BatchGetItem"} {
		if targets[want] == 0 {
			t.Errorf("mixed never sent %s: %v", want, targets)
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	for ep, ok := range map[string]bool{
		"http://127.0.0.1:8000":                       true,
		"http://localhost:8000":                       true,
		"http://[::1]:8000":                           true,
		"http://10.0.0.1:8000":                        false,
		"https://127.0.0.1:8000":                      false,
		"https://dynamodb.us-east-1.amazonaws.com":    false,
		"http://dynamodb.us-east-1.amazonaws.com:80/": false,
	} {
		if err := checkLoopback(ep); (err == nil) != ok {
			t.Errorf("checkLoopback(%s) = %v", ep, err)
		}
	}
}

func TestCannedResponse(t *testing.T) {
	srv := httptest.NewServer(cannedHandler(cannedGetItem(1024)))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/x-amz-json-1.0", strings.NewReader(`{"TableName":"T"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct{ Item map[string]map[string]string }
	if err := json.Unmarshal(body, &out); err != nil || out.Item["pk"]["S"] == "" {
		t.Fatalf("canned body %.80s: %v", body, err)
	}
	if len(body) < 1024 || len(body) > 1200 {
		t.Errorf("canned body is %d bytes, want about 1 KB", len(body))
	}
	if crc := resp.Header.Get("X-Amz-Crc32"); crc != strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10) {
		t.Errorf("X-Amz-Crc32 %s does not match the body", crc)
	}
}

// TestEveryOpAgainstTheServer runs each op, bounded by count, against the
// real server in-process, so a request the server refuses shows here and
// not in the middle of someone's measurement. It asserts no timing.
func TestEveryOpAgainstTheServer(t *testing.T) {
	srv := testserver.New(t)
	for _, op := range []string{"put", "get", "query", "batchget", "mixed"} {
		t.Run(op, func(t *testing.T) {
			o, err := parse([]string{"-endpoint", srv.URL, "-op", op, "-c", "2", "-d", "0", "-warmup", "0", "-n", "30", "-partitions", "10"})
			if err != nil {
				t.Fatal(err)
			}
			var progress bytes.Buffer
			r, err := run(t.Context(), o, &progress)
			if err != nil {
				t.Fatal(err)
			}
			if r.errors != 0 || r.ops != 30 {
				t.Errorf("%d ok, %d failed (first: %s)", r.ops, r.errors, r.firstFail)
			}
			if op != "put" && !strings.Contains(progress.String(), "pre-loading 100 items") {
				t.Errorf("progress: %q", progress.String())
			}
		})
	}
	// The tables were deleted at the end of each run.
	out, err := newClient(srv.URL, "us-east-1", 1).do(t.Context(), "ListTables", []byte(`{}`))
	if err != nil || !bytes.Contains(out, []byte(`"TableNames":[]`)) {
		t.Errorf("ListTables after the runs: %s %v", out, err)
	}
}

func TestCannedRun(t *testing.T) {
	o, err := parse([]string{"-canned", "-c", "2", "-d", "0", "-warmup", "0", "-n", "20"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run(t.Context(), o, io.Discard)
	if err != nil || r.op != "canned" || r.ops != 20 || r.errors != 0 {
		t.Errorf("canned run: %+v %v", r, err)
	}
}

// TestServeCanned: -serve-canned serves the ceiling as a process of its
// own, and -canned -endpoint loads it without creating a table.
func TestServeCanned(t *testing.T) {
	o, err := parse([]string{"-serve-canned", "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() { _, err := run(ctx, o, pw); served <- err }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	endpoint := strings.TrimSpace(line[strings.Index(line, "http://"):])
	o, err = parse([]string{"-canned", "-endpoint", endpoint, "-c", "2", "-d", "0", "-warmup", "0", "-n", "20"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run(t.Context(), o, io.Discard)
	if err != nil || r.op != "canned" || r.ops != 20 || r.errors != 0 {
		t.Errorf("canned run against %s: %+v %v", endpoint, r, err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("-serve-canned ended with %v", err)
	}
	if _, err := parse([]string{"-serve-canned", "0.0.0.0:0"}); err == nil {
		t.Error("-serve-canned off loopback accepted")
	}
	if _, err := parse([]string{"-canned", "-endpoint", "http://192.0.2.1:80"}); err == nil {
		t.Error("-canned -endpoint off loopback accepted")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, args := range [][]string{
		{"-op", "scan"},
		{"-c", "0"},
		{"-d", "0"},
		{"-partitions", "5"},
		{"-item-size", "10"},
		{"-endpoint", "http://192.0.2.1:8000"},
		{"-pid", "-1"},
		{"-pid", "2147483647"}, // no such process
		{"extra"},
	} {
		if _, err := parse(args); err == nil {
			t.Errorf("parse(%q) accepted", args)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	// Fields 14 and 15 (utime 150, stime 50 ticks) after a command name
	// with a space and a parenthesis in it.
	line := "4242 (ext) enddb) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 50 0 0 20 0 8 0 100 0 0"
	got, err := parseStatCPU(line)
	if err != nil || got != 2*time.Second {
		t.Errorf("parseStatCPU = %v, %v; want 2s", got, err)
	}
	for _, bad := range []string{"", "4242 no parens", "4242 (x) S 1 2", "4242 (x) S 1 4242 4242 0 -1 0 0 0 0 0 x 50"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q) accepted", bad)
		}
	}
}

// TestCPUPerRequest: -pid reports the CPU the process used in the measured
// phase per request (here the generator's own, which serves the ceiling).
func TestCPUPerRequest(t *testing.T) {
	if _, err := processCPU(os.Getpid()); err != nil {
		t.Skip("no /proc here:", err)
	}
	o, err := parse([]string{"-canned", "-c", "2", "-d", "300ms", "-warmup", "0", "-pid", strconv.Itoa(os.Getpid())})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run(t.Context(), o, io.Discard)
	if err != nil || !r.cpuMeasured || r.ops == 0 {
		t.Fatalf("run: %+v %v", r, err)
	}
	if !strings.Contains(r.line(), " server_cpu_us=") {
		t.Errorf("line %q has no server_cpu_us", r.line())
	}
	r.serverCPU, r.ops, r.errors = time.Second, 900, 100
	if got := r.cpuPerOp(); got != time.Millisecond {
		t.Errorf("cpuPerOp = %v, want 1ms (failed requests count)", got)
	}
}

// TestSuiteAgainstTheServer runs the test-suite workload on two
// connections: every test passes its checks (Query counts, the index),
// every request kind is counted, and no table is left behind.
func TestSuiteAgainstTheServer(t *testing.T) {
	srv := testserver.New(t)
	o, err := parse([]string{"-endpoint", srv.URL, "-op", "suite", "-tests", "3", "-c", "2"})
	if err != nil {
		t.Fatal(err)
	}
	r := runSuite(t.Context(), newClient(o.endpoint, o.region, o.conns), o)
	if r.errors != 0 || len(r.perTest) != 3 {
		t.Fatalf("%d tests passed, %d failed (first: %s)", len(r.perTest), r.errors, r.firstFail)
	}
	want := map[string]int{"CreateTable": 3, "PutItem": 3 * suitePuts, "Query": 3 * suiteQueries,
		"UpdateItem": 3 * suiteUpdates, "TransactWriteItems": 3, "DeleteTable": 3}
	for op, n := range want {
		if got := len(r.perOp[op]); got != n {
			t.Errorf("%s: %d requests, want %d", op, got, n)
		}
	}
	line := r.line()
	for _, f := range []string{"op=suite ", "tests=3 ", "conns=2 ", "errors=0 ", "CreateTable_p50_ms=", "TransactWriteItems_n=3 "} {
		if !strings.Contains(line, f) {
			t.Errorf("line %q lacks %q", line, f)
		}
	}
	out, err := newClient(srv.URL, "us-east-1", 1).do(t.Context(), "ListTables", []byte(`{}`))
	if err != nil || !bytes.Contains(out, []byte(`"TableNames":[]`)) {
		t.Errorf("ListTables after the suite: %s %v", out, err)
	}
	if _, err := parse([]string{"-op", "suite", "-tests", "0"}); err == nil {
		t.Error("-op suite -tests 0 accepted")
	}
}
