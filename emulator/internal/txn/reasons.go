package txn

import (
	"errors"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
)

// Cancellation reason codes.
const (
	ReasonNone                   = "None"
	ReasonConditionalCheckFailed = "ConditionalCheckFailed"
	ReasonValidationError        = "ValidationError"
	ReasonTransactionConflict    = "TransactionConflict"
)

// OtherNamespace is the reason of an action on a table of another
// account or Region than the first action's.
func OtherNamespace() *api.CancellationReason {
	return &api.CancellationReason{Code: ReasonValidationError, Message: MsgOtherNamespace}
}

// Conflict is the reason of an action whose item another transaction
// holds (or whose commit met another process's).
func Conflict() *api.CancellationReason {
	return &api.CancellationReason{Code: ReasonTransactionConflict, Message: MsgConflict}
}

// isEmptyKeyError tells the key errors the service answers for the whole
// request (an empty key value) from those it reports as a ValidationError
// cancellation reason (a key that does not match the schema).
func isEmptyKeyError(err error) bool {
	return strings.Contains(err.Error(), "cannot contain an empty")
}

// ReasonOf turns an action's error into its cancellation reason, or
// returns the error back when it fails the whole request.
func ReasonOf(err error) (*api.CancellationReason, error) {
	var de *api.Error
	if !errors.As(err, &de) {
		return nil, err
	}
	switch {
	case de.Code == api.CodeConditionalCheckFailed:
		return &api.CancellationReason{Code: ReasonConditionalCheckFailed, Message: de.Message, Item: de.Item}, nil
	// An Update that grows an item past 400 KB is found only while the
	// transaction runs, so it cancels it; a Put is refused up front.
	case de.Code == api.CodeValidation && !isEmptyKeyError(de) && de.Message != MsgItemTooLarge:
		return &api.CancellationReason{Code: ReasonValidationError, Message: de.Message}, nil
	}
	return nil, err
}

// AfterFirstValidationError clears the reasons after the first
// ValidationError: DynamoDB stops validating the actions there and
// reports None for the rest.
func AfterFirstValidationError(reasons []*api.CancellationReason) []*api.CancellationReason {
	for i, r := range reasons {
		if r != nil && r.Code == ReasonValidationError {
			clear(reasons[i+1:])
			break
		}
	}
	return reasons
}

// CheckDuplicates refuses two actions on one item: key(i) is action i's
// storage key, nil for an action whose key did not resolve (of n).
func CheckDuplicates(n int, key func(i int) []byte) error {
	seen := make(map[string]struct{}, n)
	for i := range n {
		k := key(i)
		if k == nil {
			continue
		}
		if _, dup := seen[string(k)]; dup {
			return api.Validation(MsgDuplicateItem)
		}
		seen[string(k)] = struct{}{}
	}
	return nil
}

// Cancelled builds TransactionCanceledException from one reason per
// action (nil for an action that did not fail).
func Cancelled(reasons []*api.CancellationReason) *api.Error {
	out := make([]api.CancellationReason, len(reasons))
	var msg strings.Builder
	msg.WriteString(msgCancelledPrefix)
	for i, r := range reasons {
		if r == nil {
			r = &api.CancellationReason{Code: ReasonNone}
		}
		out[i] = *r
		if i > 0 {
			msg.WriteString(", ")
		}
		msg.WriteString(r.Code)
	}
	msg.WriteByte(']')
	return &api.Error{Code: api.CodeTransactionCanceled, Message: msg.String(), CancellationReasons: out}
}
