package emulator

import (
	"io"
	"testing"
)

// FuzzImportItems feeds arbitrary object contents through the import's
// readers (DYNAMODB_JSON, ION, CSV) and item checks: a bad object is
// errors, never a panic or a hang.
func FuzzImportItems(f *testing.F) {
	f.Add([]byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`+"\n"+`{"Item":{"pk":{"S":"a"}}}`), uint8(0))
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",sk:1.,ss:$dynamodb_SS::["x"],b:{{aGk=}}}}`), uint8(1))
	f.Add([]byte("pk,sk,note\na,1,x\nb,2\n"), uint8(2))
	t := &tableMeta{KeySchema: []keyElem{{Name: "pk", Type: "S"}, {Name: "sk", Type: "N"}},
		AttrDefs: []attrDef{{Name: "pk", Type: "S"}, {Name: "sk", Type: "N"}}}
	formats := []string{formatDynamoDBJSON, formatION, formatCSV}
	f.Fuzz(func(tt *testing.T, data []byte, format uint8) {
		m := &importMeta{Format: formats[int(format)%len(formats)]}
		next := itemReader(m, t, data)
		for range 10_000 {
			item, err := next()
			if err == io.EOF || err != nil {
				return
			}
			_ = checkImportItem(t, item)
		}
	})
}
