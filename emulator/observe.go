package emulator

// What the console and /metrics ask of the engine besides the Observer
// (package capacity) they are told through.

import (
	"context"
	"sort"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/capacity"
)

// Namespaces returns every (account, Region) that holds a table, sorted.
func (e *Engine) Namespaces() []api.Namespace {
	now := e.now()
	e.rlockCatalog()
	var out []api.Namespace
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

// TableThrottleStatus returns the throttle buckets of table name in ns, or
// ResourceNotFoundException. A table the manager does not track (throttling
// off) reports zeros.
func (e *Engine) TableThrottleStatus(ns api.Namespace, name string) (ThrottleStatus, error) {
	t, err := e.table(ns, name)
	if err != nil {
		return ThrottleStatus{}, err
	}
	return capacity.StatusOf(e.now(), t.thr), nil
}

// TableNames lists every table of ns, through ListTables' pages (what the
// console and /metrics show).
func (e *Engine) TableNames(ctx context.Context, ns api.Namespace) ([]string, error) {
	var names []string
	var from *string
	for {
		out, err := e.ListTables(ctx, ns, &api.ListTablesInput{ExclusiveStartTableName: from})
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
