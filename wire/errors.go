package wire

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/extenddb/extenddb/emulator/api"
)

// Namespaces DynamoDB puts before an error code in __type.
const (
	nsDynamoDB     = "com.amazonaws.dynamodb.v20120810#"
	nsValidate     = "com.amazon.coral.validate#"
	nsService      = "com.amazon.coral.service#"
	nsAvailability = "com.amazon.coral.availability#"
)

// Extra error codes that only the wire layer produces (protocol and
// authentication failures of Coral, DynamoDB's service framework).
const (
	CodeInvalidSignature           = "InvalidSignatureException"
	CodeMissingAuthenticationToken = "MissingAuthenticationTokenException"
	CodeIncompleteSignature        = "IncompleteSignatureException"
	CodeUnrecognizedClient         = "UnrecognizedClientException"
	CodeAccessDenied               = "AccessDeniedException"
	// CodeRequestEntityTooLarge refuses a body over MaxRequestBytes.
	CodeRequestEntityTooLarge = "RequestEntityTooLargeException"
)

// casing says how an error's members are spelled on the wire.
type casing uint8

const (
	// lowerMessage is DynamoDB's usual {"message": …}.
	lowerMessage casing = iota
	// upperMessage is {"Message": …}, used by TransactionCanceledException
	// and by Coral's SerializationException.
	upperMessage
)

// errorSpec is how one code goes on the wire.
type errorSpec struct {
	namespace string
	status    int
	message   casing
	// reasonsKey is the JSON key of ThrottlingReasons, empty when the code
	// never carries them.
	reasonsKey string
	// cancellation and item say whether CancellationReasons and Item are sent.
	cancellation bool
	item         bool
}

// errorSpecs is the one table from error code to wire form. Codes not in it
// are sent like a modelled DynamoDB error (namespace nsDynamoDB, 400,
// "message").
var errorSpecs = map[string]errorSpec{
	api.CodeValidation:                    {namespace: nsValidate, status: 400},
	api.CodeSerialization:                 {namespace: nsService, status: 400, message: upperMessage},
	api.CodeUnknownOperation:              {namespace: nsService, status: 400},
	CodeInvalidSignature:                  {namespace: nsService, status: 400},
	CodeMissingAuthenticationToken:        {namespace: nsService, status: 400},
	CodeIncompleteSignature:               {namespace: nsService, status: 400},
	CodeUnrecognizedClient:                {namespace: nsService, status: 400},
	CodeAccessDenied:                      {namespace: nsService, status: 400},
	CodeExpiredToken:                      {namespace: nsService, status: 400},
	CodeRequestEntityTooLarge:             {namespace: nsService, status: http.StatusRequestEntityTooLarge},
	api.CodeThrottling:                    {namespace: nsAvailability, status: 400, reasonsKey: "throttlingReasons"},
	api.CodeProvisionedThroughputExceeded: {namespace: nsDynamoDB, status: 400, reasonsKey: "ThrottlingReasons"},
	api.CodeRequestLimitExceeded:          {namespace: nsDynamoDB, status: 400, reasonsKey: "ThrottlingReasons"},
	api.CodeTransactionCanceled:           {namespace: nsDynamoDB, status: 400, message: upperMessage, cancellation: true},
	api.CodeConditionalCheckFailed:        {namespace: nsDynamoDB, status: 400, item: true},
	api.CodeResourceNotFound:              {namespace: nsDynamoDB, status: 400},
	api.CodeResourceInUse:                 {namespace: nsDynamoDB, status: 400},
	api.CodeLimitExceeded:                 {namespace: nsDynamoDB, status: 400},
	api.CodeTransactionConflict:           {namespace: nsDynamoDB, status: 400},
	api.CodeTransactionInProgress:         {namespace: nsDynamoDB, status: 400},
	api.CodeIdempotentParameterMismatch:   {namespace: nsDynamoDB, status: 400},
	api.CodeItemCollectionSizeLimit:       {namespace: nsDynamoDB, status: 400},
	api.CodeTableNotFound:                 {namespace: nsDynamoDB, status: 400},
	api.CodeContinuousBackupsUnavailable:  {namespace: nsDynamoDB, status: 400},
	api.CodePolicyNotFound:                {namespace: nsDynamoDB, status: 400},
	api.CodeBackupNotFound:                {namespace: nsDynamoDB, status: 400},
	api.CodeBackupInUse:                   {namespace: nsDynamoDB, status: 400},
	api.CodeTableAlreadyExists:            {namespace: nsDynamoDB, status: 400},
	api.CodeTableInUse:                    {namespace: nsDynamoDB, status: 400},
	api.CodeExpiredIterator:               {namespace: nsDynamoDB, status: 400},
	api.CodeGlobalTableNotFound:           {namespace: nsDynamoDB, status: 400},
	api.CodeGlobalTableAlreadyExists:      {namespace: nsDynamoDB, status: 400},
	api.CodeReplicaAlreadyExists:          {namespace: nsDynamoDB, status: 400},
	api.CodeReplicaNotFound:               {namespace: nsDynamoDB, status: 400},
	api.CodeIndexNotFound:                 {namespace: nsDynamoDB, status: 400},
	api.CodeTrimmedDataAccess:             {namespace: nsDynamoDB, status: 400},
	api.CodeInvalidExportTime:             {namespace: nsDynamoDB, status: 400},
	api.CodeExportConflict:                {namespace: nsDynamoDB, status: 400},
	api.CodeExportNotFound:                {namespace: nsDynamoDB, status: 400},
	api.CodeImportConflict:                {namespace: nsDynamoDB, status: 400},
	api.CodeImportNotFound:                {namespace: nsDynamoDB, status: 400},
	api.CodeInternalServerError:           {namespace: nsDynamoDB, status: http.StatusInternalServerError},

	// Point-in-time recovery.
	api.CodeInvalidRestoreTime:             {namespace: nsDynamoDB, status: 400},
	api.CodePointInTimeRecoveryUnavailable: {namespace: nsDynamoDB, status: 400},
}

func specFor(code string) errorSpec {
	if s, ok := errorSpecs[code]; ok {
		return s
	}
	return errorSpec{namespace: nsDynamoDB, status: http.StatusBadRequest}
}

// internalError is what any unexpected failure (a non-*api.Error or a
// panic) becomes: 500, which SDKs retry, as DynamoDB's own would be.
func internalError() *api.Error {
	return &api.Error{Code: api.CodeInternalServerError, Message: "Internal server error"}
}

// encodeError renders e as DynamoDB does and returns the HTTP status and
// body. An empty message is left out, as Coral does for
// SerializationException and UnknownOperationException.
func encodeError(e *api.Error) (int, []byte, error) {
	spec := specFor(e.Code)
	var buf bytes.Buffer
	buf.WriteString(`{"__type":`)
	if err := writeJSON(&buf, spec.namespace+e.Code); err != nil {
		return 0, nil, err
	}
	if spec.reasonsKey != "" && len(e.ThrottlingReasons) > 0 {
		if err := writeMember(&buf, spec.reasonsKey, e.ThrottlingReasons); err != nil {
			return 0, nil, err
		}
	}
	if spec.cancellation && len(e.CancellationReasons) > 0 {
		if err := writeMember(&buf, "CancellationReasons", e.CancellationReasons); err != nil {
			return 0, nil, err
		}
	}
	if spec.item && len(e.Item) > 0 {
		if err := writeMember(&buf, "Item", e.Item); err != nil {
			return 0, nil, err
		}
	}
	if e.Message != "" {
		key := "Message"
		if spec.message == lowerMessage {
			key = "message"
		}
		if err := writeMember(&buf, key, e.Message); err != nil {
			return 0, nil, err
		}
	}
	buf.WriteByte('}')
	return spec.status, buf.Bytes(), nil
}

func writeMember(buf *bytes.Buffer, key string, v any) error {
	buf.WriteByte(',')
	if err := writeJSON(buf, key); err != nil {
		return err
	}
	buf.WriteByte(':')
	return writeJSON(buf, v)
}

// writeJSON appends v's JSON without HTML escaping (DynamoDB sends '<', '>'
// and '&' as they are) and without the encoder's trailing newline.
func writeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}
