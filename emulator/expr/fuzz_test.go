package expr

import (
	"errors"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

var fuzzNames = map[string]string{"#a": "a", "#b": "b"}
var fuzzValues = map[string]av.Value{
	":s": S("x"), ":n": N("1"), ":l": L(N("1")), ":ss": SS("a"), ":ns": NS("1"), ":m": M("k", S("v")),
}
var fuzzItem = av.Item{
	"a": M("b", L(N("1"), S("x")), "c", SS("a", "b")),
	"b": L(N("1"), M("x", N("2"))),
	"n": N("3"),
	"s": S("xyz"),
}

var fuzzSeeds = []string{
	"a = :s", "a.b[1] <> :n AND NOT (b[0] BETWEEN :n AND :n)", "attribute_exists(#a) OR size(s) > :n",
	"contains(a.c, :s)", "a IN (:s, :n)", "((a = :s))", "(a) = :s", "begins_with(s, :s)",
	"SET a.b[5] = :n, n = n + :n REMOVE b[0], b[1] ADD a.c :ss DELETE a.c :ss",
	"SET #a = list_append(if_not_exists(#a, :l), :l)", "a, b[1].x, #a.c", "SET", "a = ", "", "#", ":",
	"attribute_type(a, :s)", "a[99999999999999999999]",
	"b = :n AND a = :s AND c = :s AND d BETWEEN :n AND :n", "a = :s AND b = :n AND c > :s AND e = :n",
}

func checkErr(t *testing.T, err error) {
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("error %v is not an *expr.Error with a message", err)
	}
}

func FuzzCondition(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := NewParams(fuzzNames, fuzzValues, nil)
		c, err := p.Condition(text)
		checkErr(t, err)
		if err == nil {
			if _, err := c.Eval(fuzzItem); err != nil {
				t.Fatal(err)
			}
		}
		k, err := NewParams(fuzzNames, fuzzValues, nil).KeyCondition(text)
		checkErr(t, err)
		if err == nil {
			_, err := k.Resolve("a", "b")
			checkErr(t, err)
			q, err := k.ResolveKeys([]string{"a", "b"}, []string{"c", "d", "e"})
			checkErr(t, err)
			if err == nil && (len(q.PartitionValues) != 2 || len(q.SortPrefix) > 2 || q.Sort == nil && len(q.SortPrefix) > 0) {
				t.Fatalf("ResolveKeys(%q) = %+v", text, q)
			}
		}
	})
}

func FuzzUpdate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := NewParams(fuzzNames, fuzzValues, nil)
		u, err := p.Update(text)
		checkErr(t, err)
		if err != nil {
			return
		}
		checkErr(t, u.CheckKeys("n"))
		before := dumpItem(fuzzItem)
		a, err := u.ApplyPaths(fuzzItem)
		checkErr(t, err)
		if after := dumpItem(fuzzItem); after != before {
			t.Fatalf("input modified:\n%s\n%s", before, after)
		}
		if err == nil {
			a.UpdatedNew()
			a.UpdatedOld(fuzzItem)
		}
	})
}

func FuzzProjection(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := NewParams(fuzzNames, fuzzValues, nil)
		proj, err := p.Projection(text)
		checkErr(t, err)
		if err == nil {
			proj.Project(fuzzItem)
		}
	})
}
