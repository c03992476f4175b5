package emulator_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestGlobalTableReplicaStartsWithoutResourcePolicies: a resource policy
// is per replica (Developer Guide, "Resource-based policy
// considerations"), so a new replica has none, on
// its table or its stream, whatever the table it was made from has; one
// put on the replica stays the replica's.
func TestGlobalTableReplicaStartsWithoutResourcePolicies(t *testing.T) {
	f := newGlobalFixture(t)
	ctx := t.Context()
	on, err := f.home.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("gtab"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
	homeArn, homeStream := aws.ToString(on.TableDescription.TableArn), aws.ToString(on.TableDescription.LatestStreamArn)
	doc := func(arn string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`
	}
	for _, arn := range []string{homeArn, homeStream} {
		if _, err := f.home.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc(arn))}); err != nil {
			t.Fatal(err)
		}
	}
	f.addReplica(t)
	repl := f.describe(t, f.repl)
	replArn, replStream := aws.ToString(repl.TableArn), aws.ToString(repl.LatestStreamArn)
	for _, arn := range []string{replArn, replStream} {
		_, err := f.repl.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
		apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+arn)
	}

	mine := strings.Replace(doc(replArn), "GetItem", "Query", 1)
	if _, err := f.repl.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(replArn), Policy: aws.String(mine)}); err != nil {
		t.Fatal(err)
	}
	f.settle(t)
	for _, c := range []struct {
		cl   *dynamodb.Client
		arn  string
		want string
	}{{f.repl, replArn, mine}, {f.home, homeArn, doc(homeArn)}, {f.home, homeStream, doc(homeStream)}} {
		got, err := c.cl.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(c.arn)})
		if err != nil {
			t.Fatalf("%s: %v", c.arn, err)
		}
		if aws.ToString(got.Policy) != c.want {
			t.Errorf("%s: policy %s, want %s", c.arn, aws.ToString(got.Policy), c.want)
		}
	}
}

// TestGlobalTableReplicaStartsWithoutContributorInsights: Contributor
// Insights is per replica too (docs/differences.md, "Global tables"), on
// the table and
// on its GSIs.
func TestGlobalTableReplicaStartsWithoutContributorInsights(t *testing.T) {
	f := newGlobalFixture(t)
	ctx := t.Context()
	for _, ix := range []*string{nil, aws.String("byG")} {
		if _, err := f.home.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("gtab"), IndexName: ix,
			ContributorInsightsAction: types.ContributorInsightsActionEnable}); err != nil {
			t.Fatal(err)
		}
	}
	f.addReplica(t)
	for _, ix := range []*string{nil, aws.String("byG")} {
		for _, c := range []struct {
			cl   *dynamodb.Client
			want types.ContributorInsightsStatus
		}{{f.home, types.ContributorInsightsStatusEnabled}, {f.repl, types.ContributorInsightsStatusDisabled}} {
			out, err := c.cl.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("gtab"), IndexName: ix})
			if err != nil {
				t.Fatal(err)
			}
			if out.ContributorInsightsStatus != c.want {
				t.Errorf("index %q: %s, want %s", aws.ToString(ix), out.ContributorInsightsStatus, c.want)
			}
		}
	}
}
