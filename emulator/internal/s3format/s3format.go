package s3format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/ion"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Formats and compressions, as the API names them.
const (
	DynamoDBJSON = "DYNAMODB_JSON"
	ION          = "ION"
	GZIP         = "GZIP"
	ZSTD         = "ZSTD"
	None         = "NONE"
)

// ErrNotItem is a record that parses but is not an item record (no Item
// member, an Item that is not a map).
var ErrNotItem = errors.New("s3format: the record is not an item")

// MaxLine bounds one DynamoDB JSON line: an item is at most 400 KB stored,
// and its JSON text (names, type tags, base64) a few times that.
const MaxLine = 4 << 20

// Record is one record of an object: the item and, for a bulk put, the
// condition it is written under (the members of PutItem that carry one).
type Record struct {
	Item                      av.Item
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]av.Value
}

// Decompress undoes kind (GZIP, ZSTD, NONE or "") over r, streaming; close
// releases the decoder. A header that does not decode is the error.
func Decompress(kind string, r io.Reader) (out io.Reader, closeFn func(), err error) {
	switch kind {
	case GZIP:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { _ = zr.Close() }, nil
	case ZSTD:
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	return r, func() {}, nil
}

// DecompressAll undoes kind over data in memory.
func DecompressAll(kind string, data []byte) ([]byte, error) {
	r, closeFn, err := Decompress(kind, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return io.ReadAll(r)
}

// Reader yields an object's records one by one: Next returns io.EOF at the
// end. A record that does not parse is its error and the reader goes on
// with the next one, unless Fatal says the rest of the object cannot be
// read (a broken compressed stream, an Ion value that does not end).
type Reader interface {
	Next() (Record, error)
	// Raw is the text of the record Next last returned (a DynamoDB JSON
	// line; nil for Ion), for reports.
	Raw() []byte
	// Fatal reports whether the last error ends the object.
	Fatal() bool
}

// NewReader reads format's records from r (already decompressed).
// DynamoDB JSON streams line by line; Ion is read whole first (the Ion
// decoder works on a buffer).
func NewReader(format string, r io.Reader) (Reader, error) {
	if format == ION {
		raw, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return &ionReader{d: ion.NewDecoder(raw)}, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	return &jsonReader{sc: sc}, nil
}

type jsonReader struct {
	sc    *bufio.Scanner
	line  []byte
	fatal bool
}

func (j *jsonReader) Raw() []byte { return j.line }
func (j *jsonReader) Fatal() bool { return j.fatal }

func (j *jsonReader) Next() (Record, error) {
	for j.sc.Scan() {
		line := bytes.TrimSpace(j.sc.Bytes())
		if len(line) == 0 || string(line) == "{}" {
			continue
		}
		j.line = line
		return ParseJSONLine(line)
	}
	if err := j.sc.Err(); err != nil {
		j.fatal, j.line = true, nil
		return Record{}, err
	}
	return Record{}, io.EOF
}

// ParseJSONLine parses one DynamoDB JSON line: {"Item":{…}} and, for a
// bulk put, ConditionExpression, ExpressionAttributeNames and
// ExpressionAttributeValues beside Item.
func ParseJSONLine(line []byte) (Record, error) {
	// The export's own form, {"Item":{…}}, skips encoding/json.
	if inner, ok := bytes.CutPrefix(line, []byte(`{"Item":`)); ok && len(inner) > 0 && inner[len(inner)-1] == '}' {
		if it, err := av.DecodeItemJSON(inner[:len(inner)-1]); err == nil {
			return Record{Item: it}, nil
		}
	}
	var w struct {
		Item                      json.RawMessage
		ConditionExpression       *string
		ExpressionAttributeNames  map[string]string
		ExpressionAttributeValues json.RawMessage
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return Record{}, err
	}
	if w.Item == nil {
		return Record{}, ErrNotItem
	}
	it, err := av.DecodeItemJSON(w.Item)
	if err != nil {
		return Record{}, err
	}
	rec := Record{Item: it, ConditionExpression: w.ConditionExpression, ExpressionAttributeNames: w.ExpressionAttributeNames}
	if len(w.ExpressionAttributeValues) > 0 && string(w.ExpressionAttributeValues) != "null" {
		vals, err := av.DecodeItemJSON(w.ExpressionAttributeValues)
		if err != nil {
			return Record{}, fmt.Errorf("ExpressionAttributeValues: %w", err)
		}
		rec.ExpressionAttributeValues = vals
	}
	return rec, nil
}

type ionReader struct {
	d     *ion.Decoder
	fatal bool
}

func (r *ionReader) Raw() []byte { return nil }
func (r *ionReader) Fatal() bool { return r.fatal }

func (r *ionReader) Next() (Record, error) {
	v, err := r.d.Next()
	if err == io.EOF {
		return Record{}, io.EOF
	}
	if err != nil {
		// An Ion value that does not parse leaves no place to go on from.
		r.fatal = true
		return Record{}, err
	}
	it, ok := v.M["Item"]
	if v.Type != av.TypeM || !ok || it.Type != av.TypeM {
		return Record{}, ErrNotItem
	}
	rec := Record{Item: av.Item(it.M)}
	if c, ok := v.M["ConditionExpression"]; ok {
		if c.Type != av.TypeS {
			return Record{}, ErrNotItem
		}
		s := c.S
		rec.ConditionExpression = &s
	}
	if n, ok := v.M["ExpressionAttributeNames"]; ok {
		if n.Type != av.TypeM {
			return Record{}, ErrNotItem
		}
		rec.ExpressionAttributeNames = map[string]string{}
		for k, x := range n.M {
			if x.Type != av.TypeS {
				return Record{}, ErrNotItem
			}
			rec.ExpressionAttributeNames[k] = x.S
		}
	}
	if x, ok := v.M["ExpressionAttributeValues"]; ok {
		if x.Type != av.TypeM {
			return Record{}, ErrNotItem
		}
		rec.ExpressionAttributeValues = x.M
	}
	return rec, nil
}
