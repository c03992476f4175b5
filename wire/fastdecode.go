package wire

import (
	"strconv"
	"unicode/utf8"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// The data plane's hottest requests are decoded without encoding/json, which
// scans every byte twice before handing attribute values to av. The fast
// path handles only the plain form SDKs send: known members spelled
// exactly, each once, with values of the right JSON type. Anything else
// (unknown or legacy members, escapes it does not handle, a wrong type,
// malformed JSON) makes it give up, and decodeInput's encoding/json path
// decodes the request with DynamoDB's error for whatever is wrong.
// FuzzFastDecodeMatchesGeneric keeps the two paths' results identical.

// fastDecode decodes body into v when v has a fast decoder and the body is
// in the plain form; ok is false otherwise (v may then be partly set).
func fastDecode(body []byte, v any) (ok bool) {
	s := &scanner{b: body}
	switch in := v.(type) {
	case *api.GetItemInput:
		ok = s.getItem(in)
	case *api.PutItemInput:
		ok = s.putItem(in)
	case *api.UpdateItemInput:
		ok = s.updateItem(in)
	case *api.DeleteItemInput:
		ok = s.deleteItem(in)
	case *api.QueryInput:
		ok = s.query(in)
	case *api.BatchGetItemInput:
		ok = s.batchGetItem(in)
	default:
		return false
	}
	if !ok {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// getItem reads the members of a GetItem request.
func (s *scanner) getItem(in *api.GetItemInput) bool {
	return s.object(func(k string) bool {
		switch k {
		case "TableName":
			return s.strPtr(&in.TableName)
		case "Key":
			return s.item(&in.Key)
		case "ConsistentRead":
			return s.boolPtr(&in.ConsistentRead)
		case "ReturnConsumedCapacity":
			return s.strPtr(&in.ReturnConsumedCapacity)
		case "ProjectionExpression":
			return s.strPtr(&in.ProjectionExpression)
		case "ExpressionAttributeNames":
			return s.strMap(&in.ExpressionAttributeNames)
		case "AttributesToGet":
			return s.strList(&in.AttributesToGet)
		}
		return false
	})
}

// putItem reads the members of a PutItem request.
func (s *scanner) putItem(in *api.PutItemInput) bool {
	return s.object(func(k string) bool {
		switch k {
		case "TableName":
			return s.strPtr(&in.TableName)
		case "Item":
			return s.item(&in.Item)
		case "ReturnValues":
			return s.strPtr(&in.ReturnValues)
		case "ReturnConsumedCapacity":
			return s.strPtr(&in.ReturnConsumedCapacity)
		case "ReturnItemCollectionMetrics":
			return s.strPtr(&in.ReturnItemCollectionMetrics)
		case "ConditionalOperator":
			return s.strPtr(&in.ConditionalOperator)
		case "ConditionExpression":
			return s.strPtr(&in.ConditionExpression)
		case "ExpressionAttributeNames":
			return s.strMap(&in.ExpressionAttributeNames)
		case "ExpressionAttributeValues":
			return s.avMap(&in.ExpressionAttributeValues)
		case "ReturnValuesOnConditionCheckFailure":
			return s.strPtr(&in.ReturnValuesOnConditionCheckFailure)
		}
		return false
	})
}

// updateItem reads the members of a UpdateItem request.
func (s *scanner) updateItem(in *api.UpdateItemInput) bool {
	return s.object(func(k string) bool {
		switch k {
		case "TableName":
			return s.strPtr(&in.TableName)
		case "Key":
			return s.item(&in.Key)
		case "ConditionalOperator":
			return s.strPtr(&in.ConditionalOperator)
		case "ReturnValues":
			return s.strPtr(&in.ReturnValues)
		case "ReturnConsumedCapacity":
			return s.strPtr(&in.ReturnConsumedCapacity)
		case "ReturnItemCollectionMetrics":
			return s.strPtr(&in.ReturnItemCollectionMetrics)
		case "UpdateExpression":
			return s.strPtr(&in.UpdateExpression)
		case "ConditionExpression":
			return s.strPtr(&in.ConditionExpression)
		case "ExpressionAttributeNames":
			return s.strMap(&in.ExpressionAttributeNames)
		case "ExpressionAttributeValues":
			return s.avMap(&in.ExpressionAttributeValues)
		case "ReturnValuesOnConditionCheckFailure":
			return s.strPtr(&in.ReturnValuesOnConditionCheckFailure)
		}
		return false
	})
}

// deleteItem reads the members of a DeleteItem request.
func (s *scanner) deleteItem(in *api.DeleteItemInput) bool {
	return s.object(func(k string) bool {
		switch k {
		case "TableName":
			return s.strPtr(&in.TableName)
		case "Key":
			return s.item(&in.Key)
		case "ConditionalOperator":
			return s.strPtr(&in.ConditionalOperator)
		case "ReturnValues":
			return s.strPtr(&in.ReturnValues)
		case "ReturnConsumedCapacity":
			return s.strPtr(&in.ReturnConsumedCapacity)
		case "ReturnItemCollectionMetrics":
			return s.strPtr(&in.ReturnItemCollectionMetrics)
		case "ConditionExpression":
			return s.strPtr(&in.ConditionExpression)
		case "ExpressionAttributeNames":
			return s.strMap(&in.ExpressionAttributeNames)
		case "ExpressionAttributeValues":
			return s.avMap(&in.ExpressionAttributeValues)
		case "ReturnValuesOnConditionCheckFailure":
			return s.strPtr(&in.ReturnValuesOnConditionCheckFailure)
		}
		return false
	})
}

// query reads the members of a Query request.
func (s *scanner) query(in *api.QueryInput) bool {
	return s.object(func(k string) bool {
		switch k {
		case "TableName":
			return s.strPtr(&in.TableName)
		case "IndexName":
			return s.strPtr(&in.IndexName)
		case "Select":
			return s.strPtr(&in.Select)
		case "AttributesToGet":
			return s.strList(&in.AttributesToGet)
		case "Limit":
			return s.intPtr(&in.Limit)
		case "ConsistentRead":
			return s.boolPtr(&in.ConsistentRead)
		case "ConditionalOperator":
			return s.strPtr(&in.ConditionalOperator)
		case "ScanIndexForward":
			return s.boolPtr(&in.ScanIndexForward)
		case "ExclusiveStartKey":
			return s.item(&in.ExclusiveStartKey)
		case "ReturnConsumedCapacity":
			return s.strPtr(&in.ReturnConsumedCapacity)
		case "ProjectionExpression":
			return s.strPtr(&in.ProjectionExpression)
		case "FilterExpression":
			return s.strPtr(&in.FilterExpression)
		case "KeyConditionExpression":
			return s.strPtr(&in.KeyConditionExpression)
		case "ExpressionAttributeNames":
			return s.strMap(&in.ExpressionAttributeNames)
		case "ExpressionAttributeValues":
			return s.avMap(&in.ExpressionAttributeValues)
		}
		return false
	})
}

// batchGetItem reads the members of a BatchGetItem request.
func (s *scanner) batchGetItem(in *api.BatchGetItemInput) bool {
	return s.object(func(k string) bool {
		switch k {
		case "RequestItems":
			return s.requestItems(&in.RequestItems)
		case "ReturnConsumedCapacity":
			return s.strPtr(&in.ReturnConsumedCapacity)
		}
		return false
	})
}

// scanner reads the plain JSON the fast path accepts; every method reports
// false for anything else.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// literal consumes lit (after whitespace).
func (s *scanner) literal(lit string) bool {
	s.ws()
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// str reads a string without escapes and with valid UTF-8 (what SDKs send
// for names and expressions); anything else is left to encoding/json.
func (s *scanner) str() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			raw := s.b[start:j]
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			s.i = j + 1
			return string(raw), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// object reads {"key": value, …}, calling member for each key; a repeated
// key gives up (encoding/json merges repeated maps).
func (s *scanner) object(member func(key string) bool) bool {
	if !s.literal("{") {
		return false
	}
	if s.peek() == '}' {
		s.i++
		return true
	}
	var seen []string
	for {
		k, ok := s.str()
		if !ok || !s.literal(":") {
			return false
		}
		for _, p := range seen {
			if p == k {
				return false
			}
		}
		seen = append(seen, k)
		if !member(k) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) isNull() bool {
	if s.peek() == 'n' {
		return s.literal("null")
	}
	return false
}

func (s *scanner) strPtr(p **string) bool {
	if s.isNull() {
		return true
	}
	v, ok := s.str()
	if ok {
		*p = &v
	}
	return ok
}

func (s *scanner) boolPtr(p **bool) bool {
	var v bool
	switch {
	case s.isNull():
		return true
	case s.literal("true"):
		v = true
	case s.literal("false"):
	default:
		return false
	}
	*p = &v
	return true
}

// intPtr reads a plain integer; a fraction, exponent or overflow is left to
// encoding/json (which truncates and clamps).
func (s *scanner) intPtr(p **int64) bool {
	if s.isNull() {
		return true
	}
	start := s.i
	j := start
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		j++
	}
	if j == digits || (s.b[digits] == '0' && j-digits > 1) {
		return false
	}
	if j < len(s.b) {
		switch s.b[j] {
		case '.', 'e', 'E':
			return false
		}
	}
	n, err := strconv.ParseInt(string(s.b[start:j]), 10, 64)
	if err != nil {
		return false
	}
	s.i = j
	*p = &n
	return true
}

func (s *scanner) strList(p *[]string) bool {
	if s.isNull() {
		return true
	}
	out := []string{}
	ok := s.array(func() bool {
		v, ok := s.str()
		out = append(out, v)
		return ok
	})
	if ok {
		*p = out
	}
	return ok
}

// array reads [elem, …], calling elem for each element.
func (s *scanner) array(elem func() bool) bool {
	if !s.literal("[") {
		return false
	}
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) strMap(p *map[string]string) bool {
	if s.isNull() {
		return true
	}
	m := map[string]string{}
	ok := s.object(func(k string) bool {
		v, ok := s.str()
		m[k] = v
		return ok
	})
	if ok {
		*p = m
	}
	return ok
}

// span returns the extent of the JSON object at the scanner, matching
// brackets outside strings; av then parses (and validates) it.
func (s *scanner) span() ([]byte, bool) {
	if s.peek() != '{' {
		return nil, false
	}
	start, depth, inStr := s.i, 0, false
	for j := start; j < len(s.b); j++ {
		if inStr {
			// Whole words of plain string contents at a time (an item's
			// long values).
			if n := av.PlainStringPrefix(s.b[j:]); n > 0 {
				j += n - 1
				continue
			}
		}
		c := s.b[j]
		if inStr {
			switch c {
			case '\\':
				j++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i = j + 1
				return s.b[start:s.i], true
			}
		}
	}
	return nil, false
}

func (s *scanner) item(p *av.Item) bool {
	if s.isNull() {
		return true
	}
	raw, ok := s.span()
	if !ok {
		return false
	}
	it, err := av.DecodeItemJSON(raw)
	if err != nil {
		return false
	}
	*p = it
	return true
}

func (s *scanner) avMap(p *map[string]av.Value) bool {
	var it av.Item
	if !s.item(&it) {
		return false
	}
	if it != nil {
		*p = it
	}
	return true
}

// requestItems reads BatchGetItem's RequestItems: table name → keys and
// attributes. A null entry is left to encoding/json.
func (s *scanner) requestItems(p *map[string]api.KeysAndAttributes) bool {
	if s.isNull() {
		return true
	}
	m := map[string]api.KeysAndAttributes{}
	ok := s.object(func(table string) bool {
		var ka api.KeysAndAttributes
		ok := s.object(func(k string) bool {
			switch k {
			case "Keys":
				return s.itemList(&ka.Keys)
			case "AttributesToGet":
				return s.strList(&ka.AttributesToGet)
			case "ConsistentRead":
				return s.boolPtr(&ka.ConsistentRead)
			case "ProjectionExpression":
				return s.strPtr(&ka.ProjectionExpression)
			case "ExpressionAttributeNames":
				return s.strMap(&ka.ExpressionAttributeNames)
			}
			return false
		})
		m[table] = ka
		return ok
	})
	if ok {
		*p = m
	}
	return ok
}

// itemList reads a JSON array of items (BatchGetItem's Keys); a null
// element is left to encoding/json.
func (s *scanner) itemList(p *[]av.Item) bool {
	if s.isNull() {
		return true
	}
	out := []av.Item{}
	ok := s.array(func() bool {
		var it av.Item
		if s.isNull() || !s.item(&it) {
			return false
		}
		out = append(out, it)
		return true
	})
	if ok {
		*p = out
	}
	return ok
}
