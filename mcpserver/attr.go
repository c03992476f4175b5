package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Items cross the MCP boundary in DynamoDB's JSON form ({"S":"x"},
// {"N":"1.5"}, {"M":{…}}), the form of the DynamoDB API, the AWS CLI and
// the console: exact (numbers stay decimal strings) and unambiguous (a
// string set is not a list).

// toAV converts one attribute value in DynamoDB JSON form.
func toAV(v any) (types.AttributeValue, error) {
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
			switch k {
			case "S":
				return &types.AttributeValueMemberS{Value: s}, nil
			case "N":
				return &types.AttributeValueMemberN{Value: s}, nil
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("type B takes base64: %w", err)
			}
			return &types.AttributeValueMemberB{Value: b}, nil
		case "BOOL":
			b, ok := x.(bool)
			if !ok {
				return nil, fmt.Errorf("type BOOL takes true or false, not %s", jsonText(x))
			}
			return &types.AttributeValueMemberBOOL{Value: b}, nil
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}, nil
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
			}
			switch k {
			case "SS":
				return &types.AttributeValueMemberSS{Value: ss}, nil
			case "NS":
				return &types.AttributeValueMemberNS{Value: ss}, nil
			}
			bs := make([][]byte, len(ss))
			for i, s := range ss {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return nil, fmt.Errorf("type BS takes base64 strings: %w", err)
				}
				bs[i] = b
			}
			return &types.AttributeValueMemberBS{Value: bs}, nil
		case "L":
			l, ok := x.([]any)
			if !ok {
				return nil, fmt.Errorf("type L takes a list of attribute values, not %s", jsonText(x))
			}
			out := make([]types.AttributeValue, len(l))
			for i, e := range l {
				av, err := toAV(e)
				if err != nil {
					return nil, err
				}
				out[i] = av
			}
			return &types.AttributeValueMemberL{Value: out}, nil
		case "M":
			mm, ok := x.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("type M takes an object of attribute values, not %s", jsonText(x))
			}
			out, err := toItem(mm)
			if err != nil {
				return nil, err
			}
			return &types.AttributeValueMemberM{Value: out}, nil
		}
		return nil, fmt.Errorf("unknown attribute value type %q (want S, N, B, BOOL, NULL, SS, NS, BS, L or M)", k)
	}
	panic("unreachable")
}

// toItem converts an item (or a key, or ExpressionAttributeValues) in
// DynamoDB JSON form; nil stays nil.
func toItem(m map[string]any) (map[string]types.AttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for _, k := range sortedKeys(m) {
		av, err := toAV(m[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// fromAV is one attribute value in DynamoDB JSON form.
func fromAV(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		l := make([]string, len(v.Value))
		for i, b := range v.Value {
			l[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": l}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = fromAV(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": fromItem(v.Value)}
	}
	return nil
}

// fromItem is an item in DynamoDB JSON form; nil stays nil.
func fromItem(m map[string]types.AttributeValue) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = fromAV(v)
	}
	return out
}

func fromItems(l []map[string]types.AttributeValue) []map[string]any {
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
