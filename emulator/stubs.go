package emulator

import "context"

// Operations not implemented yet. Each answers UnknownOperationException so
// clients never see a 5xx; an implementation replaces its stub here.

func notImplemented(op string) error {
	return NewError(CodeUnknownOperation, "The operation %s is not supported yet by ExtendDB", op)
}

// CreateTable is not implemented yet.
func (e *Engine) CreateTable(ctx context.Context, ns Namespace, in *CreateTableInput) (*CreateTableOutput, error) {
	return nil, notImplemented("CreateTable")
}

// DescribeTable is not implemented yet.
func (e *Engine) DescribeTable(ctx context.Context, ns Namespace, in *DescribeTableInput) (*DescribeTableOutput, error) {
	return nil, notImplemented("DescribeTable")
}

// ListTables is not implemented yet.
func (e *Engine) ListTables(ctx context.Context, ns Namespace, in *ListTablesInput) (*ListTablesOutput, error) {
	return nil, notImplemented("ListTables")
}

// DeleteTable is not implemented yet.
func (e *Engine) DeleteTable(ctx context.Context, ns Namespace, in *DeleteTableInput) (*DeleteTableOutput, error) {
	return nil, notImplemented("DeleteTable")
}

// UpdateTable is not implemented yet.
func (e *Engine) UpdateTable(ctx context.Context, ns Namespace, in *UpdateTableInput) (*UpdateTableOutput, error) {
	return nil, notImplemented("UpdateTable")
}

// TagResource is not implemented yet.
func (e *Engine) TagResource(ctx context.Context, ns Namespace, in *TagResourceInput) (*Empty, error) {
	return nil, notImplemented("TagResource")
}

// UntagResource is not implemented yet.
func (e *Engine) UntagResource(ctx context.Context, ns Namespace, in *UntagResourceInput) (*Empty, error) {
	return nil, notImplemented("UntagResource")
}

// ListTagsOfResource is not implemented yet.
func (e *Engine) ListTagsOfResource(ctx context.Context, ns Namespace, in *ListTagsOfResourceInput) (*ListTagsOfResourceOutput, error) {
	return nil, notImplemented("ListTagsOfResource")
}

// UpdateTimeToLive is not implemented yet.
func (e *Engine) UpdateTimeToLive(ctx context.Context, ns Namespace, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	return nil, notImplemented("UpdateTimeToLive")
}

// DescribeTimeToLive is not implemented yet.
func (e *Engine) DescribeTimeToLive(ctx context.Context, ns Namespace, in *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	return nil, notImplemented("DescribeTimeToLive")
}

// UpdateContinuousBackups is not implemented yet.
func (e *Engine) UpdateContinuousBackups(ctx context.Context, ns Namespace, in *UpdateContinuousBackupsInput) (*UpdateContinuousBackupsOutput, error) {
	return nil, notImplemented("UpdateContinuousBackups")
}

// DescribeContinuousBackups is not implemented yet.
func (e *Engine) DescribeContinuousBackups(ctx context.Context, ns Namespace, in *DescribeContinuousBackupsInput) (*DescribeContinuousBackupsOutput, error) {
	return nil, notImplemented("DescribeContinuousBackups")
}

// DescribeLimits is not implemented yet.
func (e *Engine) DescribeLimits(ctx context.Context, ns Namespace, in *Empty) (*DescribeLimitsOutput, error) {
	return nil, notImplemented("DescribeLimits")
}

// DescribeEndpoints is not implemented yet.
func (e *Engine) DescribeEndpoints(ctx context.Context, ns Namespace, in *Empty) (*DescribeEndpointsOutput, error) {
	return nil, notImplemented("DescribeEndpoints")
}

// GetItem is not implemented yet.
func (e *Engine) GetItem(ctx context.Context, ns Namespace, in *GetItemInput) (*GetItemOutput, error) {
	return nil, notImplemented("GetItem")
}

// PutItem is not implemented yet.
func (e *Engine) PutItem(ctx context.Context, ns Namespace, in *PutItemInput) (*WriteItemOutput, error) {
	return nil, notImplemented("PutItem")
}

// UpdateItem is not implemented yet.
func (e *Engine) UpdateItem(ctx context.Context, ns Namespace, in *UpdateItemInput) (*WriteItemOutput, error) {
	return nil, notImplemented("UpdateItem")
}

// DeleteItem is not implemented yet.
func (e *Engine) DeleteItem(ctx context.Context, ns Namespace, in *DeleteItemInput) (*WriteItemOutput, error) {
	return nil, notImplemented("DeleteItem")
}

// Query is not implemented yet.
func (e *Engine) Query(ctx context.Context, ns Namespace, in *QueryInput) (*ReadManyOutput, error) {
	return nil, notImplemented("Query")
}

// Scan is not implemented yet.
func (e *Engine) Scan(ctx context.Context, ns Namespace, in *ScanInput) (*ReadManyOutput, error) {
	return nil, notImplemented("Scan")
}

// BatchGetItem is not implemented yet.
func (e *Engine) BatchGetItem(ctx context.Context, ns Namespace, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	return nil, notImplemented("BatchGetItem")
}

// BatchWriteItem is not implemented yet.
func (e *Engine) BatchWriteItem(ctx context.Context, ns Namespace, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	return nil, notImplemented("BatchWriteItem")
}

// TransactGetItems is not implemented yet.
func (e *Engine) TransactGetItems(ctx context.Context, ns Namespace, in *TransactGetItemsInput) (*TransactGetItemsOutput, error) {
	return nil, notImplemented("TransactGetItems")
}

// TransactWriteItems is not implemented yet.
func (e *Engine) TransactWriteItems(ctx context.Context, ns Namespace, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	return nil, notImplemented("TransactWriteItems")
}
