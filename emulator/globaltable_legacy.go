package emulator

// Global tables version 2017.11.29 (legacy): CreateGlobalTable,
// DescribeGlobalTable, UpdateGlobalTable, ListGlobalTables and
// Describe/UpdateGlobalTableSettings (Developer Guide, "Global tables
// version 2017.11.29 (Legacy)"). The engine checks the requests' shapes, as
// for every operation, and hands them to emulator/internal/globaltables
// through gtCore (globaltables_core.go).

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// --- validation, in the model's order of members ---

func validateGlobalTableName(v *shape.Violations, name *string) {
	v.Name("globalTableName", name, true)
}

func validateCreateGlobalTable(in *api.CreateGlobalTableInput) error {
	var v shape.Violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if in.ReplicationGroup == nil {
		v.Null("replicationGroup")
	}
	return v.Err()
}

func validateUpdateGlobalTable(in *api.UpdateGlobalTableInput) error {
	var v shape.Violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if in.ReplicaUpdates == nil {
		v.Null("replicaUpdates")
	}
	for i, u := range in.ReplicaUpdates {
		p := fmt.Sprintf("replicaUpdates.%d.member", i+1)
		if u.Create != nil && u.Create.RegionName == nil {
			v.Null(p + ".create.regionName")
		}
		if u.Delete != nil && u.Delete.RegionName == nil {
			v.Null(p + ".delete.regionName")
		}
	}
	return v.Err()
}

func validateListGlobalTables(in *api.ListGlobalTablesInput) error {
	var v shape.Violations
	v.Name("exclusiveStartGlobalTableName", in.ExclusiveStartGlobalTableName, false)
	v.Min("limit", in.Limit, 1)
	return v.Err()
}

func validateAutoScalingUpdate(v *shape.Violations, p string, a *api.AutoScalingSettingsUpdate) {
	if a == nil {
		return
	}
	v.Min(p+".minimumUnits", a.MinimumUnits, 1)
	v.Min(p+".maximumUnits", a.MaximumUnits, 1)
	if a.AutoScalingRoleArn != nil {
		v.Length(p+".autoScalingRoleArn", *a.AutoScalingRoleArn, 1, 1600)
	}
	if s := a.ScalingPolicyUpdate; s != nil {
		if s.PolicyName != nil {
			v.Length(p+".scalingPolicyUpdate.policyName", *s.PolicyName, 1, 256)
		}
		if c := s.TargetTrackingScalingPolicyConfiguration; c == nil {
			v.Null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration")
		} else if c.TargetValue == nil {
			v.Null(p + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration.targetValue")
		}
	}
}

func validateUpdateGlobalTableSettings(in *api.UpdateGlobalTableSettingsInput) error {
	var v shape.Violations
	validateGlobalTableName(&v, in.GlobalTableName)
	v.Enum("globalTableBillingMode", in.GlobalTableBillingMode, billingProvisioned, billingPayPerRequest)
	v.Min("globalTableProvisionedWriteCapacityUnits", in.GlobalTableProvisionedWriteCapacityUnits, 1)
	validateAutoScalingUpdate(&v, "globalTableProvisionedWriteCapacityAutoScalingSettingsUpdate", in.GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate)
	if g := in.GlobalTableGlobalSecondaryIndexSettingsUpdate; g != nil && (len(g) < 1 || len(g) > 20) {
		c := "Member must have length greater than or equal to 1"
		if len(g) > 20 {
			c = "Member must have length less than or equal to 20"
		}
		v.AddUnquoted("globalTableGlobalSecondaryIndexSettingsUpdate", c)
	}
	for i, g := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		p := fmt.Sprintf("globalTableGlobalSecondaryIndexSettingsUpdate.%d.member", i+1)
		v.Name(p+".indexName", g.IndexName, true)
		v.Min(p+".provisionedWriteCapacityUnits", g.ProvisionedWriteCapacityUnits, 1)
		validateAutoScalingUpdate(&v, p+".provisionedWriteCapacityAutoScalingSettingsUpdate", g.ProvisionedWriteCapacityAutoScalingSettingsUpdate)
	}
	if r := in.ReplicaSettingsUpdate; r != nil && (len(r) < 1 || len(r) > 50) {
		c := "Member must have length greater than or equal to 1"
		if len(r) > 50 {
			c = "Member must have length less than or equal to 50"
		}
		v.AddUnquoted("replicaSettingsUpdate", c)
	}
	for i, r := range in.ReplicaSettingsUpdate {
		p := fmt.Sprintf("replicaSettingsUpdate.%d.member", i+1)
		if r.RegionName == nil {
			v.Null(p + ".regionName")
		}
		v.Min(p+".replicaProvisionedReadCapacityUnits", r.ReplicaProvisionedReadCapacityUnits, 1)
		validateAutoScalingUpdate(&v, p+".replicaProvisionedReadCapacityAutoScalingSettingsUpdate", r.ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate)
		if g := r.ReplicaGlobalSecondaryIndexSettingsUpdate; g != nil && (len(g) < 1 || len(g) > 20) {
			c := "Member must have length greater than or equal to 1"
			if len(g) > 20 {
				c = "Member must have length less than or equal to 20"
			}
			v.AddUnquoted(p+".replicaGlobalSecondaryIndexSettingsUpdate", c)
		}
		for j, g := range r.ReplicaGlobalSecondaryIndexSettingsUpdate {
			gp := fmt.Sprintf("%s.replicaGlobalSecondaryIndexSettingsUpdate.%d.member", p, j+1)
			v.Name(gp+".indexName", g.IndexName, true)
			v.Min(gp+".provisionedReadCapacityUnits", g.ProvisionedReadCapacityUnits, 1)
			validateAutoScalingUpdate(&v, gp+".provisionedReadCapacityAutoScalingSettingsUpdate", g.ProvisionedReadCapacityAutoScalingSettingsUpdate)
		}
		v.Enum(p+".replicaTableClass", r.ReplicaTableClass, classStandard, classIA)
	}
	return v.Err()
}

// --- the operations ---

// CreateGlobalTable links existing empty tables of the same name in the
// ReplicationGroup's Regions into a legacy global table.
func (e *Engine) CreateGlobalTable(ctx context.Context, ns api.Namespace, in *api.CreateGlobalTableInput) (*api.CreateGlobalTableOutput, error) {
	if err := validateCreateGlobalTable(in); err != nil {
		return nil, err
	}
	return globaltables.CreateGlobalTable(ctx, (*gtCore)(e), ns, in)
}

// DescribeGlobalTable describes a legacy global table.
func (e *Engine) DescribeGlobalTable(ctx context.Context, ns api.Namespace, in *api.DescribeGlobalTableInput) (*api.DescribeGlobalTableOutput, error) {
	var v shape.Violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return globaltables.DescribeGlobalTable(ctx, (*gtCore)(e), ns, in)
}

// UpdateGlobalTable adds empty tables to a legacy global table or removes
// members from it (a removed member keeps its table and items).
func (e *Engine) UpdateGlobalTable(ctx context.Context, ns api.Namespace, in *api.UpdateGlobalTableInput) (*api.UpdateGlobalTableOutput, error) {
	if err := validateUpdateGlobalTable(in); err != nil {
		return nil, err
	}
	return globaltables.UpdateGlobalTable(ctx, (*gtCore)(e), ns, in)
}

// ListGlobalTables lists the account's legacy global tables by name, a
// page at a time, optionally only those with a member in RegionName.
func (e *Engine) ListGlobalTables(ctx context.Context, ns api.Namespace, in *api.ListGlobalTablesInput) (*api.ListGlobalTablesOutput, error) {
	if in == nil {
		in = &api.ListGlobalTablesInput{}
	}
	if err := validateListGlobalTables(in); err != nil {
		return nil, err
	}
	return globaltables.ListGlobalTables(ctx, (*gtCore)(e), ns, in)
}

// DescribeGlobalTableSettings reports each member's capacity settings.
func (e *Engine) DescribeGlobalTableSettings(ctx context.Context, ns api.Namespace, in *api.DescribeGlobalTableSettingsInput) (*api.DescribeGlobalTableSettingsOutput, error) {
	var v shape.Violations
	validateGlobalTableName(&v, in.GlobalTableName)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return globaltables.DescribeGlobalTableSettings(ctx, (*gtCore)(e), ns, in)
}

// UpdateGlobalTableSettings changes the billing mode and write capacity of
// every member and the read capacity and table class of some, through
// each member's UpdateTable. Auto scaling is not emulated: its updates are
// refused.
func (e *Engine) UpdateGlobalTableSettings(ctx context.Context, ns api.Namespace, in *api.UpdateGlobalTableSettingsInput) (*api.UpdateGlobalTableSettingsOutput, error) {
	if err := validateUpdateGlobalTableSettings(in); err != nil {
		return nil, err
	}
	return globaltables.UpdateGlobalTableSettings(ctx, (*gtCore)(e), ns, in)
}
