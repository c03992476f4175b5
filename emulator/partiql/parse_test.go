package partiql

import (
	"errors"
	"strings"
	"testing"
)

func TestParseShapes(t *testing.T) {
	for _, tc := range []struct {
		src   string
		check func(*Statement) bool
	}{
		{`SELECT * FROM "t" WHERE pk = 'a'`, func(s *Statement) bool { return s.Kind == Select && s.Star && s.Table == "t" && s.Where != nil }},
		{`select a.b[2], "c" from t."i" where x in [1, 2]`, func(s *Statement) bool {
			return s.Index == "i" && len(s.Projection) == 2 && s.Projection[0].Last() == "b" && s.Projection[0].Elems[2].IsIndex
		}},
		{`INSERT INTO "t" VALUE {'pk': ?, 'l': [1, 'x', <<'a'>>], 'm': {'n': null}}`, func(s *Statement) bool { return s.Kind == Insert && s.Params == 1 }},
		{`UPDATE t SET a = a + 1, b = ? SET c = list_append(c, [1]) REMOVE d WHERE pk = ? RETURNING MODIFIED NEW *`, func(s *Statement) bool {
			return s.Kind == Update && len(s.Sets) == 3 && len(s.Removes) == 1 && s.Params == 2 && s.Returning == "MODIFIED NEW"
		}},
		{`FROM "t" WHERE pk = 'a' SET c = 1`, func(s *Statement) bool { return s.Kind == Update && len(s.Sets) == 1 }},
		{`DELETE FROM "t" WHERE pk = 'a' RETURNING ALL OLD *`, func(s *Statement) bool { return s.Kind == Delete && s.Returning == "ALL OLD" }},
		{`EXISTS(SELECT * FROM "t" WHERE pk = 'a' AND n > 1)`, func(s *Statement) bool { return s.Kind == Exists }},
		{`SELECT * FROM t WHERE pk = 'a' ORDER BY sk DESC`, func(s *Statement) bool { return len(s.OrderBy) == 1 && s.OrderBy[0].Desc }},
		{`SELECT * FROM t WHERE NOT a BETWEEN 1 AND 2 OR b IS NOT MISSING AND c NOT IN (1)`, func(s *Statement) bool {
			b, ok := s.Where.(*Binary)
			return ok && b.Op == "OR"
		}},
		{"SELECT * FROM t -- x\n WHERE /* y */ pk = 'it''s'", func(s *Statement) bool {
			return s.Where.(*Binary).R.(*Lit).Text == "it's"
		}},
	} {
		st, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if !tc.check(st) {
			t.Errorf("%s: unexpected tree %+v", tc.src, st)
		}
	}
}

func TestParseErrors(t *testing.T) {
	m := MalformedPrefix
	for _, tc := range []struct{ src, msg string }{
		{`SLECT * FROM "t"`, m + MsgExpectedDML},
		{`SELECT * FROM "t" WHERE`, m + MsgUnexpectedTerm},
		{`SELECT * FROM "t" WHERE;`, m + MsgUnexpectedTerm},
		{`SELECT * FROM "t" WHERE NOT`, m + MsgUnexpectedTerm},
		{`SELECT * FROM "t" WHERE (`, m + MsgUnexpectedTerm},
		{`SELECT * FROM`, m + MsgUnexpectedTerm},
		{`SELECT * FROM "t" WHERE pk='p1' AND`, m + MsgMissingRHS},
		{`SELECT * FROM "t" WHERE pk='p1' OR`, m + MsgMissingRHS},
		{`SELECT * FROM "t" WHERE pk = 1 foo`, m + MsgTrailingToken},
		{`SELECT * FROM "t" WHERE pk = 1)`, m + MsgTrailingToken},
		{`DELETE FROM "t" WHERE pk = 1 ORDER BY pk`, m + MsgTrailingToken},
		{`DELETE FROM`, m + MsgExpectedPath},
		{`SELECT * FROM "t" WHERE x IS FOO`, m + MsgExpectedType},
		{`SELECT * FROM "t" WHERE IS NULL`, m + MsgUnexpectedOp},
		{`SELECT * FROM "t" WHERE ORDER BY pk`, m + MsgUnexpectedKeyword},
		{`SELECT * FROM "t" WHERE m.inner = 1`, m + MsgInvalidDotPath},
		{`SELECT * FROM "t" t`, MsgAliasing},
		{`SELECT * FROM "t" AS t`, MsgAliasing},
		{`UPDATE "t" AS t SET a = 1 WHERE pk = 'a'`, MsgAliasing},
		{`SELECT COUNT(*) FROM "t"`, "Unexpected path component at 1:8:5"},
		{`SELECT a, attribute_exists(x) FROM "t"`, "Unexpected path component at 1:11:16"},
		{`SELECT COUNT(*) FROM "t" WHERE`, m + MsgUnexpectedTerm},
		{`SELECT COUNT(* FROM "t"`, m + MsgUnexpectedTerm},
		{`SELECT l[-1] FROM "t"`, "List index is not within the allowable range; index: [-1] at 1:11:1"},
		{`SELECT * FROM "t" WHERE pk = 'a' AND l[-12] = 1`, "List index is not within the allowable range; index: [-12] at 1:41:2"},
		{`SELECT * FROM "t"."i"."x"`, MsgFromTooLong},
		{`SELECT * FROM ""`, MsgEmptyComponent},
		{`SELECT *, a FROM "t"`, MsgStarAndNames},
		{`SELECT a, a FROM "t"`, "Duplicate identifiers in select clause: a"},
		{`INSERT INTO "t" VALUE {'a': 1} RETURNING ALL OLD *`, MsgInsertReturning},
		{`SELECT * FROM "t" WHERE a = 1 # c`, m},
		{`SELECT * FROM "t" /* open`, m},
	} {
		_, err := Parse(tc.src)
		var pe *Error
		if !errors.As(err, &pe) || pe.Message != tc.msg {
			t.Errorf("%s: got %v, want %q", tc.src, err, tc.msg)
		}
	}
}

func TestValueNumbers(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{'a': 1e200}`, "under root.a"},
		{`[1, 1e-200]`, "under root[1]"},
		{`<<'x', 'x'>>`, "One or more parameter values were invalid: Input collection [x, x] contains duplicates."},
		{`<<>>`, "Empty bags are not supported"},
		{`<<2, 2>>`, "One or more parameter values were invalid: Input collection [2, 2] contains duplicates."},
		{`<<2, 2.0>>`, "One or more parameter values were invalid: Input collection [2, 2.0] contains duplicates! under root"},
		{`{'a': 1, 'a': 2}`, "Duplicate keys in tuple. Key: a under root"},
	} {
		st, err := Parse(`INSERT INTO t VALUE ` + tc.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Value(st.Value, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want …%s", tc.src, err, tc.want)
		}
	}
	st, _ := Parse(`INSERT INTO t VALUE {'n': -7.30E+1, 'f': .73e1}`)
	v, err := Value(st.Value, nil)
	if err != nil || v.M["n"].S != "-73" || v.M["f"].S != "7.3" {
		t.Fatalf("numbers: %+v %v", v, err)
	}
}

// FuzzParse: any text parses or fails with a DynamoDB message; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "t" WHERE pk = 'a' AND begins_with(sk, ?) ORDER BY sk DESC`,
		`INSERT INTO t VALUE {'a': [1, <<'x'>>, {'b': null}], 'c': ?}`,
		`UPDATE t SET a[1].b = set_add(a, <<1>>) REMOVE c WHERE pk = 1 RETURNING ALL NEW *`,
		`FROM t WHERE x IS NOT MISSING SET y = 1`,
		`EXISTS(SELECT * FROM t WHERE pk = 'a' AND n BETWEEN 1 AND 2)`,
		"DELETE FROM \"t\" WHERE pk IN ['a', 'b'] -- c\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		st, err := Parse(src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Message == "" {
				t.Fatalf("%q: error %v is not a DynamoDB message", src, err)
			}
			return
		}
		if st.Table == "" || st.Kind == 0 {
			t.Fatalf("%q: incomplete statement %+v", src, st)
		}
		if st.Value != nil {
			_, _ = Value(st.Value, nil)
		}
	})
}

// TestDeferredIndexProjection: a function in the SELECT list of an index
// read parses, its refusal kept for the caller to report once the index
// resolves (DynamoDB refuses a GSI with a multi-attribute key ahead of it).
func TestDeferredIndexProjection(t *testing.T) {
	st, err := Parse(`SELECT COUNT(*) FROM "t"."i"`)
	if err != nil {
		t.Fatal(err)
	}
	if st.Deferred == nil || st.Deferred.Message != "Unexpected path component at 1:8:5" {
		t.Fatalf("Deferred: %v", st.Deferred)
	}
	if st.Table != "t" || st.Index != "i" {
		t.Fatalf("FROM: %q %q", st.Table, st.Index)
	}
}
