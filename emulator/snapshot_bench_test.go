package emulator

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/pebblestore"
)

// snapshotBenchEngine is an engine on the store `serve --in-memory` uses
// (Pebble on a memory filesystem of its own) holding one table of n items
// of about 100 bytes, written through PutItem; with full, the table also
// has a global secondary index over every item and a NEW_AND_OLD_IMAGES
// stream: n items, n index entries, n stream records.
func snapshotBenchEngine(b *testing.B, n int, full bool) (*Engine, *pebblestore.Store) {
	st, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Options{Store: st, Throttle: ThrottleOptions{Off: true}, TTLInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close(); _ = st.Close() })
	in := simpleTable("bench")
	if full {
		in.AttributeDefinitions = attrs("pk", "S", "n", "N")
		in.GlobalSecondaryIndexes = []api.GlobalSecondaryIndex{{IndexName: sp("byN"), KeySchema: keys("n", "HASH"), Projection: &api.Projection{ProjectionType: sp("ALL")}}}
		in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("NEW_AND_OLD_IMAGES")}
	}
	ctx := context.Background()
	if _, err := e.CreateTable(ctx, nsA, in); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := e.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: benchItem(i)}); err != nil {
			b.Fatal(err)
		}
	}
	return e, st
}

// BenchmarkSnapshot measures saving, restoring and resetting a state of
// 10,000 items in memory, in a plain table and in one with an index and a
// stream (docs/configuration.md, "Snapshots and resets for tests", quotes
// the figures).
func BenchmarkSnapshot(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchSnapshot(b, false) })
	b.Run("index+stream", func(b *testing.B) { benchSnapshot(b, true) })
}

func benchSnapshot(b *testing.B, full bool) {
	const n = 10_000
	ctx := context.Background()
	e, st := snapshotBenchEngine(b, n, full)
	// settle flushes the memtables between iterations, as the time a test
	// spends between two restores would: without it the loop measures
	// Pebble's background flushes of the restores before as well.
	settle := func(b *testing.B) {
		b.StopTimer()
		if err := st.Flush(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	snap, err := e.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d items: a snapshot of %d keys, %d bytes", n, snap.Keys(), snap.Size())
	b.Run("save", func(b *testing.B) {
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			c0 := processCPU()
			if _, err := e.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
			cpu += processCPU() - c0
		}
		reportCPU(b, cpu)
	})
	b.Run("restore", func(b *testing.B) {
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			settle(b)
			c0 := processCPU()
			if err := e.Restore(ctx, snap); err != nil {
				b.Fatal(err)
			}
			cpu += processCPU() - c0
		}
		reportCPU(b, cpu)
	})
	b.Run("reset", func(b *testing.B) {
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if err := e.Restore(ctx, snap); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			settle(b)
			c0 := processCPU()
			if err := e.Reset(ctx); err != nil {
				b.Fatal(err)
			}
			cpu += processCPU() - c0
		}
		reportCPU(b, cpu)
	})
}

// reportCPU reports the process's CPU time (every thread: Pebble's
// background work during the operation too) per operation as cpu-ms/op:
// on a shared machine it moves less with the neighbours' load than ns/op
// (CONTRIBUTING.md, "Measuring performance").
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}
