package av

// maxJSONDepth bounds recursion on hostile input. DynamoDB's own limit (32
// levels) is a ValidationException the engine reports; this one only keeps
// the decoder's stack finite.
const maxJSONDepth = 10000

// Messages of DynamoDB's SerializationException for members of the wrong
// JSON type (DynamoDB's service is Java; the class names are its own).
const (
	serStartMap   = "Start of structure or map found where not expected."
	serStartList  = "Start of list found where not expected"
	serBoolTo     = "class java.lang.Boolean can not be converted to "
	serNumberTo   = "class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to "
	serExpectList = "Expected list or null"
	serExpectMap  = "Expected map or null"
	serExpectNull = "Expected null"
	toString      = "an String"
	toBlob        = "a Blob"
	toBoolean     = "an Boolean"
)

// MarshalJSON encodes v in DynamoDB's wire form, e.g. {"S":"x"}.
func (v Value) MarshalJSON() ([]byte, error) {
	return AppendJSON(nil, v), nil
}

// UnmarshalJSON decodes one AttributeValue. Shapes DynamoDB rejects with
// ValidationException decode without error into a TypeInvalid value (see
// Value.Invalid); wrong JSON types return *SerializationError.
func (v *Value) UnmarshalJSON(b []byte) error {
	d := decoder{b: b, s: string(b)}
	d.ws()
	val, err := d.attrValue(0)
	if err != nil {
		return err
	}
	d.ws()
	if d.i != len(d.b) {
		return d.syntaxErr()
	}
	*v = val
	return nil
}

// MarshalJSON encodes it as a JSON object of AttributeValues, names sorted.
func (it Item) MarshalJSON() ([]byte, error) {
	if it == nil {
		return []byte("null"), nil
	}
	return AppendItemJSON(nil, it), nil
}

// UnmarshalJSON decodes a JSON object of AttributeValues.
func (it *Item) UnmarshalJSON(b []byte) error {
	d := decoder{b: b, s: string(b)}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		d.ws()
		if d.i != len(d.b) {
			return d.syntaxErr()
		}
		*it = nil
		return nil
	}
	m, err := d.avMap(0, serExpectMap)
	if err != nil {
		return err
	}
	d.ws()
	if d.i != len(d.b) {
		return d.syntaxErr()
	}
	*it = m
	return nil
}

// DecodeItemJSON decodes a JSON object of AttributeValues (an Item, Key or
// ExpressionAttributeValues map) without going through encoding/json.
func DecodeItemJSON(b []byte) (Item, error) {
	var it Item
	err := it.UnmarshalJSON(b)
	return it, err
}
