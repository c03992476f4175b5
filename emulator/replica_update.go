package emulator

// UpdateTable's ReplicaUpdates: the shape checks, and the tables' side of
// the group changes emulator/internal/globaltables decides (a new
// replica's table, the overrides applied to a replica's table, the tables
// of members removed, and the GSI and write-capacity changes repeated in
// every member).

import (
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

const (
	msgWriteCapacity = "Table write capacity should either be Pay-Per-Request or AutoScaled."
	msgGroupBusy     = "The resource which you are attempting to change is in use."
)

// validateReplicaShape runs the member constraints of ReplicaUpdates,
// MultiRegionConsistency and GlobalTableWitnessUpdates.
func validateReplicaShape(v *shape.Violations, in *api.UpdateTableInput) {
	if in.ReplicaUpdates != nil && len(in.ReplicaUpdates) == 0 {
		v.Add("'[]'", "replicaUpdates", "Member must have length greater than or equal to 1")
	}
	member := func(p string, a *api.ReplicationGroupMemberAction) {
		if a.RegionName == nil {
			v.Null(p + ".regionName")
		}
		if o := a.ProvisionedThroughputOverride; o != nil {
			v.Min(p+".provisionedThroughputOverride.readCapacityUnits", o.ReadCapacityUnits, 1)
		}
		if a.GlobalSecondaryIndexes != nil && len(a.GlobalSecondaryIndexes) == 0 {
			v.Add("'[]'", p+".globalSecondaryIndexes", "Member must have length greater than or equal to 1")
		}
		for j, g := range a.GlobalSecondaryIndexes {
			gp := fmt.Sprintf("%s.globalSecondaryIndexes.%d.member", p, j+1)
			v.Name(gp+".indexName", g.IndexName, true)
			if o := g.ProvisionedThroughputOverride; o != nil {
				v.Min(gp+".provisionedThroughputOverride.readCapacityUnits", o.ReadCapacityUnits, 1)
			}
		}
		v.Enum(p+".tableClassOverride", a.TableClassOverride, classStandard, classIA)
	}
	for i, r := range in.ReplicaUpdates {
		p := fmt.Sprintf("replicaUpdates.%d.member", i+1)
		if r.Create != nil {
			member(p+".create", r.Create)
		}
		if r.Update != nil {
			member(p+".update", r.Update)
		}
		if r.Delete != nil && r.Delete.RegionName == nil {
			v.Null(p + ".delete.regionName")
		}
		if d := r.Disassociate; d != nil {
			if d.RegionName == nil {
				v.Null(p + ".disassociate.regionName")
			}
			if d.DisassociationMode == nil {
				v.Null(p + ".disassociate.disassociationMode")
			}
			v.Enum(p+".disassociate.disassociationMode", d.DisassociationMode, "WAIT_FOR_REPLICATION")
		}
	}
	v.Enum("multiRegionConsistency", in.MultiRegionConsistency, "EVENTUAL", "STRONG")
	if len(in.GlobalTableWitnessUpdates) > 1 {
		v.Add(fmt.Sprintf("'%d'", len(in.GlobalTableWitnessUpdates)), "globalTableWitnessUpdates", "Member must have length less than or equal to 1")
	}
}

// applyReplicas runs the ReplicaUpdates actions in order on u.t.
func (u *tableUpdate) applyReplicas() error {
	if !u.c.replica {
		return nil
	}
	created := map[string]bool{}
	for _, r := range u.in.ReplicaUpdates {
		var err error
		switch {
		case r.Create != nil:
			if created[*r.Create.RegionName] {
				continue // the service accepts a repeated Create
			}
			created[*r.Create.RegionName] = true
			err = u.createReplica(r.Create)
		case r.Update != nil:
			err = u.updateReplica(r.Update)
		case r.Delete != nil:
			err = u.deleteReplica(*r.Delete.RegionName)
		case r.Disassociate != nil:
			u.disassociate() // globaltables.CheckDisassociation made sure it may
		}
		if err != nil {
			return err
		}
	}
	u.syncGroup()
	return nil
}

// memberTable returns the live table of t's group member r, or nil.
func (u *tableUpdate) memberTable(r *replicaMeta) *tableMeta {
	if m, ok := u.others[r.Region]; ok {
		return m
	}
	m := u.e.liveMember(u.t, r, u.now)
	if m == nil {
		return nil
	}
	m = m.clone()
	if u.others == nil {
		u.others = map[string]*tableMeta{}
	}
	u.others[r.Region] = m
	return m
}

// replicaTable is a replica's table as globaltables.SetOverrides changes
// it; src is the table the request updates.
type replicaTable struct{ rt, src *tableMeta }

func (r replicaTable) SetKMSKey(arn string) {
	if arn == "" {
		r.rt.SSEEnabled, r.rt.SSEKMSKeyArn = r.src.SSEEnabled, ""
		if r.rt.SSEEnabled {
			r.rt.SSEKMSKeyArn = r.rt.ns().KMSKeyARN(nil)
		}
		return
	}
	r.rt.SSEEnabled, r.rt.SSEKMSKeyArn = true, arn
}

func (r replicaTable) SetMaxRead(v int64) { r.rt.OnDemand.Read = v }

func (r replicaTable) SetGSIMaxRead(name string, v int64) {
	for _, ix := range r.rt.GSIs {
		if ix.Name == name {
			ix.OnDemand.Read = v
		}
	}
}

func (r replicaTable) SetClass(class string, at time.Time) {
	r.rt.TableClass, r.rt.TableClassSet, r.rt.TableClassUpdate = class, true, at
}

// setOverrides records a's overrides in r and applies them to the
// replica's table rt.
func (u *tableUpdate) setOverrides(r *replicaMeta, rt *tableMeta, a *api.ReplicationGroupMemberAction) {
	isGSI := func(name string) bool {
		ix, ok := u.t.index(name, u.now)
		return ok && !ix.Local
	}
	globaltables.SetOverrides(r, replicaTable{rt: rt, src: u.t}, a, u.t.Account, isGSI, u.now)
}

func (u *tableUpdate) createReplica(a *api.ReplicationGroupMemberAction) error {
	t, region := u.t, *a.RegionName
	if u.billing != billingPayPerRequest {
		return api.Validation(msgWriteCapacity)
	}
	if err := u.e.bulkRunning(t); err != nil {
		return err
	}
	rns := api.Namespace{Account: t.Account, Region: region}
	if r := t.Member(region); (r != nil && !r.Gone(u.now)) || u.e.lookup(rns, t.Name, u.now) != nil {
		return api.Validation("Failed to create a the new replica of table with name: '%s' because one or more replicas already existed as tables.", t.Name)
	}
	if err := checkTableClass(a.TableClassOverride); err != nil {
		return err
	}
	if err := globaltables.CheckOverrides(a, false); err != nil {
		return err
	}
	if !t.StreamEnabled {
		// Adding a replica turns the stream on, as DynamoDB does (API
		// Reference, UpdateTable: ReplicaUpdates);
		// an existing stream keeps its view type.
		label := u.now.UTC().Format(streamLabelLayout)
		if label <= t.StreamLabel {
			label = nextLabel(t.StreamLabel)
		}
		t.StreamEnabled, t.StreamViewType, t.StreamLabel = true, "NEW_AND_OLD_IMAGES", label
	}
	t.Join(t.Region, globaltables.TableID(t.ID))
	rt, err := newReplicaTable(t, region, u.now, u.e.opts.TransitionDelay)
	if err != nil {
		return internalError(err)
	}
	r := &replicaMeta{Region: region, ID: globaltables.TableID(rt.ID), Seeding: true, SeedFrom: t.Region}
	if d := u.e.opts.TransitionDelay; d > 0 {
		r.CreatingUntil = u.now.Add(d)
	}
	u.setOverrides(r, rt, a)
	t.AddReplica(r)
	if u.others == nil {
		u.others = map[string]*tableMeta{}
	}
	u.others[region] = rt
	u.seeds = append(u.seeds, rt)
	return nil
}

// newReplicaTable builds the table of a new replica of src in region: the
// same keys, indexes, billing and stream view, its own ID, ARN and stream;
// tags, PITR, deletion protection, the resource policies, Contributor
// Insights and Kinesis streaming destinations are per Region and start
// unset.
func newReplicaTable(src *tableMeta, region string, now time.Time, delay time.Duration) (*tableMeta, error) {
	rt := src.clone()
	id, err := keyspace.NewTableID()
	if err != nil {
		return nil, err
	}
	rt.Region, rt.ID, rt.CreatedAt = region, id, now
	rt.Tags, rt.DeletionProtection = nil, false
	// A policy names its resource's ARN and is the replica's own
	// (Developer Guide, "Resource-based policy considerations").
	rt.ResourcePolicy, rt.Policy, rt.StreamPolicies = "", nil, nil
	rt.Kinesis, rt.Insights = nil, nil
	rt.PITREnabled, rt.PITRDays, rt.PITREnabledAt = false, 0, time.Time{}
	rt.CreatingUntil, rt.UpdatingUntil, rt.UpdatingWhat = time.Time{}, time.Time{}, ""
	if delay > 0 {
		rt.CreatingUntil = now.Add(delay)
	}
	rt.StreamLabel = now.UTC().Format(streamLabelLayout)
	kept := rt.GSIs[:0]
	for _, ix := range rt.GSIs {
		if ix.Deleted {
			continue
		}
		// The seeding job fills every index with the items.
		ix.Backfill, ix.Backfilling = false, false
		ix.CreatingUntil, ix.UpdatingUntil = time.Time{}, time.Time{}
		ix.Insights = nil // per Region, like the table's
		kept = append(kept, ix)
	}
	rt.GSIs = kept
	// The replica builds its own vector indexes as the seeding writes the
	// items (Developer Guide, "Vector search with global tables").
	rt.Vectors = backupVectors(rt)
	if rt.SSEEnabled {
		rt.SSEKMSKeyArn = rt.ns().KMSKeyARN(nil)
	}
	return rt, nil
}

func (u *tableUpdate) updateReplica(a *api.ReplicationGroupMemberAction) error {
	t, region := u.t, *a.RegionName
	r := t.Member(region) // globaltables.Prechecks made sure it is a member
	if a.KMSMasterKeyId == nil && a.ProvisionedThroughputOverride == nil && a.OnDemandThroughputOverride == nil &&
		a.GlobalSecondaryIndexes == nil && a.TableClassOverride == nil {
		return api.Validation(globaltables.MsgNoReplicaActions)
	}
	if err := checkTableClass(a.TableClassOverride); err != nil {
		return err
	}
	if err := globaltables.CheckOverrides(a, true); err != nil {
		return err
	}
	rt := u.memberTable(r)
	if rt == nil {
		return internalError(fmt.Errorf("emulator: replica %s of %s has no table", region, t.Name))
	}
	u.setOverrides(r, rt, a)
	if d := u.e.opts.TransitionDelay; d > 0 {
		r.UpdatingUntil = u.now.Add(d)
	}
	return nil
}

func (u *tableUpdate) deleteReplica(region string) error {
	r := u.t.Member(region) // globaltables.Prechecks made sure it is a member
	if rt := u.memberTable(r); rt != nil {
		u.dropped = append(u.dropped, rt)
		delete(u.others, region)
	}
	u.leave(r)
	return nil
}

// leave removes member r from u.t's group: at once, or listed DELETING
// until the transition delay has passed.
func (u *tableUpdate) leave(r *replicaMeta) {
	u.t.Leave(u.t.Region, r, u.now, u.e.opts.TransitionDelay)
}

// syncGroup copies u.t's group into every other member's table.
func (u *tableUpdate) syncGroup() {
	for _, r := range u.t.Group {
		if r.Region == u.t.Region || r.Deleting {
			continue
		}
		if m := u.memberTable(r); m != nil {
			m.Group = globaltables.CloneGroup(u.t.Group)
		}
	}
}

// stageReplicaTables puts the other members' tables and deletes the
// dropped replicas' tables in b.
func (u *tableUpdate) stageReplicaTables(b kv.Batch) error {
	for _, mi := range u.memberDropped {
		p := keyspace.IndexPrefix(mi.t.ID, mi.ix.ID)
		if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	for _, mv := range u.memberVecDropped {
		p := keyspace.IndexPrefix(mv.t.ID, mv.vi.ID)
		if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	for _, m := range u.others {
		if err := putTable(b, m); err != nil {
			return err
		}
	}
	for i, rt := range u.dropped {
		nt, err := u.e.stageDropTable(b, rt, u.now)
		if err != nil {
			return err
		}
		u.dropped[i] = nt
	}
	return nil
}

// cacheReplicaTables swaps the staged tables into the cache once b has
// committed. The caller holds e.mu.
func (u *tableUpdate) cacheReplicaTables() {
	for _, m := range u.others {
		u.e.cacheTable(m)
	}
	for _, rt := range u.dropped {
		if rt.Deleting {
			u.e.cacheTable(rt)
		} else {
			u.e.uncacheTable(rt.ns(), rt.Name)
		}
	}
}

// stageDropTable deletes t's data in b and either its metadata or, with a
// transition delay, stores it DELETING; it returns the metadata to cache
// (Deleting set) or t itself (uncache it).
func (e *Engine) stageDropTable(b kv.Batch, t *tableMeta, now time.Time) (*tableMeta, error) {
	if err := dropTableData(b, t.ID); err != nil {
		return nil, err
	}
	if delay := e.opts.TransitionDelay; delay > 0 {
		nt := t.clone()
		nt.Deleting, nt.DeletingUntil = true, now.Add(delay)
		return nt, putTable(b, nt)
	}
	return t, deleteTableMeta(b, t.ns(), t.Name)
}

// stageLeaveGroup removes t, being deleted by DeleteTable, from the group
// of every other member, in b; it returns their new metadata to cache once
// b commits. The caller holds e.mu.
func (e *Engine) stageLeaveGroup(b kv.Batch, t *tableMeta, now time.Time) ([]*tableMeta, error) {
	if len(t.replicas(now)) == 0 {
		return nil, nil
	}
	var out []*tableMeta
	for _, r := range t.replicas(now) {
		if r.Deleting {
			continue
		}
		m := e.liveMember(t, r, now)
		if m == nil {
			continue
		}
		m = m.clone()
		u := &tableUpdate{e: e, t: m, now: now}
		if self := m.Member(t.Region); self != nil {
			u.leave(self)
		}
		out = append(out, m)
	}
	// Every remaining member gets the same group.
	for _, m := range out {
		if err := putTable(b, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// memberIndex is an index change made in another member of the group.
type memberIndex struct {
	t  *tableMeta
	ix *indexMeta
}

// eachMember calls f with the table of every other member of the group
// not being deleted.
func (u *tableUpdate) eachMember(f func(m *tableMeta)) {
	for _, r := range u.t.replicas(u.now) {
		if r.Deleting {
			continue
		}
		if m := u.memberTable(r); m != nil {
			f(m)
		}
	}
}

// propagateWriteCap gives every other member of the group the table's new
// MaxWriteRequestUnits: write capacity is the group's, read capacity each
// Region's (Developer Guide, "Throughput capacity planning for DynamoDB
// global tables").
func (u *tableUpdate) propagateWriteCap() {
	o := u.in.OnDemandThroughput
	if o == nil || o.MaxWriteRequestUnits == nil {
		return
	}
	u.eachMember(func(m *tableMeta) { m.OnDemand.Write = u.t.OnDemand.Write })
}

// propagateGSIs repeats the request's GSI creations and deletions in every
// other member of the group, as DynamoDB does: each member backfills its
// own copy of a new index.
func (u *tableUpdate) propagateGSIs() {
	if u.c.gsiCreate+u.c.gsiDelete == 0 {
		return
	}
	u.eachMember(func(m *tableMeta) {
		for _, ix := range u.created {
			c := *ix
			c.ID = m.allocIndexID()
			var defs []attrDef
			for _, k := range c.KeySchema {
				defs = append(defs, attrDef{Name: k.Name, Type: k.Type})
			}
			m.setAttrDefs(defs)
			m.GSIs = append(m.GSIs, &c)
			u.memberCreated = append(u.memberCreated, memberIndex{m, &c})
		}
		for _, g := range u.in.GlobalSecondaryIndexUpdates {
			if g.Delete == nil {
				continue
			}
			kept := m.GSIs[:0]
			for _, ix := range m.GSIs {
				if ix.Name != *g.Delete.IndexName || ix.Deleted {
					kept = append(kept, ix)
					continue
				}
				u.memberDropped = append(u.memberDropped, memberIndex{m, ix})
				if d := u.e.opts.TransitionDelay; d > 0 {
					ix.Deleted, ix.DeletingUntil = true, u.now.Add(d)
					kept = append(kept, ix)
				}
			}
			m.GSIs = kept
		}
	})
}
