package emulator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

func TestListTablesPagination(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	for _, n := range []string{"ccc", "aaa", "bbb", "ddd", "eee"} {
		te.mustCreate(nsA, simpleTable(n))
	}
	te.mustCreate(nsB, simpleTable("zzz"))
	var got []string
	var start *string
	pages := 0
	for {
		out, err := te.ListTables(ctx, nsA, &api.ListTablesInput{Limit: i64(2), ExclusiveStartTableName: start})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, out.TableNames...)
		if out.LastEvaluatedTableName == "" {
			break
		}
		start = sp(out.LastEvaluatedTableName)
	}
	if strings.Join(got, ",") != "aaa,bbb,ccc,ddd,eee" || pages != 3 {
		t.Fatalf("pages %d, names %v", pages, got)
	}
	// A start name that is not a table still positions the listing.
	out, err := te.ListTables(ctx, nsA, &api.ListTablesInput{ExclusiveStartTableName: sp("bba")})
	if err != nil || strings.Join(out.TableNames, ",") != "bbb,ccc,ddd,eee" {
		t.Fatalf("from bba: %v %v", out, err)
	}
	for _, c := range []struct {
		in  *api.ListTablesInput
		msg string
	}{
		{&api.ListTablesInput{Limit: i64(0)}, "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{&api.ListTablesInput{Limit: i64(101)}, "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"},
		{&api.ListTablesInput{ExclusiveStartTableName: sp("a")}, "1 validation error detected: Value 'a' at 'exclusiveStartTableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
	} {
		_, err := te.ListTables(ctx, nsA, c.in)
		wantErr(t, err, api.CodeValidation, c.msg)
	}
}

func TestTags(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	in := simpleTable("tagged")
	in.Tags = []api.Tag{{Key: sp("env"), Value: sp("dev")}}
	d := te.mustCreate(nsA, in)
	arn := d.TableArn
	list := func() string {
		t.Helper()
		out, err := te.ListTagsOfResource(ctx, nsA, &api.ListTagsOfResourceInput{ResourceArn: sp(arn)})
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, tg := range out.Tags {
			parts = append(parts, tg.Key+"="+tg.Value)
		}
		return strings.Join(parts, ",")
	}
	if got := list(); got != "env=dev" {
		t.Fatalf("tags from CreateTable: %q", got)
	}
	if _, err := te.TagResource(ctx, nsA, &api.TagResourceInput{ResourceArn: sp(arn), Tags: []api.Tag{{Key: sp("env"), Value: sp("prod")}, {Key: sp("team"), Value: sp("")}}}); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != "env=prod,team=" {
		t.Fatalf("after TagResource: %q", got)
	}
	if _, err := te.UntagResource(ctx, nsA, &api.UntagResourceInput{ResourceArn: sp(arn), TagKeys: []string{"env", "absent"}}); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != "team=" {
		t.Fatalf("after UntagResource: %q", got)
	}
	var many []api.Tag
	for i := range 50 {
		many = append(many, api.Tag{Key: sp(fmt.Sprintf("k%02d", i)), Value: sp("v")})
	}
	_, err := te.TagResource(ctx, nsA, &api.TagResourceInput{ResourceArn: sp(arn), Tags: many})
	wantErr(t, err, api.CodeValidation, "Number of Tags exceed the current limit for the provided ResourceArn")

	for _, c := range []struct {
		arn, code, msg string
	}{
		{"tagged", api.CodeValidation, "One or more parameter values were invalid: ARNs must start with 'arn:': tagged"},
		{"arn:aws:s3:::bucket", api.CodeValidation, "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: arn:aws:s3:::bucket"},
		{arn + "/index/i1", api.CodeValidation, "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " + arn + "/index/i1"},
		{nsB.TableARN("tagged"), api.CodeValidation, "Invalid TableArn: Invalid ResourceArn provided as input " + nsB.TableARN("tagged")},
		{nsA.TableARN("missing"), api.CodeAccessDenied, "User: arn:aws:iam::" + nsA.Account + ":root is not authorized to perform: dynamodb:ListTagsOfResource on resource: " + nsA.TableARN("missing")},
	} {
		_, err := te.ListTagsOfResource(ctx, nsA, &api.ListTagsOfResourceInput{ResourceArn: sp(c.arn)})
		wantErr(t, err, c.code, c.msg)
	}
	_, err = te.TagResource(ctx, nsA, &api.TagResourceInput{ResourceArn: sp(arn), Tags: []api.Tag{}})
	wantErr(t, err, api.CodeValidation, "Atleast one Tag needs to be provided as Input.")
	_, err = te.UntagResource(ctx, nsA, &api.UntagResourceInput{ResourceArn: sp(arn), TagKeys: []string{}})
	wantErr(t, err, api.CodeValidation, "Atleast one Tag Key needs to be provided as Input.")
	_, err = te.TagResource(ctx, nsA, &api.TagResourceInput{ResourceArn: sp(arn), Tags: []api.Tag{{Key: sp("aws:cloudformation:stack"), Value: sp("x")}}})
	wantErr(t, err, api.CodeValidation, "Tag Key cannot be prefixed with aws:, Key: aws:cloudformation:stack")
	_, err = te.TagResource(ctx, nsA, &api.TagResourceInput{ResourceArn: sp(arn)})
	wantErr(t, err, api.CodeValidation, "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
}

func TestTimeToLive(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, simpleTable("ttl"))
	describe := func() api.TimeToLiveDescription {
		t.Helper()
		out, err := te.DescribeTimeToLive(ctx, nsA, &api.DescribeTimeToLiveInput{TableName: sp("ttl")})
		if err != nil {
			t.Fatal(err)
		}
		return *out.TimeToLiveDescription
	}
	update := func(enabled bool, attr string) error {
		_, err := te.UpdateTimeToLive(ctx, nsA, &api.UpdateTimeToLiveInput{TableName: sp("ttl"), TimeToLiveSpecification: &api.TimeToLiveSpecification{Enabled: bl(enabled), AttributeName: sp(attr)}})
		return err
	}
	if d := describe(); d != (api.TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}) {
		t.Fatalf("initial TTL = %+v", d)
	}
	wantErr(t, update(false, "exp"), api.CodeValidation, "TimeToLive is already disabled")
	if err := update(true, "exp"); err != nil {
		t.Fatal(err)
	}
	if d := describe(); d != (api.TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: "exp"}) {
		t.Fatalf("TTL = %+v", d)
	}
	wantErr(t, update(true, "exp"), api.CodeValidation, "TimeToLive is already enabled")
	wantErr(t, update(true, "other"), api.CodeValidation, "TimeToLive is active on a different AttributeName: current AttributeName is exp")
	wantErr(t, update(false, "other"), api.CodeValidation, "TimeToLive is active on a different AttributeName: current AttributeName is exp")
	if err := update(false, "exp"); err != nil {
		t.Fatal(err)
	}
	if d := describe(); d.TimeToLiveStatus != "DISABLED" {
		t.Fatalf("TTL = %+v", d)
	}
	_, err := te.UpdateTimeToLive(ctx, nsA, &api.UpdateTimeToLiveInput{TableName: sp("ttl")})
	wantErr(t, err, api.CodeValidation, "1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	_, err = te.DescribeTimeToLive(ctx, nsA, &api.DescribeTimeToLiveInput{TableName: sp("nope")})
	wantErr(t, err, api.CodeResourceNotFound, "Requested resource not found: Table: nope not found")
}

func TestContinuousBackups(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, simpleTable("pitr"))
	out, err := te.DescribeContinuousBackups(ctx, nsA, &api.DescribeContinuousBackupsInput{TableName: sp("pitr")})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.ContinuousBackupsDescription; d.ContinuousBackupsStatus != "ENABLED" || d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != "DISABLED" {
		t.Fatalf("initial = %+v %+v", d, d.PointInTimeRecoveryDescription)
	}
	upd, err := te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("pitr"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: bl(true), RecoveryPeriodInDays: i64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	p := upd.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	if p.PointInTimeRecoveryStatus != "ENABLED" || *p.RecoveryPeriodInDays != 7 || *p.EarliestRestorableDateTime != epochSeconds(te.now()) {
		t.Fatalf("after enable = %+v", p)
	}
	te.clock.Add(10 * 24 * time.Hour)
	out, _ = te.DescribeContinuousBackups(ctx, nsA, &api.DescribeContinuousBackupsInput{TableName: sp("pitr")})
	p = out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	if *p.EarliestRestorableDateTime != epochSeconds(te.now().Add(-7*24*time.Hour)) || *p.LatestRestorableDateTime != epochSeconds(te.now().Add(-5*time.Minute)) {
		t.Fatalf("window after 10 days = %v..%v", *p.EarliestRestorableDateTime, *p.LatestRestorableDateTime)
	}
	_, err = te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("pitr"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: bl(false), RecoveryPeriodInDays: i64(7)}})
	wantErr(t, err, api.CodeValidation, "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	_, err = te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("pitr"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: bl(true), RecoveryPeriodInDays: i64(36)}})
	wantErr(t, err, api.CodeValidation, "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")
	_, err = te.DescribeContinuousBackups(ctx, nsA, &api.DescribeContinuousBackupsInput{TableName: sp("nope")})
	wantErr(t, err, api.CodeTableNotFound, "Table not found: nope")
	_, err = te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("nope"),
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: bl(true)}})
	wantErr(t, err, api.CodeTableNotFound, "Table not found: nope")
}

func TestDescribeLimitsAndEndpoints(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	lim, err := te.DescribeLimits(ctx, nsA, &api.Empty{})
	if err != nil || *lim != (api.DescribeLimitsOutput{AccountMaxReadCapacityUnits: 80000, AccountMaxWriteCapacityUnits: 80000, TableMaxReadCapacityUnits: 40000, TableMaxWriteCapacityUnits: 40000}) {
		t.Fatalf("DescribeLimits = %+v, %v", lim, err)
	}
	te2 := newTestEngine(t, func(o *Options) { o.Limits.TableMaxReadCapacityUnits = 100 })
	in := simpleTable("cap")
	in.BillingMode, in.ProvisionedThroughput = nil, pt(101, 1)
	_, err = te2.CreateTable(ctx, nsA, in)
	wantErr(t, err, api.CodeLimitExceeded, "The requested ReadCapacityUnits, 101, is above the per table maximum for the account in us-east-1. Per table maximum: 100. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")

	for ns, want := range map[api.Namespace]string{
		nsB:                                  "dynamodb.eu-west-1.amazonaws.com",
		{Account: "1", Region: "cn-north-1"}: "dynamodb.cn-north-1.amazonaws.com.cn",
	} {
		out, err := te.DescribeEndpoints(ctx, ns, &api.Empty{})
		if err != nil || len(out.Endpoints) != 1 || out.Endpoints[0] != (api.Endpoint{Address: want, CachePeriodInMinutes: 1440}) {
			t.Fatalf("DescribeEndpoints(%v) = %+v, %v", ns, out, err)
		}
	}
}
