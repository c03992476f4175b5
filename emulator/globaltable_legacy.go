package emulator

// Global tables version 2017.11.29 (legacy): CreateGlobalTable,
// DescribeGlobalTable, UpdateGlobalTable, ListGlobalTables and
// Describe/UpdateGlobalTableSettings (control-plane-facts §2).
//
// Today's DynamoDB creates no legacy global table: CreateGlobalTable is a
// ValidationException, the others answer GlobalTableNotFoundException and
// ListGlobalTables an empty list (§2.3). That is the default.
// Options.LegacyGlobalTables serves them as DynamoDB did.
//
// A legacy global table links tables the user created, one per Region of
// one account, with the same name. It is built on the replication group of
// version 2019.11.21 (replica.go): every member's metadata carries the
// group (Group) and the legacy record (Legacy), all rewritten in one batch,
// and writes replicate through the same outbox and last-writer-wins
// applier (replicate.go). What differs: the members are tables the user
// made (empty ones: nothing to seed), DescribeTable does not list them as
// Replicas, a removed member keeps its table and data, a group of one
// member is still a global table, and every item written locally carries
// the aws:rep:* attributes (stampLegacyRep).

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
)

// legacyGlobalTableVersion names the version in messages.
const legacyGlobalTableVersion = "2017.11.29"

const msgLegacyNotSupported = "DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy)."

// The aws:rep:* attributes of a legacy global table's items.
const (
	repUpdateTime   = "aws:rep:updatetime"
	repUpdateRegion = "aws:rep:updateregion"
	repDeleting     = "aws:rep:deleting"
)

// legacyGroup is a legacy global table's own record, the same in every
// member's metadata.
type legacyGroup struct {
	CreatedAt     time.Time `json:"createdAt"`
	CreatingUntil time.Time `json:"creatingUntil,omitzero"`
	UpdatingUntil time.Time `json:"updatingUntil,omitzero"`
}

func globalTableNotFound(name string) *Error {
	return NewError(CodeGlobalTableNotFound, "Global table with name '%s' does not exist.", name)
}

func globalTableARN(account, name string) string {
	return "arn:aws:dynamodb::" + account + ":global-table/" + name
}

// stampLegacyRep returns nw with the aws:rep:* attributes of a write made
// in region at now (a copy: nw may be shared with the caller).
func stampLegacyRep(nw av.Item, region string, now time.Time) av.Item {
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

// --- validation, in the model's order of members ---

func validateGlobalTableName(v *violations, name *string) {
	v.name("globalTableName", name, true)
}

func validateCreateGlobalTable(in *CreateGlobalTableInput) error {
	var v violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if in.ReplicationGroup == nil {
		v.null("replicationGroup")
	}
	return v.err()
}

func validateUpdateGlobalTable(in *UpdateGlobalTableInput) error {
	var v violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if in.ReplicaUpdates == nil {
		v.null("replicaUpdates")
	}
	for i, u := range in.ReplicaUpdates {
		p := fmt.Sprintf("replicaUpdates.%d.member", i+1)
		if u.Create != nil && u.Create.RegionName == nil {
			v.null(p + ".create.regionName")
		}
		if u.Delete != nil && u.Delete.RegionName == nil {
			v.null(p + ".delete.regionName")
		}
	}
	return v.err()
}

func validateListGlobalTables(in *ListGlobalTablesInput) error {
	var v violations
	v.name("exclusiveStartGlobalTableName", in.ExclusiveStartGlobalTableName, false)
	v.min("limit", in.Limit, 1)
	return v.err()
}

func validateAutoScalingUpdate(v *violations, p string, a *AutoScalingSettingsUpdate) {
	if a == nil {
		return
	}
	v.min(p+".minimumUnits", a.MinimumUnits, 1)
	v.min(p+".maximumUnits", a.MaximumUnits, 1)
	if a.AutoScalingRoleArn != nil {
		v.length(p+".autoScalingRoleArn", *a.AutoScalingRoleArn, 1, 1600)
	}
	if s := a.ScalingPolicyUpdate; s != nil {
		if s.PolicyName != nil {
			v.length(p+".scalingPolicyUpdate.policyName", *s.PolicyName, 1, 256)
		}
		if c := s.TargetTrackingScalingPolicyConfiguration; c == nil {
			v.null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration")
		} else if c.TargetValue == nil {
			v.null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration.targetValue")
		}
	}
}

func validateUpdateGlobalTableSettings(in *UpdateGlobalTableSettingsInput) error {
	var v violations
	validateGlobalTableName(&v, in.GlobalTableName)
	v.enum("globalTableBillingMode", in.GlobalTableBillingMode, billingProvisioned, billingPayPerRequest)
	v.min("globalTableProvisionedWriteCapacityUnits", in.GlobalTableProvisionedWriteCapacityUnits, 1)
	validateAutoScalingUpdate(&v, "globalTableProvisionedWriteCapacityAutoScalingSettingsUpdate", in.GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate)
	if g := in.GlobalTableGlobalSecondaryIndexSettingsUpdate; g != nil && (len(g) < 1 || len(g) > 20) {
		c := "Member must have length greater than or equal to 1"
		if len(g) > 20 {
			c = "Member must have length less than or equal to 20"
		}
		v.addUnquoted("globalTableGlobalSecondaryIndexSettingsUpdate", c)
	}
	for i, g := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		p := fmt.Sprintf("globalTableGlobalSecondaryIndexSettingsUpdate.%d.member", i+1)
		v.name(p+".indexName", g.IndexName, true)
		v.min(p+".provisionedWriteCapacityUnits", g.ProvisionedWriteCapacityUnits, 1)
		validateAutoScalingUpdate(&v, p+".provisionedWriteCapacityAutoScalingSettingsUpdate", g.ProvisionedWriteCapacityAutoScalingSettingsUpdate)
	}
	if r := in.ReplicaSettingsUpdate; r != nil && (len(r) < 1 || len(r) > 50) {
		c := "Member must have length greater than or equal to 1"
		if len(r) > 50 {
			c = "Member must have length less than or equal to 50"
		}
		v.addUnquoted("replicaSettingsUpdate", c)
	}
	for i, r := range in.ReplicaSettingsUpdate {
		p := fmt.Sprintf("replicaSettingsUpdate.%d.member", i+1)
		if r.RegionName == nil {
			v.null(p + ".regionName")
		}
		v.min(p+".replicaProvisionedReadCapacityUnits", r.ReplicaProvisionedReadCapacityUnits, 1)
		validateAutoScalingUpdate(&v, p+".replicaProvisionedReadCapacityAutoScalingSettingsUpdate", r.ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate)
		if g := r.ReplicaGlobalSecondaryIndexSettingsUpdate; g != nil && (len(g) < 1 || len(g) > 20) {
			c := "Member must have length greater than or equal to 1"
			if len(g) > 20 {
				c = "Member must have length less than or equal to 20"
			}
			v.addUnquoted(p+".replicaGlobalSecondaryIndexSettingsUpdate", c)
		}
		for j, g := range r.ReplicaGlobalSecondaryIndexSettingsUpdate {
			gp := fmt.Sprintf("%s.replicaGlobalSecondaryIndexSettingsUpdate.%d.member", p, j+1)
			v.name(gp+".indexName", g.IndexName, true)
			v.min(gp+".provisionedReadCapacityUnits", g.ProvisionedReadCapacityUnits, 1)
			validateAutoScalingUpdate(&v, gp+".provisionedReadCapacityAutoScalingSettingsUpdate", g.ProvisionedReadCapacityAutoScalingSettingsUpdate)
		}
		v.enum(p+".replicaTableClass", r.ReplicaTableClass, classStandard, classIA)
	}
	return v.err()
}

// --- the operations ---

// CreateGlobalTable links existing empty tables of the same name in the
// ReplicationGroup's Regions into a legacy global table.
func (e *Engine) CreateGlobalTable(ctx context.Context, ns Namespace, in *CreateGlobalTableInput) (*CreateGlobalTableOutput, error) {
	if err := validateCreateGlobalTable(in); err != nil {
		return nil, err
	}
	if !e.opts.LegacyGlobalTables {
		return nil, Validation(msgLegacyNotSupported)
	}
	name := *in.GlobalTableName
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	if len(e.legacyMembers(ns.Account, name, now)) > 0 {
		return nil, NewError(CodeGlobalTableAlreadyExists, "Global table with name '%s' already exists.", name)
	}
	var members []*tableMeta
	seen := map[string]bool{}
	for _, r := range in.ReplicationGroup {
		if r.RegionName == nil {
			return nil, invalidParam("RegionName must be specified for each replica")
		}
		region := *r.RegionName
		if seen[region] {
			return nil, invalidParam("Duplicate region %s in the replication group", region)
		}
		seen[region] = true
		t, err := e.legacyCandidate(ns.Account, region, name, now)
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
		return nil, invalidParam("ReplicationGroup must name at least one Region")
	}
	if err := e.requireEmpty(members); err != nil {
		return nil, err
	}
	lg := &legacyGroup{CreatedAt: now}
	if d := e.opts.TransitionDelay; d > 0 {
		lg.CreatingUntil = now.Add(d)
	}
	var group []*replicaMeta
	for _, t := range members {
		group = append(group, &replicaMeta{Region: t.Region, ID: t.ID})
	}
	out := make([]*tableMeta, len(members))
	for i, t := range members {
		nt := t.clone()
		nt.Group, nt.Legacy = cloneGroup(group), &legacyGroup{CreatedAt: lg.CreatedAt, CreatingUntil: lg.CreatingUntil}
		out[i] = nt
	}
	if err := e.saveTables(out); err != nil {
		return nil, err
	}
	return &CreateGlobalTableOutput{GlobalTableDescription: describeLegacy(out[0], now)}, nil
}

// DescribeGlobalTable describes a legacy global table.
func (e *Engine) DescribeGlobalTable(ctx context.Context, ns Namespace, in *DescribeGlobalTableInput) (*DescribeGlobalTableOutput, error) {
	var v violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if err := v.err(); err != nil {
		return nil, err
	}
	e.rlockCatalog()
	defer e.mu.RUnlock()
	now := e.now()
	m := e.legacyMembers(ns.Account, *in.GlobalTableName, now)
	if len(m) == 0 {
		return nil, globalTableNotFound(*in.GlobalTableName)
	}
	return &DescribeGlobalTableOutput{GlobalTableDescription: describeLegacy(m[0], now)}, nil
}

// UpdateGlobalTable adds empty tables to a legacy global table or removes
// members from it (a removed member keeps its table and items).
func (e *Engine) UpdateGlobalTable(ctx context.Context, ns Namespace, in *UpdateGlobalTableInput) (*UpdateGlobalTableOutput, error) {
	if err := validateUpdateGlobalTable(in); err != nil {
		return nil, err
	}
	name := *in.GlobalTableName
	if !e.opts.LegacyGlobalTables {
		return nil, globalTableNotFound(name)
	}
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	members := e.legacyMembers(ns.Account, name, now)
	if len(members) == 0 {
		return nil, globalTableNotFound(name)
	}
	for _, u := range in.ReplicaUpdates {
		if (u.Create == nil) == (u.Delete == nil) {
			return nil, invalidParam("One of Create or Delete must be specified in each replica update")
		}
	}
	ref := members[0]
	group := cloneGroup(ref.Group)
	lg := *ref.Legacy
	byRegion := map[string]*tableMeta{}
	for _, m := range members {
		byRegion[m.Region] = m
	}
	isMember := func(region string) bool {
		for _, r := range group {
			if r.Region == region && !r.Deleting {
				return true
			}
		}
		return false
	}
	var added, detached []*tableMeta
	for _, u := range in.ReplicaUpdates {
		if u.Create != nil {
			region := *u.Create.RegionName
			if isMember(region) {
				return nil, NewError(CodeReplicaAlreadyExists, "Replica already exists in region %s for global table %s.", region, name)
			}
			t, err := e.legacyCandidate(ns.Account, region, name, now)
			if err != nil {
				return nil, err
			}
			if err := sameLegacyShape(ref, t); err != nil {
				return nil, err
			}
			kept := group[:0]
			for _, r := range group {
				if r.Region != region { // a member removed with a delay
					kept = append(kept, r)
				}
			}
			group = append(kept, &replicaMeta{Region: region, ID: t.ID})
			added = append(added, t)
			byRegion[region] = t
			continue
		}
		region := *u.Delete.RegionName
		if !isMember(region) {
			return nil, NewError(CodeReplicaNotFound, "Replica does not exist in region %s for global table %s.", region, name)
		}
		for i, r := range group {
			if r.Region != region {
				continue
			}
			if d := e.opts.TransitionDelay; d > 0 {
				r.Deleting, r.DeletingUntil = true, now.Add(d)
			} else {
				group = slices.Delete(group, i, i+1)
			}
			break
		}
		if t := byRegion[region]; t != nil {
			detached = append(detached, t)
			delete(byRegion, region)
		}
	}
	if len(added) > 0 {
		// "None of the replica tables in the global table can contain any
		// data" [model, CreateGlobalTable].
		var all []*tableMeta
		for _, t := range byRegion {
			all = append(all, t)
		}
		if err := e.requireEmpty(all); err != nil {
			return nil, err
		}
	}
	if d := e.opts.TransitionDelay; d > 0 && len(in.ReplicaUpdates) > 0 {
		lg.UpdatingUntil = now.Add(d)
	}
	var out []*tableMeta
	for _, t := range detached {
		nt := t.clone()
		nt.Group, nt.Legacy = nil, nil
		out = append(out, nt)
	}
	live := 0
	for _, r := range group {
		if !r.Deleting {
			live++
		}
	}
	var described *tableMeta
	for _, t := range byRegion {
		nt := t.clone()
		if live == 0 {
			nt.Group, nt.Legacy = nil, nil
		} else {
			l := lg
			nt.Group, nt.Legacy = cloneGroup(group), &l
			described = nt
		}
		out = append(out, nt)
	}
	if err := e.saveTables(out); err != nil {
		return nil, err
	}
	if described == nil {
		// The last member left: the global table is gone once this answer
		// is sent; describe it as it was, DELETING.
		d := &GlobalTableDescription{GlobalTableArn: globalTableARN(ns.Account, name), CreationDateTime: epochPtr(lg.CreatedAt),
			GlobalTableStatus: statusDeleting, GlobalTableName: name, ReplicationGroup: []ReplicaDescription{}}
		return &UpdateGlobalTableOutput{GlobalTableDescription: d}, nil
	}
	return &UpdateGlobalTableOutput{GlobalTableDescription: describeLegacy(described, now)}, nil
}

// ListGlobalTables lists the account's legacy global tables by name, a
// page at a time, optionally only those with a member in RegionName.
func (e *Engine) ListGlobalTables(ctx context.Context, ns Namespace, in *ListGlobalTablesInput) (*ListGlobalTablesOutput, error) {
	if in == nil {
		in = &ListGlobalTablesInput{}
	}
	if err := validateListGlobalTables(in); err != nil {
		return nil, err
	}
	out := &ListGlobalTablesOutput{GlobalTables: []GlobalTable{}}
	if !e.opts.LegacyGlobalTables {
		return out, nil
	}
	e.rlockCatalog()
	now := e.now()
	groups := map[string]*tableMeta{}
	for tns, m := range e.tables {
		if tns.Account != ns.Account {
			continue
		}
		for name, t := range m {
			if t.Legacy != nil && !t.Deleting && !t.gone(now) && groups[name] == nil {
				groups[name] = t
			}
		}
	}
	e.mu.RUnlock()
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
		g := GlobalTable{GlobalTableName: n, ReplicationGroup: []GlobalTableReplica{}}
		for _, r := range legacyRegions(groups[n], now) {
			g.ReplicationGroup = append(g.ReplicationGroup, GlobalTableReplica{RegionName: refOf(r)})
		}
		out.GlobalTables = append(out.GlobalTables, g)
	}
	return out, nil
}

// DescribeGlobalTableSettings reports each member's capacity settings.
func (e *Engine) DescribeGlobalTableSettings(ctx context.Context, ns Namespace, in *DescribeGlobalTableSettingsInput) (*DescribeGlobalTableSettingsOutput, error) {
	var v violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if err := v.err(); err != nil {
		return nil, err
	}
	name := *in.GlobalTableName
	if !e.opts.LegacyGlobalTables {
		return nil, globalTableNotFound(name)
	}
	e.rlockCatalog()
	defer e.mu.RUnlock()
	now := e.now()
	members := e.legacyMembers(ns.Account, name, now)
	if len(members) == 0 {
		return nil, globalTableNotFound(name)
	}
	return describeLegacySettings(name, members, now), nil
}

// --- helpers ---

// legacyMembers returns the live member tables of the account's legacy
// global table name, ordered as its group lists them (nil: none). The
// caller holds e.mu.
func (e *Engine) legacyMembers(account, name string, now time.Time) []*tableMeta {
	var ref *tableMeta
	byRegion := map[string]*tableMeta{}
	for ns, m := range e.tables {
		if ns.Account != account {
			continue
		}
		t := m[name]
		if t == nil || t.Legacy == nil || t.Deleting || t.gone(now) {
			continue
		}
		byRegion[t.Region] = t
		if ref == nil || t.Region < ref.Region {
			ref = t
		}
	}
	if ref == nil {
		return nil
	}
	var out []*tableMeta
	for _, r := range ref.Group {
		if t := byRegion[r.Region]; t != nil && t.ID == r.ID && !r.Deleting {
			out = append(out, t)
		}
	}
	return out
}

// legacyRegions lists the Regions of t's legacy group, in group order.
func legacyRegions(t *tableMeta, now time.Time) []string {
	var out []string
	for _, r := range t.Group {
		if !r.Deleting && !r.gone(now) {
			out = append(out, r.Region)
		}
	}
	return out
}

// legacyCandidate returns the table name in (account, region) that may
// join a legacy global table: it exists, belongs to no global table and
// streams new and old images.
func (e *Engine) legacyCandidate(account, region, name string, now time.Time) (*tableMeta, error) {
	t := e.lookup(Namespace{Account: account, Region: region}, name, now)
	if t == nil || t.Deleting {
		return nil, NewError(CodeTableNotFound, "Table: %s not found in region %s", name, region)
	}
	if t.Legacy != nil || len(t.replicas(now)) > 0 {
		return nil, invalidParam("Table %s in region %s is already part of a global table", name, region)
	}
	if !t.StreamEnabled || t.StreamViewType != "NEW_AND_OLD_IMAGES" {
		return nil, invalidParam("Table %s in region %s must have DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES", name, region)
	}
	return t, nil
}

// sameLegacyShape reports whether b may replicate with a: the same keys,
// the same index names and keys, and the same write capacity settings.
func sameLegacyShape(a, b *tableMeta) error {
	if !slices.Equal(a.KeySchema, b.KeySchema) {
		return invalidParam("Table %s in region %s does not have the same key schema as the table in region %s", b.Name, b.Region, a.Region)
	}
	if indexShapes(a.GSIs) != indexShapes(b.GSIs) || indexShapes(a.LSIs) != indexShapes(b.LSIs) {
		return invalidParam("Table %s in region %s does not have the same secondary indexes as the table in region %s", b.Name, b.Region, a.Region)
	}
	if a.BillingMode != b.BillingMode || a.BillingMode == billingProvisioned && a.Throughput.Write != b.Throughput.Write ||
		writeCaps(a) != writeCaps(b) {
		return invalidParam("Table %s in region %s does not have the same write capacity settings as the table in region %s", b.Name, b.Region, a.Region)
	}
	return nil
}

// indexShapes is a comparable summary of live indexes: names and keys.
func indexShapes(ixs []*indexMeta) string {
	var parts []string
	for _, ix := range ixs {
		if ix.Deleted {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s%v", ix.Name, ix.KeySchema))
	}
	sort.Strings(parts)
	return fmt.Sprint(parts)
}

// writeCaps summarises the provisioned write capacity of t's GSIs.
func writeCaps(t *tableMeta) string {
	if t.BillingMode != billingProvisioned {
		return ""
	}
	var parts []string
	for _, ix := range t.GSIs {
		if !ix.Deleted {
			parts = append(parts, fmt.Sprintf("%s=%d", ix.Name, ix.Throughput.Write))
		}
	}
	sort.Strings(parts)
	return fmt.Sprint(parts)
}

// requireEmpty refuses tables that hold an item.
func (e *Engine) requireEmpty(ts []*tableMeta) error {
	for _, t := range ts {
		p := itemPrefix(t.ID)
		keys, err := nextKeys(e.opts.Store, p, prefixEnd(p), 1)
		if err != nil {
			return internalError(err)
		}
		if len(keys) > 0 {
			return invalidParam("Table %s in region %s is not empty: every replica of a global table must be empty when it is created or a replica is added", t.Name, t.Region)
		}
	}
	return nil
}

// saveTables stores and caches ts in one batch. The caller holds e.mu.
func (e *Engine) saveTables(ts []*tableMeta) error {
	b := e.opts.Store.NewBatch()
	for _, t := range ts {
		if err := putTable(b, t); err != nil {
			_ = b.Close()
			return err
		}
	}
	if err := e.commit(b); err != nil {
		return err
	}
	for _, t := range ts {
		e.cacheTable(t)
	}
	return nil
}

// legacyStatus is the global table's status at now.
func legacyStatus(t *tableMeta, now time.Time) string {
	switch {
	case now.Before(t.Legacy.CreatingUntil):
		return statusCreating
	case now.Before(t.Legacy.UpdatingUntil):
		return statusUpdating
	}
	for _, r := range t.Group {
		if r.Deleting && !r.gone(now) {
			return statusUpdating
		}
	}
	return statusActive
}

// describeLegacy is the GlobalTableDescription of t's legacy group. Its
// replication group lists RegionName only, as DynamoDB's examples show.
func describeLegacy(t *tableMeta, now time.Time) *GlobalTableDescription {
	d := &GlobalTableDescription{
		GlobalTableArn:    globalTableARN(t.Account, t.Name),
		CreationDateTime:  epochPtr(t.Legacy.CreatedAt),
		GlobalTableStatus: legacyStatus(t, now),
		GlobalTableName:   t.Name,
		ReplicationGroup:  []ReplicaDescription{},
	}
	for _, r := range legacyRegions(t, now) {
		d.ReplicationGroup = append(d.ReplicationGroup, ReplicaDescription{RegionName: r})
	}
	return d
}

func describeLegacySettings(name string, members []*tableMeta, now time.Time) *DescribeGlobalTableSettingsOutput {
	out := &DescribeGlobalTableSettingsOutput{GlobalTableName: name}
	off := func() *AutoScalingSettingsDescription {
		return &AutoScalingSettingsDescription{AutoScalingDisabled: refOf(true)}
	}
	for _, t := range members {
		status := statusActive
		if now.Before(t.Legacy.CreatingUntil) {
			status = statusCreating
		}
		rs := ReplicaSettingsDescription{
			RegionName:                           t.Region,
			ReplicaStatus:                        status,
			ReplicaBillingModeSummary:            &BillingModeSummary{BillingMode: t.BillingMode, LastUpdateToPayPerRequestDateTime: epochPtr(t.LastPayPerRequest)},
			ReplicaProvisionedReadCapacityUnits:  refOf(t.Throughput.Read),
			ReplicaProvisionedWriteCapacityUnits: refOf(t.Throughput.Write),
		}
		if t.BillingMode == billingProvisioned {
			rs.ReplicaProvisionedReadCapacityAutoScalingSettings = off()
			rs.ReplicaProvisionedWriteCapacityAutoScalingSettings = off()
		}
		for _, ix := range t.GSIs {
			if ix.Deleted {
				continue
			}
			g := ReplicaGlobalSecondaryIndexSettingsDescription{
				IndexName:                     ix.Name,
				IndexStatus:                   ix.status(now),
				ProvisionedReadCapacityUnits:  refOf(ix.Throughput.Read),
				ProvisionedWriteCapacityUnits: refOf(ix.Throughput.Write),
			}
			if t.BillingMode == billingProvisioned {
				g.ProvisionedReadCapacityAutoScalingSettings = off()
				g.ProvisionedWriteCapacityAutoScalingSettings = off()
			}
			rs.ReplicaGlobalSecondaryIndexSettings = append(rs.ReplicaGlobalSecondaryIndexSettings, g)
		}
		class := t.TableClass
		if class == "" {
			class = classStandard
		}
		rs.ReplicaTableClassSummary = &TableClassSummary{TableClass: class, LastUpdateDateTime: epochPtr(t.TableClassUpdate)}
		out.ReplicaSettings = append(out.ReplicaSettings, rs)
	}
	return out
}

// UpdateGlobalTableSettings changes the billing mode and write capacity of
// every member and the read capacity and table class of some, through
// each member's UpdateTable (so each change is checked as UpdateTable
// checks it). Auto scaling is not emulated: its updates are refused.
func (e *Engine) UpdateGlobalTableSettings(ctx context.Context, ns Namespace, in *UpdateGlobalTableSettingsInput) (*UpdateGlobalTableSettingsOutput, error) {
	if err := validateUpdateGlobalTableSettings(in); err != nil {
		return nil, err
	}
	name := *in.GlobalTableName
	if !e.opts.LegacyGlobalTables {
		return nil, globalTableNotFound(name)
	}
	e.rlockCatalog()
	members := e.legacyMembers(ns.Account, name, e.now())
	e.mu.RUnlock()
	if len(members) == 0 {
		return nil, globalTableNotFound(name)
	}
	if err := checkLegacySettings(name, members, in); err != nil {
		return nil, err
	}
	for _, t := range members {
		for _, up := range legacySettingsUpdates(t, in) {
			if _, err := e.UpdateTable(ctx, t.ns(), up); err != nil {
				return nil, err
			}
		}
	}
	e.rlockCatalog()
	defer e.mu.RUnlock()
	now := e.now()
	members = e.legacyMembers(ns.Account, name, now)
	if len(members) == 0 {
		return nil, globalTableNotFound(name)
	}
	return describeLegacySettings(name, members, now), nil
}

// checkLegacySettings refuses auto scaling, Regions that are not members
// and indexes the tables do not have.
func checkLegacySettings(name string, members []*tableMeta, in *UpdateGlobalTableSettingsInput) error {
	autoScaling := in.GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate != nil
	for _, g := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		autoScaling = autoScaling || g.ProvisionedWriteCapacityAutoScalingSettingsUpdate != nil
	}
	for _, r := range in.ReplicaSettingsUpdate {
		autoScaling = autoScaling || r.ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate != nil
		for _, g := range r.ReplicaGlobalSecondaryIndexSettingsUpdate {
			autoScaling = autoScaling || g.ProvisionedReadCapacityAutoScalingSettingsUpdate != nil
		}
	}
	if autoScaling {
		return invalidParam("auto scaling settings are not supported by ExtendDB")
	}
	byRegion := map[string]*tableMeta{}
	for _, t := range members {
		byRegion[t.Region] = t
	}
	hasGSI := func(t *tableMeta, n string) bool {
		for _, ix := range t.GSIs {
			if ix.Name == n && !ix.Deleted {
				return true
			}
		}
		return false
	}
	var missing []string
	for _, r := range in.ReplicaSettingsUpdate {
		if byRegion[*r.RegionName] == nil {
			missing = append(missing, *r.RegionName)
		}
	}
	if len(missing) > 0 {
		return NewError(CodeReplicaNotFound, "Failed to update settings for global table with name: '%s' because a replica does not exist in regions: %v.", name, missing)
	}
	var badIx []string
	for _, g := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		if !hasGSI(members[0], *g.IndexName) {
			badIx = append(badIx, *g.IndexName)
		}
	}
	for _, r := range in.ReplicaSettingsUpdate {
		for _, g := range r.ReplicaGlobalSecondaryIndexSettingsUpdate {
			if !hasGSI(byRegion[*r.RegionName], *g.IndexName) {
				badIx = append(badIx, *g.IndexName)
			}
		}
	}
	if len(badIx) > 0 {
		return NewError(CodeIndexNotFound, "Failed to update settings for global table with name: '%s' because the global secondary indexes with names %v do not exist.", name, badIx)
	}
	return nil
}

// legacySettingsUpdates are the UpdateTable requests that give member t
// the requested settings (none: nothing changes for it). A table class
// change goes alone, as UpdateTable requires.
func legacySettingsUpdates(t *tableMeta, in *UpdateGlobalTableSettingsInput) []*UpdateTableInput {
	var rs *ReplicaSettingsUpdate
	for i := range in.ReplicaSettingsUpdate {
		if *in.ReplicaSettingsUpdate[i].RegionName == t.Region {
			rs = &in.ReplicaSettingsUpdate[i]
		}
	}
	up := &UpdateTableInput{TableName: refOf(t.Name)}
	changed := false
	billing := t.BillingMode
	if m := in.GlobalTableBillingMode; m != nil && *m != t.BillingMode {
		billing, up.BillingMode, changed = *m, refOf(*m), true
	}
	switching := up.BillingMode != nil
	if billing == billingProvisioned {
		read, write := t.Throughput.Read, t.Throughput.Write
		if w := in.GlobalTableProvisionedWriteCapacityUnits; w != nil {
			write = *w
		}
		if rs != nil && rs.ReplicaProvisionedReadCapacityUnits != nil {
			read = *rs.ReplicaProvisionedReadCapacityUnits
		}
		if read == 0 {
			read = write // a table leaving on-demand with no read capacity given
		}
		if switching || read != t.Throughput.Read || write != t.Throughput.Write {
			up.ProvisionedThroughput = &ProvisionedThroughput{ReadCapacityUnits: refOf(read), WriteCapacityUnits: refOf(write)}
			changed = true
		}
		for _, ix := range t.GSIs {
			if ix.Deleted {
				continue
			}
			r, w := ix.Throughput.Read, ix.Throughput.Write
			for _, g := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
				if *g.IndexName == ix.Name && g.ProvisionedWriteCapacityUnits != nil {
					w = *g.ProvisionedWriteCapacityUnits
				}
			}
			if rs != nil {
				for _, g := range rs.ReplicaGlobalSecondaryIndexSettingsUpdate {
					if *g.IndexName == ix.Name && g.ProvisionedReadCapacityUnits != nil {
						r = *g.ProvisionedReadCapacityUnits
					}
				}
			}
			if w == 0 {
				w = write
			}
			if r == 0 {
				r = w
			}
			if switching || r != ix.Throughput.Read || w != ix.Throughput.Write {
				up.GlobalSecondaryIndexUpdates = append(up.GlobalSecondaryIndexUpdates, GlobalSecondaryIndexUpdate{Update: &UpdateGlobalSecondaryIndexAction{
					IndexName: refOf(ix.Name), ProvisionedThroughput: &ProvisionedThroughput{ReadCapacityUnits: refOf(r), WriteCapacityUnits: refOf(w)}}})
				changed = true
			}
		}
	}
	var out []*UpdateTableInput
	if changed {
		out = append(out, up)
	}
	if rs != nil && rs.ReplicaTableClass != nil {
		cur := t.TableClass
		if cur == "" {
			cur = classStandard
		}
		if *rs.ReplicaTableClass != cur {
			out = append(out, &UpdateTableInput{TableName: refOf(t.Name), TableClass: rs.ReplicaTableClass})
		}
	}
	return out
}
