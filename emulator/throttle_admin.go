package emulator

import (
	"context"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/throttle"
)

// Throttle controls for tests: not DynamoDB operations (the wire serves
// them off the DynamoDB API), so their signatures keep them out of the
// dispatch table.

// ThrottleAction is what ThrottleControl does to a table's buckets, or to a
// global secondary index's.
type ThrottleAction struct {
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

// ThrottleState returns the buckets of table name in ns, or of its global
// secondary index index when that is not "".
func (e *Engine) ThrottleState(_ context.Context, ns Namespace, name, index string) (*throttle.TableState, error) {
	t, err := e.throttleHandle(ns, name, index)
	if err != nil {
		return nil, err
	}
	s := t.State(e.now())
	return &s, nil
}

// ThrottleControl applies a to the buckets of table name in ns (or of its
// GSI a.Index) and returns their state afterwards.
func (e *Engine) ThrottleControl(ctx context.Context, ns Namespace, name string, a ThrottleAction) (*throttle.TableState, error) {
	t, err := e.throttleHandle(ns, name, a.Index)
	if err != nil {
		return nil, err
	}
	now := e.now()
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
				return nil, Validation("%v", err)
			}
		}
	case "unpin":
		for _, d := range dirs {
			t.Unpin(now, d)
		}
	default:
		return nil, Validation("unknown throttle action %q: want reset, drain, pin or unpin", a.Kind)
	}
	return e.ThrottleState(ctx, ns, name, a.Index)
}

// throttleBuckets is what the controls steer: a table's buckets
// (*throttle.Table) or a GSI's (*throttle.Index).
type throttleBuckets interface {
	State(now time.Time) throttle.TableState
	Reset(now time.Time)
	Drain(now time.Time, d throttle.Direction)
	Pin(now time.Time, d throttle.Direction, rate float64) error
	Unpin(now time.Time, d throttle.Direction)
}

func (e *Engine) throttleHandle(ns Namespace, name, index string) (throttleBuckets, error) {
	if e.thr.m == nil {
		return nil, Validation("the throttle manager is not running")
	}
	t := e.thr.m.Table(ns.Account, ns.Region, name)
	if t == nil {
		return nil, &Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("Requested resource not found: Table: %s not found in account %s, Region %s", name, ns.Account, ns.Region)}
	}
	if index == "" {
		return t, nil
	}
	// Only a GSI has buckets of its own; an LSI's capacity is its table's.
	ix := t.Index(index)
	if ix == nil {
		return nil, &Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("Requested resource not found: Index: %s is not a global secondary index of table %s", index, name)}
	}
	return ix, nil
}
