package emulator

import (
	"context"
	"strconv"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// BenchmarkInsights measures what Contributor Insights adds to PutItem and
// GetItem: off against on, on an on-demand table, cycling 1,024 partition
// key values (so the sketch evicts: 100 keys kept per bucket). Refusals
// are off so the loop, on the test engine's fixed clock, is never
// throttled; capacity is still metered and charged. on-hot repeats one
// key, which costs no allocation once counted.
func BenchmarkInsights(b *testing.B) {
	for _, op := range []string{"PutItem", "GetItem"} {
		for _, mode := range []string{"off", "on", "on-hot"} {
			on := mode != "off"
			// on-hot repeats one key, which the sketch already counts.
			nkeys := 1024
			if mode == "on-hot" {
				nkeys = 1
			}
			name := op + "/" + mode
			b.Run(name, func(b *testing.B) {
				te := newTestEngine(b, func(o *Options) { o.Throttle.Off = true })
				te.mustCreate(nsA, simpleTable("bench"))
				ctx := context.Background()
				if on {
					if _, err := te.UpdateContributorInsights(ctx, nsA, &api.UpdateContributorInsightsInput{TableName: sp("bench"), ContributorInsightsAction: sp("ENABLE")}); err != nil {
						b.Fatal(err)
					}
				}
				puts := make([]*api.PutItemInput, nkeys)
				gets := make([]*api.GetItemInput, nkeys)
				for i := range puts {
					k := thrS("k" + strconv.Itoa(i))
					puts[i] = &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": k, "v": thrS("x")}}
					gets[i] = &api.GetItemInput{TableName: sp("bench"), Key: av.Item{"pk": k}}
					if _, err := te.PutItem(ctx, nsA, puts[i]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					var err error
					if op == "PutItem" {
						_, err = te.PutItem(ctx, nsA, puts[i%len(puts)])
					} else {
						_, err = te.GetItem(ctx, nsA, gets[i%len(gets)])
					}
					if err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
