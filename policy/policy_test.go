package policy

import (
	"errors"
	"strings"
	"testing"
)

const good = `{"Version":"2012-10-17","Statement":[{"Sid":"A1","Effect":"Allow",
"Principal":{"AWS":["arn:aws:iam::111122223333:root","444455556666"]},
"Action":["dynamodb:GetItem","dynamodb:Query"],
"Resource":["arn:aws:dynamodb:us-east-1:111122223333:table/T","arn:aws:dynamodb:us-east-1:111122223333:table/T/index/*"],
"Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["a","b"]},"Bool":{"aws:SecureTransport":true}}}]}`

func TestParseAccepts(t *testing.T) {
	for _, doc := range []string{
		good,
		`{"Statement":{"Effect":"Deny","Principal":"*","NotAction":"dynamodb:Get*","Resource":"*"}}`,
		`{"Version":"2008-10-17","Id":"x","Statement":[{"Effect":"Allow","NotPrincipal":{"Service":"lambda.amazonaws.com"},"Action":"*","NotResource":"arn:aws:dynamodb:*:*:table/X"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:*","Resource":"*","Condition":{"NumericLessThan":{"dynamodb:ReturnConsumedCapacity":5}}}]}`,
	} {
		d, err := Parse(doc)
		if err != nil {
			t.Errorf("Parse(%s): %v", doc, err)
			continue
		}
		if len(d.Statements) == 0 {
			t.Errorf("Parse(%s): no statements", doc)
		}
	}
	d, _ := Parse(good)
	s := d.Statements[0]
	if s.Sid != "A1" || len(s.Action) != 2 || len(s.Resource) != 2 || s.Principal.Values["AWS"][1] != "444455556666" ||
		s.Condition["Bool"]["aws:SecureTransport"][0] != "true" {
		t.Errorf("parsed %+v", s)
	}
}

func TestParseRefuses(t *testing.T) {
	stmt := func(body string) string { return `{"Version":"2012-10-17","Statement":[` + body + `]}` }
	for _, c := range []struct{ doc, want string }{
		{`{`, "not valid JSON"},
		{`{} {}`, "not valid JSON"},
		{`[]`, "must be a JSON object"},
		{`{"Version":"2012-10-17"}`, "missing required field Statement"},
		{`{"Version":"2020-01-01","Statement":[]}`, "Version must be"},
		{`{"Version":"2012-10-17","Statement":[]}`, "Statement must not be empty"},
		{`{"Version":"2012-10-17","Statement":"x"}`, "Statement must be an object"},
		{`{"Version":"2012-10-17","Extra":1,"Statement":[]}`, "unknown field Extra"},
		{stmt(`1`), "Statement 1 must be an object"},
		{stmt(`{"Principal":"*","Action":"dynamodb:*","Resource":"*"}`), "missing required field Effect"},
		{stmt(`{"Effect":"Maybe","Principal":"*","Action":"dynamodb:*","Resource":"*"}`), "Effect must be Allow or Deny"},
		{stmt(`{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}`), "missing required field Principal"},
		{stmt(`{"Effect":"Allow","Principal":"*","NotPrincipal":"*","Action":"dynamodb:*","Resource":"*"}`), "both Principal and NotPrincipal"},
		{stmt(`{"Effect":"Allow","Principal":"someone","Action":"dynamodb:*","Resource":"*"}`), `Principal must be "*" or an object`},
		{stmt(`{"Effect":"Allow","Principal":{"Bogus":"x"},"Action":"dynamodb:*","Resource":"*"}`), "invalid principal type Bogus"},
		{stmt(`{"Effect":"Allow","Principal":"*","Resource":"*"}`), "missing required field Action"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"GetItem","Resource":"*"}`), `invalid Action "GetItem"`},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":[],"Resource":"*"}`), "Action must not be empty"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":[1],"Resource":"*"}`), "Action must be a string or an array"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"a:b","NotAction":"a:c","Resource":"*"}`), "both Action and NotAction"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"dynamodb:*"}`), "missing required field Resource"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"table/T"}`), `invalid Resource "table/T"`},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"*","Condition":[]}`), "Condition must be an object"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"*","Condition":{"StringEquals":{"k":{}}}}`), "must have string, number or boolean values"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"*","Foo":1}`), "unknown field Foo in statement 1"},
		{stmt(`{"Sid":"a b","Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"*"}`), "Sid must be"},
		{stmt(`{"Sid":"S","Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"*"},{"Sid":"S","Effect":"Deny","Principal":"*","Action":"dynamodb:*","Resource":"*"}`), "must be unique: S"},
	} {
		_, err := Parse(c.doc)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Message, c.want) {
			t.Errorf("Parse(%s) = %v, want an *Error containing %q", c.doc, err, c.want)
		}
	}
}

func TestDenies(t *testing.T) {
	arn := "arn:aws:dynamodb:us-east-1:111122223333:table/T"
	put := Request{Account: "111122223333", Action: "dynamodb:PutResourcePolicy", Resource: arn}
	doc := func(stmt string) *Document {
		d, err := Parse(`{"Version":"2012-10-17","Statement":[` + stmt + `]}`)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		stmt string
		want bool
	}{
		{`{"Effect":"Deny","Principal":"*","Action":"dynamodb:*","Resource":"*"}`, true},
		{`{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"DynamoDB:Put*","Resource":"` + arn + `"}`, true},
		{`{"Effect":"Deny","Principal":{"AWS":"111122223333"},"Action":"dynamodb:PutResourcePolic?","Resource":"arn:aws:dynamodb:*:*:table/*"}`, true},
		{`{"Effect":"Deny","Principal":"*","NotAction":"dynamodb:GetItem","Resource":"*"}`, true},
		{`{"Effect":"Allow","Principal":"*","Action":"dynamodb:*","Resource":"*"}`, false},
		{`{"Effect":"Deny","Principal":{"AWS":"999999999999"},"Action":"dynamodb:*","Resource":"*"}`, false},
		{`{"Effect":"Deny","NotPrincipal":{"AWS":"111122223333"},"Action":"dynamodb:*","Resource":"*"}`, false},
		{`{"Effect":"Deny","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}`, false},
		{`{"Effect":"Deny","Principal":"*","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:us-east-1:111122223333:table/Other"}`, false},
		{`{"Effect":"Deny","Principal":"*","Action":"dynamodb:*","NotResource":"` + arn + `"}`, false},
		{`{"Effect":"Deny","Principal":"*","Action":"dynamodb:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":false}}}`, false},
	} {
		if got := doc(c.stmt).Denies(put); got != c.want {
			t.Errorf("Denies with %s = %v, want %v", c.stmt, got, c.want)
		}
	}
}

func TestWildcard(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a?c", "abc", true},
		{"a?c", "ac", false}, {"a*", "b", false}, {"", "", true}, {"", "a", false}, {"**a", "ba", true},
		{"table/*/index/*", "table/T/index/I", true}, {"table/*/index/*", "table/T", false},
	} {
		if got := Wildcard(c.p, c.s); got != c.want {
			t.Errorf("Wildcard(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
}

// FuzzParse holds Parse to "no panic, and a refusal is always an *Error".
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add(`{"Statement":{"Effect":"Deny","Principal":"*","NotAction":"dynamodb:Get*","Resource":"*"}}`)
	f.Add(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":[]},"Action":"a:b","Resource":"*","Condition":{"A":{"b":[1,true,"c"]}}}]}`)
	f.Add(`[1,2]`)
	f.Add(`{"Statement":[null]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := Parse(doc)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Message == "" {
				t.Fatalf("Parse(%q) returned %T %v", doc, err, err)
			}
			return
		}
		if len(d.Statements) == 0 {
			t.Fatalf("Parse(%q) accepted a document with no statements", doc)
		}
		_ = d.Denies(Request{Account: "1", Action: "dynamodb:PutResourcePolicy", Resource: "arn:aws:dynamodb:r:1:table/T"})
	})
}
