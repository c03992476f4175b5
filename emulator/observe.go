package emulator

// Observation: what the console and /metrics are told as requests run.
//
// An Observer (Options.Observer) hears every capacity charge and every
// throttle refusal, with the numbers the engine itself used. With no
// observer the hooks are a nil check and nothing else: no allocation, no
// extra lock. With one, an event is a struct passed by value; its key bytes
// are only valid during the call, so an observer that keeps them copies.

import (
	"context"
	"sort"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/throttle"
)

// Observer is told of consumed capacity and throttle refusals as they
// happen. Its methods run on the request's goroutine and must be quick and
// safe for concurrent use.
type Observer interface {
	// Consumed is called once for the table and once for each index a
	// request consumed capacity on.
	Consumed(c Consumption)
	// Throttled is called once for each refusal (a refused batch item or
	// transaction action counts once).
	Throttled(t ThrottleEvent)
}

// Consumption is capacity one request consumed on one table or index: the
// number ReturnConsumedCapacity reports for it.
type Consumption struct {
	Namespace Namespace
	Table     string
	// Index is "" for the table itself.
	Index string
	Read  bool
	Units float64
	// Capacity and Balance are the rate in the request's direction
	// (units/s: provisioned capacity, the on-demand cap or the default
	// ceiling) and the bucket's balance after the charge, of the table for
	// the table entry (Index "") and of the index for a GSI with buckets of
	// its own. Zero for LSIs, whose units are the table's.
	Capacity float64
	Balance  float64

	part    []byte
	keyType av.Type
}

// PartitionKey returns the partition key value the request addressed, if it
// addressed one (not for Scan, index entries or an account refusal).
func (c Consumption) PartitionKey() (av.Value, bool) { return decodePartition(c.part, c.keyType) }

// PartitionBytes returns the partition key value's storage form (hash
// prefix and encoding), a cheap map key for counting hot keys. It is only
// valid during the Observer call.
func (c Consumption) PartitionBytes() []byte { return c.part }

// ThrottleEvent is one refusal by the throttle manager.
type ThrottleEvent struct {
	Namespace Namespace
	// Table is the table the request named ("" when an account refusal
	// came before a valid name was known).
	Table string
	// Index is the global secondary index refused ("" for the table): a
	// read of it, or a base-table write it held back.
	Index string
	Read  bool
	// Bucket is the bucket that refused: "table", "partition" or "account".
	Bucket string
	// Code is the error's type (ProvisionedThroughputExceededException,
	// ThrottlingException, RequestLimitExceeded) and Reason the
	// ThrottlingReasons reason sent with it ("" where none is sent).
	Code   string
	Reason string

	part    []byte
	keyType av.Type
}

// PartitionKey returns the partition key value of the refused request, if
// it addressed one.
func (t ThrottleEvent) PartitionKey() (av.Value, bool) { return decodePartition(t.part, t.keyType) }

// PartitionBytes is Consumption.PartitionBytes for a refusal.
func (t ThrottleEvent) PartitionBytes() []byte { return t.part }

func decodePartition(part []byte, t av.Type) (av.Value, bool) {
	if len(part) <= 4 || t == av.TypeInvalid {
		return av.Value{}, false
	}
	v, _, err := av.DecodeKey(part[4:], t)
	if err != nil {
		return av.Value{}, false
	}
	return v, true
}

// Observers returns one Observer telling each non-nil one of obs, or nil
// when there is none (so the engine's hooks stay a nil check).
func Observers(obs ...Observer) Observer {
	var m multiObserver
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	switch len(m) {
	case 0:
		return nil
	case 1:
		return m[0]
	}
	return m
}

type multiObserver []Observer

func (m multiObserver) Consumed(c Consumption) {
	for _, o := range m {
		o.Consumed(c)
	}
}

func (m multiObserver) Throttled(t ThrottleEvent) {
	for _, o := range m {
		o.Throttled(t)
	}
}

// observeCharge tells the observer what chargeThroughput charged at now.
func (e *Engine) observeCharge(o Observer, now time.Time, t *tableMeta, key []byte, c *capacityUse) {
	ev := Consumption{Namespace: t.ns(), Table: t.Name, Read: c.read, Units: c.table,
		part: partitionBytes(t, key), keyType: avType(t.hashKey().Type)}
	d := throttle.Write
	if c.read {
		d = throttle.Read
	}
	if t.thr != nil {
		ev.Capacity, _ = t.thr.Limit(d)
		ev.Balance = t.thr.Balance(now, d)
	}
	o.Consumed(ev)
	ev = Consumption{Namespace: ev.Namespace, Table: t.Name, Read: c.read}
	for name, u := range c.gsi {
		ev.Index, ev.Units = name, u
		ev.Capacity, ev.Balance = 0, 0
		if t.thr != nil {
			if h := t.thr.Index(name); h != nil {
				ev.Capacity, _ = h.Limit(d)
				ev.Balance = h.Balance(now, d)
			}
		}
		o.Consumed(ev)
	}
	ev.Capacity, ev.Balance = 0, 0
	for name, u := range c.lsi {
		ev.Index, ev.Units = name, u
		o.Consumed(ev)
	}
}

// observeRefusal tells the observer of a refusal of cause c on table t (nil
// for an account refusal before the table was resolved, then named name).
func (e *Engine) observeRefusal(o Observer, ns Namespace, t *tableMeta, name string, key []byte, c throttle.Cause) {
	ev := ThrottleEvent{Namespace: ns, Table: name, Index: c.Index, Read: c.Direction == throttle.Read, Bucket: c.Bucket.String()}
	if t != nil {
		ev.part, ev.keyType = partitionBytes(t, key), avType(t.hashKey().Type)
	}
	// The resource only decides whether a reason is listed; any non-empty
	// one gives the reason the client is sent when it names a table.
	te := ThrottleError(c, "-")
	ev.Code = te.Code
	if len(te.ThrottlingReasons) > 0 {
		ev.Reason = te.ThrottlingReasons[0].Reason
	}
	o.Throttled(ev)
}

// Namespaces returns every (account, Region) that holds a table, sorted.
func (e *Engine) Namespaces() []Namespace {
	now := e.now()
	e.rlockCatalog()
	var out []Namespace
	for ns, m := range e.tables {
		for _, t := range m {
			if !t.gone(now) {
				out = append(out, ns)
				break
			}
		}
	}
	e.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Account != out[j].Account {
			return out[i].Account < out[j].Account
		}
		return out[i].Region < out[j].Region
	})
	return out
}

// ThrottleStatus is a table's throttle buckets at one moment.
type ThrottleStatus struct {
	// ReadCapacity and WriteCapacity are the table buckets' rates (units/s);
	// ReadBalance and WriteBalance their balances (units available now).
	ReadCapacity, WriteCapacity float64
	ReadBalance, WriteBalance   float64
}

// TableThrottleStatus returns the throttle buckets of table name in ns, or
// ResourceNotFoundException. A table the manager does not track (throttling
// off) reports zeros.
func (e *Engine) TableThrottleStatus(ns Namespace, name string) (ThrottleStatus, error) {
	t, err := e.table(ns, name)
	if err != nil {
		return ThrottleStatus{}, err
	}
	var s ThrottleStatus
	if t.thr != nil {
		now := e.now()
		s.ReadCapacity, _ = t.thr.Limit(throttle.Read)
		s.WriteCapacity, _ = t.thr.Limit(throttle.Write)
		s.ReadBalance = t.thr.Balance(now, throttle.Read)
		s.WriteBalance = t.thr.Balance(now, throttle.Write)
	}
	return s, nil
}

// TableNames lists every table of ns, through ListTables' pages (what the
// console and /metrics show).
func (e *Engine) TableNames(ctx context.Context, ns Namespace) ([]string, error) {
	var names []string
	var from *string
	for {
		out, err := e.ListTables(ctx, ns, &ListTablesInput{ExclusiveStartTableName: from})
		if err != nil {
			return names, err
		}
		names = append(names, out.TableNames...)
		if out.LastEvaluatedTableName == "" {
			return names, nil
		}
		from = &out.LastEvaluatedTableName
	}
}
