package wire

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/extenddb/extenddb/emulator/api"
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
func encodeOutput(out any) ([]byte, error) { return appendOutput(nil, out) }

// appendOutput is encodeOutput writing into dst's array where it can (a
// reused buffer); the result may be a new array.
func appendOutput(dst []byte, out any) ([]byte, error) {
	switch o := out.(type) {
	case *api.GetItemOutput:
		return encodeGetItem(dst, o)
	case *api.WriteItemOutput:
		return encodeWriteItem(dst, o)
	case *api.ReadManyOutput:
		return encodeReadMany(dst, o)
	case *api.BatchGetItemOutput:
		return encodeBatchGet(dst, o)
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

// newObject starts an object in dst's array, grown to sizeHint.
func newObject(dst []byte, sizeHint int) *object {
	o := &object{b: slices.Grow(dst[:0], sizeHint+128)}
	o.b = append(o.b, '{')
	return o
}

// itemSizeHint guesses an item's encoded size to size the buffer once.
func itemSizeHint(it av.Item) int { return 64 * len(it) }

func encodeGetItem(dst []byte, out *api.GetItemOutput) ([]byte, error) {
	if stored := out.StoredItem(); stored != nil {
		// JSON spells out types and quotes, about twice the stored size.
		o := newObject(dst, 2*len(stored))
		o.key("Item")
		var err error
		if o.b, err = av.AppendStoredItemJSON(o.b, stored); err != nil {
			return nil, err
		}
		o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
		return o.done()
	}
	o := newObject(dst, itemSizeHint(out.Item))
	if out.Item != nil {
		// An existing item a projection left empty is "Item": {} (omitzero).
		o.key("Item")
		o.b = appendItem(o.b, out.Item)
	}
	o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
	return o.done()
}

func encodeWriteItem(dst []byte, out *api.WriteItemOutput) ([]byte, error) {
	o := newObject(dst, itemSizeHint(out.Attributes))
	o.item("Attributes", out.Attributes)
	o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
	o.value("ItemCollectionMetrics", out.ItemCollectionMetrics, out.ItemCollectionMetrics == nil)
	return o.done()
}

func itemsSizeHint(items []av.Item) int {
	hint := 0
	for _, it := range items {
		hint += itemSizeHint(it)
	}
	return hint
}

func appendItems(b []byte, items []av.Item) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, it)
	}
	return append(b, ']')
}

// storedSizeHint guesses the JSON size of items in their stored form:
// JSON spells out types and quotes, about twice the stored size.
func storedSizeHint(items [][]byte) int {
	hint := 0
	for _, b := range items {
		hint += 2 * len(b)
	}
	return hint
}

// appendStoredItems writes a JSON array of items from their stored form.
func appendStoredItems(b []byte, items [][]byte) ([]byte, error) {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = av.AppendStoredItemJSON(b, it); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func encodeReadMany(dst []byte, out *api.ReadManyOutput) ([]byte, error) {
	if stored := out.StoredItems(); stored != nil {
		o := newObject(dst, storedSizeHint(stored))
		o.key("Items")
		var err error
		if o.b, err = appendStoredItems(o.b, stored); err != nil {
			return nil, err
		}
		return readManyRest(o, out)
	}
	o := newObject(dst, itemsSizeHint(out.Items))
	if out.Items != nil { // omitzero: an empty page is "Items": []
		o.key("Items")
		o.b = appendItems(o.b, out.Items)
	}
	return readManyRest(o, out)
}

// readManyRest writes the members after Items.
func readManyRest(o *object, out *api.ReadManyOutput) ([]byte, error) {
	o.int("Count", out.Count)
	o.int("ScannedCount", out.ScannedCount)
	o.item("LastEvaluatedKey", out.LastEvaluatedKey)
	o.value("ConsumedCapacity", out.ConsumedCapacity, out.ConsumedCapacity == nil)
	return o.done()
}

// encodeBatchGet writes BatchGetItem's up to 16 MB of items directly; the
// rest (usually empty) goes through encoding/json. Tables come in sorted
// order, as encoding/json writes a map.
// A table's items are either decoded (Responses) or in their stored form
// (StoredResponses, from BatchGetItemStored); the two sets of tables are
// disjoint and are written as one map.
func encodeBatchGet(dst []byte, out *api.BatchGetItemOutput) ([]byte, error) {
	stored := out.StoredResponses()
	tables := make([]string, 0, len(out.Responses)+len(stored))
	hint := 0
	for name, items := range out.Responses {
		tables = append(tables, name)
		hint += len(name) + itemsSizeHint(items)
	}
	for name, items := range stored {
		tables = append(tables, name)
		hint += len(name) + storedSizeHint(items)
	}
	slices.Sort(tables)
	o := newObject(dst, hint)
	o.key("Responses")
	if out.Responses == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '{')
		for i, name := range tables {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = av.AppendJSONString(o.b, name)
			o.b = append(o.b, ':')
			if items, ok := stored[name]; ok {
				var err error
				if o.b, err = appendStoredItems(o.b, items); err != nil {
					return nil, err
				}
				continue
			}
			o.b = appendItems(o.b, out.Responses[name])
		}
		o.b = append(o.b, '}')
	}
	o.value("UnprocessedKeys", out.UnprocessedKeys, false)
	o.value("ConsumedCapacity", out.ConsumedCapacity, len(out.ConsumedCapacity) == 0)
	return o.done()
}
