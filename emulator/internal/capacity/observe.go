package capacity

// Observation: what the console and /metrics are told as requests run.
//
// An Observer hears every capacity charge and every throttle refusal, with
// the numbers the engine itself used. With no observer the hooks are a nil
// check and nothing else: no allocation, no extra lock. With one, an event
// is a struct passed by value; its key bytes are only valid during the
// call, so an observer that keeps them copies.

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
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
	Namespace api.Namespace
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
	Namespace api.Namespace
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

// Charge is what one request consumed on one table, as the engine charged
// it: the table's own units and each index's, with the partition key value
// the request addressed in its storage form (nil for none) and the type of
// the table's partition key.
type Charge struct {
	Namespace api.Namespace
	Table     string
	Part      []byte
	KeyType   av.Type
	Read      bool
	Units     float64
	GSI, LSI  map[string]float64
	// Buckets is the table's throttle handle; nil when it has none.
	Buckets *throttle.Table
}

// ObserveCharge tells o what the engine charged at now: one Consumption
// for the table, then one per GSI and one per LSI.
func ObserveCharge(o Observer, now time.Time, c *Charge) {
	ev := Consumption{Namespace: c.Namespace, Table: c.Table, Read: c.Read, Units: c.Units,
		part: c.Part, keyType: c.KeyType}
	d := throttle.Write
	if c.Read {
		d = throttle.Read
	}
	if c.Buckets != nil {
		ev.Capacity, _ = c.Buckets.Limit(d)
		ev.Balance = c.Buckets.Balance(now, d)
	}
	o.Consumed(ev)
	ev = Consumption{Namespace: ev.Namespace, Table: c.Table, Read: c.Read}
	for name, u := range c.GSI {
		ev.Index, ev.Units = name, u
		ev.Capacity, ev.Balance = 0, 0
		if c.Buckets != nil {
			if h := c.Buckets.Index(name); h != nil {
				ev.Capacity, _ = h.Limit(d)
				ev.Balance = h.Balance(now, d)
			}
		}
		o.Consumed(ev)
	}
	ev.Capacity, ev.Balance = 0, 0
	for name, u := range c.LSI {
		ev.Index, ev.Units = name, u
		o.Consumed(ev)
	}
}

// ObserveRefusal tells o of a refusal of cause c on table name in ns; part
// and keyType are as in Charge (nil and TypeInvalid for an account refusal
// before the table was resolved).
func ObserveRefusal(o Observer, ns api.Namespace, name string, part []byte, keyType av.Type, c throttle.Cause) {
	ev := ThrottleEvent{Namespace: ns, Table: name, Index: c.Index, Read: c.Direction == throttle.Read, Bucket: c.Bucket.String(),
		part: part, keyType: keyType}
	// The resource only decides whether a reason is listed; any non-empty
	// one gives the reason the client is sent when it names a table.
	te := ThrottleError(c, "-")
	ev.Code = te.Code
	if len(te.ThrottlingReasons) > 0 {
		ev.Reason = te.ThrottlingReasons[0].Reason
	}
	o.Throttled(ev)
}

// Status is a table's throttle buckets at one moment.
type Status struct {
	// ReadCapacity and WriteCapacity are the table buckets' rates (units/s);
	// ReadBalance and WriteBalance their balances (units available now).
	ReadCapacity, WriteCapacity float64
	ReadBalance, WriteBalance   float64
	// ReadCeiling and WriteCeiling are the most each bucket banks (its
	// burst: throttle.Config.BurstSeconds of its rate).
	ReadCeiling, WriteCeiling float64
}

// StatusOf returns the state of table buckets h at now; nil (a table the
// manager does not track) reports zeros.
func StatusOf(now time.Time, h *throttle.Table) Status {
	var s Status
	if h != nil {
		s.ReadCapacity, _ = h.Limit(throttle.Read)
		s.WriteCapacity, _ = h.Limit(throttle.Write)
		s.ReadBalance = h.Balance(now, throttle.Read)
		s.WriteBalance = h.Balance(now, throttle.Write)
		st := h.State(now)
		s.ReadCeiling, s.WriteCeiling = st.Read.Ceiling, st.Write.Ceiling
	}
	return s
}
