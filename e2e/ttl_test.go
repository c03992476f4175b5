package e2e_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// TTL expiry through the real client: the worker's pass is run directly
// (Engine.ExpireTTL) at an injected clock, so nothing waits.

func (e *stEnv) ttlTable(name string) string {
	e.t.Helper()
	out, err := e.db.CreateTable(e.ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.db.UpdateTimeToLive(e.ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		e.t.Fatal(err)
	}
	return aws.ToString(out.TableDescription.LatestStreamArn)
}

func (e *stEnv) putTTL(table, pk string, exp types.AttributeValue) {
	e.t.Helper()
	it := map[string]types.AttributeValue{"pk": itS(pk), "g": itS("G")}
	if exp != nil {
		it["exp"] = exp
	}
	if _, err := e.db.PutItem(e.ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *stEnv) exists(table, pk string) bool {
	e.t.Helper()
	out, err := e.db.GetItem(e.ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": itS(pk)}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		e.t.Fatal(err)
	}
	return out.Item != nil
}

func (e *stEnv) gsiKeys(table string) map[string]bool {
	e.t.Helper()
	out, err := e.db.Query(e.ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": itS("G")}})
	if err != nil {
		e.t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range out.Items {
		got[it["pk"].(*types.AttributeValueMemberS).Value] = true
	}
	return got
}

func TestTTLExpiry(t *testing.T) {
	e := newStEnv(t)
	arn := e.ttlTable("TtlTab")
	now := e.clk.Now().Unix()
	n := func(v int64) types.AttributeValue { return itN(fmt.Sprint(v)) }
	e.putTTL("TtlTab", "past", n(now-10))
	e.putTTL("TtlTab", "pastFraction", itN(fmt.Sprintf("%d.5", now-1)))
	e.putTTL("TtlTab", "future", n(now+3600))
	e.putTTL("TtlTab", "now", n(now+1)) // not yet in the past
	e.putTTL("TtlTab", "missing", nil)
	e.putTTL("TtlTab", "string", itS(fmt.Sprint(now-10)))
	e.putTTL("TtlTab", "ancient", n(now-6*365*24*3600)) // over five years past: DynamoDB ignores it

	// Expired but not yet processed: still readable.
	if !e.exists("TtlTab", "past") {
		t.Fatal("an expired item vanished before the worker ran")
	}
	deleted, err := e.s.Engine().ExpireTTL(e.ctx)
	if err != nil || deleted != 2 {
		t.Fatalf("ExpireTTL deleted %d, %v; want 2", deleted, err)
	}
	for pk, want := range map[string]bool{"past": false, "pastFraction": false, "future": true, "now": true, "missing": true, "string": true, "ancient": true} {
		if e.exists("TtlTab", pk) != want {
			t.Errorf("item %s exists=%v, want %v", pk, !want, want)
		}
	}
	if g := e.gsiKeys("TtlTab"); g["past"] || g["pastFraction"] || !g["future"] || len(g) != 5 {
		t.Errorf("index after expiry: %v", g)
	}
	e.clk.add(2 * time.Second)
	if deleted, err := e.s.Engine().ExpireTTL(e.ctx); err != nil || deleted != 1 || e.exists("TtlTab", "now") {
		t.Fatalf("second pass deleted %d, %v", deleted, err)
	}

	recs := e.readAll(arn)
	removes := 0
	for _, r := range recs {
		if r.EventName != "REMOVE" {
			if r.UserIdentity != nil {
				t.Errorf("%s record has userIdentity %+v", r.EventName, r.UserIdentity)
			}
			continue
		}
		removes++
		if r.UserIdentity == nil || aws.ToString(r.UserIdentity.Type) != "Service" || aws.ToString(r.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" {
			t.Errorf("TTL REMOVE userIdentity %+v", r.UserIdentity)
		}
		if r.Dynamodb.OldImage == nil || r.Dynamodb.NewImage != nil {
			t.Errorf("TTL REMOVE images %+v", r.Dynamodb)
		}
	}
	if removes != 3 {
		t.Fatalf("%d REMOVE records, want 3", removes)
	}

	// TTL disabled: nothing is deleted.
	if _, err := e.db.UpdateTimeToLive(e.ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("TtlTab"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(false), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	e.clk.add(48 * time.Hour)
	if deleted, err := e.s.Engine().ExpireTTL(e.ctx); err != nil || deleted != 0 {
		t.Fatalf("with TTL disabled, deleted %d, %v", deleted, err)
	}
}

func TestTTLManyItemsInBatches(t *testing.T) {
	e := newStEnv(t)
	e.ttlTable("TtlMany")
	now := e.clk.Now().Unix()
	for i := range 250 {
		exp := now - 5
		if i%5 == 0 {
			exp = now + 100
		}
		e.putTTL("TtlMany", fmt.Sprintf("k%03d", i), itN(fmt.Sprint(exp)))
	}
	deleted, err := e.s.Engine().ExpireTTL(e.ctx)
	if err != nil || deleted != 200 {
		t.Fatalf("deleted %d, %v; want 200", deleted, err)
	}
	dt, err := e.db.DescribeTable(e.ctx, &dynamodb.DescribeTableInput{TableName: aws.String("TtlMany")})
	if err != nil || aws.ToInt64(dt.Table.ItemCount) != 50 {
		t.Fatalf("ItemCount %v, %v", dt.Table.ItemCount, err)
	}
}

// TestTTLWorker: the background worker started by the engine deletes an
// expired item on its own, and Close stops it (Restart closes the engine).
func TestTTLWorker(t *testing.T) {
	e := newStEnv(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.TTLInterval = 5 * time.Millisecond }))
	e.ttlTable("TtlBg")
	e.putTTL("TtlBg", "old", itN(fmt.Sprint(e.clk.Now().Unix()-1)))
	e.s.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for e.exists("TtlBg", "old") {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not delete the expired item")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
