package expr

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

var updValues = map[string]av.Value{
	":s": S("new"), ":n1": N("1"), ":n5": N("5"), ":big": N("9.9E+125"),
	":l": L(S("z")), ":l2": L(N("1"), N("2")), ":ss": SS("b", "c"), ":ssa": SS("a"), ":ssab": SS("a", "b"),
	":ns": NS("1", "3"), ":bs": BS("\x09"), ":m": M("x", N("1")),
}

func baseItem() av.Item {
	return av.Item{
		"pk": S("k"),
		"n":  N("10"),
		"s":  S("old"),
		"l":  L(S("a"), S("b"), S("c"), S("d")),
		"m":  M("x", N("1"), "nest", M("y", S("deep")), "l", L(N("0"))),
		"ss": SS("a", "b"),
		"ns": NS("1", "2"),
		"ll": L(L(S("a"), S("b")), L(S("c"))),
	}
}

func TestApply(t *testing.T) {
	cases := []struct {
		text string
		want av.Item // only the attributes listed are compared, plus absent ones in gone
		gone []string
		err  string
	}{
		{text: "SET s = :s", want: av.Item{"s": S("new")}},
		{text: "SET x = :s", want: av.Item{"x": S("new"), "s": S("old")}},
		{text: "SET n = n + :n5", want: av.Item{"n": N("15")}},
		{text: "SET n = n - :n5", want: av.Item{"n": N("5")}},
		{text: "SET n = (n - :n5)", want: av.Item{"n": N("5")}},
		{text: "SET n = (n + :n5), x = ((n) - :n1)", want: av.Item{"n": N("15"), "x": N("9")}},
		{text: "SET n = (if_not_exists(nope, :n1) + :n5)", want: av.Item{"n": N("6")}},
		{text: "SET x = (s + :n1)", err: MsgIncorrectOperandType},
		{text: "SET n = :n1 - n", want: av.Item{"n": N("-9")}},
		{text: "SET x = n + n", want: av.Item{"x": N("20"), "n": N("10")}},
		{text: "SET x = :big + :big", err: "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{text: "SET x = nope + :n1", err: MsgAttributeNotExist},
		{text: "SET x = s + :n1", err: MsgIncorrectOperandType},
		{text: "SET x = nope", err: MsgAttributeNotExist},
		{text: "SET x = m.nest.y", want: av.Item{"x": S("deep")}},
		{text: "SET x = if_not_exists(nope, :s)", want: av.Item{"x": S("new")}},
		{text: "SET s = if_not_exists(s, :s)", want: av.Item{"s": S("old")}},
		{text: "SET n = if_not_exists(nope, :n1) + :n5", want: av.Item{"n": N("6")}},
		{text: "SET l = list_append(l, :l)", want: av.Item{"l": L(S("a"), S("b"), S("c"), S("d"), S("z"))}},
		{text: "SET l = list_append(:l, l)", want: av.Item{"l": L(S("z"), S("a"), S("b"), S("c"), S("d"))}},
		{text: "SET x = list_append(if_not_exists(x, :l2), :l)", want: av.Item{"x": L(N("1"), N("2"), S("z"))}},
		{text: "SET x = list_append(nope, :l)", err: MsgAttributeNotExist},
		{text: "SET x = list_append(s, :l)", err: MsgIncorrectOperandType},
		{text: "SET m.x = :s", want: av.Item{"m": M("x", S("new"), "nest", M("y", S("deep")), "l", L(N("0")))}},
		{text: "SET m.nest.z = :n1", want: av.Item{"m": M("x", N("1"), "nest", M("y", S("deep"), "z", N("1")), "l", L(N("0")))}},
		{text: "SET m.nope.z = :n1", err: MsgPathInvalidForUpdate},
		{text: "SET nope.z = :n1", err: MsgPathInvalidForUpdate},
		{text: "SET s.z = :n1", err: MsgPathInvalidForUpdate},
		{text: "SET m[0] = :n1", err: MsgPathInvalidForUpdate},
		{text: "SET l.x = :n1", err: MsgPathInvalidForUpdate},
		{text: "SET l[1] = :s", want: av.Item{"l": L(S("a"), S("new"), S("c"), S("d"))}},
		{text: "SET l[10] = :s", want: av.Item{"l": L(S("a"), S("b"), S("c"), S("d"), S("new"))}},
		{text: "SET m.l[5] = :s", want: av.Item{"m": M("x", N("1"), "nest", M("y", S("deep")), "l", L(N("0"), S("new")))}},
		{text: "SET l[0] = l[3], l[3] = l[0]", want: av.Item{"l": L(S("d"), S("b"), S("c"), S("a"))}},
		{text: "REMOVE s", gone: []string{"s"}},
		{text: "REMOVE nope", want: av.Item{"s": S("old")}},
		{text: "REMOVE m.x, m.nest.y", want: av.Item{"m": M("nest", M(), "l", L(N("0")))}},
		{text: "REMOVE l[1]", want: av.Item{"l": L(S("a"), S("c"), S("d"))}},
		{text: "REMOVE l[1], l[2]", want: av.Item{"l": L(S("a"), S("d"))}},
		{text: "REMOVE l[2], l[1]", want: av.Item{"l": L(S("a"), S("d"))}},
		{text: "REMOVE l[0], l[3], l[9]", want: av.Item{"l": L(S("b"), S("c"))}},
		{text: "REMOVE nope.x", err: MsgPathInvalidForUpdate},
		{text: "REMOVE l[9], m.l[7]", want: av.Item{"l": L(S("a"), S("b"), S("c"), S("d"))}},
		// Error order: wrong container, then types, then (last clause
		// first) missing parents and missing operands, then numbers.
		{text: "SET x = nope + s", err: MsgAttributeNotExist},
		{text: "SET x = s + nope", err: MsgIncorrectOperandType},
		{text: "SET x = nope, m.nope.z = :n1", err: MsgPathInvalidForUpdate},
		{text: "SET x = nope REMOVE m.nope.z", err: MsgPathInvalidForUpdate},
		{text: "REMOVE m.nope.z SET x = nope", err: MsgAttributeNotExist},
		{text: "SET m.nope.z = :n1, x = s + :n1", err: MsgIncorrectOperandType},
		{text: "SET s.z = :n1, x = s + :n1", err: MsgPathInvalidForUpdate},
		{text: "SET x = :big + :big, y = nope", err: MsgAttributeNotExist},
		{text: "ADD s :n1, x.y :n1", err: MsgIncorrectOperandType},
		// List writes name elements by their positions before the update.
		{text: "SET l[9] = :s, l[5] = :n1", want: av.Item{"l": L(S("a"), S("b"), S("c"), S("d"), N("1"), S("new"))}},
		{text: "SET l[1] = :s REMOVE l[0]", want: av.Item{"l": L(S("new"), S("c"), S("d"))}},
		{text: "SET m.l[3] = :s REMOVE m.l[0]", want: av.Item{"m": M("x", N("1"), "nest", M("y", S("deep")), "l", L(S("new")))}},
		{text: "REMOVE ll[0], ll[1][0]", want: av.Item{"ll": L(L())}},
		{text: "SET ll[1][5] = :s, ll[0][0] = :n1 REMOVE ll[0][1]", want: av.Item{"ll": L(L(N("1")), L(S("c"), S("new")))}},
		{text: "SET m.l = list_append(m.l, :l) REMOVE l[3]", want: av.Item{"m": M("x", N("1"), "nest", M("y", S("deep")), "l", L(N("0"), S("z"))), "l": L(S("a"), S("b"), S("c"))}},
		{text: "REMOVE s.x", err: MsgPathInvalidForUpdate},
		{text: "ADD n :n5", want: av.Item{"n": N("15")}},
		{text: "ADD x :n5", want: av.Item{"x": N("5")}},
		{text: "ADD m.x :n5", want: av.Item{"m": M("x", N("6"), "nest", M("y", S("deep")), "l", L(N("0")))}},
		{text: "ADD m.nope.x :n5", err: MsgPathInvalidForUpdate},
		{text: "ADD s :n5", err: MsgIncorrectOperandType},
		{text: "ADD ss :ss", want: av.Item{"ss": SS("a", "b", "c")}},
		{text: "ADD x :ss", want: av.Item{"x": SS("b", "c")}},
		{text: "ADD ns :ns", want: av.Item{"ns": NS("1", "2", "3")}},
		{text: "ADD ss :ns", err: MsgIncorrectOperandType},
		{text: "ADD n :ss", err: MsgIncorrectOperandType},
		{text: "DELETE ss :ssa", want: av.Item{"ss": SS("b")}},
		{text: "DELETE ss :ssab", gone: []string{"ss"}},
		{text: "DELETE ss :ss", want: av.Item{"ss": SS("a")}},
		{text: "DELETE nope :ss", want: av.Item{"ss": SS("a", "b")}},
		{text: "DELETE ns :ns", want: av.Item{"ns": NS("2")}},
		{text: "DELETE ss :ns", err: MsgIncorrectOperandType},
		{text: "DELETE s :ss", err: MsgIncorrectOperandType},
		{text: "SET s = :s REMOVE n ADD x :n1 DELETE ss :ssa", want: av.Item{"s": S("new"), "x": N("1"), "ss": SS("b")}, gone: []string{"n"}},
	}
	for _, c := range cases {
		p := NewParams(nil, updValues, nil)
		u, err := p.Update(c.text)
		if err != nil {
			t.Errorf("%q: parse: %v", c.text, err)
			continue
		}
		in := baseItem()
		before := dumpItem(in)
		got, err := u.Apply(in)
		if after := dumpItem(in); after != before {
			t.Errorf("%q modified its input:\n%s\n%s", c.text, before, after)
		}
		if msg := errMsg(t, err); msg != c.err {
			t.Errorf("%q: error %q, want %q", c.text, msg, c.err)
			continue
		}
		if c.err != "" {
			continue
		}
		for k, v := range c.want {
			if g, ok := got[k]; !ok || !av.Equal(g, v) {
				t.Errorf("%q: %s = %s, want %s", c.text, k, dump(g), dump(v))
			}
		}
		for _, k := range c.gone {
			if _, ok := got[k]; ok {
				t.Errorf("%q: %s still present", c.text, k)
			}
		}
		if got["pk"].S != "k" {
			t.Errorf("%q lost the key", c.text)
		}
	}
}

func TestApplyMissingItem(t *testing.T) {
	p := NewParams(nil, updValues, nil)
	u, err := p.Update("SET s = :s ADD n :n1, ss :ss")
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.Apply(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := av.Item{"s": S("new"), "n": N("1"), "ss": SS("b", "c")}
	if !itemEqual(got, want) {
		t.Errorf("got %s", dumpItem(got))
	}
}

func TestUpdatedOldNew(t *testing.T) {
	p := NewParams(nil, updValues, nil)
	u, err := p.Update("SET m.x = :s, l[9] = :s, s = :s REMOVE n ADD x :n1")
	if err != nil {
		t.Fatal(err)
	}
	old := baseItem()
	a, err := u.ApplyPaths(old)
	if err != nil {
		t.Fatal(err)
	}
	// l[9] landed at l[4]: the new item has nothing at l[9], so UPDATED_NEW
	// leaves l out (DynamoDB reads the written path back).
	wantNew := av.Item{"m": M("x", S("new")), "s": S("new"), "x": N("1")}
	if got := a.UpdatedNew(); !itemEqual(got, wantNew) {
		t.Errorf("UPDATED_NEW = %s", dumpItem(got))
	}
	wantOld := av.Item{"m": M("x", N("1")), "s": S("old"), "n": N("10")}
	if got := a.UpdatedOld(old); !itemEqual(got, wantOld) {
		t.Errorf("UPDATED_OLD = %s", dumpItem(got))
	}
	// A REMOVE-only update has no UPDATED_NEW attributes at all.
	u, err = p.Update("REMOVE s, nope")
	if err != nil {
		t.Fatal(err)
	}
	a, err = u.ApplyPaths(old)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.UpdatedNew(); got != nil {
		t.Errorf("REMOVE-only UPDATED_NEW = %s", dumpItem(got))
	}
	if got := a.UpdatedOld(old); !itemEqual(got, av.Item{"s": S("old")}) {
		t.Errorf("REMOVE UPDATED_OLD = %s", dumpItem(got))
	}
}

func TestCheckKeys(t *testing.T) {
	cases := []struct{ text, want string }{
		{"SET pk = :s", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"REMOVE sk", "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key"},
		{"ADD pk.x :n1", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"SET a = pk", ""},
	}
	for _, c := range cases {
		p := NewParams(nil, updValues, nil)
		u, err := p.Update(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := errMsg(t, u.CheckKeys("pk", "sk")); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}

func TestProject(t *testing.T) {
	item := baseItem()
	cases := []struct {
		text string
		want av.Item
	}{
		{"s", av.Item{"s": S("old")}},
		{"s, n, nope", av.Item{"s": S("old"), "n": N("10")}},
		{"m.x", av.Item{"m": M("x", N("1"))}},
		{"m.nest.y, m.x", av.Item{"m": M("x", N("1"), "nest", M("y", S("deep")))}},
		{"m.nope", av.Item{}},
		{"s.x, l.x, m[0]", av.Item{}},
		{"l[3], l[1]", av.Item{"l": L(S("b"), S("d"))}},
		{"l[7]", av.Item{}},
		{"m.l[0]", av.Item{"m": M("l", L(N("0")))}},
		{"#n", av.Item{"n": N("10")}},
	}
	for _, c := range cases {
		p := NewParams(map[string]string{"#n": "n"}, nil, nil)
		proj, err := p.Projection(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if got := proj.Project(item); !itemEqual(got, c.want) {
			t.Errorf("%q = %s, want %s", c.text, dumpItem(got), dumpItem(c.want))
		}
	}
	var nilProj *Projection
	if got := nilProj.Project(item); len(got) != len(item) {
		t.Errorf("nil projection dropped attributes")
	}
}
