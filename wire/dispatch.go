package wire

import (
	"context"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

// Target prefixes of the JSON 1.0 APIs served on the port.
const (
	targetDynamoDB = "DynamoDB_20120810."
	targetStreams  = "DynamoDBStreams_20120810."
	targetSTSJSON  = "AWSSecurityTokenServiceV20110615."
)

// operation decodes a request body, runs it on the engine and returns the
// value to encode as the response body.
type operation func(ctx context.Context, e *emulator.Engine, ns api.Namespace, body []byte) (any, error)

// op adapts an engine method (as a method expression, e.g.
// (*emulator.Engine).GetItem) to an operation: one generic adapter, so every
// operation decodes and encodes the same way.
func op[I, O any](f func(*emulator.Engine, context.Context, api.Namespace, *I) (*O, error)) operation {
	return func(ctx context.Context, e *emulator.Engine, ns api.Namespace, body []byte) (any, error) {
		in := new(I)
		if derr := decodeInput(body, in); derr != nil {
			return nil, derr
		}
		out, err := f(e, ctx, ns, in)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return struct{}{}, nil
		}
		return out, nil
	}
}

// emptyBody is the output of an operation DynamoDB answers with an empty
// body rather than "{}".
type emptyBody struct{}

// noBody makes f answer success with an empty body (TagResource and
// UntagResource, as the service does).
func noBody(f operation) operation {
	return func(ctx context.Context, e *emulator.Engine, ns api.Namespace, body []byte) (any, error) {
		if _, err := f(ctx, e, ns, body); err != nil {
			return nil, err
		}
		return emptyBody{}, nil
	}
}

// dynamoDBOperations is the dispatch table of DynamoDB_20120810.<Op>: every
// engine method with the operation signature. TestDispatchCoversEngine keeps
// it complete.
func dynamoDBOperations() map[string]operation {
	return map[string]operation{
		// Control plane.
		"CreateTable":                         op((*emulator.Engine).CreateTable),
		"DescribeTable":                       op((*emulator.Engine).DescribeTable),
		"ListTables":                          op((*emulator.Engine).ListTables),
		"DeleteTable":                         op((*emulator.Engine).DeleteTable),
		"UpdateTable":                         op((*emulator.Engine).UpdateTable),
		"TagResource":                         noBody(op((*emulator.Engine).TagResource)),
		"UntagResource":                       noBody(op((*emulator.Engine).UntagResource)),
		"ListTagsOfResource":                  op((*emulator.Engine).ListTagsOfResource),
		"UpdateTimeToLive":                    op((*emulator.Engine).UpdateTimeToLive),
		"DescribeTimeToLive":                  op((*emulator.Engine).DescribeTimeToLive),
		"UpdateContinuousBackups":             op((*emulator.Engine).UpdateContinuousBackups),
		"DescribeContinuousBackups":           op((*emulator.Engine).DescribeContinuousBackups),
		"UpdateContributorInsights":           op((*emulator.Engine).UpdateContributorInsights),
		"DescribeContributorInsights":         op((*emulator.Engine).DescribeContributorInsights),
		"ListContributorInsights":             op((*emulator.Engine).ListContributorInsights),
		"CreateBackup":                        op((*emulator.Engine).CreateBackup),
		"DescribeBackup":                      op((*emulator.Engine).DescribeBackup),
		"ListBackups":                         op((*emulator.Engine).ListBackups),
		"DeleteBackup":                        op((*emulator.Engine).DeleteBackup),
		"RestoreTableToPointInTime":           op((*emulator.Engine).RestoreTableToPointInTime),
		"RestoreTableFromBackup":              op((*emulator.Engine).RestoreTableFromBackup),
		"DescribeLimits":                      op((*emulator.Engine).DescribeLimits),
		"DescribeEndpoints":                   op((*emulator.Engine).DescribeEndpoints),
		"PutResourcePolicy":                   op((*emulator.Engine).PutResourcePolicy),
		"EnableKinesisStreamingDestination":   op((*emulator.Engine).EnableKinesisStreamingDestination),
		"DisableKinesisStreamingDestination":  op((*emulator.Engine).DisableKinesisStreamingDestination),
		"UpdateKinesisStreamingDestination":   op((*emulator.Engine).UpdateKinesisStreamingDestination),
		"DescribeKinesisStreamingDestination": op((*emulator.Engine).DescribeKinesisStreamingDestination),
		"GetResourcePolicy":                   op((*emulator.Engine).GetResourcePolicy),
		"DeleteResourcePolicy":                op((*emulator.Engine).DeleteResourcePolicy),
		// Global tables version 2017.11.29 (legacy).
		"CreateGlobalTable":           op((*emulator.Engine).CreateGlobalTable),
		"DescribeGlobalTable":         op((*emulator.Engine).DescribeGlobalTable),
		"UpdateGlobalTable":           op((*emulator.Engine).UpdateGlobalTable),
		"ListGlobalTables":            op((*emulator.Engine).ListGlobalTables),
		"DescribeGlobalTableSettings": op((*emulator.Engine).DescribeGlobalTableSettings),
		"UpdateGlobalTableSettings":   op((*emulator.Engine).UpdateGlobalTableSettings),
		// Replica auto scaling.
		"DescribeTableReplicaAutoScaling": op((*emulator.Engine).DescribeTableReplicaAutoScaling),
		"UpdateTableReplicaAutoScaling":   op((*emulator.Engine).UpdateTableReplicaAutoScaling),
		"ExportTableToPointInTime":        op((*emulator.Engine).ExportTableToPointInTime),
		"DescribeExport":                  op((*emulator.Engine).DescribeExport),
		"ListExports":                     op((*emulator.Engine).ListExports),
		"ImportTable":                     op((*emulator.Engine).ImportTable),
		"DescribeImport":                  op((*emulator.Engine).DescribeImport),
		"ListImports":                     op((*emulator.Engine).ListImports),
		"StartBulkPutItems":               op((*emulator.Engine).StartBulkPutItems),
		"DescribeBulkOperation":           op((*emulator.Engine).DescribeBulkOperation),
		"ListBulkOperations":              op((*emulator.Engine).ListBulkOperations),
		"CancelBulkOperation":             op((*emulator.Engine).CancelBulkOperation),
		// Data plane.
		"GetItem":            op((*emulator.Engine).GetItemStored),
		"PutItem":            op((*emulator.Engine).PutItem),
		"UpdateItem":         op((*emulator.Engine).UpdateItem),
		"DeleteItem":         op((*emulator.Engine).DeleteItem),
		"Query":              op((*emulator.Engine).QueryStored),
		"Scan":               op((*emulator.Engine).ScanStored),
		"SearchVectors":      op((*emulator.Engine).SearchVectors),
		"BatchGetItem":       op((*emulator.Engine).BatchGetItemStored),
		"BatchWriteItem":     op((*emulator.Engine).BatchWriteItem),
		"TransactGetItems":   op((*emulator.Engine).TransactGetItems),
		"TransactWriteItems": op((*emulator.Engine).TransactWriteItems),
		// PartiQL.
		"ExecuteStatement":      op((*emulator.Engine).ExecuteStatement),
		"BatchExecuteStatement": op((*emulator.Engine).BatchExecuteStatement),
		"ExecuteTransaction":    op((*emulator.Engine).ExecuteTransaction),
	}
}

// streamsOperations is the dispatch table of DynamoDBStreams_20120810.<Op>.
func streamsOperations() map[string]operation {
	return map[string]operation{
		"ListStreams":      op((*emulator.Engine).ListStreams),
		"DescribeStream":   op((*emulator.Engine).DescribeStream),
		"GetShardIterator": op((*emulator.Engine).GetShardIterator),
		"GetRecords":       op((*emulator.Engine).GetRecords),
	}
}
