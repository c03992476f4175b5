package mcpserver

import (
	"encoding/json"
	"fmt"
	"time"
)

// describe_table answers with DescribeTable's TableDescription and
// DescribeTimeToLive's TimeToLiveDescription as aws-sdk-go-v2's types
// encoded them with encoding/json: every member of the model, absent
// ones null (or "" for an enum), timestamps in RFC 3339. These are those
// types' shapes, member for member (types.TableDescription and what it
// holds, as of service/dynamodb v1.74.1), so the answer stays what it
// was; members the model does not have are left out, as the SDK left
// them.

type dTableDescription struct {
	ArchivalSummary                    *dArchivalSummary
	AttributeDefinitions               []dAttributeDefinition
	BillingModeSummary                 *dBillingModeSummary
	CreationDateTime                   *epochTime
	DeletionProtectionEnabled          *bool
	DisassociationProtectionEnabled    *bool
	GlobalSecondaryIndexes             []dGlobalSecondaryIndexDescription
	GlobalTableSettingsReplicationMode string
	GlobalTableVersion                 *string
	GlobalTableWitnesses               []dGlobalTableWitnessDescription
	ItemCount                          *int64
	KeySchema                          []dKeySchemaElement
	LatestStreamArn                    *string
	LatestStreamLabel                  *string
	LocalSecondaryIndexes              []dLocalSecondaryIndexDescription
	MultiRegionConsistency             string
	OnDemandThroughput                 *dOnDemandThroughput
	ProvisionedThroughput              *dProvisionedThroughputDescription
	Replicas                           []dReplicaDescription
	RestoreSummary                     *dRestoreSummary
	SSEDescription                     *dSSEDescription
	StreamSpecification                *dStreamSpecification
	TableArn                           *string
	TableClassSummary                  *dTableClassSummary
	TableId                            *string
	TableName                          *string
	TableSizeBytes                     *int64
	TableStatus                        string
	VectorIndexes                      []dVectorIndexDescription
	WarmThroughput                     *dTableWarmThroughputDescription
}

type dTimeToLiveDescription struct {
	AttributeName    *string
	TimeToLiveStatus string
}

type dArchivalSummary struct {
	ArchivalBackupArn *string
	ArchivalDateTime  *epochTime
	ArchivalReason    *string
}

type dAttributeDefinition struct {
	AttributeName *string
	AttributeType string
}

type dBillingModeSummary struct {
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime *epochTime
}

type dGlobalSecondaryIndexDescription struct {
	Backfilling           *bool
	IndexArn              *string
	IndexName             *string
	IndexSizeBytes        *int64
	IndexStatus           string
	ItemCount             *int64
	KeySchema             []dKeySchemaElement
	OnDemandThroughput    *dOnDemandThroughput
	Projection            *dProjection
	ProvisionedThroughput *dProvisionedThroughputDescription
	WarmThroughput        *dGlobalSecondaryIndexWarmThroughputDescription
}

type dGlobalTableWitnessDescription struct {
	RegionName    *string
	WitnessStatus string
}

type dKeySchemaElement struct {
	AttributeName *string
	KeyType       string
}

type dLocalSecondaryIndexDescription struct {
	IndexArn       *string
	IndexName      *string
	IndexSizeBytes *int64
	ItemCount      *int64
	KeySchema      []dKeySchemaElement
	Projection     *dProjection
}

type dOnDemandThroughput struct {
	MaxReadRequestUnits  *int64
	MaxWriteRequestUnits *int64
}

type dProvisionedThroughputDescription struct {
	LastDecreaseDateTime   *epochTime
	LastIncreaseDateTime   *epochTime
	NumberOfDecreasesToday *int64
	ReadCapacityUnits      *int64
	WriteCapacityUnits     *int64
}

type dReplicaDescription struct {
	GlobalSecondaryIndexes             []dReplicaGlobalSecondaryIndexDescription
	GlobalTableSettingsReplicationMode string
	KMSMasterKeyId                     *string
	OnDemandThroughputOverride         *dOnDemandThroughputOverride
	ProvisionedThroughputOverride      *dProvisionedThroughputOverride
	RegionName                         *string
	ReplicaArn                         *string
	ReplicaInaccessibleDateTime        *epochTime
	ReplicaStatus                      string
	ReplicaStatusDescription           *string
	ReplicaStatusPercentProgress       *string
	ReplicaTableClassSummary           *dTableClassSummary
	WarmThroughput                     *dTableWarmThroughputDescription
}

type dRestoreSummary struct {
	RestoreDateTime   *epochTime
	RestoreInProgress *bool
	SourceBackupArn   *string
	SourceTableArn    *string
}

type dSSEDescription struct {
	InaccessibleEncryptionDateTime *epochTime
	KMSMasterKeyArn                *string
	SSEType                        string
	Status                         string
}

type dStreamSpecification struct {
	StreamEnabled  *bool
	StreamViewType string
}

type dTableClassSummary struct {
	LastUpdateDateTime *epochTime
	TableClass         string
}

type dVectorIndexDescription struct {
	Backfilling      *bool
	Dimensions       *int64
	DistanceFunction string
	IndexArn         *string
	IndexName        *string
	IndexSizeBytes   *int64
	IndexStatus      string
	ItemCount        *int64
	Projection       *dProjection
	SearchSchema     []dSearchSchemaElement
	VectorAttribute  *dVectorAttributeDefinition
}

type dTableWarmThroughputDescription struct {
	ReadUnitsPerSecond  *int64
	Status              string
	WriteUnitsPerSecond *int64
}

type dProjection struct {
	NonKeyAttributes []string
	ProjectionType   string
}

type dGlobalSecondaryIndexWarmThroughputDescription struct {
	ReadUnitsPerSecond  *int64
	Status              string
	WriteUnitsPerSecond *int64
}

type dReplicaGlobalSecondaryIndexDescription struct {
	IndexName                     *string
	OnDemandThroughputOverride    *dOnDemandThroughputOverride
	ProvisionedThroughputOverride *dProvisionedThroughputOverride
	WarmThroughput                *dGlobalSecondaryIndexWarmThroughputDescription
}

type dOnDemandThroughputOverride struct {
	MaxReadRequestUnits *int64
}

type dProvisionedThroughputOverride struct {
	ReadCapacityUnits *int64
}

type dSearchSchemaElement struct {
	AttributeName           *string
	SearchSchemaElementType string
}

type dVectorAttributeDefinition struct {
	AttributeName *string
}

// epochTime is a timestamp of the wire (epoch seconds, a JSON number)
// that encodes as time.Time does; decoded as the SDK decodes one: to the
// millisecond, in UTC.
type epochTime struct{ time.Time }

func (t *epochTime) UnmarshalJSON(b []byte) error {
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("a timestamp is epoch seconds: %w", err)
	}
	t.Time = time.Unix(0, int64(secs*1e3)*1e6).UTC()
	return nil
}
