package wire

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/rs/zerolog"
)

// unknownOperation is the error for a target no handler serves. Unlike
// DynamoDB (whose UnknownOperationException has no message) it says which
// operation, and whether ExtendDB lacks it or DynamoDB has no such thing.
func unknownOperation(target string) *api.Error {
	msg := "Unknown operation: " + target
	switch {
	case target == "":
		msg = "Missing X-Amz-Target header: it names the operation, e.g. DynamoDB_20120810.ListTables"
	case isAPIOperation(target):
		msg = "ExtendDB does not implement " + target + " yet; docs/differences.md lists what is missing"
	}
	return &api.Error{Code: api.CodeUnknownOperation, Message: msg}
}

// isAPIOperation reports whether target is an operation of DynamoDB or
// DynamoDB Streams (botocore's service models, 2012-08-10), implemented or not.
func isAPIOperation(target string) bool {
	if op, ok := strings.CutPrefix(target, targetStreams); ok {
		return strings.Contains(" DescribeStream GetRecords GetShardIterator ListStreams ", " "+op+" ")
	}
	op, ok := strings.CutPrefix(target, targetDynamoDB)
	return ok && op != "" && !strings.Contains(op, " ") && strings.Contains(dynamoDBAPIOperations, " "+op+" ")
}

const dynamoDBAPIOperations = " BatchExecuteStatement BatchGetItem BatchWriteItem CancelBulkOperation CreateBackup CreateGlobalTable CreateTable" +
	" DeleteBackup DeleteItem DeleteResourcePolicy DeleteTable DescribeBackup DescribeContinuousBackups" +
	" DescribeBulkOperation DescribeContributorInsights DescribeEndpoints DescribeExport DescribeGlobalTable DescribeGlobalTableSettings" +
	" DescribeImport DescribeKinesisStreamingDestination DescribeLimits DescribeTable DescribeTableReplicaAutoScaling" +
	" DescribeTimeToLive DisableKinesisStreamingDestination EnableKinesisStreamingDestination ExecuteStatement" +
	" ExecuteTransaction ExportTableToPointInTime GetItem GetResourcePolicy ImportTable ListBackups" +
	" ListBulkOperations ListContributorInsights ListExports ListGlobalTables ListImports ListTables ListTagsOfResource PutItem" +
	" PutResourcePolicy Query RestoreTableFromBackup RestoreTableToPointInTime Scan StartBulkPutItems TagResource TransactGetItems" +
	" TransactWriteItems UntagResource UpdateContinuousBackups UpdateContributorInsights UpdateGlobalTable" +
	" UpdateGlobalTableSettings UpdateItem UpdateKinesisStreamingDestination UpdateTable" +
	" UpdateTableReplicaAutoScaling UpdateTimeToLive "

// requestLog is what one DynamoDB or Streams request leaves in the log.
type requestLog struct {
	target, requestID string
	ns                api.Namespace
	body              []byte
	usage             *emulator.Usage
	status            int
	err               *api.Error // nil on success
	// stopped is RequestDone.Stopped: why the work stopped early.
	stopped string
	// reason, when set, says what about the request was unusual (a
	// missing Content-Type, a body that is not JSON).
	reason string
	start  time.Time
}

// maxTableNameScan bounds the body searched for a TableName when the
// engine charged no capacity (control plane, early errors): a log line must
// not cost a second parse of a 16 MB batch.
const maxTableNameScan = 64 << 10

// logRequest writes the request line at info: operation, table, status,
// error code, consumed capacity, duration. Throttled and unimplemented
// requests get a warn line saying why.
func (h *handler) logRequest(l requestLog) {
	op := l.target
	if i := strings.LastIndexByte(op, '.'); i >= 0 {
		op = op[i+1:]
	}
	table := ""
	if l.usage != nil {
		table = l.usage.TableList()
	}
	if table == "" && len(l.body) <= maxTableNameScan {
		var in struct{ TableName, StreamArn string }
		if json.Unmarshal(l.body, &in) == nil {
			table = in.TableName
			if table == "" {
				table = in.StreamArn
			}
		}
	}
	lvl := zerolog.InfoLevel
	if l.stopped != "" {
		lvl = zerolog.WarnLevel
	}
	code := ""
	if l.err != nil {
		code = l.err.Code
		switch code {
		case api.CodeThrottling, api.CodeProvisionedThroughputExceeded, api.CodeRequestLimitExceeded, api.CodeUnknownOperation:
			lvl = zerolog.WarnLevel
		}
	}
	ev := h.log.WithLevel(lvl)
	if ev == nil {
		return
	}
	ev = ev.Str("op", op)
	if table != "" {
		ev = ev.Str("table", table)
	}
	if l.status != 0 {
		ev = ev.Int("status", l.status)
	}
	if code != "" {
		ev = ev.Str("error", code)
	}
	if l.reason != "" {
		ev = ev.Str("reason", l.reason)
	}
	if l.usage != nil {
		if r, w := l.usage.Units(); r > 0 || w > 0 {
			if r > 0 {
				ev = ev.Float64("rcu", r)
			}
			if w > 0 {
				ev = ev.Float64("wcu", w)
			}
		}
	}
	ev = ev.Float64("ms", float64(time.Since(l.start).Microseconds())/1000).
		Str("account", l.ns.Account).Str("region", l.ns.Region).Str("requestId", l.requestID)
	switch {
	case l.stopped == StoppedCancelled:
		ev.Str("stopped", l.stopped).Msg("stopped: the client went away before the answer")
	case l.stopped == StoppedDeadline:
		ev.Str("stopped", l.stopped).Msg("stopped: the request ran past --request-timeout")
	case code == api.CodeUnknownOperation:
		ev.Str("target", l.target).Msg(l.err.Message)
	case lvl == zerolog.WarnLevel:
		if rs := l.err.ThrottlingReasons; len(rs) > 0 {
			// The first names the limit hit; the rest are in the response.
			ev = ev.Str("reason", rs[0].Reason).Str("resource", rs[0].Resource)
		}
		ev.Msg("throttled: " + l.err.Message)
	default:
		if l.err != nil && l.err.Message != "" {
			// The message the client got, so a failing client run can be
			// matched to its cause in the log (not under "message", the
			// line's own).
			ev = ev.Str("errorMessage", l.err.Message)
		}
		ev.Msg("request")
	}
}
