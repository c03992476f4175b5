package wire

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

func fastTargets() []func() any {
	return []func() any{
		func() any { return new(api.GetItemInput) },
		func() any { return new(api.PutItemInput) },
		func() any { return new(api.UpdateItemInput) },
		func() any { return new(api.DeleteItemInput) },
		func() any { return new(api.QueryInput) },
		func() any { return new(api.BatchGetItemInput) },
	}
}

// checkFastMatchesGeneric: whenever the fast path accepts a body, encoding/json
// accepts it too and produces the same value.
func checkFastMatchesGeneric(t *testing.T, body []byte) (accepted int) {
	t.Helper()
	for _, mk := range fastTargets() {
		fast := mk()
		if !fastDecode(body, fast) {
			continue
		}
		accepted++
		clampIntegers(fast)
		slow := mk()
		if err := json.Unmarshal(body, slow); err != nil {
			t.Fatalf("%T: fast path accepted %q, encoding/json says %v", fast, body, err)
		}
		clampIntegers(slow)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%T from %q:\nfast    %+v\ngeneric %+v", fast, body, fast, slow)
		}
	}
	return accepted
}

func TestFastDecode(t *testing.T) {
	item := typicalItemJSON()
	for _, tc := range []struct {
		body   string
		accept bool
	}{
		{`{"TableName":"Orders","Item":` + item + `,"ConditionExpression":"attribute_not_exists(pk)","ReturnConsumedCapacity":"TOTAL"}`, true},
		{` { "TableName" : "T" , "Key" : {"pk":{"S":"a"}} , "ConsistentRead" : true } `, true},
		{`{"TableName":"T","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"é"}},"ExpressionAttributeNames":{"#n":"name"},"Limit":10,"ScanIndexForward":false,"ExclusiveStartKey":{"pk":{"S":"a"}},"AttributesToGet":["a","b"]}`, true},
		{`{"TableName":null,"Key":null,"ExpressionAttributeNames":null,"AttributesToGet":[]}`, true},
		{`{}`, true},
		{`{"Key":{},"ExpressionAttributeNames":{},"AttributesToGet":[]}`, true},
		{`{"TableName":"T","ExpressionAttributeValues":{}}`, true},
		{`{"RequestItems":{"T":{"Keys":[{"pk":{"S":"a"}},{"pk":{"S":"b"}}],"ConsistentRead":true,"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"},"AttributesToGet":["x"]},"U":{"Keys":[]}},"ReturnConsumedCapacity":"TOTAL"}`, true},
		{`{"RequestItems":{},"ReturnConsumedCapacity":null}`, true},
		{`{"RequestItems":null}`, true},
		{`{"RequestItems":{"T":{"Keys":null}}}`, true},
		{`{"RequestItems":{"T":{}}}`, true},
		// Left to encoding/json.
		{`{"TableName":"T","Expected":{"a":{"Exists":false}}}`, false},
		{`{"tablename":"T"}`, false},
		{`{"TableName":"T","TableName":"U"}`, false},
		{`{"TableName":"a\"b"}`, false},
		{`{"TableName":"\u0041"}`, false},
		{`{"TableName":1}`, false},
		{`{"Limit":1.5}`, false},
		{`{"Limit":01}`, false},
		{`{"TableName":"T"} x`, false},
		{`{"TableName":"T",}`, false},
		{`{"Key":{"pk":{"S":1}}}`, false},
		{`{"Key":{"pk":{"S":"a"}}`, false},
		{"{\"TableName\":\"\xff\"}", false},
		{`{"RequestItems":{"T":null}}`, false},
		{`{"RequestItems":{"T":{"Keys":[null]}}}`, false},
		{`{"RequestItems":{"T":{"keys":[]}}}`, false},
		{`{"RequestItems":{"T":{"Keys":[]},"T":{"Keys":[]}}}`, false},
		{`{"RequestItems":{"T":{"Keys":[{"pk":{"S":"a"}}],"Keys":[]}}}`, false},
		{`{"RequestItems":{"T":{"Keys":{}}}}`, false},
		{`{"RequestItems":[]}`, false},
	} {
		n := checkFastMatchesGeneric(t, []byte(tc.body))
		if (n > 0) != tc.accept {
			t.Errorf("fast path on %s: accepted by %d types, want accept=%v", tc.body, n, tc.accept)
		}
	}
}

func FuzzFastDecodeMatchesGeneric(f *testing.F) {
	f.Add([]byte(`{"TableName":"Orders","Item":` + typicalItemJSON() + `,"ConditionExpression":"attribute_not_exists(pk)"}`))
	f.Add([]byte(`{"TableName":"T","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"1"}},"Limit":-0,"ScanIndexForward":true}`))
	f.Add([]byte(`{"Key":{"a":{"L":[{"M":{"b":{"NULL":true}}}]}},"AttributesToGet":["x"]}`))
	f.Add([]byte(`{"RequestItems":{"T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"},"sk":{"N":"2"}}],"ConsistentRead":false},"U":{"Keys":[],"ProjectionExpression":"a"}},"ReturnConsumedCapacity":"INDEXES"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastMatchesGeneric(t, body)
	})
}

// TestFastDecodeEveryMember builds, for each type with a fast decoder, a
// request setting every member of a kind the fast path handles to a value
// unique to that member, and requires the fast path to accept it and agree
// with encoding/json: a member missing from a fast decoder, or stored in the
// wrong field, fails here.
func TestFastDecodeEveryMember(t *testing.T) {
	for _, mk := range fastTargets() {
		typ := reflect.TypeOf(mk()).Elem()
		body := "{"
		for f := range typ.Fields() {
			var v string
			switch f.Type.String() {
			case "*string":
				v = `"` + f.Name + `"`
			case "*bool":
				v = "true"
			case "*int64":
				v = strconv.Itoa(len(f.Name))
			case "av.Item":
				v = `{"` + f.Name + `":{"S":"v"}}`
			case "map[string]string":
				v = `{"#` + f.Name + `":"` + f.Name + `"}`
			case "map[string]av.Value":
				v = `{":` + f.Name + `":{"N":"1"}}`
			case "[]string":
				v = `["` + f.Name + `"]`
			default:
				continue // legacy parameters are left to encoding/json
			}
			if len(body) > 1 {
				body += ","
			}
			body += `"` + f.Name + `":` + v
		}
		body += "}"
		fast := mk()
		if !fastDecode([]byte(body), fast) {
			t.Errorf("%s: fast path refused %s", typ.Name(), body)
			continue
		}
		if checkFastMatchesGeneric(t, []byte(body)) == 0 {
			t.Errorf("%s: no type accepted %s", typ.Name(), body)
		}
	}
}
