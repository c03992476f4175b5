package policy

import (
	"errors"
	"testing"
)

func mustIdentity(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := ParseIdentity(doc)
	if err != nil {
		t.Fatalf("ParseIdentity(%s): %v", doc, err)
	}
	return d
}

func mustResource(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Parse(doc)
	if err != nil {
		t.Fatalf("Parse(%s): %v", doc, err)
	}
	return d
}

const tbl = "arn:aws:dynamodb:us-east-1:111111111111:table/T"

func TestEvaluateAccounts(t *testing.T) {
	allowID := mustIdentity(t, `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:Get*","Resource":"arn:aws:dynamodb:*:*:table/*"}}`)
	denyID := mustIdentity(t, `{"Statement":{"Effect":"Deny","Action":"dynamodb:*","Resource":"*"}}`)
	allowRP := mustResource(t, `{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:user/bob"},"Action":"dynamodb:GetItem","Resource":"`+tbl+`"}}`)
	denyRP := mustResource(t, `{"Statement":{"Effect":"Deny","Principal":"*","Action":"dynamodb:GetItem","Resource":"`+tbl+`"}}`)
	bob := Request{Account: "222222222222", Principal: "arn:aws:iam::222222222222:user/bob", Action: "dynamodb:GetItem", Resource: tbl}
	carol := Request{Account: "111111111111", Principal: "arn:aws:iam::111111111111:user/carol", Action: "dynamodb:GetItem", Resource: tbl}
	for _, c := range []struct {
		name string
		r    Request
		id   []*Document
		rp   *Document
		want Result
	}{
		{"same account, identity allows", carol, []*Document{allowID}, nil, Result{Decision: Allow}},
		{"same account, nothing allows", carol, nil, nil, Result{ImplicitDeny, IdentityBased}},
		{"same account, resource policy names another", carol, nil, allowRP, Result{ImplicitDeny, IdentityBased}},
		{"cross account, both allow", bob, []*Document{allowID}, allowRP, Result{Decision: Allow}},
		{"cross account, no identity allow", bob, nil, allowRP, Result{ImplicitDeny, IdentityBased}},
		{"cross account, no resource allow", bob, []*Document{allowID}, nil, Result{ImplicitDeny, ResourceBased}},
		{"explicit identity deny", bob, []*Document{allowID, denyID}, allowRP, Result{ExplicitDeny, IdentityBased}},
		{"explicit resource deny", bob, []*Document{allowID}, denyRP, Result{ExplicitDeny, ResourceBased}},
		{"action wildcard misses", Request{Account: "111111111111", Action: "dynamodb:PutItem", Resource: tbl}, []*Document{allowID}, nil, Result{ImplicitDeny, IdentityBased}},
	} {
		if got := Evaluate(c.r, c.id, c.rp, "111111111111"); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestEvaluateRoleSessionMatchesRole(t *testing.T) {
	rp := mustResource(t, `{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:role/reader"},"Action":"dynamodb:GetItem","Resource":"`+tbl+`"}}`)
	id := mustIdentity(t, `{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}}`)
	r := Request{Account: "222222222222", Principal: "arn:aws:sts::222222222222:assumed-role/reader/s1", Action: "dynamodb:GetItem", Resource: tbl}
	if got := Evaluate(r, []*Document{id}, rp, "111111111111"); got.Decision != Allow {
		t.Errorf("role session: %+v", got)
	}
}

func TestConditions(t *testing.T) {
	ctx := map[string][]string{
		"dynamodb:leadingkeys": {"u1", "u2"},
		"aws:sourceip":         {"10.1.2.3"},
		"aws:principalarn":     {"arn:aws:iam::111111111111:user/alice"},
		"dynamodb:select":      {"SPECIFIC_ATTRIBUTES"},
		"aws:username":         {"u"},
	}
	for _, c := range []struct {
		op   string
		key  string
		vals []string
		want bool
	}{
		{"ForAllValues:StringEquals", "dynamodb:LeadingKeys", []string{"u1", "u2", "u3"}, true},
		{"ForAllValues:StringEquals", "dynamodb:LeadingKeys", []string{"u1"}, false},
		{"ForAllValues:StringEquals", "dynamodb:Attributes", []string{"a"}, true}, // absent: vacuously true
		{"ForAnyValue:StringEquals", "dynamodb:LeadingKeys", []string{"u2"}, true},
		{"ForAnyValue:StringEquals", "dynamodb:Attributes", []string{"a"}, false},
		{"ForAllValues:StringLike", "dynamodb:LeadingKeys", []string{"u*"}, true},
		{"StringEquals", "dynamodb:Select", []string{"SPECIFIC_ATTRIBUTES"}, true},
		{"StringNotEquals", "dynamodb:Select", []string{"ALL_ATTRIBUTES"}, true},
		{"StringNotEquals", "dynamodb:ReturnValues", []string{"ALL_OLD"}, true}, // absent key: negation holds
		{"StringEquals", "dynamodb:ReturnValues", []string{"ALL_OLD"}, false},
		{"StringEqualsIfExists", "dynamodb:ReturnValues", []string{"ALL_OLD"}, true},
		{"StringEqualsIgnoreCase", "dynamodb:Select", []string{"specific_attributes"}, true},
		{"ArnLike", "aws:PrincipalArn", []string{"arn:aws:iam::111111111111:user/*"}, true},
		{"ArnNotEquals", "aws:PrincipalArn", []string{"arn:aws:iam::111111111111:user/alice"}, false},
		{"IpAddress", "aws:SourceIp", []string{"10.0.0.0/8"}, true},
		{"IpAddress", "aws:SourceIp", []string{"192.168.0.0/16"}, false},
		{"NotIpAddress", "aws:SourceIp", []string{"192.168.0.0/16"}, true},
		{"IpAddress", "aws:SourceIp", []string{"10.1.2.3"}, true},
		{"Null", "dynamodb:Attributes", []string{"true"}, true},
		{"Null", "dynamodb:LeadingKeys", []string{"true"}, false},
		{"Null", "dynamodb:LeadingKeys", []string{"false"}, true},
		{"NumericLessThan", "dynamodb:Select", []string{"1"}, false}, // unknown here: never holds
		{"ForAllValues:StringEquals", "dynamodb:LeadingKeys", []string{"${aws:username}1", "${aws:username}2"}, true},
		{"ForAllValues:StringEquals", "dynamodb:LeadingKeys", []string{"${aws:missing}"}, false},
		{"StringEquals", "dynamodb:Select", []string{"SPECIFIC_${aws:username}"}, false},
	} {
		got := conditionsHold(map[string]map[string][]string{c.op: {c.key: c.vals}}, ctx)
		if got != c.want {
			t.Errorf("%s %s %v = %v, want %v", c.op, c.key, c.vals, got, c.want)
		}
	}
}

func TestParseIdentityRefusesPrincipal(t *testing.T) {
	_, err := ParseIdentity(`{"Statement":{"Effect":"Allow","Principal":"*","Action":"a:b","Resource":"*"}}`)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v", err)
	}
	if _, err := ParseIdentity(`{"Statement":{"Effect":"Allow","Action":"a:b","Resource":"*"}}`); err != nil {
		t.Fatal(err)
	}
}

// FuzzEvaluate holds parsing and evaluating policy documents to "no
// panic": a refusal is an *Error, a parsed document evaluates.
func FuzzEvaluate(f *testing.F) {
	f.Add(`{"Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["u*"]},"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}}`, "u1")
	f.Add(`{"Statement":[{"Effect":"Deny","NotAction":"dynamodb:Get*","NotResource":"*","Condition":{"Null":{"x":"true"}}}]}`, "")
	f.Add(`{"Statement":{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"*","Resource":"*"}}`, "::1")
	f.Fuzz(func(t *testing.T, doc, value string) {
		r := Request{Account: "111111111111", Principal: "arn:aws:sts::111111111111:assumed-role/r/s", Action: "dynamodb:GetItem", Resource: tbl,
			Context: map[string][]string{"dynamodb:leadingkeys": {value}, "aws:sourceip": {value}}}
		for _, parse := range []func(string) (*Document, error){Parse, ParseIdentity} {
			d, err := parse(doc)
			if err != nil {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("%q: %T %v", doc, err, err)
				}
				continue
			}
			_ = Evaluate(r, []*Document{d}, d, "222222222222")
		}
	})
}
