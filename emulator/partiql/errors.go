package partiql

// Error is a statement DynamoDB refuses, with DynamoDB's exact message; the
// engine sends it as a ValidationException.
type Error struct {
	Message string
}

func (e *Error) Error() string { return e.Message }

// MalformedPrefix starts every message for a statement that does not parse.
const MalformedPrefix = "Statement wasn't well formed, can't be processed: "

// Messages the parser and its callers share.
const (
	MsgExpectedDML       = "Expected data manipulation"
	MsgUnexpectedTerm    = "Unexpected term"
	MsgMissingRHS        = "Missing right-hand side expression of infix operator"
	MsgTrailingToken     = "Unexpected token after expression"
	MsgExpectedPath      = "Expected identifier for simple path"
	MsgExpectedType      = "Expected type name"
	MsgUnexpectedOp      = "Unexpected operator"
	MsgUnexpectedKeyword = "Unexpected keyword"
	MsgInvalidDotPath    = "Invalid path dot component"
	MsgAliasing          = "Aliasing is not supported"
	MsgFromTooLong       = "A path may contain at most 2 components in the FROM clause"
	MsgEmptyComponent    = "Path component cannot be an empty string"
	MsgInsertReturning   = "RETURNING is not supported in INSERT"
	MsgStarAndNames      = "Other attributes should not be present in the projection when '*' is used."
)

// malformed is a statement that does not parse.
func malformed(detail string) *Error { return &Error{Message: MalformedPrefix + detail} }

// refused is a statement that parses but is refused; with a position the
// message carries DynamoDB's " at L:C:N" suffix.
func refused(msg string, at *Pos) *Error {
	if at != nil {
		msg += " at " + at.String()
	}
	return &Error{Message: msg}
}
