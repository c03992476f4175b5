package emulator

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// BenchmarkPutItemReplicated measures PutItem on a plain table, on a
// plain table with a NEW_AND_OLD_IMAGES stream (a replica turns one on),
// and on a table with one replica (version and outbox entry in the
// write's batch; the applier runs meanwhile, as it would in service),
// and on a member of a legacy (2017.11.29) global table of two Regions
// (the same, plus the aws:rep:* attributes stamped on the item).
func BenchmarkPutItemReplicated(b *testing.B) {
	for _, c := range []struct {
		name    string
		view    string
		replica bool
		legacy  bool
	}{{"plain", "", false, false}, {"stream", "NEW_AND_OLD_IMAGES", false, false}, {"one-replica", "", true, false},
		{"legacy-one-replica", "NEW_AND_OLD_IMAGES", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var te *testEngine
			if !c.legacy {
				te = streamBenchEngine(b, c.view)
			} else {
				te = newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1; o.LegacyGlobalTables = true })
				for _, ns := range []api.Namespace{nsA, nsB} {
					in := simpleTable("bench")
					in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp(c.view)}
					te.mustCreate(ns, in)
				}
				if _, err := te.CreateGlobalTable(ctx, nsA, &api.CreateGlobalTableInput{GlobalTableName: sp("bench"),
					ReplicationGroup: []api.GlobalTableReplica{{RegionName: sp(nsA.Region)}, {RegionName: sp(nsB.Region)}}}); err != nil {
					b.Fatal(err)
				}
			}
			if c.replica {
				if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("bench"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: benchItem(i)}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkReplicationLag puts items in one Region at a steady rate (one
// replica, wall clock, no --replication-delay) while a reader polls the
// other Region for each item in turn; it reports the time from each
// PutItem's acknowledgement until a strongly consistent GetItem in the
// replica finds the item, as p50/p99/max. The reader sleeps 20µs
// between misses, so figures are upper bounds by about the sleep's
// granularity.
func BenchmarkReplicationLag(b *testing.B) {
	for _, rate := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("rate=%d/s", rate), func(b *testing.B) {
			ctx := context.Background()
			te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1; o.Clock = SystemClock })
			te.mustCreate(nsA, simpleTable("bench"))
			if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("bench"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
				b.Fatal(err)
			}
			if err := WaitReplication(te.Engine); err != nil {
				b.Fatal(err)
			}
			type sent struct {
				pk string
				at time.Time
			}
			pending := make(chan sent, 1<<20)
			var lags []time.Duration
			done := make(chan error, 1)
			go func() {
				for s := range pending {
					for {
						out, err := te.GetItem(ctx, nsB, &api.GetItemInput{TableName: sp("bench"), Key: av.Item{"pk": avS(s.pk)}, ConsistentRead: bl(true)})
						if err != nil {
							done <- err
							return
						}
						if out.Item != nil {
							lags = append(lags, time.Since(s.at))
							break
						}
						time.Sleep(20 * time.Microsecond)
					}
				}
				done <- nil
			}()
			interval := time.Second / time.Duration(rate)
			start := time.Now()
			i := 0
			for b.Loop() {
				if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
					time.Sleep(d)
				}
				it := benchItem(i)
				if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: it}); err != nil {
					b.Fatal(err)
				}
				pending <- sent{it["pk"].S, time.Now()}
				i++
			}
			close(pending)
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			slices.Sort(lags)
			q := func(p float64) float64 { return float64(lags[int(p*float64(len(lags)-1))].Microseconds()) }
			b.ReportMetric(q(0.50), "p50-lag-µs")
			b.ReportMetric(q(0.99), "p99-lag-µs")
			b.ReportMetric(q(1), "max-lag-µs")
		})
	}
}
