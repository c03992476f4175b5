package shape

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
)

// Violations collects DynamoDB's shape-constraint messages ("Value … at …
// failed to satisfy constraint: …") in request order; Err joins them the way
// the service does: "N validation error(s) detected: a; b".
type Violations struct{ msgs []string }

// Add records that value at path breaks constraint.
func (v *Violations) Add(value, path, constraint string) {
	v.msgs = append(v.msgs, fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: %s", value, path, constraint))
}

// Null records a required member that is missing.
func (v *Violations) Null(path string) {
	v.Add("null", path, "Member must not be null")
}

// Err is the violations as one ValidationException, or nil.
func (v *Violations) Err() error {
	switch len(v.msgs) {
	case 0:
		return nil
	case 1:
		return api.Validation("1 validation error detected: %s", v.msgs[0])
	}
	return api.Validation("%d validation errors detected: %s", len(v.msgs), strings.Join(v.msgs, "; "))
}

// QuoteValue quotes a value as constraint messages echo it.
func QuoteValue(s string) string { return "'" + s + "'" }

func quoteInt(n int64) string { return "'" + strconv.FormatInt(n, 10) + "'" }

// ValidName reports whether s matches [a-zA-Z0-9_.-]+, the pattern of
// table, index and stream names; a loop, since a regexp match on every
// request cost 2% of PutItem's CPU (docs/performance.md).
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

const namePatternText = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"

// Name checks a table or index name: 3–255 characters of [a-zA-Z0-9_.-].
func (v *Violations) Name(path string, s *string, required bool) {
	if s == nil {
		if required {
			v.Null(path)
		}
		return
	}
	if !ValidName(*s) {
		v.Add(QuoteValue(*s), path, namePatternText)
	}
	v.Length(path, *s, 3, 255)
}

// TableRef checks a TableName member that also accepts a table ARN (every
// operation but CreateTable): 1–1024 characters; a bare name must also be a
// valid table name.
func (v *Violations) TableRef(path string, s *string) {
	if s == nil {
		v.Null(path)
		return
	}
	if strings.HasPrefix(*s, "arn:") {
		v.Length(path, *s, 1, 1024)
		return
	}
	if !ValidName(*s) {
		v.Add(QuoteValue(*s), path, namePatternText)
	}
	v.Length(path, *s, 3, 1024)
}

// DataTableRef checks the TableName of a data-plane operation (GetItem,
// PutItem, UpdateItem, DeleteItem, Query, Scan). The service answers an
// empty name and a bare name over 255 characters with one length
// violation each (no pattern violation for the empty name), where the
// control plane's rule (TableRef) gives several.
func (v *Violations) DataTableRef(path string, s *string) {
	if s == nil || strings.HasPrefix(*s, "arn:") || *s != "" && len([]rune(*s)) <= 255 {
		v.TableRef(path, s)
		return
	}
	if *s == "" {
		v.Add("''", path, "Member must have length greater than or equal to 1")
		return
	}
	if !ValidName(*s) {
		v.Add(QuoteValue(*s), path, namePatternText)
	}
	v.Add(QuoteValue(*s), path, "Member must have length less than or equal to 255")
}

// RequiredTableName is the control plane's answer to a request without a
// TableName, given before any other validation.
func RequiredTableName(s *string) error {
	if s == nil {
		return api.Validation("The parameter 'TableName' is required but was not present in the request")
	}
	return nil
}

// AddUnquoted records a violation the service reports without echoing
// the value ("Value at 'Limit' failed to satisfy constraint: …").
func (v *Violations) AddUnquoted(path, constraint string) {
	v.msgs = append(v.msgs, fmt.Sprintf("Value at '%s' failed to satisfy constraint: %s", path, constraint))
}

// CheckBareName applies the table-name length rule a bare (non-ARN) name
// breaks only beyond the ARN-form maximum; the service answers it with its
// own message after the shape checks.
func CheckBareName(s string) error {
	if !strings.HasPrefix(s, "arn:") && len(s) > 255 {
		return api.Validation("TableName must be at least 3 characters long and at most 255 characters long")
	}
	return nil
}

// Length checks that s has lo to hi characters.
func (v *Violations) Length(path, s string, lo, hi int) {
	n := len([]rune(s))
	if n < lo {
		v.Add(QuoteValue(s), path, fmt.Sprintf("Member must have length greater than or equal to %d", lo))
	}
	if n > hi {
		v.Add(QuoteValue(s), path, fmt.Sprintf("Member must have length less than or equal to %d", hi))
	}
}

// DynamoDB's answers for an attribute name it cannot store: an empty one,
// and one of 65,536 bytes or more (65,535 is the last accepted length,
// though the AttributeName shape says 65,535 characters). Both come inside
// the "1 validation error detected: " envelope.
const (
	MsgEmptyAttrName    = "Empty attribute name"
	MsgAttrNameTooLarge = "Attribute name is too large, must be less than 65536 bytes"
	maxAttrNameBytes    = 65535
)

// AttrNameProblem is DynamoDB's message for an attribute name it refuses,
// or "".
func AttrNameProblem(name string) string {
	switch {
	case name == "":
		return MsgEmptyAttrName
	case len(name) > maxAttrNameBytes:
		return MsgAttrNameTooLarge
	}
	return ""
}

// Raw records a violation the service words itself, without the
// "Value … at …" frame.
func (v *Violations) Raw(msg string) { v.msgs = append(v.msgs, msg) }

// CheckAttrNames checks the keys of an attribute map (an Item, a Key,
// AttributeUpdates): an empty name or one over 65,535 bytes is one
// violation for the map (the empty name first, as iteration order is not
// the request's).
func CheckAttrNames[V any](v *Violations, m map[string]V) {
	worst := ""
	for k := range m {
		if p := AttrNameProblem(k); p != "" {
			worst = p
			if p == MsgEmptyAttrName {
				break
			}
		}
	}
	if worst != "" {
		v.Raw(worst)
	}
}

// CheckNameList checks a list of attribute names (AttributesToGet) in
// request order: the first name DynamoDB refuses is the violation.
func CheckNameList(v *Violations, names []string) {
	for _, n := range names {
		if p := AttrNameProblem(n); p != "" {
			v.Raw(p)
			return
		}
	}
}

// Enum checks that s, when present, is one of values.
func (v *Violations) Enum(path string, s *string, values ...string) {
	if s == nil {
		return
	}
	for _, x := range values {
		if *s == x {
			return
		}
	}
	v.Add(QuoteValue(*s), path, "Member must satisfy enum value set: ["+strings.Join(values, ", ")+"]")
}

// Min checks that n, when present, is at least lo.
func (v *Violations) Min(path string, n *int64, lo int64) {
	if n != nil && *n < lo {
		v.Add(quoteInt(*n), path, fmt.Sprintf("Member must have value greater than or equal to %d", lo))
	}
}

// Max checks that n, when present, is at most hi.
func (v *Violations) Max(path string, n *int64, hi int64) {
	if n != nil && *n > hi {
		v.Add(quoteInt(*n), path, fmt.Sprintf("Member must have value less than or equal to %d", hi))
	}
}

// Throughput checks a ProvisionedThroughput member (both units required, >= 1).
func (v *Violations) Throughput(path string, pt *api.ProvisionedThroughput) {
	if pt == nil {
		return
	}
	if pt.WriteCapacityUnits == nil {
		v.Null(path + ".writeCapacityUnits")
	}
	v.Min(path+".writeCapacityUnits", pt.WriteCapacityUnits, 1)
	if pt.ReadCapacityUnits == nil {
		v.Null(path + ".readCapacityUnits")
	}
	v.Min(path+".readCapacityUnits", pt.ReadCapacityUnits, 1)
}

// KeySchema checks a KeySchema list (length lo..hi, members non-null, key
// types HASH/RANGE, attribute names 1–255).
func (v *Violations) KeySchema(path string, ks []api.KeySchemaElement, present bool, hi int) {
	if !present {
		v.Null(path)
		return
	}
	if len(ks) < 1 {
		v.Add("'[]'", path, "Member must have length greater than or equal to 1")
	}
	if len(ks) > hi {
		v.Add(QuoteValue(keySchemaString(ks)), path, fmt.Sprintf("Member must have length less than or equal to %d", hi))
	}
	for i, k := range ks {
		p := fmt.Sprintf("%s.%d.member", path, i+1)
		if k.AttributeName == nil {
			v.Null(p + ".attributeName")
		} else {
			v.Length(p+".attributeName", *k.AttributeName, 1, 255)
		}
		if k.KeyType == nil {
			v.Null(p + ".keyType")
		}
		v.Enum(p+".keyType", k.KeyType, "HASH", "RANGE")
	}
}

// Projection checks a Projection member.
func (v *Violations) Projection(path string, p *api.Projection) {
	if p == nil {
		v.Null(path)
		return
	}
	v.Enum(path+".projectionType", p.ProjectionType, "ALL", "KEYS_ONLY", "INCLUDE")
	if p.NonKeyAttributes != nil {
		if len(p.NonKeyAttributes) < 1 {
			v.Add("'[]'", path+".nonKeyAttributes", "Member must have length greater than or equal to 1")
		}
		if len(p.NonKeyAttributes) > 20 {
			v.Add(QuoteValue("["+strings.Join(p.NonKeyAttributes, ", ")+"]"), path+".nonKeyAttributes", "Member must have length less than or equal to 20")
		}
		// Each name is a NonKeyAttributeName: 1 to 255 characters.
		for _, a := range p.NonKeyAttributes {
			if n := len([]rune(a)); n < 1 || n > 255 {
				v.Add(QuoteValue("["+strings.Join(p.NonKeyAttributes, ", ")+"]"), path+".nonKeyAttributes",
					"Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]")
				break
			}
		}
	}
}

// keySchemaString renders a key schema list the way the service's Java
// toString does in constraint messages.
func keySchemaString(ks []api.KeySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("KeySchemaElement(attributeName=%s, keyType=%s)", StrOrDefault(k.AttributeName, "null"), StrOrDefault(k.KeyType, "null"))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// StrOrDefault is *s, or def when s is nil.
func StrOrDefault(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// InvalidParam is ValidationException with the service's "One or more
// parameter values were invalid: " prefix.
func InvalidParam(format string, args ...any) *api.Error {
	return api.Validation("One or more parameter values were invalid: "+format, args...)
}

// CheckProjection refuses a Projection whose NonKeyAttributes do not fit
// its ProjectionType, or list one twice: the same for a GSI, an LSI and a
// vector index.
func CheckProjection(p *api.Projection) error {
	if p.ProjectionType == nil {
		return InvalidParam("Unknown ProjectionType: null")
	}
	pt := *p.ProjectionType
	if pt == "INCLUDE" && p.NonKeyAttributes == nil {
		return InvalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
	}
	if pt != "INCLUDE" && p.NonKeyAttributes != nil {
		return InvalidParam("ProjectionType is %s, but NonKeyAttributes is specified", pt)
	}
	seen := map[string]bool{}
	for _, a := range p.NonKeyAttributes {
		if seen[a] {
			return InvalidParam("Duplicate element in NonKeyAttributes: %s", a)
		}
		seen[a] = true
	}
	return nil
}
