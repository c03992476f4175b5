package wire

import (
	"bytes"
	"strconv"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/av"
)

// encodeOutput renders a response body. The item-carrying outputs of the
// data plane take a direct path (av.AppendItemJSON into one buffer), because
// encoding/json re-scans every byte a json.Marshaler returns; everything
// else goes through encoding/json. TestEncodeFastPathMatchesGeneric keeps
// both paths byte-identical.
//
// Numbers in the API structs are int64 or float64; encoding/json writes a
// float64 without an exponent for every magnitude an epoch-seconds
// timestamp or a capacity figure can have.
func encodeOutput(out any) ([]byte, error) {
	switch o := out.(type) {
	case *emulator.GetItemOutput:
		return encodeGetItem(o)
	case *emulator.WriteItemOutput:
		return encodeWriteItem(o)
	case *emulator.ReadManyOutput:
		return encodeReadMany(o)
	case emptyBody:
		return []byte{}, nil
	}
	return encodeGeneric(out)
}

func encodeGeneric(out any) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// object appends the members of one JSON object.
type object struct {
	b   []byte
	n   int
	err error
}

func (o *object) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...) // member names are plain ASCII
	o.b = append(o.b, '"', ':')
}

func appendItem(b []byte, it av.Item) []byte {
	if it == nil {
		return append(b, "null"...) // as encoding/json renders a nil av.Item
	}
	return av.AppendItemJSON(b, it)
}

func (o *object) item(k string, it av.Item) {
	if len(it) == 0 {
		return // omitempty
	}
	o.key(k)
	o.b = appendItem(o.b, it)
}

// value appends a small non-item member through encoding/json; nil pointers
// are left out (omitempty).
func (o *object) value(k string, v any, isNil bool) {
	if isNil || o.err != nil {
		return
	}
	o.key(k)
	var buf bytes.Buffer
	if o.err = writeJSON(&buf, v); o.err == nil {
		o.b = append(o.b, buf.Bytes()...)
	}
}

func (o *object) int(k string, n int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, n, 10)
}

func (o *object) done() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	return append(o.b, '}'), nil
}

func newObject(sizeHint int) *object {
	o := &object{b: make([]byte, 0, sizeHint+128)}
	o.b = append(o.b, '{')
	return o
}

// itemSizeHint guesses an item's encoded size to size the buffer once.
func itemSizeHint(it av.Item) int { return 64 * len(it) }

func encodeGetItem(out *emulator.GetItemOutput) ([]byte, error) {
	o := newObject(itemSizeHint(out.Item))
	if out.Item != nil {
		// An existing item a projection left empty is "Item": {} (omitzero).
		o.key("Item")
		o.b = appendItem(o.b, out.Item)
	}
	o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
	return o.done()
}

func encodeWriteItem(out *emulator.WriteItemOutput) ([]byte, error) {
	o := newObject(itemSizeHint(out.Attributes))
	o.item("Attributes", out.Attributes)
	o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
	o.value("ItemCollectionMetrics", out.ItemCollectionMetrics, out.ItemCollectionMetrics == nil)
	return o.done()
}

func encodeReadMany(out *emulator.ReadManyOutput) ([]byte, error) {
	hint := 0
	for _, it := range out.Items {
		hint += itemSizeHint(it)
	}
	o := newObject(hint)
	if out.Items != nil { // omitzero: an empty page is "Items": []
		o.key("Items")
		o.b = append(o.b, '[')
		for i, it := range out.Items {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = appendItem(o.b, it)
		}
		o.b = append(o.b, ']')
	}
	o.int("Count", out.Count)
	o.int("ScannedCount", out.ScannedCount)
	o.item("LastEvaluatedKey", out.LastEvaluatedKey)
	o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
	return o.done()
}
