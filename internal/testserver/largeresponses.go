package testserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	sttypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// The shape of LargeResponses' table: each read below answers about
// 100 items × 1 KB, the size at which "use of closed network connection"
// was seen (a response larger than the client's 4 KB read buffer).
const (
	largeItems = 100
	largeValue = 1000
)

// LargeResponses is a table whose one-partition Query, BatchGetItem of
// every key and GetRecords of its stream each answer about 100 KB, for
// hammering the server with large responses from the real SDK client.
type LargeResponses struct {
	Table     string
	StreamARN string
	ShardID   string
}

// LargeResponseOps are the operations Round knows.
var LargeResponseOps = []string{"Query", "BatchGetItem", "GetRecords"}

// largeValueOf is item sk's value: different per item, so a response
// that mixed up items or buffers would not pass the check.
func largeValueOf(sk int) string {
	p := strconv.Itoa(sk) + "-"
	return (strings.Repeat(p, largeValue/len(p)+1))[:largeValue]
}

// SeedLargeResponses creates table (with a NEW_IMAGE stream) and writes
// its items through db.
func SeedLargeResponses(ctx context.Context, db *dynamodb.Client, st *dynamodbstreams.Client, table string) (*LargeResponses, error) {
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		return nil, err
	}
	l := &LargeResponses{Table: table, StreamARN: aws.ToString(out.TableDescription.LatestStreamArn)}
	for first := 0; first < largeItems; first += 25 {
		var reqs []types.WriteRequest
		for sk := first; sk < first+25 && sk < largeItems; sk++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "p"},
				"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
				"v":  &types.AttributeValueMemberS{Value: largeValueOf(sk)},
			}}})
		}
		bw, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		if err != nil {
			return nil, err
		}
		if n := len(bw.UnprocessedItems[table]); n > 0 {
			return nil, fmt.Errorf("seeding %s: %d unprocessed items", table, n)
		}
	}
	ds, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(l.StreamARN)})
	if err != nil {
		return nil, err
	}
	if len(ds.StreamDescription.Shards) == 0 {
		return nil, fmt.Errorf("stream %s has no shard", l.StreamARN)
	}
	l.ShardID = aws.ToString(ds.StreamDescription.Shards[0].ShardId)
	return l, nil
}

// Round runs op (one of LargeResponseOps) once and checks that every item
// came back whole.
func (l *LargeResponses) Round(ctx context.Context, db *dynamodb.Client, st *dynamodbstreams.Client, op string) error {
	var items []map[string]types.AttributeValue
	switch op {
	case "Query":
		out, err := db.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(l.Table),
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p"}},
		})
		if err != nil {
			return err
		}
		items = out.Items
	case "BatchGetItem":
		keys := make([]map[string]types.AttributeValue, largeItems)
		for sk := range keys {
			keys[sk] = map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: "p"},
				"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
			}
		}
		out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{l.Table: {Keys: keys}}})
		if err != nil {
			return err
		}
		if n := len(out.UnprocessedKeys[l.Table].Keys); n > 0 {
			return fmt.Errorf("BatchGetItem: %d unprocessed keys", n)
		}
		items = out.Responses[l.Table]
	case "GetRecords":
		it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(l.StreamARN), ShardId: aws.String(l.ShardID), ShardIteratorType: sttypes.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			return err
		}
		out, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(largeItems)})
		if err != nil {
			return err
		}
		return checkRecords(out.Records)
	default:
		return fmt.Errorf("unknown op %q", op)
	}
	return checkItems(op, items)
}

func checkItems(op string, items []map[string]types.AttributeValue) error {
	if len(items) != largeItems {
		return fmt.Errorf("%s: %d items, want %d", op, len(items), largeItems)
	}
	for _, it := range items {
		sk, _ := it["sk"].(*types.AttributeValueMemberN)
		v, _ := it["v"].(*types.AttributeValueMemberS)
		if sk == nil || v == nil {
			return fmt.Errorf("%s: item without sk or v: %v", op, it)
		}
		n, err := strconv.Atoi(sk.Value)
		if err != nil || v.Value != largeValueOf(n) {
			return fmt.Errorf("%s: item %s has a wrong value", op, sk.Value)
		}
	}
	return nil
}

func checkRecords(recs []sttypes.Record) error {
	if len(recs) != largeItems {
		return fmt.Errorf("GetRecords: %d records, want %d", len(recs), largeItems)
	}
	seen := make(map[int]bool, largeItems)
	for i, r := range recs {
		if r.Dynamodb == nil {
			return fmt.Errorf("GetRecords: record %d has no change", i)
		}
		img := r.Dynamodb.NewImage
		sk, _ := img["sk"].(*sttypes.AttributeValueMemberN)
		v, _ := img["v"].(*sttypes.AttributeValueMemberS)
		if sk == nil || v == nil {
			return fmt.Errorf("GetRecords: record %d has no sk or v", i)
		}
		n, err := strconv.Atoi(sk.Value)
		if err != nil || seen[n] || v.Value != largeValueOf(n) {
			return fmt.Errorf("GetRecords: record %d (sk %s) is repeated or has a wrong image", i, sk.Value)
		}
		seen[n] = true
	}
	return nil
}
