package throttle

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAdmitCharge is the hot path of one request: Admit, then Charge.
func BenchmarkAdmitCharge(b *testing.B) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = "pk#" + strconv.Itoa(i)
	}
	for _, bc := range []struct {
		name string
		tp   Throughput
		key  bool
	}{
		{"provisioned", ProvisionedThroughput(1000, 1000), true},
		{"on-demand/no-key", OnDemandThroughput(0, 0), false},
		{"on-demand/4096-keys", OnDemandThroughput(0, 0), true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := newManager(b, Config{})
			tbl := register(b, m, "T", bc.tp)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// 1 ms apart, 1 unit each: refill keeps pace with the
				// slowest bucket (1,000 a second), so nothing is refused
				// and every iteration pays for both steps.
				now := t0.Add(time.Duration(i) * time.Millisecond)
				key := ""
				if bc.key {
					key = keys[i%len(keys)]
				}
				if c, ok := tbl.Admit(now, Write, key); !ok {
					b.Fatalf("refused by %v", c)
				}
				tbl.Charge(now, Write, key, 1)
				i++
			}
		})
	}
}

// BenchmarkAdmitChargeParallel runs the hot path from every P on one table,
// the worst case for its lock.
func BenchmarkAdmitChargeParallel(b *testing.B) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = "pk#" + strconv.Itoa(i)
	}
	m := newManager(b, Config{})
	tbl := register(b, m, "T", OnDemandThroughput(0, 0))
	var clock atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := clock.Add(1)
			now := t0.Add(time.Duration(i) * time.Millisecond)
			key := keys[int(i)%len(keys)]
			if c, ok := tbl.Admit(now, Write, key); !ok {
				b.Errorf("refused by %v", c)
				return
			}
			tbl.Charge(now, Write, key, 1)
		}
	})
}

// BenchmarkWriteWithGSIs is the throttle's share of one base-table write
// that touches n global secondary indexes: the table's Admit and Charge,
// then each index's Admit and Charge on its own partition key value.
func BenchmarkWriteWithGSIs(b *testing.B) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = "pk#" + strconv.Itoa(i)
	}
	for _, bc := range []struct {
		name string
		tp   Throughput
		n    int
	}{
		{"on-demand/0-gsi", OnDemandThroughput(0, 0), 0},
		{"on-demand/3-gsi", OnDemandThroughput(0, 0), 3},
		{"provisioned/3-gsi", ProvisionedThroughput(40000, 40000), 3},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := newManager(b, Config{})
			tbl := register(b, m, "T", bc.tp)
			ixs := make([]*Index, bc.n)
			for i := range ixs {
				ixs[i] = registerIndex(b, tbl, "G"+strconv.Itoa(i), bc.tp)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				now := t0.Add(time.Duration(i) * time.Millisecond)
				key := keys[i%len(keys)]
				if c, ok := tbl.Admit(now, Write, key); !ok {
					b.Fatalf("refused by %v", c)
				}
				for j, ix := range ixs {
					if c, ok := ix.Admit(now, Write, keys[(i+j+1)%len(keys)]); !ok {
						b.Fatalf("refused by %v", c)
					}
				}
				tbl.Charge(now, Write, key, 1)
				for j, ix := range ixs {
					ix.Charge(now, Write, keys[(i+j+1)%len(keys)], 1)
				}
				i++
			}
		})
	}
}
