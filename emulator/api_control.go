package emulator

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
	OnDemandThroughput        *OnDemandThroughputDescription    `json:"OnDemandThroughput,omitempty"`
	WarmThroughput            *TableWarmThroughputDescription   `json:"WarmThroughput,omitempty"`
	MultiRegionConsistency    string                            `json:"MultiRegionConsistency,omitempty"`
	RestoreSummary            *RestoreSummary                   `json:"RestoreSummary,omitempty"`
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
	TableName                   *string                         `json:"TableName,omitempty"`
	AttributeDefinitions        []AttributeDefinition           `json:"AttributeDefinitions,omitempty"`
	BillingMode                 *string                         `json:"BillingMode,omitempty"`
	ProvisionedThroughput       *ProvisionedThroughput          `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput          *OnDemandThroughput             `json:"OnDemandThroughput,omitempty"`
	WarmThroughput              *WarmThroughput                 `json:"WarmThroughput,omitempty"`
	GlobalSecondaryIndexUpdates []GlobalSecondaryIndexUpdate    `json:"GlobalSecondaryIndexUpdates,omitempty"`
	StreamSpecification         *StreamSpecification            `json:"StreamSpecification,omitempty"`
	SSESpecification            *SSESpecification               `json:"SSESpecification,omitempty"`
	ReplicaUpdates              []ReplicationGroupUpdate        `json:"ReplicaUpdates,omitempty"`
	TableClass                  *string                         `json:"TableClass,omitempty"`
	DeletionProtectionEnabled   *bool                           `json:"DeletionProtectionEnabled,omitempty"`
	MultiRegionConsistency      *string                         `json:"MultiRegionConsistency,omitempty"`
	GlobalTableWitnessUpdates   []GlobalTableWitnessGroupUpdate `json:"GlobalTableWitnessUpdates,omitempty"`
}

// UpdateTableOutput is UpdateTable's response.
type UpdateTableOutput struct {
	TableDescription *TableDescription `json:"TableDescription,omitempty"`
}

// TagResourceInput is TagResource's request.
type TagResourceInput struct {
	ResourceArn *string `json:"ResourceArn,omitempty"`
	Tags        []Tag   `json:"Tags,omitempty"`
}

// UntagResourceInput is UntagResource's request.
type UntagResourceInput struct {
	ResourceArn *string  `json:"ResourceArn,omitempty"`
	TagKeys     []string `json:"TagKeys,omitempty"`
}

// Empty is the response of operations that return no members.
type Empty struct{}

// ListTagsOfResourceInput is ListTagsOfResource's request.
type ListTagsOfResourceInput struct {
	ResourceArn *string `json:"ResourceArn,omitempty"`
	NextToken   *string `json:"NextToken,omitempty"`
}

// DescribedTag is a tag in ListTagsOfResource's response.
type DescribedTag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// ListTagsOfResourceOutput is ListTagsOfResource's response.
type ListTagsOfResourceOutput struct {
	Tags      []DescribedTag `json:"Tags"`
	NextToken string         `json:"NextToken,omitempty"`
}

// TimeToLiveSpecification is UpdateTimeToLive's setting.
type TimeToLiveSpecification struct {
	Enabled       *bool   `json:"Enabled,omitempty"`
	AttributeName *string `json:"AttributeName,omitempty"`
}

// UpdateTimeToLiveInput is UpdateTimeToLive's request.
type UpdateTimeToLiveInput struct {
	TableName               *string                  `json:"TableName,omitempty"`
	TimeToLiveSpecification *TimeToLiveSpecification `json:"TimeToLiveSpecification,omitempty"`
}

// DescribedTimeToLiveSpecification echoes the applied TTL setting.
type DescribedTimeToLiveSpecification struct {
	Enabled       bool   `json:"Enabled"`
	AttributeName string `json:"AttributeName"`
}

// UpdateTimeToLiveOutput is UpdateTimeToLive's response.
type UpdateTimeToLiveOutput struct {
	TimeToLiveSpecification *DescribedTimeToLiveSpecification `json:"TimeToLiveSpecification,omitempty"`
}

// DescribeTimeToLiveInput is DescribeTimeToLive's request.
type DescribeTimeToLiveInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// TimeToLiveDescription reports TTL status (DISABLED/ENABLING/ENABLED/DISABLING).
type TimeToLiveDescription struct {
	TimeToLiveStatus string `json:"TimeToLiveStatus"`
	AttributeName    string `json:"AttributeName,omitempty"`
}

// DescribeTimeToLiveOutput is DescribeTimeToLive's response.
type DescribeTimeToLiveOutput struct {
	TimeToLiveDescription *TimeToLiveDescription `json:"TimeToLiveDescription,omitempty"`
}

// PointInTimeRecoverySpecification is UpdateContinuousBackups' setting.
type PointInTimeRecoverySpecification struct {
	PointInTimeRecoveryEnabled *bool  `json:"PointInTimeRecoveryEnabled,omitempty"`
	RecoveryPeriodInDays       *int64 `json:"RecoveryPeriodInDays,omitempty"`
}

// UpdateContinuousBackupsInput is UpdateContinuousBackups' request.
type UpdateContinuousBackupsInput struct {
	TableName                        *string                           `json:"TableName,omitempty"`
	PointInTimeRecoverySpecification *PointInTimeRecoverySpecification `json:"PointInTimeRecoverySpecification,omitempty"`
}

// PointInTimeRecoveryDescription reports PITR.
type PointInTimeRecoveryDescription struct {
	PointInTimeRecoveryStatus  string   `json:"PointInTimeRecoveryStatus"`
	RecoveryPeriodInDays       *int64   `json:"RecoveryPeriodInDays,omitempty"`
	EarliestRestorableDateTime *float64 `json:"EarliestRestorableDateTime,omitempty"`
	LatestRestorableDateTime   *float64 `json:"LatestRestorableDateTime,omitempty"`
}

// ContinuousBackupsDescription reports continuous backups and PITR.
type ContinuousBackupsDescription struct {
	ContinuousBackupsStatus        string                          `json:"ContinuousBackupsStatus"`
	PointInTimeRecoveryDescription *PointInTimeRecoveryDescription `json:"PointInTimeRecoveryDescription,omitempty"`
}

// UpdateContinuousBackupsOutput is UpdateContinuousBackups' response.
type UpdateContinuousBackupsOutput struct {
	ContinuousBackupsDescription *ContinuousBackupsDescription `json:"ContinuousBackupsDescription,omitempty"`
}

// DescribeContinuousBackupsInput is DescribeContinuousBackups' request.
type DescribeContinuousBackupsInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// DescribeContinuousBackupsOutput is DescribeContinuousBackups' response.
type DescribeContinuousBackupsOutput = UpdateContinuousBackupsOutput

// DescribeLimitsOutput is DescribeLimits' response.
type DescribeLimitsOutput struct {
	AccountMaxReadCapacityUnits  int64 `json:"AccountMaxReadCapacityUnits"`
	AccountMaxWriteCapacityUnits int64 `json:"AccountMaxWriteCapacityUnits"`
	TableMaxReadCapacityUnits    int64 `json:"TableMaxReadCapacityUnits"`
	TableMaxWriteCapacityUnits   int64 `json:"TableMaxWriteCapacityUnits"`
}

// Endpoint is one entry of DescribeEndpoints.
type Endpoint struct {
	Address              string `json:"Address"`
	CachePeriodInMinutes int64  `json:"CachePeriodInMinutes"`
}

// DescribeEndpointsOutput is DescribeEndpoints' response.
type DescribeEndpointsOutput struct {
	Endpoints []Endpoint `json:"Endpoints"`
}

// PutResourcePolicyInput is PutResourcePolicy's request.
type PutResourcePolicyInput struct {
	ResourceArn                     *string `json:"ResourceArn,omitempty"`
	Policy                          *string `json:"Policy,omitempty"`
	ExpectedRevisionId              *string `json:"ExpectedRevisionId,omitempty"`
	ConfirmRemoveSelfResourceAccess *bool   `json:"ConfirmRemoveSelfResourceAccess,omitempty"`
}

// PutResourcePolicyOutput is PutResourcePolicy's response.
type PutResourcePolicyOutput struct {
	RevisionId string `json:"RevisionId,omitempty"`
}

// GetResourcePolicyInput is GetResourcePolicy's request.
type GetResourcePolicyInput struct {
	ResourceArn *string `json:"ResourceArn,omitempty"`
}

// GetResourcePolicyOutput is GetResourcePolicy's response.
type GetResourcePolicyOutput struct {
	Policy     string `json:"Policy,omitempty"`
	RevisionId string `json:"RevisionId,omitempty"`
}

// DeleteResourcePolicyInput is DeleteResourcePolicy's request.
type DeleteResourcePolicyInput struct {
	ResourceArn        *string `json:"ResourceArn,omitempty"`
	ExpectedRevisionId *string `json:"ExpectedRevisionId,omitempty"`
}

// DeleteResourcePolicyOutput is DeleteResourcePolicy's response; RevisionId
// is empty when the resource had no policy.
type DeleteResourcePolicyOutput struct {
	RevisionId string `json:"RevisionId,omitempty"`
}

// CreateBackupInput is CreateBackup's request.
type CreateBackupInput struct {
	TableName  *string `json:"TableName,omitempty"`
	BackupName *string `json:"BackupName,omitempty"`
}

// BackupDetails describes one backup.
type BackupDetails struct {
	BackupArn              string   `json:"BackupArn"`
	BackupName             string   `json:"BackupName"`
	BackupSizeBytes        *int64   `json:"BackupSizeBytes,omitempty"`
	BackupStatus           string   `json:"BackupStatus"`
	BackupType             string   `json:"BackupType"`
	BackupCreationDateTime float64  `json:"BackupCreationDateTime"`
	BackupExpiryDateTime   *float64 `json:"BackupExpiryDateTime,omitempty"`
}

// CreateBackupOutput is CreateBackup's response.
type CreateBackupOutput struct {
	BackupDetails *BackupDetails `json:"BackupDetails,omitempty"`
}

// SourceTableDetails is the source table as a backup recorded it.
type SourceTableDetails struct {
	TableName             string                         `json:"TableName"`
	TableId               string                         `json:"TableId"`
	TableArn              string                         `json:"TableArn,omitempty"`
	TableSizeBytes        int64                          `json:"TableSizeBytes"`
	KeySchema             []DescribedKeySchemaElement    `json:"KeySchema"`
	TableCreationDateTime float64                        `json:"TableCreationDateTime"`
	ProvisionedThroughput SourceProvisionedThroughput    `json:"ProvisionedThroughput"`
	OnDemandThroughput    *OnDemandThroughputDescription `json:"OnDemandThroughput,omitempty"`
	ItemCount             int64                          `json:"ItemCount"`
	BillingMode           string                         `json:"BillingMode,omitempty"`
}

// SourceProvisionedThroughput is a backup's record of the table's RCU/WCU
// (0/0 for on-demand).
type SourceProvisionedThroughput struct {
	ReadCapacityUnits  int64 `json:"ReadCapacityUnits"`
	WriteCapacityUnits int64 `json:"WriteCapacityUnits"`
}

// LocalSecondaryIndexInfo is an LSI as a backup recorded it.
type LocalSecondaryIndexInfo struct {
	IndexName  string                      `json:"IndexName"`
	KeySchema  []DescribedKeySchemaElement `json:"KeySchema"`
	Projection DescribedProjection         `json:"Projection"`
}

// GlobalSecondaryIndexInfo is a GSI as a backup recorded it.
type GlobalSecondaryIndexInfo struct {
	IndexName             string                         `json:"IndexName"`
	KeySchema             []DescribedKeySchemaElement    `json:"KeySchema"`
	Projection            DescribedProjection            `json:"Projection"`
	ProvisionedThroughput *SourceProvisionedThroughput   `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput    *OnDemandThroughputDescription `json:"OnDemandThroughput,omitempty"`
}

// SourceTableFeatureDetails is the source table's indexes, stream, TTL and
// encryption as a backup recorded them; {} for a plain table.
type SourceTableFeatureDetails struct {
	LocalSecondaryIndexes  []LocalSecondaryIndexInfo     `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes []GlobalSecondaryIndexInfo    `json:"GlobalSecondaryIndexes,omitempty"`
	StreamDescription      *DescribedStreamSpecification `json:"StreamDescription,omitempty"`
	TimeToLiveDescription  *TimeToLiveDescription        `json:"TimeToLiveDescription,omitempty"`
	SSEDescription         *SSEDescription               `json:"SSEDescription,omitempty"`
}

// BackupDescription is DescribeBackup's (and DeleteBackup's) description.
type BackupDescription struct {
	BackupDetails             *BackupDetails             `json:"BackupDetails,omitempty"`
	SourceTableDetails        *SourceTableDetails        `json:"SourceTableDetails,omitempty"`
	SourceTableFeatureDetails *SourceTableFeatureDetails `json:"SourceTableFeatureDetails,omitempty"`
}

// BackupArnInput is the request of DescribeBackup and DeleteBackup.
type BackupArnInput struct {
	BackupArn *string `json:"BackupArn,omitempty"`
}

// BackupDescriptionOutput is the response of DescribeBackup and DeleteBackup.
type BackupDescriptionOutput struct {
	BackupDescription *BackupDescription `json:"BackupDescription,omitempty"`
}

// ListBackupsInput is ListBackups' request.
type ListBackupsInput struct {
	TableName               *string  `json:"TableName,omitempty"`
	Limit                   *int64   `json:"Limit,omitempty"`
	TimeRangeLowerBound     *float64 `json:"TimeRangeLowerBound,omitempty"`
	TimeRangeUpperBound     *float64 `json:"TimeRangeUpperBound,omitempty"`
	ExclusiveStartBackupArn *string  `json:"ExclusiveStartBackupArn,omitempty"`
	BackupType              *string  `json:"BackupType,omitempty"`
}

// BackupSummary is one backup in ListBackups.
type BackupSummary struct {
	TableName              string   `json:"TableName"`
	TableId                string   `json:"TableId"`
	TableArn               string   `json:"TableArn"`
	BackupArn              string   `json:"BackupArn"`
	BackupName             string   `json:"BackupName"`
	BackupCreationDateTime float64  `json:"BackupCreationDateTime"`
	BackupExpiryDateTime   *float64 `json:"BackupExpiryDateTime,omitempty"`
	BackupStatus           string   `json:"BackupStatus"`
	BackupType             string   `json:"BackupType"`
	BackupSizeBytes        *int64   `json:"BackupSizeBytes,omitempty"`
}

// ListBackupsOutput is ListBackups' response.
type ListBackupsOutput struct {
	BackupSummaries        []BackupSummary `json:"BackupSummaries"`
	LastEvaluatedBackupArn string          `json:"LastEvaluatedBackupArn,omitempty"`
}

// RestoreTableFromBackupInput is RestoreTableFromBackup's request.
type RestoreTableFromBackupInput struct {
	TargetTableName               *string                `json:"TargetTableName,omitempty"`
	BackupArn                     *string                `json:"BackupArn,omitempty"`
	BillingModeOverride           *string                `json:"BillingModeOverride,omitempty"`
	GlobalSecondaryIndexOverride  []GlobalSecondaryIndex `json:"GlobalSecondaryIndexOverride"`
	LocalSecondaryIndexOverride   []LocalSecondaryIndex  `json:"LocalSecondaryIndexOverride"`
	ProvisionedThroughputOverride *ProvisionedThroughput `json:"ProvisionedThroughputOverride,omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughput    `json:"OnDemandThroughputOverride,omitempty"`
	SSESpecificationOverride      *SSESpecification      `json:"SSESpecificationOverride,omitempty"`
}

// RestoreTableFromBackupOutput is RestoreTableFromBackup's response.
type RestoreTableFromBackupOutput struct {
	TableDescription *TableDescription `json:"TableDescription,omitempty"`
}

// RestoreTableToPointInTimeInput is RestoreTableToPointInTime's request.
type RestoreTableToPointInTimeInput struct {
	SourceTableArn                *string                `json:"SourceTableArn,omitempty"`
	SourceTableName               *string                `json:"SourceTableName,omitempty"`
	TargetTableName               *string                `json:"TargetTableName,omitempty"`
	UseLatestRestorableTime       *bool                  `json:"UseLatestRestorableTime,omitempty"`
	RestoreDateTime               *float64               `json:"RestoreDateTime,omitempty"`
	BillingModeOverride           *string                `json:"BillingModeOverride,omitempty"`
	GlobalSecondaryIndexOverride  []GlobalSecondaryIndex `json:"GlobalSecondaryIndexOverride"`
	LocalSecondaryIndexOverride   []LocalSecondaryIndex  `json:"LocalSecondaryIndexOverride"`
	ProvisionedThroughputOverride *ProvisionedThroughput `json:"ProvisionedThroughputOverride,omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughput    `json:"OnDemandThroughputOverride,omitempty"`
	SSESpecificationOverride      *SSESpecification      `json:"SSESpecificationOverride,omitempty"`
}

// RestoreTableToPointInTimeOutput is RestoreTableToPointInTime's response.
type RestoreTableToPointInTimeOutput struct {
	TableDescription *TableDescription `json:"TableDescription,omitempty"`
}

// RestoreSummary says where a restored table came from.
type RestoreSummary struct {
	SourceBackupArn   string  `json:"SourceBackupArn,omitempty"`
	SourceTableArn    string  `json:"SourceTableArn,omitempty"`
	RestoreDateTime   float64 `json:"RestoreDateTime"`
	RestoreInProgress bool    `json:"RestoreInProgress"`
}

// UpdateContributorInsightsInput is UpdateContributorInsights' request.
type UpdateContributorInsightsInput struct {
	TableName                 *string `json:"TableName,omitempty"`
	IndexName                 *string `json:"IndexName,omitempty"`
	ContributorInsightsAction *string `json:"ContributorInsightsAction,omitempty"`
	ContributorInsightsMode   *string `json:"ContributorInsightsMode,omitempty"`
}

// UpdateContributorInsightsOutput is UpdateContributorInsights' response.
type UpdateContributorInsightsOutput struct {
	TableName                 string `json:"TableName,omitempty"`
	IndexName                 string `json:"IndexName,omitempty"`
	ContributorInsightsStatus string `json:"ContributorInsightsStatus,omitempty"`
	ContributorInsightsMode   string `json:"ContributorInsightsMode,omitempty"`
}

// DescribeContributorInsightsInput is DescribeContributorInsights' request.
type DescribeContributorInsightsInput struct {
	TableName *string `json:"TableName,omitempty"`
	IndexName *string `json:"IndexName,omitempty"`
}

// DescribeContributorInsightsOutput is DescribeContributorInsights' response.
type DescribeContributorInsightsOutput struct {
	TableName                   string            `json:"TableName,omitempty"`
	IndexName                   string            `json:"IndexName,omitempty"`
	ContributorInsightsRuleList []string          `json:"ContributorInsightsRuleList,omitempty"`
	ContributorInsightsStatus   string            `json:"ContributorInsightsStatus,omitempty"`
	LastUpdateDateTime          *float64          `json:"LastUpdateDateTime,omitempty"`
	FailureException            *FailureException `json:"FailureException,omitempty"`
	ContributorInsightsMode     string            `json:"ContributorInsightsMode,omitempty"`
}

// FailureException says why Contributor Insights went FAILED.
type FailureException struct {
	ExceptionName        string `json:"ExceptionName,omitempty"`
	ExceptionDescription string `json:"ExceptionDescription,omitempty"`
}

// ListContributorInsightsInput is ListContributorInsights' request.
type ListContributorInsightsInput struct {
	TableName  *string `json:"TableName,omitempty"`
	NextToken  *string `json:"NextToken,omitempty"`
	MaxResults *int64  `json:"MaxResults,omitempty"`
}

// ListContributorInsightsOutput is ListContributorInsights' response.
type ListContributorInsightsOutput struct {
	ContributorInsightsSummaries []ContributorInsightsSummary `json:"ContributorInsightsSummaries"`
	NextToken                    string                       `json:"NextToken,omitempty"`
}

// ContributorInsightsSummary is one table or index in
// ListContributorInsights.
type ContributorInsightsSummary struct {
	TableName                 string `json:"TableName,omitempty"`
	IndexName                 string `json:"IndexName,omitempty"`
	ContributorInsightsStatus string `json:"ContributorInsightsStatus,omitempty"`
	ContributorInsightsMode   string `json:"ContributorInsightsMode,omitempty"`
}

// EnableKinesisStreamingConfiguration is the optional configuration of
// Enable/DisableKinesisStreamingDestination.
type EnableKinesisStreamingConfiguration struct {
	ApproximateCreationDateTimePrecision *string `json:"ApproximateCreationDateTimePrecision,omitempty"`
}

// UpdateKinesisStreamingConfiguration is UpdateKinesisStreamingDestination's
// configuration.
type UpdateKinesisStreamingConfiguration struct {
	ApproximateCreationDateTimePrecision *string `json:"ApproximateCreationDateTimePrecision,omitempty"`
}

// KinesisStreamingDestinationInput is the request of
// EnableKinesisStreamingDestination and DisableKinesisStreamingDestination.
type KinesisStreamingDestinationInput struct {
	TableName                           *string                              `json:"TableName,omitempty"`
	StreamArn                           *string                              `json:"StreamArn,omitempty"`
	EnableKinesisStreamingConfiguration *EnableKinesisStreamingConfiguration `json:"EnableKinesisStreamingConfiguration,omitempty"`
}

// KinesisStreamingDestinationOutput is the response of
// EnableKinesisStreamingDestination and DisableKinesisStreamingDestination.
type KinesisStreamingDestinationOutput struct {
	TableName                           string                               `json:"TableName,omitempty"`
	StreamArn                           string                               `json:"StreamArn,omitempty"`
	DestinationStatus                   string                               `json:"DestinationStatus,omitempty"`
	EnableKinesisStreamingConfiguration *EnableKinesisStreamingConfiguration `json:"EnableKinesisStreamingConfiguration,omitempty"`
}

// UpdateKinesisStreamingDestinationInput is UpdateKinesisStreamingDestination's request.
type UpdateKinesisStreamingDestinationInput struct {
	TableName                           *string                              `json:"TableName,omitempty"`
	StreamArn                           *string                              `json:"StreamArn,omitempty"`
	UpdateKinesisStreamingConfiguration *UpdateKinesisStreamingConfiguration `json:"UpdateKinesisStreamingConfiguration,omitempty"`
}

// UpdateKinesisStreamingDestinationOutput is UpdateKinesisStreamingDestination's response.
type UpdateKinesisStreamingDestinationOutput struct {
	TableName                           string                               `json:"TableName,omitempty"`
	StreamArn                           string                               `json:"StreamArn,omitempty"`
	DestinationStatus                   string                               `json:"DestinationStatus,omitempty"`
	UpdateKinesisStreamingConfiguration *UpdateKinesisStreamingConfiguration `json:"UpdateKinesisStreamingConfiguration,omitempty"`
}

// DescribeKinesisStreamingDestinationInput is DescribeKinesisStreamingDestination's request.
type DescribeKinesisStreamingDestinationInput struct {
	TableName *string `json:"TableName,omitempty"`
}

// KinesisDataStreamDestination is one destination in
// DescribeKinesisStreamingDestination's answer.
type KinesisDataStreamDestination struct {
	StreamArn                            string `json:"StreamArn,omitempty"`
	DestinationStatus                    string `json:"DestinationStatus,omitempty"`
	DestinationStatusDescription         string `json:"DestinationStatusDescription,omitempty"`
	ApproximateCreationDateTimePrecision string `json:"ApproximateCreationDateTimePrecision,omitempty"`
}

// DescribeKinesisStreamingDestinationOutput is DescribeKinesisStreamingDestination's response.
type DescribeKinesisStreamingDestinationOutput struct {
	TableName                     string                         `json:"TableName,omitempty"`
	KinesisDataStreamDestinations []KinesisDataStreamDestination `json:"KinesisDataStreamDestinations"`
}

// Global tables version 2017.11.29 (legacy): globaltable_legacy.go.

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
