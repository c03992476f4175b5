package policy

import (
	"strings"
	"testing"
)

// BenchmarkParse parses a typical table policy and one near the 20 KB limit
// (PutResourcePolicy and CreateTable parse every document they store).
func BenchmarkParse(b *testing.B) {
	stmt := `{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:role/r"},"Action":["dynamodb:GetItem","dynamodb:Query"],"Resource":["arn:aws:dynamodb:us-east-1:111122223333:table/T","arn:aws:dynamodb:us-east-1:111122223333:table/T/index/*"]}`
	big := `{"Version":"2012-10-17","Statement":[` + strings.TrimSuffix(strings.Repeat(stmt+",", 80), ",") + `]}`
	for _, c := range []struct{ name, doc string }{{"typical", good}, {"20KB", big}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(c.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEvaluate is one authorization decision: an identity policy with
// a LeadingKeys condition and a resource policy, cross account.
func BenchmarkEvaluate(b *testing.B) {
	id, err := ParseIdentity(`{"Statement":[{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:Query"],"Resource":"arn:aws:dynamodb:*:111111111111:table/*","Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["u1"]}}}]}`)
	if err != nil {
		b.Fatal(err)
	}
	rp, err := Parse(`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:user/bob"},"Action":"dynamodb:GetItem","Resource":"arn:aws:dynamodb:us-east-1:111111111111:table/T"}]}`)
	if err != nil {
		b.Fatal(err)
	}
	r := Request{Account: "222222222222", Principal: "arn:aws:iam::222222222222:user/bob", Action: "dynamodb:GetItem",
		Resource: "arn:aws:dynamodb:us-east-1:111111111111:table/T", Context: map[string][]string{"dynamodb:leadingkeys": {"u1"}}}
	b.ReportAllocs()
	for b.Loop() {
		if Evaluate(r, []*Document{id}, rp, "111111111111").Decision != Allow {
			b.Fatal("denied")
		}
	}
}
