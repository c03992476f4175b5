package globaltables

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// DescribeGlobalTableSettings reports each member's capacity settings.
// The request has passed the shape checks.
func DescribeGlobalTableSettings(ctx context.Context, c Core, ns api.Namespace, in *api.DescribeGlobalTableSettingsInput) (*api.DescribeGlobalTableSettingsOutput, error) {
	name := *in.GlobalTableName
	if !c.LegacyEnabled() {
		return nil, GlobalTableNotFound(name)
	}
	c.RLockCatalog()
	defer c.RUnlockCatalog()
	now := c.Now()
	members := legacyMembers(c, ns.Account, name, now)
	if len(members) == 0 {
		return nil, GlobalTableNotFound(name)
	}
	return describeLegacySettings(name, members, now), nil
}

func describeLegacySettings(name string, members []*Table, now time.Time) *api.DescribeGlobalTableSettingsOutput {
	out := &api.DescribeGlobalTableSettingsOutput{GlobalTableName: name}
	off := func() *api.AutoScalingSettingsDescription {
		return &api.AutoScalingSettingsDescription{AutoScalingDisabled: ref(true)}
	}
	for _, t := range members {
		status := statusActive
		if now.Before(t.Membership.Legacy.CreatingUntil) {
			status = statusCreating
		}
		rs := api.ReplicaSettingsDescription{
			RegionName:                           t.Region,
			ReplicaStatus:                        status,
			ReplicaBillingModeSummary:            &api.BillingModeSummary{BillingMode: t.BillingMode, LastUpdateToPayPerRequestDateTime: api.EpochPtr(t.LastPayPerRequest)},
			ReplicaProvisionedReadCapacityUnits:  ref(t.Read),
			ReplicaProvisionedWriteCapacityUnits: ref(t.Write),
		}
		if t.BillingMode == billingProvisioned {
			rs.ReplicaProvisionedReadCapacityAutoScalingSettings = off()
			rs.ReplicaProvisionedWriteCapacityAutoScalingSettings = off()
		}
		for _, ix := range t.GSIs {
			g := api.ReplicaGlobalSecondaryIndexSettingsDescription{
				IndexName:                     ix.Name,
				IndexStatus:                   ix.Status,
				ProvisionedReadCapacityUnits:  ref(ix.Read),
				ProvisionedWriteCapacityUnits: ref(ix.Write),
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
		rs.ReplicaTableClassSummary = &api.TableClassSummary{TableClass: class, LastUpdateDateTime: api.EpochPtr(t.TableClassUpdate)}
		out.ReplicaSettings = append(out.ReplicaSettings, rs)
	}
	return out
}

// UpdateGlobalTableSettings changes the billing mode and write capacity of
// every member and the read capacity and table class of some, through
// each member's UpdateTable (so each change is checked as UpdateTable
// checks it). Auto scaling is not emulated: its updates are refused. The
// request has passed the shape checks.
func UpdateGlobalTableSettings(ctx context.Context, c Core, ns api.Namespace, in *api.UpdateGlobalTableSettingsInput) (*api.UpdateGlobalTableSettingsOutput, error) {
	name := *in.GlobalTableName
	if !c.LegacyEnabled() {
		return nil, GlobalTableNotFound(name)
	}
	c.RLockCatalog()
	members := legacyMembers(c, ns.Account, name, c.Now())
	c.RUnlockCatalog()
	if len(members) == 0 {
		return nil, GlobalTableNotFound(name)
	}
	if err := checkLegacySettings(name, members, in); err != nil {
		return nil, err
	}
	for _, t := range members {
		for _, up := range legacySettingsUpdates(t, in) {
			if _, err := c.UpdateTable(ctx, t.ns(), up); err != nil {
				return nil, err
			}
		}
	}
	c.RLockCatalog()
	defer c.RUnlockCatalog()
	now := c.Now()
	members = legacyMembers(c, ns.Account, name, now)
	if len(members) == 0 {
		return nil, GlobalTableNotFound(name)
	}
	return describeLegacySettings(name, members, now), nil
}

// settingsAutoScaling reports whether in asks for an auto scaling change.
func settingsAutoScaling(in *api.UpdateGlobalTableSettingsInput) bool {
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
	return autoScaling
}

// checkLegacySettings refuses auto scaling, Regions that are not members
// and indexes the tables do not have.
func checkLegacySettings(name string, members []*Table, in *api.UpdateGlobalTableSettingsInput) error {
	if settingsAutoScaling(in) {
		return shape.InvalidParam("auto scaling settings are not supported by ExtendDB")
	}
	byRegion := map[string]*Table{}
	for _, t := range members {
		byRegion[t.Region] = t
	}
	hasGSI := func(t *Table, n string) bool {
		for _, ix := range t.GSIs {
			if ix.Name == n {
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
		return api.NewError(api.CodeReplicaNotFound, "Failed to update settings for global table with name: '%s' because a replica does not exist in regions: %v.", name, missing)
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
		return api.NewError(api.CodeIndexNotFound, "Failed to update settings for global table with name: '%s' because the global secondary indexes with names %v do not exist.", name, badIx)
	}
	return nil
}

// legacySettingsUpdates are the UpdateTable requests that give member t
// the requested settings (none: nothing changes for it). A table class
// change goes alone, as UpdateTable requires.
func legacySettingsUpdates(t *Table, in *api.UpdateGlobalTableSettingsInput) []*api.UpdateTableInput {
	var rs *api.ReplicaSettingsUpdate
	for i := range in.ReplicaSettingsUpdate {
		if *in.ReplicaSettingsUpdate[i].RegionName == t.Region {
			rs = &in.ReplicaSettingsUpdate[i]
		}
	}
	up := &api.UpdateTableInput{TableName: ref(t.Name)}
	changed := false
	billing := t.BillingMode
	if m := in.GlobalTableBillingMode; m != nil && *m != t.BillingMode {
		billing, up.BillingMode, changed = *m, ref(*m), true
	}
	if billing == billingProvisioned && provisionedUpdates(t, in, rs, up) {
		changed = true
	}
	var out []*api.UpdateTableInput
	if changed {
		out = append(out, up)
	}
	if rs != nil && rs.ReplicaTableClass != nil {
		cur := t.TableClass
		if cur == "" {
			cur = classStandard
		}
		if *rs.ReplicaTableClass != cur {
			out = append(out, &api.UpdateTableInput{TableName: ref(t.Name), TableClass: rs.ReplicaTableClass})
		}
	}
	return out
}

// provisionedUpdates sets up's provisioned throughput of the table and its
// GSIs for a provisioned member t (rs: t's own settings, if any); it
// reports whether any changes.
func provisionedUpdates(t *Table, in *api.UpdateGlobalTableSettingsInput, rs *api.ReplicaSettingsUpdate, up *api.UpdateTableInput) bool {
	changed := false
	switching := up.BillingMode != nil
	read, write := t.Read, t.Write
	if w := in.GlobalTableProvisionedWriteCapacityUnits; w != nil {
		write = *w
	}
	if rs != nil && rs.ReplicaProvisionedReadCapacityUnits != nil {
		read = *rs.ReplicaProvisionedReadCapacityUnits
	}
	if read == 0 {
		read = write // a table leaving on-demand with no read capacity given
	}
	if switching || read != t.Read || write != t.Write {
		up.ProvisionedThroughput = &api.ProvisionedThroughput{ReadCapacityUnits: ref(read), WriteCapacityUnits: ref(write)}
		changed = true
	}
	for _, ix := range t.GSIs {
		r, w := ix.Read, ix.Write
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
		if switching || r != ix.Read || w != ix.Write {
			up.GlobalSecondaryIndexUpdates = append(up.GlobalSecondaryIndexUpdates, api.GlobalSecondaryIndexUpdate{Update: &api.UpdateGlobalSecondaryIndexAction{
				IndexName: ref(ix.Name), ProvisionedThroughput: &api.ProvisionedThroughput{ReadCapacityUnits: ref(r), WriteCapacityUnits: ref(w)}}})
			changed = true
		}
	}
	return changed
}
