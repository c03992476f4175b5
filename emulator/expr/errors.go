package expr

import "strings"

// Error is a validation failure with DynamoDB's exact message. The engine
// returns it to clients as a ValidationException carrying Message unchanged.
type Error struct {
	Message string
}

func (e *Error) Error() string { return e.Message }

// ValidationMessage is the message of the ValidationException it is
// answered with (api.AsValidation).
func (e *Error) ValidationMessage() string { return e.Message }

func errorf(parts ...string) *Error {
	return &Error{Message: strings.Join(parts, "")}
}

// Messages DynamoDB gives while applying an update to a stored item. The
// engine may compare against them with errors.As and the Message field.
const (
	MsgPathInvalidForUpdate = "The document path provided in the update expression is invalid for update"
	MsgIncorrectOperandType = "An operand in the update expression has an incorrect data type"
	// MsgTypeMismatchForUpdate is the AttributeUpdates form of the above.
	MsgTypeMismatchForUpdate = "Type mismatch for attribute to update"
	MsgAttributeNotExist     = "The provided expression refers to an attribute that does not exist in the item"
)

// MaxExpressionSize is DynamoDB's limit on one expression string, in bytes.
const MaxExpressionSize = 4096

// MaxINOperands is the largest number of values an IN comparison may list.
const MaxINOperands = 100
