package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/extenddb/extenddb/emulator/api"
)

// Blame names the members of in that an error message of CreateTable (or
// of an UpdateTable applying the same declaration) is about, most specific
// first, as TableSpec.PosOf takes them; nil when the message names none.
//
// The engine's messages are DynamoDB's, which name a member in two ways: a
// shape violation quotes its path ("Value '0' at
// 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint"),
// and the other rules name a kind of mistake, sometimes with an index name
// or attribute names, which is found in in again by the rule the engine
// applied. A message no rule knows blames nothing, so the diagnostic stays
// at the resource.
func Blame(in *api.CreateTableInput, msg string) []string {
	if m := shapePathRE().FindAllStringSubmatch(msg, -1); m != nil {
		var out []string
		for _, x := range m {
			out = append(out, memberPath(x[1]))
		}
		return out
	}
	msg = strings.TrimPrefix(msg, "One or more parameter values were invalid: ")
	// Each rule group reports ok when its rule matched, even with nothing to
	// blame: the rules are tried in order and the first match decides.
	if p, ok := blameCapacity(in, msg); ok {
		return p
	}
	keyed := keyedIndexes(in)
	if p, ok := blameKeys(in, msg, keyed); ok {
		return p
	}
	if p, ok := blameIndexes(in, msg, keyed); ok {
		return p
	}
	return blameSettings(msg)
}

// blameText is an error message with the lookups Blame's rules make in it.
type blameText string

func (m blameText) has(s string) bool { return strings.Contains(string(m), s) }

// after is what follows prefix in m, if m has it.
func (m blameText) after(prefix string) (string, bool) {
	i := strings.Index(string(m), prefix)
	if i < 0 {
		return "", false
	}
	return string(m)[i+len(prefix):], true
}

// blameCapacity blames the member of a resource policy or provisioned
// throughput message.
func blameCapacity(in *api.CreateTableInput, msg string) ([]string, bool) {
	has, after := blameText(msg).has, blameText(msg).after
	switch {
	case strings.HasPrefix(msg, "Invalid policy document"), strings.HasPrefix(msg, "Resource-based policy size"):
		return []string{"ResourcePolicy"}, true
	case has("ReadCapacityUnits nor WriteCapacityUnits can be specified"),
		has("ReadCapacityUnits and WriteCapacityUnits must both be specified"):
		return []string{"ProvisionedThroughput", "BillingMode"}, true
	case has("for ReadCapacityUnits is out of bounds"), strings.HasPrefix(msg, "The requested ReadCapacityUnits, "):
		return []string{"ProvisionedThroughput.ReadCapacityUnits"}, true
	case has("for WriteCapacityUnits is out of bounds"), strings.HasPrefix(msg, "The requested WriteCapacityUnits, "):
		return []string{"ProvisionedThroughput.WriteCapacityUnits"}, true
	case strings.HasPrefix(msg, "The requested ReadCapacityUnits for index "), strings.HasPrefix(msg, "The requested WriteCapacityUnits for index "):
		rest, _ := after(" for index ")
		name, _, _ := strings.Cut(rest, ",")
		member := "ReadCapacityUnits"
		if strings.HasPrefix(msg, "The requested Write") {
			member = "WriteCapacityUnits"
		}
		return indexMember(in, name, ".ProvisionedThroughput."+member), true
	}
	return nil, false
}

// blameKeys blames the member of an attribute definition or key schema
// message, of the table or an index.
func blameKeys(in *api.CreateTableInput, msg string, keyed []keyedIndex) ([]string, bool) {
	has, after := blameText(msg).has, blameText(msg).after
	if name, ok := after("Attribute Name is duplicated: "); ok {
		last := -1
		for i, a := range in.AttributeDefinitions {
			if str(a.AttributeName) == name {
				last = i
			}
		}
		return found(last >= 0, fmt.Sprintf("AttributeDefinitions[%d]", last), "AttributeDefinitions"), true
	}
	switch {
	case has("Some index key attribute have no definition"), has("Some index key attributes are not defined in AttributeDefinitions"):
		defined := map[string]bool{}
		for _, a := range in.AttributeDefinitions {
			defined[str(a.AttributeName)] = true
		}
		for _, k := range keyed {
			for j, e := range k.ks {
				if !defined[str(e.AttributeName)] {
					return []string{fmt.Sprintf("%sKeySchema[%d]", k.path, j)}, true
				}
			}
		}
		return []string{"AttributeDefinitions"}, true
	case has("Both the Hash Key and the Range Key element in the KeySchema have the same name"):
		for _, k := range keyed {
			if len(k.ks) == 2 && str(k.ks[0].AttributeName) == str(k.ks[1].AttributeName) {
				return []string{k.path + "KeySchema[1]"}, true
			}
		}
	case has("The first KeySchemaElement is not a HASH key type"):
		for _, k := range keyed {
			if len(k.ks) > 0 && str(k.ks[0].KeyType) != "HASH" {
				return []string{k.path + "KeySchema[0]"}, true
			}
		}
	case has("The second KeySchemaElement is not a RANGE key type"):
		for _, k := range keyed {
			if len(k.ks) == 2 && str(k.ks[1].KeyType) != "RANGE" {
				return []string{k.path + "KeySchema[1]"}, true
			}
		}
	case has("The KeySchema contains multiple key attributes with the same name"),
		has("All HASH key attributes must precede RANGE key attributes"),
		has("The KeySchema exceeds the maximum allowed number of"):
		for _, k := range keyed {
			if len(k.ks) > 2 {
				return []string{k.path + "KeySchema"}, true
			}
		}
	case has("Number of attributes in KeySchema does not exactly match"), has("Some AttributeDefinitions are not used"):
		used := map[string]bool{}
		for _, k := range keyed {
			for _, e := range k.ks {
				used[str(e.AttributeName)] = true
			}
		}
		for i, a := range in.AttributeDefinitions {
			if !used[str(a.AttributeName)] {
				return []string{fmt.Sprintf("AttributeDefinitions[%d]", i)}, true
			}
		}
		return []string{"AttributeDefinitions"}, true
	case has("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"):
		return []string{"LocalSecondaryIndexes[0]", "KeySchema"}, true
	case has("List of LocalSecondaryIndexes is empty"), has("Number of LocalSecondaryIndexes exceeds"):
		return []string{fmt.Sprintf("LocalSecondaryIndexes[%d]", len(in.LocalSecondaryIndexes)-1), "LocalSecondaryIndexes"}, true
	case has("List of GlobalSecondaryIndexes is empty"), has("GlobalSecondaryIndex count exceeds"):
		return []string{fmt.Sprintf("GlobalSecondaryIndexes[%d]", len(in.GlobalSecondaryIndexes)-1), "GlobalSecondaryIndexes"}, true
	}
	return nil, false
}

// blameIndexes blames the member of a message about one index: its key
// schema, name, projection, throughput, caps or warm throughput.
func blameIndexes(in *api.CreateTableInput, msg string, keyed []keyedIndex) ([]string, bool) {
	has, after := blameText(msg).has, blameText(msg).after
	if rest, ok := after("Index KeySchema does not have a range key for index: "); ok {
		return indexMember(in, rest, ".KeySchema"), true
	}
	if rest, ok := after("Index KeySchema does not have the same leading hash key as table KeySchema for index: "); ok {
		name, _, _ := strings.Cut(rest, ". index hash key:")
		return indexMember(in, name, ".KeySchema[0]"), true
	}
	if name, ok := after("Duplicate index name: "); ok {
		seen := false
		for _, k := range keyed[1:] {
			if str(k.name) == name {
				if seen {
					return []string{k.path + "IndexName"}, true
				}
				seen = true
			}
		}
	}
	if p := blameProjection(in, msg); p != nil {
		return p, true
	}
	if rest, ok := after("ProvisionedThroughput should not be specified for index: "); ok {
		name, _, _ := strings.Cut(rest, " when BillingMode")
		return indexMember(in, name, ".ProvisionedThroughput"), true
	}
	if name, ok := after("ProvisionedThroughput is not specified for index: "); ok {
		return indexMember(in, name, ".ProvisionedThroughput"), true
	}
	for _, c := range []struct{ unit, of string }{
		{"MaxReadRequestUnits", "OnDemandThroughput"}, {"MaxWriteRequestUnits", "OnDemandThroughput"},
		{"ReadUnitsPerSecond", "WarmThroughput"}, {"WriteUnitsPerSecond", "WarmThroughput"},
	} {
		if !has(c.unit + " for " + c.of) {
			continue
		}
		// "… for OnDemandThroughput for index : NAME is …", "… for
		// WarmThroughput for index NAME is …", "… for table …".
		if rest, ok := after(c.of + " for index "); ok {
			rest = strings.TrimPrefix(rest, ": ")
			name, _, _ := strings.Cut(rest, " ")
			return indexMember(in, name, "."+c.of+"."+c.unit), true
		}
		return []string{c.of + "." + c.unit}, true
	}
	return nil, false
}

// blameSettings blames the member of a message about the table's stream,
// encryption, class, tags or name.
func blameSettings(msg string) []string {
	has := blameText(msg).has
	switch {
	case has("Table is being created with a stream"):
		return []string{"StreamSpecification.StreamViewType", "StreamSpecification"}
	case has("SSEType"):
		return []string{"SSESpecification.SSEType", "SSESpecification"}
	case has("KMSMasterKeyId"):
		return []string{"SSESpecification.KMSMasterKeyId", "SSESpecification"}
	case has("table-class"):
		return []string{"TableClass"}
	case has("Tag Key"), has("Tag Value"), has("Number of Tags"):
		return []string{"Tags"}
	case has("TableName must be"):
		return []string{"TableName"}
	}
	return nil
}

// shapePathRE finds the member path of each shape violation.
var shapePathRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(` at '([A-Za-z0-9.]+)' failed to satisfy constraint`)
})

// memberPath turns a shape violation's path into a member path:
// "globalSecondaryIndexes.2.member.projection.projectionType" →
// "GlobalSecondaryIndexes[1].Projection.ProjectionType".
func memberPath(p string) string {
	parts := strings.Split(p, ".")
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		if n, err := strconv.Atoi(part); err == nil {
			fmt.Fprintf(&b, "[%d]", n-1)
			if i+1 < len(parts) && parts[i+1] == "member" {
				i++
			}
			continue
		}
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// keyedIndex is the table or one of its indexes, in the order the engine
// checks them: the table, its LSIs, its GSIs.
type keyedIndex struct {
	path string // "" for the table, else "LocalSecondaryIndexes[0]." …
	name *string
	ks   []api.KeySchemaElement
	proj *api.Projection
}

func keyedIndexes(in *api.CreateTableInput) []keyedIndex {
	out := []keyedIndex{{ks: in.KeySchema}}
	for i, l := range in.LocalSecondaryIndexes {
		out = append(out, keyedIndex{fmt.Sprintf("LocalSecondaryIndexes[%d].", i), l.IndexName, l.KeySchema, l.Projection})
	}
	for i, g := range in.GlobalSecondaryIndexes {
		out = append(out, keyedIndex{fmt.Sprintf("GlobalSecondaryIndexes[%d].", i), g.IndexName, g.KeySchema, g.Projection})
	}
	return out
}

// indexMember is member of the index called name (GSIs first: the messages
// that name an index are mostly about GSIs), or the index alone.
func indexMember(in *api.CreateTableInput, name, member string) []string {
	for i, g := range in.GlobalSecondaryIndexes {
		if str(g.IndexName) == name {
			return []string{fmt.Sprintf("GlobalSecondaryIndexes[%d]%s", i, member)}
		}
	}
	for i, l := range in.LocalSecondaryIndexes {
		if str(l.IndexName) == name {
			return []string{fmt.Sprintf("LocalSecondaryIndexes[%d]%s", i, member)}
		}
	}
	return nil
}

// blameProjection finds the first index whose projection breaks the rule
// msg states.
func blameProjection(in *api.CreateTableInput, msg string) []string {
	var bad func(p *api.Projection) bool
	member := "Projection.NonKeyAttributes"
	switch {
	case strings.Contains(msg, "Unknown ProjectionType: null"):
		bad = func(p *api.Projection) bool { return p.ProjectionType == nil }
		member = "Projection.ProjectionType"
	case strings.Contains(msg, "ProjectionType is INCLUDE, but NonKeyAttributes is not specified"):
		bad = func(p *api.Projection) bool {
			return str(p.ProjectionType) == "INCLUDE" && p.NonKeyAttributes == nil
		}
		member = "Projection.ProjectionType"
	case strings.Contains(msg, ", but NonKeyAttributes is specified"):
		bad = func(p *api.Projection) bool {
			return str(p.ProjectionType) != "INCLUDE" && p.NonKeyAttributes != nil
		}
	case strings.Contains(msg, "Duplicate element in NonKeyAttributes"):
		bad = func(p *api.Projection) bool {
			seen := map[string]bool{}
			for _, a := range p.NonKeyAttributes {
				if seen[a] {
					return true
				}
				seen[a] = true
			}
			return false
		}
	default:
		return nil
	}
	for _, k := range keyedIndexes(in)[1:] {
		if k.proj != nil && bad(k.proj) {
			return []string{k.path + member}
		}
	}
	return nil
}

func found(ok bool, path, fallback string) []string {
	if ok {
		return []string{path}
	}
	return []string{fallback}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
