package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:8000", "`URL` of the server")
	pid := flag.Int("pid", 0, "`PID` of the server (Linux /proc)")
	items := flag.Int("items", 1_000_000, "`N` items to load")
	itemSize := flag.Int("item-size", 1024, "`BYTES` of each item, about")
	conns := flag.Int("c", 8, "`N` concurrent BatchWriteItem requests")
	table := flag.String("table", "memprobe", "`NAME` of the table (created)")
	burst := flag.Int("burst", 0, "instead of loading items, `ROUNDS` of a burst of the largest requests from -c clients (16 MB bodies, 1 MB Scan pages), then the RSS for a minute after")
	start := flag.String("start", "", "instead, exec `BINARY` with the arguments after the flags ({dir}: a fresh directory, {addr}: a free loopback address, {port}: its port) -runs times: time to the first answered request and idle RSS")
	runs := flag.Int("runs", 5, "`N` starts of -start")
	idleFor := flag.Duration("idle", 3*time.Second, "how long -start leaves the server idle before reading its RSS")
	flag.Parse()
	if *start != "" {
		if err := startup(*start, flag.Args(), *runs, *idleFor); err != nil {
			fmt.Fprintln(os.Stderr, "memprobe:", err)
			os.Exit(1)
		}
		return
	}
	if *pid <= 0 {
		fmt.Fprintln(os.Stderr, "memprobe: -pid is required")
		os.Exit(2)
	}
	p := &probe{endpoint: *endpoint, pid: *pid, table: *table, c: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conns}}}
	run := func(ctx context.Context) error { return p.run(ctx, *items, *itemSize, *conns) }
	if *burst > 0 {
		run = func(ctx context.Context) error { return p.burst(ctx, *conns, *burst) }
	}
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "memprobe:", err)
		os.Exit(1)
	}
}

type probe struct {
	endpoint, table string
	pid             int
	c               *http.Client
}

func (p *probe) run(ctx context.Context, items, itemSize, conns int) error {
	fmt.Printf("%-22s %9s %9s %9s %9s %9s %9s %9s\n", "phase", "seconds", "rss_mb", "peak_mb", "gosys_mb", "heap_mb", "cache_mb", "memtbl_mb")
	idle := func(name string, d time.Duration) error {
		return p.phase(name, func() error { time.Sleep(d); return nil })
	}
	if err := idle("idle (empty)", 3*time.Second); err != nil {
		return err
	}
	if _, err := p.do(ctx, "CreateTable", fmt.Sprintf(`{"TableName":%q,"BillingMode":"PAY_PER_REQUEST",`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],`+
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`, p.table)); err != nil {
		return err
	}
	if err := p.phase(fmt.Sprintf("load %d items", items), func() error { return p.load(ctx, items, max(1, itemSize-40), conns) }); err != nil {
		return err
	}
	if err := idle("idle (loaded)", 10*time.Second); err != nil {
		return err
	}
	if err := p.phase("full Scan", func() error { return p.scan(ctx, items) }); err != nil {
		return err
	}
	return idle("idle (after Scan)", 10*time.Second)
}

// phase runs fn while sampling the server's RSS, then prints a line.
func (p *probe) phase(name string, fn func() error) error {
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			if r, err := rss(p.pid); err == nil && r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	})
	start := time.Now()
	err := fn()
	close(stop)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	now, err := rss(p.pid)
	if err != nil {
		return err
	}
	m := p.metrics()
	mb := func(v float64) string { return strconv.FormatFloat(v/(1<<20), 'f', 1, 64) }
	fmt.Printf("%-22s %9.1f %9s %9s %9s %9s %9s %9s\n", name, time.Since(start).Seconds(), mb(float64(now)), mb(float64(max(now, peak.Load()))),
		mb(m["go_memstats_sys_bytes"]), mb(m["go_memstats_heap_inuse_bytes"]), mb(m["extenddb_pebble_block_cache_bytes"]), mb(m["extenddb_pebble_memtable_bytes"]))
	return nil
}

// rss is VmRSS of pid in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}

// metrics reads the unlabelled gauges of /metrics; missing ones are 0.
func (p *probe) metrics() map[string]float64 {
	m := map[string]float64{}
	resp, err := p.c.Get(p.endpoint + "/metrics")
	if err != nil {
		return m
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), " ")
		if ok && !strings.HasPrefix(name, "#") {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				m[name] = f
			}
		}
	}
	return m
}

func (p *probe) do(ctx context.Context, op, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint+"/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAMEMPROBE/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := p.c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %d %.300s", op, resp.StatusCode, out)
	}
	return out, err
}

// load writes items items with values of valueLen random letters: as
// hard to compress as real data, so Pebble's blocks on disk and in its
// cache have realistic sizes.
func (p *probe) load(ctx context.Context, items, valueLen, conns int) error {
	var next atomic.Int64
	errs := make(chan error, conns)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			var b bytes.Buffer
			value := make([]byte, valueLen)
			for {
				first := int(next.Add(25)) - 25
				if first >= items {
					return
				}
				b.Reset()
				fmt.Fprintf(&b, `{"RequestItems":{%q:[`, p.table)
				for i := first; i < min(first+25, items); i++ {
					if i > first {
						b.WriteByte(',')
					}
					for j := range value {
						value[j] = letters[rand.IntN(len(letters))]
					}
					fmt.Fprintf(&b, `{"PutRequest":{"Item":{"pk":{"S":"p%07d"},"sk":{"N":"%d"},"v":{"S":"%s"}}}}`, i/10, i%10, value)
				}
				b.WriteString(`]}}`)
				out, err := p.do(ctx, "BatchWriteItem", b.String())
				if err == nil && !bytes.Contains(out, []byte(`"UnprocessedItems":{}`)) {
					err = fmt.Errorf("unprocessed items: %.200s", out)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func (p *probe) scan(ctx context.Context, items int) error {
	var start json.RawMessage
	total := 0
	for {
		body := fmt.Sprintf(`{"TableName":%q}`, p.table)
		if start != nil {
			body = fmt.Sprintf(`{"TableName":%q,"ExclusiveStartKey":%s}`, p.table, start)
		}
		out, err := p.do(ctx, "Scan", body)
		if err != nil {
			return err
		}
		var page struct {
			Count            int
			LastEvaluatedKey json.RawMessage
		}
		if err := json.Unmarshal(out, &page); err != nil {
			return err
		}
		total += page.Count
		if page.LastEvaluatedKey == nil {
			break
		}
		start = page.LastEvaluatedKey
	}
	if total != items {
		return fmt.Errorf("the Scan returned %d items, want %d", total, items)
	}
	return nil
}
