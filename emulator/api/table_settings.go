package api

// Shapes of tags, Time to Live, continuous backups (point-in-time recovery),
// DescribeLimits, DescribeEndpoints and resource-based policies.

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
