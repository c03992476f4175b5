package autoscale

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/throttle"
	"github.com/rs/zerolog"
)

// Core is what auto scaling uses of the engine.
type Core interface {
	// Group returns the table name in ns and the other members of its
	// global table, as DescribeTableReplicaAutoScaling reports them; an
	// absent table is ResourceNotFoundException.
	Group(ns api.Namespace, name string) (Group, error)
	// Change looks up the table name in ns under the catalog's lock,
	// refuses one that is not ACTIVE (ResourceInUseException), and calls
	// change with copies of it and of every live member of its global
	// table, its own first. Unless change fails, it stores the members
	// with the Scaling change left on them and on their GSIs, and returns
	// the table's group as Group would, under the same lock.
	Change(ns api.Namespace, name string, change func(members []*Table) error) (Group, error)
	// Capacities lists the tables and GSIs with auto scaling settings
	// that are ACTIVE, PROVISIONED and have a throttle handle at now, in
	// any order.
	Capacities(now time.Time) []Capacity
	// SetThroughput changes the provisioned throughput of a table (index
	// "") or one of its GSIs through UpdateTable. An *api.Error is the
	// service's refusal (busy, the day's decrease budget spent).
	SetThroughput(ctx context.Context, ns api.Namespace, table, index string, read, write int64) error
	// Now is the engine clock's now.
	Now() time.Time
	// Log is the engine's logger.
	Log() *zerolog.Logger
}

// Group is a table and the other members of its global table.
type Group struct {
	Table *Table
	// Replicas are the other members, in the group's order.
	Replicas []Replica
}

// Replica is another member of a table's global table.
type Replica struct {
	Region string
	// Status is the replica's status.
	Status string
	// Table is nil when the member's table cannot be found.
	Table *Table
}

// Table is what auto scaling sees of one member table.
type Table struct {
	Account, Region, Name string
	Status                string
	PayPerRequest         bool
	// Scaling is the table's settings; Change stores what is left here.
	Scaling *Scaling
	// GSIs are the table's GSIs whose deletion has not completed.
	GSIs []*Index
}

// Index is what auto scaling sees of one GSI.
type Index struct {
	Name   string
	Status string
	// Deleted is set on a GSI being deleted.
	Deleted bool
	// Scaling is the index's settings; Change stores what is left here.
	Scaling *Scaling
}

// Capacity is a table or GSI with auto scaling settings, as a pass sees
// it.
type Capacity struct {
	NS    api.Namespace
	Table string
	// Index is "" for the table.
	Index string
	// ID is the table's unique id: a table made again under the same
	// name starts its datapoints over.
	ID      [16]byte
	Scaling *Scaling
	// Src is the table's or GSI's throttle handle.
	Src Consumer
	// Read and Write are the provisioned capacity.
	Read, Write int64
}

// Consumer is what a pass samples: a table's or a GSI's throttle handle.
type Consumer interface {
	Consumed(d throttle.Direction) float64
}
