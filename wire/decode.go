package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// MaxRequestBytes is DynamoDB's request size limit (16 MB); larger bodies
// are refused with HTTP 413 before anything is parsed.
const MaxRequestBytes = 16 << 20

// maxIntegerRewrites bounds how many fractional numbers in integer members
// decode truncates before giving up (each costs a re-decode).
const maxIntegerRewrites = 64

// serializationError is Coral's SerializationException; msg may be empty
// (malformed JSON gets no message).
func serializationError(msg string) *api.Error {
	return &api.Error{Code: api.CodeSerialization, Message: msg}
}

// decodeInput decodes a request body into v (a pointer to an engine input
// struct) the way DynamoDB's Coral framework does: unknown members are
// ignored, null members are absent, a number with a fraction in an integer
// member is truncated, and a JSON value of the wrong type is a
// SerializationException with Coral's message.
func decodeInput(body []byte, v any) *api.Error {
	// A JSON null is no request either: the service refuses it as it
	// refuses an empty body, where decoding would serve it as {}.
	if t := bytes.TrimSpace(body); len(t) == 0 || string(t) == "null" {
		return serializationError("")
	}
	if fastDecode(body, v) {
		clampIntegers(v)
		return nil
	}
	resetValue(v) // the fast path may have set some members before giving up
	for range maxIntegerRewrites {
		err := json.Unmarshal(body, v)
		if err == nil {
			clampIntegers(v)
			return nil
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if nb, ok := truncateNumber(body, te); ok {
				body = nb
				resetValue(v)
				continue
			}
			return serializationError(typeErrorMessage(body, te))
		}
		return mapDecodeError(err)
	}
	return serializationError("")
}

func resetValue(v any) {
	rv := reflect.ValueOf(v).Elem()
	rv.Set(reflect.Zero(rv.Type()))
}

func mapDecodeError(err error) *api.Error {
	var ee *api.Error
	if errors.As(err, &ee) {
		return ee
	}
	var ser *av.SerializationError
	if errors.As(err, &ser) {
		return serializationError(ser.Message)
	}
	var ve *av.ValidationError
	if errors.As(err, &ve) {
		return &api.Error{Code: api.CodeValidation, Message: ve.Message}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return serializationError("")
	}
	// Any other decoder complaint is a malformed value of some member.
	return serializationError(err.Error())
}

// truncateNumber handles a number with a fraction (or out of range) in an
// integer member: Coral truncates it toward negative infinity and clamps it
// to the member's range. It rewrites that literal in the body and reports
// whether it did.
func truncateNumber(body []byte, te *json.UnmarshalTypeError) ([]byte, bool) {
	lit, ok := strings.CutPrefix(te.Value, "number ")
	if !ok || te.Type == nil {
		return nil, false
	}
	k := te.Type.Kind()
	if k != reflect.Int64 && k != reflect.Int && k != reflect.Int32 {
		return nil, false
	}
	end := int(te.Offset)
	start := end - len(lit)
	if start < 0 || end > len(body) || string(body[start:end]) != lit {
		return nil, false
	}
	f, _, err := big.ParseFloat(lit, 10, 256, big.ToNegativeInf)
	if err != nil {
		return nil, false
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if coralType(te) == "Integer" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	var n int64
	switch {
	case f.Cmp(new(big.Float).SetInt64(hi)) >= 0:
		n = hi
	case f.Cmp(new(big.Float).SetInt64(lo)) <= 0:
		n = lo
	default:
		i, _ := f.Int(nil) // truncates toward zero
		if f.Sign() < 0 && !f.IsInt() {
			i.Sub(i, big.NewInt(1))
		}
		n = i.Int64()
	}
	repl := []byte(big.NewInt(n).String())
	out := make([]byte, 0, len(body)-len(lit)+len(repl))
	out = append(out, body[:start]...)
	out = append(out, repl...)
	out = append(out, body[end:]...)
	return out, true
}

// clampIntegers clamps the Integer members (see integerMembers) of the
// inputs that have them to Java's int range, as Coral does when it converts
// a number that fits a Go int64 but not an Integer.
func clampIntegers(v any) {
	switch in := v.(type) {
	case *api.ListTablesInput:
		clamp32(in.Limit)
	case *api.QueryInput:
		clamp32(in.Limit)
	case *api.ScanInput:
		clamp32(in.Limit)
		clamp32(in.Segment)
		clamp32(in.TotalSegments)
	case *api.UpdateContinuousBackupsInput:
		if in.PointInTimeRecoverySpecification != nil {
			clamp32(in.PointInTimeRecoverySpecification.RecoveryPeriodInDays)
		}
	}
}

func clamp32(n *int64) {
	if n == nil {
		return
	}
	*n = max(min(*n, math.MaxInt32), math.MinInt32)
}

// integerMembers are the members DynamoDB models as Integer (the rest of
// the engine's int64 members are Long); the type name shows in messages.
var integerMembers = map[string]bool{
	"Limit":                true,
	"Segment":              true,
	"TotalSegments":        true,
	"RecoveryPeriodInDays": true,
}

// coralType names the Java type Coral would have decoded into.
func coralType(te *json.UnmarshalTypeError) string {
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		field := te.Field
		if i := strings.LastIndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		if integerMembers[field] {
			return "Integer"
		}
		return "Long"
	case reflect.Float32, reflect.Float64:
		return "Double"
	case reflect.Slice, reflect.Array:
		return "List"
	case reflect.Map:
		return "Map"
	}
	return "Structure"
}

// Coral's class names for JSON values, as they appear in its messages.
const (
	coralNumber  = "class com.amazon.coral.value.json.numbers.TruncatingBigNumber"
	coralBoolean = "class java.lang.Boolean"
	coralString  = "class java.lang.String"
)

// typeErrorMessage is Coral's SerializationException message for a JSON
// value of the wrong type (messages as DynamoDB returns them, including
// "an String").
func typeErrorMessage(body []byte, te *json.UnmarshalTypeError) string {
	got := te.Value
	if strings.HasPrefix(got, "number") {
		got = "number"
	}
	switch got {
	case "array":
		if coralType(te) == "List" {
			break
		}
		return "Start of list found where not expected"
	case "object":
		switch coralType(te) {
		case "Map", "Structure":
		default:
			return "Start of structure or map found where not expected."
		}
	}
	switch target := coralType(te); target {
	case "List":
		return "Expected list or null"
	case "Map":
		return "Expected map or null"
	case "Structure":
		return "Expected null"
	case "Boolean":
		switch got {
		case "number":
			return coralNumber + " can not be converted to an Boolean"
		case "string":
			return "'" + strings.ToUpper(stringBefore(body, int(te.Offset))) + "' can not be converted to an Boolean"
		}
	case "String":
		switch got {
		case "number":
			return coralNumber + " can not be converted to an String"
		case "bool":
			return coralBoolean + " can not be converted to an String"
		}
	default: // Integer, Long, Double
		switch got {
		case "bool":
			return coralBoolean + " can not be converted to an " + target
		case "string":
			return coralString + " can not be converted to an " + target
		}
	}
	return ""
}

// stringBefore returns the JSON string literal that ends at body[end-1]
// (its closing quote), decoded. Inside a JSON string every '"' is escaped,
// so the opening quote is the nearest '"' before it preceded by an even
// number of backslashes.
func stringBefore(body []byte, end int) string {
	if end <= 0 || end > len(body) || body[end-1] != '"' {
		return ""
	}
	for i := end - 2; i >= 0; i-- {
		if body[i] != '"' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && body[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			var s string
			if json.Unmarshal(body[i:end], &s) != nil {
				return ""
			}
			return s
		}
	}
	return ""
}
