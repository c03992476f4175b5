package expr

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

func TestFromExpectedErrors(t *testing.T) {
	cases := []struct {
		exp  ExpectedAttributeValue
		op   *string
		want string
	}{
		{ExpectedAttributeValue{Value: ptr(S("x")), AttributeValueList: []av.Value{S("x")}}, nil,
			"One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("EQ"), Exists: ptr(true), Value: ptr(S("x"))}, nil,
			"One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("EQ")}, nil,
			"One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("EQ"), AttributeValueList: []av.Value{S("x"), S("y")}}, nil,
			"One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("NULL"), AttributeValueList: []av.Value{S("x")}}, nil,
			"One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("BETWEEN"), AttributeValueList: []av.Value{S("x")}}, nil,
			"One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("IN"), AttributeValueList: []av.Value{}}, nil,
			"One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("IN"), AttributeValueList: []av.Value{S("x"), N("1")}}, nil,
			"One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("BETWEEN"), AttributeValueList: []av.Value{N("5"), N("1")}}, nil,
			"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("BEGINS_WITH"), AttributeValueList: []av.Value{N("5")}}, nil,
			"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("LT"), AttributeValueList: []av.Value{SS("a")}}, nil,
			"One or more parameter values were invalid: ComparisonOperator LT is not valid for SS AttributeValue type"},
		{ExpectedAttributeValue{AttributeValueList: []av.Value{S("x")}}, nil,
			"One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: a"},
		{ExpectedAttributeValue{}, nil,
			"One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"},
		{ExpectedAttributeValue{Exists: ptr(true)}, nil,
			"One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
		{ExpectedAttributeValue{Exists: ptr(false), Value: ptr(S("x"))}, nil,
			"One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"},
		{ExpectedAttributeValue{ComparisonOperator: ptr("FOO")}, nil,
			"1 validation error detected: Value 'FOO' at 'expected.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{ExpectedAttributeValue{Exists: ptr(false)}, ptr("XOR"),
			"1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"},
		{ExpectedAttributeValue{Exists: ptr(false)}, ptr("OR"), ""},
		{ExpectedAttributeValue{ComparisonOperator: ptr("EQ"), Value: ptr(S("x"))}, nil, ""},
	}
	for i, c := range cases {
		_, err := FromExpected(map[string]ExpectedAttributeValue{"a": c.exp}, c.op)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("case %d:\n got  %q\n want %q", i, got, c.want)
		}
	}
}

func TestLegacyEval(t *testing.T) {
	item := av.Item{"s": S("hello"), "n": N("10"), "ss": SS("a", "b"), "l": L(S("x"))}
	one := func(v av.Value) []av.Value { return []av.Value{v} }
	cases := []struct {
		attr, op string
		vals     []av.Value
		want     bool
	}{
		{"s", "EQ", one(S("hello")), true},
		{"s", "EQ", one(N("1")), false},
		{"s", "NE", one(S("x")), true},
		{"nope", "NE", one(S("x")), true},
		{"n", "LT", one(N("11")), true},
		{"n", "LE", one(N("10")), true},
		{"n", "GT", one(N("10")), false},
		{"n", "GE", one(N("10")), true},
		{"n", "GT", one(S("1")), false},
		{"s", "NOT_NULL", nil, true},
		{"nope", "NOT_NULL", nil, false},
		{"nope", "NULL", nil, true},
		{"s", "NULL", nil, false},
		{"s", "CONTAINS", one(S("ell")), true},
		{"ss", "CONTAINS", one(S("a")), true},
		{"l", "CONTAINS", one(S("x")), true},
		{"s", "NOT_CONTAINS", one(S("zz")), true},
		{"ss", "NOT_CONTAINS", one(S("a")), false},
		{"nope", "NOT_CONTAINS", one(S("a")), false},
		{"s", "BEGINS_WITH", one(S("he")), true},
		{"n", "IN", []av.Value{N("1"), N("10")}, true},
		{"n", "IN", []av.Value{N("1")}, false},
		{"n", "BETWEEN", []av.Value{N("1"), N("10")}, true},
		{"n", "BETWEEN", []av.Value{N("11"), N("12")}, false},
	}
	for _, c := range cases {
		for _, kind := range []string{"expected", "filter"} {
			var cond *Condition
			var err error
			if kind == "expected" {
				cond, err = FromExpected(map[string]ExpectedAttributeValue{c.attr: {ComparisonOperator: ptr(c.op), AttributeValueList: c.vals}}, nil)
			} else {
				cond, err = FromFilter("scanFilter", map[string]LegacyCondition{c.attr: {ComparisonOperator: ptr(c.op), AttributeValueList: c.vals}}, nil)
			}
			if err != nil {
				t.Errorf("%s %s %s: %v", kind, c.attr, c.op, err)
				continue
			}
			if got, _ := cond.Eval(item); got != c.want {
				t.Errorf("%s %s %s %v = %v, want %v", kind, c.attr, c.op, c.vals, got, c.want)
			}
		}
	}
	// Exists/Value forms and ConditionalOperator.
	exp := map[string]ExpectedAttributeValue{
		"s":    {Value: ptr(S("hello"))},
		"nope": {Exists: ptr(false)},
	}
	for op, want := range map[string]bool{"AND": true, "OR": true} {
		c, err := FromExpected(exp, ptr(op))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := c.Eval(item); got != want {
			t.Errorf("%s = %v", op, got)
		}
	}
	exp["n"] = ExpectedAttributeValue{Value: ptr(N("99"))}
	for op, want := range map[string]bool{"AND": false, "OR": true} {
		c, _ := FromExpected(exp, ptr(op))
		if got, _ := c.Eval(item); got != want {
			t.Errorf("%s with a failing entry = %v, want %v", op, got, want)
		}
	}
	c, _ := FromExpected(nil, nil)
	if ok, _ := c.Eval(nil); !ok {
		t.Error("empty Expected should pass")
	}
}

func TestFromFilterErrors(t *testing.T) {
	cases := []struct {
		c    LegacyCondition
		want string
	}{
		{LegacyCondition{ComparisonOperator: ptr("EQ")}, "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"},
		{LegacyCondition{ComparisonOperator: ptr("CONTAINS"), AttributeValueList: []av.Value{L()}}, "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for L AttributeValue type"},
		{LegacyCondition{}, "1 validation error detected: Value '' at 'queryFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
	}
	for i, c := range cases {
		_, err := FromFilter("queryFilter", map[string]LegacyCondition{"a": c.c}, nil)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("case %d:\n got  %q\n want %q", i, got, c.want)
		}
	}
}

func TestKeyConditions(t *testing.T) {
	vals := map[string]av.Value{":p": S("p"), ":s": S("s"), ":n1": N("1"), ":n2": N("2")}
	cases := []struct {
		text, hash, rng string
		want            string
		sortOp          string
	}{
		{"pk = :p", "pk", "", "", ""},
		{"pk = :p AND sk > :s", "pk", "sk", "", "GT"},
		{":s < sk AND pk = :p", "pk", "sk", "", "GT"},
		{":s >= sk AND pk = :p", "pk", "sk", "", "LE"},
		{"pk = :p AND begins_with(sk, :s)", "pk", "sk", "", "BEGINS_WITH"},
		{"pk = :p AND sk BETWEEN :n1 AND :n2", "pk", "sk", "", "BETWEEN"},
		{"sk = :s", "pk", "sk", "Query condition missed key schema element: pk", ""},
		{"pk = :p AND foo = :s", "pk", "sk", "Query condition missed key schema element: sk", ""},
		{"foo = :p AND sk = :s", "pk", "sk", "Query condition missed key schema element: pk", ""},
		{"pk > :p", "pk", "", "Query key condition not supported", ""},
		{"begins_with(pk, :p)", "pk", "", "Query key condition not supported", ""},
		{"pk = :p AND sk = :s", "pk", "", "Query key condition not supported", ""},
	}
	for _, c := range cases {
		p := NewParams(nil, vals, nil)
		k, err := p.KeyCondition(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		q, err := k.Resolve(c.hash, c.rng)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
			continue
		}
		if err != nil {
			continue
		}
		if q.PartitionName != c.hash || !av.Equal(q.PartitionValue, S("p")) {
			t.Errorf("%q: partition %s %v", c.text, q.PartitionName, q.PartitionValue)
		}
		if (q.Sort == nil) != (c.sortOp == "") || q.Sort != nil && q.Sort.Op != c.sortOp {
			t.Errorf("%q: sort %+v, want %s", c.text, q.Sort, c.sortOp)
		}
	}
	// Legacy KeyConditions give the same structure.
	k, err := FromKeyConditions(map[string]LegacyCondition{
		"pk": {ComparisonOperator: ptr("EQ"), AttributeValueList: []av.Value{S("p")}},
		"sk": {ComparisonOperator: ptr("BETWEEN"), AttributeValueList: []av.Value{N("1"), N("3")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	q, err := k.Resolve("pk", "sk")
	if err != nil || q.Sort == nil || !q.Sort.Match(N("2")) || q.Sort.Match(N("4")) {
		t.Errorf("legacy key conditions: %+v %v", q, err)
	}
	if _, err := FromKeyConditions(map[string]LegacyCondition{"pk": {ComparisonOperator: ptr("NE"), AttributeValueList: []av.Value{S("p")}}}); errMsg(t, err) != "Attempted conditional constraint is not an indexable operation" {
		t.Errorf("NE key condition: %v", err)
	}
}

// TestResolveKeys: a multi-attribute key takes every HASH attribute by
// equality and its RANGE attributes as a left-to-right prefix whose last
// alone may be a range condition; one HASH and one RANGE is Resolve.
func TestResolveKeys(t *testing.T) {
	vals := map[string]av.Value{":a": S("a"), ":b": N("2"), ":x": S("x"), ":y": N("3"), ":z": S("z")}
	hash, rng := []string{"h1", "h2"}, []string{"r1", "r2", "r3"}
	hashMsg := "Query key condition not supported: every HASH key attribute must have an equality condition; HASH key attribute: "
	skipMsg := func(n string) string {
		return "Query condition missed key schema element: " + n + ". RANGE key attributes must have conditions from left to right, an equality condition on each but the last"
	}
	rngMsg := "Query key condition not supported: RANGE key attributes must have conditions from left to right, an equality condition on each but the last; RANGE key attribute: "
	cases := []struct {
		text   string
		want   string
		prefix int    // len(SortPrefix)
		sortOp string // "" when no RANGE condition
	}{
		{"h1 = :a AND h2 = :b", "", 0, ""},
		{"h2 = :b AND h1 = :a", "", 0, ""},
		{"h1 = :a AND h2 = :b AND r1 > :x", "", 0, "GT"},
		{"h1 = :a AND h2 = :b AND r1 = :x AND r2 = :y", "", 1, "EQ"},
		{"r2 BETWEEN :y AND :y AND h1 = :a AND r1 = :x AND h2 = :b", "", 1, "BETWEEN"},
		{"h1 = :a AND h2 = :b AND r1 = :x AND r2 = :y AND begins_with(r3, :z)", "", 2, "BEGINS_WITH"},
		{"h1 = :a", hashMsg + "h2", 0, ""},
		{"h2 = :b AND r1 = :x", hashMsg + "h1", 0, ""},
		{"h1 = :a AND h2 < :b", hashMsg + "h2", 0, ""},
		{"begins_with(h1, :a) AND h2 = :b", hashMsg + "h1", 0, ""},
		{"h1 = :a AND h2 = :b AND r2 = :y", skipMsg("r1"), 0, ""},
		{"h1 = :a AND h2 = :b AND r1 = :x AND r3 = :z", skipMsg("r2"), 0, ""},
		{"h1 = :a AND h2 = :b AND r1 > :x AND r2 = :y", rngMsg + "r1", 0, ""},
		{"h1 = :a AND h2 = :b AND r1 = :x AND r2 > :y AND r3 < :z", rngMsg + "r2", 0, ""},
		{"h1 = :a AND h2 = :b AND foo = :x", "Query condition missed key schema element: r1", 0, ""},
		{"h1 = :a AND h2 = :b AND r1 = :x AND r2 = :y AND r3 = :z AND foo = :a", "Query key condition not supported", 0, ""},
	}
	for _, c := range cases {
		k, err := NewParams(nil, vals, nil).KeyCondition(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		q, err := k.ResolveKeys(hash, rng)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
			continue
		}
		if err != nil {
			continue
		}
		if len(q.PartitionValues) != 2 || !av.Equal(q.PartitionValues[0], S("a")) || !av.Equal(q.PartitionValues[1], N("2")) {
			t.Errorf("%q: partition %v", c.text, q.PartitionValues)
		}
		if len(q.SortPrefix) != c.prefix || (q.Sort == nil) != (c.sortOp == "") || q.Sort != nil && q.Sort.Op != c.sortOp {
			t.Errorf("%q: prefix %v sort %+v, want %d values and %q", c.text, q.SortPrefix, q.Sort, c.prefix, c.sortOp)
		}
	}
	// A single-attribute key keeps Resolve's rules and messages.
	k, _ := NewParams(nil, vals, nil).KeyCondition("h1 = :a AND foo = :x")
	if _, err := k.ResolveKeys([]string{"h1"}, []string{"r1"}); errMsg(t, err) != "Query condition missed key schema element: r1" {
		t.Errorf("single key: %v", err)
	}
}

func TestKeyTermMatch(t *testing.T) {
	cases := []struct {
		op   string
		vals []av.Value
		v    av.Value
		want bool
	}{
		{"EQ", []av.Value{N("1")}, N("1.0"), true},
		{"LT", []av.Value{N("1")}, N("0"), true},
		{"LE", []av.Value{S("b")}, S("b"), true},
		{"GT", []av.Value{S("b")}, S("a"), false},
		{"GE", []av.Value{B("\x02")}, B("\x02"), true},
		{"BETWEEN", []av.Value{N("1"), N("3")}, N("3"), true},
		{"BEGINS_WITH", []av.Value{S("ab")}, S("abc"), true},
		{"BEGINS_WITH", []av.Value{S("ab")}, S("a"), false},
		{"BEGINS_WITH", []av.Value{B("ab")}, S("abc"), false},
		{"EQ", []av.Value{N("1")}, S("1"), false},
	}
	for _, c := range cases {
		k := KeyTerm{Op: c.op, Values: c.vals}
		if got := k.Match(c.v); got != c.want {
			t.Errorf("%s %v on %v = %v", c.op, c.vals, c.v, got)
		}
	}
}

func TestFromAttributeUpdates(t *testing.T) {
	cases := []struct {
		u    AttributeValueUpdate
		want string
	}{
		{AttributeValueUpdate{}, "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{AttributeValueUpdate{Action: ptr("ADD")}, "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{AttributeValueUpdate{Action: ptr("DELETE"), Value: ptr(S("x"))}, "One or more parameter values were invalid: Action DELETE is not supported for the type S"},
		{AttributeValueUpdate{Action: ptr("ADD"), Value: ptr(S("x"))}, "One or more parameter values were invalid: Action ADD is not supported for the type S"},
		{AttributeValueUpdate{Action: ptr("MERGE"), Value: ptr(S("x"))}, "1 validation error detected: Value 'MERGE' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"},
		{AttributeValueUpdate{Action: ptr("ADD"), Value: ptr(L(S("x")))}, ""},
	}
	for i, c := range cases {
		_, err := FromAttributeUpdates(map[string]AttributeValueUpdate{"a": c.u})
		if got := errMsg(t, err); got != c.want {
			t.Errorf("case %d:\n got  %q\n want %q", i, got, c.want)
		}
	}
	u, err := FromAttributeUpdates(map[string]AttributeValueUpdate{
		"s":  {Value: ptr(S("new"))},
		"n":  {Action: ptr("ADD"), Value: ptr(N("2"))},
		"l":  {Action: ptr("ADD"), Value: ptr(L(S("z")))},
		"ss": {Action: ptr("DELETE"), Value: ptr(SS("a"))},
		"x":  {Action: ptr("DELETE")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.Apply(av.Item{"pk": S("k"), "n": N("1"), "l": L(S("a")), "ss": SS("a", "b"), "x": S("gone")})
	if err != nil {
		t.Fatal(err)
	}
	want := av.Item{"pk": S("k"), "s": S("new"), "n": N("3"), "l": L(S("a"), S("z")), "ss": SS("b")}
	if !itemEqual(got, want) {
		t.Errorf("got %s", dumpItem(got))
	}
	if msg := errMsg(t, u.CheckKeys("x")); msg != "One or more parameter values were invalid: Cannot update attribute x. This attribute is part of the key" {
		t.Errorf("legacy key error %q", msg)
	}
}

func TestFromAttributesToGet(t *testing.T) {
	p, err := FromAttributesToGet([]string{"a", "size", "b"})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Project(av.Item{"a": S("1"), "size": S("2"), "c": S("3")})
	if !itemEqual(got, av.Item{"a": S("1"), "size": S("2")}) {
		t.Errorf("got %s", dumpItem(got))
	}
	if names := p.TopLevel(); len(names) != 3 || names[1] != "size" {
		t.Errorf("TopLevel = %v", names)
	}
	if _, err := FromAttributesToGet([]string{"a", "a"}); errMsg(t, err) != "One or more parameter values were invalid: Duplicate value in attribute name: a" {
		t.Errorf("duplicate: %v", err)
	}
}

func TestKeyAttributeChecks(t *testing.T) {
	vals := map[string]av.Value{":v": S("x"), ":l": L()}
	p := NewParams(nil, vals, nil)
	c, err := p.Filter("pk.x = :v OR a = :v")
	if err != nil {
		t.Fatal(err)
	}
	if got := errMsg(t, c.CheckKeyPaths("pk", "sk")); got != "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: pk" {
		t.Errorf("condition: %q", got)
	}
	if got := errMsg(t, c.CheckNoKeyAttributes("pk", "sk")); got != "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk" {
		t.Errorf("filter: %q", got)
	}
	c, _ = p.Filter("a = :v AND attribute_exists(b.c)")
	if c.CheckKeyPaths("pk") != nil || c.CheckNoKeyAttributes("pk") != nil {
		t.Error("non-key filter refused")
	}
	c, _ = p.Condition("pk = :v AND size(c.d) > :v")
	if err := c.CheckKeyPaths("pk"); err != nil {
		t.Errorf("a key attribute itself is not a nested path: %v", err)
	}
	if names := c.TopLevel(); len(names) != 2 || names[0] != "pk" || names[1] != "c" {
		t.Errorf("TopLevel = %v", names)
	}
	proj, _ := p.Projection("a, sk[0]")
	if got := errMsg(t, proj.CheckKeyPaths("pk", "sk")); got != "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: sk" {
		t.Errorf("projection: %q", got)
	}
	u, _ := p.Update("SET a = list_append(if_not_exists(pk.l, :l), :l)")
	if got := errMsg(t, u.CheckKeyPaths("pk")); got != "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: pk" {
		t.Errorf("update: %q", got)
	}
	if u.CheckKeyPaths("sk") != nil {
		t.Error("update refused without key paths")
	}
}
