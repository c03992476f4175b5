package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// itemsPerPartition is how many items share a partition key: a Query reads
// one partition, so it returns this many items.
const itemsPerPartition = 10

// batchKeys is the number of keys one BatchGetItem asks for (DynamoDB's
// maximum).
const batchKeys = 100

// client sends raw JSON 1.0 requests to one endpoint.
type client struct {
	endpoint string
	region   string
	hc       *http.Client
}

func newClient(endpoint, region string, conns int) *client {
	return &client{
		endpoint: endpoint,
		region:   region,
		hc: &http.Client{Transport: &http.Transport{
			Proxy:               nil, // loopback only: never through a proxy
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			DisableCompression:  true,
			IdleConnTimeout:     time.Minute,
		}},
	}
}

// checkLoopback refuses an endpoint that is not this machine: the generator
// is for a local server, never a real DynamoDB endpoint.
func checkLoopback(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("-endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "http" {
		return fmt.Errorf("-endpoint %q: must be http://", endpoint)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-endpoint %q: must be a loopback address (127.0.0.1, ::1 or localhost)", endpoint)
}

// newRequest is a POST of body to target with the headers the SDK sends.
// The date is the request's own, as SigV4 has it; the signature is a
// placeholder because ExtendDB reads only the credential scope.
func (c *client) newRequest(ctx context.Context, target string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	h := req.Header
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amz-Target", "DynamoDB_20120810."+target)
	h.Set("X-Amz-Date", now.Format("20060102T150405Z"))
	h.Set("User-Agent", "extenddb-loadgen")
	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDLOADGEN/"+now.Format("20060102")+"/"+c.region+
		"/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature="+strings.Repeat("0", 64))
	return req, nil
}

// do sends one request and reads the whole response, so the connection
// goes back to the pool. A non-200 status is an error carrying the body.
func (c *client) do(ctx context.Context, target string, body []byte) ([]byte, error) {
	req, err := c.newRequest(ctx, target, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("%s: HTTP %d: %s", target, resp.StatusCode, out)
	}
	return out, nil
}

// keyspace is the table and the items the load touches: partitions
// partition keys of itemsPerPartition items each, every item about
// itemSize bytes as DynamoDB counts them.
type keyspace struct {
	table      string
	partitions int
	itemSize   int
	filler     string // the data attribute's value, sized once
}

func newKeyspace(table string, partitions, itemSize int) keyspace {
	// DynamoDB's size: attribute names plus values. pk "p0000123" (2+8),
	// sk up to 2 digits counted as a number (2+2), "data" (4): 20 bytes.
	n := max(1, itemSize-20)
	return keyspace{table: table, partitions: partitions, itemSize: itemSize, filler: strings.Repeat("x", n)}
}

func pk(p int) string { return fmt.Sprintf("p%07d", p) }

func appendKey(b []byte, p, s int) []byte {
	b = append(b, `{"pk":{"S":"`...)
	b = append(b, pk(p)...)
	b = append(b, `"},"sk":{"N":"`...)
	b = strconv.AppendInt(b, int64(s), 10)
	return append(b, `"}}`...)
}

func (k keyspace) appendItem(b []byte, p, s int) []byte {
	b = appendKey(b, p, s)
	b = b[:len(b)-1] // reopen the key object to add the payload
	b = append(b, `,"data":{"S":"`...)
	b = append(b, k.filler...)
	return append(b, `"}}`...)
}

func (k keyspace) putItem(b []byte, p, s int) []byte {
	b = append(b, `{"TableName":"`...)
	b = append(b, k.table...)
	b = append(b, `","Item":`...)
	b = k.appendItem(b, p, s)
	return append(b, '}')
}

func (k keyspace) getItem(b []byte, p, s int) []byte {
	b = append(b, `{"TableName":"`...)
	b = append(b, k.table...)
	b = append(b, `","Key":`...)
	b = appendKey(b, p, s)
	return append(b, '}')
}

func (k keyspace) query(b []byte, p int) []byte {
	b = append(b, `{"TableName":"`...)
	b = append(b, k.table...)
	b = append(b, `","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"`...)
	b = append(b, pk(p)...)
	return append(b, `"}}}`...)
}

// batchGet asks for batchKeys distinct keys: every item of the partitions
// from first on (wrapping), so no key repeats (DynamoDB refuses duplicates).
func (k keyspace) batchGet(b []byte, first int) []byte {
	b = append(b, `{"RequestItems":{"`...)
	b = append(b, k.table...)
	b = append(b, `":{"Keys":[`...)
	for i := range batchKeys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, (first+i/itemsPerPartition)%k.partitions, i%itemsPerPartition)
	}
	return append(b, `]}}}`...)
}

// batchWrite puts the items n..n+count-1 of the keyspace (numbered
// partition-major); count is at most 25, DynamoDB's limit.
func (k keyspace) batchWrite(b []byte, n, count int) []byte {
	b = append(b, `{"RequestItems":{"`...)
	b = append(b, k.table...)
	b = append(b, `":[`...)
	for i := range count {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"PutRequest":{"Item":`...)
		b = k.appendItem(b, (n+i)/itemsPerPartition, (n+i)%itemsPerPartition)
		b = append(b, `}}`...)
	}
	return append(b, `]}}`...)
}

func (k keyspace) createTable() []byte {
	return []byte(`{"TableName":"` + k.table + `","BillingMode":"PAY_PER_REQUEST",` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`)
}

func (k keyspace) tableOnly() []byte { return []byte(`{"TableName":"` + k.table + `"}`) }

// next builds worker's next request of op: its target and body, appended
// to b. mixed is 45% GetItem, 45% PutItem, 5% Query, 5% BatchGetItem.
func (k keyspace) next(b []byte, op string, r *rand.Rand) (string, []byte) {
	if op == "mixed" {
		switch n := r.IntN(100); {
		case n < 45:
			op = "get"
		case n < 90:
			op = "put"
		case n < 95:
			op = "query"
		default:
			op = "batchget"
		}
	}
	p, s := r.IntN(k.partitions), r.IntN(itemsPerPartition)
	switch op {
	case "put":
		return "PutItem", k.putItem(b, p, s)
	case "query":
		return "Query", k.query(b, p)
	case "batchget":
		return "BatchGetItem", k.batchGet(b, p)
	default:
		return "GetItem", k.getItem(b, p, s)
	}
}
