package api

// Control-plane request and response shapes. Field names and JSON keys are
// DynamoDB's (awsJson1_0 uses the member name as the key). Inputs use
// pointers for scalars so validation can tell "absent" from "zero", as
// DynamoDB's messages do ("Value null at 'tableName'…"). Timestamps are epoch
// seconds.

// AttributeDefinition declares a key attribute's type.
type AttributeDefinition struct {
	AttributeName *string `json:"AttributeName,omitempty"`
	AttributeType *string `json:"AttributeType,omitempty"`
}

// KeySchemaElement is one key attribute and its role (HASH or RANGE).
type KeySchemaElement struct {
	AttributeName *string `json:"AttributeName,omitempty"`
	KeyType       *string `json:"KeyType,omitempty"`
}

// ProvisionedThroughput is the requested RCU/WCU.
type ProvisionedThroughput struct {
	ReadCapacityUnits  *int64 `json:"ReadCapacityUnits,omitempty"`
	WriteCapacityUnits *int64 `json:"WriteCapacityUnits,omitempty"`
}

// OnDemandThroughput caps an on-demand table or index. -1 means no cap.
type OnDemandThroughput struct {
	MaxReadRequestUnits  *int64 `json:"MaxReadRequestUnits,omitempty"`
	MaxWriteRequestUnits *int64 `json:"MaxWriteRequestUnits,omitempty"`
}

// WarmThroughput is the requested warm throughput.
type WarmThroughput struct {
	ReadUnitsPerSecond  *int64 `json:"ReadUnitsPerSecond,omitempty"`
	WriteUnitsPerSecond *int64 `json:"WriteUnitsPerSecond,omitempty"`
}

// Projection says which attributes an index holds.
type Projection struct {
	ProjectionType   *string  `json:"ProjectionType,omitempty"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

// GlobalSecondaryIndex is a GSI as CreateTable and UpdateTable(Create) give it.
type GlobalSecondaryIndex struct {
	IndexName             *string                `json:"IndexName,omitempty"`
	KeySchema             []KeySchemaElement     `json:"KeySchema,omitempty"`
	Projection            *Projection            `json:"Projection,omitempty"`
	ProvisionedThroughput *ProvisionedThroughput `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput    *OnDemandThroughput    `json:"OnDemandThroughput,omitempty"`
	WarmThroughput        *WarmThroughput        `json:"WarmThroughput,omitempty"`
}

// LocalSecondaryIndex is an LSI as CreateTable gives it.
type LocalSecondaryIndex struct {
	IndexName  *string            `json:"IndexName,omitempty"`
	KeySchema  []KeySchemaElement `json:"KeySchema,omitempty"`
	Projection *Projection        `json:"Projection,omitempty"`
}

// StreamSpecification enables a stream and chooses its view type.
type StreamSpecification struct {
	StreamEnabled  *bool   `json:"StreamEnabled,omitempty"`
	StreamViewType *string `json:"StreamViewType,omitempty"`
}

// SSESpecification chooses server-side encryption.
type SSESpecification struct {
	Enabled        *bool   `json:"Enabled,omitempty"`
	SSEType        *string `json:"SSEType,omitempty"`
	KMSMasterKeyId *string `json:"KMSMasterKeyId,omitempty"`
}

// Tag is a resource tag.
type Tag struct {
	Key   *string `json:"Key,omitempty"`
	Value *string `json:"Value,omitempty"`
}

// CreateTableInput is CreateTable's request.
type CreateTableInput struct {
	TableName                 *string                `json:"TableName,omitempty"`
	AttributeDefinitions      []AttributeDefinition  `json:"AttributeDefinitions,omitempty"`
	KeySchema                 []KeySchemaElement     `json:"KeySchema,omitempty"`
	BillingMode               *string                `json:"BillingMode,omitempty"`
	ProvisionedThroughput     *ProvisionedThroughput `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput        *OnDemandThroughput    `json:"OnDemandThroughput,omitempty"`
	WarmThroughput            *WarmThroughput        `json:"WarmThroughput,omitempty"`
	GlobalSecondaryIndexes    []GlobalSecondaryIndex `json:"GlobalSecondaryIndexes,omitempty"`
	LocalSecondaryIndexes     []LocalSecondaryIndex  `json:"LocalSecondaryIndexes,omitempty"`
	StreamSpecification       *StreamSpecification   `json:"StreamSpecification,omitempty"`
	SSESpecification          *SSESpecification      `json:"SSESpecification,omitempty"`
	Tags                      []Tag                  `json:"Tags,omitempty"`
	TableClass                *string                `json:"TableClass,omitempty"`
	DeletionProtectionEnabled *bool                  `json:"DeletionProtectionEnabled,omitempty"`
	ResourcePolicy            *string                `json:"ResourcePolicy,omitempty"`
	VectorIndexes             []VectorIndex          `json:"VectorIndexes,omitempty"`
}

// CreateTableOutput is CreateTable's response.
type CreateTableOutput struct {
	TableDescription *TableDescription `json:"TableDescription,omitempty"`
}

// ProvisionedThroughputDescription is the throughput DescribeTable reports.
// Both units are always present (0 for on-demand).
type ProvisionedThroughputDescription struct {
	LastIncreaseDateTime   *float64 `json:"LastIncreaseDateTime,omitempty"`
	LastDecreaseDateTime   *float64 `json:"LastDecreaseDateTime,omitempty"`
	NumberOfDecreasesToday int64    `json:"NumberOfDecreasesToday"`
	ReadCapacityUnits      int64    `json:"ReadCapacityUnits"`
	WriteCapacityUnits     int64    `json:"WriteCapacityUnits"`
}

// BillingModeSummary reports the billing mode.
type BillingModeSummary struct {
	BillingMode                       string   `json:"BillingMode,omitempty"`
	LastUpdateToPayPerRequestDateTime *float64 `json:"LastUpdateToPayPerRequestDateTime,omitempty"`
}

// TableWarmThroughputDescription reports a table's warm throughput.
type TableWarmThroughputDescription struct {
	ReadUnitsPerSecond  int64  `json:"ReadUnitsPerSecond"`
	WriteUnitsPerSecond int64  `json:"WriteUnitsPerSecond"`
	Status              string `json:"Status,omitempty"`
}

// GlobalSecondaryIndexWarmThroughputDescription reports a GSI's warm throughput.
type GlobalSecondaryIndexWarmThroughputDescription struct {
	ReadUnitsPerSecond  int64  `json:"ReadUnitsPerSecond"`
	WriteUnitsPerSecond int64  `json:"WriteUnitsPerSecond"`
	Status              string `json:"Status,omitempty"`
}

// DescribedKeySchemaElement is a key schema element in a description.
type DescribedKeySchemaElement struct {
	AttributeName string `json:"AttributeName"`
	KeyType       string `json:"KeyType"`
}

// DescribedAttributeDefinition is an attribute definition in a description.
type DescribedAttributeDefinition struct {
	AttributeName string `json:"AttributeName"`
	AttributeType string `json:"AttributeType"`
}

// DescribedProjection is a projection in a description.
type DescribedProjection struct {
	ProjectionType   string   `json:"ProjectionType"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

// OnDemandThroughputDescription reports caps (-1: none).
type OnDemandThroughputDescription struct {
	MaxReadRequestUnits  int64 `json:"MaxReadRequestUnits"`
	MaxWriteRequestUnits int64 `json:"MaxWriteRequestUnits"`
}

// GlobalSecondaryIndexDescription describes a GSI.
type GlobalSecondaryIndexDescription struct {
	IndexName             string                                         `json:"IndexName"`
	KeySchema             []DescribedKeySchemaElement                    `json:"KeySchema"`
	Projection            DescribedProjection                            `json:"Projection"`
	IndexStatus           string                                         `json:"IndexStatus"`
	Backfilling           *bool                                          `json:"Backfilling,omitempty"`
	ProvisionedThroughput ProvisionedThroughputDescription               `json:"ProvisionedThroughput"`
	OnDemandThroughput    *OnDemandThroughputDescription                 `json:"OnDemandThroughput,omitempty"`
	WarmThroughput        *GlobalSecondaryIndexWarmThroughputDescription `json:"WarmThroughput,omitempty"`
	IndexSizeBytes        int64                                          `json:"IndexSizeBytes"`
	ItemCount             int64                                          `json:"ItemCount"`
	IndexArn              string                                         `json:"IndexArn"`
}

// LocalSecondaryIndexDescription describes an LSI.
type LocalSecondaryIndexDescription struct {
	IndexName      string                      `json:"IndexName"`
	KeySchema      []DescribedKeySchemaElement `json:"KeySchema"`
	Projection     DescribedProjection         `json:"Projection"`
	IndexSizeBytes int64                       `json:"IndexSizeBytes"`
	ItemCount      int64                       `json:"ItemCount"`
	IndexArn       string                      `json:"IndexArn"`
}

// SSEDescription reports server-side encryption.
type SSEDescription struct {
	Status          string `json:"Status,omitempty"`
	SSEType         string `json:"SSEType,omitempty"`
	KMSMasterKeyArn string `json:"KMSMasterKeyArn,omitempty"`
}

// TableClassSummary reports the table class.
type TableClassSummary struct {
	TableClass         string   `json:"TableClass"`
	LastUpdateDateTime *float64 `json:"LastUpdateDateTime,omitempty"`
}

// DescribedStreamSpecification reports the stream settings.
type DescribedStreamSpecification struct {
	StreamEnabled  bool   `json:"StreamEnabled"`
	StreamViewType string `json:"StreamViewType,omitempty"`
}

// ReplicaDescription describes a global-table replica (another Region's
// member of the table's replication group).
type ReplicaDescription struct {
	RegionName                    string                            `json:"RegionName,omitempty"`
	ReplicaStatus                 string                            `json:"ReplicaStatus,omitempty"`
	ReplicaArn                    string                            `json:"ReplicaArn,omitempty"`
	KMSMasterKeyId                string                            `json:"KMSMasterKeyId,omitempty"`
	ProvisionedThroughputOverride *ProvisionedThroughputOverride    `json:"ProvisionedThroughputOverride,omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride       `json:"OnDemandThroughputOverride,omitempty"`
	GlobalSecondaryIndexes        []ReplicaGlobalSecondaryIndexDesc `json:"GlobalSecondaryIndexes,omitempty"`
	ReplicaTableClassSummary      *TableClassSummary                `json:"ReplicaTableClassSummary,omitempty"`
}

// ReplicaGlobalSecondaryIndexDesc is a replica's per-index overrides.
type ReplicaGlobalSecondaryIndexDesc struct {
	IndexName                     string                         `json:"IndexName"`
	ProvisionedThroughputOverride *ProvisionedThroughputOverride `json:"ProvisionedThroughputOverride,omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride    `json:"OnDemandThroughputOverride,omitempty"`
}

// ProvisionedThroughputOverride is a replica's read capacity.
type ProvisionedThroughputOverride struct {
	ReadCapacityUnits *int64 `json:"ReadCapacityUnits,omitempty"`
}

// OnDemandThroughputOverride is a replica's read request cap.
type OnDemandThroughputOverride struct {
	MaxReadRequestUnits *int64 `json:"MaxReadRequestUnits,omitempty"`
}

// TableDescription is the complete description DescribeTable returns.
type TableDescription struct {
	AttributeDefinitions      []DescribedAttributeDefinition    `json:"AttributeDefinitions,omitempty"`
	TableName                 string                            `json:"TableName"`
	KeySchema                 []DescribedKeySchemaElement       `json:"KeySchema,omitempty"`
	TableStatus               string                            `json:"TableStatus"`
	CreationDateTime          float64                           `json:"CreationDateTime,omitempty"`
	ProvisionedThroughput     ProvisionedThroughputDescription  `json:"ProvisionedThroughput"`
	TableSizeBytes            int64                             `json:"TableSizeBytes"`
	ItemCount                 int64                             `json:"ItemCount"`
	TableArn                  string                            `json:"TableArn"`
	TableId                   string                            `json:"TableId"`
	BillingModeSummary        *BillingModeSummary               `json:"BillingModeSummary,omitempty"`
	LocalSecondaryIndexes     []LocalSecondaryIndexDescription  `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes    []GlobalSecondaryIndexDescription `json:"GlobalSecondaryIndexes,omitempty"`
	StreamSpecification       *DescribedStreamSpecification     `json:"StreamSpecification,omitempty"`
	LatestStreamLabel         string                            `json:"LatestStreamLabel,omitempty"`
	LatestStreamArn           string                            `json:"LatestStreamArn,omitempty"`
	GlobalTableVersion        string                            `json:"GlobalTableVersion,omitempty"`
	Replicas                  []ReplicaDescription              `json:"Replicas,omitempty"`
	SSEDescription            *SSEDescription                   `json:"SSEDescription,omitempty"`
	TableClassSummary         *TableClassSummary                `json:"TableClassSummary,omitempty"`
	DeletionProtectionEnabled bool                              `json:"DeletionProtectionEnabled"`
	// DisassociationProtectionEnabled is set for a replica of a global
	// table version 2019.11.21 only.
	DisassociationProtectionEnabled *bool                           `json:"DisassociationProtectionEnabled,omitempty"`
	OnDemandThroughput              *OnDemandThroughputDescription  `json:"OnDemandThroughput,omitempty"`
	WarmThroughput                  *TableWarmThroughputDescription `json:"WarmThroughput,omitempty"`
	MultiRegionConsistency          string                          `json:"MultiRegionConsistency,omitempty"`
	RestoreSummary                  *RestoreSummary                 `json:"RestoreSummary,omitempty"`
	VectorIndexes                   []VectorIndexDescription        `json:"VectorIndexes,omitempty"`
}

// DescribeTableInput is DescribeTable's request.
type DescribeTableInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// DescribeTableOutput is DescribeTable's response.
type DescribeTableOutput struct {
	Table *TableDescription `json:"Table,omitempty"`
}

// ListTablesInput is ListTables' request.
type ListTablesInput struct {
	ExclusiveStartTableName *string `json:"ExclusiveStartTableName,omitempty"`
	Limit                   *int64  `json:"Limit,omitempty"`
}

// ListTablesOutput is ListTables' response. TableNames is always present.
type ListTablesOutput struct {
	TableNames             []string `json:"TableNames"`
	LastEvaluatedTableName string   `json:"LastEvaluatedTableName,omitempty"`
}

// DeleteTableInput is DeleteTable's request.
type DeleteTableInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// DeleteTableOutput is DeleteTable's response.
type DeleteTableOutput struct {
	TableDescription *TableDescription `json:"TableDescription,omitempty"`
}

// CreateGlobalSecondaryIndexAction adds a GSI in UpdateTable.
type CreateGlobalSecondaryIndexAction = GlobalSecondaryIndex

// UpdateGlobalSecondaryIndexAction changes a GSI's throughput.
type UpdateGlobalSecondaryIndexAction struct {
	IndexName             *string                `json:"IndexName,omitempty"`
	ProvisionedThroughput *ProvisionedThroughput `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput    *OnDemandThroughput    `json:"OnDemandThroughput,omitempty"`
	WarmThroughput        *WarmThroughput        `json:"WarmThroughput,omitempty"`
}

// DeleteGlobalSecondaryIndexAction removes a GSI.
type DeleteGlobalSecondaryIndexAction struct {
	IndexName *string `json:"IndexName,omitempty"`
}

// GlobalSecondaryIndexUpdate is one entry of GlobalSecondaryIndexUpdates;
// exactly one member must be set.
type GlobalSecondaryIndexUpdate struct {
	Create *CreateGlobalSecondaryIndexAction `json:"Create,omitempty"`
	Update *UpdateGlobalSecondaryIndexAction `json:"Update,omitempty"`
	Delete *DeleteGlobalSecondaryIndexAction `json:"Delete,omitempty"`
}

// ReplicationGroupUpdate is one entry of UpdateTable's ReplicaUpdates
// (global tables version 2019.11.21); exactly one member must be set.
type ReplicationGroupUpdate struct {
	Create *ReplicationGroupMemberAction       `json:"Create,omitempty"`
	Update *ReplicationGroupMemberAction       `json:"Update,omitempty"`
	Delete *DeleteReplicationGroupMemberAction `json:"Delete,omitempty"`
	// Disassociate keeps the local replica as a single-Region table; it
	// must be the only entry of ReplicaUpdates.
	Disassociate *DisassociateReplicationGroupMemberAction `json:"Disassociate,omitempty"`
}

// DisassociateReplicationGroupMemberAction is ReplicaUpdates' Disassociate:
// the local replica (RegionName is the Region the request is sent to)
// leaves its global table once what is queued for it is delivered
// (DisassociationMode WAIT_FOR_REPLICATION, the only mode).
type DisassociateReplicationGroupMemberAction struct {
	RegionName         *string `json:"RegionName,omitempty"`
	DisassociationMode *string `json:"DisassociationMode,omitempty"`
}

// ReplicationGroupMemberAction is a replica Create or Update (the model's
// CreateReplicationGroupMemberAction and UpdateReplicationGroupMemberAction
// have the same members).
type ReplicationGroupMemberAction struct {
	RegionName                    *string                        `json:"RegionName,omitempty"`
	KMSMasterKeyId                *string                        `json:"KMSMasterKeyId,omitempty"`
	ProvisionedThroughputOverride *ProvisionedThroughputOverride `json:"ProvisionedThroughputOverride,omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride    `json:"OnDemandThroughputOverride,omitempty"`
	GlobalSecondaryIndexes        []ReplicaGlobalSecondaryIndex  `json:"GlobalSecondaryIndexes,omitempty"`
	TableClassOverride            *string                        `json:"TableClassOverride,omitempty"`
}

// ReplicaGlobalSecondaryIndex is a replica's override for one GSI.
type ReplicaGlobalSecondaryIndex struct {
	IndexName                     *string                        `json:"IndexName,omitempty"`
	ProvisionedThroughputOverride *ProvisionedThroughputOverride `json:"ProvisionedThroughputOverride,omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride    `json:"OnDemandThroughputOverride,omitempty"`
}

// DeleteReplicationGroupMemberAction removes a replica.
type DeleteReplicationGroupMemberAction struct {
	RegionName *string `json:"RegionName,omitempty"`
}

// GlobalTableWitnessGroupUpdate is one entry of GlobalTableWitnessUpdates
// (MRSC witnesses, not emulated: see docs/differences.md).
type GlobalTableWitnessGroupUpdate struct {
	Create *DeleteReplicationGroupMemberAction `json:"Create,omitempty"`
	Delete *DeleteReplicationGroupMemberAction `json:"Delete,omitempty"`
}

// UpdateTableInput is UpdateTable's request.
type UpdateTableInput struct {
	TableName                   *string                      `json:"TableName,omitempty"`
	AttributeDefinitions        []AttributeDefinition        `json:"AttributeDefinitions,omitempty"`
	BillingMode                 *string                      `json:"BillingMode,omitempty"`
	ProvisionedThroughput       *ProvisionedThroughput       `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput          *OnDemandThroughput          `json:"OnDemandThroughput,omitempty"`
	WarmThroughput              *WarmThroughput              `json:"WarmThroughput,omitempty"`
	GlobalSecondaryIndexUpdates []GlobalSecondaryIndexUpdate `json:"GlobalSecondaryIndexUpdates,omitempty"`
	StreamSpecification         *StreamSpecification         `json:"StreamSpecification,omitempty"`
	SSESpecification            *SSESpecification            `json:"SSESpecification,omitempty"`
	ReplicaUpdates              []ReplicationGroupUpdate     `json:"ReplicaUpdates,omitempty"`
	TableClass                  *string                      `json:"TableClass,omitempty"`
	DeletionProtectionEnabled   *bool                        `json:"DeletionProtectionEnabled,omitempty"`
	// DisassociationProtectionEnabled is the local replica's protection
	// against Disassociate; alone in its request.
	DisassociationProtectionEnabled *bool                           `json:"DisassociationProtectionEnabled,omitempty"`
	MultiRegionConsistency          *string                         `json:"MultiRegionConsistency,omitempty"`
	GlobalTableWitnessUpdates       []GlobalTableWitnessGroupUpdate `json:"GlobalTableWitnessUpdates,omitempty"`
	VectorIndexUpdates              []VectorIndexUpdate             `json:"VectorIndexUpdates,omitempty"`
}

// UpdateTableOutput is UpdateTable's response.
type UpdateTableOutput struct {
	TableDescription *TableDescription `json:"TableDescription,omitempty"`
}
