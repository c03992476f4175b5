package api

// Global tables version 2017.11.29 (legacy); the engine's side is
// emulator/globaltable_legacy.go.

// GlobalTableReplica is a member of a legacy ReplicationGroup in requests
// and in ListGlobalTables ("Replica" in the model).
type GlobalTableReplica struct {
	RegionName *string `json:"RegionName,omitempty"`
}

type CreateGlobalTableInput struct {
	GlobalTableName  *string              `json:"GlobalTableName"`
	ReplicationGroup []GlobalTableReplica `json:"ReplicationGroup"`
}

type CreateGlobalTableOutput struct {
	GlobalTableDescription *GlobalTableDescription `json:"GlobalTableDescription,omitempty"`
}

// GlobalTableDescription describes a legacy global table.
type GlobalTableDescription struct {
	ReplicationGroup  []ReplicaDescription `json:"ReplicationGroup"`
	GlobalTableArn    string               `json:"GlobalTableArn,omitempty"`
	CreationDateTime  *float64             `json:"CreationDateTime,omitempty"`
	GlobalTableStatus string               `json:"GlobalTableStatus,omitempty"`
	GlobalTableName   string               `json:"GlobalTableName,omitempty"`
}

type DescribeGlobalTableInput struct {
	GlobalTableName *string `json:"GlobalTableName"`
}

type DescribeGlobalTableOutput struct {
	GlobalTableDescription *GlobalTableDescription `json:"GlobalTableDescription,omitempty"`
}

// GlobalTableReplicaUpdate is one entry of UpdateGlobalTable's
// ReplicaUpdates ("ReplicaUpdate" in the model).
type GlobalTableReplicaUpdate struct {
	Create *GlobalTableReplica `json:"Create,omitempty"`
	Delete *GlobalTableReplica `json:"Delete,omitempty"`
}

type UpdateGlobalTableInput struct {
	GlobalTableName *string                    `json:"GlobalTableName"`
	ReplicaUpdates  []GlobalTableReplicaUpdate `json:"ReplicaUpdates"`
}

type UpdateGlobalTableOutput struct {
	GlobalTableDescription *GlobalTableDescription `json:"GlobalTableDescription,omitempty"`
}

type ListGlobalTablesInput struct {
	ExclusiveStartGlobalTableName *string `json:"ExclusiveStartGlobalTableName,omitempty"`
	Limit                         *int64  `json:"Limit,omitempty"`
	RegionName                    *string `json:"RegionName,omitempty"`
}

// GlobalTable is one entry of ListGlobalTables.
type GlobalTable struct {
	GlobalTableName  string               `json:"GlobalTableName,omitempty"`
	ReplicationGroup []GlobalTableReplica `json:"ReplicationGroup"`
}

type ListGlobalTablesOutput struct {
	// GlobalTables is [] rather than absent when empty, as DynamoDB answers.
	GlobalTables                 []GlobalTable `json:"GlobalTables"`
	LastEvaluatedGlobalTableName string        `json:"LastEvaluatedGlobalTableName,omitempty"`
}

type DescribeGlobalTableSettingsInput struct {
	GlobalTableName *string `json:"GlobalTableName"`
}

// ReplicaGlobalSecondaryIndexSettingsDescription is one index of a
// replica's settings.
type ReplicaGlobalSecondaryIndexSettingsDescription struct {
	IndexName                                   string                          `json:"IndexName"`
	IndexStatus                                 string                          `json:"IndexStatus,omitempty"`
	ProvisionedReadCapacityUnits                *int64                          `json:"ProvisionedReadCapacityUnits,omitempty"`
	ProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription `json:"ProvisionedReadCapacityAutoScalingSettings,omitempty"`
	ProvisionedWriteCapacityUnits               *int64                          `json:"ProvisionedWriteCapacityUnits,omitempty"`
	ProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription `json:"ProvisionedWriteCapacityAutoScalingSettings,omitempty"`
}

// ReplicaSettingsDescription is one Region of a legacy global table's
// settings.
type ReplicaSettingsDescription struct {
	RegionName                                         string                                           `json:"RegionName"`
	ReplicaStatus                                      string                                           `json:"ReplicaStatus,omitempty"`
	ReplicaBillingModeSummary                          *BillingModeSummary                              `json:"ReplicaBillingModeSummary,omitempty"`
	ReplicaProvisionedReadCapacityUnits                *int64                                           `json:"ReplicaProvisionedReadCapacityUnits,omitempty"`
	ReplicaProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription                  `json:"ReplicaProvisionedReadCapacityAutoScalingSettings,omitempty"`
	ReplicaProvisionedWriteCapacityUnits               *int64                                           `json:"ReplicaProvisionedWriteCapacityUnits,omitempty"`
	ReplicaProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription                  `json:"ReplicaProvisionedWriteCapacityAutoScalingSettings,omitempty"`
	ReplicaGlobalSecondaryIndexSettings                []ReplicaGlobalSecondaryIndexSettingsDescription `json:"ReplicaGlobalSecondaryIndexSettings,omitempty"`
	ReplicaTableClassSummary                           *TableClassSummary                               `json:"ReplicaTableClassSummary,omitempty"`
}

type DescribeGlobalTableSettingsOutput struct {
	GlobalTableName string                       `json:"GlobalTableName,omitempty"`
	ReplicaSettings []ReplicaSettingsDescription `json:"ReplicaSettings,omitempty"`
}

type GlobalTableGlobalSecondaryIndexSettingsUpdate struct {
	IndexName                                         *string                    `json:"IndexName,omitempty"`
	ProvisionedWriteCapacityUnits                     *int64                     `json:"ProvisionedWriteCapacityUnits,omitempty"`
	ProvisionedWriteCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate `json:"ProvisionedWriteCapacityAutoScalingSettingsUpdate,omitempty"`
}

type ReplicaGlobalSecondaryIndexSettingsUpdate struct {
	IndexName                                        *string                    `json:"IndexName,omitempty"`
	ProvisionedReadCapacityUnits                     *int64                     `json:"ProvisionedReadCapacityUnits,omitempty"`
	ProvisionedReadCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate `json:"ProvisionedReadCapacityAutoScalingSettingsUpdate,omitempty"`
}

type ReplicaSettingsUpdate struct {
	RegionName                                              *string                                     `json:"RegionName,omitempty"`
	ReplicaProvisionedReadCapacityUnits                     *int64                                      `json:"ReplicaProvisionedReadCapacityUnits,omitempty"`
	ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate                  `json:"ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate,omitempty"`
	ReplicaGlobalSecondaryIndexSettingsUpdate               []ReplicaGlobalSecondaryIndexSettingsUpdate `json:"ReplicaGlobalSecondaryIndexSettingsUpdate,omitempty"`
	ReplicaTableClass                                       *string                                     `json:"ReplicaTableClass,omitempty"`
}

type UpdateGlobalTableSettingsInput struct {
	GlobalTableName                                              *string                                         `json:"GlobalTableName"`
	GlobalTableBillingMode                                       *string                                         `json:"GlobalTableBillingMode,omitempty"`
	GlobalTableProvisionedWriteCapacityUnits                     *int64                                          `json:"GlobalTableProvisionedWriteCapacityUnits,omitempty"`
	GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate                      `json:"GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate,omitempty"`
	GlobalTableGlobalSecondaryIndexSettingsUpdate                []GlobalTableGlobalSecondaryIndexSettingsUpdate `json:"GlobalTableGlobalSecondaryIndexSettingsUpdate,omitempty"`
	ReplicaSettingsUpdate                                        []ReplicaSettingsUpdate                         `json:"ReplicaSettingsUpdate,omitempty"`
}

type UpdateGlobalTableSettingsOutput = DescribeGlobalTableSettingsOutput
