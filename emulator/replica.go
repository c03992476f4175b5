package emulator

// Global tables, version 2019.11.21 (MREC): the replication group and
// UpdateTable's ReplicaUpdates.
//
// A global table is one real table per Region of the same account, each
// with its own ID, ARN and stream. Every member's metadata carries the whole
// group (Group, this table included), so a member describes the others from
// its own point of view and its writers know where to send their changes
// (replicate.go) without another lookup. A change of the group rewrites
// every member's metadata in one batch: they share the store.
//
// A new replica is seeded by a persisted job (replica_seed.go) while its
// entry is Seeding; the entry, the source table and the replica are
// CREATING / UPDATING / CREATING until the job ends and any
// --transition-delay has passed.

import (
	"encoding/json"
	"fmt"
	"time"
)

// globalTableVersion is the only version this emulator builds.
const globalTableVersion = "2019.11.21"

// replicaMeta is one member of a replication group.
type replicaMeta struct {
	Region string  `json:"region"`
	ID     tableID `json:"id"`
	// KMSKey is the replica's customer managed key ARN ("" for the AWS
	// managed key), as KMSMasterKeyId reports it.
	KMSKey string `json:"kms,omitempty"`
	// MaxRead is the OnDemandThroughputOverride (0: none).
	MaxRead int64                `json:"maxRead,omitempty"`
	GSIs    []replicaGSIOverride `json:"gsis,omitempty"`
	// Class is the TableClassOverride ("": the table's class).
	Class        string    `json:"class,omitempty"`
	ClassUpdated time.Time `json:"classUpdated,omitzero"`
	// Seeding is set until the seeding job has copied the last item from
	// SeedFrom (replica_seed.go).
	Seeding       bool      `json:"seeding,omitempty"`
	SeedFrom      string    `json:"seedFrom,omitempty"`
	CreatingUntil time.Time `json:"creatingUntil,omitzero"`
	UpdatingUntil time.Time `json:"updatingUntil,omitzero"`
	Deleting      bool      `json:"deleting,omitempty"`
	DeletingUntil time.Time `json:"deletingUntil,omitzero"`
}

type replicaGSIOverride struct {
	Name    string `json:"name"`
	MaxRead int64  `json:"maxRead,omitempty"`
}

func (r *replicaMeta) status(now time.Time) string {
	switch {
	case r.Deleting:
		return statusDeleting
	case r.Seeding, now.Before(r.CreatingUntil):
		return statusCreating
	case now.Before(r.UpdatingUntil):
		return statusUpdating
	}
	return statusActive
}

func (r *replicaMeta) gone(now time.Time) bool {
	return r.Deleting && !now.Before(r.DeletingUntil)
}

// replicas returns the other members of t's group not yet gone at now.
func (t *tableMeta) replicas(now time.Time) []*replicaMeta {
	var out []*replicaMeta
	for _, r := range t.Group {
		if r.Region != t.Region && !r.gone(now) {
			out = append(out, r)
		}
	}
	return out
}

// member returns t's group entry for region, or nil.
func (t *tableMeta) member(region string) *replicaMeta {
	for _, r := range t.Group {
		if r.Region == region {
			return r
		}
	}
	return nil
}

// groupStatus is the status the group imposes on t: CREATING while t is
// being seeded, UPDATING while another member is created or deleted, ""
// otherwise.
func (t *tableMeta) groupStatus(now time.Time) string {
	if t.Legacy != nil {
		return "" // a legacy group has a status of its own
	}
	busy := ""
	for _, r := range t.Group {
		if r.Region == t.Region {
			if r.Seeding {
				return statusCreating
			}
			continue
		}
		if r.gone(now) {
			continue
		}
		if s := r.status(now); s == statusCreating || s == statusDeleting {
			busy = statusUpdating
		}
	}
	return busy
}

// cloneGroup deep-copies a group.
func cloneGroup(g []*replicaMeta) []*replicaMeta {
	if g == nil {
		return nil
	}
	b, err := json.Marshal(g)
	if err != nil {
		panic(fmt.Sprintf("emulator: replication group does not marshal: %v", err))
	}
	var c []*replicaMeta
	if err := json.Unmarshal(b, &c); err != nil {
		panic(fmt.Sprintf("emulator: replication group does not unmarshal: %v", err))
	}
	return c
}

// describeReplicas fills d's global-table members for t at now: only the
// other Regions are listed (control-plane-facts §1.3).
func describeReplicas(d *TableDescription, t *tableMeta, now time.Time) {
	others := t.replicas(now)
	if len(others) == 0 || t.Legacy != nil {
		return // a legacy group is described by DescribeGlobalTable
	}
	d.GlobalTableVersion = globalTableVersion
	for _, r := range others {
		ns := Namespace{Account: t.Account, Region: r.Region}
		rd := ReplicaDescription{
			RegionName:     r.Region,
			ReplicaStatus:  r.status(now),
			ReplicaArn:     ns.TableARN(t.Name),
			KMSMasterKeyId: r.KMSKey,
		}
		if r.MaxRead > 0 {
			rd.OnDemandThroughputOverride = &OnDemandThroughputOverride{MaxReadRequestUnits: refOf(r.MaxRead)}
		}
		for _, g := range r.GSIs {
			gd := ReplicaGlobalSecondaryIndexDesc{IndexName: g.Name}
			if g.MaxRead > 0 {
				gd.OnDemandThroughputOverride = &OnDemandThroughputOverride{MaxReadRequestUnits: refOf(g.MaxRead)}
			}
			rd.GlobalSecondaryIndexes = append(rd.GlobalSecondaryIndexes, gd)
		}
		// Only a replica given a TableClassOverride reports its class: the
		// Terraform provider reads this summary into table_class_override,
		// which forces a replacement, and its acceptance tests plan clean
		// against DynamoDB for a replica created without one.
		if r.Class != "" {
			rd.ReplicaTableClassSummary = &TableClassSummary{TableClass: r.Class, LastUpdateDateTime: epochPtr(r.ClassUpdated)}
		}
		d.Replicas = append(d.Replicas, rd)
	}
}

// saveGrouped persists nt and, when it has replicas, applies change to
// every other live member too, in one batch: the settings a group keeps in
// step (TTL) change everywhere at once. The caller holds e.mu for writing.
func (e *Engine) saveGrouped(nt *tableMeta, change func(*tableMeta)) error {
	now := e.now()
	all := []*tableMeta{nt}
	var others []*replicaMeta
	if nt.Legacy == nil {
		// A legacy (2017.11.29) member's settings are its own: only items
		// replicate (globaltable_legacy.go).
		others = nt.replicas(now)
	}
	for _, r := range others {
		if r.Deleting {
			continue
		}
		m := e.lookup(Namespace{Account: nt.Account, Region: r.Region}, nt.Name, now)
		if m == nil || m.ID != r.ID || m.Deleting {
			continue
		}
		m = m.clone()
		change(m)
		all = append(all, m)
	}
	b := e.opts.Store.NewBatch()
	for _, m := range all {
		if err := putTable(b, m); err != nil {
			_ = b.Close()
			return err
		}
	}
	if err := e.commit(b); err != nil {
		return err
	}
	for _, m := range all {
		e.cacheTable(m)
	}
	return nil
}
