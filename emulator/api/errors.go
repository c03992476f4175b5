package api

import (
	"errors"
	"fmt"

	"github.com/extenddb/extenddb/emulator/av"
)

// Error codes the engine returns. The wire layer owns each code's __type
// namespace and member casing; the engine only names the code.
const (
	CodeValidation                    = "ValidationException"
	CodeSerialization                 = "SerializationException"
	CodeUnknownOperation              = "UnknownOperationException"
	CodeResourceNotFound              = "ResourceNotFoundException"
	CodeResourceInUse                 = "ResourceInUseException"
	CodeLimitExceeded                 = "LimitExceededException"
	CodeConditionalCheckFailed        = "ConditionalCheckFailedException"
	CodeTransactionCanceled           = "TransactionCanceledException"
	CodeTransactionConflict           = "TransactionConflictException"
	CodeTransactionInProgress         = "TransactionInProgressException"
	CodeIdempotentParameterMismatch   = "IdempotentParameterMismatchException"
	CodeItemCollectionSizeLimit       = "ItemCollectionSizeLimitExceededException"
	CodeProvisionedThroughputExceeded = "ProvisionedThroughputExceededException"
	CodeThrottling                    = "ThrottlingException"
	CodeRequestLimitExceeded          = "RequestLimitExceeded"
	CodeTableNotFound                 = "TableNotFoundException"
	CodeContinuousBackupsUnavailable  = "ContinuousBackupsUnavailableException"
	CodePolicyNotFound                = "PolicyNotFoundException"
	CodeBackupNotFound                = "BackupNotFoundException"
	CodeBackupInUse                   = "BackupInUseException"
	CodeTableAlreadyExists            = "TableAlreadyExistsException"
	CodeTableInUse                    = "TableInUseException"
	CodeInternalServerError           = "InternalServerError"
	CodeAccessDenied                  = "AccessDeniedException"
	CodeExpiredIterator               = "ExpiredIteratorException"
	CodeTrimmedDataAccess             = "TrimmedDataAccessException"
	CodeGlobalTableNotFound           = "GlobalTableNotFoundException"
	CodeGlobalTableAlreadyExists      = "GlobalTableAlreadyExistsException"
	CodeReplicaAlreadyExists          = "ReplicaAlreadyExistsException"
	CodeReplicaNotFound               = "ReplicaNotFoundException"
	CodeIndexNotFound                 = "IndexNotFoundException"
	CodeInvalidExportTime             = "InvalidExportTimeException"
	CodeExportConflict                = "ExportConflictException"
	CodeExportNotFound                = "ExportNotFoundException"
	CodeImportConflict                = "ImportConflictException"
	CodeImportNotFound                = "ImportNotFoundException"
)

// The errors of RestoreTableToPointInTime (and of ItemsAsOf).
const (
	CodeInvalidRestoreTime             = "InvalidRestoreTimeException"
	CodePointInTimeRecoveryUnavailable = "PointInTimeRecoveryUnavailableException"
)

// ThrottlingReason is one entry of a throttle error's reasons list.
type ThrottlingReason struct {
	Reason   string `json:"reason,omitempty"`
	Resource string `json:"resource,omitempty"`
}

// CancellationReason is one entry of TransactionCanceledException's list.
type CancellationReason struct {
	Code    string  `json:"Code,omitempty"`
	Message string  `json:"Message,omitempty"`
	Item    av.Item `json:"Item,omitempty"`
}

// Error is a DynamoDB error as the engine reports it. Extra members are set
// only for the codes that carry them.
type Error struct {
	Code    string
	Message string
	// ThrottlingReasons for the three throttle codes.
	ThrottlingReasons []ThrottlingReason
	// CancellationReasons for TransactionCanceledException.
	CancellationReasons []CancellationReason
	// Item for ConditionalCheckFailedException with
	// ReturnValuesOnConditionCheckFailure=ALL_OLD.
	Item av.Item
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is matches another *Error with the same code, so errors.Is(err,
// &Error{Code: CodeValidation}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// NewError returns an error with the given code and formatted message.
func NewError(code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Message: format}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Validation returns a ValidationException.
func Validation(format string, args ...any) *Error {
	return NewError(CodeValidation, format, args...)
}

// TableNotFound returns DynamoDB's ResourceNotFoundException for a table.
func TableNotFound(name string) *Error {
	return NewError(CodeResourceNotFound, "Requested resource not found: Table: %s not found", name)
}

// ResourceNotFound returns ResourceNotFoundException with DynamoDB's generic message.
func ResourceNotFound() *Error {
	return NewError(CodeResourceNotFound, "Requested resource not found")
}

// ResourceNotFoundError is ResourceNotFoundException with a message.
func ResourceNotFoundError(format string, args ...any) *Error {
	return NewError(CodeResourceNotFound, format, args...)
}

// validationMessage is an error whose message DynamoDB answers as a
// ValidationException: expr.Error and av.ValidationError.
type validationMessage interface{ ValidationMessage() string }

// AsValidation turns an expression or attribute-value failure into
// DynamoDB's ValidationException; other errors pass through.
func AsValidation(err error) error {
	var vm validationMessage
	if errors.As(err, &vm) {
		return Validation("%s", vm.ValidationMessage())
	}
	return err
}
