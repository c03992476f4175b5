package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestErrorTable(t *testing.T) {
	const (
		lower = "message"
		upper = "Message"
	)
	for _, tc := range []struct {
		code       string
		wantType   string
		wantStatus int
		msgKey     string
		reasonsKey string // "" if the code never carries ThrottlingReasons
	}{
		{api.CodeValidation, "com.amazon.coral.validate#ValidationException", 400, lower, ""},
		{api.CodeSerialization, "com.amazon.coral.service#SerializationException", 400, upper, ""},
		{api.CodeUnknownOperation, "com.amazon.coral.service#UnknownOperationException", 400, lower, ""},
		{CodeInvalidSignature, "com.amazon.coral.service#InvalidSignatureException", 400, lower, ""},
		{CodeMissingAuthenticationToken, "com.amazon.coral.service#MissingAuthenticationTokenException", 400, lower, ""},
		{CodeIncompleteSignature, "com.amazon.coral.service#IncompleteSignatureException", 400, lower, ""},
		{CodeUnrecognizedClient, "com.amazon.coral.service#UnrecognizedClientException", 400, lower, ""},
		{CodeAccessDenied, "com.amazon.coral.service#AccessDeniedException", 400, lower, ""},
		{api.CodeThrottling, "com.amazon.coral.availability#ThrottlingException", 400, lower, "throttlingReasons"},
		{api.CodeProvisionedThroughputExceeded, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException", 400, lower, "ThrottlingReasons"},
		{api.CodeRequestLimitExceeded, "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded", 400, lower, "ThrottlingReasons"},
		{api.CodeTransactionCanceled, "com.amazonaws.dynamodb.v20120810#TransactionCanceledException", 400, upper, ""},
		{api.CodeConditionalCheckFailed, "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", 400, lower, ""},
		{api.CodeResourceNotFound, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", 400, lower, ""},
		{api.CodeResourceInUse, "com.amazonaws.dynamodb.v20120810#ResourceInUseException", 400, lower, ""},
		{api.CodeLimitExceeded, "com.amazonaws.dynamodb.v20120810#LimitExceededException", 400, lower, ""},
		{api.CodeTransactionConflict, "com.amazonaws.dynamodb.v20120810#TransactionConflictException", 400, lower, ""},
		{api.CodeTransactionInProgress, "com.amazonaws.dynamodb.v20120810#TransactionInProgressException", 400, lower, ""},
		{api.CodeIdempotentParameterMismatch, "com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException", 400, lower, ""},
		{api.CodeItemCollectionSizeLimit, "com.amazonaws.dynamodb.v20120810#ItemCollectionSizeLimitExceededException", 400, lower, ""},
		{api.CodeTableNotFound, "com.amazonaws.dynamodb.v20120810#TableNotFoundException", 400, lower, ""},
		{api.CodeContinuousBackupsUnavailable, "com.amazonaws.dynamodb.v20120810#ContinuousBackupsUnavailableException", 400, lower, ""},
		{api.CodePolicyNotFound, "com.amazonaws.dynamodb.v20120810#PolicyNotFoundException", 400, lower, ""},
		{api.CodeBackupNotFound, "com.amazonaws.dynamodb.v20120810#BackupNotFoundException", 400, lower, ""},
		{api.CodeBackupInUse, "com.amazonaws.dynamodb.v20120810#BackupInUseException", 400, lower, ""},
		{api.CodeTableAlreadyExists, "com.amazonaws.dynamodb.v20120810#TableAlreadyExistsException", 400, lower, ""},
		{api.CodeTableInUse, "com.amazonaws.dynamodb.v20120810#TableInUseException", 400, lower, ""},
		{api.CodeExpiredIterator, "com.amazonaws.dynamodb.v20120810#ExpiredIteratorException", 400, lower, ""},
		{api.CodeTrimmedDataAccess, "com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException", 400, lower, ""},
		{api.CodeInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError", 500, lower, ""},
		{api.CodeInvalidRestoreTime, "com.amazonaws.dynamodb.v20120810#InvalidRestoreTimeException", 400, lower, ""},
		{api.CodePointInTimeRecoveryUnavailable, "com.amazonaws.dynamodb.v20120810#PointInTimeRecoveryUnavailableException", 400, lower, ""},
		{"SomeFutureException", "com.amazonaws.dynamodb.v20120810#SomeFutureException", 400, lower, ""},
	} {
		t.Run(tc.code, func(t *testing.T) {
			reasons := []api.ThrottlingReason{{Reason: "TableReadProvisionedThroughputExceeded", Resource: "arn:aws:dynamodb:us-east-1:000000000000:table/T"}}
			status, body, err := encodeError(&api.Error{Code: tc.code, Message: "msg", ThrottlingReasons: reasons})
			if err != nil {
				t.Fatal(err)
			}
			if status != tc.wantStatus {
				t.Errorf("status = %d, want %d", status, tc.wantStatus)
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			var typ string
			_ = json.Unmarshal(got["__type"], &typ)
			if typ != tc.wantType {
				t.Errorf("__type = %q, want %q", typ, tc.wantType)
			}
			if string(got[tc.msgKey]) != `"msg"` {
				t.Errorf("body %s: want the message under %q", body, tc.msgKey)
			}
			wantKeys := 2
			if tc.reasonsKey != "" {
				wantKeys++
				if _, ok := got[tc.reasonsKey]; !ok {
					t.Errorf("body %s: want reasons under %q", body, tc.reasonsKey)
				}
			}
			if len(got) != wantKeys {
				t.Errorf("body %s has %d members, want %d", body, len(got), wantKeys)
			}
		})
	}
}

func TestErrorOmitsEmptyMembers(t *testing.T) {
	for _, e := range []*api.Error{
		{Code: api.CodeProvisionedThroughputExceeded, Message: "m"},
		{Code: api.CodeThrottling, Message: "m", ThrottlingReasons: []api.ThrottlingReason{}},
		{Code: api.CodeTransactionCanceled, Message: "m"},
		{Code: api.CodeConditionalCheckFailed, Message: "m"},
		// Members the code does not carry are never sent.
		{Code: api.CodeValidation, Message: "m", Item: av.Item{"a": {Type: av.TypeS, S: "x"}},
			ThrottlingReasons: []api.ThrottlingReason{{Reason: "r"}}, CancellationReasons: []api.CancellationReason{{Code: "None"}}},
	} {
		_, body, err := encodeError(e)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Errorf("%s: body %s, want only __type and the message", e.Code, body)
		}
	}
}

// TestErrorGolden pins the exact bytes of representative error bodies.
func TestErrorGolden(t *testing.T) {
	tableARN := "arn:aws:dynamodb:us-east-1:111122223333:table/TestTable"
	for _, tc := range []struct {
		name string
		err  *api.Error
	}{
		{"validation", api.Validation("1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")},
		{"resource_not_found", api.TableNotFound("Orders")},
		{"throttling", &api.Error{Code: api.CodeThrottling,
			Message:           "Throughput exceeds the maximum OnDemandThroughput configured on table or index",
			ThrottlingReasons: []api.ThrottlingReason{{Reason: "TableWriteMaxOnDemandThroughputExceeded", Resource: tableARN}}}},
		{"provisioned_throughput_exceeded", &api.Error{Code: api.CodeProvisionedThroughputExceeded,
			Message:           "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
			ThrottlingReasons: []api.ThrottlingReason{{Reason: "TableWriteProvisionedThroughputExceeded", Resource: tableARN}}}},
		{"transaction_canceled", &api.Error{Code: api.CodeTransactionCanceled,
			Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]",
			CancellationReasons: []api.CancellationReason{
				{Code: "None"},
				{Code: "ConditionalCheckFailed", Message: "The conditional request failed", Item: av.Item{"pk": {Type: av.TypeS, S: "a"}, "n": {Type: av.TypeN, S: "1"}}},
			}}},
		{"conditional_check_failed", &api.Error{Code: api.CodeConditionalCheckFailed,
			Message: "The conditional request failed",
			Item:    av.Item{"pk": {Type: av.TypeS, S: "a<b>&c"}, "ok": {Type: av.TypeBOOL, Bool: true}}}},
		{"unknown_operation", &api.Error{Code: api.CodeUnknownOperation}},
		{"serialization", serializationError("class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String")},
		{"serialization_malformed", serializationError("")},
		{"internal", internalError()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body, err := encodeError(tc.err)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "errors", tc.name+".json"), body)
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, bytes.TrimSuffix(want, []byte("\n"))) {
		t.Errorf("%s:\n got %s\nwant %s", path, got, want)
	}
}
