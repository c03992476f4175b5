package kinesis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	ktypes "github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	sink "github.com/extenddb/extenddb/sink/kinesis"
)

// Delivery to a real local Kinesis server: kinesalite (npm), started by the
// test on a free loopback port. .ci/run installs it and exports
// EXTENDDB_KINESALITE_DIR (a directory holding node_modules/kinesalite);
// without it the test looks in $TMPDIR/extenddb-kinesalite, and skips
// when node or the package is missing.

const account = "111122223333"

// kinesalite is one kinesalite process; restart brings it back on the same
// port (empty: it keeps streams in memory).
type kinesalite struct {
	t    *testing.T
	cli  string
	port int
	cmd  *exec.Cmd
}

func kinesaliteCLI(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: skipping the kinesalite delivery test (install Node.js and `npm install kinesalite`)")
	}
	dirs := []string{os.Getenv("EXTENDDB_KINESALITE_DIR"), filepath.Join(os.TempDir(), "extenddb-kinesalite")}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		cli := filepath.Join(d, "node_modules", "kinesalite", "cli.js")
		if _, err := os.Stat(cli); err == nil {
			_ = node
			return cli
		}
	}
	t.Skipf("kinesalite is not installed: skipping the delivery test (run `npm install --prefix DIR kinesalite` and set EXTENDDB_KINESALITE_DIR=DIR; looked in %v)", dirs)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startKinesalite(t *testing.T) *kinesalite {
	k := &kinesalite{t: t, cli: kinesaliteCLI(t), port: freePort(t)}
	k.start()
	t.Cleanup(k.stop)
	return k
}

func (k *kinesalite) url() string { return "http://127.0.0.1:" + strconv.Itoa(k.port) }

func (k *kinesalite) start() {
	k.t.Helper()
	k.cmd = exec.Command("node", k.cli, "--host", "127.0.0.1", "--port", strconv.Itoa(k.port),
		"--createStreamMs", "0", "--deleteStreamMs", "0", "--updateStreamMs", "0")
	k.cmd.Stdout, k.cmd.Stderr = os.Stderr, os.Stderr
	if err := k.cmd.Start(); err != nil {
		k.t.Fatalf("starting kinesalite: %v", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(k.port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("kinesalite did not listen on port %d: %v", k.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (k *kinesalite) stop() {
	if k.cmd == nil {
		return
	}
	_ = k.cmd.Process.Kill()
	_ = k.cmd.Wait()
	k.cmd = nil
}

func (k *kinesalite) client() *kinesis.Client {
	return kinesis.New(kinesis.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(k.url()),
		Credentials: credentials.NewStaticCredentialsProvider("k", "k", ""),
	})
}

func (k *kinesalite) createStream(name string) {
	k.t.Helper()
	ctx := context.Background()
	c := k.client()
	if _, err := c.CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: aws.String(name), ShardCount: aws.Int32(1)}); err != nil {
		k.t.Fatalf("CreateStream: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		d, err := c.DescribeStreamSummary(ctx, &kinesis.DescribeStreamSummaryInput{StreamName: aws.String(name)})
		if err == nil && d.StreamDescriptionSummary.StreamStatus == ktypes.StreamStatusActive {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("stream %s not ACTIVE: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// record is what DynamoDB writes to Kinesis, as a consumer decodes it.
type record struct {
	AwsRegion    string `json:"awsRegion"`
	EventID      string `json:"eventID"`
	EventName    string `json:"eventName"`
	EventSource  string `json:"eventSource"`
	RecordFormat string `json:"recordFormat"`
	TableName    string `json:"tableName"`
	UserIdentity *struct {
		PrincipalID string `json:"principalId"`
		Type        string `json:"type"`
	} `json:"userIdentity"`
	Dynamodb struct {
		ApproximateCreationDateTime int64                                 `json:"ApproximateCreationDateTime"`
		Keys                        map[string]map[string]json.RawMessage `json:"Keys"`
		NewImage                    map[string]map[string]json.RawMessage `json:"NewImage"`
		OldImage                    map[string]map[string]json.RawMessage `json:"OldImage"`
		SizeBytes                   int64                                 `json:"SizeBytes"`
	} `json:"dynamodb"`
	partitionKey string
}

func (r record) String() string {
	return fmt.Sprintf("%s %v old=%v new=%v", r.EventName, r.Dynamodb.Keys, r.Dynamodb.OldImage, r.Dynamodb.NewImage)
}

// readAll waits until the stream holds want records (from its start) and
// returns them.
func (k *kinesalite) readAll(stream string, want int) []record {
	k.t.Helper()
	ctx := context.Background()
	c := k.client()
	var got []record
	deadline := time.Now().Add(15 * time.Second)
	for {
		got = got[:0]
		it, err := c.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{StreamName: aws.String(stream), ShardId: aws.String("shardId-000000000000"), ShardIteratorType: ktypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			k.t.Fatalf("GetShardIterator: %v", err)
		}
		iter := it.ShardIterator
		for iter != nil {
			out, err := c.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				k.t.Fatalf("GetRecords: %v", err)
			}
			for _, r := range out.Records {
				var rec record
				if err := json.Unmarshal(r.Data, &rec); err != nil {
					k.t.Fatalf("record %q: %v", r.Data, err)
				}
				rec.partitionKey = aws.ToString(r.PartitionKey)
				got = append(got, rec)
			}
			if len(out.Records) == 0 {
				break
			}
			iter = out.NextShardIterator
		}
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func s(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }

func pkOf(r record) string { return strings.Trim(string(r.Dynamodb.Keys["pk"]["S"]), `"`) }

func attr(img map[string]map[string]json.RawMessage, name string) string {
	if img == nil || img[name] == nil {
		return ""
	}
	for _, v := range img[name] {
		return strings.Trim(string(v), `"`)
	}
	return ""
}

func TestDeliveryToKinesalite(t *testing.T) {
	k := startKinesalite(t)
	k.createStream("orders")
	snk, err := sink.New(sink.Options{Endpoint: k.url()})
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(t, testserver.WithEngineOptions(func(o *emulator.Options) {
		o.Kinesis = snk
		o.TTLInterval = 50 * time.Millisecond
	}))
	c := srv.ClientFor("us-east-1", account)
	ctx := context.Background()
	for _, name := range []string{"orders", "missing"} {
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
			KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash}},
			BillingMode:          ddbtypes.BillingModePayPerRequest,
		}); err != nil {
			t.Fatal(err)
		}
	}
	streamARN := "arn:aws:kinesis:us-east-1:" + account + ":stream/"
	// A stream Kinesis does not have: ENABLE_FAILED.
	if _, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("missing"), StreamArn: aws.String(streamARN + "nope")}); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("missing")})
	if err != nil || len(d.KinesisDataStreamDestinations) != 1 || d.KinesisDataStreamDestinations[0].DestinationStatus != ddbtypes.DestinationStatusEnableFailed ||
		aws.ToString(d.KinesisDataStreamDestinations[0].DestinationStatusDescription) == "" {
		t.Fatalf("missing stream: %+v, %v", d, err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("missing"), Item: map[string]ddbtypes.AttributeValue{"pk": s("lost")}}); err != nil {
		t.Fatal(err)
	}

	if _, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("orders"), StreamArn: aws.String(streamARN + "orders"),
		EnableKinesisStreamingConfiguration: &ddbtypes.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: ddbtypes.ApproximateCreationDateTimePrecisionMicrosecond}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("orders"),
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	// Every write path: single item, update, batch, transaction, PartiQL, delete, TTL.
	steps := []func() error{
		func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]ddbtypes.AttributeValue{"pk": s("a"), "v": s("1")}})
			return err
		},
		func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("orders"), Key: map[string]ddbtypes.AttributeValue{"pk": s("a")},
				UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": s("2")}})
			return err
		},
		func() error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{"orders": {
				{PutRequest: &ddbtypes.PutRequest{Item: map[string]ddbtypes.AttributeValue{"pk": s("b")}}}}}})
			return err
		},
		func() error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
				{Put: &ddbtypes.Put{TableName: aws.String("orders"), Item: map[string]ddbtypes.AttributeValue{"pk": s("c")}}}}})
			return err
		},
		func() error {
			_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "orders" VALUE {'pk': 'd'}`)})
			return err
		},
		func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("orders"), Key: map[string]ddbtypes.AttributeValue{"pk": s("a")}})
			return err
		},
		func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]ddbtypes.AttributeValue{
				"pk": s("t"), "exp": &ddbtypes.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)}}})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	got := k.readAll("orders", 8)
	want := []string{"INSERT a", "MODIFY a", "INSERT b", "INSERT c", "INSERT d", "REMOVE a", "INSERT t", "REMOVE t"}
	if len(got) != len(want) {
		t.Fatalf("got %d records %v, want %v", len(got), got, want)
	}
	for i, r := range got {
		if r.EventName+" "+pkOf(r) != want[i] {
			t.Fatalf("record %d = %v, want %s", i, r, want[i])
		}
		if r.AwsRegion != "us-east-1" || r.EventSource != "aws:dynamodb" || r.RecordFormat != "application/json" || r.TableName != "orders" || r.EventID == "" || r.Dynamodb.SizeBytes <= 0 {
			t.Fatalf("record %d: %+v", i, r)
		}
		// MICROSECOND precision: epoch microseconds.
		if ts := time.UnixMicro(r.Dynamodb.ApproximateCreationDateTime); ts.Before(before.Add(-time.Second)) || ts.After(time.Now()) {
			t.Fatalf("record %d: ApproximateCreationDateTime %d is not in microseconds of now", i, r.Dynamodb.ApproximateCreationDateTime)
		}
	}
	// Images: INSERT new only, MODIFY both, REMOVE old only; TTL deletes by the service.
	if got[0].Dynamodb.OldImage != nil || attr(got[0].Dynamodb.NewImage, "v") != "1" ||
		attr(got[1].Dynamodb.OldImage, "v") != "1" || attr(got[1].Dynamodb.NewImage, "v") != "2" ||
		got[5].Dynamodb.NewImage != nil || attr(got[5].Dynamodb.OldImage, "v") != "2" {
		t.Fatalf("images: %v", got[:6])
	}
	if got[0].UserIdentity != nil || got[7].UserIdentity == nil || got[7].UserIdentity.PrincipalID != "dynamodb.amazonaws.com" || got[7].UserIdentity.Type != "Service" {
		t.Fatalf("userIdentity: %+v / %+v", got[0].UserIdentity, got[7].UserIdentity)
	}
	if got[0].partitionKey == "" || got[0].partitionKey != got[1].partitionKey || got[0].partitionKey == got[2].partitionKey {
		t.Fatalf("partition keys: %q %q %q", got[0].partitionKey, got[1].partitionKey, got[2].partitionKey)
	}

	// Kinesis goes away: writes are still acknowledged, queued, kept
	// across a restart of ExtendDB, and delivered once Kinesis is back.
	k.stop()
	for _, pk := range []string{"x1", "x2"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]ddbtypes.AttributeValue{"pk": s(pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	srv.Restart()
	c = srv.ClientFor("us-east-1", account)
	time.Sleep(300 * time.Millisecond) // let the restarted deliverer fail at least once
	k.start()                          // in memory: the stream is gone until re-created
	k.createStream("orders")
	// Nothing wakes the deliverer but its own retry: what was queued before
	// the restart arrives.
	if got := recordKeys(k.readAll("orders", 2)); got != "INSERT x1,INSERT x2" {
		t.Fatalf("after the outage and restart: %v", got)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]ddbtypes.AttributeValue{"pk": s("x3")}}); err != nil {
		t.Fatal(err)
	}
	if got := recordKeys(k.readAll("orders", 3)); got != "INSERT x1,INSERT x2,INSERT x3" {
		t.Fatalf("after the outage: %v", got)
	}

	// Replicated writes: a replica in another Region with a destination of
	// its own delivers the changes it applies (not its seeding copies).
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"),
		ReplicaUpdates: []ddbtypes.ReplicationGroupUpdate{{Create: &ddbtypes.CreateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1")}}}}); err != nil {
		t.Fatal(err)
	}
	eu := srv.ClientFor("eu-west-1", account)
	for deadline := time.Now().Add(10 * time.Second); ; {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
		if err == nil && len(d.Table.Replicas) == 1 && d.Table.Replicas[0].ReplicaStatus == ddbtypes.ReplicaStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica not ACTIVE: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	k.createStream("replica")
	if _, err := eu.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("orders"),
		StreamArn: aws.String("arn:aws:kinesis:eu-west-1:" + account + ":stream/replica")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: map[string]ddbtypes.AttributeValue{"pk": s("r1")}}); err != nil {
		t.Fatal(err)
	}
	rep := k.readAll("replica", 1)
	if got := recordKeys(rep); got != "INSERT r1" || rep[0].AwsRegion != "eu-west-1" {
		t.Fatalf("replica stream: %v", rep)
	}
	if got := recordKeys(k.readAll("orders", 4)); got != "INSERT x1,INSERT x2,INSERT x3,INSERT r1" {
		t.Fatalf("home stream: %v", got)
	}
}

func recordKeys(rs []record) string {
	var keys []string
	for _, r := range rs {
		keys = append(keys, r.EventName+" "+pkOf(r))
	}
	return strings.Join(keys, ",")
}
