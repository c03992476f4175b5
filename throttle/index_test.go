package throttle

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

func registerIndex(t testing.TB, tbl *Table, name string, tp Throughput) *Index {
	t.Helper()
	ix, err := tbl.RegisterIndex(t0, name, tp)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func indexCause(b Bucket, d Direction, billing Billing, capped bool, name string) Cause {
	return Cause{Bucket: b, Direction: d, Billing: billing, Capped: capped, Index: name}
}

// A provisioned GSI has its own RCU and WCU: it runs dry on its own while
// the table keeps its capacity, and the table running dry leaves it alone.
func TestIndexProvisioned(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", ProvisionedThroughput(100, 100))
	ix := registerIndex(t, tbl, "G", ProvisionedThroughput(2, 1))
	if r, c := ix.Limit(Read); r != 2 || c {
		t.Fatalf("Limit(Read) = %v, %v; want 2, false", r, c)
	}
	for d, units := range map[Direction]float64{Read: 2, Write: 1} {
		if c, ok := ix.Admit(t0, d, "k"); !ok {
			t.Fatalf("%v: first Admit refused by %v", d, c)
		}
		ix.Charge(t0, d, "k", units)
		c, ok := ix.Admit(t0, d, "k")
		if want := indexCause(BucketTable, d, Provisioned, false, "G"); ok || c != want {
			t.Fatalf("%v: Admit = %v, %v; want %v", d, c, ok, want)
		}
		// The table has capacity of its own, untouched by the index.
		if c, ok := tbl.Admit(t0, d, "k"); !ok {
			t.Fatalf("%v: table refused by %v", d, c)
		}
		if got := tbl.Balance(t0, d); got != 100 {
			t.Fatalf("%v: table balance %v, want 100", d, got)
		}
	}
	// One second refills the index's one second of rate.
	if c, ok := ix.Admit(at(1), Write, "k"); !ok {
		t.Fatalf("after refill refused by %v", c)
	}
	// The account pools everything: the index's units were charged there.
	if got := m.Account(t0, "111122223333", "us-east-1").Balance(t0, Read); got != 80000-2 {
		t.Fatalf("account read balance %v, want %v", got, 80000-2)
	}
	// The table running dry does not refuse the index.
	tbl.Charge(t0, Write, "", 200)
	if c, ok := ix.Admit(at(1), Write, ""); !ok {
		t.Fatalf("index refused by %v after the table ran dry", c)
	}
}

// An on-demand GSI is sized by its own OnDemandThroughput caps where set,
// per direction, else by the default per-table ceiling.
func TestIndexOnDemandCaps(t *testing.T) {
	cfg := Config{TableReadUnits: 40, TableWriteUnits: 30}
	for _, tc := range []struct {
		name                  string
		tp                    Throughput
		readRate, writeRate   float64
		readCapped, wrCapped  bool
		readCause, writeCause Cause
	}{
		{"absent", OnDemandThroughput(0, 0), 40, 30, false, false,
			indexCause(BucketTable, Read, OnDemand, false, "G"), indexCause(BucketTable, Write, OnDemand, false, "G")},
		{"cleared", OnDemandThroughput(-1, -1), 40, 30, false, false,
			indexCause(BucketTable, Read, OnDemand, false, "G"), indexCause(BucketTable, Write, OnDemand, false, "G")},
		{"both", OnDemandThroughput(5, 3), 5, 3, true, true,
			indexCause(BucketTable, Read, OnDemand, true, "G"), indexCause(BucketTable, Write, OnDemand, true, "G")},
		{"write only", OnDemandThroughput(0, 3), 40, 3, false, true,
			indexCause(BucketTable, Read, OnDemand, false, "G"), indexCause(BucketTable, Write, OnDemand, true, "G")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newManager(t, cfg)
			// The table is capped so that its bucket is not the shared
			// quota: only the index's own bucket can refuse.
			tbl := register(t, m, "T", OnDemandThroughput(1000, 1000))
			ix := registerIndex(t, tbl, "G", tc.tp)
			for _, c := range []struct {
				d      Direction
				rate   float64
				capped bool
				cause  Cause
			}{{Read, tc.readRate, tc.readCapped, tc.readCause}, {Write, tc.writeRate, tc.wrCapped, tc.writeCause}} {
				if r, capped := ix.Limit(c.d); r != c.rate || capped != c.capped {
					t.Fatalf("Limit(%v) = %v, %v; want %v, %v", c.d, r, capped, c.rate, c.capped)
				}
				ix.Charge(t0, c.d, "", c.rate)
				got, ok := ix.Admit(t0, c.d, "")
				if ok || got != c.cause {
					t.Fatalf("Admit(%v) = %v, %v; want %v", c.d, got, ok, c.cause)
				}
				if tb := tbl.Balance(t0, c.d); tb != 1000 {
					t.Fatalf("capped table %v balance %v, want 1000 (not shared)", c.d, tb)
				}
			}
		})
	}
}

// Each index partition key value has its own bucket at the partition rate,
// in both billing modes.
func TestIndexPartition(t *testing.T) {
	cfg := Config{PartitionReadUnits: 6, PartitionWriteUnits: 2}
	for _, tp := range []Throughput{OnDemandThroughput(0, 0), ProvisionedThroughput(100, 100)} {
		m := newManager(t, cfg)
		tbl := register(t, m, "T", tp)
		ix := registerIndex(t, tbl, "G", tp)
		ix.Charge(t0, Write, "hot", 2)
		c, ok := ix.Admit(t0, Write, "hot")
		if want := indexCause(BucketPartition, Write, tp.Billing, false, "G"); ok || c != want {
			t.Fatalf("%v: Admit(hot) = %v, %v; want %v", tp.Billing, c, ok, want)
		}
		if c, ok := ix.Admit(t0, Write, "cold"); !ok {
			t.Fatalf("%v: Admit(cold) refused by %v", tp.Billing, c)
		}
		// The table's partition of the same value is another bucket.
		if c, ok := tbl.Admit(t0, Write, "hot"); !ok {
			t.Fatalf("%v: table Admit(hot) refused by %v", tp.Billing, c)
		}
	}
}

// An on-demand table's default ceiling is its per-table quota, shared with
// its indexes: index units are charged to it, and an index is refused when
// it is dry. A cap is the table's alone.
func TestIndexSharesPerTableQuota(t *testing.T) {
	m := newManager(t, Config{TableWriteUnits: 10, TableReadUnits: 10})
	tbl := register(t, m, "T", OnDemandThroughput(0, 0))
	g1 := registerIndex(t, tbl, "G1", OnDemandThroughput(0, 0))
	g2 := registerIndex(t, tbl, "G2", OnDemandThroughput(0, 100))
	g1.Charge(t0, Write, "", 4)
	g2.Charge(t0, Write, "", 4)
	if got := tbl.Balance(t0, Write); got != 2 {
		t.Fatalf("table write balance %v, want 2", got)
	}
	tbl.Charge(t0, Write, "", 2)
	// Dry: the table, and every index through the shared quota.
	if c, ok := tbl.Admit(t0, Write, ""); ok || c != tableCause(Write, OnDemand, false) {
		t.Fatalf("table Admit = %v, %v", c, ok)
	}
	for _, ix := range []*Index{g1, g2} {
		c, ok := ix.Admit(t0, Write, "")
		if want := indexCause(BucketTable, Write, OnDemand, false, ix.Name()); ok || c != want {
			t.Fatalf("%s Admit = %v, %v; want %v", ix.Name(), c, ok, want)
		}
	}
	// Reads are another quota.
	if c, ok := g1.Admit(t0, Read, ""); !ok {
		t.Fatalf("read refused by %v", c)
	}

	// A capped table keeps its cap to itself.
	tc := register(t, m, "C", OnDemandThroughput(0, 5))
	gc := registerIndex(t, tc, "G", OnDemandThroughput(0, 0))
	gc.Charge(t0, Write, "", 4)
	if got := tc.Balance(t0, Write); got != 5 {
		t.Fatalf("capped table write balance %v, want 5", got)
	}
	// Its uncapped read direction is still the shared quota.
	gc.Charge(t0, Read, "", 4)
	if got := tc.Balance(t0, Read); got != 6 {
		t.Fatalf("table read balance %v, want 6", got)
	}
}

// Registering an index again moves it to the new rates keeping its seconds
// of capacity; unregistering it forgets it.
func TestIndexReregistration(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", ProvisionedThroughput(10, 10))
	ix := registerIndex(t, tbl, "G", ProvisionedThroughput(4, 4))
	ix.Charge(t0, Write, "", 2) // 2 of 4 left: half a second
	again, err := tbl.RegisterIndex(t0, "G", ProvisionedThroughput(4, 40))
	if err != nil {
		t.Fatal(err)
	}
	if again != ix {
		t.Fatal("re-registration returned a new handle")
	}
	if got := ix.Balance(t0, Write); !near(got, 20) {
		t.Fatalf("write balance %v, want 20 (half a second of 40)", got)
	}
	if got := ix.Balance(t0, Read); got != 4 {
		t.Fatalf("read balance %v, want 4", got)
	}
	// Switching the table to on-demand moves the index too.
	if _, err := tbl.RegisterIndex(t0, "G", OnDemandThroughput(0, 7)); err != nil {
		t.Fatal(err)
	}
	if r, c := ix.Limit(Write); r != 7 || !c {
		t.Fatalf("Limit(Write) = %v, %v; want 7, true", r, c)
	}
	if got := ix.Throughput(); got != OnDemandThroughput(0, 7) {
		t.Fatalf("Throughput() = %+v", got)
	}
	if _, err := tbl.RegisterIndex(t0, "G", ProvisionedThroughput(0, 1)); err == nil {
		t.Fatal("0 RCU registered")
	}
	registerIndex(t, tbl, "A", ProvisionedThroughput(1, 1))
	if got := tbl.Indexes(); !reflect.DeepEqual(got, []string{"A", "G"}) {
		t.Fatalf("Indexes() = %v", got)
	}
	tbl.UnregisterIndex("G")
	if tbl.Index("G") != nil {
		t.Fatal("G still registered")
	}
	fresh := registerIndex(t, tbl, "G", ProvisionedThroughput(4, 4))
	if fresh == ix || fresh.Balance(t0, Write) != 4 {
		t.Fatalf("re-created index balance %v, want a fresh 4", fresh.Balance(t0, Write))
	}
	// Re-registering the table keeps its indexes.
	again2 := register(t, m, "T", ProvisionedThroughput(20, 20))
	if again2.Index("G") != fresh {
		t.Fatal("table re-registration dropped its index")
	}
	// Reset restarts them with the table.
	fresh.Charge(t0, Write, "", 10)
	tbl.Reset(at(1))
	if got := fresh.Balance(at(1), Write); got != 4 {
		t.Fatalf("balance after Reset %v, want 4", got)
	}
}

// The account refuses an index request with the index named; Off admits.
func TestIndexAccountAndOff(t *testing.T) {
	m := newManager(t, Config{AccountReadUnits: 3})
	tbl := register(t, m, "T", ProvisionedThroughput(100, 100))
	ix := registerIndex(t, tbl, "G", ProvisionedThroughput(100, 100))
	ix.Charge(t0, Read, "", 3)
	c, ok := ix.Admit(t0, Read, "")
	if want := indexCause(BucketAccount, Read, Provisioned, false, "G"); ok || c != want {
		t.Fatalf("Admit = %v, %v; want %v", c, ok, want)
	}
	if s := c.String(); s != "account Read PROVISIONED index G" {
		t.Fatalf("String() = %q", s)
	}

	off := newManager(t, Config{Off: true})
	tbl = register(t, off, "T", ProvisionedThroughput(1, 1))
	ix = registerIndex(t, tbl, "G", ProvisionedThroughput(1, 1))
	ix.Charge(t0, Write, "", 50)
	if c, ok := ix.Admit(t0, Write, ""); !ok {
		t.Fatalf("Off refused by %v", c)
	}
	if got := ix.Balance(t0, Write); got != -49 {
		t.Fatalf("Off balance %v, want -49 (still charged)", got)
	}
}

// TestIndexConcurrent admits and charges a table and its index from many
// goroutines while one re-registers both (run with -race).
func TestIndexConcurrent(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", OnDemandThroughput(0, 0))
	ix := registerIndex(t, tbl, "G", OnDemandThroughput(0, 0))
	const workers, per = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				key := fmt.Sprint(i % 7)
				if _, ok := tbl.Admit(t0, Write, key); !ok {
					t.Error("table refused")
					return
				}
				if _, ok := ix.Admit(t0, Write, key); !ok {
					t.Error("index refused")
					return
				}
				tbl.Charge(t0, Write, key, 1)
				ix.Charge(t0, Write, key, 1)
				if w == 0 && i%100 == 0 {
					if _, err := tbl.RegisterIndex(t0, "G", OnDemandThroughput(0, 0)); err != nil {
						t.Error(err)
					}
					_ = tbl.Indexes()
				}
			}
		})
	}
	wg.Wait()
	// The table's bucket is the per-table quota: it carries both.
	if b := tbl.Balance(t0, Write); b != 40000-2*workers*per {
		t.Fatalf("table balance %v, want %v", b, 40000-2*workers*per)
	}
	if b := ix.Balance(t0, Write); b != 40000-workers*per {
		t.Fatalf("index balance %v, want %v", b, 40000-workers*per)
	}
}

// The admin controls act on the index alone.
func TestIndexAdmin(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", ProvisionedThroughput(10, 10))
	ix := registerIndex(t, tbl, "G", ProvisionedThroughput(4, 4))
	ix.Drain(t0, Write)
	if c, ok := ix.Admit(t0, Write, ""); ok || c != indexCause(BucketTable, Write, Provisioned, false, "G") {
		t.Fatalf("after Drain: %v, %v", c, ok)
	}
	if c, ok := tbl.Admit(t0, Write, ""); !ok {
		t.Fatalf("table refused by %v after draining its index", c)
	}
	if err := ix.Pin(t0, Read, 100); err != nil {
		t.Fatal(err)
	}
	if s := ix.State(t0); s.Read.Rate != 100 || !s.Read.Pinned || s.Write.Debt != 4 {
		t.Fatalf("State() = %+v", s)
	}
	// Re-registration keeps the pin, as for a table.
	registerIndex(t, tbl, "G", ProvisionedThroughput(8, 8))
	if r, _ := ix.Limit(Read); r != 100 {
		t.Fatalf("pinned rate after re-registration %v", r)
	}
	ix.Unpin(t0, Read)
	if r, _ := ix.Limit(Read); r != 8 {
		t.Fatalf("rate after Unpin %v, want 8", r)
	}
	ix.Reset(t0)
	if got := ix.Balance(t0, Write); got != 8 {
		t.Fatalf("balance after Reset %v, want 8", got)
	}
	if err := ix.Pin(t0, Read, -1); err == nil {
		t.Fatal("negative pin accepted")
	}
}
