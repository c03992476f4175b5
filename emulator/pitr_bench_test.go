package emulator

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// BenchmarkPutItemPITR measures PutItem with PITR off and on, writing new
// items (the undo record is empty) and overwriting 1,000 items (it holds
// the old item): the difference is the history's cost on the hot path.
func BenchmarkPutItemPITR(b *testing.B) {
	for _, pitr := range []bool{false, true} {
		for _, mode := range []string{"new", "overwrite"} {
			name := "off/" + mode
			if pitr {
				name = "on/" + mode
			}
			b.Run(name, func(b *testing.B) {
				te := streamBenchEngine(b, "")
				ctx := context.Background()
				if pitr {
					if _, err := te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("bench"),
						PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &pitr}}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					k := i
					if mode == "overwrite" {
						k = i % 1000
					}
					if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: benchItem(k)}); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkRestorePointInTime measures RestoreTableToPointInTime until
// ACTIVE for a table of benchItems items (EXTENDDB_BENCH_BACKUP_ITEMS) of
// which a tenth were rewritten after the restore time, so their state
// comes from the history.
func BenchmarkRestorePointInTime(b *testing.B) {
	n := benchItems(b)
	te := benchBackupTable(b, n)
	te.opts.PITRLag = -1
	te.Engine.opts.PITRLag = -1
	ctx := context.Background()
	on := true
	if _, err := te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("bench"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &on}}); err != nil {
		b.Fatal(err)
	}
	te.clock.Add(time.Second)
	at := epochSeconds(te.clock.Now())
	te.clock.Add(time.Second)
	for i := 0; i < n; i += 10 {
		if _, err := te.PutItem(ctx, nsA, &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": avS("item-" + strconv.Itoa(i)), "v": avS("new")}}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; b.Loop(); i++ {
		if _, err := te.RestoreTableToPointInTime(ctx, nsA, &api.RestoreTableToPointInTimeInput{SourceTableName: sp("bench"),
			TargetTableName: sp("restored-" + strconv.Itoa(i)), RestoreDateTime: &at}); err != nil {
			b.Fatal(err)
		}
		te.bk.Tasks.Wait()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}
