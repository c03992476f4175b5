package globaltables

// The replication group, version 2019.11.21 (MREC), which legacy
// (2017.11.29) global tables are built on too.
//
// A global table is one real table per Region of the same account, each
// with its own ID, ARN and stream. Every member's metadata carries the whole
// group (Membership.Group, this table included), so a member describes the
// others from its own point of view and its writers know where to send their
// changes without another lookup. A change of the group rewrites every
// member's metadata in one batch: they share the store.
//
// A new replica is seeded by a persisted job while its entry is Seeding;
// the entry, the source table and the replica are CREATING / UPDATING /
// CREATING until the job ends and any --transition-delay has passed.

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// globalTableVersion is the only version of global tables this emulator builds with
// UpdateTable's ReplicaUpdates.
const globalTableVersion = "2019.11.21"

const (
	statusCreating = "CREATING"
	statusUpdating = "UPDATING"
	statusDeleting = "DELETING"
	statusActive   = "ACTIVE"
)

// TableID is a member table's ID (the engine's table ID), stored as hex.
type TableID [16]byte

// MarshalText keeps the ID readable in stored metadata, as the engine
// stores its own table IDs.
func (id TableID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(id[:])), nil }

// UnmarshalText is the inverse of MarshalText.
func (id *TableID) UnmarshalText(b []byte) error {
	_, err := hex.Decode(id[:], b)
	return err
}

// Replica is one member of a replication group.
type Replica struct {
	Region string  `json:"region"`
	ID     TableID `json:"id"`
	// KMSKey is the replica's customer managed key ARN ("" for the AWS
	// managed key), as KMSMasterKeyId reports it.
	KMSKey string `json:"kms,omitempty"`
	// MaxRead is the OnDemandThroughputOverride (0: none).
	MaxRead int64         `json:"maxRead,omitempty"`
	GSIs    []GSIOverride `json:"gsis,omitempty"`
	// Class is the TableClassOverride ("": the table's class).
	Class        string    `json:"class,omitempty"`
	ClassUpdated time.Time `json:"classUpdated,omitzero"`
	// Seeding is set until the seeding job has copied the last item from
	// SeedFrom.
	Seeding       bool      `json:"seeding,omitempty"`
	SeedFrom      string    `json:"seedFrom,omitempty"`
	CreatingUntil time.Time `json:"creatingUntil,omitzero"`
	UpdatingUntil time.Time `json:"updatingUntil,omitzero"`
	Deleting      bool      `json:"deleting,omitempty"`
	DeletingUntil time.Time `json:"deletingUntil,omitzero"`
	// Disassociating is set from the accepted Disassociate of this replica
	// (at DisassociatingSince) until the disassociation job removes the
	// entry: changes are no longer queued to nor from it, and what was
	// queued is delivered first (disassociate.go).
	Disassociating      bool      `json:"disassociating,omitempty"`
	DisassociatingSince time.Time `json:"disassociatingSince,omitzero"`
	// Unprotected is set when the replica's disassociation protection is
	// off: protection is on by default (API Reference, TableDescription:
	// DisassociationProtectionEnabled), so a group stored before it
	// existed, or a new replica, is protected.
	Unprotected bool `json:"disassocUnprotected,omitempty"`
}

// GSIOverride is a replica's OnDemandThroughputOverride of one GSI.
type GSIOverride struct {
	Name    string `json:"name"`
	MaxRead int64  `json:"maxRead,omitempty"`
}

// Status is the replica's ReplicaStatus at now.
func (r *Replica) Status(now time.Time) string {
	switch {
	case r.Deleting:
		return statusDeleting
	case r.Seeding, now.Before(r.CreatingUntil):
		return statusCreating
	case r.Disassociating, now.Before(r.UpdatingUntil):
		return statusUpdating
	}
	return statusActive
}

// Gone reports whether the replica's deletion has completed at now.
func (r *Replica) Gone(now time.Time) bool {
	return r.Deleting && !now.Before(r.DeletingUntil)
}

// Legacy is a legacy (2017.11.29) global table's own record, the same in
// every member's metadata.
type Legacy struct {
	CreatedAt     time.Time `json:"createdAt"`
	CreatingUntil time.Time `json:"creatingUntil,omitzero"`
	UpdatingUntil time.Time `json:"updatingUntil,omitzero"`
}

// Membership is a table's global table membership: the per-table state
// this package owns. The engine embeds it in its table metadata without a
// json tag, so its fields are stored flat, where they always were.
type Membership struct {
	// Group is the global table's replication group, this table
	// included; nil for a table that never had replicas.
	Group []*Replica `json:"group,omitempty"`
	// Legacy is set on the members of a legacy (2017.11.29) global table,
	// whose group is Group.
	Legacy *Legacy `json:"legacyGT,omitempty"`
}

// Replicas returns the members other than self's Region not yet gone at
// now.
func (m *Membership) Replicas(self string, now time.Time) []*Replica {
	var out []*Replica
	for _, r := range m.Group {
		if r.Region != self && !r.Gone(now) {
			out = append(out, r)
		}
	}
	return out
}

// Member returns the group entry for region, or nil.
func (m *Membership) Member(region string) *Replica {
	for _, r := range m.Group {
		if r.Region == region {
			return r
		}
	}
	return nil
}

// GroupStatus is the status the group imposes on its member in Region
// self: CREATING while it is being seeded, UPDATING while it or another
// member is disassociated, or another member is created or deleted, ""
// otherwise.
func (m *Membership) GroupStatus(self string, now time.Time) string {
	if m.Legacy != nil {
		return "" // a legacy group has a status of its own
	}
	busy := ""
	for _, r := range m.Group {
		if r.Region == self {
			if r.Seeding {
				return statusCreating
			}
			if r.Disassociating {
				busy = statusUpdating
			}
			continue
		}
		if r.Gone(now) {
			continue
		}
		if s := r.Status(now); s == statusCreating || s == statusDeleting || r.Disassociating {
			busy = statusUpdating
		}
	}
	return busy
}

// Targets returns the members a local write of the member in Region self
// queues its change for: none while self is being disassociated, and
// never one being deleted or disassociated (replication stops both ways
// when the Disassociate is accepted; what was queued before is still
// delivered).
func (m *Membership) Targets(self string) []*Replica {
	var out []*Replica
	for _, r := range m.Group {
		if r.Region == self {
			if r.Disassociating {
				return nil
			}
			continue
		}
		if !r.Deleting && !r.Disassociating {
			out = append(out, r)
		}
	}
	return out
}

// CloneGroup deep-copies a group.
func CloneGroup(g []*Replica) []*Replica {
	if g == nil {
		return nil
	}
	b, err := json.Marshal(g)
	if err != nil {
		panic(fmt.Sprintf("globaltables: replication group does not marshal: %v", err))
	}
	var c []*Replica
	if err := json.Unmarshal(b, &c); err != nil {
		panic(fmt.Sprintf("globaltables: replication group does not unmarshal: %v", err))
	}
	return c
}

// DescribeReplicas fills d's global-table members for the table name in
// (account, self) with membership m at now: only the other Regions are
// listed (docs/differences.md, "Global tables").
func DescribeReplicas(d *api.TableDescription, account, self, name string, m *Membership, now time.Time) {
	others := m.Replicas(self, now)
	if len(others) == 0 || m.Legacy != nil {
		return // a legacy group is described by DescribeGlobalTable
	}
	d.GlobalTableVersion = globalTableVersion
	own := m.Member(self)
	d.DisassociationProtectionEnabled = ref(own == nil || !own.Unprotected)
	for _, r := range others {
		ns := api.Namespace{Account: account, Region: r.Region}
		rd := api.ReplicaDescription{
			RegionName:     r.Region,
			ReplicaStatus:  r.Status(now),
			ReplicaArn:     ns.TableARN(name),
			KMSMasterKeyId: r.KMSKey,
		}
		if r.MaxRead > 0 {
			rd.OnDemandThroughputOverride = &api.OnDemandThroughputOverride{MaxReadRequestUnits: ref(r.MaxRead)}
		}
		for _, g := range r.GSIs {
			gd := api.ReplicaGlobalSecondaryIndexDesc{IndexName: g.Name}
			if g.MaxRead > 0 {
				gd.OnDemandThroughputOverride = &api.OnDemandThroughputOverride{MaxReadRequestUnits: ref(g.MaxRead)}
			}
			rd.GlobalSecondaryIndexes = append(rd.GlobalSecondaryIndexes, gd)
		}
		// Only a replica given a TableClassOverride reports its class: the
		// Terraform provider reads this summary into table_class_override,
		// which forces a replacement, and its acceptance tests plan clean
		// against DynamoDB for a replica created without one.
		if r.Class != "" {
			rd.ReplicaTableClassSummary = &api.TableClassSummary{TableClass: r.Class, LastUpdateDateTime: api.EpochPtr(r.ClassUpdated)}
		}
		d.Replicas = append(d.Replicas, rd)
	}
}

func ref[T any](v T) *T { return &v }
