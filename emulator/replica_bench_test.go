package emulator

import (
	"context"
	"testing"
)

// BenchmarkPutItemReplicated measures PutItem on a plain table, on a
// plain table with a NEW_AND_OLD_IMAGES stream (a replica turns one on),
// and on a table with one replica (version and outbox entry in the
// write's batch; the applier runs meanwhile, as it would in service).
func BenchmarkPutItemReplicated(b *testing.B) {
	for _, c := range []struct {
		name    string
		view    string
		replica bool
	}{{"plain", "", false}, {"stream", "NEW_AND_OLD_IMAGES", false}, {"one-replica", "", true}} {
		b.Run(c.name, func(b *testing.B) {
			te := streamBenchEngine(b, c.view)
			ctx := context.Background()
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
