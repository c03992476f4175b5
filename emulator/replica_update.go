package emulator

// UpdateTable's ReplicaUpdates: validation in DynamoDB's order
// (control-plane-facts §1.2) and the group changes it makes. Messages and
// what is accepted follow observations of the service (ack-api-quirks
// DDB-TABLE-203, -223, -227, -307, 2026-10): a Create's read-capacity or
// unknown-index override is accepted and ignored, so is a Create repeated
// in one request; an Update's read-capacity override on an on-demand table
// is refused.

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/extenddb/extenddb/kv"
)

const (
	msgLocalRegionCreateDelete = "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
	msgLocalRegionUpdate       = "Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
	msgWriteCapacity           = "Table write capacity should either be Pay-Per-Request or AutoScaled."
	msgNoReplicaActions        = "There are no actions specified in the Replica Update Action of the request."
	msgMixedReplicaActions     = "Update table operation with more than one type of replica actions not allowed."
	msgGroupBusy               = "The resource which you are attempting to change is in use."
	msgDisableGlobalStream     = "Disabling Stream is not allowed for a Global Table replica."
	msgMRSCCount               = "Unsupported table replica count for global tables with MultiRegionConsistency set to STRONG"
	msgWitnessNeedsStrong      = "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present"
)

// validateReplicaShape runs the member constraints of ReplicaUpdates,
// MultiRegionConsistency and GlobalTableWitnessUpdates.
func validateReplicaShape(v *violations, in *UpdateTableInput) {
	if in.ReplicaUpdates != nil && len(in.ReplicaUpdates) == 0 {
		v.add("'[]'", "replicaUpdates", "Member must have length greater than or equal to 1")
	}
	member := func(p string, a *ReplicationGroupMemberAction) {
		if a.RegionName == nil {
			v.null(p + ".regionName")
		}
		if o := a.ProvisionedThroughputOverride; o != nil {
			v.min(p+".provisionedThroughputOverride.readCapacityUnits", o.ReadCapacityUnits, 1)
		}
		if a.GlobalSecondaryIndexes != nil && len(a.GlobalSecondaryIndexes) == 0 {
			v.add("'[]'", p+".globalSecondaryIndexes", "Member must have length greater than or equal to 1")
		}
		for j, g := range a.GlobalSecondaryIndexes {
			gp := fmt.Sprintf("%s.globalSecondaryIndexes.%d.member", p, j+1)
			v.name(gp+".indexName", g.IndexName, true)
			if o := g.ProvisionedThroughputOverride; o != nil {
				v.min(gp+".provisionedThroughputOverride.readCapacityUnits", o.ReadCapacityUnits, 1)
			}
		}
		v.enum(p+".tableClassOverride", a.TableClassOverride, classStandard, classIA)
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
			v.null(p + ".delete.regionName")
		}
	}
	v.enum("multiRegionConsistency", in.MultiRegionConsistency, "EVENTUAL", "STRONG")
	if len(in.GlobalTableWitnessUpdates) > 1 {
		v.add(fmt.Sprintf("'%d'", len(in.GlobalTableWitnessUpdates)), "globalTableWitnessUpdates", "Member must have length less than or equal to 1")
	}
}

// replicaRequestRules applies the ReplicaUpdates checks that need no
// table: one action per entry, and multi-Region strong consistency, which
// is not emulated (docs/differences.md) and is refused after DynamoDB's own
// checks of its shape.
func replicaRequestRules(in *UpdateTableInput) error {
	creates := 0
	for _, r := range in.ReplicaUpdates {
		n := 0
		for _, set := range []bool{r.Create != nil, r.Update != nil, r.Delete != nil} {
			if set {
				n++
			}
		}
		switch {
		case n == 0:
			return Validation(msgNoReplicaActions)
		case n > 1:
			return Validation(msgMixedReplicaActions)
		}
		if r.Create != nil {
			creates++
		}
	}
	strong := in.MultiRegionConsistency != nil && *in.MultiRegionConsistency == "STRONG"
	if len(in.GlobalTableWitnessUpdates) > 0 && !strong {
		return Validation(msgWitnessNeedsStrong)
	}
	if strong {
		witnesses := 0
		for _, w := range in.GlobalTableWitnessUpdates {
			if w.Create != nil {
				witnesses++
			}
		}
		if creates+witnesses != 2 {
			return Validation(msgMRSCCount)
		}
		return invalidParam("MultiRegionConsistency STRONG (multi-Region strong consistency) is not supported by ExtendDB")
	}
	return nil
}

// supportedRegions is what the "not supported" message lists. The
// service's list (its order included) is only partly known; any Region
// name of the form the server accepts is accepted here.
var supportedRegions = []string{"ap-south-2", "ap-south-1", "eu-south-1", "eu-south-2", "me-central-1", "il-central-1",
	"ca-central-1", "eu-central-1", "eu-central-2", "us-west-1", "us-west-2", "af-south-1", "eu-north-1", "eu-west-3",
	"eu-west-2", "eu-west-1", "ap-northeast-3", "ap-northeast-2", "me-south-1", "ap-northeast-1", "sa-east-1",
	"ap-east-1", "ca-west-1", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "us-east-1",
	"us-east-2"}

var replicaRegionRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// replicaPrechecks runs the ReplicaUpdates and stream checks the service
// makes before it looks at the table's status (ack-api-quirks
// DDB-TABLE-227: they answer ValidationException even while the table is
// UPDATING): Region names, the local Region, members that are not there,
// and disabling a global table's stream.
func replicaPrechecks(t *tableMeta, in *UpdateTableInput, now time.Time) error {
	if s := in.StreamSpecification; s != nil && s.StreamEnabled != nil && !*s.StreamEnabled && len(t.replicas(now)) > 0 && t.StreamEnabled {
		return invalidParam(msgDisableGlobalStream)
	}
	var missing []string
	for _, r := range in.ReplicaUpdates {
		region, update := "", false
		switch {
		case r.Create != nil:
			region = *r.Create.RegionName
		case r.Update != nil:
			region, update = *r.Update.RegionName, true
		case r.Delete != nil:
			region = *r.Delete.RegionName
		}
		if !replicaRegionRE.MatchString(region) {
			return Validation("Region %s is not supported. The latest version of global tables are only supported in the following regions: [%s].",
				region, strings.Join(supportedRegions, ", "))
		}
		if region == t.Region {
			if update {
				return Validation(msgLocalRegionUpdate)
			}
			return Validation(msgLocalRegionCreateDelete)
		}
		if r.Create == nil {
			if m := t.member(region); m == nil || m.gone(now) || m.Deleting {
				missing = append(missing, region)
			}
		}
	}
	if len(missing) > 0 {
		return Validation("Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [%s].",
			strings.Join(missing, ", "))
	}
	return nil
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
	m := u.e.lookup(Namespace{Account: u.t.Account, Region: r.Region}, u.t.Name, u.now)
	if m == nil || m.ID != r.ID || m.Deleting {
		return nil
	}
	m = m.clone()
	if u.others == nil {
		u.others = map[string]*tableMeta{}
	}
	u.others[r.Region] = m
	return m
}

// checkOverrides validates a Create or Update action's overrides against
// t. Global tables here are always on demand (provisioned ones, even
// auto-scaled, are not emulated), so a read-capacity override is refused in an Update and,
// as the service does, accepted and ignored in a Create.
func (u *tableUpdate) checkOverrides(a *ReplicationGroupMemberAction, update bool) error {
	msgPPR := "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
	if update && a.ProvisionedThroughputOverride != nil {
		return invalidParam(msgPPR)
	}
	check := func(o *OnDemandThroughputOverride, what string) error {
		if o != nil && o.MaxReadRequestUnits != nil && (*o.MaxReadRequestUnits == 0 || *o.MaxReadRequestUnits < -1) {
			return invalidParam("Requested MaxReadRequestUnits for OnDemandThroughputOverride for %s is outside of valid range", what)
		}
		return nil
	}
	if err := check(a.OnDemandThroughputOverride, "table"); err != nil {
		return err
	}
	for _, g := range a.GlobalSecondaryIndexes {
		if update && g.ProvisionedThroughputOverride != nil {
			return invalidParam(msgPPR)
		}
		if err := check(g.OnDemandThroughputOverride, "index : "+*g.IndexName); err != nil {
			return err
		}
	}
	return nil
}

// setOverrides records a's overrides in r and applies them to the
// replica's table rt.
func (u *tableUpdate) setOverrides(r *replicaMeta, rt *tableMeta, a *ReplicationGroupMemberAction) {
	if a.KMSMasterKeyId != nil {
		rns := Namespace{Account: u.t.Account, Region: r.Region}
		if *a.KMSMasterKeyId == "" || *a.KMSMasterKeyId == "alias/aws/dynamodb" {
			r.KMSKey = ""
			rt.SSEEnabled, rt.SSEKMSKeyArn = u.t.SSEEnabled, ""
			if rt.SSEEnabled {
				rt.SSEKMSKeyArn = kmsKeyArn(rns, nil)
			}
		} else {
			r.KMSKey = kmsKeyArn(rns, a.KMSMasterKeyId)
			rt.SSEEnabled, rt.SSEKMSKeyArn = true, r.KMSKey
		}
	}
	if o := a.OnDemandThroughputOverride; o != nil && o.MaxReadRequestUnits != nil {
		r.MaxRead = max(*o.MaxReadRequestUnits, 0)
		rt.OnDemand.Read = r.MaxRead
	}
	for _, g := range a.GlobalSecondaryIndexes {
		o := g.OnDemandThroughputOverride
		if ix, ok := u.t.index(*g.IndexName, u.now); !ok || ix.Local || o == nil || o.MaxReadRequestUnits == nil {
			continue // the service accepts an unknown index and ignores it
		}
		v := max(*o.MaxReadRequestUnits, 0)
		found := false
		for i := range r.GSIs {
			if r.GSIs[i].Name == *g.IndexName {
				r.GSIs[i].MaxRead, found = v, true
			}
		}
		if !found {
			r.GSIs = append(r.GSIs, replicaGSIOverride{Name: *g.IndexName, MaxRead: v})
		}
		for _, ix := range rt.GSIs {
			if ix.Name == *g.IndexName {
				ix.OnDemand.Read = v
			}
		}
	}
	if c := a.TableClassOverride; c != nil && *c != r.Class {
		r.Class, r.ClassUpdated = *c, u.now
		rt.TableClass, rt.TableClassSet, rt.TableClassUpdate = *c, true, u.now
	}
}

func (u *tableUpdate) createReplica(a *ReplicationGroupMemberAction) error {
	t, region := u.t, *a.RegionName
	if u.billing != billingPayPerRequest {
		return Validation(msgWriteCapacity)
	}
	rns := Namespace{Account: t.Account, Region: region}
	if r := t.member(region); (r != nil && !r.gone(u.now)) || u.e.lookup(rns, t.Name, u.now) != nil {
		return Validation("Failed to create a the new replica of table with name: '%s' because one or more replicas already existed as tables.", t.Name)
	}
	if err := checkTableClass(a.TableClassOverride); err != nil {
		return err
	}
	if err := u.checkOverrides(a, false); err != nil {
		return err
	}
	if !t.StreamEnabled {
		// Adding a replica turns the stream on (control-plane-facts §1.2);
		// an existing stream keeps its view type.
		label := u.now.UTC().Format(streamLabelLayout)
		if label <= t.StreamLabel {
			label = nextLabel(t.StreamLabel)
		}
		t.StreamEnabled, t.StreamViewType, t.StreamLabel = true, "NEW_AND_OLD_IMAGES", label
	}
	if t.Group == nil || t.member(t.Region) == nil {
		t.Group = append(t.Group, &replicaMeta{Region: t.Region, ID: t.ID})
	}
	rt, err := newReplicaTable(t, region, u.now, u.e.opts.TransitionDelay)
	if err != nil {
		return internalError(err)
	}
	r := &replicaMeta{Region: region, ID: rt.ID, Seeding: true, SeedFrom: t.Region}
	if d := u.e.opts.TransitionDelay; d > 0 {
		r.CreatingUntil = u.now.Add(d)
	}
	u.setOverrides(r, rt, a)
	kept := t.Group[:0]
	for _, m := range t.Group {
		if m.Region != region { // a gone entry of an earlier replica
			kept = append(kept, m)
		}
	}
	t.Group = append(kept, r)
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
	id, err := newTableID()
	if err != nil {
		return nil, err
	}
	rt.Region, rt.ID, rt.CreatedAt = region, id, now
	rt.Tags, rt.DeletionProtection = nil, false
	// A policy names its resource's ARN and is the replica's own (§1.4).
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
	if rt.SSEEnabled {
		rt.SSEKMSKeyArn = kmsKeyArn(rt.ns(), nil)
	}
	return rt, nil
}

func (u *tableUpdate) updateReplica(a *ReplicationGroupMemberAction) error {
	t, region := u.t, *a.RegionName
	r := t.member(region) // replicaPrechecks made sure it is a member
	if a.KMSMasterKeyId == nil && a.ProvisionedThroughputOverride == nil && a.OnDemandThroughputOverride == nil &&
		a.GlobalSecondaryIndexes == nil && a.TableClassOverride == nil {
		return Validation(msgNoReplicaActions)
	}
	if err := checkTableClass(a.TableClassOverride); err != nil {
		return err
	}
	if err := u.checkOverrides(a, true); err != nil {
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
	r := u.t.member(region) // replicaPrechecks made sure it is a member
	if rt := u.memberTable(r); rt != nil {
		u.dropped = append(u.dropped, rt)
		delete(u.others, region)
	}
	u.leave(r)
	return nil
}

// leave removes member r from u.t's group: at once, or listed DELETING
// until the transition delay has passed. A group left with one member is
// dropped: the table is a plain table again (its stream stays on).
func (u *tableUpdate) leave(r *replicaMeta) {
	t := u.t
	if d := u.e.opts.TransitionDelay; d > 0 {
		r.Deleting, r.DeletingUntil, r.Seeding = true, u.now.Add(d), false
		return
	}
	kept := t.Group[:0]
	for _, m := range t.Group {
		if m != r {
			kept = append(kept, m)
		}
	}
	t.Group = kept
	if len(t.replicas(u.now)) == 0 && t.Legacy == nil {
		t.Group = nil // a legacy group of one is still a global table
	}
}

// syncGroup copies u.t's group into every other member's table.
func (u *tableUpdate) syncGroup() {
	for _, r := range u.t.Group {
		if r.Region == u.t.Region || r.Deleting {
			continue
		}
		if m := u.memberTable(r); m != nil {
			m.Group = cloneGroup(u.t.Group)
		}
	}
}

// stageReplicaTables puts the other members' tables and deletes the
// dropped replicas' tables in b.
func (u *tableUpdate) stageReplicaTables(b kv.Batch) error {
	for _, mi := range u.memberDropped {
		p := indexPrefix(mi.t.ID, mi.ix.ID)
		if err := b.DeleteRange(p, prefixEnd(p)); err != nil {
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
		m := e.lookup(Namespace{Account: t.Account, Region: r.Region}, t.Name, now)
		if m == nil || m.ID != r.ID || m.Deleting {
			continue
		}
		m = m.clone()
		u := &tableUpdate{e: e, t: m, now: now}
		if self := m.member(t.Region); self != nil {
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

// propagateWriteCap gives every other member of the group the table's new
// MaxWriteRequestUnits: write capacity is the group's, read capacity each
// Region's (control-plane-facts §1.4).
func (u *tableUpdate) propagateWriteCap() {
	o := u.in.OnDemandThroughput
	if o == nil || o.MaxWriteRequestUnits == nil {
		return
	}
	for _, r := range u.t.replicas(u.now) {
		if r.Deleting {
			continue
		}
		if m := u.memberTable(r); m != nil {
			m.OnDemand.Write = u.t.OnDemand.Write
		}
	}
}

// propagateGSIs repeats the request's GSI creations and deletions in every
// other member of the group, as DynamoDB does: each member backfills its
// own copy of a new index.
func (u *tableUpdate) propagateGSIs() {
	if u.c.gsiCreate+u.c.gsiDelete == 0 {
		return
	}
	for _, r := range u.t.replicas(u.now) {
		if r.Deleting {
			continue
		}
		m := u.memberTable(r)
		if m == nil {
			continue
		}
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
	}
}
