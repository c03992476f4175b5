package vectors

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
)

func s(x string) av.Value { return av.Value{Type: av.TypeS, S: x} }
func n(x string) av.Value { return av.Value{Type: av.TypeN, S: x} }
func b(x string) av.Value { return av.Value{Type: av.TypeB, S: x} }
func l(v ...av.Value) av.Value {
	return av.Value{Type: av.TypeL, L: v}
}

// validation returns the message of a ValidationException, "" for nil,
// and fails the test for any other error.
func validation(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *api.Error
	if !errors.As(err, &e) || e.Code != api.CodeValidation {
		t.Fatalf("error %v (%T) is not a ValidationException", err, err)
	}
	return e.Message
}

// naive computes the scores the slow, obvious way, in float64 from the
// float32 inputs, without the package's kernels.
func naive(dist string, q, v []float32) float64 {
	var d, qq, vv, l2 float64
	for i := range q {
		x, y := float64(q[i]), float64(v[i])
		d += x * y
		qq += x * x
		vv += y * y
		l2 += (x - y) * (x - y)
	}
	switch dist {
	case Euclidean:
		return math.Sqrt(l2)
	case DotProduct:
		return d
	}
	if qq == 0 || vv == 0 {
		return 1
	}
	return 1 - d/(math.Sqrt(qq)*math.Sqrt(vv))
}

func TestScore(t *testing.T) {
	big := float32(math.MaxFloat32)
	tests := []struct {
		dist string
		q, v []float32
		want float64
	}{
		// 0.6 and 0.8 as float32 make the cosine 0.6000000095…; DynamoDB
		// answers the float32 nearest 1 − that.
		{Cosine, []float32{1, 0, 0}, []float32{0.6, 0.8, 0}, 0.3999999761581421},
		{Cosine, []float32{1, 0, 0, 0}, []float32{10, 0, 0, 0}, 0},
		{Cosine, []float32{1, 0}, []float32{-3, 0}, 2},
		{Cosine, []float32{1, 0}, []float32{0, 5}, 1},
		{Cosine, []float32{0, 0, 0}, []float32{1, 2, 3}, 1},
		{Cosine, []float32{1, 2, 3}, []float32{0, 0, 0}, 1},
		{Cosine, []float32{0, 0}, []float32{0, 0}, 1},
		{Euclidean, []float32{1, 0, 0, 0}, []float32{10, 0, 0, 0}, 9},
		{Euclidean, []float32{1, 0, 0}, []float32{0.6, 0.8, 0}, 0.8944271802902222},
		{Euclidean, []float32{1, 0, 0}, []float32{0, 1, 0}, 1.4142135381698608},
		{Euclidean, []float32{3}, []float32{3}, 0},
		{DotProduct, []float32{1, 2, 3}, []float32{-4, 5, -6}, -12},
		{DotProduct, []float32{0.5, 0.25}, []float32{2, 4}, 2},
		// Sums overflow float32 but not float64: held at ±MaxFloat32.
		{DotProduct, []float32{big, big}, []float32{big, big}, math.MaxFloat32},
		{DotProduct, []float32{big, big}, []float32{-big, -big}, -math.MaxFloat32},
		{Euclidean, []float32{big, big}, []float32{-big, -big}, math.MaxFloat32},
		{Cosine, []float32{big, big}, []float32{big, big}, 0},
	}
	for _, tt := range tests {
		got := Score(tt.dist, tt.q, tt.v)
		if got != tt.want {
			t.Errorf("Score(%s, %v, %v) = %v, want %v", tt.dist, tt.q, tt.v, got, tt.want)
		}
		if w := ScoreWithNorms(tt.dist, tt.q, tt.v, Norm(tt.q), Norm(tt.v)); w != got {
			t.Errorf("ScoreWithNorms(%s, %v, %v) = %v, Score %v", tt.dist, tt.q, tt.v, w, got)
		}
	}
}

// TestScoreRandom compares the unrolled kernels with the naive sums, for
// lengths around the unrolling's boundaries.
func TestScoreRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dims := range []int{1, 2, 7, 8, 9, 15, 16, 17, 100, 768, 1536} {
		for range 20 {
			q, v := randVec(r, dims), randVec(r, dims)
			for _, dist := range []string{Cosine, Euclidean, DotProduct} {
				got, want := Score(dist, q, v), naive(dist, q, v)
				if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
					t.Fatalf("dims %d %s: %v, naive %v", dims, dist, got, want)
				}
				if got != float64(float32(got)) {
					t.Fatalf("dims %d %s: %v is not a float32", dims, dist, got)
				}
			}
		}
	}
}

func TestTopK(t *testing.T) {
	for _, dist := range []string{Cosine, DotProduct} {
		k := NewTopK(dist, 3)
		for _, o := range []struct {
			key   string
			score float64
		}{{"e", 1}, {"d", 1}, {"a", 3}, {"b", 2}, {"c", 1}, {"f", 0.5}} {
			k.Offer(o.score, []byte(o.key))
		}
		var got string
		for _, r := range k.Results() {
			got += string(r.Key)
		}
		want := map[string]string{Cosine: "fcd", DotProduct: "abc"}[dist]
		if got != want {
			t.Errorf("%s: %q, want %q", dist, got, want)
		}
	}
}

func TestFromItem(t *testing.T) {
	const env = "One or more parameter values were invalid. "
	tests := []struct {
		v    av.Value
		want []float32
		msg  string
	}{
		{v: l(n("1"), n("-2.5"), n("1e3")), want: []float32{1, -2.5, 1000}},
		{v: l(n("1E-3"), n("3.4028235E38"), n("-3.4028235E38")), want: []float32{0.001, math.MaxFloat32, -math.MaxFloat32}},
		{v: l(n("1e-50"), n("0.1"), n("-0")), want: []float32{0, 0.1, 0}},
		{v: s("x"), msg: env + "Invalid type for parameter emb, Expected: 32-bit floating point number list IndexName: vi"},
		{v: av.Value{Type: av.TypeNS, Set: []string{"1", "2", "3"}}, msg: env + "Invalid type for parameter emb, Expected: 32-bit floating point number list IndexName: vi"},
		{v: l(n("1"), s("2"), n("3")), msg: env + "Invalid type for parameter emb[1], Expected: 32-bit floating point number, Actual: S. IndexName: vi"},
		{v: l(n("1"), n("2"), l(n("3"))), msg: env + "Invalid type for parameter emb[2], Expected: 32-bit floating point number, Actual: L. IndexName: vi"},
		{v: l(n("1e39"), n("2"), n("3")), msg: env + "Invalid value for parameter emb[0], Value: 1e39 is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: vi"},
		{v: l(n("1"), n("-3.5E38"), n("3")), msg: env + "Invalid value for parameter emb[1], Value: -3.5E38 is outside valid range [-3.4028235E38, 3.4028235E38]. IndexName: vi"},
		// Elements are checked before the length.
		{v: l(n("1"), s("2")), msg: env + "Invalid type for parameter emb[1], Expected: 32-bit floating point number, Actual: S. IndexName: vi"},
		{v: l(n("1"), n("2")), msg: env + "Invalid size for parameter emb, Expected: 3, Actual: 2 IndexName: vi"},
		{v: l(n("1"), n("2"), n("3"), n("4")), msg: env + "Invalid size for parameter emb, Expected: 3, Actual: 4 IndexName: vi"},
		{v: l(), msg: env + "Invalid size for parameter emb, Expected: 3, Actual: 0 IndexName: vi"},
	}
	for _, tt := range tests {
		got, err := FromItem(tt.v, "emb", "vi", 3)
		if msg := validation(t, err); msg != tt.msg {
			t.Errorf("%+v: %q, want %q", tt.v, msg, tt.msg)
			continue
		}
		if err == nil && !equalFloats(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestFromSearch(t *testing.T) {
	const invalid = "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute"
	tests := []struct {
		v    []av.Value
		want []float32
		msg  string
	}{
		{v: []av.Value{n("1"), n("2e0"), n("-3E+1")}, want: []float32{1, 2, -30}},
		{v: []av.Value{n("1"), s("2"), n("3")}, msg: invalid},
		{v: []av.Value{n("1"), l(n("2")), n("3")}, msg: invalid},
		{v: []av.Value{n("1"), n("2"), n("1e39")}, msg: invalid},
		{v: []av.Value{b("x")}, msg: invalid},
		// An invalid element is reported before a wrong length.
		{v: []av.Value{s("1")}, msg: invalid},
		{v: []av.Value{n("1"), n("2")}, msg: "Input search vector dimension 2 does not match vector index dimension 3"},
		{v: []av.Value{n("1"), n("2"), n("3"), n("4")}, msg: "Input search vector dimension 4 does not match vector index dimension 3"},
	}
	for _, tt := range tests {
		got, err := FromSearch(tt.v, 3)
		if msg := validation(t, err); msg != tt.msg {
			t.Errorf("%+v: %q, want %q", tt.v, msg, tt.msg)
			continue
		}
		if err == nil && !equalFloats(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestFloats(t *testing.T) {
	v := []float32{1, -2.5, float32(math.MaxFloat32), 0.1, -0}
	if got := Floats(nil, AppendFloats(nil, v), len(v)); !equalFloats(got, v) {
		t.Fatalf("%v, want %v", got, v)
	}
}

// condition parses a search condition as the engine does (placeholders
// aside): its terms, or its first error.
func condition(p *expr.Params, text string) ([]Term, error) {
	c, err := p.SearchCondition(text)
	if err != nil {
		return nil, api.AsValidation(err)
	}
	if err := c.Check(); err != nil {
		return nil, api.AsValidation(err)
	}
	return TermsOf(c), nil
}

func TestCondition(t *testing.T) {
	values := map[string]av.Value{":t": s("t1"), ":c": n("7")}
	p := expr.NewParams(map[string]string{"#c": "category"}, values, nil)
	got, err := condition(p, "tenant = :t AND #c = :c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "tenant" || got[0].Value.S != "t1" || got[1].Name != "category" || got[1].Value.S != "7" {
		t.Fatalf("%+v", got)
	}
	for text, want := range map[string]string{
		"tenant < :t":                 "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
		"tenant = :t OR #c = :c":      "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
		"a.b = :t":                    "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on nested attributes",
		"tenant = :t AND tenant = :t": "Invalid SearchConditionExpression: SearchConditionExpression must only contain one condition per attribute",
		"tenant = ":                   `Invalid SearchConditionExpression: Syntax error; token: "<EOF>", near: "= "`,
	} {
		p := expr.NewParams(map[string]string{"#c": "category"}, values, nil)
		_, err := condition(p, text)
		if got := validation(t, err); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

func TestCheckTerms(t *testing.T) {
	hashed := []SchemaElem{{"tenant", "S", KindHash}, {"category", "N", KindInlineFilter}, {"blob", "B", KindInlineFilter}}
	filters := []SchemaElem{{"category", "N", KindInlineFilter}, {"code", "B", KindInlineFilter}}
	binHash := []SchemaElem{{"k", "B", KindHash}}
	const empty = "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: "
	tests := []struct {
		terms  []Term
		schema []SchemaElem
		msg    string
	}{
		{[]Term{{"tenant", s("t")}}, hashed, ""},
		{[]Term{{"category", n("1")}, {"tenant", s("t")}, {"blob", b("x")}}, hashed, ""},
		{nil, filters, ""},
		{[]Term{{"category", n("1")}}, filters, ""},
		// An empty value is fine on an inline filter.
		{[]Term{{"code", b("")}}, filters, ""},
		{nil, hashed, "SearchConditionExpression must be provided when SearchSchema has a HASH key"},
		{[]Term{{"category", n("1")}}, hashed, "SearchConditionExpression must be provided when SearchSchema has a HASH key"},
		{[]Term{{"tenant", s("t")}, {"color", s("red")}}, hashed, "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: color"},
		{[]Term{{"color", s("red")}}, nil, "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: color"},
		// Terms are checked before the missing HASH.
		{[]Term{{"color", s("red")}}, hashed, "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: color"},
		{[]Term{{"tenant", n("1")}}, hashed, "Type of 'tenant' attribute in SearchConditionExpression (N) does not match type in search schema (S)"},
		{[]Term{{"tenant", s("t")}, {"category", s("1")}}, hashed, "Type of 'category' attribute in SearchConditionExpression (S) does not match type in search schema (N)"},
		{[]Term{{"tenant", s("t")}, {"blob", l()}}, hashed, "Type of 'blob' attribute in SearchConditionExpression (L) does not match type in search schema (B)"},
		{[]Term{{"tenant", s("")}}, hashed, empty + "tenant"},
		{[]Term{{"k", b("")}}, binHash, empty + "k"},
		{[]Term{{"k", s("")}}, binHash, "Type of 'k' attribute in SearchConditionExpression (S) does not match type in search schema (B)"},
	}
	for _, tt := range tests {
		if got := validation(t, CheckTerms(tt.terms, tt.schema)); got != tt.msg {
			t.Errorf("%+v on %+v: %q, want %q", tt.terms, tt.schema, got, tt.msg)
		}
	}
}

func TestWriteBytes(t *testing.T) {
	if got := WriteBytes(1024, "emb", av.Item{"pk": s("abc"), "n": n("12")}); got != 4096+3+2+3+1+av.Size(n("12")) {
		t.Fatalf("%d", got)
	}
}

func randVec(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
