package expr

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

var evalItem = av.Item{
	"s":    S("hello"),
	"n":    N("10"),
	"b":    B("\x01\x02\x03"),
	"bool": BOOL(true),
	"nul":  NULL(),
	"ss":   SS("a", "b"),
	"ns":   NS("1", "2.5"),
	"bs":   BS("\x01", "\x02"),
	"l":    L(S("x"), N("2"), M("k", S("v"))),
	"m":    M("k", S("v"), "deep", M("x", N("1")), "lst", L(N("7"))),
	"uni":  S("ü€"),
	"a.b":  S("dotted"),
}

var evalValues = map[string]av.Value{
	":hello": S("hello"), ":he": S("he"), ":lo": S("lo"), ":zz": S("zz"), ":A": S("A"),
	":10": N("10"), ":ten": N("10.00"), ":9": N("9"), ":11": N("11"), ":1": N("1"), ":2": N("2"), ":3": N("3"), ":5": N("5"),
	":b": B("\x01\x02\x03"), ":b1": B("\x01"), ":b2": B("\x02"),
	":true": BOOL(true), ":false": BOOL(false), ":null": NULL(),
	":ss": SS("b", "a"), ":ns": NS("2.50", "1"), ":a": S("a"), ":c": S("c"), ":x": S("x"), ":v": S("v"),
	":l": L(S("x"), N("2"), M("k", S("v"))), ":m": M("k", S("v")), ":kv": M("k", S("v")),
	":S": S("S"), ":N": S("N"), ":B": S("B"), ":SS": S("SS"), ":NS": S("NS"), ":BS": S("BS"),
	":L": S("L"), ":M": S("M"), ":BOOL": S("BOOL"), ":NULL": S("NULL"),
}

var evalNames = map[string]string{"#dot": "a.b", "#k": "k"}

func TestEval(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"s = :hello", true},
		{"s = :he", false},
		{"s <> :he", true},
		{"s <> :hello", false},
		{"nope = :hello", false},
		{"nope <> :hello", true},
		{"n = :ten", true},
		{"n = :hello", false},
		{"n <> :hello", true},
		{"n > :9", true},
		{"n >= :10", true},
		{"n < :11", true},
		{"n <= :9", false},
		{"s > :A", true},
		{"s < :zz", true},
		{"s < :10", false},
		{"s > :10", false},
		{"nope < :10", false},
		{"bool = :true", true},
		{"bool = :false", false},
		{"nul = :null", true},
		{"ss = :ss", true},
		{"ns = :ns", true},
		{"l = :l", true},
		{"m.k = :v", true},
		{"m = :m", false},
		{"m.deep.x = :1", true},
		{"m.lst[0] > :5", true},
		{"l[2].k = :v", true},
		{"l[3] = :v", false},
		{"s[0] = :v", false},
		{"s.k = :v", false},
		{"#dot = :x", false},
		{"m.#k = :v", true},
		{"b = :b", true},
		{"b > :b1", true},
		{"b < :b2", true},
		{"n BETWEEN :9 AND :11", true},
		{"n BETWEEN :10 AND :10", true},
		{"n BETWEEN :1 AND :9", false},
		{"s BETWEEN :A AND :zz", true},
		{"s BETWEEN :1 AND :9", false},
		{"nope BETWEEN :1 AND :9", false},
		{"n IN (:1, :2, :ten)", true},
		{"n IN (:1, :2)", false},
		{"s IN (:hello)", true},
		{"nope IN (:hello)", false},
		{"attribute_exists(s)", true},
		{"attribute_exists(nope)", false},
		{"attribute_exists(m.deep.x)", true},
		{"attribute_exists(m.deep.y)", false},
		{"attribute_not_exists(nope)", true},
		{"attribute_not_exists(l[0])", false},
		{"attribute_not_exists(l[9])", true},
		{"attribute_type(s, :S)", true},
		{"attribute_type(s, :N)", false},
		{"attribute_type(n, :N)", true},
		{"attribute_type(b, :B)", true},
		{"attribute_type(ss, :SS)", true},
		{"attribute_type(ns, :NS)", true},
		{"attribute_type(bs, :BS)", true},
		{"attribute_type(l, :L)", true},
		{"attribute_type(m, :M)", true},
		{"attribute_type(bool, :BOOL)", true},
		{"attribute_type(nul, :NULL)", true},
		{"attribute_type(nope, :S)", false},
		{"begins_with(s, :he)", true},
		{"begins_with(s, :lo)", false},
		{"begins_with(b, :b1)", true},
		{"begins_with(b, :b2)", false},
		{"begins_with(n, :he)", false},
		{"begins_with(nope, :he)", false},
		{"contains(s, :lo)", true},
		{"contains(s, :zz)", false},
		{"contains(ss, :a)", true},
		{"contains(ss, :c)", false},
		{"contains(ns, :1)", true},
		{"contains(ns, :3)", false},
		{"contains(bs, :b1)", true},
		{"contains(b, :b2)", true},
		{"contains(l, :x)", true},
		{"contains(l, :2)", true},
		{"contains(l, :kv)", true},
		{"contains(l, :a)", false},
		{"contains(m, :v)", false},
		{"contains(n, :1)", false},
		{"contains(nope, :a)", false},
		{"size(s) = :5", true},
		{"size(uni) = :2", true},
		{"size(b) = :3", true},
		{"size(ss) = :2", true},
		{"size(ns) = :2", true},
		{"size(l) = :3", true},
		{"size(m) = :3", true},
		{"size(m.deep) = :1", true},
		{"size(n) = :2", false},
		{"size(bool) >= :1", false},
		{"size(nope) >= :1", false},
		{"size(nope) <> :1", true},
		{"size(s) BETWEEN :1 AND :5", true},
		{"size(l) IN (:1, :3)", true},
		{"NOT s = :hello", false},
		{"NOT (s = :he)", true},
		{"s = :he OR n = :10", true},
		{"s = :hello AND n = :9", false},
		{"s = :he OR n = :9 AND s = :hello", false},
		{"s = :hello OR n = :9 AND s = :he", true},
		{"(s = :hello OR n = :9) AND s = :he", false},
		{"NOT s = :he AND n = :10", true},
		{"NOT (s = :he AND n = :10)", true},
	}
	for _, c := range cases {
		p := NewParams(evalNames, evalValues, nil)
		cond, err := p.Condition(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		got, err := cond.Eval(evalItem)
		if err != nil || got != c.want {
			t.Errorf("%q = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
}

func TestEvalMissingItem(t *testing.T) {
	p := NewParams(nil, map[string]av.Value{":v": S("x")}, nil)
	for text, want := range map[string]bool{
		"attribute_not_exists(pk)": true,
		"attribute_exists(pk)":     false,
		"a <> :v":                  true,
		"a = :v":                   false,
	} {
		c, err := p.Condition(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range []av.Item{nil, {}} {
			if got, _ := c.Eval(item); got != want {
				t.Errorf("%q on %v = %v, want %v", text, item, got, want)
			}
		}
	}
	var nilCond *Condition
	if ok, err := nilCond.Eval(nil); !ok || err != nil {
		t.Errorf("nil condition = %v, %v", ok, err)
	}
}
