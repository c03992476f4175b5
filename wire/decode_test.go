package wire

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

func TestDecodeTypeErrors(t *testing.T) {
	const (
		num   = "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an "
		bool_ = "class java.lang.Boolean can not be converted to an "
		str   = "class java.lang.String can not be converted to an "
		list  = "Start of list found where not expected"
		obj   = "Start of structure or map found where not expected."
	)
	for _, tc := range []struct {
		name, body, want string
	}{
		// String members.
		{"number as String", `{"TableName":23}`, num + "String"},
		{"big number as String", `{"TableName":2147483648}`, num + "String"},
		{"float as String", `{"TableName":34.56}`, num + "String"},
		{"bool as String", `{"TableName":true}`, bool_ + "String"},
		{"list as String", `{"TableName":[]}`, list},
		{"map as String", `{"TableName":{}}`, obj},
		// Boolean members.
		{"number as Boolean", `{"TableName":"t","DeletionProtectionEnabled":23}`, num + "Boolean"},
		{"string as Boolean", `{"TableName":"t","DeletionProtectionEnabled":"hello"}`, "'HELLO' can not be converted to an Boolean"},
		{"escaped string as Boolean", `{"DeletionProtectionEnabled":"a\"b\\"}`, `'A"B\' can not be converted to an Boolean`},
		{"list as Boolean", `{"DeletionProtectionEnabled":[]}`, list},
		{"map as Boolean", `{"DeletionProtectionEnabled":{}}`, obj},
		// Long and Integer members.
		{"string as Long", `{"ProvisionedThroughput":{"ReadCapacityUnits":"23"}}`, str + "Long"},
		{"bool as Long", `{"ProvisionedThroughput":{"ReadCapacityUnits":true}}`, bool_ + "Long"},
		{"list as Long", `{"ProvisionedThroughput":{"ReadCapacityUnits":[]}}`, list},
		{"map as Long", `{"ProvisionedThroughput":{"ReadCapacityUnits":{}}}`, obj},
		// Lists, maps and structures.
		{"string as List", `{"KeySchema":"23"}`, "Expected list or null"},
		{"number as List", `{"KeySchema":23}`, "Expected list or null"},
		{"bool as List", `{"KeySchema":true}`, "Expected list or null"},
		{"map as List", `{"KeySchema":{}}`, obj},
		{"string as Structure", `{"ProvisionedThroughput":"23"}`, "Expected null"},
		{"number as Structure", `{"ProvisionedThroughput":23}`, "Expected null"},
		{"list as Structure", `{"ProvisionedThroughput":[]}`, list},
		{"scalar as list member Structure", `{"KeySchema":["x"]}`, "Expected null"},
		{"nested String", `{"KeySchema":[{"AttributeName":1}]}`, num + "String"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in api.CreateTableInput
			e := decodeInput([]byte(tc.body), &in)
			if e == nil {
				t.Fatalf("decode %s: no error", tc.body)
			}
			if e.Code != api.CodeSerialization || e.Message != tc.want {
				t.Errorf("decode %s:\n got %s: %q\nwant SerializationException: %q", tc.body, e.Code, e.Message, tc.want)
			}
		})
	}
}

func TestDecodeIntegerMembers(t *testing.T) {
	for _, tc := range []struct {
		body string
		want string
	}{
		{`{"Limit":"5"}`, "class java.lang.String can not be converted to an Integer"},
		{`{"Limit":false}`, "class java.lang.Boolean can not be converted to an Integer"},
	} {
		var in api.ListTablesInput
		e := decodeInput([]byte(tc.body), &in)
		if e == nil || e.Message != tc.want {
			t.Errorf("decode %s: %v, want %q", tc.body, e, tc.want)
		}
	}
}

// TestDecodeTruncatesNumbers: Coral truncates fractional numbers in integer
// members and clamps them to the member's range.
func TestDecodeTruncatesNumbers(t *testing.T) {
	for _, tc := range []struct {
		body string
		want int64
	}{
		{`{"Limit":5}`, 5},
		{`{"Limit":5.9}`, 5},
		{`{"Limit":-5.1}`, -6},
		{`{"Limit":1e2}`, 100},
		{`{"Limit":2147483648.5}`, math.MaxInt32},
		{`{"Limit":2147483648}`, math.MaxInt32},
		{`{"Limit":-2147483649}`, math.MinInt32},
		{`{"Limit":-1e30}`, math.MinInt32},
		{`{"Limit": 3.5 ,"ExclusiveStartTableName":"x"}`, 3},
	} {
		var in api.ListTablesInput
		if e := decodeInput([]byte(tc.body), &in); e != nil {
			t.Errorf("decode %s: %v", tc.body, e)
			continue
		}
		if in.Limit == nil || *in.Limit != tc.want {
			t.Errorf("decode %s: Limit %v, want %d", tc.body, in.Limit, tc.want)
		}
	}
	var scan api.ScanInput
	if e := decodeInput([]byte(`{"Segment":9999999999,"TotalSegments":4294967296,"Limit":1}`), &scan); e != nil {
		t.Fatal(e)
	}
	if *scan.Segment != math.MaxInt32 || *scan.TotalSegments != math.MaxInt32 || *scan.Limit != 1 {
		t.Errorf("Scan integers not clamped: %d %d %d", *scan.Segment, *scan.TotalSegments, *scan.Limit)
	}
	var cb api.UpdateContinuousBackupsInput
	if e := decodeInput([]byte(`{"PointInTimeRecoverySpecification":{"RecoveryPeriodInDays":1e12}}`), &cb); e != nil {
		t.Fatal(e)
	}
	if *cb.PointInTimeRecoverySpecification.RecoveryPeriodInDays != math.MaxInt32 {
		t.Errorf("RecoveryPeriodInDays not clamped: %d", *cb.PointInTimeRecoverySpecification.RecoveryPeriodInDays)
	}
	var ct api.CreateTableInput
	body := `{"ProvisionedThroughput":{"ReadCapacityUnits":1e30,"WriteCapacityUnits":2.5}}`
	if e := decodeInput([]byte(body), &ct); e != nil {
		t.Fatal(e)
	}
	if *ct.ProvisionedThroughput.ReadCapacityUnits != math.MaxInt64 || *ct.ProvisionedThroughput.WriteCapacityUnits != 2 {
		t.Errorf("decode %s: %+v", body, *ct.ProvisionedThroughput)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, body := range []string{``, `   `, `{`, `{"TableName":}`, `{"TableName":"x"} extra`, `nul`, `{'a':1}`} {
		var in api.DescribeTableInput
		e := decodeInput([]byte(body), &in)
		if e == nil || e.Code != api.CodeSerialization || e.Message != "" {
			t.Errorf("decode %q: %v, want SerializationException without a message", body, e)
		}
	}
}

func TestDecodeIgnoresUnknownAndNull(t *testing.T) {
	var in api.ListTablesInput
	body := `{"Unknown":{"deep":[1,2,{"x":true}]},"Limit":null,"ExclusiveStartTableName":"abc"}`
	if e := decodeInput([]byte(body), &in); e != nil {
		t.Fatal(e)
	}
	if in.Limit != nil || in.ExclusiveStartTableName == nil || *in.ExclusiveStartTableName != "abc" {
		t.Errorf("decode %s: %+v", body, in)
	}
}

func TestDecodeAttributeValueErrors(t *testing.T) {
	var in api.GetItemInput
	e := decodeInput([]byte(`{"TableName":"t","Key":{"pk":{"S":1}}}`), &in)
	if e == nil || e.Code != api.CodeSerialization || e.Message == "" {
		t.Errorf("wrong-typed AttributeValue member: %v, want SerializationException with a message", e)
	}
	e = decodeInput([]byte(`{"TableName":"t","Key":"x"}`), &in)
	if e == nil || e.Code != api.CodeSerialization || e.Message != "Expected map or null" {
		t.Errorf("Key as string: %v", e)
	}
}

func FuzzDecodeInput(f *testing.F) {
	f.Add([]byte(`{"TableName":"t","Item":{"a":{"S":"x"},"n":{"N":"1.5"},"m":{"M":{"l":{"L":[{"BOOL":true}]}}}},"ConditionExpression":"attribute_not_exists(a)"}`))
	f.Add([]byte(`{"Limit":1.5}`))
	f.Add([]byte(`{"Expected":{"a":{"Exists":"yes"}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var put api.PutItemInput
		if e := decodeInput(body, &put); e != nil && e.Code != api.CodeSerialization && e.Code != api.CodeValidation {
			t.Fatalf("decode %q: unexpected code %s", body, e.Code)
		}
		var q api.QueryInput
		if e := decodeInput(body, &q); e == nil && !json.Valid(body) {
			t.Fatalf("decode %q: accepted invalid JSON", body)
		}
	})
}
