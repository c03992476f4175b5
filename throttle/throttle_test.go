package throttle

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 10, 20, 12, 0, 0, 0, time.UTC)

// at is t0 plus sec seconds.
func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func newManager(t testing.TB, cfg Config) *Manager {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func register(t testing.TB, m *Manager, name string, tp Throughput) *Table {
	t.Helper()
	tbl, err := m.Register(t0, "111122223333", "us-east-1", name, tp)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

func TestConfigDefaults(t *testing.T) {
	m := newManager(t, Config{})
	want := Config{
		BurstSeconds:        300,
		InitialSeconds:      1,
		PartitionReadUnits:  3000,
		PartitionWriteUnits: 1000,
		TableReadUnits:      40000,
		TableWriteUnits:     40000,
		AccountReadUnits:    80000,
		AccountWriteUnits:   80000,
	}
	if got := m.Config(); got != want {
		t.Fatalf("Config() = %+v, want %+v", got, want)
	}
	// A set field is kept.
	m = newManager(t, Config{PartitionWriteUnits: 7, Off: true})
	if got := m.Config(); got.PartitionWriteUnits != 7 || !got.Off || got.PartitionReadUnits != 3000 {
		t.Fatalf("Config() = %+v", got)
	}
}

func TestConfigInvalid(t *testing.T) {
	for _, cfg := range []Config{
		{BurstSeconds: -1},
		{BurstSeconds: 0.5},
		{PartitionReadUnits: math.NaN()},
		{PartitionWriteUnits: -1000},
		{TableReadUnits: math.Inf(1)},
		{TableWriteUnits: -1},
		{AccountReadUnits: -1},
		{AccountWriteUnits: math.Inf(-1)},
		{InitialSeconds: -1},
		{InitialSeconds: 0.5},
		{InitialSeconds: 301},
		{InitialSeconds: 20, BurstSeconds: 10},
		{InitialSeconds: math.NaN()},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("New(%+v) error = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

// TestInitialSeconds: a new table's buckets start with InitialSeconds of
// their rate (one by default), refill from there, and Reset returns them
// to it; partition key buckets of a new table start the same way.
func TestInitialSeconds(t *testing.T) {
	// A 5/5 provisioned table written 20 units at once: refused after the
	// fifth by default, served with 4 seconds to start.
	for _, c := range []struct {
		initial float64
		served  int
	}{{0, 5}, {1, 5}, {4, 20}, {300, 20}} {
		m := newManager(t, Config{InitialSeconds: c.initial})
		tbl := register(t, m, fmt.Sprintf("t%v", c.initial), ProvisionedThroughput(5, 5))
		served := 0
		for range 20 {
			if _, ok := tbl.Admit(t0, Write, "k"); ok {
				tbl.Charge(t0, Write, "k", 1)
				served++
			}
		}
		if served != c.served {
			t.Errorf("InitialSeconds %v: served %d of 20 at once, want %d", c.initial, served, c.served)
		}
		// Reset starts the buckets over at the same balance.
		tbl.Reset(at(1))
		if got := balance(tbl, Write); !near(got, 5*max(c.initial, 1)) {
			t.Errorf("InitialSeconds %v: balance after Reset %v, want %v", c.initial, got, 5*max(c.initial, 1))
		}
	}
	// The balance is capped by BurstSeconds, never above where it started.
	m := newManager(t, Config{InitialSeconds: 10, BurstSeconds: 10})
	tbl := register(t, m, "capped", ProvisionedThroughput(2, 2))
	tbl.Admit(at(60), Read, "")
	if got := balance(tbl, Read); !near(got, 20) {
		t.Errorf("balance after a minute idle %v, want the 10-second ceiling 20", got)
	}
	// A hot key of an on-demand table: the partition bucket (1,000 WCU)
	// starts with 3 seconds too.
	m = newManager(t, Config{InitialSeconds: 3})
	tbl = register(t, m, "od", OnDemandThroughput(0, 0))
	served := 0
	for range 40 {
		if _, ok := tbl.Admit(t0, Write, "hot"); ok {
			tbl.Charge(t0, Write, "hot", 100)
			served++
		}
	}
	if served != 30 {
		t.Errorf("hot key served %d charges of 100 WCU at once, want 30 (3 s of 1,000 WCU)", served)
	}
}

// balance is the table bucket's balance in d, as of its last refill.
func balance(t *Table, d Direction) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dirs[d].b.bal
}

func TestRegisterInvalid(t *testing.T) {
	m := newManager(t, Config{})
	for _, tp := range []Throughput{
		{},
		{Billing: Billing(9)},
		ProvisionedThroughput(0, 5),
		ProvisionedThroughput(5, 0),
		ProvisionedThroughput(-1, 5),
	} {
		if _, err := m.Register(t0, "a", "r", "t", tp); !errors.Is(err, ErrInvalidThroughput) {
			t.Errorf("Register(%+v) error = %v, want ErrInvalidThroughput", tp, err)
		}
	}
	if m.Table("a", "r", "t") != nil {
		t.Fatal("an invalid registration left a table behind")
	}
}

// TestRates covers how a table is sized: provisioned by RCU/WCU, on-demand
// by its cap per direction when it is at least 1, else the default ceiling.
func TestRates(t *testing.T) {
	cases := []struct {
		name                string
		tp                  Throughput
		read, write         float64
		readCap, writeCap   bool
		readPart, writePart bool // partition buckets kept
	}{
		{"provisioned", ProvisionedThroughput(5, 7), 5, 7, false, false, false, false},
		{"provisioned above partition", ProvisionedThroughput(4000, 1001), 4000, 1001, false, false, true, true},
		{"provisioned at partition", ProvisionedThroughput(3000, 1000), 3000, 1000, false, false, false, false},
		{"provisioned ignores caps", Throughput{Billing: Provisioned, ReadCapacityUnits: 5, WriteCapacityUnits: 5, MaxReadRequestUnits: 9, MaxWriteRequestUnits: 9}, 5, 5, false, false, false, false},
		{"on-demand caps absent", OnDemandThroughput(0, 0), 40000, 40000, false, false, true, true},
		{"on-demand caps -1", OnDemandThroughput(-1, -1), 40000, 40000, false, false, true, true},
		{"on-demand caps negative", OnDemandThroughput(-7, -2), 40000, 40000, false, false, true, true},
		{"on-demand capped", OnDemandThroughput(100, 50), 100, 50, true, true, false, false},
		{"on-demand capped at 1", OnDemandThroughput(1, 1), 1, 1, true, true, false, false},
		{"on-demand write capped only", OnDemandThroughput(-1, 50), 40000, 50, false, true, true, false},
		{"on-demand read capped only", OnDemandThroughput(200, 0), 200, 40000, true, false, false, true},
		{"on-demand capped above partition", OnDemandThroughput(5000, 2000), 5000, 2000, true, true, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newManager(t, Config{})
			tbl := register(t, m, "T", c.tp)
			for _, d := range []struct {
				dir        Direction
				rate       float64
				capped     bool
				keepsParts bool
			}{{Read, c.read, c.readCap, c.readPart}, {Write, c.write, c.writeCap, c.writePart}} {
				rate, capped := tbl.Limit(d.dir)
				if rate != d.rate || capped != d.capped {
					t.Errorf("%v: Limit = %v, %v; want %v, %v", d.dir, rate, capped, d.rate, d.capped)
				}
				// Every bucket starts with one second of its rate.
				if b := tbl.Balance(t0, d.dir); b != d.rate {
					t.Errorf("%v: start balance %v, want %v", d.dir, b, d.rate)
				}
				if _, kept := tbl.partitionBalance(t0, d.dir, "k"); kept != d.keepsParts {
					t.Errorf("%v: partition buckets kept = %v, want %v", d.dir, kept, d.keepsParts)
				}
			}
		})
	}
}

// ev is one event of a timeline: at seconds after t0, do one thing.
type ev struct {
	at  float64
	do  string // admit | charge | table | part | account | register | admitAccount
	dir Direction
	key string
	// units is the amount charged, or the expected balance for table, part
	// and account.
	units float64
	tp    Throughput // register
	want  Cause      // admit, admitAccount: zero means admitted
}

func runTimeline(t *testing.T, cfg Config, tp Throughput, evs []ev) {
	t.Helper()
	m := newManager(t, cfg)
	tbl := register(t, m, "T", tp)
	acct := m.Account(t0, "111122223333", "us-east-1")
	for i, e := range evs {
		now := at(e.at)
		switch e.do {
		case "admit":
			c, ok := tbl.Admit(now, e.dir, e.key)
			if ok != (e.want == Cause{}) || c != e.want {
				t.Fatalf("event %d (%+v): Admit = %v, %v; want %v", i, e, c, ok, e.want)
			}
		case "admitAccount":
			c, ok := acct.Admit(now, e.dir)
			if ok != (e.want == Cause{}) || c != e.want {
				t.Fatalf("event %d (%+v): Account.Admit = %v, %v; want %v", i, e, c, ok, e.want)
			}
		case "charge":
			tbl.Charge(now, e.dir, e.key, e.units)
		case "table":
			if b := tbl.Balance(now, e.dir); !near(b, e.units) {
				t.Fatalf("event %d (%+v): table balance %v, want %v", i, e, b, e.units)
			}
		case "part":
			if b, _ := tbl.partitionBalance(now, e.dir, e.key); !near(b, e.units) {
				t.Fatalf("event %d (%+v): partition balance %v, want %v", i, e, b, e.units)
			}
		case "account":
			if b := acct.Balance(now, e.dir); !near(b, e.units) {
				t.Fatalf("event %d (%+v): account balance %v, want %v", i, e, b, e.units)
			}
		case "register":
			got, err := m.Register(now, "111122223333", "us-east-1", "T", e.tp)
			if err != nil || got != tbl {
				t.Fatalf("event %d: re-Register = %p, %v; want the same handle %p", i, got, err, tbl)
			}
		default:
			t.Fatalf("event %d: unknown op %q", i, e.do)
		}
	}
}

func tableCause(d Direction, b Billing, capped bool) Cause {
	return Cause{Bucket: BucketTable, Direction: d, Billing: b, Capped: capped}
}

func partCause(d Direction, b Billing) Cause {
	return Cause{Bucket: BucketPartition, Direction: d, Billing: b}
}

func acctCause(d Direction, b Billing) Cause {
	return Cause{Bucket: BucketAccount, Direction: d, Billing: b}
}

func TestTimeline(t *testing.T) {
	prov5 := ProvisionedThroughput(5, 5)
	small := Config{TableReadUnits: 30, TableWriteUnits: 20, PartitionReadUnits: 6, PartitionWriteUnits: 2}
	cases := []struct {
		name string
		cfg  Config
		tp   Throughput
		evs  []ev
	}{
		{"start balance is one second", Config{}, prov5, []ev{
			{at: 0, do: "table", dir: Write, units: 5},
			{at: 0, do: "table", dir: Read, units: 5},
			{at: 0, do: "account", dir: Write, units: 80000},
			{at: 0, do: "admit", dir: Write},
			{at: 0, do: "charge", dir: Write, units: 4.5},
			{at: 0, do: "admit", dir: Write},
			{at: 0, do: "charge", dir: Write, units: 0.5},
			{at: 0, do: "table", dir: Write, units: 0},
			// Zero is not positive: refused.
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
			// Reads are a separate bucket.
			{at: 0, do: "admit", dir: Read},
			{at: 0, do: "account", dir: Write, units: 80000 - 5},
		}},
		{"refill", Config{}, prov5, []ev{
			{at: 0, do: "charge", dir: Write, units: 5},
			{at: 0.1, do: "table", dir: Write, units: 0.5},
			{at: 0.1, do: "admit", dir: Write},
			{at: 1, do: "table", dir: Write, units: 5},
		}},
		{"300-second ceiling", Config{}, prov5, []ev{
			{at: 299, do: "table", dir: Write, units: 5 * 300},
			{at: 1000, do: "table", dir: Write, units: 5 * 300},
			{at: 1000, do: "charge", dir: Read, units: 1},
			{at: 5000, do: "table", dir: Read, units: 5 * 300},
		}},
		{"configured ceiling", Config{BurstSeconds: 10}, prov5, []ev{
			{at: 100, do: "table", dir: Write, units: 50},
		}},
		{"debt after a large item", Config{}, prov5, []ev{
			// A 400 KB item costs 400 WCU: admitted on a positive balance,
			// then charged in full.
			{at: 0, do: "admit", dir: Write},
			{at: 0, do: "charge", dir: Write, units: 400},
			{at: 0, do: "table", dir: Write, units: -395},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
			{at: 78.9, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
			{at: 79, do: "table", dir: Write, units: 0},
			{at: 79, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
			{at: 79.2, do: "admit", dir: Write},
			{at: 79.2, do: "table", dir: Write, units: 1},
		}},
		{"time going backwards takes nothing back", Config{}, prov5, []ev{
			{at: 10, do: "charge", dir: Write, units: 5},
			{at: 5, do: "table", dir: Write, units: 5 + 50 - 5},
			{at: 5, do: "charge", dir: Write, units: 5},
			{at: 10, do: "table", dir: Write, units: 45},
		}},
		{"non-positive units are ignored", Config{}, prov5, []ev{
			{at: 0, do: "charge", dir: Write, units: -5},
			{at: 0, do: "charge", dir: Write, units: 0},
			{at: 0, do: "charge", dir: Write, units: math.NaN()},
			{at: 0, do: "table", dir: Write, units: 5},
		}},
		{"provisioned table read", Config{}, prov5, []ev{
			{at: 0, do: "charge", dir: Read, units: 5.5},
			{at: 0, do: "admit", dir: Read, key: "k", want: tableCause(Read, Provisioned, false)},
			{at: 0, do: "admit", dir: Write, key: "k"},
		}},
		{"on-demand table at the default ceiling", small, OnDemandThroughput(0, -1), []ev{
			{at: 0, do: "table", dir: Write, units: 20},
			{at: 0, do: "charge", dir: Write, units: 20},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, OnDemand, false)},
			{at: 0, do: "charge", dir: Read, units: 30},
			{at: 0, do: "admit", dir: Read, want: tableCause(Read, OnDemand, false)},
		}},
		{"on-demand table at its caps", Config{}, OnDemandThroughput(100, 50), []ev{
			{at: 0, do: "charge", dir: Write, units: 50},
			{at: 0, do: "admit", dir: Write, key: "k", want: tableCause(Write, OnDemand, true)},
			{at: 0, do: "charge", dir: Read, units: 100},
			{at: 0, do: "admit", dir: Read, key: "k", want: tableCause(Read, OnDemand, true)},
			{at: 300, do: "table", dir: Read, units: 100 * 300},
		}},
		{"half-capped table reports the cap on writes only", small, OnDemandThroughput(-1, 5), []ev{
			{at: 0, do: "charge", dir: Write, units: 5},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, OnDemand, true)},
			{at: 0, do: "table", dir: Read, units: 30},
			{at: 0, do: "charge", dir: Read, units: 30},
			{at: 0, do: "admit", dir: Read, want: tableCause(Read, OnDemand, false)},
		}},
		{"half-capped table reports the cap on reads only", small, OnDemandThroughput(3, 0), []ev{
			{at: 0, do: "charge", dir: Read, units: 3},
			{at: 0, do: "admit", dir: Read, want: tableCause(Read, OnDemand, true)},
			{at: 0, do: "charge", dir: Write, units: 20},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, OnDemand, false)},
		}},
		{"on-demand hot key write", Config{}, OnDemandThroughput(0, 0), []ev{
			{at: 0, do: "part", dir: Write, key: "hot", units: 1000},
			{at: 0, do: "charge", dir: Write, key: "hot", units: 1000},
			{at: 0, do: "admit", dir: Write, key: "hot", want: partCause(Write, OnDemand)},
			// Another key, a request without a key and reads still pass.
			{at: 0, do: "admit", dir: Write, key: "cold"},
			{at: 0, do: "admit", dir: Write},
			{at: 0, do: "admit", dir: Read, key: "hot"},
			{at: 0, do: "table", dir: Write, units: 40000 - 1000},
			{at: 0.5, do: "part", dir: Write, key: "hot", units: 500},
			{at: 0.5, do: "admit", dir: Write, key: "hot"},
		}},
		{"on-demand hot key read", Config{}, OnDemandThroughput(0, 0), []ev{
			{at: 0, do: "charge", dir: Read, key: "hot", units: 3000.5},
			{at: 0, do: "admit", dir: Read, key: "hot", want: partCause(Read, OnDemand)},
			{at: 0, do: "admit", dir: Write, key: "hot"},
		}},
		{"provisioned hot key", Config{}, ProvisionedThroughput(5000, 2000), []ev{
			{at: 0, do: "charge", dir: Write, key: "hot", units: 1000},
			{at: 0, do: "admit", dir: Write, key: "hot", want: partCause(Write, Provisioned)},
			{at: 0, do: "charge", dir: Read, key: "hot", units: 3000},
			{at: 0, do: "admit", dir: Read, key: "hot", want: partCause(Read, Provisioned)},
			{at: 0, do: "admit", dir: Read, key: "other"},
		}},
		{"a key unused since the table was born has refilled", Config{}, OnDemandThroughput(0, 0), []ev{
			{at: 10, do: "part", dir: Write, key: "k", units: 11000},
			{at: 10, do: "charge", dir: Write, key: "k", units: 11000},
			{at: 10, do: "admit", dir: Write, key: "k", want: partCause(Write, OnDemand)},
			{at: 1000, do: "part", dir: Write, key: "new", units: 300000},
		}},
		{"account aggregate", Config{AccountWriteUnits: 10, AccountReadUnits: 4}, ProvisionedThroughput(100, 100), []ev{
			{at: 0, do: "account", dir: Write, units: 10},
			{at: 0, do: "charge", dir: Write, key: "k", units: 10},
			{at: 0, do: "table", dir: Write, units: 90},
			{at: 0, do: "admit", dir: Write, key: "k", want: acctCause(Write, Provisioned)},
			{at: 0, do: "admitAccount", dir: Write, want: acctCause(Write, BillingUnknown)},
			{at: 0, do: "admitAccount", dir: Read},
			{at: 0, do: "charge", dir: Read, units: 4},
			{at: 0, do: "admit", dir: Read, want: acctCause(Read, Provisioned)},
			{at: 0.1, do: "admit", dir: Write},
			{at: 1000, do: "account", dir: Write, units: 3000},
		}},
		{"account aggregate on-demand", Config{AccountWriteUnits: 10}, OnDemandThroughput(0, 0), []ev{
			{at: 0, do: "charge", dir: Write, key: "k", units: 10},
			{at: 0, do: "admit", dir: Write, key: "k", want: acctCause(Write, OnDemand)},
		}},
		{"account, then table, then partition", Config{AccountWriteUnits: 10000}, ProvisionedThroughput(1000, 1500), []ev{
			{at: 0, do: "charge", dir: Write, key: "k", units: 10000},
			{at: 0, do: "charge", dir: Write, units: 1000},
			{at: 0, do: "admit", dir: Write, key: "k", want: acctCause(Write, Provisioned)},
			{at: 0.1, do: "account", dir: Write, units: 0},
			{at: 0.1, do: "table", dir: Write, units: -9350},
			{at: 0.1, do: "part", dir: Write, key: "k", units: -8900},
			{at: 0.1, do: "admit", dir: Write, key: "k", want: acctCause(Write, Provisioned)},
			{at: 0.5, do: "admit", dir: Write, key: "k", want: tableCause(Write, Provisioned, false)},
			{at: 7, do: "table", dir: Write, units: 1000},
			{at: 7, do: "admit", dir: Write, key: "k", want: partCause(Write, Provisioned)},
			{at: 7, do: "admit", dir: Write, key: "j"},
			{at: 9, do: "admit", dir: Write, key: "k", want: partCause(Write, Provisioned)},
			{at: 9.1, do: "admit", dir: Write, key: "k"},
		}},
		{"re-registration scales the balance", Config{}, ProvisionedThroughput(10, 10), []ev{
			{at: 300, do: "table", dir: Write, units: 3000},
			{at: 300, do: "register", tp: ProvisionedThroughput(10, 20)},
			{at: 300, do: "table", dir: Write, units: 6000},
			{at: 300, do: "table", dir: Read, units: 3000},
			// To on-demand: 40,000 a second, still 300 seconds' worth.
			{at: 300, do: "register", tp: OnDemandThroughput(0, 0)},
			{at: 300, do: "table", dir: Write, units: 40000 * 300},
			{at: 300, do: "table", dir: Read, units: 40000 * 300},
		}},
		{"re-registration scales debt", Config{}, ProvisionedThroughput(10, 10), []ev{
			{at: 0, do: "charge", dir: Write, units: 110},
			{at: 0, do: "table", dir: Write, units: -100},
			{at: 5, do: "register", tp: ProvisionedThroughput(10, 2)},
			// -100 + 5 s × 10 = -50 at the old rate, × 2/10. (Refilling first is
			// not observable: scaling by new/old rate commutes with refill.)
			{at: 5, do: "table", dir: Write, units: -10},
			{at: 10, do: "table", dir: Write, units: 0},
			{at: 10, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
		}},
		{"re-registration moves the mode", Config{}, ProvisionedThroughput(5, 5), []ev{
			{at: 0, do: "charge", dir: Write, units: 5},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
			{at: 0, do: "register", tp: OnDemandThroughput(0, 100)},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, OnDemand, true)},
			{at: 0, do: "register", tp: OnDemandThroughput(0, -1)},
			{at: 0, do: "admit", dir: Write, want: tableCause(Write, OnDemand, false)},
			{at: 0.001, do: "admit", dir: Write},
			{at: 0.001, do: "register", tp: ProvisionedThroughput(5, 5)},
			{at: 0.001, do: "charge", dir: Write, units: 1},
			{at: 0.001, do: "admit", dir: Write, want: tableCause(Write, Provisioned, false)},
		}},
		{"re-registration keeps hot keys while the table outruns its partitions", Config{}, OnDemandThroughput(0, 0), []ev{
			{at: 0, do: "charge", dir: Write, key: "hot", units: 1000},
			{at: 0, do: "register", tp: ProvisionedThroughput(5000, 5000)},
			{at: 0, do: "admit", dir: Write, key: "hot", want: partCause(Write, Provisioned)},
			{at: 0, do: "part", dir: Write, key: "hot", units: 0},
		}},
		{"off admits everything and still charges", Config{Off: true, AccountWriteUnits: 1}, ProvisionedThroughput(5, 5), []ev{
			{at: 0, do: "charge", dir: Write, key: "k", units: 50},
			{at: 0, do: "admit", dir: Write, key: "k"},
			{at: 0, do: "admitAccount", dir: Write},
			{at: 0, do: "table", dir: Write, units: -45},
			{at: 0, do: "account", dir: Write, units: -49},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runTimeline(t, c.cfg, c.tp, c.evs) })
	}
}

func TestTablesShareTheAccount(t *testing.T) {
	m := newManager(t, Config{AccountWriteUnits: 10})
	a := register(t, m, "A", ProvisionedThroughput(100, 100))
	b := register(t, m, "B", OnDemandThroughput(0, 0))
	other, err := m.Register(t0, "111122223333", "eu-west-1", "A", ProvisionedThroughput(100, 100))
	if err != nil {
		t.Fatal(err)
	}
	a.Charge(t0, Write, "", 6)
	b.Charge(t0, Write, "k", 4)
	if c, ok := a.Admit(t0, Write, ""); ok || c != acctCause(Write, Provisioned) {
		t.Fatalf("A: Admit = %v, %v; want the account", c, ok)
	}
	if c, ok := b.Admit(t0, Write, "k"); ok || c != acctCause(Write, OnDemand) {
		t.Fatalf("B: Admit = %v, %v; want the account", c, ok)
	}
	// Another Region is another aggregate.
	if c, ok := other.Admit(t0, Write, ""); !ok {
		t.Fatalf("eu-west-1: refused by %v", c)
	}
}

func TestUnregister(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", ProvisionedThroughput(5, 5))
	if m.Table("111122223333", "us-east-1", "T") != tbl {
		t.Fatal("Table does not return the registered handle")
	}
	tbl.Charge(t0, Write, "", 5)
	m.Unregister("111122223333", "us-east-1", "T")
	if m.Table("111122223333", "us-east-1", "T") != nil {
		t.Fatal("Table returns an unregistered table")
	}
	fresh := register(t, m, "T", ProvisionedThroughput(5, 5))
	if fresh == tbl || fresh.Balance(t0, Write) != 5 {
		t.Fatal("a table registered again after Unregister does not start afresh")
	}
}

func TestPartitionEviction(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", OnDemandThroughput(0, 0))
	parts := func() int {
		tbl.mu.Lock()
		defer tbl.mu.Unlock()
		return len(tbl.dirs[Write].parts)
	}
	// A hot key deep in debt must survive every sweep.
	tbl.Charge(t0, Write, "hot", 1_000_000)
	for i := range 3 * defaultMinSweep {
		tbl.Charge(t0, Write, fmt.Sprint("a", i), 1)
	}
	if n := parts(); n != 3*defaultMinSweep+1 {
		t.Fatalf("%d buckets before they could refill, want %d (none is full)", n, 3*defaultMinSweep+1)
	}
	mapID := func() uintptr {
		tbl.mu.Lock()
		defer tbl.mu.Unlock()
		return reflect.ValueOf(tbl.dirs[Write].parts).Pointer()
	}
	grown := mapID()
	// From 300 s on every "a" key has refilled to its ceiling, and a key
	// charged 1 unit is full again a millisecond later: with keys arriving
	// 10 ms apart, sweeps keep the map near defaultMinSweep.
	largest := 0
	for i := range 20 * defaultMinSweep {
		tbl.Charge(at(300+float64(i)/100), Write, fmt.Sprint("b", i), 1)
		largest = max(largest, parts())
	}
	if largest > 4*defaultMinSweep+1 {
		t.Fatalf("%d buckets at most during the wave, want at most %d", largest, 4*defaultMinSweep+1)
	}
	if n := parts(); n > defaultMinSweep+1 {
		t.Fatalf("%d buckets after the wave, want at most %d", n, defaultMinSweep+1)
	}
	if mapID() == grown {
		t.Fatal("the map that grew to thousands of keys was kept after they were evicted")
	}
	later := at(600)
	if b, _ := tbl.partitionBalance(later, Write, "hot"); !near(b, 1000-1_000_000+600_000) {
		t.Fatalf("hot key balance %v: its debt was forgotten", b)
	}
	if c, ok := tbl.Admit(later, Write, "hot"); ok || c != partCause(Write, OnDemand) {
		t.Fatalf("hot key: Admit = %v, %v; want the partition", c, ok)
	}
	// An evicted key comes back exactly as full as if it had been kept.
	if b, _ := tbl.partitionBalance(later, Write, "a0"); b != 300_000 {
		t.Fatalf("evicted key balance %v, want 300000", b)
	}
}

func TestProvisionedTableKeepsNoPartitions(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", ProvisionedThroughput(5, 5))
	for i := range 10000 {
		tbl.Charge(t0, Write, fmt.Sprint(i), 0.001)
	}
	tbl.mu.Lock()
	defer tbl.mu.Unlock()
	if tbl.dirs[Write].parts != nil {
		t.Fatal("a table slower than a partition keeps partition buckets")
	}
}

func TestReregistrationBelowPartitionRateDropsPartitions(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", OnDemandThroughput(0, 0))
	tbl.Charge(t0, Write, "hot", 1000)
	if _, err := m.Register(t0, "111122223333", "us-east-1", "T", OnDemandThroughput(0, 10)); err != nil {
		t.Fatal(err)
	}
	if _, kept := tbl.partitionBalance(t0, Write, "hot"); kept {
		t.Fatal("a table capped below the partition rate keeps partition buckets")
	}
	if _, kept := tbl.partitionBalance(t0, Read, "hot"); !kept {
		t.Fatal("the uncapped direction dropped its partition buckets")
	}
}

// TestConcurrent charges from many goroutines and checks nothing is lost;
// run with -race.
func TestConcurrent(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", OnDemandThroughput(0, 0))
	const workers, per = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				key := fmt.Sprint(i % 7)
				if _, ok := tbl.Admit(t0, Write, key); !ok {
					t.Error("refused")
					return
				}
				tbl.Charge(t0, Write, key, 1)
				if w == 0 && i%100 == 0 {
					if _, err := m.Register(t0, "111122223333", "us-east-1", "T", OnDemandThroughput(0, 0)); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if b := tbl.Balance(t0, Write); b != 40000-workers*per {
		t.Fatalf("table balance %v, want %v", b, 40000-workers*per)
	}
	acct := m.Account(t0, "111122223333", "us-east-1")
	if b := acct.Balance(t0, Write); b != 80000-workers*per {
		t.Fatalf("account balance %v, want %v", b, 80000-workers*per)
	}
}

func TestStrings(t *testing.T) {
	for _, c := range []struct {
		c    Cause
		want string
	}{
		{Cause{}, "none Read UNKNOWN"},
		{tableCause(Write, OnDemand, true), "table Write PAY_PER_REQUEST capped"},
		{partCause(Read, Provisioned), "partition Read PROVISIONED"},
		{acctCause(Write, BillingUnknown), "account Write UNKNOWN"},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.c, got, c.want)
		}
	}
}
