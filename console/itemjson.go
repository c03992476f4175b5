package console

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/extenddb/extenddb/emulator/av"
)

// dynamoJSON is it as indented DynamoDB JSON ({"pk":{"S":"a"}}).
func dynamoJSON(it av.Item) string {
	var b bytes.Buffer
	if err := json.Indent(&b, av.AppendItemJSON(nil, it), "", "  "); err != nil {
		return string(av.AppendItemJSON(nil, it))
	}
	return b.String()
}

// compactJSON is it as one-line DynamoDB JSON, for links and hidden fields.
func compactJSON(it av.Item) string { return string(av.AppendItemJSON(nil, it)) }

// plainJSON is it as ordinary JSON: numbers as numbers, binaries base64,
// sets as arrays.
func plainJSON(it av.Item) string {
	m := make(map[string]any, len(it))
	for k, v := range it {
		m[k] = plain(v)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func plain(v av.Value) any {
	switch v.Type {
	case av.TypeS:
		return v.S
	case av.TypeN:
		return json.Number(v.S)
	case av.TypeB:
		return base64.StdEncoding.EncodeToString([]byte(v.S))
	case av.TypeSS:
		return v.Set
	case av.TypeNS:
		out := make([]json.Number, len(v.Set))
		for i, s := range v.Set {
			out[i] = json.Number(s)
		}
		return out
	case av.TypeBS:
		out := make([]string, len(v.Set))
		for i, s := range v.Set {
			out[i] = base64.StdEncoding.EncodeToString([]byte(s))
		}
		return out
	case av.TypeM:
		m := make(map[string]any, len(v.M))
		for k, e := range v.M {
			m[k] = plain(e)
		}
		return m
	case av.TypeL:
		l := make([]any, len(v.L))
		for i, e := range v.L {
			l[i] = plain(e)
		}
		return l
	case av.TypeBOOL:
		return v.Bool
	}
	return nil
}

// valueText is a short display of one value: a string as is, others as
// plain JSON.
func valueText(v av.Value) string {
	if v.Type == av.TypeS {
		return v.S
	}
	b, err := json.Marshal(plain(v))
	if err != nil {
		return ""
	}
	return string(b)
}

// errMalformed is item JSON the console cannot read.
var errMalformed = errors.New("malformed item JSON")

// parseItem reads DynamoDB JSON (an object of attribute values). The engine
// validates the values themselves.
func parseItem(s string) (av.Item, error) {
	it, err := av.DecodeItemJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errMalformed, err)
	}
	if it == nil {
		return nil, fmt.Errorf("%w: want an object such as {\"pk\": {\"S\": \"a\"}}", errMalformed)
	}
	return it, nil
}

// maxConditionBytes keeps the version condition under DynamoDB's 4 KB
// expression limit (and maxNameBytes under the 255-byte limit on a
// substituted name); a larger item relies on the read-and-compare alone.
const (
	maxConditionBytes = 4000
	maxNameBytes      = 255
)

// versionCondition is a condition that holds only while the item still has
// every attribute of seen with the value seen: "#a0 = :v0 AND …". It returns
// ok false for an item too large to express within maxConditionBytes.
func versionCondition(seen av.Item) (expr string, names map[string]string, values map[string]av.Value, ok bool) {
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	names = make(map[string]string, len(keys))
	values = make(map[string]av.Value, len(keys))
	var b bytes.Buffer
	for i, k := range keys {
		if len(k) > maxNameBytes {
			return "", nil, nil, false
		}
		if i > 0 {
			b.WriteString(" AND ")
		}
		n, v := "#a"+strconv.Itoa(i), ":v"+strconv.Itoa(i)
		b.WriteString(n + " = " + v)
		names[n], values[v] = k, seen[k]
	}
	if b.Len() > maxConditionBytes {
		return "", nil, nil, false
	}
	return b.String(), names, values, true
}
