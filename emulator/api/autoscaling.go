package api

// Request and response types of DescribeTableReplicaAutoScaling and
// UpdateTableReplicaAutoScaling (JSON tags as on the wire). Kept apart from
// tables.go so the auto scaling pieces read together.

// DescribeTableReplicaAutoScalingInput is DescribeTableReplicaAutoScaling's request.
type DescribeTableReplicaAutoScalingInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// DescribeTableReplicaAutoScalingOutput is DescribeTableReplicaAutoScaling's response.
type DescribeTableReplicaAutoScalingOutput struct {
	TableAutoScalingDescription *TableAutoScalingDescription `json:"TableAutoScalingDescription,omitempty"`
}

// UpdateTableReplicaAutoScalingInput is UpdateTableReplicaAutoScaling's request.
type UpdateTableReplicaAutoScalingInput struct {
	TableName                                 *string                                 `json:"TableName,omitempty"`
	ProvisionedWriteCapacityAutoScalingUpdate *AutoScalingSettingsUpdate              `json:"ProvisionedWriteCapacityAutoScalingUpdate,omitempty"`
	GlobalSecondaryIndexUpdates               []GlobalSecondaryIndexAutoScalingUpdate `json:"GlobalSecondaryIndexUpdates,omitempty"`
	ReplicaUpdates                            []ReplicaAutoScalingUpdate              `json:"ReplicaUpdates,omitempty"`
}

// UpdateTableReplicaAutoScalingOutput is UpdateTableReplicaAutoScaling's response.
type UpdateTableReplicaAutoScalingOutput struct {
	TableAutoScalingDescription *TableAutoScalingDescription `json:"TableAutoScalingDescription,omitempty"`
}

// GlobalSecondaryIndexAutoScalingUpdate changes a GSI's write auto scaling
// (global: every replica's index).
type GlobalSecondaryIndexAutoScalingUpdate struct {
	IndexName                                 *string                    `json:"IndexName,omitempty"`
	ProvisionedWriteCapacityAutoScalingUpdate *AutoScalingSettingsUpdate `json:"ProvisionedWriteCapacityAutoScalingUpdate,omitempty"`
}

// ReplicaAutoScalingUpdate changes one Region's read auto scaling.
type ReplicaAutoScalingUpdate struct {
	RegionName                                      *string                                        `json:"RegionName,omitempty"`
	ReplicaGlobalSecondaryIndexUpdates              []ReplicaGlobalSecondaryIndexAutoScalingUpdate `json:"ReplicaGlobalSecondaryIndexUpdates,omitempty"`
	ReplicaProvisionedReadCapacityAutoScalingUpdate *AutoScalingSettingsUpdate                     `json:"ReplicaProvisionedReadCapacityAutoScalingUpdate,omitempty"`
}

// ReplicaGlobalSecondaryIndexAutoScalingUpdate changes one Region's read
// auto scaling of a GSI.
type ReplicaGlobalSecondaryIndexAutoScalingUpdate struct {
	IndexName                                *string                    `json:"IndexName,omitempty"`
	ProvisionedReadCapacityAutoScalingUpdate *AutoScalingSettingsUpdate `json:"ProvisionedReadCapacityAutoScalingUpdate,omitempty"`
}

// AutoScalingSettingsUpdate is the scalable target and target-tracking
// policy of one capacity.
type AutoScalingSettingsUpdate struct {
	MinimumUnits        *int64                   `json:"MinimumUnits,omitempty"`
	MaximumUnits        *int64                   `json:"MaximumUnits,omitempty"`
	AutoScalingDisabled *bool                    `json:"AutoScalingDisabled,omitempty"`
	AutoScalingRoleArn  *string                  `json:"AutoScalingRoleArn,omitempty"`
	ScalingPolicyUpdate *AutoScalingPolicyUpdate `json:"ScalingPolicyUpdate,omitempty"`
}

// AutoScalingPolicyUpdate is a target-tracking scaling policy.
type AutoScalingPolicyUpdate struct {
	PolicyName                               *string                                              `json:"PolicyName,omitempty"`
	TargetTrackingScalingPolicyConfiguration *AutoScalingTargetTrackingScalingPolicyConfiguration `json:"TargetTrackingScalingPolicyConfiguration,omitempty"`
}

// AutoScalingTargetTrackingScalingPolicyConfiguration is a target-tracking
// policy's configuration, in requests and descriptions alike.
type AutoScalingTargetTrackingScalingPolicyConfiguration struct {
	DisableScaleIn   *bool    `json:"DisableScaleIn,omitempty"`
	ScaleInCooldown  *int32   `json:"ScaleInCooldown,omitempty"`
	ScaleOutCooldown *int32   `json:"ScaleOutCooldown,omitempty"`
	TargetValue      *float64 `json:"TargetValue,omitempty"`
}

// TableAutoScalingDescription is a table's auto scaling in every Region of
// its global table.
type TableAutoScalingDescription struct {
	TableName   string                          `json:"TableName"`
	TableStatus string                          `json:"TableStatus"`
	Replicas    []ReplicaAutoScalingDescription `json:"Replicas"`
}

// ReplicaAutoScalingDescription is one Region's auto scaling.
type ReplicaAutoScalingDescription struct {
	RegionName                                         string                                              `json:"RegionName"`
	GlobalSecondaryIndexes                             []ReplicaGlobalSecondaryIndexAutoScalingDescription `json:"GlobalSecondaryIndexes"`
	ReplicaProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription                     `json:"ReplicaProvisionedReadCapacityAutoScalingSettings,omitempty"`
	ReplicaProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription                     `json:"ReplicaProvisionedWriteCapacityAutoScalingSettings,omitempty"`
	ReplicaStatus                                      string                                              `json:"ReplicaStatus"`
}

// ReplicaGlobalSecondaryIndexAutoScalingDescription is one Region's auto
// scaling of a GSI.
type ReplicaGlobalSecondaryIndexAutoScalingDescription struct {
	IndexName                                   string                          `json:"IndexName"`
	IndexStatus                                 string                          `json:"IndexStatus"`
	ProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription `json:"ProvisionedReadCapacityAutoScalingSettings,omitempty"`
	ProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription `json:"ProvisionedWriteCapacityAutoScalingSettings,omitempty"`
}

// AutoScalingSettingsDescription is one capacity's auto scaling.
type AutoScalingSettingsDescription struct {
	MinimumUnits        *int64                         `json:"MinimumUnits,omitempty"`
	MaximumUnits        *int64                         `json:"MaximumUnits,omitempty"`
	AutoScalingDisabled *bool                          `json:"AutoScalingDisabled,omitempty"`
	AutoScalingRoleArn  string                         `json:"AutoScalingRoleArn,omitempty"`
	ScalingPolicies     []AutoScalingPolicyDescription `json:"ScalingPolicies,omitempty"`
}

// AutoScalingPolicyDescription is a scaling policy as described.
type AutoScalingPolicyDescription struct {
	PolicyName                               string                                               `json:"PolicyName"`
	TargetTrackingScalingPolicyConfiguration *AutoScalingTargetTrackingScalingPolicyConfiguration `json:"TargetTrackingScalingPolicyConfiguration"`
}
