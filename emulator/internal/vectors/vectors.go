package vectors

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
)

// The distance functions (VectorDistanceFunction).
const (
	Cosine     = "COSINE"
	Euclidean  = "EUCLIDEAN"
	DotProduct = "DOT_PRODUCT"
)

// MaxDimensions is the largest Dimensions an index may declare.
const MaxDimensions = 4096

// Score is v's score against the query q under dist: COSINE is 1 − cos θ
// (0 identical … 2 opposite; 1 when either vector is zero), EUCLIDEAN the
// L2 distance (not squared), DOT_PRODUCT the dot product. Elements are
// float32, sums float64, and the result is held within ±MaxFloat32.
func Score(dist string, q, v []float32) float64 {
	var s float64
	switch dist {
	case Euclidean:
		for i := range q {
			d := float64(q[i]) - float64(v[i])
			s += d * d
		}
		s = math.Sqrt(s)
	case DotProduct:
		for i := range q {
			s += float64(q[i]) * float64(v[i])
		}
	default:
		var dot, nq, nv float64
		for i := range q {
			dot += float64(q[i]) * float64(v[i])
			nq += float64(q[i]) * float64(q[i])
			nv += float64(v[i]) * float64(v[i])
		}
		if nq == 0 || nv == 0 {
			return 1
		}
		s = 1 - dot/(math.Sqrt(nq)*math.Sqrt(nv))
	}
	return math.Max(-math.MaxFloat32, math.Min(math.MaxFloat32, s))
}

// Better reports whether score a ranks before b under dist: the smaller
// distance, or the larger dot product.
func Better(dist string, a, b float64) bool {
	if dist == DotProduct {
		return a > b
	}
	return a < b
}

// Result is one entry a search keeps: its key and score.
type Result struct {
	Key   []byte
	Score float64
}

// TopK keeps the k best results offered, ties broken by the smaller key,
// so equal answers always come back in the same order.
type TopK struct {
	dist string
	k    int
	res  []Result
}

// NewTopK returns an empty selection of the k best under dist.
func NewTopK(dist string, k int) *TopK { return &TopK{dist: dist, k: k} }

func (t *TopK) before(a, b Result) bool {
	if a.Score != b.Score {
		return Better(t.dist, a.Score, b.Score)
	}
	return bytes.Compare(a.Key, b.Key) < 0
}

// Offer considers key at score; key is copied when kept.
func (t *TopK) Offer(score float64, key []byte) {
	r := Result{Key: key, Score: score}
	if len(t.res) == t.k && !t.before(r, t.res[len(t.res)-1]) {
		return
	}
	r.Key = bytes.Clone(key)
	i := sort.Search(len(t.res), func(i int) bool { return t.before(r, t.res[i]) })
	if len(t.res) < t.k {
		t.res = append(t.res, Result{})
	}
	copy(t.res[i+1:], t.res[i:])
	t.res[i] = r
}

// Results returns the kept results, best first.
func (t *TopK) Results() []Result { return t.res }

// AppendFloats appends v's stored form: little-endian float32s.
func AppendFloats(dst []byte, v []float32) []byte {
	for _, f := range v {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	return dst
}

// Floats decodes n float32s from b's start (AppendFloats' form) into dst.
func Floats(dst []float32, b []byte, n int) []float32 {
	dst = dst[:0]
	for i := 0; i < n; i++ {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return dst
}

// toFloat32 parses an N's text as a float32; false when it is out of
// float32's range.
func toFloat32(s string) (float32, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(f) > math.MaxFloat32 {
		return 0, false
	}
	return float32(f), true
}

// FromItem checks the vector attribute attr of a written item against an
// index of dims dimensions and returns it as float32s: DynamoDB's
// ValidationException when it is not a list of that many numbers that fit
// in a float32.
func FromItem(v av.Value, attr, index string, dims int) ([]float32, error) {
	if v.Type != av.TypeL {
		return nil, api.Validation("One or more parameter values were invalid. Invalid type for parameter %s, Expected: 32-bit floating point number list IndexName: %s", attr, index)
	}
	out := make([]float32, 0, len(v.L))
	for i, e := range v.L {
		if e.Type != av.TypeN {
			return nil, api.Validation("One or more parameter values were invalid. Invalid type for parameter %s[%d], Expected: 32-bit floating point number, Actual: %s. IndexName: %s", attr, i, e.Type, index)
		}
		f, ok := toFloat32(e.S)
		if !ok {
			return nil, api.Validation("One or more parameter values were invalid. Invalid value for parameter %s[%d], Value: %s is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: %s", attr, i, e.S, index)
		}
		out = append(out, f)
	}
	if len(out) != dims {
		return nil, api.Validation("One or more parameter values were invalid. Invalid size for parameter %s, Expected: %d, Actual: %d IndexName: %s", attr, dims, len(out), index)
	}
	return out, nil
}

// FromSearch checks a SearchVector against an index of dims dimensions:
// every element first, then the length.
func FromSearch(vs []av.Value, dims int) ([]float32, error) {
	out := make([]float32, 0, len(vs))
	for _, e := range vs {
		f, ok := toFloat32(e.S)
		if e.Type != av.TypeN || !ok {
			return nil, api.Validation("Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute")
		}
		out = append(out, f)
	}
	if len(out) != dims {
		return nil, api.Validation("Input search vector dimension %d does not match vector index dimension %d", len(out), dims)
	}
	return out, nil
}

// Term is one equality of a SearchConditionExpression.
type Term struct {
	Name  string
	Value av.Value
}

// Condition parses a SearchConditionExpression through p (its
// placeholders) into its equality terms.
func Condition(p *expr.Params, text string) ([]Term, error) {
	k, err := p.KeyCondition(text)
	if err != nil {
		return nil, err
	}
	if err := k.Check(); err != nil {
		return nil, api.Validation("Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression")
	}
	var out []Term
	for _, t := range k.Terms() {
		if t.Op != "EQ" {
			return nil, api.Validation("Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression")
		}
		out = append(out, Term{Name: t.Name, Value: t.Values[0]})
	}
	return out, nil
}

// WriteBytes is the vector write bytes of putting or deleting an entry
// of dims dimensions under vector attribute attr whose other projected
// attributes are rest: 4 bytes a dimension, the attribute's name, and the
// names and values of the rest.
func WriteBytes(dims int, attr string, rest av.Item) int {
	n := 4*dims + len(attr)
	for k, v := range rest {
		n += len(k) + av.Size(v)
	}
	return n
}

// MinRequestBytes is the least a request with vector bytes is charged.
const MinRequestBytes = 1024

// SchemaElem is one element of an index's SearchSchema: the attribute,
// its declared type (S, N or B) and its kind (HASH or INLINE_FILTER).
type SchemaElem struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Kind string `json:"kind"`
}

// CheckTerms checks a search condition's terms against an index's search
// schema.
func CheckTerms(terms []Term, schema []SchemaElem) error {
	byName := map[string]SchemaElem{}
	hash := ""
	for _, s := range schema {
		byName[s.Name] = s
		if s.Kind == "HASH" {
			hash = s.Name
		}
	}
	hashSet := false
	for _, t := range terms {
		s, ok := byName[t.Name]
		if !ok {
			return api.Validation("SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: %s", t.Name)
		}
		if t.Value.Type.String() != s.Type {
			return api.Validation("Type of '%s' attribute in SearchConditionExpression (%s) does not match type in search schema (%s)", t.Name, t.Value.Type, s.Type)
		}
		if t.Name == hash {
			if t.Value.Type != av.TypeN && t.Value.S == "" {
				return api.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", t.Name)
			}
			hashSet = true
		}
	}
	if hash != "" && !hashSet {
		return api.Validation("SearchConditionExpression must be provided when SearchSchema has a HASH key")
	}
	return nil
}
