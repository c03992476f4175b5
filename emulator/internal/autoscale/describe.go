package autoscale

import (
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
)

// describe describes the auto scaling of g's table in every Region of its
// group, the table's own first.
func describe(g Group) *api.TableAutoScalingDescription {
	t := g.Table
	d := &api.TableAutoScalingDescription{TableName: t.Name, TableStatus: t.Status, Replicas: []api.ReplicaAutoScalingDescription{}}
	d.Replicas = append(d.Replicas, describeReplica(t, t.Status))
	for _, r := range g.Replicas {
		if r.Table == nil {
			d.Replicas = append(d.Replicas, api.ReplicaAutoScalingDescription{RegionName: r.Region, ReplicaStatus: r.Status, GlobalSecondaryIndexes: []api.ReplicaGlobalSecondaryIndexAutoScalingDescription{}})
			continue
		}
		d.Replicas = append(d.Replicas, describeReplica(r.Table, r.Status))
	}
	return d
}

// describeReplica describes member m's auto scaling.
func describeReplica(m *Table, status string) api.ReplicaAutoScalingDescription {
	rd := api.ReplicaAutoScalingDescription{RegionName: m.Region, ReplicaStatus: status, GlobalSecondaryIndexes: []api.ReplicaGlobalSecondaryIndexAutoScalingDescription{}}
	provisioned := !m.PayPerRequest
	if sc := m.Scaling; sc != nil && provisioned {
		rd.ReplicaProvisionedReadCapacityAutoScalingSettings = describeSettings(m, sc.Read)
		rd.ReplicaProvisionedWriteCapacityAutoScalingSettings = describeSettings(m, sc.Write)
	}
	for _, ix := range m.GSIs {
		gd := api.ReplicaGlobalSecondaryIndexAutoScalingDescription{IndexName: ix.Name, IndexStatus: ix.Status}
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
func describeSettings(m *Table, s *Settings) *api.AutoScalingSettingsDescription {
	if s == nil {
		return nil
	}
	role := s.Role
	if role == "" {
		role = fmt.Sprintf("arn:%s:iam::%s:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable", api.Namespace{Account: m.Account, Region: m.Region}.Partition(), m.Account)
	}
	d := &api.AutoScalingSettingsDescription{MinimumUnits: ref(s.Min), MaximumUnits: ref(s.Max), AutoScalingRoleArn: role}
	if p := s.Policy; p != nil {
		d.ScalingPolicies = []api.AutoScalingPolicyDescription{{
			PolicyName: p.Name,
			TargetTrackingScalingPolicyConfiguration: &api.AutoScalingTargetTrackingScalingPolicyConfiguration{
				TargetValue: ref(p.Target), DisableScaleIn: p.NoScaleIn, ScaleInCooldown: p.InCooldown, ScaleOutCooldown: p.OutCooldown,
			},
		}}
	}
	return d
}

func ref[T any](v T) *T { return &v }
