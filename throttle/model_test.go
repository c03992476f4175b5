package throttle

import (
	"fmt"
	"testing"
	"time"
)

// refBucket is the reference model's bucket: time in seconds, nothing
// shared, nothing evicted.
type refBucket struct{ bal, last float64 }

func (b *refBucket) refill(now, rate, burst float64) {
	if now <= b.last {
		return
	}
	b.bal = min(rate*burst, b.bal+rate*(now-b.last))
	b.last = now
}

// refTable is the specification written the plain way: every partition key
// value of every table has a bucket from the table's registration, all kept
// forever.
type refTable struct {
	tp    Throughput
	rate  [2]float64
	cap   [2]bool
	table [2]refBucket
	parts [2]map[string]*refBucket
	// index is the name of a global secondary index of parent; "" for a
	// table.
	index  string
	parent *refTable
}

// quota reports whether t's bucket in direction d is the per-table quota
// its indexes share: an on-demand table's uncapped direction.
func (t *refTable) quota(d Direction) bool { return t.tp.Billing == OnDemand && !t.cap[d] }

type refModel struct {
	cfg    Config
	acct   [2]refBucket
	tables []*refTable
}

func (m *refModel) part(t *refTable, d Direction, key string) *refBucket {
	b := t.parts[d][key]
	if b == nil {
		b = &refBucket{bal: m.cfg.partitionRate(d), last: 0}
		t.parts[d][key] = b
	}
	return b
}

func (m *refModel) admit(now float64, ti int, d Direction, key string) (Cause, bool) {
	t := m.tables[ti]
	burst := m.cfg.BurstSeconds
	m.acct[d].refill(now, m.cfg.accountRate(d), burst)
	if m.acct[d].bal <= 0 {
		return Cause{Bucket: BucketAccount, Direction: d, Billing: t.tp.Billing, Index: t.index}, false
	}
	if p := t.parent; p != nil && p.quota(d) {
		p.table[d].refill(now, p.rate[d], burst)
		if p.table[d].bal <= 0 {
			return Cause{Bucket: BucketTable, Direction: d, Billing: OnDemand, Index: t.index}, false
		}
	}
	t.table[d].refill(now, t.rate[d], burst)
	if t.table[d].bal <= 0 {
		return Cause{Bucket: BucketTable, Direction: d, Billing: t.tp.Billing, Capped: t.cap[d], Index: t.index}, false
	}
	if key != "" {
		p := m.part(t, d, key)
		p.refill(now, m.cfg.partitionRate(d), burst)
		if p.bal <= 0 {
			return Cause{Bucket: BucketPartition, Direction: d, Billing: t.tp.Billing, Index: t.index}, false
		}
	}
	return Cause{}, true
}

func (m *refModel) charge(now float64, ti int, d Direction, key string, units float64) {
	t := m.tables[ti]
	burst := m.cfg.BurstSeconds
	m.acct[d].refill(now, m.cfg.accountRate(d), burst)
	m.acct[d].bal -= units
	if p := t.parent; p != nil && p.quota(d) {
		p.table[d].refill(now, p.rate[d], burst)
		p.table[d].bal -= units
	}
	t.table[d].refill(now, t.rate[d], burst)
	t.table[d].bal -= units
	if key != "" {
		p := m.part(t, d, key)
		p.refill(now, m.cfg.partitionRate(d), burst)
		p.bal -= units
	}
}

// FuzzAgainstModel replays a random timeline on the Manager and on the
// plain reference model and requires the same decision at every Admit and
// the same balances. It checks the two shortcuts the Manager takes: no
// partition buckets for a table no faster than a partition, and eviction
// of full buckets (with the sweep threshold lowered to 2). The third handle
// is a global secondary index of the first table, with its own throughput
// in the table's billing mode.
//
// Times are multiples of 0.25 s and units of 0.5, so both compute exactly.
func FuzzAgainstModel(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{1, 0, 1, 9, 3, 1, 0, 5, 3, 0, 1, 8, 0, 3, 3, 0, 0, 30})
	f.Add([]byte{1, 12, 12, 0, 0, 0, 3, 0}, []byte{3, 1, 1, 200, 3, 1, 2, 200, 0, 4, 4, 4, 3, 1, 1, 3})
	f.Add([]byte{0, 5, 9, 1, 0, 2, 12, 0}, []byte{3, 0, 7, 12, 3, 2, 7, 12, 3, 1, 7, 12, 0, 1, 0, 0, 3, 3, 7, 1})
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, setup, ops []byte) {
	{
		cfg := Config{
			BurstSeconds:        5,
			PartitionReadUnits:  6,
			PartitionWriteUnits: 4,
			TableReadUnits:      10,
			TableWriteUnits:     8,
			AccountReadUnits:    30,
			AccountWriteUnits:   25,
		}
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.minSweep = 2
		cfg = m.Config()
		ref := &refModel{cfg: cfg}
		for d := Read; d <= Write; d++ {
			ref.acct[d] = refBucket{bal: cfg.accountRate(d)}
		}
		byteAt := func(b []byte, i int) int {
			if i < len(b) {
				return int(b[i])
			}
			return 0
		}
		// Two tables sharing the account, each provisioned (1..12 units)
		// or on-demand with caps in -1..11 per direction.
		var tables []*Table
		for ti := range 2 {
			o := ti * 4
			var tp Throughput
			if byteAt(setup, o)%2 == 0 {
				tp = ProvisionedThroughput(int64(1+byteAt(setup, o+1)%12), int64(1+byteAt(setup, o+2)%12))
			} else {
				tp = OnDemandThroughput(int64(byteAt(setup, o+1)%13-1), int64(byteAt(setup, o+2)%13-1))
			}
			tbl, err := m.Register(t0, "a", "r", fmt.Sprint("T", ti), tp)
			if err != nil {
				t.Fatal(err)
			}
			tables = append(tables, tbl)
			rt := &refTable{tp: tp}
			for d := Read; d <= Write; d++ {
				rt.rate[d], rt.cap[d] = tp.rate(&cfg, d)
				rt.table[d] = refBucket{bal: rt.rate[d]}
				rt.parts[d] = map[string]*refBucket{}
			}
			ref.tables = append(ref.tables, rt)
		}
		var tp Throughput
		if tables[0].Throughput().Billing == Provisioned {
			tp = ProvisionedThroughput(int64(1+byteAt(setup, 8)%12), int64(1+byteAt(setup, 9)%12))
		} else {
			tp = OnDemandThroughput(int64(byteAt(setup, 8)%13-1), int64(byteAt(setup, 9)%13-1))
		}
		ix, err := tables[0].RegisterIndex(t0, "I", tp)
		if err != nil {
			t.Fatal(err)
		}
		handles := []interface {
			Admit(time.Time, Direction, string) (Cause, bool)
			Charge(time.Time, Direction, string, float64)
			Balance(time.Time, Direction) float64
		}{tables[0], tables[1], ix}
		ri := &refTable{tp: tp, index: "I", parent: ref.tables[0]}
		for d := Read; d <= Write; d++ {
			ri.rate[d], ri.cap[d] = tp.rate(&cfg, d)
			ri.table[d] = refBucket{bal: ri.rate[d]}
			ri.parts[d] = map[string]*refBucket{}
		}
		ref.tables = append(ref.tables, ri)
		acct := m.Account(t0, "a", "r")
		now := 0.0
		for i := 0; i+3 < len(ops) && i < 4*100; i += 4 {
			op, sel, k, u := ops[i], ops[i+1], ops[i+2], ops[i+3]
			ti, d := int(sel%3), Direction(sel/3%2)
			key := ""
			if k%8 != 0 {
				key = fmt.Sprint("k", k%8)
			}
			at := t0.Add(time.Duration(now * float64(time.Second)))
			switch op % 4 {
			case 0:
				now += float64(u%16) * 0.25
			case 1:
				gc, gok := handles[ti].Admit(at, d, key)
				wc, wok := ref.admit(now, ti, d, key)
				if gc != wc || gok != wok {
					t.Fatalf("op %d at %vs: Admit(T%d, %v, %q) = %v, %v; model %v, %v", i/4, now, ti, d, key, gc, gok, wc, wok)
				}
			case 2:
				units := float64(u%32) * 0.5
				handles[ti].Charge(at, d, key, units)
				if units > 0 {
					ref.charge(now, ti, d, key, units)
				}
			case 3:
				gc, gok := handles[ti].Admit(at, d, key)
				wc, wok := ref.admit(now, ti, d, key)
				if gc != wc || gok != wok {
					t.Fatalf("op %d at %vs: Admit(T%d, %v, %q) = %v, %v; model %v, %v", i/4, now, ti, d, key, gc, gok, wc, wok)
				}
				if gok {
					units := float64(1+u%32) * 0.5
					handles[ti].Charge(at, d, key, units)
					ref.charge(now, ti, d, key, units)
				}
			}
			at = t0.Add(time.Duration(now * float64(time.Second)))
			for d := Read; d <= Write; d++ {
				ref.acct[d].refill(now, cfg.accountRate(d), cfg.BurstSeconds)
				if got := acct.Balance(at, d); got != ref.acct[d].bal {
					t.Fatalf("op %d: account %v balance %v, model %v", i/4, d, got, ref.acct[d].bal)
				}
				for ti, tbl := range []*Table{tables[0], tables[1], ix.own} {
					rt := ref.tables[ti]
					rt.table[d].refill(now, rt.rate[d], cfg.BurstSeconds)
					if got := tbl.Balance(at, d); got != rt.table[d].bal {
						t.Fatalf("op %d: T%d %v balance %v, model %v", i/4, ti, d, got, rt.table[d].bal)
					}
					for key, rb := range rt.parts[d] {
						got, kept := tbl.partitionBalance(at, d, key)
						if !kept {
							break
						}
						rb.refill(now, cfg.partitionRate(d), cfg.BurstSeconds)
						if got != rb.bal {
							t.Fatalf("op %d: T%d %v key %q balance %v, model %v", i/4, ti, d, key, got, rb.bal)
						}
					}
				}
			}
		}
	}
}
