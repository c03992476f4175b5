package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
)

// Items cross the MCP boundary in DynamoDB's JSON form ({"S":"x"},
// {"N":"1.5"}, {"M":{…}}), the form of the DynamoDB API, the AWS CLI and
// the console: exact (numbers stay decimal strings) and unambiguous (a
// string set is not a list).

// toAV checks one attribute value in DynamoDB JSON form and returns it
// as it goes on the wire: binary re-encoded as standard base64 and NULL
// as true, as the SDK's AttributeValue types sent them.
func toAV(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, fmt.Errorf("an attribute value is an object with one type key, such as {\"S\":\"text\"} or {\"N\":\"42\"}, not %s", jsonText(v))
	}
	for k, x := range m {
		switch k {
		case "S", "N", "B":
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("type %s takes a string, not %s", k, jsonText(x))
			}
			if k == "B" {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return nil, fmt.Errorf("type B takes base64: %w", err)
				}
				s = base64.StdEncoding.EncodeToString(b)
			}
			return map[string]any{k: s}, nil
		case "BOOL":
			b, ok := x.(bool)
			if !ok {
				return nil, fmt.Errorf("type BOOL takes true or false, not %s", jsonText(x))
			}
			return map[string]any{k: b}, nil
		case "NULL":
			return map[string]any{k: true}, nil
		case "SS", "NS", "BS":
			l, ok := x.([]any)
			if !ok {
				return nil, fmt.Errorf("type %s takes a list of strings, not %s", k, jsonText(x))
			}
			ss := make([]string, len(l))
			for i, e := range l {
				if ss[i], ok = e.(string); !ok {
					return nil, fmt.Errorf("type %s takes a list of strings, not %s", k, jsonText(x))
				}
				if k == "BS" {
					b, err := base64.StdEncoding.DecodeString(ss[i])
					if err != nil {
						return nil, fmt.Errorf("type BS takes base64 strings: %w", err)
					}
					ss[i] = base64.StdEncoding.EncodeToString(b)
				}
			}
			return map[string]any{k: ss}, nil
		case "L":
			l, ok := x.([]any)
			if !ok {
				return nil, fmt.Errorf("type L takes a list of attribute values, not %s", jsonText(x))
			}
			out := make([]any, len(l))
			for i, e := range l {
				av, err := toAV(e)
				if err != nil {
					return nil, err
				}
				out[i] = av
			}
			return map[string]any{k: out}, nil
		case "M":
			mm, ok := x.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("type M takes an object of attribute values, not %s", jsonText(x))
			}
			out, err := toItem(mm)
			if err != nil {
				return nil, err
			}
			return map[string]any{k: out}, nil
		}
		return nil, fmt.Errorf("unknown attribute value type %q (want S, N, B, BOOL, NULL, SS, NS, BS, L or M)", k)
	}
	panic("unreachable")
}

// toItem checks an item (or a key, or ExpressionAttributeValues) in
// DynamoDB JSON form, as toAV does; nil stays nil (the member is left
// out of the request), empty stays empty (sent, as the SDK sent it).
func toItem(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for _, k := range sortedKeys(m) {
		av, err := toAV(m[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// fromAV is one attribute value of an answer, as the tools show it: what
// the SDK decoded and this package re-encoded (binary as standard
// base64, NULL as true), nil for what the SDK could not decode.
func fromAV(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for k, x := range m {
		switch k {
		case "S", "N":
			if s, ok := x.(string); ok {
				return map[string]any{k: s}
			}
		case "B":
			if s, ok := x.(string); ok {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					return map[string]any{k: base64.StdEncoding.EncodeToString(b)}
				}
			}
		case "BOOL":
			if b, ok := x.(bool); ok {
				return map[string]any{k: b}
			}
		case "NULL":
			return map[string]any{k: true}
		case "SS", "NS", "BS":
			if l, ok := x.([]any); ok {
				ss := make([]string, 0, len(l))
				for _, e := range l {
					s, ok := e.(string)
					if k == "BS" {
						b, err := base64.StdEncoding.DecodeString(s)
						ok = ok && err == nil
						s = base64.StdEncoding.EncodeToString(b)
					}
					if !ok {
						return nil
					}
					ss = append(ss, s)
				}
				return map[string]any{k: ss}
			}
		case "L":
			if l, ok := x.([]any); ok {
				out := make([]any, len(l))
				for i, e := range l {
					out[i] = fromAV(e)
				}
				return map[string]any{k: out}
			}
		case "M":
			if mm, ok := x.(map[string]any); ok {
				return map[string]any{k: fromItem(mm)}
			}
		}
	}
	return nil
}

// fromItem is an item of an answer in DynamoDB JSON form; nil (absent)
// stays nil.
func fromItem(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = fromAV(v)
	}
	return out
}

func fromItems(l []map[string]any) []map[string]any {
	out := make([]map[string]any, len(l))
	for i, it := range l {
		out[i] = fromItem(it)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
