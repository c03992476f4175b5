package expr

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

func TestSearchCondition(t *testing.T) {
	names := map[string]string{"#t": "tenant", "#c": "category", "#x": "x"}
	values := map[string]av.Value{":t": S("t1"), ":c": S("c1"), ":n": N("3"), ":l": L(N("1"))}
	const (
		cmp    = msgSearchComparator
		nested = msgSearchNested
		twice  = msgSearchTwice
	)
	tests := []struct {
		text string
		want []SearchTerm
		// parse is the error SearchCondition returns; check the one Check
		// returns.
		parse, check string
	}{
		{text: "tenant = :t", want: []SearchTerm{{"tenant", S("t1")}}},
		{text: ":t = tenant", want: []SearchTerm{{"tenant", S("t1")}}},
		{text: "#t = :t AND #c = :c", want: []SearchTerm{{"tenant", S("t1")}, {"category", S("c1")}}},
		{text: "(#t = :t) AND (category = :c AND n = :n)", want: []SearchTerm{{"tenant", S("t1")}, {"category", S("c1")}, {"n", N("3")}}},
		{text: "((tenant) = (:t))", want: []SearchTerm{{"tenant", S("t1")}}},
		{text: "tenant = :l", want: []SearchTerm{{"tenant", L(N("1"))}}},
		{text: "tenant <> :t", check: cmp},
		{text: "tenant < :t", check: cmp},
		{text: "tenant <= :t", check: cmp},
		{text: "tenant > :t", check: cmp},
		{text: "tenant >= :t", check: cmp},
		{text: "tenant = :t AND category < :c", check: cmp},
		{text: "tenant IN (:t, :c)", check: cmp},
		{text: "tenant BETWEEN :c AND :t", check: cmp},
		{text: "begins_with(tenant, :t)", check: cmp},
		{text: "attribute_exists(tenant)", check: cmp},
		{text: "size(tenant) = :n", check: cmp},
		{text: "tenant = :t OR category = :c", check: cmp},
		{text: "NOT tenant = :t", check: cmp},
		{text: "tenant = category", check: cmp},
		{text: ":t = :c", check: cmp},
		{text: "a.b = :t", check: nested},
		{text: "a[0] = :t", check: nested},
		{text: "#t.#x = :t", check: nested},
		{text: "tenant = :t AND #t = :c", check: twice},
		{text: "tenant = :t AND tenant = :t", check: twice},
		// The first problem in text order wins.
		{text: "a.b = :t AND tenant < :t", check: nested},
		{text: "tenant < :t AND a.b = :t", check: cmp},
		{text: "", parse: "Invalid SearchConditionExpression: The expression can not be empty;"},
		{text: "tenant = ", parse: "Invalid SearchConditionExpression: Syntax error; token: \"<EOF>\", near: \"= \""},
		{text: "tenant = :zz", parse: "Invalid SearchConditionExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{text: "#zz = :t", parse: "Invalid SearchConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
	}
	for _, tt := range tests {
		p := NewParams(names, values, nil)
		s, err := p.SearchCondition(tt.text)
		if got := errMsg(t, err); got != tt.parse {
			t.Errorf("%q: parse error %q, want %q", tt.text, got, tt.parse)
			continue
		}
		if err != nil {
			continue
		}
		if got := errMsg(t, s.Check()); got != tt.check {
			t.Errorf("%q: Check %q, want %q", tt.text, got, tt.check)
			continue
		}
		got := s.Terms()
		if len(got) != len(tt.want) {
			t.Errorf("%q: terms %v, want %v", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if got[i].Name != tt.want[i].Name || !av.Equal(got[i].Value, tt.want[i].Value) {
				t.Errorf("%q: term %d = %s %s, want %s %s", tt.text, i, got[i].Name, dump(got[i].Value), tt.want[i].Name, dump(tt.want[i].Value))
			}
		}
	}
}

// TestSearchConditionAfterUnused: a structural problem is reported after
// the unused placeholders, as for a KeyConditionExpression.
func TestSearchConditionAfterUnused(t *testing.T) {
	p := NewParams(nil, map[string]av.Value{":t": S("t1"), ":u": S("u")}, nil)
	s, err := p.SearchCondition("tenant < :t")
	if err != nil {
		t.Fatal(err)
	}
	want := "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"
	if got := errMsg(t, p.CheckUnused()); got != want {
		t.Fatalf("CheckUnused = %q, want %q", got, want)
	}
	if got := errMsg(t, s.Check()); got != msgSearchComparator {
		t.Fatalf("Check = %q", got)
	}
}

func FuzzSearchCondition(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{"a = :s AND #b = :n", "a.b = :s", "a = :s AND a = :n", "(:s = #a)", "a = :s OR b = :n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := NewParams(fuzzNames, fuzzValues, nil)
		s, err := p.SearchCondition(text)
		checkErr(t, err)
		if err != nil {
			return
		}
		err = s.Check()
		checkErr(t, err)
		if err != nil {
			if len(s.Terms()) != 0 {
				t.Fatalf("%q: terms %v with error %v", text, s.Terms(), err)
			}
			return
		}
		seen := map[string]bool{}
		for _, term := range s.Terms() {
			if term.Name == "" || seen[term.Name] || term.Value.Type == av.TypeInvalid {
				t.Fatalf("%q: bad terms %v", text, s.Terms())
			}
			seen[term.Name] = true
		}
	})
}
