package av

// SerializationError is an AttributeValue whose JSON has the wrong shape for
// its member (e.g. {"S":1} or invalid base64). DynamoDB answers those with
// SerializationException; Message is DynamoDB's text.
type SerializationError struct {
	Message string
}

func (e *SerializationError) Error() string { return e.Message }

// ValidationError is an attribute value DynamoDB rejects with
// ValidationException; Message is DynamoDB's exact text, so the engine wraps
// it without rewording.
type ValidationError struct {
	Message string
}

func (e *ValidationError) Error() string { return e.Message }

// ValidationMessage is the message of the ValidationException it is
// answered with (api.AsValidation).
func (e *ValidationError) ValidationMessage() string { return e.Message }

// maxNameBytes is the longest attribute name DynamoDB accepts, also for
// the entries of a map value.
const maxNameBytes = 65535

func validationErr(msg string) error { return &ValidationError{Message: msg} }

// DynamoDB's validation messages for attribute values.
const (
	msgEmptyAV         = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	msgMultipleTypes   = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	msgNullNotTrue     = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	msgEmptySS         = "One or more parameter values were invalid: An string set  may not be empty"
	msgEmptyNS         = "One or more parameter values were invalid: An number set  may not be empty"
	msgEmptyBS         = "One or more parameter values were invalid: Binary sets should not be empty"
	msgNullInSS        = "One or more parameter values were invalid: An string set may not have a null string as a member"
	msgNullInBS        = "One or more parameter values were invalid: Binary sets may not contain null or empty values"
	msgNotNumber       = "The parameter cannot be converted to a numeric value"
	msgNSDuplicates    = "Input collection contains duplicates"
	msgTooManyDigits   = "Attempting to store more than 38 significant digits in a Number"
	msgOverflow        = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgUnderflow       = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	msgNameTooLarge    = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
	msgNestingTooDeep  = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	msgDuplicatesSSFmt = "One or more parameter values were invalid: Input collection [%s] contains duplicates."
	msgDuplicatesBSFmt = "One or more parameter values were invalid: Input collection [%s]of type BS contains duplicates."
)
