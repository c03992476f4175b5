package s3io

import (
	"io"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// fuzzTable is a table keyed pk (S) and sk (N) whose engine checks pass:
// the fuzz exercises the readers and the checks of this package.
type fuzzTable struct{}

func (fuzzTable) ID() [16]byte                    { return [16]byte{} }
func (fuzzTable) Create(kv.Batch, string) error   { return nil }
func (fuzzTable) Cache()                          {}
func (fuzzTable) CheckItem(av.Item) error         { return nil }
func (fuzzTable) Write([]av.Item) error           { return nil }
func (fuzzTable) Finish(kv.Batch) (func(), error) { return nil, nil }
func (fuzzTable) Drop()                           {}
func (fuzzTable) AttrType(name string) string {
	switch name {
	case "pk":
		return "S"
	case "sk":
		return "N"
	}
	return ""
}

// FuzzImportItems feeds arbitrary object contents through the import's
// readers (DYNAMODB_JSON, ION, CSV) and item checks: a bad object is
// errors, never a panic or a hang.
func FuzzImportItems(f *testing.F) {
	f.Add([]byte(`{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`+"\n"+`{"Item":{"pk":{"S":"a"}}}`), uint8(0))
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",sk:1.,ss:$dynamodb_SS::["x"],b:{{aGk=}}}}`), uint8(1))
	f.Add([]byte("pk,sk,note\na,1,x\nb,2\n"), uint8(2))
	var t fuzzTable
	formats := []string{formatDynamoDBJSON, formatION, formatCSV}
	f.Fuzz(func(tt *testing.T, data []byte, format uint8) {
		m := &importMeta{Format: formats[int(format)%len(formats)]}
		next := itemReader(m.Format, m.Options, t, data)
		for range 10_000 {
			item, err := next()
			if err == io.EOF || err != nil {
				return
			}
			_ = checkImportItem(t, item)
		}
	})
}
