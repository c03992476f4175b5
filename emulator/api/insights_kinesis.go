package api

// Shapes of CloudWatch Contributor Insights and Kinesis Data Streams
// streaming destinations.

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
