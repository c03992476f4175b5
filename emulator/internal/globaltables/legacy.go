package globaltables

// Global tables version 2017.11.29 (legacy): CreateGlobalTable,
// DescribeGlobalTable, UpdateGlobalTable, ListGlobalTables and
// Describe/UpdateGlobalTableSettings (Developer Guide, "Global tables
// version 2017.11.29 (Legacy)").
//
// Today's DynamoDB creates no legacy global table: CreateGlobalTable is a
// ValidationException, the others answer GlobalTableNotFoundException and
// ListGlobalTables an empty list (docs/differences.md, "Global tables
// version 2017.11.29 (legacy)"). That is the default.
// Options.LegacyGlobalTables serves them as DynamoDB did.
//
// A legacy global table links tables the user created, one per Region of
// one account, with the same name. It is built on the replication group of
// version 2019.11.21 (group.go): every member's metadata carries the group
// (Group) and the legacy record (Legacy), all rewritten in one batch, and
// writes replicate through the same outbox and last-writer-wins applier.
// What differs: the members are tables the user made (empty ones: nothing
// to seed), DescribeTable does not list them as Replicas, a removed member
// keeps its table and data, a group of one member is still a global table,
// and every item written locally carries the aws:rep:* attributes
// (StampLegacyRep).

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// LegacyVersion names the legacy version in messages.
const LegacyVersion = "2017.11.29"

const msgLegacyNotSupported = "DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy)."

// The aws:rep:* attributes of a legacy global table's items.
const (
	repUpdateTime   = "aws:rep:updatetime"
	repUpdateRegion = "aws:rep:updateregion"
	repDeleting     = "aws:rep:deleting"
)

const (
	billingProvisioned = "PROVISIONED"
	classStandard      = "STANDARD"
)

// GlobalTableNotFound is the error of a legacy global table that does not
// exist.
func GlobalTableNotFound(name string) *api.Error {
	return api.NewError(api.CodeGlobalTableNotFound, "Global table with name '%s' does not exist.", name)
}

func globalTableARN(account, name string) string {
	return "arn:aws:dynamodb::" + account + ":global-table/" + name
}

// StampLegacyRep returns nw with the aws:rep:* attributes of a write made
// in region at now (a copy: nw may be shared with the caller).
func StampLegacyRep(nw av.Item, region string, now time.Time) av.Item {
	out := make(av.Item, len(nw)+3)
	for k, v := range nw {
		out[k] = v
	}
	us := now.UnixMicro()
	out[repUpdateTime] = av.Value{Type: av.TypeN, S: fmt.Sprintf("%d.%06d", us/1e6, us%1e6)}
	out[repUpdateRegion] = av.Value{Type: av.TypeS, S: region}
	out[repDeleting] = av.Value{Type: av.TypeBOOL, Bool: false}
	return out
}

// CreateGlobalTable links existing empty tables of the same name in the
// ReplicationGroup's Regions into a legacy global table. The request has
// passed the shape checks.
func CreateGlobalTable(ctx context.Context, c Core, ns api.Namespace, in *api.CreateGlobalTableInput) (*api.CreateGlobalTableOutput, error) {
	if !c.LegacyEnabled() {
		return nil, api.Validation(msgLegacyNotSupported)
	}
	name := *in.GlobalTableName
	c.LockCatalog()
	defer c.UnlockCatalog()
	now := c.Now()
	if len(legacyMembers(c, ns.Account, name, now)) > 0 {
		return nil, api.NewError(api.CodeGlobalTableAlreadyExists, "Global table with name '%s' already exists.", name)
	}
	var members []*Table
	seen := map[string]bool{}
	for _, r := range in.ReplicationGroup {
		if r.RegionName == nil {
			return nil, shape.InvalidParam("RegionName must be specified for each replica")
		}
		region := *r.RegionName
		if seen[region] {
			return nil, shape.InvalidParam("Duplicate region %s in the replication group", region)
		}
		seen[region] = true
		t, err := legacyCandidate(c, ns.Account, region, name, now)
		if err != nil {
			return nil, err
		}
		if len(members) > 0 {
			if err := sameLegacyShape(members[0], t); err != nil {
				return nil, err
			}
		}
		members = append(members, t)
	}
	if len(members) == 0 {
		return nil, shape.InvalidParam("ReplicationGroup must name at least one Region")
	}
	if err := requireEmpty(c, members); err != nil {
		return nil, err
	}
	lg := &Legacy{CreatedAt: now}
	if d := c.TransitionDelay(); d > 0 {
		lg.CreatingUntil = now.Add(d)
	}
	var group []*Replica
	for _, t := range members {
		group = append(group, &Replica{Region: t.Region, ID: t.ID})
	}
	for _, t := range members {
		t.Membership = Membership{Group: CloneGroup(group), Legacy: &Legacy{CreatedAt: lg.CreatedAt, CreatingUntil: lg.CreatingUntil}}
	}
	if err := c.SaveMemberships(members); err != nil {
		return nil, err
	}
	return &api.CreateGlobalTableOutput{GlobalTableDescription: describeLegacy(members[0], now)}, nil
}

// DescribeGlobalTable describes a legacy global table. The request has
// passed the shape checks.
func DescribeGlobalTable(ctx context.Context, c Core, ns api.Namespace, in *api.DescribeGlobalTableInput) (*api.DescribeGlobalTableOutput, error) {
	c.RLockCatalog()
	defer c.RUnlockCatalog()
	now := c.Now()
	m := legacyMembers(c, ns.Account, *in.GlobalTableName, now)
	if len(m) == 0 {
		return nil, GlobalTableNotFound(*in.GlobalTableName)
	}
	return &api.DescribeGlobalTableOutput{GlobalTableDescription: describeLegacy(m[0], now)}, nil
}

// ListGlobalTables lists the account's legacy global tables by name, a
// page at a time, optionally only those with a member in RegionName. The
// request has passed the shape checks.
func ListGlobalTables(ctx context.Context, c Core, ns api.Namespace, in *api.ListGlobalTablesInput) (*api.ListGlobalTablesOutput, error) {
	out := &api.ListGlobalTablesOutput{GlobalTables: []api.GlobalTable{}}
	if !c.LegacyEnabled() {
		return out, nil
	}
	c.RLockCatalog()
	now := c.Now()
	groups := map[string]*Table{}
	for _, t := range c.LegacyTables(ns.Account, "", now) {
		if groups[t.Name] == nil {
			groups[t.Name] = t
		}
	}
	c.RUnlockCatalog()
	names := make([]string, 0, len(groups))
	for n, t := range groups {
		if in.RegionName != nil && !slices.Contains(legacyRegions(t, now), *in.RegionName) {
			continue
		}
		if in.ExclusiveStartGlobalTableName != nil && n <= *in.ExclusiveStartGlobalTableName {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	limit := 100
	if in.Limit != nil {
		limit = int(min(*in.Limit, 100))
	}
	if len(names) > limit {
		names = names[:limit]
		out.LastEvaluatedGlobalTableName = names[limit-1]
	}
	for _, n := range names {
		g := api.GlobalTable{GlobalTableName: n, ReplicationGroup: []api.GlobalTableReplica{}}
		for _, r := range legacyRegions(groups[n], now) {
			g.ReplicationGroup = append(g.ReplicationGroup, api.GlobalTableReplica{RegionName: ref(r)})
		}
		out.GlobalTables = append(out.GlobalTables, g)
	}
	return out, nil
}

// --- helpers ---

// legacyMembers returns the live member tables of the account's legacy
// global table name, ordered as its group lists them (nil: none). The
// caller holds the catalog.
func legacyMembers(c Core, account, name string, now time.Time) []*Table {
	var first *Table
	byRegion := map[string]*Table{}
	for _, t := range c.LegacyTables(account, name, now) {
		byRegion[t.Region] = t
		if first == nil || t.Region < first.Region {
			first = t
		}
	}
	if first == nil {
		return nil
	}
	var out []*Table
	for _, r := range first.Membership.Group {
		if t := byRegion[r.Region]; t != nil && t.ID == r.ID && !r.Deleting {
			out = append(out, t)
		}
	}
	return out
}

// legacyRegions lists the Regions of t's legacy group, in group order.
func legacyRegions(t *Table, now time.Time) []string {
	var out []string
	for _, r := range t.Membership.Group {
		if !r.Deleting && !r.Gone(now) {
			out = append(out, r.Region)
		}
	}
	return out
}

// legacyCandidate returns the table name in (account, region) that may
// join a legacy global table: it exists, belongs to no global table and
// streams new and old images.
func legacyCandidate(c Core, account, region, name string, now time.Time) (*Table, error) {
	t := c.Table(account, region, name, now)
	if t == nil || t.Deleting {
		return nil, api.NewError(api.CodeTableNotFound, "Table: %s not found in region %s", name, region)
	}
	if t.Membership.Legacy != nil || len(t.replicas(now)) > 0 {
		return nil, shape.InvalidParam("Table %s in region %s is already part of a global table", name, region)
	}
	if !t.StreamEnabled || t.StreamViewType != "NEW_AND_OLD_IMAGES" {
		return nil, shape.InvalidParam("Table %s in region %s must have DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES", name, region)
	}
	return t, nil
}

// sameLegacyShape reports whether b may replicate with a: the same keys,
// the same index names and keys, and the same write capacity settings.
func sameLegacyShape(a, b *Table) error {
	if a.KeySchema != b.KeySchema {
		return shape.InvalidParam("Table %s in region %s does not have the same key schema as the table in region %s", b.Name, b.Region, a.Region)
	}
	if indexShapes(a.GSIs) != indexShapes(b.GSIs) || indexShapes(a.LSIs) != indexShapes(b.LSIs) {
		return shape.InvalidParam("Table %s in region %s does not have the same secondary indexes as the table in region %s", b.Name, b.Region, a.Region)
	}
	if a.BillingMode != b.BillingMode || a.BillingMode == billingProvisioned && a.Write != b.Write ||
		writeCaps(a) != writeCaps(b) {
		return shape.InvalidParam("Table %s in region %s does not have the same write capacity settings as the table in region %s", b.Name, b.Region, a.Region)
	}
	return nil
}

// indexShapes is a comparable summary of live indexes: names and keys.
func indexShapes(ixs []Index) string {
	var parts []string
	for _, ix := range ixs {
		parts = append(parts, ix.Name+ix.KeySchema)
	}
	sort.Strings(parts)
	return fmt.Sprint(parts)
}

// writeCaps summarises the provisioned write capacity of t's GSIs.
func writeCaps(t *Table) string {
	if t.BillingMode != billingProvisioned {
		return ""
	}
	var parts []string
	for _, ix := range t.GSIs {
		parts = append(parts, fmt.Sprintf("%s=%d", ix.Name, ix.Write))
	}
	sort.Strings(parts)
	return fmt.Sprint(parts)
}

// requireEmpty refuses tables that hold an item.
func requireEmpty(c Core, ts []*Table) error {
	for _, t := range ts {
		has, err := c.HasItems(t)
		if err != nil {
			return err
		}
		if has {
			return shape.InvalidParam("Table %s in region %s is not empty: every replica of a global table must be empty when it is created or a replica is added", t.Name, t.Region)
		}
	}
	return nil
}

// legacyStatus is the global table's status at now.
func legacyStatus(t *Table, now time.Time) string {
	switch lg := t.Membership.Legacy; {
	case now.Before(lg.CreatingUntil):
		return statusCreating
	case now.Before(lg.UpdatingUntil):
		return statusUpdating
	}
	for _, r := range t.Membership.Group {
		if r.Deleting && !r.Gone(now) {
			return statusUpdating
		}
	}
	return statusActive
}

// describeLegacy is the GlobalTableDescription of t's legacy group. Its
// replication group lists RegionName only, as DynamoDB's examples show.
func describeLegacy(t *Table, now time.Time) *api.GlobalTableDescription {
	d := &api.GlobalTableDescription{
		GlobalTableArn:    globalTableARN(t.Account, t.Name),
		CreationDateTime:  api.EpochPtr(t.Membership.Legacy.CreatedAt),
		GlobalTableStatus: legacyStatus(t, now),
		GlobalTableName:   t.Name,
		ReplicationGroup:  []api.ReplicaDescription{},
	}
	for _, r := range legacyRegions(t, now) {
		d.ReplicationGroup = append(d.ReplicationGroup, api.ReplicaDescription{RegionName: r})
	}
	return d
}
