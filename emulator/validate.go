package emulator

import (
	"fmt"
	"strconv"
	"strings"
)

// violations collects DynamoDB's shape-constraint messages ("Value … at …
// failed to satisfy constraint: …") in request order; err joins them the way
// the service does: "N validation error(s) detected: a; b".
type violations struct{ msgs []string }

func (v *violations) add(value, path, constraint string) {
	v.msgs = append(v.msgs, fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: %s", value, path, constraint))
}

func (v *violations) null(path string) {
	v.add("null", path, "Member must not be null")
}

func (v *violations) err() error {
	switch len(v.msgs) {
	case 0:
		return nil
	case 1:
		return Validation("1 validation error detected: %s", v.msgs[0])
	}
	return Validation("%d validation errors detected: %s", len(v.msgs), strings.Join(v.msgs, "; "))
}

func quoteValue(s string) string { return "'" + s + "'" }

func quoteInt(n int64) string { return "'" + strconv.FormatInt(n, 10) + "'" }

// validName reports whether s matches [a-zA-Z0-9_.-]+, the pattern of
// table, index and stream names; a loop, since a regexp match on every
// request cost 2% of PutItem's CPU (docs/performance.md).
func validName(s string) bool {
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

// name checks a table or index name: 3–255 characters of [a-zA-Z0-9_.-].
func (v *violations) name(path string, s *string, required bool) {
	if s == nil {
		if required {
			v.null(path)
		}
		return
	}
	if !validName(*s) {
		v.add(quoteValue(*s), path, namePatternText)
	}
	v.length(path, *s, 3, 255)
}

// tableRef checks a TableName member that also accepts a table ARN (every
// operation but CreateTable): 1–1024 characters; a bare name must also be a
// valid table name.
func (v *violations) tableRef(path string, s *string) {
	if s == nil {
		v.null(path)
		return
	}
	if strings.HasPrefix(*s, "arn:") {
		v.length(path, *s, 1, 1024)
		return
	}
	if !validName(*s) {
		v.add(quoteValue(*s), path, namePatternText)
	}
	v.length(path, *s, 3, 1024)
}

// dataTableRef checks the TableName of a data-plane operation (GetItem,
// PutItem, UpdateItem, DeleteItem, Query, Scan). The service answers an
// empty name and a bare name over 255 characters with one length
// violation each (no pattern violation for the empty name), where the
// control plane's rule (tableRef) gives several.
func (v *violations) dataTableRef(path string, s *string) {
	if s == nil || strings.HasPrefix(*s, "arn:") || *s != "" && len([]rune(*s)) <= 255 {
		v.tableRef(path, s)
		return
	}
	if *s == "" {
		v.add("''", path, "Member must have length greater than or equal to 1")
		return
	}
	if !validName(*s) {
		v.add(quoteValue(*s), path, namePatternText)
	}
	v.add(quoteValue(*s), path, "Member must have length less than or equal to 255")
}

// requiredTableName is the control plane's answer to a request without a
// TableName, given before any other validation.
func requiredTableName(s *string) error {
	if s == nil {
		return Validation("The parameter 'TableName' is required but was not present in the request")
	}
	return nil
}

// addUnquoted records a violation the service reports without echoing
// the value ("Value at 'Limit' failed to satisfy constraint: …").
func (v *violations) addUnquoted(path, constraint string) {
	v.msgs = append(v.msgs, fmt.Sprintf("Value at '%s' failed to satisfy constraint: %s", path, constraint))
}

// checkBareName applies the table-name length rule a bare (non-ARN) name
// breaks only beyond the ARN-form maximum; the service answers it with its
// own message after the shape checks.
func checkBareName(s string) error {
	if !strings.HasPrefix(s, "arn:") && len(s) > 255 {
		return Validation("TableName must be at least 3 characters long and at most 255 characters long")
	}
	return nil
}

func (v *violations) length(path, s string, lo, hi int) {
	n := len([]rune(s))
	if n < lo {
		v.add(quoteValue(s), path, fmt.Sprintf("Member must have length greater than or equal to %d", lo))
	}
	if n > hi {
		v.add(quoteValue(s), path, fmt.Sprintf("Member must have length less than or equal to %d", hi))
	}
}

// maxAttrNameLength is the AttributeName shape's limit: item attribute
// names are 1 to 65,535 characters.
const maxAttrNameLength = 65535

// checkAttrNames checks the keys of an attribute map (an Item, a Key,
// AttributeUpdates) against the AttributeName shape, as the service's
// map-key constraint does. The service prints the map's Java form; the
// number of attributes stands in for it.
func checkAttrNames[V any](v *violations, path string, m map[string]V) {
	for k := range m {
		if n := len([]rune(k)); n < 1 || n > maxAttrNameLength {
			v.add(quoteValue(fmt.Sprintf("{%d attributes}", len(m))), path,
				fmt.Sprintf("Map keys must satisfy constraint: [Member must have length less than or equal to %d, Member must have length greater than or equal to 1]", maxAttrNameLength))
			return
		}
	}
}

func (v *violations) enum(path string, s *string, values ...string) {
	if s == nil {
		return
	}
	for _, x := range values {
		if *s == x {
			return
		}
	}
	v.add(quoteValue(*s), path, "Member must satisfy enum value set: ["+strings.Join(values, ", ")+"]")
}

func (v *violations) min(path string, n *int64, lo int64) {
	if n != nil && *n < lo {
		v.add(quoteInt(*n), path, fmt.Sprintf("Member must have value greater than or equal to %d", lo))
	}
}

func (v *violations) max(path string, n *int64, hi int64) {
	if n != nil && *n > hi {
		v.add(quoteInt(*n), path, fmt.Sprintf("Member must have value less than or equal to %d", hi))
	}
}

// throughput checks a ProvisionedThroughput member (both units required, >= 1).
func (v *violations) throughput(path string, pt *ProvisionedThroughput) {
	if pt == nil {
		return
	}
	if pt.WriteCapacityUnits == nil {
		v.null(path + ".writeCapacityUnits")
	}
	v.min(path+".writeCapacityUnits", pt.WriteCapacityUnits, 1)
	if pt.ReadCapacityUnits == nil {
		v.null(path + ".readCapacityUnits")
	}
	v.min(path+".readCapacityUnits", pt.ReadCapacityUnits, 1)
}

// keySchema checks a KeySchema list (length lo..hi, members non-null, key
// types HASH/RANGE, attribute names 1–255).
func (v *violations) keySchema(path string, ks []KeySchemaElement, present bool, hi int) {
	if !present {
		v.null(path)
		return
	}
	if len(ks) < 1 {
		v.add("'[]'", path, "Member must have length greater than or equal to 1")
	}
	if len(ks) > hi {
		v.add(quoteValue(keySchemaString(ks)), path, fmt.Sprintf("Member must have length less than or equal to %d", hi))
	}
	for i, k := range ks {
		p := fmt.Sprintf("%s.%d.member", path, i+1)
		if k.AttributeName == nil {
			v.null(p + ".attributeName")
		} else {
			v.length(p+".attributeName", *k.AttributeName, 1, 255)
		}
		if k.KeyType == nil {
			v.null(p + ".keyType")
		}
		v.enum(p+".keyType", k.KeyType, keyHash, keyRange)
	}
}

// projection checks a Projection member.
func (v *violations) projection(path string, p *Projection) {
	if p == nil {
		v.null(path)
		return
	}
	v.enum(path+".projectionType", p.ProjectionType, "ALL", "KEYS_ONLY", "INCLUDE")
	if p.NonKeyAttributes != nil {
		if len(p.NonKeyAttributes) < 1 {
			v.add("'[]'", path+".nonKeyAttributes", "Member must have length greater than or equal to 1")
		}
		if len(p.NonKeyAttributes) > 20 {
			v.add(quoteValue("["+strings.Join(p.NonKeyAttributes, ", ")+"]"), path+".nonKeyAttributes", "Member must have length less than or equal to 20")
		}
		// Each name is a NonKeyAttributeName: 1 to 255 characters.
		for _, a := range p.NonKeyAttributes {
			if n := len([]rune(a)); n < 1 || n > 255 {
				v.add(quoteValue("["+strings.Join(p.NonKeyAttributes, ", ")+"]"), path+".nonKeyAttributes",
					"Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]")
				break
			}
		}
	}
}

// keySchemaString renders a key schema list the way the service's Java
// toString does in constraint messages.
func keySchemaString(ks []KeySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("KeySchemaElement(attributeName=%s, keyType=%s)", strOrDefault(k.AttributeName, "null"), strOrDefault(k.KeyType, "null"))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func strOrDefault(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

func invalidParam(format string, args ...any) *Error {
	return Validation("One or more parameter values were invalid: "+format, args...)
}
