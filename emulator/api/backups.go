package api

// Shapes of on-demand backups and restores (CreateBackup, DescribeBackup,
// ListBackups, DeleteBackup, RestoreTableFromBackup,
// RestoreTableToPointInTime).

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
	VectorIndexes          []VectorIndexInfo             `json:"VectorIndexes,omitempty"`
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
	VectorIndexOverride           []VectorIndex          `json:"VectorIndexOverride"`
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
	VectorIndexOverride           []VectorIndex          `json:"VectorIndexOverride"`
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
