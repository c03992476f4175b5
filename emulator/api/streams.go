package api

import "github.com/extenddb/extenddb/emulator/av"

// Request and response types of the DynamoDB Streams API
// (DynamoDBStreams_20120810.*), with the members and casing of its JSON
// protocol.

// ListStreamsInput is ListStreams' request.
type ListStreamsInput struct {
	TableName               *string `json:"TableName,omitempty"`
	Limit                   *int64  `json:"Limit,omitempty"`
	ExclusiveStartStreamArn *string `json:"ExclusiveStartStreamArn,omitempty"`
}

// StreamSummary is one entry of ListStreams.
type StreamSummary struct {
	StreamArn   string `json:"StreamArn"`
	TableName   string `json:"TableName"`
	StreamLabel string `json:"StreamLabel"`
}

// ListStreamsOutput is ListStreams' response.
type ListStreamsOutput struct {
	Streams                []StreamSummary `json:"Streams"`
	LastEvaluatedStreamArn string          `json:"LastEvaluatedStreamArn,omitempty"`
}

// DescribeStreamInput is DescribeStream's request.
type DescribeStreamInput struct {
	StreamArn             *string      `json:"StreamArn,omitempty"`
	Limit                 *int64       `json:"Limit,omitempty"`
	ExclusiveStartShardId *string      `json:"ExclusiveStartShardId,omitempty"`
	ShardFilter           *ShardFilter `json:"ShardFilter,omitempty"`
}

// ShardFilter narrows DescribeStream's shards; CHILD_SHARDS lists the
// children of ShardId.
type ShardFilter struct {
	Type    *string `json:"Type,omitempty"`
	ShardId *string `json:"ShardId,omitempty"`
}

// SequenceNumberRange is a shard's first and (once closed) last sequence number.
type SequenceNumberRange struct {
	StartingSequenceNumber string `json:"StartingSequenceNumber,omitempty"`
	EndingSequenceNumber   string `json:"EndingSequenceNumber,omitempty"`
}

// StreamShard is one shard of DescribeStream.
type StreamShard struct {
	ShardId             string              `json:"ShardId"`
	ParentShardId       string              `json:"ParentShardId,omitempty"`
	SequenceNumberRange SequenceNumberRange `json:"SequenceNumberRange"`
}

// StreamDescription is DescribeStream's StreamDescription.
type StreamDescription struct {
	StreamArn               string             `json:"StreamArn"`
	StreamLabel             string             `json:"StreamLabel"`
	StreamStatus            string             `json:"StreamStatus"`
	StreamViewType          string             `json:"StreamViewType"`
	CreationRequestDateTime float64            `json:"CreationRequestDateTime"`
	TableName               string             `json:"TableName"`
	KeySchema               []KeySchemaElement `json:"KeySchema"`
	Shards                  []StreamShard      `json:"Shards"`
	LastEvaluatedShardId    string             `json:"LastEvaluatedShardId,omitempty"`
}

// DescribeStreamOutput is DescribeStream's response.
type DescribeStreamOutput struct {
	StreamDescription StreamDescription `json:"StreamDescription"`
}

// GetShardIteratorInput is GetShardIterator's request.
type GetShardIteratorInput struct {
	StreamArn         *string `json:"StreamArn,omitempty"`
	ShardId           *string `json:"ShardId,omitempty"`
	ShardIteratorType *string `json:"ShardIteratorType,omitempty"`
	SequenceNumber    *string `json:"SequenceNumber,omitempty"`
	// Timestamp is AT_TIMESTAMP's position: Unix epoch seconds, with
	// milliseconds as a fraction.
	Timestamp *float64 `json:"Timestamp,omitempty"`
}

// GetShardIteratorOutput is GetShardIterator's response.
type GetShardIteratorOutput struct {
	ShardIterator string `json:"ShardIterator,omitempty"`
}

// GetRecordsInput is GetRecords' request.
type GetRecordsInput struct {
	ShardIterator *string `json:"ShardIterator,omitempty"`
	Limit         *int64  `json:"Limit,omitempty"`
}

// StreamIdentity is a record's userIdentity (TTL deletions only).
type StreamIdentity struct {
	PrincipalId string `json:"PrincipalId"`
	Type        string `json:"Type"`
}

// StreamRecordData is a record's dynamodb member.
type StreamRecordData struct {
	ApproximateCreationDateTime int64   `json:"ApproximateCreationDateTime"`
	Keys                        av.Item `json:"Keys"`
	NewImage                    av.Item `json:"NewImage,omitempty"`
	OldImage                    av.Item `json:"OldImage,omitempty"`
	SequenceNumber              string  `json:"SequenceNumber"`
	SizeBytes                   int64   `json:"SizeBytes"`
	StreamViewType              string  `json:"StreamViewType"`
}

// StreamRecord is one record of GetRecords.
type StreamRecord struct {
	AwsRegion    string           `json:"awsRegion"`
	Dynamodb     StreamRecordData `json:"dynamodb"`
	EventID      string           `json:"eventID"`
	EventName    string           `json:"eventName"`
	EventSource  string           `json:"eventSource"`
	EventVersion string           `json:"eventVersion"`
	UserIdentity *StreamIdentity  `json:"userIdentity,omitempty"`
}

// GetRecordsOutput is GetRecords' response.
type GetRecordsOutput struct {
	Records           []StreamRecord `json:"Records"`
	NextShardIterator string         `json:"NextShardIterator,omitempty"`
}
