package emulator

import (
	"context"
	"sync"
)

// Usage collects what one request consumed, whether or not it asked for
// ReturnConsumedCapacity, so the wire layer can log it. Attach one with
// WithUsage; the engine adds to it wherever it charges capacity.
type Usage struct {
	mu         sync.Mutex
	readUnits  float64
	writeUnits float64
	tables     []string
}

type usageKey struct{}

// WithUsage returns ctx carrying u.
func WithUsage(ctx context.Context, u *Usage) context.Context {
	return context.WithValue(ctx, usageKey{}, u)
}

// recordUsage adds c, consumed on table, to the Usage ctx carries (if any).
func recordUsage(ctx context.Context, table string, c *capacityUse) {
	u, _ := ctx.Value(usageKey{}).(*Usage)
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if c.read {
		u.readUnits += c.total()
	} else {
		u.writeUnits += c.total()
	}
	for _, t := range u.tables {
		if t == table {
			return
		}
	}
	u.tables = append(u.tables, table)
}

// Units returns the read and write capacity units consumed so far.
func (u *Usage) Units() (read, write float64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.readUnits, u.writeUnits
}

// Tables returns the tables capacity was consumed on, in first-use order.
func (u *Usage) Tables() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.tables...)
}
