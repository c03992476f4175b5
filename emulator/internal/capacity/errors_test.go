package capacity_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/capacity"
	"github.com/extenddb/extenddb/throttle"
)

const tableARN = "arn:aws:dynamodb:us-east-1:111122223333:table/Orders"

// The texts byte for byte (docs/throttling.md, "Refusals: cause → error"),
// so a constant edited
// by mistake fails here and not only on the wire.
const (
	wantPTEE     = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	wantHotKey   = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	wantCaps     = "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
	wantAccount  = "Throughput exceeds the current throughput limit for your account. To request a limit increase, contact AWS Support at https://aws.amazon.com/support."
	ptee         = "ProvisionedThroughputExceededException"
	throttlingEx = "ThrottlingException"
	rle          = "RequestLimitExceeded"
)

// TestThrottleError covers every row of the seed's table in both directions,
// with a resource and without one.
func TestThrottleError(t *testing.T) {
	R, W := throttle.Read, throttle.Write
	P, O, U := throttle.Provisioned, throttle.OnDemand, throttle.BillingUnknown
	table, part, acct := throttle.BucketTable, throttle.BucketPartition, throttle.BucketAccount
	cases := []struct {
		row    string
		cause  throttle.Cause
		code   string
		msg    string
		reason string // "" means no reasons list even with a resource
	}{
		{"table provisioned read", throttle.Cause{Bucket: table, Direction: R, Billing: P}, ptee, wantPTEE, "TableReadProvisionedThroughputExceeded"},
		{"table provisioned write", throttle.Cause{Bucket: table, Direction: W, Billing: P}, ptee, wantPTEE, "TableWriteProvisionedThroughputExceeded"},
		{"partition on-demand write", throttle.Cause{Bucket: part, Direction: W, Billing: O}, throttlingEx, wantHotKey, "TableWriteKeyRangeThroughputExceeded"},
		{"partition on-demand read", throttle.Cause{Bucket: part, Direction: R, Billing: O}, throttlingEx, wantHotKey, ""},
		{"table at its caps read", throttle.Cause{Bucket: table, Direction: R, Billing: O, Capped: true}, throttlingEx, wantCaps, "TableReadMaxOnDemandThroughputExceeded"},
		{"table at its caps write", throttle.Cause{Bucket: table, Direction: W, Billing: O, Capped: true}, throttlingEx, wantCaps, "TableWriteMaxOnDemandThroughputExceeded"},
		{"partition provisioned read", throttle.Cause{Bucket: part, Direction: R, Billing: P}, ptee, wantPTEE, "TableReadKeyRangeThroughputExceeded"},
		{"partition provisioned write", throttle.Cause{Bucket: part, Direction: W, Billing: P}, ptee, wantPTEE, "TableWriteKeyRangeThroughputExceeded"},
		{"table at the default ceiling read", throttle.Cause{Bucket: table, Direction: R, Billing: O}, throttlingEx, wantHotKey, "TableReadAccountLimitExceeded"},
		{"table at the default ceiling write", throttle.Cause{Bucket: table, Direction: W, Billing: O}, throttlingEx, wantHotKey, "TableWriteAccountLimitExceeded"},
		{"account provisioned read", throttle.Cause{Bucket: acct, Direction: R, Billing: P}, rle, wantAccount, "TableReadAccountLimitExceeded"},
		{"account provisioned write", throttle.Cause{Bucket: acct, Direction: W, Billing: P}, rle, wantAccount, "TableWriteAccountLimitExceeded"},
		{"account on-demand read", throttle.Cause{Bucket: acct, Direction: R, Billing: O}, rle, wantAccount, "TableReadAccountLimitExceeded"},
		{"account on-demand write", throttle.Cause{Bucket: acct, Direction: W, Billing: O}, rle, wantAccount, "TableWriteAccountLimitExceeded"},
		{"account before resolution read", throttle.Cause{Bucket: acct, Direction: R, Billing: U}, rle, wantAccount, "TableReadAccountLimitExceeded"},
		{"account before resolution write", throttle.Cause{Bucket: acct, Direction: W, Billing: U}, rle, wantAccount, "TableWriteAccountLimitExceeded"},
		// The manager never returns these; they must still be a throttle.
		{"no bucket", throttle.Cause{}, throttlingEx, wantHotKey, ""},
		{"table of unknown billing", throttle.Cause{Bucket: table, Direction: W}, throttlingEx, wantHotKey, ""},
	}
	for _, c := range cases {
		for _, resource := range []string{tableARN, ""} {
			e := capacity.ThrottleError(c.cause, resource)
			if e.Code != c.code || e.Message != c.msg {
				t.Errorf("%s (resource %q): %s %q; want %s %q", c.row, resource, e.Code, e.Message, c.code, c.msg)
			}
			var want []api.ThrottlingReason
			if c.reason != "" && resource != "" {
				want = []api.ThrottlingReason{{Reason: c.reason, Resource: resource}}
			}
			if !reflect.DeepEqual(e.ThrottlingReasons, want) {
				t.Errorf("%s (resource %q): reasons %+v, want %+v", c.row, resource, e.ThrottlingReasons, want)
			}
			if e.CancellationReasons != nil || e.Item != nil {
				t.Errorf("%s: members other than the reasons are set", c.row)
			}
		}
	}
}

func TestThrottleMessageConstants(t *testing.T) {
	for got, want := range map[string]string{
		capacity.MsgProvisionedThroughputExceeded: wantPTEE,
		capacity.MsgOnDemandThroughputExceeded:    wantHotKey,
		capacity.MsgMaxOnDemandThroughputExceeded: wantCaps,
		capacity.MsgAccountThroughputExceeded:     wantAccount,
	} {
		if got != want {
			t.Errorf("message %q, want %q", got, want)
		}
	}
}

func TestThrottleCancellationReason(t *testing.T) {
	for _, c := range []struct {
		cause throttle.Cause
		want  api.CancellationReason
	}{
		{throttle.Cause{Bucket: throttle.BucketTable, Direction: throttle.Write, Billing: throttle.Provisioned},
			api.CancellationReason{Code: "ProvisionedThroughputExceeded", Message: wantPTEE}},
		{throttle.Cause{Bucket: throttle.BucketPartition, Direction: throttle.Read, Billing: throttle.Provisioned},
			api.CancellationReason{Code: "ProvisionedThroughputExceeded", Message: wantPTEE}},
		{throttle.Cause{Bucket: throttle.BucketPartition, Direction: throttle.Write, Billing: throttle.OnDemand},
			api.CancellationReason{Code: "ThrottlingError", Message: wantHotKey}},
		{throttle.Cause{Bucket: throttle.BucketTable, Direction: throttle.Write, Billing: throttle.OnDemand, Capped: true},
			api.CancellationReason{Code: "ThrottlingError", Message: wantCaps}},
		{throttle.Cause{Bucket: throttle.BucketAccount, Direction: throttle.Write, Billing: throttle.OnDemand},
			api.CancellationReason{Code: "ThrottlingError", Message: wantAccount}},
	} {
		if got := capacity.ThrottleCancellationReason(c.cause); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %+v, want %+v", c.cause, got, c.want)
		}
	}
}

func TestThrottleResource(t *testing.T) {
	ns := api.Namespace{Account: "111122223333", Region: "us-east-1"}
	long := strings.Repeat("a", 255)
	for _, c := range []struct {
		name, want string
	}{
		{"Orders", tableARN},
		{"a.b-c_1", "arn:aws:dynamodb:us-east-1:111122223333:table/a.b-c_1"},
		{long, "arn:aws:dynamodb:us-east-1:111122223333:table/" + long},
		// An ARN naming a table of this account is reduced to its name.
		{tableARN, tableARN},
		// Another account's table, as cross-account access resolves it.
		{"arn:aws:dynamodb:us-east-1:444455556666:table/Orders", "arn:aws:dynamodb:us-east-1:444455556666:table/Orders"},
		// Names no table can have.
		{"", ""},
		{"ab", ""},
		{long + "a", ""},
		{"bad;name", ""},
		{"Orders/index/byDate", ""},
		{"arn:aws:dynamodb:eu-west-1:111122223333:table/Orders", ""},
		{"arn:aws-cn:dynamodb:us-east-1:111122223333:table/Orders", ""},
		{"arn:aws:s3:us-east-1:111122223333:table/Orders", ""},
		{"arn:aws:dynamodb:us-east-1::table/Orders", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/ab", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/Orders/index/byDate", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/Orders/stream/2026-10-20T00:00:00.000", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333:Orders", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333", ""},
		{"arn:", ""},
	} {
		if got := capacity.ThrottleResource(ns, c.name); got != c.want {
			t.Errorf("ThrottleResource(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	// Other partitions build their own ARNs.
	cn := api.Namespace{Account: "111122223333", Region: "cn-north-1"}
	if got, want := capacity.ThrottleResource(cn, "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/T_1"), "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/T_1"; got != want {
		t.Errorf("cn: %q, want %q", got, want)
	}
}

// FuzzThrottleResource: any TableName yields "" or a table ARN of the
// request's partition and Region whose name is a valid table name.
func FuzzThrottleResource(f *testing.F) {
	for _, s := range []string{"Orders", tableARN, "arn:aws:dynamodb:us-east-1:1:table/x/index/y", "arn:::::", "a;b"} {
		f.Add(s)
	}
	ns := api.Namespace{Account: "111122223333", Region: "us-east-1"}
	f.Fuzz(func(t *testing.T, name string) {
		got := capacity.ThrottleResource(ns, name)
		if got == "" {
			return
		}
		rest, ok := strings.CutPrefix(got, "arn:aws:dynamodb:us-east-1:")
		if !ok {
			t.Fatalf("%q → %q: not this partition and Region", name, got)
		}
		account, table, ok := strings.Cut(rest, ":table/")
		if !ok || account == "" || len(table) < 3 || len(table) > 255 || strings.ContainsAny(table, "/:;") {
			t.Fatalf("%q → %q: not a table ARN", name, got)
		}
		if capacity.ThrottleResource(ns, got) != got {
			t.Fatalf("%q → %q is not a fixed point", name, got)
		}
	})
}

func TestThrottleThroughput(t *testing.T) {
	pt := func(r, w int64) api.ProvisionedThroughputDescription {
		return api.ProvisionedThroughputDescription{ReadCapacityUnits: r, WriteCapacityUnits: w}
	}
	mode := func(m string) *api.BillingModeSummary { return &api.BillingModeSummary{BillingMode: m} }
	caps := func(r, w int64) *api.OnDemandThroughputDescription {
		return &api.OnDemandThroughputDescription{MaxReadRequestUnits: r, MaxWriteRequestUnits: w}
	}
	for _, c := range []struct {
		name string
		d    api.TableDescription
		want throttle.Throughput
	}{
		{"provisioned without summary", api.TableDescription{ProvisionedThroughput: pt(5, 7)}, throttle.ProvisionedThroughput(5, 7)},
		{"provisioned", api.TableDescription{ProvisionedThroughput: pt(5, 7), BillingModeSummary: mode("PROVISIONED")}, throttle.ProvisionedThroughput(5, 7)},
		{"provisioned ignores caps", api.TableDescription{ProvisionedThroughput: pt(5, 7), OnDemandThroughput: caps(1, 1)}, throttle.ProvisionedThroughput(5, 7)},
		{"on-demand without caps", api.TableDescription{BillingModeSummary: mode("PAY_PER_REQUEST")}, throttle.OnDemandThroughput(0, 0)},
		{"on-demand caps -1", api.TableDescription{BillingModeSummary: mode("PAY_PER_REQUEST"), OnDemandThroughput: caps(-1, -1)}, throttle.OnDemandThroughput(-1, -1)},
		{"on-demand capped", api.TableDescription{BillingModeSummary: mode("PAY_PER_REQUEST"), OnDemandThroughput: caps(100, 50)}, throttle.OnDemandThroughput(100, 50)},
		{"on-demand write capped only", api.TableDescription{BillingModeSummary: mode("PAY_PER_REQUEST"), OnDemandThroughput: caps(-1, 50)}, throttle.OnDemandThroughput(-1, 50)},
	} {
		if got := capacity.ThrottleThroughput(&c.d); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

const indexARN = tableARN + "/index/ByStatus"

const (
	wantGSIProv     = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API."
	wantGSIOnDemand = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
)

// TestIndexThrottleError covers every row of indexThrottleError's table in
// both directions: the Index reasons, the table's message for a read of the
// index and the GSI text for a write it held back.
func TestIndexThrottleError(t *testing.T) {
	R, W := throttle.Read, throttle.Write
	P, O := throttle.Provisioned, throttle.OnDemand
	table, part, acct := throttle.BucketTable, throttle.BucketPartition, throttle.BucketAccount
	ix := func(b throttle.Bucket, d throttle.Direction, bm throttle.Billing, capped bool) throttle.Cause {
		return throttle.Cause{Bucket: b, Direction: d, Billing: bm, Capped: capped, Index: "ByStatus"}
	}
	cases := []struct {
		row    string
		cause  throttle.Cause
		code   string
		msg    string
		reason string
	}{
		{"index provisioned read", ix(table, R, P, false), ptee, wantPTEE, "IndexReadProvisionedThroughputExceeded"},
		{"index provisioned write", ix(table, W, P, false), ptee, wantGSIProv, "IndexWriteProvisionedThroughputExceeded"},
		{"index partition provisioned read", ix(part, R, P, false), ptee, wantPTEE, "IndexReadKeyRangeThroughputExceeded"},
		{"index partition provisioned write", ix(part, W, P, false), ptee, wantGSIProv, "IndexWriteKeyRangeThroughputExceeded"},
		{"index partition on-demand read", ix(part, R, O, false), throttlingEx, wantHotKey, ""},
		{"index partition on-demand write", ix(part, W, O, false), throttlingEx, wantGSIOnDemand, "IndexWriteKeyRangeThroughputExceeded"},
		{"index at its caps read", ix(table, R, O, true), throttlingEx, wantCaps, "IndexReadMaxOnDemandThroughputExceeded"},
		{"index at its caps write", ix(table, W, O, true), throttlingEx, wantCaps, "IndexWriteMaxOnDemandThroughputExceeded"},
		{"index at the default ceiling read", ix(table, R, O, false), throttlingEx, wantHotKey, "IndexReadAccountLimitExceeded"},
		{"index at the default ceiling write", ix(table, W, O, false), throttlingEx, wantGSIOnDemand, "IndexWriteAccountLimitExceeded"},
		{"account read", ix(acct, R, P, false), rle, wantAccount, "IndexReadAccountLimitExceeded"},
		{"account write", ix(acct, W, O, false), rle, wantAccount, "IndexWriteAccountLimitExceeded"},
	}
	for _, c := range cases {
		for _, resource := range []string{indexARN, ""} {
			e := capacity.ThrottleError(c.cause, resource)
			if e.Code != c.code || e.Message != c.msg {
				t.Errorf("%s (resource %q): %s %q; want %s %q", c.row, resource, e.Code, e.Message, c.code, c.msg)
			}
			var want []api.ThrottlingReason
			if c.reason != "" && resource != "" {
				want = []api.ThrottlingReason{{Reason: c.reason, Resource: resource}}
			}
			if !reflect.DeepEqual(e.ThrottlingReasons, want) {
				t.Errorf("%s (resource %q): reasons %+v, want %+v", c.row, resource, e.ThrottlingReasons, want)
			}
		}
	}
	// A transaction action an index held back.
	for _, c := range []struct {
		cause throttle.Cause
		want  api.CancellationReason
	}{
		{ix(table, W, P, false), api.CancellationReason{Code: "ProvisionedThroughputExceeded", Message: wantGSIProv}},
		{ix(part, W, O, false), api.CancellationReason{Code: "ThrottlingError", Message: wantGSIOnDemand}},
		{ix(table, W, O, true), api.CancellationReason{Code: "ThrottlingError", Message: wantCaps}},
	} {
		if got := capacity.ThrottleCancellationReason(c.cause); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %+v, want %+v", c.cause, got, c.want)
		}
	}
}
