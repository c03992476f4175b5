package autoscale

// The settings: DescribeTableReplicaAutoScaling and
// UpdateTableReplicaAutoScaling store and report, per table and GSI, the
// scalable target (minimum, maximum, role) and target-tracking policy;
// the worker (worker.go) acts on them.

import (
	"fmt"
	"math"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// Scaling is the auto scaling of a table's or GSI's two capacities; a nil
// member is not auto scaled. The engine stores it with the table's or
// index's metadata.
type Scaling struct {
	Read  *Settings `json:"r,omitempty"`
	Write *Settings `json:"w,omitempty"`
}

// Settings is one capacity's scalable target and policy.
type Settings struct {
	Min  int64  `json:"min"`
	Max  int64  `json:"max"`
	Role string `json:"role,omitempty"`
	// Policy is nil for a target without a scaling policy: capacity is
	// only held between Min and Max.
	Policy *Policy `json:"policy,omitempty"`
}

// Policy is a target-tracking policy on the capacity's utilisation.
type Policy struct {
	Name        string  `json:"name"`
	Target      float64 `json:"target"`
	NoScaleIn   *bool   `json:"noIn,omitempty"`
	InCooldown  *int32  `json:"inCool,omitempty"`
	OutCooldown *int32  `json:"outCool,omitempty"`
}

// The target utilisation DynamoDB auto scaling accepts, in percent (DG
// "Managing throughput capacity automatically with DynamoDB auto scaling").
const (
	minTargetUtilization = 20
	maxTargetUtilization = 90
)

// Describe reports the auto scaling of the table name in ns in every
// Region of its global table (its own Region alone when it has no
// replicas): DescribeTableReplicaAutoScaling.
func Describe(c Core, ns api.Namespace, name string) (*api.DescribeTableReplicaAutoScalingOutput, error) {
	g, err := c.Group(ns, name)
	if err != nil {
		return nil, err
	}
	return &api.DescribeTableReplicaAutoScalingOutput{TableAutoScalingDescription: describe(g)}, nil
}

// Update changes the auto scaling of the table's and its GSIs' write
// capacity (in every Region) and of read capacity per Region
// (UpdateTableReplicaAutoScaling, whose request has passed the shape
// checks).
func Update(c Core, ns api.Namespace, name string, in *api.UpdateTableReplicaAutoScalingInput) (*api.UpdateTableReplicaAutoScalingOutput, error) {
	g, err := c.Change(ns, name, func(members []*Table) error { return apply(members, in) })
	if err != nil {
		return nil, err
	}
	return &api.UpdateTableReplicaAutoScalingOutput{TableAutoScalingDescription: describe(g)}, nil
}

// apply applies in to the members (copies; members[0] is the table asked
// about), in the order the request lists the changes.
func apply(members []*Table, in *api.UpdateTableReplicaAutoScalingInput) error {
	if members[0].PayPerRequest && configures(in) {
		return shape.InvalidParam("Auto scaling cannot be configured for a table whose BillingMode is PAY_PER_REQUEST")
	}
	if u := in.ProvisionedWriteCapacityAutoScalingUpdate; u != nil {
		for _, m := range members {
			if err := setDir(&m.Scaling, u, m, "", "Write"); err != nil {
				return err
			}
		}
	}
	for _, g := range in.GlobalSecondaryIndexUpdates {
		if g.IndexName == nil {
			return shape.InvalidParam("IndexName must be specified for each GlobalSecondaryIndexUpdate")
		}
		for _, m := range members {
			ix, err := gsi(m, *g.IndexName)
			if err != nil {
				return err
			}
			if g.ProvisionedWriteCapacityAutoScalingUpdate == nil {
				continue
			}
			if err := setDir(&ix.Scaling, g.ProvisionedWriteCapacityAutoScalingUpdate, m, ix.Name, "Write"); err != nil {
				return err
			}
		}
	}
	for _, r := range in.ReplicaUpdates {
		if err := applyReplica(members, r); err != nil {
			return err
		}
	}
	return nil
}

// applyReplica applies one Region's read settings.
func applyReplica(members []*Table, r api.ReplicaAutoScalingUpdate) error {
	var m *Table
	for _, c := range members {
		if c.Region == *r.RegionName {
			m = c
		}
	}
	if m == nil {
		return api.Validation("Replica specified in the Replica Update or Replica Delete action of the request was not found.")
	}
	if u := r.ReplicaProvisionedReadCapacityAutoScalingUpdate; u != nil {
		if err := setDir(&m.Scaling, u, m, "", "Read"); err != nil {
			return err
		}
	}
	for _, g := range r.ReplicaGlobalSecondaryIndexUpdates {
		if g.IndexName == nil {
			return shape.InvalidParam("IndexName must be specified for each ReplicaGlobalSecondaryIndexUpdate")
		}
		ix, err := gsi(m, *g.IndexName)
		if err != nil {
			return err
		}
		if g.ProvisionedReadCapacityAutoScalingUpdate == nil {
			continue
		}
		if err := setDir(&ix.Scaling, g.ProvisionedReadCapacityAutoScalingUpdate, m, ix.Name, "Read"); err != nil {
			return err
		}
	}
	return nil
}

// setDir merges u into the dir ("Read" or "Write") settings of *p, the
// table's (index "") or a GSI's, leaving nil for no settings at all so
// metadata without auto scaling stays as it was.
func setDir(p **Scaling, u *api.AutoScalingSettingsUpdate, m *Table, index, dir string) error {
	if *p == nil {
		*p = &Scaling{}
	}
	sc := *p
	cur := &sc.Write
	if dir == "Read" {
		cur = &sc.Read
	}
	next, err := merge(*cur, u, m.Name, index, dir)
	if err != nil {
		return err
	}
	*cur = next
	if sc.Read == nil && sc.Write == nil {
		*p = nil
	}
	return nil
}

// configures reports whether in sets (rather than only disables) any
// auto scaling.
func configures(in *api.UpdateTableReplicaAutoScalingInput) bool {
	sets := func(u *api.AutoScalingSettingsUpdate) bool {
		return u != nil && (u.AutoScalingDisabled == nil || !*u.AutoScalingDisabled)
	}
	if sets(in.ProvisionedWriteCapacityAutoScalingUpdate) {
		return true
	}
	for _, g := range in.GlobalSecondaryIndexUpdates {
		if sets(g.ProvisionedWriteCapacityAutoScalingUpdate) {
			return true
		}
	}
	for _, r := range in.ReplicaUpdates {
		if sets(r.ReplicaProvisionedReadCapacityAutoScalingUpdate) {
			return true
		}
		for _, g := range r.ReplicaGlobalSecondaryIndexUpdates {
			if sets(g.ProvisionedReadCapacityAutoScalingUpdate) {
				return true
			}
		}
	}
	return false
}

// gsi returns the live GSI name of m, or the error for another name.
func gsi(m *Table, name string) (*Index, error) {
	for _, ix := range m.GSIs {
		if ix.Name == name && !ix.Deleted {
			return ix, nil
		}
	}
	return nil, api.NewError(api.CodeResourceNotFound, "Requested resource not found: Index %s for table %s", name, m.Name)
}

// merge returns cur changed by u: AutoScalingDisabled removes the
// settings; otherwise members given replace the current ones. A new target
// needs both MinimumUnits and MaximumUnits, as Application Auto Scaling's
// RegisterScalableTarget does. index is "" for the table; dir is "Read" or
// "Write", as the service's policy names spell it.
func merge(cur *Settings, u *api.AutoScalingSettingsUpdate, table, index, dir string) (*Settings, error) {
	if u.AutoScalingDisabled != nil && *u.AutoScalingDisabled {
		return nil, nil
	}
	next := Settings{}
	if cur != nil {
		next = *cur
	}
	if u.MinimumUnits != nil {
		next.Min = *u.MinimumUnits
	}
	if u.MaximumUnits != nil {
		next.Max = *u.MaximumUnits
	}
	if u.AutoScalingRoleArn != nil {
		next.Role = *u.AutoScalingRoleArn
	}
	if next.Min == 0 || next.Max == 0 {
		return nil, shape.InvalidParam("MinimumUnits and MaximumUnits must be specified to enable auto scaling")
	}
	if next.Min > next.Max {
		return nil, shape.InvalidParam("MinimumUnits must be less than or equal to MaximumUnits")
	}
	if p := u.ScalingPolicyUpdate; p != nil {
		c := p.TargetTrackingScalingPolicyConfiguration
		tv := *c.TargetValue
		if math.IsNaN(tv) || tv < minTargetUtilization || tv > maxTargetUtilization {
			return nil, shape.InvalidParam("TargetValue must be between %d and %d", minTargetUtilization, maxTargetUtilization)
		}
		name := fmt.Sprintf("DynamoDB%sCapacityUtilization:table/%s", dir, table)
		if index != "" {
			name += "/index/" + index
		}
		if p.PolicyName != nil {
			name = *p.PolicyName
		}
		next.Policy = &Policy{Name: name, Target: tv, NoScaleIn: c.DisableScaleIn, InCooldown: c.ScaleInCooldown, OutCooldown: c.ScaleOutCooldown}
	}
	return &next, nil
}
