package emulator

import (
	"context"
	"testing"
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
					if _, err := te.UpdateContinuousBackups(ctx, nsA, &UpdateContinuousBackupsInput{TableName: sp("bench"),
						PointInTimeRecoverySpecification: &PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: &pitr}}); err != nil {
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
					if _, err := te.PutItem(ctx, nsA, &PutItemInput{TableName: sp("bench"), Item: benchItem(k)}); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
