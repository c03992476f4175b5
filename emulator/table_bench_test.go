package emulator

import (
	"context"
	"fmt"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

// BenchmarkTableLookup measures the data plane's per-request table lookup
// (name and ARN form) against a cache of 1,000 tables.
func BenchmarkTableLookup(b *testing.B) {
	te := newTestEngine(b)
	for i := range 1000 {
		if _, err := te.CreateTable(context.Background(), nsA, simpleTable(fmt.Sprintf("table%04d", i))); err != nil {
			b.Fatal(err)
		}
	}
	for _, ref := range []string{"table0500", nsA.TableARN("table0500")} {
		name := "name"
		if len(ref) > 20 {
			name = "arn"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := te.table(nsA, ref); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkDescribeTable measures a full description of a table with indexes.
func BenchmarkDescribeTable(b *testing.B) {
	te := newTestEngine(b)
	if _, err := te.CreateTable(context.Background(), nsA, pprTable("desc")); err != nil {
		b.Fatal(err)
	}
	in := &api.DescribeTableInput{TableName: sp("desc")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := te.DescribeTable(context.Background(), nsA, in); err != nil {
			b.Fatal(err)
		}
	}
}
