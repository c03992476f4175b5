package capacity

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/throttle"
)

// Throttle controls for tests: not DynamoDB operations (the wire serves
// them off the DynamoDB API).

// Action is what Control does to a table's buckets, or to a global
// secondary index's.
type Action struct {
	// Index names the GSI whose buckets to act on; "" is the table's.
	Index string
	// Kind is "reset", "drain", "pin" or "unpin".
	Kind string
	// Read and Write choose the directions drain, pin and unpin act on;
	// neither means both.
	Read, Write bool
	// Rate is pin's units per second.
	Rate float64
}

// State returns the buckets of table name in ns at now, or of its global
// secondary index index when that is not "".
func (m *Manager) State(now time.Time, ns api.Namespace, name, index string) (*throttle.TableState, error) {
	t, err := m.handle(ns, name, index)
	if err != nil {
		return nil, err
	}
	s := t.State(now)
	return &s, nil
}

// Control applies a at now to the buckets of table name in ns (or of its
// GSI a.Index).
func (m *Manager) Control(now time.Time, ns api.Namespace, name string, a Action) error {
	t, err := m.handle(ns, name, a.Index)
	if err != nil {
		return err
	}
	var dirs []throttle.Direction
	if a.Read || !a.Write {
		dirs = append(dirs, throttle.Read)
	}
	if a.Write || !a.Read {
		dirs = append(dirs, throttle.Write)
	}
	switch a.Kind {
	case "reset":
		t.Reset(now)
	case "drain":
		for _, d := range dirs {
			t.Drain(now, d)
		}
	case "pin":
		for _, d := range dirs {
			if err := t.Pin(now, d, a.Rate); err != nil {
				return api.Validation("%v", err)
			}
		}
	case "unpin":
		for _, d := range dirs {
			t.Unpin(now, d)
		}
	default:
		return api.Validation("unknown throttle action %q: want reset, drain, pin or unpin", a.Kind)
	}
	return nil
}

// buckets is what the controls steer: a table's buckets (*throttle.Table)
// or a GSI's (*throttle.Index).
type buckets interface {
	State(now time.Time) throttle.TableState
	Reset(now time.Time)
	Drain(now time.Time, d throttle.Direction)
	Pin(now time.Time, d throttle.Direction, rate float64) error
	Unpin(now time.Time, d throttle.Direction)
}

func (m *Manager) handle(ns api.Namespace, name, index string) (buckets, error) {
	if m == nil {
		return nil, api.Validation("the throttle manager is not running")
	}
	t := m.m.Table(ns.Account, ns.Region, name)
	if t == nil {
		return nil, errNotFound("Requested resource not found: Table: %s not found in account %s, Region %s", name, ns.Account, ns.Region)
	}
	if index == "" {
		return t, nil
	}
	// Only a GSI has buckets of its own; an LSI's capacity is its table's.
	ix := t.Index(index)
	if ix == nil {
		return nil, errNotFound("Requested resource not found: Index: %s is not a global secondary index of table %s", index, name)
	}
	return ix, nil
}
