package emulator

import (
	"context"
	"testing"
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
				for _, ns := range []Namespace{nsA, nsB} {
					in := simpleTable("bench")
					in.StreamSpecification = &StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp(c.view)}
					te.mustCreate(ns, in)
				}
				if _, err := te.CreateGlobalTable(ctx, nsA, &CreateGlobalTableInput{GlobalTableName: sp("bench"),
					ReplicationGroup: []GlobalTableReplica{{RegionName: sp(nsA.Region)}, {RegionName: sp(nsB.Region)}}}); err != nil {
					b.Fatal(err)
				}
			}
			if c.replica {
				if _, err := te.UpdateTable(ctx, nsA, &UpdateTableInput{TableName: sp("bench"), ReplicaUpdates: createReplica(nsB.Region)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := te.PutItem(ctx, nsA, &PutItemInput{TableName: sp("bench"), Item: benchItem(i)}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
