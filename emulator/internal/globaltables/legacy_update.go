package globaltables

import (
	"context"
	"slices"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// UpdateGlobalTable adds empty tables to a legacy global table or removes
// members from it (a removed member keeps its table and items). The
// request has passed the shape checks.
func UpdateGlobalTable(ctx context.Context, c Core, ns api.Namespace, in *api.UpdateGlobalTableInput) (*api.UpdateGlobalTableOutput, error) {
	name := *in.GlobalTableName
	if !c.LegacyEnabled() {
		return nil, GlobalTableNotFound(name)
	}
	c.LockCatalog()
	defer c.UnlockCatalog()
	now := c.Now()
	members := legacyMembers(c, ns.Account, name, now)
	if len(members) == 0 {
		return nil, GlobalTableNotFound(name)
	}
	for _, u := range in.ReplicaUpdates {
		if (u.Create == nil) == (u.Delete == nil) {
			return nil, shape.InvalidParam("One of Create or Delete must be specified in each replica update")
		}
	}
	first := members[0]
	ed := legacyGroupEdit{c: c, account: ns.Account, name: name, now: now, ref: first,
		group: CloneGroup(first.Membership.Group), byRegion: map[string]*Table{}}
	lg := *first.Membership.Legacy
	for _, m := range members {
		ed.byRegion[m.Region] = m
	}
	for _, u := range in.ReplicaUpdates {
		var err error
		if u.Create != nil {
			err = ed.create(*u.Create.RegionName)
		} else {
			err = ed.delete(*u.Delete.RegionName)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(ed.added) > 0 {
		// "None of the replica tables in the global table can contain any
		// data" [model, CreateGlobalTable].
		var all []*Table
		for _, t := range ed.byRegion {
			all = append(all, t)
		}
		if err := requireEmpty(c, all); err != nil {
			return nil, err
		}
	}
	if d := c.TransitionDelay(); d > 0 && len(in.ReplicaUpdates) > 0 {
		lg.UpdatingUntil = now.Add(d)
	}
	described, err := ed.save(lg)
	if err != nil {
		return nil, err
	}
	if described == nil {
		// The last member left: the global table is gone once this answer
		// is sent; describe it as it was, DELETING.
		d := &api.GlobalTableDescription{GlobalTableArn: globalTableARN(ns.Account, name), CreationDateTime: api.EpochPtr(lg.CreatedAt),
			GlobalTableStatus: statusDeleting, GlobalTableName: name, ReplicationGroup: []api.ReplicaDescription{}}
		return &api.UpdateGlobalTableOutput{GlobalTableDescription: d}, nil
	}
	return &api.UpdateGlobalTableOutput{GlobalTableDescription: describeLegacy(described, now)}, nil
}

// legacyGroupEdit is an UpdateGlobalTable's changes to the replication
// group, made on copies until they are saved.
type legacyGroupEdit struct {
	c        Core
	account  string
	name     string
	now      time.Time
	ref      *Table // a member, for the shape a new one must have
	group    []*Replica
	byRegion map[string]*Table // the members after the updates
	added    []*Table
	detached []*Table // members removed, which keep their tables
}

// isMember reports whether region has a replica not being deleted.
func (ed *legacyGroupEdit) isMember(region string) bool {
	for _, r := range ed.group {
		if r.Region == region && !r.Deleting {
			return true
		}
	}
	return false
}

// create adds the table of the same name in region.
func (ed *legacyGroupEdit) create(region string) error {
	if ed.isMember(region) {
		return api.NewError(api.CodeReplicaAlreadyExists, "Replica already exists in region %s for global table %s.", region, ed.name)
	}
	t, err := legacyCandidate(ed.c, ed.account, region, ed.name, ed.now)
	if err != nil {
		return err
	}
	if err := sameLegacyShape(ed.ref, t); err != nil {
		return err
	}
	kept := ed.group[:0]
	for _, r := range ed.group {
		if r.Region != region { // a member removed with a delay
			kept = append(kept, r)
		}
	}
	ed.group = append(kept, &Replica{Region: region, ID: t.ID})
	ed.added = append(ed.added, t)
	ed.byRegion[region] = t
	return nil
}

// delete removes region's member, at once or after the transition delay.
func (ed *legacyGroupEdit) delete(region string) error {
	if !ed.isMember(region) {
		return api.NewError(api.CodeReplicaNotFound, "Replica does not exist in region %s for global table %s.", region, ed.name)
	}
	for i, r := range ed.group {
		if r.Region != region {
			continue
		}
		if d := ed.c.TransitionDelay(); d > 0 {
			r.Deleting, r.DeletingUntil = true, ed.now.Add(d)
		} else {
			ed.group = slices.Delete(ed.group, i, i+1)
		}
		break
	}
	if t := ed.byRegion[region]; t != nil {
		ed.detached = append(ed.detached, t)
		delete(ed.byRegion, region)
	}
	return nil
}

// save writes the members with the new group and lg, and the detached
// tables without either; described is a member to describe the global
// table by, nil when none is left.
func (ed *legacyGroupEdit) save(lg Legacy) (described *Table, err error) {
	var out []*Table
	for _, t := range ed.detached {
		t.Membership = Membership{}
		out = append(out, t)
	}
	live := 0
	for _, r := range ed.group {
		if !r.Deleting {
			live++
		}
	}
	for _, t := range ed.byRegion {
		if live == 0 {
			t.Membership = Membership{}
		} else {
			l := lg
			t.Membership = Membership{Group: CloneGroup(ed.group), Legacy: &l}
			described = t
		}
		out = append(out, t)
	}
	if err := ed.c.SaveMemberships(out); err != nil {
		return nil, err
	}
	return described, nil
}
