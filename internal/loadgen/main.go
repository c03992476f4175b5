package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// options are the command line; defaults are the reference load.
type options struct {
	endpoint    string        // the server, loopback only
	region      string        // the credential scope's Region
	op          string        // put, get, query, batchget or mixed
	conns       int           // concurrent keep-alive connections, one worker each
	duration    time.Duration // measured phase
	warmup      time.Duration // unmeasured phase before it (connections, caches)
	maxOps      int           // stop after this many requests too; 0 is no bound
	partitions  int           // partition keys of itemsPerPartition items
	itemSize    int           // bytes per item as DynamoDB counts them
	canned      bool          // load a fixed 1 KB GetItem response instead
	serveAddr   string        // only serve the canned response there
	endpointSet bool          // -endpoint was given: with -canned, load it
	keep        bool          // leave the table behind
	pid         int           // report this process's CPU per request; 0: none
	tests       int           // tests of -op suite
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	if o.op == "suite" {
		r := runSuite(ctx, newClient(o.endpoint, o.region, o.conns), o)
		fmt.Println(r.line())
		if r.errors > 0 {
			fmt.Fprintf(os.Stderr, "loadgen: %d tests failed; the first: %s\n", r.errors, r.firstFail)
			os.Exit(1)
		}
		return
	}
	r, err := run(ctx, o, os.Stderr)
	if o.serveAddr != "" && err == nil {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	fmt.Println(r.line())
	if r.errors > 0 {
		fmt.Fprintf(os.Stderr, "loadgen: %d requests failed; the first: %s\n", r.errors, r.firstFail)
		os.Exit(1)
	}
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.StringVar(&o.endpoint, "endpoint", "http://127.0.0.1:8000", "loopback `URL` of the server")
	fs.StringVar(&o.region, "region", "us-east-1", "`REGION` of the requests' credential scope")
	fs.StringVar(&o.op, "op", "get", "`OP`: put, get, query (10 items), batchget (100 keys), mixed (45% get, 45% put, 5% query, 5% batchget), or suite (the test-suite workload: -tests tests over -c connections, each creating a table with a GSI, 100 PutItems, 10 Queries, 10 UpdateItems, a TransactWriteItems, DeleteTable)")
	fs.IntVar(&o.tests, "tests", 200, "`N` tests of -op suite")
	fs.IntVar(&o.conns, "c", 16, "`N` keep-alive connections, each with one request in flight")
	fs.DurationVar(&o.duration, "d", 10*time.Second, "`DURATION` of the measured phase")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "`DURATION` of load before measuring")
	fs.IntVar(&o.maxOps, "n", 0, "stop after `N` requests (warm-up included) even before -d; 0: no bound")
	fs.IntVar(&o.partitions, "partitions", 1000, "`N` partition keys of 10 items each, pre-loaded for get, query, batchget and mixed")
	fs.IntVar(&o.itemSize, "item-size", 1024, "`BYTES` per item")
	fs.BoolVar(&o.canned, "canned", false, "load a fixed 1 KB GetItem response served with net/http, the ceiling: in this process, or with -endpoint a loadgen -serve-canned")
	fs.BoolVar(&o.keep, "keep", false, "keep the table at the end (it is deleted otherwise)")
	fs.IntVar(&o.pid, "pid", 0, "report the CPU time process `PID` (the server) used in the measured phase, per request (Linux /proc)")
	fs.StringVar(&o.serveAddr, "serve-canned", "", "only serve the canned response on loopback `HOST:PORT` until interrupted, for -canned -endpoint in another process")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) { o.endpointSet = o.endpointSet || f.Name == "endpoint" })
	if o.serveAddr != "" {
		return o, checkLoopback("http://" + o.serveAddr)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.op != "put" && o.op != "get" && o.op != "query" && o.op != "batchget" && o.op != "mixed" && o.op != "suite":
		return o, fmt.Errorf("-op %q: must be put, get, query, batchget, mixed or suite", o.op)
	case o.op == "suite" && (o.tests < 1 || o.canned):
		return o, errors.New("-op suite needs -tests of at least 1, and no -canned")
	case o.conns < 1:
		return o, errors.New("-c must be at least 1")
	case o.duration <= 0 && o.maxOps <= 0:
		return o, errors.New("-d or -n must bound the run")
	case o.warmup < 0:
		return o, errors.New("-warmup must not be negative")
	case o.partitions < batchKeys/itemsPerPartition:
		return o, fmt.Errorf("-partitions must be at least %d (a BatchGetItem asks for %d distinct keys)", batchKeys/itemsPerPartition, batchKeys)
	case o.itemSize < 21 || o.itemSize > 400*1024:
		return o, errors.New("-item-size must be from 21 to 409600")
	case o.pid < 0:
		return o, errors.New("-pid must not be negative")
	}
	if o.pid > 0 {
		if _, err := processCPU(o.pid); err != nil {
			return o, fmt.Errorf("-pid %d: %w", o.pid, err)
		}
	}
	if o.canned && !o.endpointSet {
		return o, nil
	}
	return o, checkLoopback(o.endpoint)
}

// run prepares the table (or the canned server), loads it and measures.
func run(ctx context.Context, o options, progress io.Writer) (result, error) {
	if o.serveAddr != "" {
		return result{}, serveCanned(ctx, o.serveAddr, o.itemSize, progress)
	}
	if o.canned {
		endpoint := o.endpoint
		if !o.endpointSet {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return result{}, err
			}
			srv := &http.Server{Handler: cannedHandler(cannedGetItem(o.itemSize))}
			go func() { _ = srv.Serve(ln) }()
			defer srv.Close()
			endpoint = "http://" + ln.Addr().String()
		}
		c := newClient(endpoint, o.region, o.conns)
		k := newKeyspace("canned", o.partitions, o.itemSize)
		r := measure(ctx, c, k, "get", o)
		r.op = "canned"
		return r, nil
	}
	c := newClient(o.endpoint, o.region, o.conns)
	k := newKeyspace("loadgen-"+strconv.FormatInt(time.Now().UnixNano(), 36), o.partitions, o.itemSize)
	if err := setup(ctx, c, k, o, progress); err != nil {
		return result{}, err
	}
	if !o.keep {
		defer func() { _, _ = c.do(context.WithoutCancel(ctx), "DeleteTable", k.tableOnly()) }()
	}
	return measure(ctx, c, k, o.op, o), nil
}

// setup creates the table, waits for it and pre-loads the items reads need.
func setup(ctx context.Context, c *client, k keyspace, o options, progress io.Writer) error {
	if _, err := c.do(ctx, "CreateTable", k.createTable()); err != nil {
		return err
	}
	for {
		out, err := c.do(ctx, "DescribeTable", k.tableOnly())
		if err != nil {
			return err
		}
		var d struct{ Table struct{ TableStatus string } }
		if err := json.Unmarshal(out, &d); err != nil {
			return fmt.Errorf("the DescribeTable answer: %w: %.300s", err, out)
		}
		if d.Table.TableStatus == "ACTIVE" { // moto spaces its JSON
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if o.op == "put" {
		return nil // puts need no items; they overwrite or insert alike
	}
	total := k.partitions * itemsPerPartition
	fmt.Fprintf(progress, "loadgen: pre-loading %d items of %d bytes into %s\n", total, k.itemSize, k.table)
	var next atomic.Int64
	errs := make(chan error, o.conns)
	var wg sync.WaitGroup
	for range o.conns {
		wg.Go(func() {
			var b []byte
			for {
				n := int(next.Add(25)) - 25
				if n >= total {
					return
				}
				b = k.batchWrite(b[:0], n, min(25, total-n))
				// Throttling is off in a benchmark, so nothing comes back
				// unprocessed; a refusal is an error worth stopping for.
				out, err := c.do(ctx, "BatchWriteItem", b)
				var r struct{ UnprocessedItems map[string]json.RawMessage }
				if err == nil && (json.Unmarshal(out, &r) != nil || len(r.UnprocessedItems) > 0) {
					err = fmt.Errorf("BatchWriteItem left items unprocessed: %.200s", out)
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
	return <-errs // nil when none
}

// measure runs o.conns workers, each with one request in flight, for the
// warm-up and then the measured phase (or until o.maxOps requests).
func measure(ctx context.Context, c *client, k keyspace, op string, o options) result {
	start := time.Now()
	measureFrom := start.Add(o.warmup)
	end := measureFrom.Add(o.duration)
	if o.duration <= 0 {
		end = start.Add(100 * 365 * 24 * time.Hour) // bounded by -n alone
	}
	var (
		sent      atomic.Int64
		failed    atomic.Int64
		firstFail atomic.Value
		lat       = make([][]time.Duration, o.conns)
		wg        sync.WaitGroup
	)
	// The server's CPU is sampled when the measured phase starts and once
	// every worker has stopped.
	cpu0 := make(chan time.Duration, 1)
	if o.pid > 0 {
		go func() {
			time.Sleep(time.Until(measureFrom))
			c, _ := processCPU(o.pid) // checked readable by parse
			cpu0 <- c
		}()
	}
	for w := range o.conns {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			l := make([]time.Duration, 0, 1<<14)
			var b []byte
			for ctx.Err() == nil {
				if o.maxOps > 0 && sent.Add(1) > int64(o.maxOps) {
					break
				}
				target, body := k.next(b[:0], op, r)
				b = body
				t0 := time.Now()
				if t0.After(end) {
					break
				}
				out, err := c.do(ctx, target, body)
				if err == nil && target == "GetItem" && !bytes.Contains(out, []byte(`"Item"`)) {
					err = fmt.Errorf("GetItem found no item: %.200s", out)
				}
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					if failed.Add(1) == 1 {
						firstFail.Store(err.Error())
					}
					continue
				}
				l = append(l, time.Since(t0))
			}
			lat[w] = l
		})
	}
	wg.Wait()
	stopped := time.Now()
	if stopped.After(end) {
		stopped = end
	}
	res := result{op: op, errors: int(failed.Load()), elapsed: stopped.Sub(measureFrom)}
	if res.elapsed < 0 {
		res.elapsed = 0
	}
	for _, l := range lat {
		res.ops += len(l)
	}
	if o.pid > 0 && res.elapsed > 0 {
		c1, err := processCPU(o.pid)
		if err == nil {
			res.serverCPU = c1 - <-cpu0
			res.cpuMeasured = true
		}
	}
	if s, ok := firstFail.Load().(string); ok {
		res.firstFail = s
	}
	summarize(&res, lat)
	return res
}

// serveCanned serves the canned response on addr until ctx ends: the
// ceiling as a process of its own, as the server under test is.
func serveCanned(ctx context.Context, addr string, itemSize int, progress io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: cannedHandler(cannedGetItem(itemSize))}
	fmt.Fprintf(progress, "loadgen: serving the canned response on http://%s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// cannedGetItem is a GetItem response whose item is about itemSize bytes.
func cannedGetItem(itemSize int) []byte {
	k := newKeyspace("canned", batchKeys, itemSize)
	return append(k.appendItem([]byte(`{"Item":`), 0, 0), '}')
}

// cannedHandler answers every request with body and the headers DynamoDB
// sends, after reading the request as a real server must.
func cannedHandler(body []byte) http.Handler {
	crc := strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "application/x-amz-json-1.0")
		h.Set("Content-Length", length)
		h.Set("X-Amz-Crc32", crc)
		h.Set("X-Amzn-Requestid", "LOADGENCANNEDRESPONSE0000000000000000000000000000000")
		_, _ = w.Write(body)
	})
}
