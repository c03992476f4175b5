package api

// Request and response shapes of StartBulkPutItems, DescribeBulkOperation,
// ListBulkOperations and CancelBulkOperation (JSON tags as on the wire;
// API Reference, BulkOperationDescription and its members).

// InputS3Configuration is where a bulk put reads its items.
type InputS3Configuration struct {
	S3Bucket             *string `json:"S3Bucket,omitempty"`
	S3BucketOwner        *string `json:"S3BucketOwner,omitempty"`
	S3KeyPrefix          *string `json:"S3KeyPrefix,omitempty"`
	InputFormat          *string `json:"InputFormat,omitempty"`
	InputCompressionType *string `json:"InputCompressionType,omitempty"`
}

// OutputS3Configuration is where a bulk put writes its reports.
type OutputS3Configuration struct {
	OutputType     []string `json:"OutputType,omitempty"`
	S3Bucket       *string  `json:"S3Bucket,omitempty"`
	S3BucketOwner  *string  `json:"S3BucketOwner,omitempty"`
	S3KeyPrefix    *string  `json:"S3KeyPrefix,omitempty"`
	S3SseAlgorithm *string  `json:"S3SseAlgorithm,omitempty"`
	S3SseKmsKeyId  *string  `json:"S3SseKmsKeyId,omitempty"`
}

// BulkOperationBytes is a byte count of a table or an index.
type BulkOperationBytes struct {
	BulkPutBytes *int64 `json:"BulkPutBytes,omitempty"`
}

// BulkOperationVectorBytes is a vector index's byte count.
type BulkOperationVectorBytes struct {
	BulkPutVectorBytes *int64 `json:"BulkPutVectorBytes,omitempty"`
}

// BulkOperationUsage is what a bulk operation wrote to one table.
type BulkOperationUsage struct {
	TableName              *string                             `json:"TableName,omitempty"`
	BulkPutBytes           *int64                              `json:"BulkPutBytes,omitempty"`
	Table                  *BulkOperationBytes                 `json:"Table,omitempty"`
	GlobalSecondaryIndexes map[string]BulkOperationBytes       `json:"GlobalSecondaryIndexes,omitempty"`
	LocalSecondaryIndexes  map[string]BulkOperationBytes       `json:"LocalSecondaryIndexes,omitempty"`
	VectorIndexes          map[string]BulkOperationVectorBytes `json:"VectorIndexes,omitempty"`
}

// BulkOperationTableDetail names a bulk operation's table.
type BulkOperationTableDetail struct {
	TableName *string `json:"TableName,omitempty"`
	TableId   *string `json:"TableId,omitempty"`
}

// BulkOperationDescription describes a bulk operation.
type BulkOperationDescription struct {
	BulkOperationArn      *string                    `json:"BulkOperationArn,omitempty"`
	BulkOperationStatus   string                     `json:"BulkOperationStatus,omitempty"`
	TableDetails          []BulkOperationTableDetail `json:"TableDetails,omitempty"`
	BulkOperationUsage    []BulkOperationUsage       `json:"BulkOperationUsage,omitempty"`
	ClientToken           *string                    `json:"ClientToken,omitempty"`
	InputS3Configuration  *InputS3Configuration      `json:"InputS3Configuration,omitempty"`
	OutputS3Configuration *OutputS3Configuration     `json:"OutputS3Configuration,omitempty"`
	StartTime             *float64                   `json:"StartTime,omitempty"`
	EndTime               *float64                   `json:"EndTime,omitempty"`
	ProcessedItemCount    int64                      `json:"ProcessedItemCount"`
	FailedItemCount       int64                      `json:"FailedItemCount"`
	FailureCode           *string                    `json:"FailureCode,omitempty"`
	FailureMessage        *string                    `json:"FailureMessage,omitempty"`
	ProcessedInputBytes   *int64                     `json:"ProcessedInputBytes,omitempty"`
	TotalInputBytes       *int64                     `json:"TotalInputBytes,omitempty"`
	MaxWriteRequestUnits  *int64                     `json:"MaxWriteRequestUnits,omitempty"`
	PerformanceTier       string                     `json:"PerformanceTier,omitempty"`
}

// BulkOperationSummary is one entry of ListBulkOperations.
type BulkOperationSummary struct {
	BulkOperationArn    *string  `json:"BulkOperationArn,omitempty"`
	BulkOperationStatus string   `json:"BulkOperationStatus,omitempty"`
	StartTime           *float64 `json:"StartTime,omitempty"`
	EndTime             *float64 `json:"EndTime,omitempty"`
}

// StartBulkPutItemsInput is StartBulkPutItems's request.
type StartBulkPutItemsInput struct {
	TableName             *string                `json:"TableName,omitempty"`
	InputS3Configuration  *InputS3Configuration  `json:"InputS3Configuration,omitempty"`
	OutputS3Configuration *OutputS3Configuration `json:"OutputS3Configuration,omitempty"`
	ClientToken           *string                `json:"ClientToken,omitempty"`
	MaxWriteRequestUnits  *int64                 `json:"MaxWriteRequestUnits,omitempty"`
	PerformanceTier       *string                `json:"PerformanceTier,omitempty"`
}

// StartBulkPutItemsOutput is its response.
type StartBulkPutItemsOutput struct {
	BulkOperationDescription *BulkOperationDescription `json:"BulkOperationDescription"`
}

// DescribeBulkOperationInput is DescribeBulkOperation's request.
type DescribeBulkOperationInput struct {
	BulkOperationArn *string `json:"BulkOperationArn,omitempty"`
}

// DescribeBulkOperationOutput is its response.
type DescribeBulkOperationOutput struct {
	BulkOperationDescription *BulkOperationDescription `json:"BulkOperationDescription"`
}

// ListBulkOperationsInput is ListBulkOperations's request.
type ListBulkOperationsInput struct {
	MaxResults *int64  `json:"MaxResults,omitempty"`
	NextToken  *string `json:"NextToken,omitempty"`
}

// ListBulkOperationsOutput is its response.
type ListBulkOperationsOutput struct {
	BulkOperationsSummaryList []BulkOperationSummary `json:"BulkOperationsSummaryList"`
	NextToken                 *string                `json:"NextToken,omitempty"`
}

// CancelBulkOperationInput is CancelBulkOperation's request.
type CancelBulkOperationInput struct {
	BulkOperationArn *string `json:"BulkOperationArn,omitempty"`
}

// CancelBulkOperationOutput is its response.
type CancelBulkOperationOutput struct {
	BulkOperationArn    *string `json:"BulkOperationArn"`
	BulkOperationStatus string  `json:"BulkOperationStatus"`
}
