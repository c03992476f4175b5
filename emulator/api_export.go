package emulator

// Request and response shapes of ExportTableToPointInTime, DescribeExport,
// ListExports, ImportTable, DescribeImport and ListImports (JSON tags as on
// the wire).

// IncrementalExportSpecification is an incremental export's window.
type IncrementalExportSpecification struct {
	ExportFromTime *float64 `json:"ExportFromTime,omitempty"`
	ExportToTime   *float64 `json:"ExportToTime,omitempty"`
	ExportViewType *string  `json:"ExportViewType,omitempty"`
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
