package capacity

import (
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/throttle"
)

// Messages of the three throttle errors. The first three are the texts the
// service sent in the measurements behind the seed (docs/throttling.md,
// "Refusals: cause → error"); the account quota's is the documented text
// (Programming.Errors.html).
const (
	// MsgProvisionedThroughputExceeded is a provisioned table's own
	// capacity or one of its partition key values running out.
	MsgProvisionedThroughputExceeded = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	// MsgOnDemandThroughputExceeded is an on-demand table's hot key or its
	// default per-table ceiling.
	MsgOnDemandThroughputExceeded = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	// MsgMaxOnDemandThroughputExceeded is an on-demand table at its
	// OnDemandThroughput cap.
	MsgMaxOnDemandThroughputExceeded = "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
	// MsgAccountThroughputExceeded is the account's aggregate in a Region.
	MsgAccountThroughputExceeded = "Throughput exceeds the current throughput limit for your account. To request a limit increase, contact AWS Support at https://aws.amazon.com/support."
	// MsgIndexProvisionedThroughputExceeded is a base-table write refused
	// because a provisioned GSI it touches is out of capacity (the text the
	// service sent before the 2025 launch, and the TransactionCanceledException
	// documentation's; the final period follows the table text's post-launch
	// form and the documentation, unverified on the wire).
	MsgIndexProvisionedThroughputExceeded = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API."
	// MsgIndexOnDemandThroughputExceeded is a base-table write refused
	// because an on-demand GSI it touches is at its default ceiling or has a
	// hot key (the TransactionCanceledException documentation's text).
	MsgIndexOnDemandThroughputExceeded = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
)

// Throttling reasons (ResourceType + OperationType + LimitType): the Table
// forms name a table's capacity, the Index forms a global secondary
// index's (a read of it, or its share of a base-table write).
const (
	ReasonTableReadProvisionedThroughputExceeded  = "TableReadProvisionedThroughputExceeded"
	ReasonTableWriteProvisionedThroughputExceeded = "TableWriteProvisionedThroughputExceeded"
	ReasonTableReadKeyRangeThroughputExceeded     = "TableReadKeyRangeThroughputExceeded"
	ReasonTableWriteKeyRangeThroughputExceeded    = "TableWriteKeyRangeThroughputExceeded"
	ReasonTableReadMaxOnDemandThroughputExceeded  = "TableReadMaxOnDemandThroughputExceeded"
	ReasonTableWriteMaxOnDemandThroughputExceeded = "TableWriteMaxOnDemandThroughputExceeded"
	ReasonTableReadAccountLimitExceeded           = "TableReadAccountLimitExceeded"
	ReasonTableWriteAccountLimitExceeded          = "TableWriteAccountLimitExceeded"
	ReasonIndexReadProvisionedThroughputExceeded  = "IndexReadProvisionedThroughputExceeded"
	ReasonIndexWriteProvisionedThroughputExceeded = "IndexWriteProvisionedThroughputExceeded"
	ReasonIndexReadKeyRangeThroughputExceeded     = "IndexReadKeyRangeThroughputExceeded"
	ReasonIndexWriteKeyRangeThroughputExceeded    = "IndexWriteKeyRangeThroughputExceeded"
	ReasonIndexReadMaxOnDemandThroughputExceeded  = "IndexReadMaxOnDemandThroughputExceeded"
	ReasonIndexWriteMaxOnDemandThroughputExceeded = "IndexWriteMaxOnDemandThroughputExceeded"
	ReasonIndexReadAccountLimitExceeded           = "IndexReadAccountLimitExceeded"
	ReasonIndexWriteAccountLimitExceeded          = "IndexWriteAccountLimitExceeded"
)

// Cancellation reason codes of a throttled transaction action.
const (
	CancelProvisionedThroughputExceeded = "ProvisionedThroughputExceeded"
	CancelThrottlingError               = "ThrottlingError"
)

func byDirection(d throttle.Direction, read, write string) string {
	if d == throttle.Write {
		return write
	}
	return read
}

// ThrottleError returns the error the service sends when the throttle
// manager refuses a request for cause c (the seed's table):
//
//	bucket     billing               class                                   reason
//	table      provisioned           ProvisionedThroughputExceededException  Table{R|W}ProvisionedThroughputExceeded
//	partition  on-demand, write      ThrottlingException                     TableWriteKeyRangeThroughputExceeded
//	partition  on-demand, read       ThrottlingException                     none
//	table      on-demand, capped     ThrottlingException                     Table{R|W}MaxOnDemandThroughputExceeded
//	partition  provisioned           ProvisionedThroughputExceededException  Table{R|W}KeyRangeThroughputExceeded
//	table      on-demand, default    ThrottlingException                     Table{R|W}AccountLimitExceeded
//	account    any                   RequestLimitExceeded                    Table{R|W}AccountLimitExceeded
//
// resource is the table's ARN as DescribeTable returns it; the reasons list
// holds exactly one {reason, resource} entry, or none when there is no
// reason or resource is "" (a name no table can have, see
// ThrottleResource). A cause naming no bucket, which the manager never
// returns, gets the on-demand class and message with no reasons. A cause
// naming a global secondary index is indexThrottleError's.
func ThrottleError(c throttle.Cause, resource string) *api.Error {
	if c.Index != "" {
		return indexThrottleError(c, resource)
	}
	var code, msg, reason string
	d := c.Direction
	switch {
	case c.Bucket == throttle.BucketAccount:
		code, msg = api.CodeRequestLimitExceeded, MsgAccountThroughputExceeded
		reason = byDirection(d, ReasonTableReadAccountLimitExceeded, ReasonTableWriteAccountLimitExceeded)
	case c.Bucket == throttle.BucketTable && c.Billing == throttle.Provisioned:
		code, msg = api.CodeProvisionedThroughputExceeded, MsgProvisionedThroughputExceeded
		reason = byDirection(d, ReasonTableReadProvisionedThroughputExceeded, ReasonTableWriteProvisionedThroughputExceeded)
	case c.Bucket == throttle.BucketTable && c.Billing == throttle.OnDemand && c.Capped:
		code, msg = api.CodeThrottling, MsgMaxOnDemandThroughputExceeded
		reason = byDirection(d, ReasonTableReadMaxOnDemandThroughputExceeded, ReasonTableWriteMaxOnDemandThroughputExceeded)
	case c.Bucket == throttle.BucketTable && c.Billing == throttle.OnDemand:
		code, msg = api.CodeThrottling, MsgOnDemandThroughputExceeded
		reason = byDirection(d, ReasonTableReadAccountLimitExceeded, ReasonTableWriteAccountLimitExceeded)
	case c.Bucket == throttle.BucketPartition && c.Billing == throttle.Provisioned:
		code, msg = api.CodeProvisionedThroughputExceeded, MsgProvisionedThroughputExceeded
		reason = byDirection(d, ReasonTableReadKeyRangeThroughputExceeded, ReasonTableWriteKeyRangeThroughputExceeded)
	case c.Bucket == throttle.BucketPartition && c.Billing == throttle.OnDemand:
		// Measured: 5,615 of 5,615 hot-key reads carried no reasons list.
		code, msg = api.CodeThrottling, MsgOnDemandThroughputExceeded
		reason = byDirection(d, "", ReasonTableWriteKeyRangeThroughputExceeded)
	default:
		code, msg = api.CodeThrottling, MsgOnDemandThroughputExceeded
	}
	e := &api.Error{Code: code, Message: msg}
	if reason != "" && resource != "" {
		e.ThrottlingReasons = []api.ThrottlingReason{{Reason: reason, Resource: resource}}
	}
	return e
}

// indexThrottleError is ThrottleError for a refusal on behalf of global
// secondary index c.Index; resource is the index's ARN
// (…:table/T/index/I). The class follows the limit as for a table, with
// the Index form of the same reason. The message is the table's for a read
// of the index (what the service sent for index reads in the seed's
// measurements) and the GSI text for a base-table write the index held
// back (gsi-throttling.html's back-pressure):
//
//	bucket           billing             class                                   reason
//	index            provisioned         ProvisionedThroughputExceededException  Index{R|W}ProvisionedThroughputExceeded
//	index partition  provisioned         ProvisionedThroughputExceededException  Index{R|W}KeyRangeThroughputExceeded
//	index partition  on-demand, write    ThrottlingException                     IndexWriteKeyRangeThroughputExceeded
//	index partition  on-demand, read     ThrottlingException                     none, as for a table
//	index at caps    on-demand           ThrottlingException                     Index{R|W}MaxOnDemandThroughputExceeded
//	index or quota   on-demand, default  ThrottlingException                     Index{R|W}AccountLimitExceeded
//	account          any                 RequestLimitExceeded                    Index{R|W}AccountLimitExceeded
func indexThrottleError(c throttle.Cause, resource string) *api.Error {
	var code, msg, reason string
	d := c.Direction
	ptMsg := byDirection(d, MsgProvisionedThroughputExceeded, MsgIndexProvisionedThroughputExceeded)
	odMsg := byDirection(d, MsgOnDemandThroughputExceeded, MsgIndexOnDemandThroughputExceeded)
	switch {
	case c.Bucket == throttle.BucketAccount:
		code, msg = api.CodeRequestLimitExceeded, MsgAccountThroughputExceeded
		reason = byDirection(d, ReasonIndexReadAccountLimitExceeded, ReasonIndexWriteAccountLimitExceeded)
	case c.Bucket == throttle.BucketTable && c.Billing == throttle.Provisioned:
		code, msg = api.CodeProvisionedThroughputExceeded, ptMsg
		reason = byDirection(d, ReasonIndexReadProvisionedThroughputExceeded, ReasonIndexWriteProvisionedThroughputExceeded)
	case c.Bucket == throttle.BucketTable && c.Billing == throttle.OnDemand && c.Capped:
		code, msg = api.CodeThrottling, MsgMaxOnDemandThroughputExceeded
		reason = byDirection(d, ReasonIndexReadMaxOnDemandThroughputExceeded, ReasonIndexWriteMaxOnDemandThroughputExceeded)
	case c.Bucket == throttle.BucketTable && c.Billing == throttle.OnDemand:
		code, msg = api.CodeThrottling, odMsg
		reason = byDirection(d, ReasonIndexReadAccountLimitExceeded, ReasonIndexWriteAccountLimitExceeded)
	case c.Bucket == throttle.BucketPartition && c.Billing == throttle.Provisioned:
		code, msg = api.CodeProvisionedThroughputExceeded, ptMsg
		reason = byDirection(d, ReasonIndexReadKeyRangeThroughputExceeded, ReasonIndexWriteKeyRangeThroughputExceeded)
	case c.Bucket == throttle.BucketPartition && c.Billing == throttle.OnDemand:
		code, msg = api.CodeThrottling, odMsg
		reason = byDirection(d, "", ReasonIndexWriteKeyRangeThroughputExceeded)
	default:
		code, msg = api.CodeThrottling, odMsg
	}
	e := &api.Error{Code: code, Message: msg}
	if reason != "" && resource != "" {
		e.ThrottlingReasons = []api.ThrottlingReason{{Reason: reason, Resource: resource}}
	}
	return e
}

// ThrottleCancellationReason returns the cancellation reason of a
// transaction action the throttle manager refused for cause c: code
// ProvisionedThroughputExceeded where the request alone would get
// ProvisionedThroughputExceededException, ThrottlingError otherwise, with
// that error's message.
func ThrottleCancellationReason(c throttle.Cause) api.CancellationReason {
	e := ThrottleError(c, "")
	code := CancelThrottlingError
	if e.Code == api.CodeProvisionedThroughputExceeded {
		code = CancelProvisionedThroughputExceeded
	}
	return api.CancellationReason{Code: code, Message: e.Message}
}

// ThrottleResource returns the resource the account bucket's refusal names
// for a request's TableName member, before the engine has resolved the
// table: the ARN of the table it names, or "" for a name no table can have.
// A bare name must be a valid table name. An ARN-form name is reduced to its
// bare name first, so the resource is the table's ARN and not an ARN built
// around an ARN; it must be a table ARN (not an index or stream) in the
// request's partition and Region. Another account's table ARN names that
// table, as cross-account access resolves it.
func ThrottleResource(ns api.Namespace, tableName string) string {
	if !strings.HasPrefix(tableName, "arn:") {
		if !isTableName(tableName) {
			return ""
		}
		return ns.TableARN(tableName)
	}
	// arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME
	parts := strings.SplitN(tableName, ":", 6)
	if len(parts) != 6 || parts[1] != ns.Partition() || parts[2] != "dynamodb" ||
		parts[3] != ns.Region || parts[4] == "" {
		return ""
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || !isTableName(name) {
		return ""
	}
	return api.Namespace{Account: parts[4], Region: ns.Region}.TableARN(name)
}

// isTableName reports whether s is a valid table name: 3–255 characters of
// [a-zA-Z0-9_.-].
func isTableName(s string) bool {
	return len(s) >= 3 && len(s) <= 255 && shape.ValidName(s)
}

// ThrottleThroughput returns what a table described by d is registered with
// in the throttle manager: PAY_PER_REQUEST with its OnDemandThroughput caps
// (absent or -1 is no cap in that direction), else PROVISIONED with its
// RCU/WCU. A description without BillingModeSummary is provisioned, as the
// service omits the summary for tables that never chose a mode.
func ThrottleThroughput(d *api.TableDescription) throttle.Throughput {
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode == "PAY_PER_REQUEST" {
		tp := throttle.Throughput{Billing: throttle.OnDemand}
		if c := d.OnDemandThroughput; c != nil {
			tp.MaxReadRequestUnits, tp.MaxWriteRequestUnits = c.MaxReadRequestUnits, c.MaxWriteRequestUnits
		}
		return tp
	}
	return throttle.ProvisionedThroughput(d.ProvisionedThroughput.ReadCapacityUnits, d.ProvisionedThroughput.WriteCapacityUnits)
}
