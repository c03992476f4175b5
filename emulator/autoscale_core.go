package emulator

// Auto scaling (emulator/internal/autoscale): the operations hand over to
// the package after the shape checks; asCore is the engine as the package
// uses it; autoScalePass is the auto scaling worker's pass (registered in
// New).

import (
	"context"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/autoscale"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/rs/zerolog"
)

// DefaultAutoScaleInterval is the worker's period when
// Options.AutoScaleInterval is zero. Datapoints are minutes of the engine's
// clock whatever the period; a shorter one only notices them sooner.
const DefaultAutoScaleInterval = 10 * time.Second

// DescribeTableReplicaAutoScaling reports the auto scaling of the table in
// every Region of its global table (its own Region alone when it has no
// replicas).
func (e *Engine) DescribeTableReplicaAutoScaling(ctx context.Context, ns api.Namespace, in *api.DescribeTableReplicaAutoScalingInput) (*api.DescribeTableReplicaAutoScalingOutput, error) {
	if in == nil {
		in = &api.DescribeTableReplicaAutoScalingInput{}
	}
	if err := shape.RequiredTableName(in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	return autoscale.Describe(asCore{e}, tns, name)
}

// UpdateTableReplicaAutoScaling changes the auto scaling of the table's and
// its GSIs' write capacity (in every Region) and of read capacity per Region.
func (e *Engine) UpdateTableReplicaAutoScaling(ctx context.Context, ns api.Namespace, in *api.UpdateTableReplicaAutoScalingInput) (*api.UpdateTableReplicaAutoScalingOutput, error) {
	if in == nil {
		in = &api.UpdateTableReplicaAutoScalingInput{}
	}
	if err := shape.RequiredTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := validateAutoScalingShape(in); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	return autoscale.Update(asCore{e}, tns, name, in)
}

// validateAutoScalingShape runs the model's member constraints.
func validateAutoScalingShape(in *api.UpdateTableReplicaAutoScalingInput) error {
	var v shape.Violations
	v.TableRef("tableName", in.TableName)
	settings(&v, "provisionedWriteCapacityAutoScalingUpdate", in.ProvisionedWriteCapacityAutoScalingUpdate)
	if in.GlobalSecondaryIndexUpdates != nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		v.Add("'[]'", "globalSecondaryIndexUpdates", "Member must have length greater than or equal to 1")
	}
	for i, g := range in.GlobalSecondaryIndexUpdates {
		p := fmt.Sprintf("globalSecondaryIndexUpdates.%d.member", i+1)
		v.Name(p+".indexName", g.IndexName, false)
		settings(&v, p+".provisionedWriteCapacityAutoScalingUpdate", g.ProvisionedWriteCapacityAutoScalingUpdate)
	}
	if in.ReplicaUpdates != nil && len(in.ReplicaUpdates) == 0 {
		v.Add("'[]'", "replicaUpdates", "Member must have length greater than or equal to 1")
	}
	for i, r := range in.ReplicaUpdates {
		p := fmt.Sprintf("replicaUpdates.%d.member", i+1)
		if r.RegionName == nil {
			v.Null(p + ".regionName")
		}
		for j, g := range r.ReplicaGlobalSecondaryIndexUpdates {
			q := fmt.Sprintf("%s.replicaGlobalSecondaryIndexUpdates.%d.member", p, j+1)
			v.Name(q+".indexName", g.IndexName, false)
			settings(&v, q+".provisionedReadCapacityAutoScalingUpdate", g.ProvisionedReadCapacityAutoScalingUpdate)
		}
		settings(&v, p+".replicaProvisionedReadCapacityAutoScalingUpdate", r.ReplicaProvisionedReadCapacityAutoScalingUpdate)
	}
	return v.Err()
}

// settings checks one AutoScalingSettingsUpdate's members.
func settings(v *shape.Violations, p string, s *api.AutoScalingSettingsUpdate) {
	if s == nil {
		return
	}
	v.Min(p+".minimumUnits", s.MinimumUnits, 1)
	v.Min(p+".maximumUnits", s.MaximumUnits, 1)
	if s.AutoScalingRoleArn != nil {
		v.Length(p+".autoScalingRoleArn", *s.AutoScalingRoleArn, 1, 1600)
	}
	if u := s.ScalingPolicyUpdate; u != nil {
		if u.PolicyName != nil {
			v.Length(p+".scalingPolicyUpdate.policyName", *u.PolicyName, 1, 256)
		}
		c := u.TargetTrackingScalingPolicyConfiguration
		switch {
		case c == nil:
			v.Null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration")
		case c.TargetValue == nil:
			v.Null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration.targetValue")
		}
	}
}

// autoScalePass is one pass of the auto scaling worker (registered in
// New).
func (e *Engine) autoScalePass(ctx context.Context) {
	if _, err := e.AutoScale(ctx); err != nil && ctx.Err() == nil {
		e.log.Warn().Err(err).Msg("auto scaling pass failed")
	}
}

// AutoScale runs one auto scaling pass at the engine clock's now and
// returns how many capacities it changed. The worker calls it every
// AutoScaleInterval; tests call it directly.
func (e *Engine) AutoScale(ctx context.Context) (int, error) {
	period := e.opts.AutoScaleDatapoint
	if period <= 0 {
		period = time.Minute
	}
	return e.as.Pass(ctx, asCore{e}, period)
}

// asCore implements autoscale.Core.
type asCore struct{ e *Engine }

func (c asCore) Now() time.Time       { return c.e.now() }
func (c asCore) Log() *zerolog.Logger { return &c.e.log }

func (c asCore) Group(ns api.Namespace, name string) (autoscale.Group, error) {
	e := c.e
	now := e.now()
	e.rlockCatalog()
	defer e.mu.RUnlock()
	t := e.lookup(ns, name, now)
	if t == nil {
		return autoscale.Group{}, api.TableNotFound(name)
	}
	return e.scalingGroup(t, now), nil
}

func (c asCore) Change(ns api.Namespace, name string, change func([]*autoscale.Table) error) (autoscale.Group, error) {
	e := c.e
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(ns, name, now)
	if t == nil {
		return autoscale.Group{}, api.TableNotFound(name)
	}
	if s := t.status(now); s != statusActive {
		return autoscale.Group{}, inUse(t, s)
	}
	members := e.scalingMembers(t, now)
	views := make([]*autoscale.Table, len(members))
	for i, m := range members {
		views[i] = scalingView(m, m.status(now), now)
	}
	if err := change(views); err != nil {
		return autoscale.Group{}, err
	}
	b := e.opts.Store.NewBatch()
	for i, m := range members {
		setScaling(m, views[i], now)
		if err := putTable(b, m); err != nil {
			_ = b.Close()
			return autoscale.Group{}, internalError(err)
		}
	}
	if err := e.commit(b); err != nil {
		return autoscale.Group{}, internalError(err)
	}
	for _, m := range members {
		e.cacheTable(m)
	}
	return e.scalingGroup(members[0], now), nil
}

// scalingMembers returns clones of every live member of t's group that an
// update may touch, t's own first (t alone without replicas). The caller
// holds e.mu.
func (e *Engine) scalingMembers(t *tableMeta, now time.Time) []*tableMeta {
	out := []*tableMeta{t.clone()}
	for _, r := range t.replicas(now) {
		if r.Deleting {
			continue
		}
		if m := e.liveMember(t, r, now); m != nil {
			out = append(out, m.clone())
		}
	}
	return out
}

// scalingGroup is t and the other members of its group as auto scaling
// describes them. The caller holds e.mu.
func (e *Engine) scalingGroup(t *tableMeta, now time.Time) autoscale.Group {
	g := autoscale.Group{Table: scalingView(t, t.status(now), now)}
	for _, r := range t.replicas(now) {
		rg := autoscale.Replica{Region: r.Region, Status: r.Status(now)}
		if m := e.lookup(api.Namespace{Account: t.Account, Region: r.Region}, t.Name, now); m != nil && m.ID == keyspace.TableID(r.ID) {
			rg.Table = scalingView(m, rg.Status, now)
		}
		g.Replicas = append(g.Replicas, rg)
	}
	return g
}

// scalingView is what auto scaling sees of m, with status as its status:
// its settings and those of its GSIs whose deletion has not completed.
func scalingView(m *tableMeta, status string, now time.Time) *autoscale.Table {
	v := &autoscale.Table{Account: m.Account, Region: m.Region, Name: m.Name, Status: status,
		PayPerRequest: m.BillingMode == billingPayPerRequest, Scaling: m.Scaling}
	for _, ix := range m.GSIs {
		if ix.gone(now) {
			continue
		}
		v.GSIs = append(v.GSIs, &autoscale.Index{Name: ix.Name, Status: ix.status(now), Deleted: ix.Deleted, Scaling: ix.Scaling})
	}
	return v
}

// setScaling stores v's settings (scalingView's of m at now) on m.
func setScaling(m *tableMeta, v *autoscale.Table, now time.Time) {
	m.Scaling = v.Scaling
	i := 0
	for _, ix := range m.GSIs {
		if ix.gone(now) {
			continue
		}
		ix.Scaling = v.GSIs[i].Scaling
		i++
	}
}

func (c asCore) Capacities(now time.Time) []autoscale.Capacity {
	e := c.e
	var out []autoscale.Capacity
	e.rlockCatalog()
	for ns, m := range e.tables {
		for _, t := range m {
			if t.BillingMode == billingPayPerRequest || t.thr == nil || t.status(now) != statusActive {
				continue
			}
			if t.Scaling != nil {
				out = append(out, autoscale.Capacity{NS: ns, Table: t.Name, ID: t.ID, Scaling: t.Scaling, Src: t.thr, Read: t.Throughput.Read, Write: t.Throughput.Write})
			}
			for _, ix := range t.GSIs {
				if ix.thr != nil && ix.status(now) == statusActive && ix.Scaling != nil {
					out = append(out, autoscale.Capacity{NS: ns, Table: t.Name, Index: ix.Name, ID: t.ID, Scaling: ix.Scaling, Src: ix.thr, Read: ix.Throughput.Read, Write: ix.Throughput.Write})
				}
			}
		}
	}
	e.mu.RUnlock()
	return out
}

func (c asCore) SetThroughput(ctx context.Context, ns api.Namespace, table, index string, read, write int64) error {
	pt := &api.ProvisionedThroughput{ReadCapacityUnits: refOf(read), WriteCapacityUnits: refOf(write)}
	in := &api.UpdateTableInput{TableName: refOf(table)}
	if index == "" {
		in.ProvisionedThroughput = pt
	} else {
		in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{{Update: &api.UpdateGlobalSecondaryIndexAction{IndexName: refOf(index), ProvisionedThroughput: pt}}}
	}
	_, err := c.e.UpdateTable(ctx, ns, in)
	return err
}
