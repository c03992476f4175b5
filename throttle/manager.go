package throttle

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrInvalidThroughput is returned by Register for a throughput no table can
// have: an unknown billing mode or provisioned units below 1.
var ErrInvalidThroughput = errors.New("throttle: invalid throughput")

// Throughput is what a table is registered with.
type Throughput struct {
	Billing Billing
	// ReadCapacityUnits and WriteCapacityUnits are a Provisioned table's
	// RCU and WCU; at least 1 each.
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
	// MaxReadRequestUnits and MaxWriteRequestUnits are an OnDemand table's
	// OnDemandThroughput caps. A value below 1 (absent is 0, cleared is -1)
	// means no cap: that direction keeps the default per-table ceiling.
	MaxReadRequestUnits  int64
	MaxWriteRequestUnits int64
}

// ProvisionedThroughput returns a Provisioned throughput of rcu and wcu.
func ProvisionedThroughput(rcu, wcu int64) Throughput {
	return Throughput{Billing: Provisioned, ReadCapacityUnits: rcu, WriteCapacityUnits: wcu}
}

// OnDemandThroughput returns an OnDemand throughput with caps maxRead and
// maxWrite; pass 0 or -1 for no cap in a direction.
func OnDemandThroughput(maxRead, maxWrite int64) Throughput {
	return Throughput{Billing: OnDemand, MaxReadRequestUnits: maxRead, MaxWriteRequestUnits: maxWrite}
}

func (tp Throughput) validate() error {
	switch tp.Billing {
	case Provisioned:
		if tp.ReadCapacityUnits < 1 || tp.WriteCapacityUnits < 1 {
			return fmt.Errorf("%w: provisioned %d RCU, %d WCU", ErrInvalidThroughput, tp.ReadCapacityUnits, tp.WriteCapacityUnits)
		}
	case OnDemand:
	default:
		return fmt.Errorf("%w: billing mode %d", ErrInvalidThroughput, tp.Billing)
	}
	return nil
}

// rate returns the table bucket's rate in direction d and whether it is an
// on-demand cap.
func (tp Throughput) rate(cfg *Config, d Direction) (float64, bool) {
	if tp.Billing == Provisioned {
		if d == Write {
			return float64(tp.WriteCapacityUnits), false
		}
		return float64(tp.ReadCapacityUnits), false
	}
	limit := tp.MaxReadRequestUnits
	if d == Write {
		limit = tp.MaxWriteRequestUnits
	}
	if limit >= 1 {
		return float64(limit), true
	}
	return cfg.tableRate(d), false
}

// Manager holds the buckets of every account, Region and table. It is safe
// for concurrent use; the hot path (Admit, Charge) takes only the locks of
// the account and table it touches.
type Manager struct {
	cfg Config
	// minSweep is defaultMinSweep; tests lower it.
	minSweep int

	mu       sync.Mutex
	accounts map[nsKey]*Account
	tables   map[tableKey]*Table
}

type nsKey struct{ account, region string }

type tableKey struct {
	nsKey
	name string
}

// New returns a Manager configured by cfg (zero fields take their defaults).
func New(cfg Config) (*Manager, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Manager{cfg: c, minSweep: defaultMinSweep, accounts: map[nsKey]*Account{}, tables: map[tableKey]*Table{}}, nil
}

// Config returns the effective configuration, defaults filled in (what
// DescribeLimits reports).
func (m *Manager) Config() Config { return m.cfg }

// Account returns the aggregate buckets of account in region, creating them
// (with one second of their rate) at now on first use.
func (m *Manager) Account(now time.Time, account, region string) *Account {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.accountLocked(now, nsKey{account, region})
}

func (m *Manager) accountLocked(now time.Time, k nsKey) *Account {
	a := m.accounts[k]
	if a == nil {
		n := now.UnixNano()
		a = &Account{cfg: &m.cfg}
		for d := Read; d <= Write; d++ {
			a.b[d] = bucket{bal: m.cfg.accountRate(d), last: n}
		}
		m.accounts[k] = a
	}
	return a
}

// Register sizes the buckets of table name in account and region by tp and
// returns its handle. A new table's buckets start at now with
// Config.InitialSeconds of their rate. Registering a table again (UpdateTable changed its billing
// mode, throughput or caps) refills its buckets to now at the old rates,
// then moves them to the new rates, scaling each balance by new/old rate so
// the table keeps the same seconds of capacity (or of debt).
func (m *Manager) Register(now time.Time, account, region, name string, tp Throughput) (*Table, error) {
	if err := tp.validate(); err != nil {
		return nil, err
	}
	k := tableKey{nsKey{account, region}, name}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.tables[k]; t != nil {
		t.update(now.UnixNano(), tp)
		return t, nil
	}
	t := newTable(&m.cfg, m.accountLocked(now, k.nsKey), now.UnixNano(), tp, m.minSweep)
	m.tables[k] = t
	return t, nil
}

// Table returns the handle of a registered table, or nil.
func (m *Manager) Table(account, region, name string) *Table {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tables[tableKey{nsKey{account, region}, name}]
}

// Unregister forgets a table (DeleteTable). A table of the same name
// registered later starts afresh.
func (m *Manager) Unregister(account, region, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tables, tableKey{nsKey{account, region}, name})
}

// Account is the aggregate of every table of one account in one Region.
type Account struct {
	cfg *Config
	mu  sync.Mutex
	b   [2]bucket
}

// Admit checks the account's bucket alone, before the request's table is
// known. A refusal's Cause has BillingUnknown.
func (a *Account) Admit(now time.Time, d Direction) (Cause, bool) {
	if a.cfg.Off || a.admit(now.UnixNano(), d) {
		return Cause{}, true
	}
	return Cause{Bucket: BucketAccount, Direction: d}, false
}

func (a *Account) admit(n int64, d Direction) bool {
	rate := a.cfg.accountRate(d)
	a.mu.Lock()
	a.b[d].refill(n, rate, rate*a.cfg.BurstSeconds)
	ok := a.b[d].bal > 0
	a.mu.Unlock()
	return ok
}

func (a *Account) charge(n int64, d Direction, units float64) {
	rate := a.cfg.accountRate(d)
	a.mu.Lock()
	a.b[d].refill(n, rate, rate*a.cfg.BurstSeconds)
	a.b[d].bal -= units
	a.mu.Unlock()
}

// Balance returns the account's balance in direction d at now.
func (a *Account) Balance(now time.Time, d Direction) float64 {
	rate := a.cfg.accountRate(d)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.b[d].refill(now.UnixNano(), rate, rate*a.cfg.BurstSeconds)
	return a.b[d].bal
}
