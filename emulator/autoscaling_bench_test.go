package emulator

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// BenchmarkAutoScalePass: one pass of the auto scaling worker over 200
// PROVISIONED tables with read and write auto scaling, each minute of the
// engine's clock a datapoint and no change to make (idle at the minimum):
// the cost the worker adds every AutoScaleInterval.
func BenchmarkAutoScalePass(b *testing.B) {
	te := newTestEngine(b, func(o *Options) { o.AutoScaleInterval = -1; o.TTLInterval = -1 })
	ctx := context.Background()
	set := &api.AutoScalingSettingsUpdate{MinimumUnits: i64(5), MaximumUnits: i64(50),
		ScalingPolicyUpdate: &api.AutoScalingPolicyUpdate{TargetTrackingScalingPolicyConfiguration: &api.AutoScalingTargetTrackingScalingPolicyConfiguration{TargetValue: refOf(70.0)}}}
	for i := range 200 {
		in := simpleTable(fmt.Sprintf("t%03d", i))
		in.BillingMode = sp("PROVISIONED")
		in.ProvisionedThroughput = &api.ProvisionedThroughput{ReadCapacityUnits: i64(5), WriteCapacityUnits: i64(5)}
		te.mustCreate(nsA, in)
		if _, err := te.UpdateTableReplicaAutoScaling(ctx, nsA, &api.UpdateTableReplicaAutoScalingInput{TableName: in.TableName,
			ProvisionedWriteCapacityAutoScalingUpdate: set,
			ReplicaUpdates: []api.ReplicaAutoScalingUpdate{{RegionName: sp(nsA.Region), ReplicaProvisionedReadCapacityAutoScalingUpdate: set}}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		te.clock.Add(time.Minute)
		if n, err := te.AutoScale(ctx); err != nil || n != 0 {
			b.Fatalf("AutoScale = %d, %v", n, err)
		}
	}
}
