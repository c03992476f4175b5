package globaltables

// UpdateTable's ReplicaUpdates: the checks that read the request and the
// group only, in DynamoDB's order (docs/differences.md, "Global tables"),
// and the changes they make to the group. The engine runs them within its
// UpdateTable and makes the tables' side of each change. Messages and what
// is accepted follow observations of the service (as recorded in
// docs/differences.md, "Global tables"): a Create's read-capacity or
// unknown-index override is accepted and ignored, so is a Create repeated
// in one request; an Update's read-capacity override on an on-demand table
// is refused.

import (
	"strings"
	"time"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// The messages of the ReplicaUpdates checks.
const (
	MsgLocalRegionCreateDelete = "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
	MsgLocalRegionUpdate       = "Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
	MsgNoReplicaActions        = "There are no actions specified in the Replica Update Action of the request."
	MsgMixedReplicaActions     = "Update table operation with more than one type of replica actions not allowed."
	MsgDisableGlobalStream     = "Disabling Stream is not allowed for a Global Table replica."
	MsgMRSCCount               = "Unsupported table replica count for global tables with MultiRegionConsistency set to STRONG"
	MsgWitnessNeedsStrong      = "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present"
)

// The messages of the disassociation checks. The documentation names the
// refusals and their type (ValidationException) but not their text: these
// are ExtendDB's, worded as the service words its neighbours
// (docs/differences.md, "Global tables").
const (
	MsgDisassociateAlone     = "Disassociate must be the only replica update in the request"
	MsgDisassociateProtected = "Replica cannot be disassociated as it is currently protected against disassociation. Disable disassociation protection first."
	MsgProtectionAlone       = "DisassociationProtection modification must be the only operation in the request"
)

// RequestRules applies the ReplicaUpdates checks that need no table: one
// action per entry, and multi-Region strong consistency, which is not
// emulated (docs/differences.md) and is refused after DynamoDB's own checks
// of its shape.
func RequestRules(in *api.UpdateTableInput) error {
	creates, disassociates := 0, 0
	for _, r := range in.ReplicaUpdates {
		n := 0
		for _, set := range []bool{r.Create != nil, r.Update != nil, r.Delete != nil, r.Disassociate != nil} {
			if set {
				n++
			}
		}
		switch {
		case n == 0:
			return api.Validation(MsgNoReplicaActions)
		case n > 1:
			return api.Validation(MsgMixedReplicaActions)
		}
		if r.Create != nil {
			creates++
		}
		if r.Disassociate != nil {
			disassociates++
		}
	}
	if disassociates > 0 && len(in.ReplicaUpdates) > 1 {
		// API Reference, UpdateTable: "The Disassociate action must be
		// the only replica update in the request."
		return shape.InvalidParam(MsgDisassociateAlone)
	}
	strong := in.MultiRegionConsistency != nil && *in.MultiRegionConsistency == "STRONG"
	if len(in.GlobalTableWitnessUpdates) > 0 && !strong {
		return api.Validation(MsgWitnessNeedsStrong)
	}
	if strong {
		witnesses := 0
		for _, w := range in.GlobalTableWitnessUpdates {
			if w.Create != nil {
				witnesses++
			}
		}
		if creates+witnesses != 2 {
			return api.Validation(MsgMRSCCount)
		}
		return shape.InvalidParam("MultiRegionConsistency STRONG (multi-Region strong consistency) is not supported by ExtendDB")
	}
	return nil
}

// SupportedRegions is what the "not supported" message lists. The
// service's list (its order included) is only partly known; any Region
// name of the form the server accepts is accepted here.
var SupportedRegions = []string{"ap-south-2", "ap-south-1", "eu-south-1", "eu-south-2", "me-central-1", "il-central-1",
	"ca-central-1", "eu-central-1", "eu-central-2", "us-west-1", "us-west-2", "af-south-1", "eu-north-1", "eu-west-3",
	"eu-west-2", "eu-west-1", "ap-northeast-3", "ap-northeast-2", "me-south-1", "ap-northeast-1", "sa-east-1",
	"ap-east-1", "ca-west-1", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "us-east-1",
	"us-east-2"}

// Prechecks runs the ReplicaUpdates and stream checks the service makes
// before it looks at the table's status (observed: they answer
// ValidationException even while the table is UPDATING): Region names, the
// local Region, members that are not there, and disabling a global table's
// stream. The table is in Region self, with membership m, and its stream
// is on when streamOn.
func Prechecks(self string, m *Membership, streamOn bool, in *api.UpdateTableInput, now time.Time) error {
	if s := in.StreamSpecification; s != nil && s.StreamEnabled != nil && !*s.StreamEnabled && len(m.Replicas(self, now)) > 0 && streamOn {
		return shape.InvalidParam(MsgDisableGlobalStream)
	}
	var missing []string
	for _, r := range in.ReplicaUpdates {
		region, update := "", false
		switch {
		case r.Disassociate != nil:
			continue // its Region is CheckDisassociation's to check
		case r.Create != nil:
			region = *r.Create.RegionName
		case r.Update != nil:
			region, update = *r.Update.RegionName, true
		case r.Delete != nil:
			region = *r.Delete.RegionName
		}
		if !accounts.IsRegion(region) {
			return api.Validation("Region %s is not supported. The latest version of global tables are only supported in the following regions: [%s].",
				region, strings.Join(SupportedRegions, ", "))
		}
		if region == self {
			if update {
				return api.Validation(MsgLocalRegionUpdate)
			}
			return api.Validation(MsgLocalRegionCreateDelete)
		}
		if r.Create == nil {
			if e := m.Member(region); e == nil || e.Gone(now) || e.Deleting {
				missing = append(missing, region)
			}
		}
	}
	if len(missing) > 0 {
		return api.Validation("Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [%s].",
			strings.Join(missing, ", "))
	}
	return nil
}

// CheckOverrides validates a Create or Update action's overrides. Global
// tables here are always on demand (provisioned ones, even auto-scaled, are
// not emulated), so a read-capacity override is refused in an Update and,
// as the service does, accepted and ignored in a Create.
func CheckOverrides(a *api.ReplicationGroupMemberAction, update bool) error {
	msgPPR := "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
	if update && a.ProvisionedThroughputOverride != nil {
		return shape.InvalidParam(msgPPR)
	}
	check := func(o *api.OnDemandThroughputOverride, what string) error {
		if o != nil && o.MaxReadRequestUnits != nil && (*o.MaxReadRequestUnits == 0 || *o.MaxReadRequestUnits < -1) {
			return shape.InvalidParam("Requested MaxReadRequestUnits for OnDemandThroughputOverride for %s is outside of valid range", what)
		}
		return nil
	}
	if err := check(a.OnDemandThroughputOverride, "table"); err != nil {
		return err
	}
	for _, g := range a.GlobalSecondaryIndexes {
		if update && g.ProvisionedThroughputOverride != nil {
			return shape.InvalidParam(msgPPR)
		}
		if err := check(g.OnDemandThroughputOverride, "index : "+*g.IndexName); err != nil {
			return err
		}
	}
	return nil
}

// ReplicaTable is a replica's table as its overrides change it.
type ReplicaTable interface {
	// SetKMSKey gives it the customer managed key arn, or the source
	// table's encryption with the AWS managed key when arn is "".
	SetKMSKey(arn string)
	// SetMaxRead sets the table's on-demand maximum read units.
	SetMaxRead(v int64)
	// SetGSIMaxRead sets the GSI name's on-demand maximum read units.
	SetGSIMaxRead(name string, v int64)
	// SetClass sets the table class, changed at.
	SetClass(class string, at time.Time)
}

// SetOverrides records a's overrides in r, the entry of the replica in
// (account, r.Region), and applies them to its table rt; isGSI reports
// whether the source table has a live GSI of that name.
func SetOverrides(r *Replica, rt ReplicaTable, a *api.ReplicationGroupMemberAction, account string, isGSI func(string) bool, now time.Time) {
	if a.KMSMasterKeyId != nil {
		if *a.KMSMasterKeyId == "" || *a.KMSMasterKeyId == "alias/aws/dynamodb" {
			r.KMSKey = ""
		} else {
			r.KMSKey = api.Namespace{Account: account, Region: r.Region}.KMSKeyARN(a.KMSMasterKeyId)
		}
		rt.SetKMSKey(r.KMSKey)
	}
	if o := a.OnDemandThroughputOverride; o != nil && o.MaxReadRequestUnits != nil {
		r.MaxRead = max(*o.MaxReadRequestUnits, 0)
		rt.SetMaxRead(r.MaxRead)
	}
	for _, g := range a.GlobalSecondaryIndexes {
		o := g.OnDemandThroughputOverride
		if !isGSI(*g.IndexName) || o == nil || o.MaxReadRequestUnits == nil {
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
			r.GSIs = append(r.GSIs, GSIOverride{Name: *g.IndexName, MaxRead: v})
		}
		rt.SetGSIMaxRead(*g.IndexName, v)
	}
	if c := a.TableClassOverride; c != nil && *c != r.Class {
		r.Class, r.ClassUpdated = *c, now
		rt.SetClass(*c, now)
	}
}

// Join gives the group of the table in Region self whose ID is id the
// table's own entry, if it has none: the first step of adding a replica.
func (m *Membership) Join(self string, id TableID) {
	if m.Group == nil || m.Member(self) == nil {
		m.Group = append(m.Group, &Replica{Region: self, ID: id})
	}
}

// AddReplica adds r, a new member, to the group; r replaces a gone entry
// of an earlier replica in its Region.
func (m *Membership) AddReplica(r *Replica) {
	kept := m.Group[:0]
	for _, e := range m.Group {
		if e.Region != r.Region { // a gone entry of an earlier replica
			kept = append(kept, e)
		}
	}
	m.Group = append(kept, r)
}

// Leave removes member r from the group of the table in Region self: at
// once, or listed DELETING until delay has passed. A group left with one
// member is dropped: the table is a plain table again (its stream stays
// on).
func (m *Membership) Leave(self string, r *Replica, now time.Time, delay time.Duration) {
	if delay > 0 {
		r.Deleting, r.DeletingUntil, r.Seeding = true, now.Add(delay), false
		return
	}
	kept := m.Group[:0]
	for _, e := range m.Group {
		if e != r {
			kept = append(kept, e)
		}
	}
	m.Group = kept
	if len(m.Replicas(self, now)) == 0 && m.Legacy == nil {
		m.Group = nil // a legacy group of one is still a global table
	}
}

// Disassociates reports whether the request disassociates the local
// replica.
func Disassociates(in *api.UpdateTableInput) bool {
	return len(in.ReplicaUpdates) == 1 && in.ReplicaUpdates[0].Disassociate != nil
}

// CheckDisassociation applies the rules of a Disassociate and of
// DisassociationProtectionEnabled that read the table, name in Region
// self with membership m (Developer Guide, "Disassociating a global table
// replica"; API Reference, UpdateTable): the request is sent to the
// replica's own Region; only a replica of a global table version
// 2019.11.21 has the setting and can leave (multi-Region strong
// consistency, the other kind it excludes, is not emulated); a protected
// replica stays.
func CheckDisassociation(name, self string, m *Membership, in *api.UpdateTableInput, now time.Time) error {
	dis := Disassociates(in)
	if !dis && in.DisassociationProtectionEnabled == nil {
		return nil
	}
	if dis {
		if region := *in.ReplicaUpdates[0].Disassociate.RegionName; region != self {
			return api.Validation("Disassociate can only be requested in the Region of the replica: send the request for Region %s to that Region, this request was sent to %s.", region, self)
		}
	}
	if m.Legacy != nil {
		return api.Validation("Table %s is a replica of a global table version %s: replica disassociation is supported for global tables version %s only.", name, LegacyVersion, globalTableVersion)
	}
	own := m.Member(self)
	if own == nil || len(m.Replicas(self, now)) == 0 {
		return api.Validation("Table %s is not a replica of a global table version %s.", name, globalTableVersion)
	}
	if dis && !own.Unprotected {
		return api.Validation(MsgDisassociateProtected)
	}
	return nil
}

// SetProtection records the disassociation protection of the member in
// Region self.
func (m *Membership) SetProtection(self string, on bool) {
	if own := m.Member(self); own != nil {
		own.Unprotected = !on
	}
}

// StartDisassociating marks the member in Region self as being
// disassociated from now: replication to and from it stops; the
// disassociation job (Replicator.StartDisassociation) completes it.
func (m *Membership) StartDisassociating(self string, now time.Time) {
	if own := m.Member(self); own != nil {
		own.Disassociating, own.DisassociatingSince = true, now
	}
}
