package emulator_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Control-plane and Streams behaviours the public suites written against
// DynamoDB pin (issue 11), through the real SDK clients.

func TestConformanceDeleteTableDescription(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String("gone"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("gone")})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if d.KeySchema != nil || d.AttributeDefinitions != nil || d.CreationDateTime != nil {
		t.Errorf("DeleteTable description carries KeySchema %v, AttributeDefinitions %v, CreationDateTime %v; DynamoDB's has none of them",
			d.KeySchema, d.AttributeDefinitions, d.CreationDateTime)
	}
	if aws.ToString(d.TableName) != "gone" || d.TableStatus != types.TableStatusDeleting || aws.ToString(d.TableArn) == "" {
		t.Errorf("DeleteTable description %+v lacks name, DELETING or ARN", d)
	}
}

func TestConformanceUpdateTableRetypedGSIKey(t *testing.T) {
	s := testserver.New(t)
	c := s.Client
	_, err := c.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName: aws.String("retype"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("p"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("xyz"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("index1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("xyz"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	create := func(index, attr string, typ types.ScalarAttributeType, defs ...types.AttributeDefinition) error {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(attr), AttributeType: typ})
		_, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{
			TableName:            aws.String("retype"),
			AttributeDefinitions: defs,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:  aws.String(index),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(attr), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}}},
		})
		return err
	}
	wantAPIError(t, create("index2", "xyz", types.ScalarAttributeTypeN), "ValidationException",
		"One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{xyz:S:HASH}] New schema: Schema:[SchemaElement: key{xyz:N:HASH}]")
	// A conflicting definition of an attribute the new index does not key
	// on is ignored, as the service does.
	if err := create("index3", "g", types.ScalarAttributeTypeS, types.AttributeDefinition{AttributeName: aws.String("p"), AttributeType: types.ScalarAttributeTypeN}); err != nil {
		t.Fatal(err)
	}
	// Its backfill runs in the background; one index change at a time.
	waitIndexActive(t, c, "retype", "index3")
	// Once no live index keys on it, the attribute may take a new type.
	if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("retype"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("index1")}}}}); err != nil {
		t.Fatal(err)
	}
	if err := create("index4", "xyz", types.ScalarAttributeTypeN); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("retype")})
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]types.ScalarAttributeType{}
	for _, a := range d.Table.AttributeDefinitions {
		defs[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	if defs["p"] != "S" || defs["xyz"] != "N" {
		t.Errorf("attribute definitions %v, want p:S and xyz:N", defs)
	}
}

// stepClock is a settable engine clock.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// streamWithTwoShards returns a stream whose first shard has rolled over to
// a child.
func streamWithTwoShards(t *testing.T) (*testserver.Server, *dynamodbstreams.Client, string) {
	t.Helper()
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) {
		o.StreamShardRollover = time.Hour
		o.TTLInterval = -1
	}))
	out, err := s.Client.CreateTable(t.Context(), &dynamodb.CreateTableInput{
		TableName:            aws.String("stt"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly},
	})
	if err != nil {
		t.Fatal(err)
	}
	put := func(pk string) {
		if _, err := s.Client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("stt"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}}); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	clk.add(2 * time.Hour)
	put("b")
	return s, dynamodbstreams.NewFromConfig(s.AWSConfig(testserver.DefaultRegion, testserver.DefaultAccessKeyID)), aws.ToString(out.TableDescription.LatestStreamArn)
}

func TestConformanceDescribeStreamShardFilter(t *testing.T) {
	_, st, arn := streamWithTwoShards(t)
	all, err := st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn})
	if err != nil {
		t.Fatal(err)
	}
	shards := all.StreamDescription.Shards
	if len(shards) != 2 || aws.ToString(shards[1].ParentShardId) != aws.ToString(shards[0].ShardId) {
		t.Fatalf("want a parent and its child, got %+v", shards)
	}
	parent, child := aws.ToString(shards[0].ShardId), aws.ToString(shards[1].ShardId)
	got, err := st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn,
		ShardFilter: &sttypes.ShardFilter{Type: sttypes.ShardFilterTypeChildShards, ShardId: &parent}})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.StreamDescription.Shards; len(s) != 1 || aws.ToString(s[0].ShardId) != child {
		t.Errorf("CHILD_SHARDS of the parent: %+v, want only %s", s, child)
	}
	got, err = st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn,
		ShardFilter: &sttypes.ShardFilter{Type: sttypes.ShardFilterTypeChildShards, ShardId: &child}})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.StreamDescription.Shards; len(s) != 0 {
		t.Errorf("CHILD_SHARDS of the open shard: %+v, want none", s)
	}
	_, err = st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn,
		ShardFilter: &sttypes.ShardFilter{Type: "PARENT_SHARDS", ShardId: &parent}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]")
	_, err = st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn,
		ShardFilter: &sttypes.ShardFilter{Type: sttypes.ShardFilterTypeChildShards, ShardId: aws.String("short")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'short' at 'shardFilter.shardId' failed to satisfy constraint: Member must have length greater than or equal to 28")

	// An ExclusiveStartShardId the stream does not have lists nothing.
	unknown := "shardId-00000000000000000000-00000000"
	got, err = st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn, ExclusiveStartShardId: &unknown})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.StreamDescription.Shards; len(s) != 0 {
		t.Errorf("unknown ExclusiveStartShardId listed %d shards, want none", len(s))
	}
	got, err = st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &arn, ExclusiveStartShardId: &parent})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.StreamDescription.Shards; len(s) != 1 || aws.ToString(s[0].ShardId) != child {
		t.Errorf("shards after the parent: %+v, want only %s", s, child)
	}
}

func TestConformanceStreamsValidation(t *testing.T) {
	_, st, arn := streamWithTwoShards(t)
	_, err := st.ListStreams(t.Context(), &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(101)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")
	if _, err := st.ListStreams(t.Context(), &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(100)}); err != nil {
		t.Fatal(err)
	}

	malformed := []string{
		"arn:aws:dynamodb:us-east-1:000000000000:nottable/stt/stream/2026-03-01",
		"arn:aws:dynamodb:us-east-1:000000000000:table/stt/notstream/2026-03-01",
		"arn:aws:s3:us-east-1:000000000000:table/stt/stream/2026-03-01T12:00:00",
		strings.Replace(arn, "arn:", "urn:", 1),
	}
	shard := "shardId-00000000000000000000-00000000"
	for _, bad := range malformed {
		_, err := st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(bad)})
		wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
		_, err = st.GetShardIterator(t.Context(), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(bad), ShardId: &shard, ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon})
		wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
		_, err = st.ListStreams(t.Context(), &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String(bad)})
		wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
	}
	// A well-formed ARN naming no stream is still not found.
	missing := strings.Replace(arn, "table/stt/", "table/nope/", 1)
	_, err = st.DescribeStream(t.Context(), &dynamodbstreams.DescribeStreamInput{StreamArn: &missing})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+missing+" not found")
}

func wantAPIError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Errorf("got %v\nwant %s: %s", err, code, msg)
	}
}

// TestConformanceThrottleInitialBurst: a fresh 5/5 provisioned table, with
// the clock standing still, serves five 1-WCU writes by default and twenty
// with ThrottleOptions.InitialBurstSeconds 4.
func TestConformanceThrottleInitialBurst(t *testing.T) {
	for _, c := range []struct {
		initial float64
		served  int
	}{{0, 5}, {4, 20}} {
		clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
		s := testserver.New(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) {
			o.Throttle.InitialBurstSeconds = c.initial
		}))
		_, err := s.Client.CreateTable(t.Context(), &dynamodb.CreateTableInput{
			TableName:             aws.String("small"),
			AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
		})
		if err != nil {
			t.Fatal(err)
		}
		served := 0
		for i := range 25 {
			_, err := s.Client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("small"),
				Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprint(i)}}})
			var pte *types.ProvisionedThroughputExceededException
			switch {
			case err == nil:
				served++
			case !errors.As(err, &pte):
				t.Fatal(err)
			}
		}
		if served != c.served {
			t.Errorf("InitialBurstSeconds %v: %d of 25 writes served at once, want %d", c.initial, served, c.served)
		}
	}
}
