package emulator

// Replica auto scaling: DescribeTableReplicaAutoScaling and
// UpdateTableReplicaAutoScaling store and report, per table and GSI, the
// scalable target (minimum, maximum, role) and target-tracking policy that
// Application Auto Scaling would hold on the service; the worker in
// autoscaling_worker.go acts on them.
//
// Where they live follows the service's rule for global tables: write
// settings are global (every member's metadata carries the same), read
// settings are per replica (only that Region's member carries them).
// Settings of a PAY_PER_REQUEST table are never accepted, and those left on
// a table switched to on-demand are inert and not described.

import (
	"context"
	"fmt"
	"math"
	"time"
)

// capacityScaling is the auto scaling of a table's or GSI's two capacities;
// a nil member is not auto scaled.
type capacityScaling struct {
	Read  *scalingSettings `json:"r,omitempty"`
	Write *scalingSettings `json:"w,omitempty"`
}

// scalingSettings is one capacity's scalable target and policy.
type scalingSettings struct {
	Min  int64  `json:"min"`
	Max  int64  `json:"max"`
	Role string `json:"role,omitempty"`
	// Policy is nil for a target without a scaling policy: capacity is
	// only held between Min and Max.
	Policy *scalingPolicy `json:"policy,omitempty"`
}

// scalingPolicy is a target-tracking policy on the capacity's utilisation.
type scalingPolicy struct {
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

// DescribeTableReplicaAutoScaling reports the auto scaling of the table in
// every Region of its global table (its own Region alone when it has no
// replicas).
func (e *Engine) DescribeTableReplicaAutoScaling(ctx context.Context, ns Namespace, in *DescribeTableReplicaAutoScalingInput) (*DescribeTableReplicaAutoScalingOutput, error) {
	if in == nil {
		in = &DescribeTableReplicaAutoScalingInput{}
	}
	if err := requiredTableName(in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	defer e.mu.RUnlock()
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, TableNotFound(name)
	}
	return &DescribeTableReplicaAutoScalingOutput{TableAutoScalingDescription: e.describeAutoScaling(t, now)}, nil
}

// UpdateTableReplicaAutoScaling changes the auto scaling of the table's and
// its GSIs' write capacity (in every Region) and of read capacity per Region.
func (e *Engine) UpdateTableReplicaAutoScaling(ctx context.Context, ns Namespace, in *UpdateTableReplicaAutoScalingInput) (*UpdateTableReplicaAutoScalingOutput, error) {
	if in == nil {
		in = &UpdateTableReplicaAutoScalingInput{}
	}
	if err := requiredTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := validateAutoScalingShape(in); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, TableNotFound(name)
	}
	if s := t.status(now); s != statusActive {
		return nil, inUse(t, s)
	}
	members, err := e.scalingMembers(t, now)
	if err != nil {
		return nil, err
	}
	if err := applyAutoScaling(t, members, in); err != nil {
		return nil, err
	}
	b := e.opts.Store.NewBatch()
	for _, m := range members {
		if err := putTable(b, m); err != nil {
			_ = b.Close()
			return nil, internalError(err)
		}
	}
	if err := e.commit(b); err != nil {
		return nil, internalError(err)
	}
	for _, m := range members {
		e.cacheTable(m)
	}
	return &UpdateTableReplicaAutoScalingOutput{TableAutoScalingDescription: e.describeAutoScaling(members[0], now)}, nil
}

// validateAutoScalingShape runs the model's member constraints.
func validateAutoScalingShape(in *UpdateTableReplicaAutoScalingInput) error {
	var v violations
	v.tableRef("tableName", in.TableName)
	settings(&v, "provisionedWriteCapacityAutoScalingUpdate", in.ProvisionedWriteCapacityAutoScalingUpdate)
	if in.GlobalSecondaryIndexUpdates != nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		v.add("'[]'", "globalSecondaryIndexUpdates", "Member must have length greater than or equal to 1")
	}
	for i, g := range in.GlobalSecondaryIndexUpdates {
		p := fmt.Sprintf("globalSecondaryIndexUpdates.%d.member", i+1)
		v.name(p+".indexName", g.IndexName, false)
		settings(&v, p+".provisionedWriteCapacityAutoScalingUpdate", g.ProvisionedWriteCapacityAutoScalingUpdate)
	}
	if in.ReplicaUpdates != nil && len(in.ReplicaUpdates) == 0 {
		v.add("'[]'", "replicaUpdates", "Member must have length greater than or equal to 1")
	}
	for i, r := range in.ReplicaUpdates {
		p := fmt.Sprintf("replicaUpdates.%d.member", i+1)
		if r.RegionName == nil {
			v.null(p + ".regionName")
		}
		for j, g := range r.ReplicaGlobalSecondaryIndexUpdates {
			q := fmt.Sprintf("%s.replicaGlobalSecondaryIndexUpdates.%d.member", p, j+1)
			v.name(q+".indexName", g.IndexName, false)
			settings(&v, q+".provisionedReadCapacityAutoScalingUpdate", g.ProvisionedReadCapacityAutoScalingUpdate)
		}
		settings(&v, p+".replicaProvisionedReadCapacityAutoScalingUpdate", r.ReplicaProvisionedReadCapacityAutoScalingUpdate)
	}
	return v.err()
}

// settings checks one AutoScalingSettingsUpdate's members.
func settings(v *violations, p string, s *AutoScalingSettingsUpdate) {
	if s == nil {
		return
	}
	v.min(p+".minimumUnits", s.MinimumUnits, 1)
	v.min(p+".maximumUnits", s.MaximumUnits, 1)
	if s.AutoScalingRoleArn != nil {
		v.length(p+".autoScalingRoleArn", *s.AutoScalingRoleArn, 1, 1600)
	}
	if u := s.ScalingPolicyUpdate; u != nil {
		if u.PolicyName != nil {
			v.length(p+".scalingPolicyUpdate.policyName", *u.PolicyName, 1, 256)
		}
		c := u.TargetTrackingScalingPolicyConfiguration
		switch {
		case c == nil:
			v.null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration")
		case c.TargetValue == nil:
			v.null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration.targetValue")
		}
	}
}

// scalingMembers returns clones of every live member of t's group that the
// update may touch, t's own first (t alone without replicas). The caller
// holds e.mu.
func (e *Engine) scalingMembers(t *tableMeta, now time.Time) ([]*tableMeta, error) {
	out := []*tableMeta{t.clone()}
	for _, r := range t.replicas(now) {
		if r.Deleting {
			continue
		}
		m := e.lookup(Namespace{Account: t.Account, Region: r.Region}, t.Name, now)
		if m == nil || m.ID != r.ID || m.Deleting {
			continue
		}
		out = append(out, m.clone())
	}
	return out, nil
}

// applyAutoScaling applies in to the members (clones; members[0] is the
// table asked about), in the order the request lists the changes.
func applyAutoScaling(t *tableMeta, members []*tableMeta, in *UpdateTableReplicaAutoScalingInput) error {
	if t.BillingMode == billingPayPerRequest && configures(in) {
		return invalidParam("Auto scaling cannot be configured for a table whose BillingMode is PAY_PER_REQUEST")
	}
	if u := in.ProvisionedWriteCapacityAutoScalingUpdate; u != nil {
		for _, m := range members {
			sc := scalingOf(&m.Scaling)
			next, err := mergeSettings(sc.Write, u, m, "", "Write")
			if err != nil {
				return err
			}
			sc.Write = next
			m.Scaling = tidy(sc)
		}
	}
	for _, g := range in.GlobalSecondaryIndexUpdates {
		if g.IndexName == nil {
			return invalidParam("IndexName must be specified for each GlobalSecondaryIndexUpdate")
		}
		for _, m := range members {
			ix, err := scalingGSI(m, *g.IndexName)
			if err != nil {
				return err
			}
			if g.ProvisionedWriteCapacityAutoScalingUpdate == nil {
				continue
			}
			sc := scalingOf(&ix.Scaling)
			next, err := mergeSettings(sc.Write, g.ProvisionedWriteCapacityAutoScalingUpdate, m, ix.Name, "Write")
			if err != nil {
				return err
			}
			sc.Write = next
			ix.Scaling = tidy(sc)
		}
	}
	for _, r := range in.ReplicaUpdates {
		var m *tableMeta
		for _, c := range members {
			if c.Region == *r.RegionName {
				m = c
			}
		}
		if m == nil {
			return Validation("Replica specified in the Replica Update or Replica Delete action of the request was not found.")
		}
		if u := r.ReplicaProvisionedReadCapacityAutoScalingUpdate; u != nil {
			sc := scalingOf(&m.Scaling)
			next, err := mergeSettings(sc.Read, u, m, "", "Read")
			if err != nil {
				return err
			}
			sc.Read = next
			m.Scaling = tidy(sc)
		}
		for _, g := range r.ReplicaGlobalSecondaryIndexUpdates {
			if g.IndexName == nil {
				return invalidParam("IndexName must be specified for each ReplicaGlobalSecondaryIndexUpdate")
			}
			ix, err := scalingGSI(m, *g.IndexName)
			if err != nil {
				return err
			}
			if g.ProvisionedReadCapacityAutoScalingUpdate == nil {
				continue
			}
			sc := scalingOf(&ix.Scaling)
			next, err := mergeSettings(sc.Read, g.ProvisionedReadCapacityAutoScalingUpdate, m, ix.Name, "Read")
			if err != nil {
				return err
			}
			sc.Read = next
			ix.Scaling = tidy(sc)
		}
	}
	return nil
}

// configures reports whether in sets (rather than only disables) any
// auto scaling.
func configures(in *UpdateTableReplicaAutoScalingInput) bool {
	sets := func(u *AutoScalingSettingsUpdate) bool {
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

// scalingGSI returns the live GSI name of m, or the error for another name.
func scalingGSI(m *tableMeta, name string) (*indexMeta, error) {
	for _, ix := range m.GSIs {
		if ix.Name == name && !ix.Deleted {
			return ix, nil
		}
	}
	return nil, NewError(CodeResourceNotFound, "Requested resource not found: Index %s for table %s", name, m.Name)
}

// scalingOf returns *p, allocating it when nil.
func scalingOf(p **capacityScaling) *capacityScaling {
	if *p == nil {
		*p = &capacityScaling{}
	}
	return *p
}

// tidy returns nil for a capacityScaling that holds nothing, so metadata
// without auto scaling stays as it was.
func tidy(sc *capacityScaling) *capacityScaling {
	if sc.Read == nil && sc.Write == nil {
		return nil
	}
	return sc
}

// mergeSettings returns cur changed by u: AutoScalingDisabled removes the
// settings; otherwise members given replace the current ones. A new target
// needs both MinimumUnits and MaximumUnits, as Application Auto Scaling's
// RegisterScalableTarget does. index is "" for the table; dir is "Read" or
// "Write", as the service's policy names spell it.
func mergeSettings(cur *scalingSettings, u *AutoScalingSettingsUpdate, m *tableMeta, index, dir string) (*scalingSettings, error) {
	if u.AutoScalingDisabled != nil && *u.AutoScalingDisabled {
		return nil, nil
	}
	next := scalingSettings{}
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
		return nil, invalidParam("MinimumUnits and MaximumUnits must be specified to enable auto scaling")
	}
	if next.Min > next.Max {
		return nil, invalidParam("MinimumUnits must be less than or equal to MaximumUnits")
	}
	if p := u.ScalingPolicyUpdate; p != nil {
		c := p.TargetTrackingScalingPolicyConfiguration
		tv := *c.TargetValue
		if math.IsNaN(tv) || tv < minTargetUtilization || tv > maxTargetUtilization {
			return nil, invalidParam("TargetValue must be between %d and %d", minTargetUtilization, maxTargetUtilization)
		}
		name := fmt.Sprintf("DynamoDB%sCapacityUtilization:table/%s", dir, m.Name)
		if index != "" {
			name += "/index/" + index
		}
		if p.PolicyName != nil {
			name = *p.PolicyName
		}
		next.Policy = &scalingPolicy{Name: name, Target: tv, NoScaleIn: c.DisableScaleIn, InCooldown: c.ScaleInCooldown, OutCooldown: c.ScaleOutCooldown}
	}
	return &next, nil
}

// describeAutoScaling describes t's auto scaling in every Region of its
// group, t's own first. The caller holds e.mu.
func (e *Engine) describeAutoScaling(t *tableMeta, now time.Time) *TableAutoScalingDescription {
	d := &TableAutoScalingDescription{TableName: t.Name, TableStatus: t.status(now), Replicas: []ReplicaAutoScalingDescription{}}
	d.Replicas = append(d.Replicas, describeReplicaScaling(t, t.status(now), now))
	for _, r := range t.replicas(now) {
		status := r.status(now)
		m := e.lookup(Namespace{Account: t.Account, Region: r.Region}, t.Name, now)
		if m == nil || m.ID != r.ID {
			d.Replicas = append(d.Replicas, ReplicaAutoScalingDescription{RegionName: r.Region, ReplicaStatus: status, GlobalSecondaryIndexes: []ReplicaGlobalSecondaryIndexAutoScalingDescription{}})
			continue
		}
		d.Replicas = append(d.Replicas, describeReplicaScaling(m, status, now))
	}
	return d
}

// describeReplicaScaling describes member m's auto scaling.
func describeReplicaScaling(m *tableMeta, status string, now time.Time) ReplicaAutoScalingDescription {
	rd := ReplicaAutoScalingDescription{RegionName: m.Region, ReplicaStatus: status, GlobalSecondaryIndexes: []ReplicaGlobalSecondaryIndexAutoScalingDescription{}}
	provisioned := m.BillingMode != billingPayPerRequest
	if sc := m.Scaling; sc != nil && provisioned {
		rd.ReplicaProvisionedReadCapacityAutoScalingSettings = describeSettings(m, sc.Read)
		rd.ReplicaProvisionedWriteCapacityAutoScalingSettings = describeSettings(m, sc.Write)
	}
	for _, ix := range m.GSIs {
		if ix.gone(now) {
			continue
		}
		gd := ReplicaGlobalSecondaryIndexAutoScalingDescription{IndexName: ix.Name, IndexStatus: ix.status(now)}
		if sc := ix.Scaling; sc != nil && provisioned {
			gd.ProvisionedReadCapacityAutoScalingSettings = describeSettings(m, sc.Read)
			gd.ProvisionedWriteCapacityAutoScalingSettings = describeSettings(m, sc.Write)
		}
		rd.GlobalSecondaryIndexes = append(rd.GlobalSecondaryIndexes, gd)
	}
	return rd
}

// describeSettings describes s (nil for nil). Without an
// AutoScalingRoleArn of its own a target reports the service-linked role
// Application Auto Scaling uses for DynamoDB.
func describeSettings(m *tableMeta, s *scalingSettings) *AutoScalingSettingsDescription {
	if s == nil {
		return nil
	}
	role := s.Role
	if role == "" {
		role = fmt.Sprintf("arn:%s:iam::%s:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable", m.ns().Partition(), m.Account)
	}
	d := &AutoScalingSettingsDescription{MinimumUnits: refOf(s.Min), MaximumUnits: refOf(s.Max), AutoScalingRoleArn: role}
	if p := s.Policy; p != nil {
		d.ScalingPolicies = []AutoScalingPolicyDescription{{
			PolicyName: p.Name,
			TargetTrackingScalingPolicyConfiguration: &AutoScalingTargetTrackingScalingPolicyConfiguration{
				TargetValue: refOf(p.Target), DisableScaleIn: p.NoScaleIn, ScaleInCooldown: p.InCooldown, ScaleOutCooldown: p.OutCooldown,
			},
		}}
	}
	return d
}
