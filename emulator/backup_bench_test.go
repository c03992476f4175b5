package emulator

import (
	"context"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// benchItems is the table size of the backup benchmarks:
// EXTENDDB_BENCH_BACKUP_ITEMS, 100,000 by default (1,000,000 for the figure
// quoted in docs/differences.md).
func benchItems(b *testing.B) int {
	if s := os.Getenv("EXTENDDB_BENCH_BACKUP_ITEMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// benchBackupTable creates table "bench" holding n items of about 100
// bytes, written straight into its item range in large batches (a backup
// copies rows as they are, so how they got there does not matter).
func benchBackupTable(b *testing.B, n int) *testEngine {
	te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true; o.TTLInterval = -1 })
	te.mustCreate(nsA, simpleTable("bench"))
	t, err := te.table(nsA, "bench")
	if err != nil {
		b.Fatal(err)
	}
	pad := av.Value{Type: av.TypeS, S: "0123456789012345678901234567890123456789012345678901234567890123456789012345"}
	batch := te.store.NewBatch()
	for i := range n {
		item := av.Item{"pk": avS("item-" + strconv.Itoa(i)), "pad": pad}
		if err := batch.Set(itemKey(t, item), av.AppendItem(nil, item)); err != nil {
			b.Fatal(err)
		}
		if i%10_000 == 9_999 {
			if err := batch.Commit(false); err != nil {
				b.Fatal(err)
			}
			batch = te.store.NewBatch()
		}
	}
	if err := batch.Commit(false); err != nil {
		b.Fatal(err)
	}
	return te
}

// BenchmarkBackup measures CreateBackup until AVAILABLE (the background
// copy of every row) and a RestoreTableFromBackup until ACTIVE.
func BenchmarkBackup(b *testing.B) {
	n := benchItems(b)
	te := benchBackupTable(b, n)
	ctx := context.Background()
	var arn string
	b.Run("backup", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if arn != "" {
				// Keep one backup at a time (a DeleteRange: cheap).
				if _, err := te.DeleteBackup(ctx, nsA, &api.BackupArnInput{BackupArn: &arn}); err != nil {
					b.Fatal(err)
				}
			}
			out, err := te.CreateBackup(ctx, nsA, &api.CreateBackupInput{TableName: sp("bench"), BackupName: sp("bench-" + strconv.Itoa(i))})
			if err != nil {
				b.Fatal(err)
			}
			te.bk.Tasks.Wait()
			arn = out.BackupDetails.BackupArn
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
	b.Run("restore", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := te.RestoreTableFromBackup(ctx, nsA, &api.RestoreTableFromBackupInput{TargetTableName: sp("restored-" + strconv.Itoa(i)), BackupArn: &arn}); err != nil {
				b.Fatal(err)
			}
			te.bk.Tasks.Wait()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
}

// BenchmarkPutItemDuringBackup measures what a running backup costs
// writers: PutItem on the table alone, and while backups of it run back
// to back in the background.
func BenchmarkPutItemDuringBackup(b *testing.B) {
	n := benchItems(b)
	for _, during := range []bool{false, true} {
		name := "idle"
		if during {
			name = "backup-running"
		}
		b.Run(name, func(b *testing.B) {
			te := benchBackupTable(b, n)
			ctx := context.Background()
			var stop atomic.Bool
			done := make(chan int)
			if during {
				go func() {
					backups := 0
					for !stop.Load() {
						out, err := te.CreateBackup(ctx, nsA, &api.CreateBackupInput{TableName: sp("bench"), BackupName: sp("bg-" + strconv.Itoa(backups))})
						if err != nil {
							b.Error(err)
							break
						}
						te.bk.Tasks.Wait()
						if _, err := te.DeleteBackup(ctx, nsA, &api.BackupArnInput{BackupArn: &out.BackupDetails.BackupArn}); err != nil {
							b.Error(err)
							break
						}
						backups++
					}
					done <- backups
				}()
			}
			in := &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": avS("w"), "v": avS("x")}}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				in.Item["pk"] = avS("w" + strconv.Itoa(i%1000))
				if _, err := te.PutItem(ctx, nsA, in); err != nil {
					b.Fatal(err)
				}
			}
			if during {
				stop.Store(true)
				b.ReportMetric(float64(<-done), "backups")
			}
		})
	}
}
