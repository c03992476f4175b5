package spec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/extenddb/extenddb/emulator/av"
)

// DecodeItem parses an item in DynamoDB JSON ({"id": {"S": "1"}}), the
// format of aws_dynamodb_table_item's item argument. The engine validates
// the values themselves when the item is written.
func DecodeItem(data []byte) (av.Item, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("item is not a JSON object: %v", err)
	}
	if raw == nil {
		return nil, fmt.Errorf("item is not a JSON object")
	}
	item := av.Item{}
	for _, name := range sortedKeys(raw) {
		v, err := decodeValue(raw[name])
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %v", name, err)
		}
		item[name] = v
	}
	return item, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func decodeValue(x any) (av.Value, error) {
	m, ok := x.(map[string]any)
	if !ok || len(m) != 1 {
		return av.Value{}, fmt.Errorf("an attribute value must be an object with exactly one type descriptor (S, N, B, SS, NS, BS, M, L, NULL, BOOL)")
	}
	for t, inner := range m {
		switch t {
		case "S":
			s, ok := inner.(string)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of S must be a string")
			}
			return av.Value{Type: av.TypeS, S: s}, nil
		case "N":
			s, ok := numText(inner)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of N must be a string")
			}
			return av.Value{Type: av.TypeN, S: s}, nil
		case "B":
			s, ok := inner.(string)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of B must be a base64 string")
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return av.Value{}, fmt.Errorf("the value of B is not valid base64: %v", err)
			}
			return av.Value{Type: av.TypeB, S: string(b)}, nil
		case "SS", "NS", "BS":
			list, ok := inner.([]any)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of %s must be a list", t)
			}
			v := av.Value{Type: map[string]av.Type{"SS": av.TypeSS, "NS": av.TypeNS, "BS": av.TypeBS}[t]}
			for _, e := range list {
				s, ok := numText(e)
				if t == "SS" || t == "BS" {
					s, ok = e.(string)
				}
				if !ok {
					return av.Value{}, fmt.Errorf("the members of %s must be strings", t)
				}
				if t == "BS" {
					b, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						return av.Value{}, fmt.Errorf("a member of BS is not valid base64: %v", err)
					}
					s = string(b)
				}
				v.Set = append(v.Set, s)
			}
			return v, nil
		case "M":
			mm, ok := inner.(map[string]any)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of M must be an object")
			}
			v := av.Value{Type: av.TypeM, M: map[string]av.Value{}}
			for _, k := range sortedKeys(mm) {
				e, err := decodeValue(mm[k])
				if err != nil {
					return av.Value{}, fmt.Errorf("%s: %v", k, err)
				}
				v.M[k] = e
			}
			return v, nil
		case "L":
			list, ok := inner.([]any)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of L must be a list")
			}
			v := av.Value{Type: av.TypeL, L: []av.Value{}}
			for i, e := range list {
				ev, err := decodeValue(e)
				if err != nil {
					return av.Value{}, fmt.Errorf("[%d]: %v", i, err)
				}
				v.L = append(v.L, ev)
			}
			return v, nil
		case "NULL":
			b, ok := inner.(bool)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of NULL must be true")
			}
			return av.Value{Type: av.TypeNULL, Bool: b}, nil
		case "BOOL":
			b, ok := inner.(bool)
			if !ok {
				return av.Value{}, fmt.Errorf("the value of BOOL must be a boolean")
			}
			return av.Value{Type: av.TypeBOOL, Bool: b}, nil
		default:
			return av.Value{}, fmt.Errorf("unknown type descriptor %q", t)
		}
	}
	return av.Value{}, fmt.Errorf("an attribute value must have a type descriptor")
}

// numText accepts the string form DynamoDB JSON requires and, leniently, a
// bare JSON number (hand-written seed files often use one).
func numText(x any) (string, bool) {
	switch n := x.(type) {
	case string:
		return n, true
	case json.Number:
		return n.String(), true
	}
	return "", false
}
