package api

import "github.com/extenddb/extenddb/emulator/av"

// Data-plane request and response shapes (see tables.go for the
// conventions).

// ExpectedAttributeValue is one entry of the legacy Expected parameter.
type ExpectedAttributeValue struct {
	Value              *av.Value  `json:"Value,omitempty"`
	Exists             *bool      `json:"Exists,omitempty"`
	ComparisonOperator *string    `json:"ComparisonOperator,omitempty"`
	AttributeValueList []av.Value `json:"AttributeValueList,omitempty"`
}

// Condition is one entry of the legacy KeyConditions, QueryFilter and ScanFilter.
type Condition struct {
	ComparisonOperator *string    `json:"ComparisonOperator,omitempty"`
	AttributeValueList []av.Value `json:"AttributeValueList,omitempty"`
}

// AttributeValueUpdate is one entry of the legacy AttributeUpdates.
type AttributeValueUpdate struct {
	Value  *av.Value `json:"Value,omitempty"`
	Action *string   `json:"Action,omitempty"`
}

// Capacity is a consumed-capacity figure for a table or an index.
type Capacity struct {
	ReadCapacityUnits  *float64 `json:"ReadCapacityUnits,omitempty"`
	WriteCapacityUnits *float64 `json:"WriteCapacityUnits,omitempty"`
	CapacityUnits      *float64 `json:"CapacityUnits,omitempty"`
}

// ConsumedCapacity is what an operation consumed, per ReturnConsumedCapacity.
type ConsumedCapacity struct {
	TableName              string              `json:"TableName,omitempty"`
	CapacityUnits          *float64            `json:"CapacityUnits,omitempty"`
	ReadCapacityUnits      *float64            `json:"ReadCapacityUnits,omitempty"`
	WriteCapacityUnits     *float64            `json:"WriteCapacityUnits,omitempty"`
	Table                  *Capacity           `json:"Table,omitempty"`
	LocalSecondaryIndexes  map[string]Capacity `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes map[string]Capacity `json:"GlobalSecondaryIndexes,omitempty"`
	// VectorIndexes is a write's vector bytes per vector index.
	VectorIndexes map[string]VectorCapacity `json:"VectorIndexes,omitempty"`
}

// ItemCollectionMetrics reports an LSI item collection's size.
type ItemCollectionMetrics struct {
	ItemCollectionKey   av.Item   `json:"ItemCollectionKey,omitempty"`
	SizeEstimateRangeGB []float64 `json:"SizeEstimateRangeGB,omitempty"`
}

// GetItemInput is GetItem's request.
type GetItemInput struct {
	TableName                *string           `json:"TableName,omitempty"`
	Key                      av.Item           `json:"Key,omitempty"`
	AttributesToGet          []string          `json:"AttributesToGet,omitempty"`
	ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
	ReturnConsumedCapacity   *string           `json:"ReturnConsumedCapacity,omitempty"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

// GetItemOutput is GetItem's response.
type GetItemOutput struct {
	// Item is nil when the item does not exist (the member is absent) and
	// empty when a projection matched nothing of it (DynamoDB sends
	// "Item": {}).
	Item             av.Item           `json:"Item,omitzero"`
	ConsumedCapacity *ConsumedCapacity `json:"ConsumedCapacity,omitempty"`

	stored []byte // the whole item in its stored form (GetItemStored)
}

// StoredItem is the item in its stored form (av.AppendItem's bytes), set
// by GetItemStored instead of Item when the whole item is returned.
func (o *GetItemOutput) StoredItem() []byte { return o.stored }

// SetStoredItem sets what StoredItem returns (the engine's GetItemStored).
func (o *GetItemOutput) SetStoredItem(b []byte) { o.stored = b }

// PutItemInput is PutItem's request.
type PutItemInput struct {
	TableName                           *string                           `json:"TableName,omitempty"`
	Item                                av.Item                           `json:"Item,omitempty"`
	Expected                            map[string]ExpectedAttributeValue `json:"Expected,omitempty"`
	ReturnValues                        *string                           `json:"ReturnValues,omitempty"`
	ReturnConsumedCapacity              *string                           `json:"ReturnConsumedCapacity,omitempty"`
	ReturnItemCollectionMetrics         *string                           `json:"ReturnItemCollectionMetrics,omitempty"`
	ConditionalOperator                 *string                           `json:"ConditionalOperator,omitempty"`
	ConditionExpression                 *string                           `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string                 `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value               `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string                           `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// WriteItemOutput is the response of PutItem, UpdateItem and DeleteItem.
type WriteItemOutput struct {
	Attributes            av.Item                `json:"Attributes,omitempty"`
	ConsumedCapacity      *ConsumedCapacity      `json:"ConsumedCapacity,omitempty"`
	ItemCollectionMetrics *ItemCollectionMetrics `json:"ItemCollectionMetrics,omitempty"`
}

// UpdateItemInput is UpdateItem's request.
type UpdateItemInput struct {
	TableName                           *string                           `json:"TableName,omitempty"`
	Key                                 av.Item                           `json:"Key,omitempty"`
	AttributeUpdates                    map[string]AttributeValueUpdate   `json:"AttributeUpdates,omitempty"`
	Expected                            map[string]ExpectedAttributeValue `json:"Expected,omitempty"`
	ConditionalOperator                 *string                           `json:"ConditionalOperator,omitempty"`
	ReturnValues                        *string                           `json:"ReturnValues,omitempty"`
	ReturnConsumedCapacity              *string                           `json:"ReturnConsumedCapacity,omitempty"`
	ReturnItemCollectionMetrics         *string                           `json:"ReturnItemCollectionMetrics,omitempty"`
	UpdateExpression                    *string                           `json:"UpdateExpression,omitempty"`
	ConditionExpression                 *string                           `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string                 `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value               `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string                           `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// DeleteItemInput is DeleteItem's request.
type DeleteItemInput struct {
	TableName                           *string                           `json:"TableName,omitempty"`
	Key                                 av.Item                           `json:"Key,omitempty"`
	Expected                            map[string]ExpectedAttributeValue `json:"Expected,omitempty"`
	ConditionalOperator                 *string                           `json:"ConditionalOperator,omitempty"`
	ReturnValues                        *string                           `json:"ReturnValues,omitempty"`
	ReturnConsumedCapacity              *string                           `json:"ReturnConsumedCapacity,omitempty"`
	ReturnItemCollectionMetrics         *string                           `json:"ReturnItemCollectionMetrics,omitempty"`
	ConditionExpression                 *string                           `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string                 `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value               `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string                           `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// QueryInput is Query's request.
type QueryInput struct {
	TableName                 *string              `json:"TableName,omitempty"`
	IndexName                 *string              `json:"IndexName,omitempty"`
	Select                    *string              `json:"Select,omitempty"`
	AttributesToGet           []string             `json:"AttributesToGet,omitempty"`
	Limit                     *int64               `json:"Limit,omitempty"`
	ConsistentRead            *bool                `json:"ConsistentRead,omitempty"`
	KeyConditions             map[string]Condition `json:"KeyConditions,omitempty"`
	QueryFilter               map[string]Condition `json:"QueryFilter,omitempty"`
	ConditionalOperator       *string              `json:"ConditionalOperator,omitempty"`
	ScanIndexForward          *bool                `json:"ScanIndexForward,omitempty"`
	ExclusiveStartKey         av.Item              `json:"ExclusiveStartKey,omitempty"`
	ReturnConsumedCapacity    *string              `json:"ReturnConsumedCapacity,omitempty"`
	ProjectionExpression      *string              `json:"ProjectionExpression,omitempty"`
	FilterExpression          *string              `json:"FilterExpression,omitempty"`
	KeyConditionExpression    *string              `json:"KeyConditionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string    `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]av.Value  `json:"ExpressionAttributeValues,omitempty"`
}

// ReadManyOutput is the response of Query and Scan. Count and ScannedCount
// are always present.
type ReadManyOutput struct {
	// Items is nil only with Select=COUNT (the member is absent); a page
	// without items sends "Items": [], as DynamoDB does.
	Items            []av.Item         `json:"Items,omitzero"`
	Count            int64             `json:"Count"`
	ScannedCount     int64             `json:"ScannedCount"`
	LastEvaluatedKey av.Item           `json:"LastEvaluatedKey,omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:"ConsumedCapacity,omitempty"`

	stored [][]byte // the page's whole items in their stored form (QueryStored, ScanStored)
}

// StoredItems are the page's items in their stored form (av.AppendItem's
// bytes), set by QueryStored and ScanStored instead of Items (then nil)
// when the page returns whole items; non-nil, possibly empty, when set.
func (o *ReadManyOutput) StoredItems() [][]byte { return o.stored }

// SetStoredItems sets what StoredItems returns (the engine's QueryStored
// and ScanStored).
func (o *ReadManyOutput) SetStoredItems(items [][]byte) { o.stored = items }

// ScanInput is Scan's request.
type ScanInput struct {
	TableName                 *string              `json:"TableName,omitempty"`
	IndexName                 *string              `json:"IndexName,omitempty"`
	AttributesToGet           []string             `json:"AttributesToGet,omitempty"`
	Limit                     *int64               `json:"Limit,omitempty"`
	Select                    *string              `json:"Select,omitempty"`
	ScanFilter                map[string]Condition `json:"ScanFilter,omitempty"`
	ConditionalOperator       *string              `json:"ConditionalOperator,omitempty"`
	ExclusiveStartKey         av.Item              `json:"ExclusiveStartKey,omitempty"`
	ReturnConsumedCapacity    *string              `json:"ReturnConsumedCapacity,omitempty"`
	TotalSegments             *int64               `json:"TotalSegments,omitempty"`
	Segment                   *int64               `json:"Segment,omitempty"`
	ProjectionExpression      *string              `json:"ProjectionExpression,omitempty"`
	FilterExpression          *string              `json:"FilterExpression,omitempty"`
	ExpressionAttributeNames  map[string]string    `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]av.Value  `json:"ExpressionAttributeValues,omitempty"`
	ConsistentRead            *bool                `json:"ConsistentRead,omitempty"`
}

// KeysAndAttributes is one table's part of BatchGetItem.
type KeysAndAttributes struct {
	Keys                     []av.Item         `json:"Keys,omitempty"`
	AttributesToGet          []string          `json:"AttributesToGet,omitempty"`
	ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

// BatchGetItemInput is BatchGetItem's request.
type BatchGetItemInput struct {
	RequestItems           map[string]KeysAndAttributes `json:"RequestItems,omitempty"`
	ReturnConsumedCapacity *string                      `json:"ReturnConsumedCapacity,omitempty"`
}

// BatchGetItemOutput is BatchGetItem's response.
type BatchGetItemOutput struct {
	Responses        map[string][]av.Item         `json:"Responses"`
	UnprocessedKeys  map[string]KeysAndAttributes `json:"UnprocessedKeys"`
	ConsumedCapacity []ConsumedCapacity           `json:"ConsumedCapacity,omitempty"`

	stored map[string][][]byte // tables whose items are whole, in stored form (BatchGetItemStored)
}

// StoredResponses are, for each table whose items are returned whole, its
// items in their stored form (av.AppendItem's bytes), set by
// BatchGetItemStored; such a table is absent from Responses.
func (o *BatchGetItemOutput) StoredResponses() map[string][][]byte { return o.stored }

// SetStoredResponses sets what StoredResponses returns (the engine's
// BatchGetItemStored).
func (o *BatchGetItemOutput) SetStoredResponses(m map[string][][]byte) { o.stored = m }

// PutRequest is a put inside BatchWriteItem.
type PutRequest struct {
	Item av.Item `json:"Item,omitempty"`
}

// DeleteRequest is a delete inside BatchWriteItem.
type DeleteRequest struct {
	Key av.Item `json:"Key,omitempty"`
}

// WriteRequest is one entry of BatchWriteItem; exactly one member is set.
type WriteRequest struct {
	PutRequest    *PutRequest    `json:"PutRequest,omitempty"`
	DeleteRequest *DeleteRequest `json:"DeleteRequest,omitempty"`
}

// BatchWriteItemInput is BatchWriteItem's request.
type BatchWriteItemInput struct {
	RequestItems                map[string][]WriteRequest `json:"RequestItems,omitempty"`
	ReturnConsumedCapacity      *string                   `json:"ReturnConsumedCapacity,omitempty"`
	ReturnItemCollectionMetrics *string                   `json:"ReturnItemCollectionMetrics,omitempty"`
}

// BatchWriteItemOutput is BatchWriteItem's response.
type BatchWriteItemOutput struct {
	UnprocessedItems      map[string][]WriteRequest          `json:"UnprocessedItems"`
	ItemCollectionMetrics map[string][]ItemCollectionMetrics `json:"ItemCollectionMetrics,omitempty"`
	ConsumedCapacity      []ConsumedCapacity                 `json:"ConsumedCapacity,omitempty"`
}

// Get is one action of TransactGetItems.
type Get struct {
	TableName                *string           `json:"TableName,omitempty"`
	Key                      av.Item           `json:"Key,omitempty"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

// TransactGetItem wraps a Get.
type TransactGetItem struct {
	Get *Get `json:"Get,omitempty"`
}

// TransactGetItemsInput is TransactGetItems' request.
type TransactGetItemsInput struct {
	TransactItems          []TransactGetItem `json:"TransactItems,omitempty"`
	ReturnConsumedCapacity *string           `json:"ReturnConsumedCapacity,omitempty"`
}

// ItemResponse is one entry of TransactGetItems' response.
type ItemResponse struct {
	Item av.Item `json:"Item,omitempty"`
}

// TransactGetItemsOutput is TransactGetItems' response.
type TransactGetItemsOutput struct {
	Responses        []ItemResponse     `json:"Responses,omitempty"`
	ConsumedCapacity []ConsumedCapacity `json:"ConsumedCapacity,omitempty"`
}

// TransactConditionCheck is a ConditionCheck action.
type TransactConditionCheck struct {
	TableName                           *string             `json:"TableName,omitempty"`
	Key                                 av.Item             `json:"Key,omitempty"`
	ConditionExpression                 *string             `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string   `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string             `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// TransactPut is a Put action.
type TransactPut struct {
	TableName                           *string             `json:"TableName,omitempty"`
	Item                                av.Item             `json:"Item,omitempty"`
	ConditionExpression                 *string             `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string   `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string             `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// TransactDelete is a Delete action.
type TransactDelete struct {
	TableName                           *string             `json:"TableName,omitempty"`
	Key                                 av.Item             `json:"Key,omitempty"`
	ConditionExpression                 *string             `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string   `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string             `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// TransactUpdate is an Update action.
type TransactUpdate struct {
	TableName                           *string             `json:"TableName,omitempty"`
	Key                                 av.Item             `json:"Key,omitempty"`
	UpdateExpression                    *string             `json:"UpdateExpression,omitempty"`
	ConditionExpression                 *string             `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string   `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]av.Value `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string             `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// TransactWriteItem is one action of TransactWriteItems; exactly one member is set.
type TransactWriteItem struct {
	ConditionCheck *TransactConditionCheck `json:"ConditionCheck,omitempty"`
	Put            *TransactPut            `json:"Put,omitempty"`
	Delete         *TransactDelete         `json:"Delete,omitempty"`
	Update         *TransactUpdate         `json:"Update,omitempty"`
}

// TransactWriteItemsInput is TransactWriteItems' request.
type TransactWriteItemsInput struct {
	TransactItems               []TransactWriteItem `json:"TransactItems,omitempty"`
	ReturnConsumedCapacity      *string             `json:"ReturnConsumedCapacity,omitempty"`
	ReturnItemCollectionMetrics *string             `json:"ReturnItemCollectionMetrics,omitempty"`
	ClientRequestToken          *string             `json:"ClientRequestToken,omitempty"`
}

// TransactWriteItemsOutput is TransactWriteItems' response.
type TransactWriteItemsOutput struct {
	ConsumedCapacity      []ConsumedCapacity                 `json:"ConsumedCapacity,omitempty"`
	ItemCollectionMetrics map[string][]ItemCollectionMetrics `json:"ItemCollectionMetrics,omitempty"`
}
