package emulator_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/internal/testserver"
)

// The auto scaling worker (issue 18) on an injected clock: the test moves
// the clock a minute at a time and runs the worker's pass itself.

const asAccount = "000000000000"

func newScalingServer(t *testing.T) (*testserver.Server, *stepClock) {
	t.Helper()
	clk := &stepClock{now: time.Date(2026, 3, 1, 0, 30, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithDefaultAccount(asAccount),
		testserver.WithEngineOptions(func(o *emulator.Options) {
			o.AutoScaleInterval = -1 // the test runs the passes
			o.TTLInterval = -1
		}))
	return s, clk
}

// pass runs one auto scaling pass.
func pass(t *testing.T, s *testserver.Server) {
	t.Helper()
	if _, err := s.Engine().AutoScale(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// capacity returns the table's (index "" ) or a GSI's provisioned units.
func capacity(t *testing.T, c *dynamodb.Client, table, index string) (read, write int64) {
	t.Helper()
	d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	pt := d.Table.ProvisionedThroughput
	for _, g := range d.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == index {
			pt = g.ProvisionedThroughput
		}
	}
	return aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits)
}

// load attempts n writes of 10 KB items (10 WCU each), carrying GSI key g
// when gsi is set; the throttle manager refuses what the capacity (the
// table's, and the index's for gsi) cannot take.
func load(t *testing.T, c *dynamodb.Client, table string, n int, seq *int, gsi bool) {
	t.Helper()
	big := strings.Repeat("x", 10*1024-40)
	for range n {
		*seq++
		item := map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "k" + strconv.Itoa(*seq)},
			"v":  &types.AttributeValueMemberS{Value: big},
		}
		if gsi {
			item["g"] = &types.AttributeValueMemberS{Value: "g" + strconv.Itoa(*seq%7)}
		}
		_, err := c.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		var te *types.ProvisionedThroughputExceededException
		if err != nil && !errors.As(err, &te) {
			t.Fatal(err)
		}
	}
}

// TestAutoScalingScalesOutAndIn: sustained writes beyond the target raise
// the table's write capacity step by step to the maximum and never beyond,
// the throttle buckets following; idle time, across a restart, brings it
// back to the minimum and never below.
func TestAutoScalingScalesOutAndIn(t *testing.T) {
	s, clk := newScalingServer(t)
	c := s.Client
	createScaledTable(t, c, "scaled", types.BillingModeProvisioned)
	if _, err := c.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("scaled"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(5, 15, 70)}); err != nil {
		t.Fatal(err)
	}
	ns := api.Namespace{Account: asAccount, Region: testserver.DefaultRegion}
	pass(t, s)
	seq := 0
	var history []int64
	for minute := 1; minute <= 10; minute++ {
		clk.add(time.Minute)
		load(t, c, "scaled", 120, &seq, false) // 20 WCU/s asked of 5..15
		pass(t, s)
		_, w := capacity(t, c, "scaled", "")
		if w > 15 {
			t.Fatalf("minute %d: write capacity %d above the maximum", minute, w)
		}
		history = append(history, w)
	}
	// One loaded minute is not sustained: nothing before the second.
	if history[0] != 5 || history[1] <= 5 || history[len(history)-1] != 15 {
		t.Fatalf("write capacity by minute under load: %v; want 5, then rising to 15", history)
	}
	if st, err := s.Engine().TableThrottleStatus(ns, "scaled"); err != nil || st.WriteCapacity != 15 {
		t.Fatalf("throttle bucket %+v, %v; want a write rate of 15", st, err)
	}
	if r, _ := capacity(t, c, "scaled", ""); r != 5 {
		t.Fatalf("read capacity %d moved; it has no auto scaling", r)
	}

	s.Restart()
	history = history[:0]
	for minute := 1; minute <= 20; minute++ {
		clk.add(time.Minute)
		pass(t, s)
		_, w := capacity(t, c, "scaled", "")
		if w < 5 {
			t.Fatalf("idle minute %d: write capacity %d below the minimum", minute, w)
		}
		history = append(history, w)
	}
	// The first pass after the restart starts the datapoints; 15 idle
	// minutes later the capacity drops, once, to the minimum.
	if history[14] != 15 || history[15] != 5 || history[19] != 5 {
		t.Fatalf("write capacity by idle minute: %v; want 15 for 15 minutes, then 5", history)
	}
	d, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("scaled")})
	if err != nil {
		t.Fatal(err)
	}
	if n := aws.ToInt64(d.Table.ProvisionedThroughput.NumberOfDecreasesToday); n != 1 {
		t.Fatalf("NumberOfDecreasesToday %d, want 1", n)
	}
}

// TestAutoScalingDecreaseBudget: with the day's four decreases spent, a
// scale-in waits for the hour after the last one, as UpdateTable would.
func TestAutoScalingDecreaseBudget(t *testing.T) {
	s, clk := newScalingServer(t)
	c := s.Client
	createScaledTable(t, c, "budget", types.BillingModeProvisioned)
	for w := int64(10); w >= 6; w-- {
		if w == 5 {
			continue
		}
		if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("budget"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(w)}}); err != nil {
			t.Fatal(err)
		}
	}
	// 5 → 10 was an increase; 9, 8, 7, 6 spent the four decreases.
	lastDecrease := clk.Now()
	if _, err := c.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("budget"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(1, 10, 70)}); err != nil {
		t.Fatal(err)
	}
	pass(t, s)
	for clk.Now().Add(time.Minute).Before(lastDecrease.Add(time.Hour)) {
		clk.add(time.Minute)
		pass(t, s)
		if _, w := capacity(t, c, "budget", ""); w != 6 {
			t.Fatalf("at %v: write capacity %d; the decrease budget allows none before %v", clk.Now(), w, lastDecrease.Add(time.Hour))
		}
	}
	clk.add(time.Minute)
	pass(t, s)
	if _, w := capacity(t, c, "budget", ""); w != 1 {
		t.Fatalf("write capacity %d an hour after the last decrease; want the minimum, 1", w)
	}
}

// TestAutoScalingIndex: a GSI's write settings scale the index, whose
// capacity the base table's writes consume, and a capacity below the
// minimum is raised at once.
func TestAutoScalingIndex(t *testing.T) {
	s, clk := newScalingServer(t)
	c := s.Client
	createScaledTable(t, c, "gsi", types.BillingModeProvisioned)
	// Room on the table, so the index's capacity is what runs short.
	if _, err := c.UpdateTable(t.Context(), &dynamodb.UpdateTableInput{TableName: aws.String("gsi"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(50)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("gsi"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexAutoScalingUpdate{{IndexName: aws.String("byG"),
			ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(6, 12, 50)}},
	}); err != nil {
		t.Fatal(err)
	}
	pass(t, s)
	if _, w := capacity(t, c, "gsi", "byG"); w != 6 {
		t.Fatalf("index write capacity %d; want the minimum, 6, at once", w)
	}
	seq := 0
	for range 4 {
		clk.add(time.Minute)
		load(t, c, "gsi", 60, &seq, true)
		pass(t, s)
	}
	if _, w := capacity(t, c, "gsi", "byG"); w != 12 {
		t.Fatalf("index write capacity %d after sustained writes; want the maximum, 12", w)
	}
	if _, w := capacity(t, c, "gsi", ""); w != 50 {
		t.Fatalf("table write capacity %d moved; only the index is auto scaled", w)
	}
}

// TestAutoScalingWorkerRuns: the background worker, not only a pass the
// test calls, applies the settings (here: raising a capacity below the new
// minimum), and stops with the engine.
func TestAutoScalingWorkerRuns(t *testing.T) {
	s := testserver.New(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.AutoScaleInterval = time.Millisecond }))
	c := s.Client
	createScaledTable(t, c, "bgw", types.BillingModeProvisioned)
	if _, err := c.UpdateTableReplicaAutoScaling(t.Context(), &dynamodb.UpdateTableReplicaAutoScalingInput{
		TableName: aws.String("bgw"), ProvisionedWriteCapacityAutoScalingUpdate: settingsUpdate(7, 9, 70)}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, w := capacity(t, c, "bgw", ""); w == 7 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not raise the write capacity to the minimum, 7, within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
