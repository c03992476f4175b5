package capacity

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/throttle"
)

// Options configures the throttle manager. The account aggregate and the
// default per-table ceiling of on-demand tables are the engine's Limits
// (what DescribeLimits reports), so the two can never disagree.
type Options struct {
	// Off turns refusals off: capacity is still computed, reported in
	// ConsumedCapacity and charged, but no request is refused.
	Off bool
	// PartitionReadUnits and PartitionWriteUnits are the rates of each
	// partition key value's buckets, in both billing modes. Defaults 3,000
	// and 1,000 (the service's per-partition maxima).
	PartitionReadUnits  float64
	PartitionWriteUnits float64
	// BurstSeconds is how many seconds of unused capacity a bucket keeps.
	// Default 300.
	BurstSeconds float64
	// InitialBurstSeconds is how many seconds of its rate a table's buckets
	// hold when the table is new (or ExtendDB has just started), from 1 to
	// BurstSeconds. Default 1. Tests that create a small provisioned table
	// and at once write more than a second of its capacity raise it.
	InitialBurstSeconds float64
}

// Manager is the engine's throttle manager: the buckets of every account,
// table, GSI and partition key value (package throttle), and the account
// handles the check every request starts with. A nil *Manager is one that
// is not running: it admits everything.
type Manager struct {
	m *throttle.Manager
	// accounts caches the manager's account handles by Namespace, so the
	// check every request starts with takes no manager-wide lock.
	accounts sync.Map
}

// New builds the manager from o and the engine's limits.
func New(o Options, lim api.DescribeLimitsOutput) (*Manager, error) {
	m, err := throttle.New(throttle.Config{
		Off:                 o.Off,
		BurstSeconds:        o.BurstSeconds,
		InitialSeconds:      o.InitialBurstSeconds,
		PartitionReadUnits:  o.PartitionReadUnits,
		PartitionWriteUnits: o.PartitionWriteUnits,
		TableReadUnits:      float64(lim.TableMaxReadCapacityUnits),
		TableWriteUnits:     float64(lim.TableMaxWriteCapacityUnits),
		AccountReadUnits:    float64(lim.AccountMaxReadCapacityUnits),
		AccountWriteUnits:   float64(lim.AccountMaxWriteCapacityUnits),
	})
	if err != nil {
		return nil, err
	}
	return &Manager{m: m}, nil
}

// Register (re)sizes the buckets of table name in ns to tp and returns its
// handle (throttle.Manager.Register).
func (m *Manager) Register(now time.Time, ns api.Namespace, name string, tp throttle.Throughput) (*throttle.Table, error) {
	return m.m.Register(now, ns.Account, ns.Region, name, tp)
}

// Unregister forgets the buckets of table name in ns, so a table re-created
// under the name starts afresh.
func (m *Manager) Unregister(ns api.Namespace, name string) {
	m.m.Unregister(ns.Account, ns.Region, name)
}

// Table returns the registered buckets of table name, or nil.
func (m *Manager) Table(account, region, name string) *throttle.Table {
	return m.m.Table(account, region, name)
}

// AdmitAccount admits a request against the account's aggregate in
// direction d before anything else is looked at. A refusal is told to o
// (when not nil) and names the table the TableName member designates
// (ThrottleResource), or no resource at all for a name no table can have.
func (m *Manager) AdmitAccount(now time.Time, ns api.Namespace, tableName *string, d throttle.Direction, o Observer) error {
	var a *throttle.Account
	if v, ok := m.accounts.Load(ns); ok {
		a = v.(*throttle.Account)
	} else {
		a = m.m.Account(now, ns.Account, ns.Region)
		m.accounts.Store(ns, a)
	}
	c, ok := a.Admit(now, d)
	if ok {
		return nil
	}
	res := ""
	if tableName != nil {
		res = ThrottleResource(ns, *tableName)
	}
	if o != nil {
		name := ""
		if res != "" {
			name = *tableName
		}
		ObserveRefusal(o, ns, name, nil, av.TypeInvalid, c)
	}
	return ThrottleError(c, res)
}

// Batch collects a batch's admissions: a refused item goes back to the
// caller as unprocessed, and the batch fails with the throttle error only
// when no item at all was admitted, as BatchGetItem and BatchWriteItem do
// on the service.
type Batch struct {
	first    error
	admitted int
}

// Refused records the outcome of one item's admission (its throttle error
// or nil) and reports whether the item was refused.
func (b *Batch) Refused(err error) bool {
	if err == nil {
		b.admitted++
		return false
	}
	if b.first == nil {
		b.first = err
	}
	return true
}

// Err returns the first refusal's error when nothing was admitted.
func (b *Batch) Err() error {
	if b.admitted == 0 {
		return b.first
	}
	return nil
}

// IsThrottle reports whether err is one of the three throttle errors.
func IsThrottle(err error) bool {
	var e *api.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case api.CodeProvisionedThroughputExceeded, api.CodeThrottling, api.CodeRequestLimitExceeded:
		return true
	}
	return false
}

// errNotFound is the ResourceNotFoundException of the controls.
func errNotFound(format string, args ...any) error {
	return &api.Error{Code: api.CodeResourceNotFound, Message: fmt.Sprintf(format, args...)}
}
