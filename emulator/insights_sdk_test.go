package emulator_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Contributor Insights through the SDK: the three operations on tables and
// GSIs, statuses with a transition delay, modes, rule names, paging,
// errors and validation order, persistence across a restart
// (API Reference, UpdateContributorInsights, DescribeContributorInsights
// and ListContributorInsights; docs/differences.md, "Contributor Insights").

// ciServer starts a server with a settable clock and a 10 s transition
// delay, and a table "cit" (pk S, sk N) with GSI "byG" (g S).
func ciServer(t *testing.T) (*testserver.Server, *dynamodb.Client, *stepClock) {
	t.Helper()
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithTransitionDelay(10*time.Second))
	c := s.ClientFor("us-east-1", sdkAccount)
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("cit"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(11 * time.Second) // ACTIVE
	return s, c, clk
}

func TestContributorInsightsLifecycle(t *testing.T) {
	s, c, clk := ciServer(t)
	ctx := context.Background()

	// Never enabled: DISABLED, nothing else.
	d, err := c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit")})
	if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.LastUpdateDateTime != nil || len(d.ContributorInsightsRuleList) != 0 {
		t.Fatalf("Describe before = %+v, %v", d, err)
	}

	u, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("cit"), ContributorInsightsAction: types.ContributorInsightsActionEnable})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(u.TableName) != "cit" || u.IndexName != nil || u.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling ||
		u.ContributorInsightsMode != types.ContributorInsightsModeAccessedAndThrottledKeys {
		t.Fatalf("Update = %+v", u)
	}
	enabledAt := clk.Now()
	epoch := strconv.FormatInt(enabledAt.UnixMilli(), 10)
	wantRules := []string{
		"DynamoDBContributorInsights-PKC-cit-" + epoch, "DynamoDBContributorInsights-SKC-cit-" + epoch,
		"DynamoDBContributorInsights-PKT-cit-" + epoch, "DynamoDBContributorInsights-SKT-cit-" + epoch,
	}
	d, err = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit")})
	if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling {
		t.Fatalf("Describe during the delay = %+v, %v", d, err)
	}
	clk.add(10 * time.Second)
	// The ARN form names the same table; the state survives a restart.
	s.Restart()
	d, err = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("arn:aws:dynamodb:us-east-1:" + sdkAccount + ":table/cit")})
	if err != nil {
		t.Fatal(err)
	}
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled || fmt.Sprint(d.ContributorInsightsRuleList) != fmt.Sprint(wantRules) ||
		!aws.ToTime(d.LastUpdateDateTime).Equal(enabledAt) || d.ContributorInsightsMode != types.ContributorInsightsModeAccessedAndThrottledKeys ||
		aws.ToString(d.TableName) != "cit" || d.FailureException != nil {
		t.Fatalf("Describe after restart = %+v (rules %v)", d, d.ContributorInsightsRuleList)
	}

	// THROTTLED_KEYS on the GSI: throttled rules only, and no sort key.
	u, err = c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("cit"), IndexName: aws.String("byG"),
		ContributorInsightsAction: types.ContributorInsightsActionEnable, ContributorInsightsMode: types.ContributorInsightsModeThrottledKeys})
	if err != nil || aws.ToString(u.IndexName) != "byG" || u.ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys {
		t.Fatalf("Update index = %+v, %v", u, err)
	}
	clk.add(10 * time.Second)
	d, err = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit"), IndexName: aws.String("byG")})
	gEpoch := strconv.FormatInt(clk.Now().Add(-10*time.Second).UnixMilli(), 10)
	if err != nil || d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled || aws.ToString(d.IndexName) != "byG" ||
		fmt.Sprint(d.ContributorInsightsRuleList) != fmt.Sprint([]string{"DynamoDBContributorInsights-PKT-cit-" + gEpoch}) {
		t.Fatalf("Describe index = %+v, %v", d, err)
	}

	// Disable: DISABLING, then DISABLED with no rules.
	u, err = c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("cit"), ContributorInsightsAction: types.ContributorInsightsActionDisable})
	if err != nil || u.ContributorInsightsStatus != types.ContributorInsightsStatusDisabling {
		t.Fatalf("disable = %+v, %v", u, err)
	}
	d, _ = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit")})
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabling {
		t.Fatalf("Describe while disabling = %+v", d)
	}
	clk.add(10 * time.Second)
	d, _ = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit")})
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || len(d.ContributorInsightsRuleList) != 0 {
		t.Fatalf("Describe after disable = %+v", d)
	}
}

func TestContributorInsightsErrors(t *testing.T) {
	_, c, _ := ciServer(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		in   *dynamodb.UpdateContributorInsightsInput
		code string
		msg  string
	}{
		{"unknown table", &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("nope"), ContributorInsightsAction: "ENABLE"},
			"ResourceNotFoundException", "Requested resource not found: Table: nope not found"},
		{"unknown index", &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("cit"), IndexName: aws.String("nix"), ContributorInsightsAction: "ENABLE"},
			"ResourceNotFoundException", "Requested resource not found: Index: nix not found for table: cit"},
		{"bad action", &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("cit"), ContributorInsightsAction: "PAUSE"},
			"ValidationException", "1 validation error detected: Value 'PAUSE' at 'contributorInsightsAction' failed to satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]"},
		{"bad mode and index name, in member order", &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("cit"), IndexName: aws.String("x"), ContributorInsightsAction: "ENABLE", ContributorInsightsMode: "ALL"},
			"ValidationException", "2 validation errors detected: Value 'x' at 'indexName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value 'ALL' at 'contributorInsightsMode' failed to satisfy constraint: Member must satisfy enum value set: [ACCESSED_AND_THROTTLED_KEYS, THROTTLED_KEYS]"},
		{"bad table name", &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("a b"), ContributorInsightsAction: "ENABLE"},
			"ValidationException", "1 validation error detected: Value 'a b' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.UpdateContributorInsights(ctx, tc.in)
			apiErr(t, err, tc.code, tc.msg)
		})
	}
	_, err := c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("nope")})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	_, err = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit"), IndexName: aws.String("nix")})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Index: nix not found for table: cit")
	_, err = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("cit"), IndexName: aws.String("a/b")})
	apiErr(t, err, "ValidationException", "1 validation error detected: Value 'a/b' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	_, err = c.DescribeContributorInsights(ctx, &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("arn:aws:dynamodb:eu-west-1:" + sdkAccount + ":table/cit")})
	apiErr(t, err, "ValidationException", "1 validation error detected: Invalid AWS region in 'arn:aws:dynamodb:eu-west-1:"+sdkAccount+":table/cit'")
	_, err = c.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{TableName: aws.String("no")})
	apiErr(t, err, "ValidationException", "1 validation error detected: Value 'no' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	_, err = c.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{MaxResults: 101})
	apiErr(t, err, "ValidationException", "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100")
	_, err = c.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{TableName: aws.String("nope")})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	_, err = c.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{NextToken: aws.String("!!")})
	apiErr(t, err, "ValidationException", "Invalid NextToken")
	// A table being created is in use.
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("young"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("young"), ContributorInsightsAction: "ENABLE"})
	apiErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: young")
}

func TestContributorInsightsList(t *testing.T) {
	_, c, clk := ciServer(t)
	ctx := context.Background()
	for _, name := range []string{"tb1", "tb2", "tb3"} {
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest}); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(11 * time.Second)
	for _, in := range []*dynamodb.UpdateContributorInsightsInput{
		{TableName: aws.String("tb3"), ContributorInsightsAction: "ENABLE"},
		{TableName: aws.String("tb1"), ContributorInsightsAction: "ENABLE", ContributorInsightsMode: types.ContributorInsightsModeThrottledKeys},
		{TableName: aws.String("cit"), IndexName: aws.String("byG"), ContributorInsightsAction: "ENABLE"},
	} {
		if _, err := c.UpdateContributorInsights(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	// Without a table: every entry that is not DISABLED, across tables, in
	// pages of MaxResults.
	var got []string
	var token *string
	pages := 0
	for {
		out, err := c.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{MaxResults: 2, NextToken: token})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range out.ContributorInsightsSummaries {
			got = append(got, fmt.Sprintf("%s/%s %s %s", aws.ToString(s.TableName), aws.ToString(s.IndexName), s.ContributorInsightsStatus, s.ContributorInsightsMode))
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	want := []string{
		"cit/byG ENABLING ACCESSED_AND_THROTTLED_KEYS",
		"tb1/ ENABLING THROTTLED_KEYS",
		"tb3/ ENABLING ACCESSED_AND_THROTTLED_KEYS",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || pages != 2 {
		t.Fatalf("list = %q in %d pages, want %q in 2", got, pages, want)
	}
	// With a table: the table and each GSI, DISABLED ones included.
	clk.add(10 * time.Second)
	out, err := c.ListContributorInsights(ctx, &dynamodb.ListContributorInsightsInput{TableName: aws.String("cit")})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, s := range out.ContributorInsightsSummaries {
		got = append(got, fmt.Sprintf("%s/%s %s", aws.ToString(s.TableName), aws.ToString(s.IndexName), s.ContributorInsightsStatus))
	}
	if fmt.Sprint(got) != fmt.Sprint([]string{"cit/ DISABLED", "cit/byG ENABLED"}) || out.NextToken != nil {
		t.Fatalf("list of ci = %q (next %v)", got, out.NextToken)
	}
}
