package vectors

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
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
// (0 identical … 2 opposite; exactly 1 when either vector is zero),
// EUCLIDEAN the L2 distance (not squared), DOT_PRODUCT the dot product
// (API Reference, SearchVectors; Developer Guide, "Working with vector
// indexes"). Elements are float32 and sums float64; the result is held
// within ±MaxFloat32 and rounded to a float32, the precision of the
// scores DynamoDB returns. q and v have the same length.
func Score(dist string, q, v []float32) float64 {
	switch dist {
	case Euclidean, DotProduct:
		return ScoreWithNorms(dist, q, v, 0, 0)
	}
	return ScoreWithNorms(dist, q, v, Norm(q), Norm(v))
}

// Norm is v's magnitude, as COSINE uses it: ScoreWithNorms takes the
// norms so that a search computes the query's once and the stored
// vectors' ahead of time.
func Norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

// ScoreWithNorms is Score with the norms of q and v given (Norm; only
// COSINE uses them, the other functions ignore them). It returns exactly
// Score's value.
func ScoreWithNorms(dist string, q, v []float32, nq, nv float64) float64 {
	switch dist {
	case Euclidean:
		return finish(math.Sqrt(l2sq(q, v)))
	case DotProduct:
		return finish(dot(q, v))
	}
	return cosine(dot(q, v), nq, nv)
}

// cosine is 1 − cos θ from the dot product and the norms, held within
// [0, 2] (rounding may step outside it).
func cosine(dot, nq, nv float64) float64 {
	if nq == 0 || nv == 0 {
		return 1
	}
	return finish(min(2, max(0, 1-dot/(nq*nv))))
}

// finish holds s within ±MaxFloat32 and rounds it to a float32.
func finish(s float64) float64 {
	if s != s {
		return 0
	}
	return float64(float32(min(math.MaxFloat32, max(-math.MaxFloat32, s))))
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
	if t.k <= 0 {
		return
	}
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

// offerString is Offer for a key held as a string, converted only when
// kept.
func (t *TopK) offerString(score float64, key string) {
	if n := len(t.res); n == t.k && n > 0 {
		last := t.res[n-1]
		if score != last.Score && !Better(t.dist, score, last.Score) || score == last.Score && key >= string(last.Key) {
			return
		}
	}
	t.Offer(score, []byte(key))
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

// toFloat32 parses an N's text (exponent notation included) as a float32,
// rounded to the nearest; false when it is beyond float32's range (more
// than half a unit past ±MaxFloat32, so "3.4028235E38", the bound the
// messages print, is in range). A value finer than float32 becomes its
// nearest float32, zero included.
func toFloat32(s string) (float32, bool) {
	f, err := strconv.ParseFloat(s, 32)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
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

// TermsOf returns the terms of a parsed search condition.
func TermsOf(s *expr.SearchCondition) []Term {
	var out []Term
	for _, t := range s.Terms() {
		out = append(out, Term{Name: t.Name, Value: t.Value})
	}
	return out
}

// SchemaElem is one element of a vector index's SearchSchema: the
// attribute, its type (S, N or B, from AttributeDefinitions) and its kind
// (HASH or INLINE_FILTER).
type SchemaElem struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Kind string `json:"kind"`
}

// The kinds of a SearchSchema element.
const (
	KindHash         = "HASH"
	KindInlineFilter = "INLINE_FILTER"
)

// CheckTerms checks a search condition's terms against the index's search
// schema, term by term in the order written (an attribute outside the
// schema, a value of another type, an empty HASH value), then that the
// HASH element, if any, has a term (Developer Guide, "Working with vector
// indexes" and "Troubleshooting vector search").
func CheckTerms(terms []Term, schema []SchemaElem) error {
	for _, t := range terms {
		i := slices.IndexFunc(schema, func(e SchemaElem) bool { return e.Name == t.Name })
		if i < 0 {
			return api.Validation("SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: %s", t.Name)
		}
		e := schema[i]
		if got := t.Value.Type.String(); got != e.Type {
			return api.Validation("Type of '%s' attribute in SearchConditionExpression (%s) does not match type in search schema (%s)", t.Name, got, e.Type)
		}
		if e.Kind == KindHash && t.Value.S == "" && (t.Value.Type == av.TypeS || t.Value.Type == av.TypeB) {
			return api.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", t.Name)
		}
	}
	for _, e := range schema {
		if e.Kind != KindHash {
			continue
		}
		if !slices.ContainsFunc(terms, func(t Term) bool { return t.Name == e.Name }) {
			return api.Validation("SearchConditionExpression must be provided when SearchSchema has a HASH key")
		}
	}
	return nil
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
