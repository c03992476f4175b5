package spec

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/hashicorp/hcl/v2"
)

func TestDecodeItem(t *testing.T) {
	cases := []struct {
		in, err string
		check   func(av.Item) bool
	}{
		{in: `{"s": {"S": "x"}, "n": {"N": "1.50"}, "bare": {"N": 7}}`, check: func(i av.Item) bool {
			return i["s"].Type == av.TypeS && i["s"].S == "x" && i["n"].S == "1.50" && i["bare"].S == "7"
		}},
		{in: `{"b": {"B": "aGk="}, "bs": {"BS": ["aGk="]}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", 2]}}`, check: func(i av.Item) bool {
			return i["b"].S == "hi" && i["bs"].Set[0] == "hi" && len(i["ss"].Set) == 2 && i["ns"].Set[1] == "2"
		}},
		{in: `{"m": {"M": {"l": {"L": [{"NULL": true}, {"BOOL": false}]}}}}`, check: func(i av.Item) bool {
			l := i["m"].M["l"]
			return l.Type == av.TypeL && l.L[0].Type == av.TypeNULL && l.L[1].Type == av.TypeBOOL && !l.L[1].Bool
		}},
		{in: `[]`, err: "item is not a JSON object"},
		{in: `null`, err: "item is not a JSON object"},
		{in: `{"a": "x"}`, err: `attribute "a": an attribute value must be an object with exactly one type descriptor`},
		{in: `{"a": {"S": "x", "N": "1"}}`, err: "exactly one type descriptor"},
		{in: `{"a": {"Q": "x"}}`, err: `unknown type descriptor "Q"`},
		{in: `{"a": {"B": "!!"}}`, err: "the value of B is not valid base64"},
		{in: `{"a": {"S": 1}}`, err: "the value of S must be a string"},
		{in: `{"a": {"L": [{"X": 1}]}}`, err: `[0]: unknown type descriptor "X"`},
		{in: `{"a": {"M": {"k": 1}}}`, err: "k: an attribute value must be an object"},
		{in: `{"a": {"SS": [1]}}`, err: "the members of SS must be strings"},
		{in: `{"a": {"NULL": "yes"}}`, err: "the value of NULL must be true"},
	}
	for _, c := range cases {
		item, err := DecodeItem([]byte(c.in))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.err == "" && !c.check(item):
			t.Errorf("%s: decoded %+v", c.in, item)
		}
	}
}

func FuzzDecodeItem(f *testing.F) {
	for _, s := range []string{`{"a": {"S": "x"}}`, `{"m": {"M": {"l": {"L": [{"NULL": true}]}}}}`, `{"b": {"BS": ["aGk="]}}`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		item, err := DecodeItem([]byte(s))
		if err == nil && item == nil {
			t.Fatal("nil item without an error")
		}
	})
}

func TestDiagnostics(t *testing.T) {
	var ds Diagnostics
	ds.Infof(Pos{File: "b.tf", Line: 1, Col: 1}, "skipped")
	ds.Errorf(Pos{File: "a.tf", Line: 3, Col: 7}, "bad %s", "thing")
	ds.Warnf(Pos{File: "a.tf", Line: 3}, "careful")
	ds.Errorf(Pos{}, "no position")
	ds = append(ds, FromHCL(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unsupported argument", Detail: "An argument named \"x\" is not expected here.",
		Subject: &hcl.Range{Filename: "c.tf", Start: hcl.Pos{Line: 9, Column: 2}}}})...)
	ds.Sort()
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	want := []string{
		"no position",
		"a.tf:3: warning: careful",
		"a.tf:3:7: bad thing",
		"b.tf:1:1: info: skipped",
		`c.tf:9:2: Unsupported argument: An argument named "x" is not expected here.`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !ds.HasErrors() || len(ds.Errs()) != 3 || ds.Error() != "no position\na.tf:3:7: bad thing\n"+want[4] {
		t.Errorf("errors: %q", ds.Error())
	}
	if (Diagnostics{{Severity: Warning}}).HasErrors() {
		t.Error("a warning is not an error")
	}
}

func TestSpecHelpers(t *testing.T) {
	s := TableSpec{Account: "111122223333", Region: "cn-north-1"}
	s.Create.TableName = Str("t")
	if s.ARN() != "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/t" {
		t.Errorf("ARN %s", s.ARN())
	}
	s.SetTag("b", "1")
	s.SetTag("a", "2")
	s.SetTag("b", "3")
	if len(s.Create.Tags) != 2 || *s.Create.Tags[0].Key != "a" || *s.Create.Tags[1].Value != "3" {
		t.Errorf("tags %+v", s.Create.Tags)
	}
	o := Options{Getenv: func(n string) (string, bool) {
		return map[string]string{"AWS_DEFAULT_REGION": "eu-west-3"}[n], n == "AWS_DEFAULT_REGION"
	}}
	if o.Region() != "eu-west-3" || o.Account() != DefaultAccount {
		t.Errorf("options: %s %s", o.Region(), o.Account())
	}
}
