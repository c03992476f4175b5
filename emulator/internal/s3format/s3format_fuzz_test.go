package s3format

import (
	"bytes"
	"io"
	"testing"
)

// FuzzRecords feeds arbitrary object contents, compressed or not, through
// the readers of both formats as a bulk put reads them (going on after a
// record's error unless it is fatal): errors, never a panic or a hang.
func FuzzRecords(f *testing.F) {
	f.Add([]byte(`{"Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)","ExpressionAttributeValues":{":v":{"N":"1"}}}`+"\nnot json\n"), uint8(0))
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",sk:1.},ConditionExpression:"x = :v",ExpressionAttributeNames:{"#n":"n"},ExpressionAttributeValues:{":v":1.}}`), uint8(1))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		format := []string{DynamoDBJSON, ION}[mode%2]
		comp := []string{None, GZIP, ZSTD}[int(mode/2)%3]
		r, closeFn, err := Decompress(comp, bytes.NewReader(data))
		if err != nil {
			return
		}
		defer closeFn()
		rd, err := NewReader(format, r)
		if err != nil {
			return
		}
		for range 10_000 {
			_, err := rd.Next()
			if err == io.EOF || err != nil && rd.Fatal() {
				return
			}
		}
	})
}

func TestParseJSONLine(t *testing.T) {
	rec, err := ParseJSONLine([]byte(`{"Item":{"pk":{"S":"a"}},"ConditionExpression":"#p <> :v","ExpressionAttributeNames":{"#p":"pk"},"ExpressionAttributeValues":{":v":{"S":"b"}}}`))
	if err != nil || rec.Item["pk"].S != "a" || *rec.ConditionExpression != "#p <> :v" || rec.ExpressionAttributeNames["#p"] != "pk" ||
		rec.ExpressionAttributeValues[":v"].S != "b" {
		t.Fatalf("%+v %v", rec, err)
	}
	if _, err := ParseJSONLine([]byte(`{"Other":{}}`)); err != ErrNotItem {
		t.Errorf("no Item: %v", err)
	}
}
