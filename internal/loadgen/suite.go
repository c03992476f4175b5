package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The test-suite workload (-op suite): what a developer's integration
// tests ask of a local DynamoDB. Each test creates a table with a global
// secondary index (and waits for it, as SDK waiters do), puts
// suitePuts items one request at a time, runs suiteQueries Queries (the
// last on the index), suiteUpdates UpdateItems and one
// TransactWriteItems, and deletes the table. -tests tests run one after
// another on each of -c connections, which share them.
const (
	suitePuts       = 100
	suiteQueries    = 10
	suiteUpdates    = 10
	suitePartitions = 10 // partition keys of the table; each holds suitePuts/suitePartitions items
	suiteGroups     = 5  // partition keys of the index
)

// suiteOps are the request kinds of a test, in the order the summary
// prints them.
var suiteOps = []string{"CreateTable", "DescribeTable", "PutItem", "Query", "UpdateItem", "TransactWriteItems", "DeleteTable"}

// suiteResult is a suite run's outcome.
type suiteResult struct {
	tests, conns int
	errors       int
	firstFail    string
	elapsed      time.Duration
	perTest      []time.Duration            // each test's wall time
	perOp        map[string][]time.Duration // each request's latency by kind
	noTransact   bool                       // the server lacks TransactWriteItems: left out
}

// line is the one-line summary: the whole run's wall time and that time
// per test (what a suite feels), a test's own p50 and p99, and each
// request kind's p50 (ms) and count.
func (r suiteResult) line() string {
	var b strings.Builder
	slices.Sort(r.perTest)
	fmt.Fprintf(&b, "op=suite tests=%d conns=%d errors=%d seconds=%.3f ms_per_test=%.2f test_p50_ms=%.2f test_p99_ms=%.2f",
		len(r.perTest), r.conns, r.errors, r.elapsed.Seconds(), ms(r.elapsed)/float64(max(1, len(r.perTest))),
		ms(percentile(r.perTest, 50)), ms(percentile(r.perTest, 99)))
	for _, op := range suiteOps {
		l := r.perOp[op]
		if len(l) == 0 {
			continue
		}
		slices.Sort(l)
		fmt.Fprintf(&b, " %s_p50_ms=%.3f %s_n=%d", op, ms(percentile(l, 50)), op, len(l))
	}
	if r.noTransact {
		b.WriteString(" transact=unsupported")
	}
	return b.String()
}

// runSuite runs o.tests tests over o.conns connections.
func runSuite(ctx context.Context, c *client, o options) suiteResult {
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var (
		next       atomic.Int64
		noTransact atomic.Bool
		mu         sync.Mutex
		res        = suiteResult{tests: o.tests, conns: o.conns, perOp: map[string][]time.Duration{}}
		wg         sync.WaitGroup
	)
	filler := strings.Repeat("x", max(1, o.itemSize-40))
	start := time.Now()
	for range o.conns {
		wg.Go(func() {
			t := suiteTest{c: c, filler: filler, perOp: map[string][]time.Duration{}, noTransact: &noTransact}
			var perTest []time.Duration
			var errs int
			var first string
			for ctx.Err() == nil {
				n := int(next.Add(1))
				if n > o.tests {
					break
				}
				t.table = "suite-" + run + "-" + strconv.Itoa(n)
				t0 := time.Now()
				if err := t.run(ctx); err != nil {
					errs++
					if first == "" {
						first = err.Error()
					}
					// Leave no table behind, whatever failed.
					_, _ = c.do(context.WithoutCancel(ctx), "DeleteTable", t.tableOnly())
					continue
				}
				perTest = append(perTest, time.Since(t0))
			}
			mu.Lock()
			defer mu.Unlock()
			res.perTest = append(res.perTest, perTest...)
			for op, l := range t.perOp {
				res.perOp[op] = append(res.perOp[op], l...)
			}
			res.errors += errs
			if res.firstFail == "" {
				res.firstFail = first
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.noTransact = noTransact.Load()
	return res
}

// suiteTest is one connection's worker: it runs one test at a time.
type suiteTest struct {
	c          *client
	table      string
	filler     string
	perOp      map[string][]time.Duration
	noTransact *atomic.Bool
	b          []byte
}

// do sends one request and records its latency under its kind.
func (t *suiteTest) do(ctx context.Context, target string, body []byte) ([]byte, error) {
	t0 := time.Now()
	out, err := t.c.do(ctx, target, body)
	if err == nil {
		t.perOp[target] = append(t.perOp[target], time.Since(t0))
	}
	return out, err
}

func (t *suiteTest) tableOnly() []byte { return []byte(`{"TableName":"` + t.table + `"}`) }

func (t *suiteTest) run(ctx context.Context) error {
	if _, err := t.do(ctx, "CreateTable", t.createTable()); err != nil {
		return err
	}
	// Wait for ACTIVE, as an SDK waiter does (a local server is usually
	// ACTIVE at once; one DescribeTable then).
	for waited := time.Duration(0); ; waited += 5 * time.Millisecond {
		out, err := t.do(ctx, "DescribeTable", t.tableOnly())
		if err != nil {
			return err
		}
		var d struct {
			Table struct {
				TableStatus            string
				GlobalSecondaryIndexes []struct{ IndexStatus string }
			}
		}
		if err := json.Unmarshal(out, &d); err != nil {
			return fmt.Errorf("the DescribeTable answer: %w: %.300s", err, out)
		}
		active := d.Table.TableStatus == "ACTIVE"
		for _, g := range d.Table.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == "ACTIVE"
		}
		if active {
			break
		}
		if waited > 30*time.Second {
			return fmt.Errorf("the table is not ACTIVE after 30 s: %.300s", out)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	for i := range suitePuts {
		if _, err := t.do(ctx, "PutItem", t.putItem(i)); err != nil {
			return err
		}
	}
	for i := range suiteQueries {
		want, body := suitePuts/suitePartitions, t.query(i)
		if i == suiteQueries-1 {
			want, body = suitePuts/suiteGroups, t.queryIndex(0)
		}
		out, err := t.do(ctx, "Query", body)
		if err != nil {
			return err
		}
		var q struct{ Count int }
		if err := json.Unmarshal(out, &q); err != nil || q.Count != want {
			return fmt.Errorf("the Query answer: want Count %d: %v: %.300s", want, err, out)
		}
	}
	for i := range suiteUpdates {
		if _, err := t.do(ctx, "UpdateItem", t.updateItem(i)); err != nil {
			return err
		}
	}
	if !t.noTransact.Load() {
		if out, err := t.do(ctx, "TransactWriteItems", t.transactWrite()); err != nil {
			if !bytes.Contains(out, []byte("UnknownOperation")) {
				return err
			}
			t.noTransact.Store(true)
		}
	}
	_, err := t.do(ctx, "DeleteTable", t.tableOnly())
	return err
}

func (t *suiteTest) createTable() []byte {
	return []byte(`{"TableName":"` + t.table + `","BillingMode":"PAY_PER_REQUEST",` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],` +
		`"GlobalSecondaryIndexes":[{"IndexName":"byGroup","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],` +
		`"Projection":{"ProjectionType":"ALL"}}]}`)
}

func suiteKey(b []byte, i int) []byte {
	b = append(b, `{"pk":{"S":"p`...)
	b = strconv.AppendInt(b, int64(i%suitePartitions), 10)
	b = append(b, `"},"sk":{"N":"`...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, `"}}`...)
}

func (t *suiteTest) putItem(i int) []byte {
	b := append(t.b[:0], `{"TableName":"`...)
	b = append(b, t.table...)
	b = append(b, `","Item":`...)
	b = suiteKey(b, i)
	b = b[:len(b)-1]
	b = append(b, `,"g":{"S":"g`...)
	b = strconv.AppendInt(b, int64(i%suiteGroups), 10)
	b = append(b, `"},"n":{"N":"0"},"data":{"S":"`...)
	b = append(b, t.filler...)
	b = append(b, `"}}}`...)
	t.b = b
	return b
}

func (t *suiteTest) query(p int) []byte {
	return []byte(`{"TableName":"` + t.table + `","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p` +
		strconv.Itoa(p%suitePartitions) + `"}}}`)
}

func (t *suiteTest) queryIndex(g int) []byte {
	return []byte(`{"TableName":"` + t.table + `","IndexName":"byGroup","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"g` +
		strconv.Itoa(g) + `"}}}`)
}

func (t *suiteTest) updateItem(i int) []byte {
	b := append(t.b[:0], `{"TableName":"`...)
	b = append(b, t.table...)
	b = append(b, `","Key":`...)
	b = suiteKey(b, i)
	b = append(b, `,"UpdateExpression":"SET n = n + :one, g = :g","ConditionExpression":"attribute_exists(pk)",`+
		`"ExpressionAttributeValues":{":one":{"N":"1"},":g":{"S":"g9"}},"ReturnValues":"UPDATED_NEW"}`...)
	t.b = b
	return b
}

// transactWrite puts a new item, updates one, deletes one and checks a
// fourth exists: one action of each kind.
func (t *suiteTest) transactWrite() []byte {
	tn := `"TableName":"` + t.table + `"`
	key := func(i int) string { return string(suiteKey(nil, i)) }
	return []byte(`{"TransactItems":[` +
		`{"Put":{` + tn + `,"Item":{"pk":{"S":"p0"},"sk":{"N":"1000"},"g":{"S":"g0"},"n":{"N":"0"}},"ConditionExpression":"attribute_not_exists(pk)"}},` +
		`{"Update":{` + tn + `,"Key":` + key(11) + `,"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}},` +
		`{"Delete":{` + tn + `,"Key":` + key(12) + `}},` +
		`{"ConditionCheck":{` + tn + `,"Key":` + key(13) + `,"ConditionExpression":"attribute_exists(pk)"}}]}`)
}
