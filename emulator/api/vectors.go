package api

import "github.com/extenddb/extenddb/emulator/av"

// Vector indexes and SearchVectors (API Reference: VectorIndex,
// VectorIndexDescription, VectorIndexUpdate, SearchVectors).

// VectorAttributeDefinition names the attribute holding an index's vectors.
type VectorAttributeDefinition struct {
	AttributeName *string `json:"AttributeName,omitempty"`
}

// SearchSchemaElement is one attribute a vector index partitions (HASH) or
// filters (INLINE_FILTER) by.
type SearchSchemaElement struct {
	AttributeName           *string `json:"AttributeName,omitempty"`
	SearchSchemaElementType *string `json:"SearchSchemaElementType,omitempty"`
}

// VectorIndex is a vector index of CreateTable (also UpdateTable's
// CreateVectorIndexAction, the restores' VectorIndexOverride and
// ImportTable's TableCreationParameters).
type VectorIndex struct {
	IndexName        *string                    `json:"IndexName,omitempty"`
	VectorAttribute  *VectorAttributeDefinition `json:"VectorAttribute,omitempty"`
	Dimensions       *int64                     `json:"Dimensions,omitempty"`
	DistanceFunction *string                    `json:"DistanceFunction,omitempty"`
	Projection       *Projection                `json:"Projection,omitempty"`
	SearchSchema     []SearchSchemaElement      `json:"SearchSchema,omitempty"`
}

// DeleteVectorIndexAction removes a vector index (UpdateTable).
type DeleteVectorIndexAction struct {
	IndexName *string `json:"IndexName,omitempty"`
}

// VectorIndexUpdate is one entry of UpdateTable's VectorIndexUpdates.
type VectorIndexUpdate struct {
	Create *VectorIndex             `json:"Create,omitempty"`
	Delete *DeleteVectorIndexAction `json:"Delete,omitempty"`
}

// DescribedVectorAttribute is VectorAttributeDefinition in a response.
type DescribedVectorAttribute struct {
	AttributeName string `json:"AttributeName"`
}

// DescribedSearchSchemaElement is SearchSchemaElement in a response.
type DescribedSearchSchemaElement struct {
	AttributeName           string `json:"AttributeName"`
	SearchSchemaElementType string `json:"SearchSchemaElementType"`
}

// VectorIndexDescription is a vector index in a TableDescription.
// Backfilling is present only while an index added by UpdateTable is
// being created.
type VectorIndexDescription struct {
	IndexName        string                         `json:"IndexName"`
	IndexArn         string                         `json:"IndexArn"`
	IndexStatus      string                         `json:"IndexStatus"`
	Backfilling      *bool                          `json:"Backfilling,omitempty"`
	VectorAttribute  DescribedVectorAttribute       `json:"VectorAttribute"`
	Dimensions       int64                          `json:"Dimensions"`
	DistanceFunction string                         `json:"DistanceFunction"`
	Projection       DescribedProjection            `json:"Projection"`
	SearchSchema     []DescribedSearchSchemaElement `json:"SearchSchema,omitempty"`
	IndexSizeBytes   int64                          `json:"IndexSizeBytes"`
	ItemCount        int64                          `json:"ItemCount"`
}

// VectorIndexInfo is a vector index in a backup's SourceTableFeatureDetails.
type VectorIndexInfo struct {
	IndexName        string                         `json:"IndexName"`
	VectorAttribute  DescribedVectorAttribute       `json:"VectorAttribute"`
	Dimensions       int64                          `json:"Dimensions"`
	DistanceFunction string                         `json:"DistanceFunction"`
	Projection       DescribedProjection            `json:"Projection"`
	SearchSchema     []DescribedSearchSchemaElement `json:"SearchSchema,omitempty"`
}

// VectorCapacity is the vector bytes a request consumed: a search's in
// SearchVectors' ConsumedCapacity, a write's per index in
// ConsumedCapacity.VectorIndexes.
type VectorCapacity struct {
	VectorSearchRequestBytes *float64 `json:"VectorSearchRequestBytes,omitempty"`
	VectorWriteRequestBytes  *float64 `json:"VectorWriteRequestBytes,omitempty"`
}

// SearchVectorsInput is the request of SearchVectors.
type SearchVectorsInput struct {
	TableName                 *string             `json:"TableName,omitempty"`
	IndexName                 *string             `json:"IndexName,omitempty"`
	SearchVector              []av.Value          `json:"SearchVector,omitempty"`
	TopK                      *int64              `json:"TopK,omitempty"`
	SearchConditionExpression *string             `json:"SearchConditionExpression,omitempty"`
	ProjectionExpression      *string             `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string   `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]av.Value `json:"ExpressionAttributeValues,omitempty"`
	ReturnConsumedCapacity    *string             `json:"ReturnConsumedCapacity,omitempty"`
}

// SearchResultItem is one result of SearchVectors: the item's projected
// attributes and its score.
type SearchResultItem struct {
	Item  av.Item `json:"Item"`
	Score float64 `json:"Score"`
}

// SearchVectorsOutput is the response of SearchVectors, most similar
// first.
type SearchVectorsOutput struct {
	SearchResults    []SearchResultItem `json:"SearchResults"`
	ConsumedCapacity *VectorCapacity    `json:"ConsumedCapacity,omitempty"`
}
