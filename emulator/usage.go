package emulator

import (
	"context"
	"strings"
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
	first      [1]string // tables' room for the one table most requests use
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
	if u.tables == nil {
		u.tables = u.first[:0]
	}
	u.tables = append(u.tables, table)
}

// Units returns the read and write capacity units consumed so far.
func (u *Usage) Units() (read, write float64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.readUnits, u.writeUnits
}

// TableList is the tables capacity was consumed on, in first-use order,
// joined by commas for a log line.
func (u *Usage) TableList() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.tables) == 1 {
		return u.tables[0]
	}
	return strings.Join(u.tables, ",")
}
