package emulator_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Conformance with DynamoDB's observed behaviour (issue 33, next edition,
// fourth batch), through the SDK.

// pqSortKeys runs a SELECT on "Cs1" and returns the sort keys it answers,
// sorted.
func pqSortKeys(t *testing.T, c *dynamodb.Client, where string) []string {
	t.Helper()
	out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`SELECT * FROM "Cs1" WHERE ` + where), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return nil
	}
	var sks []string
	for _, it := range out.Items {
		sks = append(sks, it["sk"].(*types.AttributeValueMemberS).Value)
	}
	sort.Strings(sks)
	return sks
}

// TestConformance33dPartiQLNegatedSortKeyOr: OR branches whose sort-key
// condition is negated (NOT …, <>) beside an equality branch are not
// overlapping conditions: the statement runs and returns the union, as
// DynamoDB answers (paritysuite tests/tier2/partiql/whereOverlap.test.ts,
// captured on eu-west-2 and us-east-1).
func TestConformance33dPartiQLNegatedSortKeyOr(t *testing.T) {
	c := pqServer(t)
	for _, sk := range []string{"1", "2", "3"} {
		put(t, c, "Cs1", avm{"pk": sv("p"), "sk": sv(sk)})
	}
	for _, tc := range []struct {
		left string
		want string
	}{
		{`pk = 'p' AND NOT sk = '1'`, "2,3"},
		{`pk = 'p' AND sk <> '1'`, "2,3"},
		{`pk = 'p' AND NOT begins_with(sk, 'x')`, "1,2,3"},
		{`pk = 'p' AND NOT sk IN ['1', '3']`, "2"},
		{`pk = 'p' AND NOT sk > '5'`, "1,2,3"},
		{`pk = 'p' AND NOT (sk = '1')`, "2,3"},
	} {
		if got := strings.Join(pqSortKeys(t, c, tc.left+` OR pk = 'p' AND sk = '2'`), ","); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.left, got, tc.want)
		}
	}
	if got := strings.Join(pqSortKeys(t, c, `pk = 'p' OR pk = 'p' AND NOT sk = '1'`), ","); got != "1,2,3" {
		t.Errorf("bare partition branch: got %s", got)
	}
	// Each item once, however many branches name the partition.
	if got := strings.Join(pqSortKeys(t, c, `pk = 'p' AND sk = '1' OR pk = 'p' AND sk = '2' OR pk = 'p' AND NOT sk = '3'`), ","); got != "1,2" {
		t.Errorf("three branches: got %s", got)
	}
	_, err := exec(c, `SELECT * FROM "Cs1" WHERE pk='p' AND sk > '1' OR pk='p' AND sk = '2'`)
	wantAPIError(t, err, "ValidationException", "Overlapping conditions with range keys are not supported in where clause")
}
