package api

import "github.com/extenddb/extenddb/emulator/av"

// Request and response shapes of ExportTableToPointInTime, DescribeExport,
// ListExports, ImportTable, DescribeImport and ListImports (JSON tags as on
// the wire).

// IncrementalExportSpecification is an incremental export's window.
type IncrementalExportSpecification struct {
	ExportFromTime *float64 `json:"ExportFromTime,omitempty"`
	ExportToTime   *float64 `json:"ExportToTime,omitempty"`
	ExportViewType *string  `json:"ExportViewType,omitempty"`
}

// FilterSpecification limits a filtered export to the items a key
// condition and a filter select, and to the attributes a projection names
// (Developer Guide, "Filtering a table export").
type FilterSpecification struct {
	KeyConditionExpression    *string             `json:"KeyConditionExpression,omitempty"`
	FilterExpression          *string             `json:"FilterExpression,omitempty"`
	ProjectionExpression      *string             `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string   `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]av.Value `json:"ExpressionAttributeValues,omitempty"`
}

// ExportTableToPointInTimeInput is ExportTableToPointInTime's request.
type ExportTableToPointInTimeInput struct {
	TableArn                       *string                         `json:"TableArn,omitempty"`
	ExportTime                     *float64                        `json:"ExportTime,omitempty"`
	ClientToken                    *string                         `json:"ClientToken,omitempty"`
	S3Bucket                       *string                         `json:"S3Bucket,omitempty"`
	S3BucketOwner                  *string                         `json:"S3BucketOwner,omitempty"`
	S3Prefix                       *string                         `json:"S3Prefix,omitempty"`
	S3SseAlgorithm                 *string                         `json:"S3SseAlgorithm,omitempty"`
	S3SseKmsKeyId                  *string                         `json:"S3SseKmsKeyId,omitempty"`
	ExportFormat                   *string                         `json:"ExportFormat,omitempty"`
	ExportType                     *string                         `json:"ExportType,omitempty"`
	IncrementalExportSpecification *IncrementalExportSpecification `json:"IncrementalExportSpecification,omitempty"`
	FilterSpecification            *FilterSpecification            `json:"FilterSpecification,omitempty"`
}

// ExportDescription describes an export.
type ExportDescription struct {
	ExportArn                      string                          `json:"ExportArn"`
	ExportStatus                   string                          `json:"ExportStatus"`
	StartTime                      *float64                        `json:"StartTime,omitempty"`
	EndTime                        *float64                        `json:"EndTime,omitempty"`
	ExportManifest                 *string                         `json:"ExportManifest,omitempty"`
	TableArn                       string                          `json:"TableArn"`
	TableId                        string                          `json:"TableId"`
	ExportTime                     *float64                        `json:"ExportTime,omitempty"`
	ClientToken                    *string                         `json:"ClientToken,omitempty"`
	S3Bucket                       string                          `json:"S3Bucket"`
	S3BucketOwner                  *string                         `json:"S3BucketOwner,omitempty"`
	S3Prefix                       *string                         `json:"S3Prefix,omitempty"`
	S3SseAlgorithm                 *string                         `json:"S3SseAlgorithm,omitempty"`
	S3SseKmsKeyId                  *string                         `json:"S3SseKmsKeyId,omitempty"`
	FailureCode                    *string                         `json:"FailureCode,omitempty"`
	FailureMessage                 *string                         `json:"FailureMessage,omitempty"`
	ExportFormat                   string                          `json:"ExportFormat"`
	BilledSizeBytes                *int64                          `json:"BilledSizeBytes,omitempty"`
	ItemCount                      *int64                          `json:"ItemCount,omitempty"`
	ExportType                     string                          `json:"ExportType"`
	IncrementalExportSpecification *IncrementalExportSpecification `json:"IncrementalExportSpecification,omitempty"`
	FilterSpecification            *FilterSpecification            `json:"FilterSpecification,omitempty"`
}

// ExportTableToPointInTimeOutput is its response.
type ExportTableToPointInTimeOutput struct {
	ExportDescription *ExportDescription `json:"ExportDescription,omitempty"`
}

// DescribeExportInput is DescribeExport's request.
type DescribeExportInput struct {
	ExportArn *string `json:"ExportArn,omitempty"`
}

// DescribeExportOutput is its response.
type DescribeExportOutput struct {
	ExportDescription *ExportDescription `json:"ExportDescription,omitempty"`
}

// ListExportsInput is ListExports' request.
type ListExportsInput struct {
	TableArn   *string `json:"TableArn,omitempty"`
	MaxResults *int64  `json:"MaxResults,omitempty"`
	NextToken  *string `json:"NextToken,omitempty"`
}

// ExportSummary is one entry of ListExports.
type ExportSummary struct {
	ExportArn    string `json:"ExportArn"`
	ExportStatus string `json:"ExportStatus"`
	ExportType   string `json:"ExportType"`
}

// ListExportsOutput is its response.
type ListExportsOutput struct {
	ExportSummaries []ExportSummary `json:"ExportSummaries"`
	NextToken       *string         `json:"NextToken,omitempty"`
}

// S3BucketSource is where an import reads from.
type S3BucketSource struct {
	S3Bucket      *string `json:"S3Bucket,omitempty"`
	S3BucketOwner *string `json:"S3BucketOwner,omitempty"`
	S3KeyPrefix   *string `json:"S3KeyPrefix,omitempty"`
}

// CsvOptions are a CSV import's options.
type CsvOptions struct {
	Delimiter  *string  `json:"Delimiter,omitempty"`
	HeaderList []string `json:"HeaderList,omitempty"`
}

// InputFormatOptions holds the options of the input format.
type InputFormatOptions struct {
	Csv *CsvOptions `json:"Csv,omitempty"`
}

// TableCreationParameters is the table an import creates.
type TableCreationParameters struct {
	TableName              *string                `json:"TableName,omitempty"`
	AttributeDefinitions   []AttributeDefinition  `json:"AttributeDefinitions,omitempty"`
	KeySchema              []KeySchemaElement     `json:"KeySchema,omitempty"`
	BillingMode            *string                `json:"BillingMode,omitempty"`
	ProvisionedThroughput  *ProvisionedThroughput `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput     *OnDemandThroughput    `json:"OnDemandThroughput,omitempty"`
	SSESpecification       *SSESpecification      `json:"SSESpecification,omitempty"`
	GlobalSecondaryIndexes []GlobalSecondaryIndex `json:"GlobalSecondaryIndexes,omitempty"`
	VectorIndexes          []VectorIndex          `json:"VectorIndexes,omitempty"`
}

// ImportTableInput is ImportTable's request.
type ImportTableInput struct {
	ClientToken             *string                  `json:"ClientToken,omitempty"`
	S3BucketSource          *S3BucketSource          `json:"S3BucketSource,omitempty"`
	InputFormat             *string                  `json:"InputFormat,omitempty"`
	InputFormatOptions      *InputFormatOptions      `json:"InputFormatOptions,omitempty"`
	InputCompressionType    *string                  `json:"InputCompressionType,omitempty"`
	TableCreationParameters *TableCreationParameters `json:"TableCreationParameters,omitempty"`
}

// ImportTableDescription describes an import.
type ImportTableDescription struct {
	ImportArn               string                   `json:"ImportArn"`
	ImportStatus            string                   `json:"ImportStatus"`
	TableArn                string                   `json:"TableArn"`
	TableId                 string                   `json:"TableId"`
	ClientToken             *string                  `json:"ClientToken,omitempty"`
	S3BucketSource          *S3BucketSource          `json:"S3BucketSource,omitempty"`
	ErrorCount              int64                    `json:"ErrorCount"`
	CloudWatchLogGroupArn   string                   `json:"CloudWatchLogGroupArn"`
	InputFormat             string                   `json:"InputFormat"`
	InputFormatOptions      *InputFormatOptions      `json:"InputFormatOptions,omitempty"`
	InputCompressionType    string                   `json:"InputCompressionType"`
	TableCreationParameters *TableCreationParameters `json:"TableCreationParameters,omitempty"`
	StartTime               *float64                 `json:"StartTime,omitempty"`
	EndTime                 *float64                 `json:"EndTime,omitempty"`
	ProcessedSizeBytes      *int64                   `json:"ProcessedSizeBytes,omitempty"`
	ProcessedItemCount      int64                    `json:"ProcessedItemCount"`
	ImportedItemCount       int64                    `json:"ImportedItemCount"`
	FailureCode             *string                  `json:"FailureCode,omitempty"`
	FailureMessage          *string                  `json:"FailureMessage,omitempty"`
}

// ImportTableOutput is ImportTable's response.
type ImportTableOutput struct {
	ImportTableDescription *ImportTableDescription `json:"ImportTableDescription,omitempty"`
}

// DescribeImportInput is DescribeImport's request.
type DescribeImportInput struct {
	ImportArn *string `json:"ImportArn,omitempty"`
}

// DescribeImportOutput is its response.
type DescribeImportOutput struct {
	ImportTableDescription *ImportTableDescription `json:"ImportTableDescription,omitempty"`
}

// ListImportsInput is ListImports' request.
type ListImportsInput struct {
	TableArn  *string `json:"TableArn,omitempty"`
	PageSize  *int64  `json:"PageSize,omitempty"`
	NextToken *string `json:"NextToken,omitempty"`
}

// ImportSummary is one entry of ListImports.
type ImportSummary struct {
	ImportArn             string          `json:"ImportArn"`
	ImportStatus          string          `json:"ImportStatus"`
	TableArn              string          `json:"TableArn"`
	S3BucketSource        *S3BucketSource `json:"S3BucketSource,omitempty"`
	CloudWatchLogGroupArn string          `json:"CloudWatchLogGroupArn"`
	InputFormat           string          `json:"InputFormat"`
	StartTime             *float64        `json:"StartTime,omitempty"`
	EndTime               *float64        `json:"EndTime,omitempty"`
}

// ListImportsOutput is its response.
type ListImportsOutput struct {
	ImportSummaryList []ImportSummary `json:"ImportSummaryList"`
	NextToken         *string         `json:"NextToken,omitempty"`
}
