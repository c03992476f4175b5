package emulator_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Resource-based policies through the SDK: the three operations on tables
// and streams, CreateTable's ResourcePolicy, the RevisionId rules and
// messages (API Reference, PutResourcePolicy and DeleteResourcePolicy:
// ExpectedRevisionId), validation, persistence.

const rpARN = "arn:aws:dynamodb:us-east-1:" + sdkAccount + ":table/txt"

func rpDoc(action string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"` +
		action + `","Resource":"` + rpARN + `"}]}`
}

func rpCode(t *testing.T, err error, code, msgPrefix string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || !strings.HasPrefix(ae.ErrorMessage(), msgPrefix) {
		t.Fatalf("got %v, want %s: %s…", err, code, msgPrefix)
	}
}

func TestResourcePolicyRevisions(t *testing.T) {
	_, c := sdkServer(t)
	ctx := context.Background()
	_, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+rpARN)

	p1, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:GetItem"))})
	if err != nil {
		t.Fatal(err)
	}
	r1 := aws.ToString(p1.RevisionId)
	if _, err := strconv.ParseInt(r1, 10, 64); err != nil {
		t.Fatalf("RevisionId %q is not numeric", r1)
	}
	g, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	if err != nil || aws.ToString(g.Policy) != rpDoc("dynamodb:GetItem") || aws.ToString(g.RevisionId) != r1 {
		t.Fatalf("Get = %+v, %v", g, err)
	}
	// An identical Put is a no-op with the same revision.
	same, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:GetItem"))})
	if err != nil || aws.ToString(same.RevisionId) != r1 {
		t.Fatalf("identical Put = %+v, %v; want revision %s", same, err, r1)
	}
	// NO_POLICY: create only if absent.
	_, err = c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:Query")), ExpectedRevisionId: aws.String("NO_POLICY")})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table txt, but a policy exists with revision id "+r1+".")
	// A stale expected revision.
	_, err = c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:Query")), ExpectedRevisionId: aws.String("unknown")})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id unknown, but the policy associated to target table txt has revision id "+r1+".")
	// The right expected revision: a new, greater revision.
	p2, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:Query")), ExpectedRevisionId: aws.String(r1)})
	if err != nil {
		t.Fatal(err)
	}
	r2 := aws.ToString(p2.RevisionId)
	n1, _ := strconv.ParseInt(r1, 10, 64)
	if n2, _ := strconv.ParseInt(r2, 10, 64); n2 <= n1 {
		t.Fatalf("second revision %s not greater than %s", r2, r1)
	}
	// Delete with a stale revision, then with the right one.
	_, err = c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(rpARN), ExpectedRevisionId: aws.String(r1)})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id "+r1+", but the policy associated to target table txt has revision id "+r2+".")
	d, err := c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(rpARN), ExpectedRevisionId: aws.String(r2)})
	if err != nil || aws.ToString(d.RevisionId) != r2 {
		t.Fatalf("Delete = %+v, %v", d, err)
	}
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+rpARN)
	// Delete with no policy succeeds with no revision; with an expected
	// revision it is PolicyNotFound.
	d, err = c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	if err != nil || d.RevisionId != nil {
		t.Fatalf("Delete without policy = %+v, %v", d, err)
	}
	_, err = c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(rpARN), ExpectedRevisionId: aws.String(r2)})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+rpARN)
	// NO_POLICY now succeeds, with a revision greater than the deleted one.
	p3, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:Scan")), ExpectedRevisionId: aws.String("NO_POLICY")})
	if err != nil {
		t.Fatal(err)
	}
	if n3, _ := strconv.ParseInt(aws.ToString(p3.RevisionId), 10, 64); n3 <= n1 || aws.ToString(p3.RevisionId) == r2 {
		t.Fatalf("revision after re-create %s, previous %s", aws.ToString(p3.RevisionId), r2)
	}
}

func TestResourcePolicyErrors(t *testing.T) {
	_, c := sdkServer(t)
	ctx := context.Background()
	missing := "arn:aws:dynamodb:us-east-1:" + sdkAccount + ":table/nope"
	_, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(missing), Policy: aws.String(rpDoc("dynamodb:GetItem"))})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(missing)})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")
	_, err = c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(missing)})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nope not found")

	put := func(arn, doc string) error {
		_, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc)})
		return err
	}
	rpCode(t, put(rpARN, `{"Version":"2012-10-17"}`), "ValidationException", "Invalid policy document: missing required field Statement")
	rpCode(t, put(rpARN, `not json`), "ValidationException", "Invalid policy document")
	rpCode(t, put(rpARN, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}]}`),
		"ValidationException", "Invalid policy document: missing required field Principal")
	big := `{"Version":"2012-10-17","Statement":[{"Sid":"` + strings.Repeat("a", 20*1024) + `","Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}`
	rpCode(t, put(rpARN, big), "ValidationException", "1 validation error detected: Value '")
	// Multi-byte text within 20,480 characters but over 20 KB.
	wide := `{"Version":"2012-10-17","Id":"` + strings.Repeat("é", 10300) + `","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}`
	rpCode(t, put(rpARN, wide), "ValidationException", "Resource-based policy size")
	rpCode(t, put("table/txt", rpDoc("dynamodb:GetItem")), "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:'")
	rpCode(t, put(rpARN+"/index/i", rpDoc("dynamodb:GetItem")), "ValidationException", "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted")
	_, err = c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:GetItem")), ExpectedRevisionId: aws.String("")})
	rpCode(t, err, "ValidationException", "1 validation error detected: Value '' at 'expectedRevisionId' failed to satisfy constraint: Member must have length greater than or equal to 1")

	// A policy denying the caller further policy changes needs
	// ConfirmRemoveSelfResourceAccess.
	deny := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"` + sdkAccount + `"},"Action":"dynamodb:*ResourcePolicy","Resource":"` + rpARN + `"}]}`
	rpCode(t, put(rpARN, deny), "ValidationException", "The policy denies the caller permission to change the resource-based policy")
	if _, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(deny), ConfirmRemoveSelfResourceAccess: true}); err != nil {
		t.Fatal(err)
	}
}

func TestResourcePolicyCreateTable(t *testing.T) {
	s := testserver.New(t, testserver.WithDataDir(t.TempDir()))
	c := s.ClientFor("us-east-1", sdkAccount)
	ctx := context.Background()
	create := func(name, doc string) error {
		in := &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
			StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly},
		}
		if doc != "" {
			in.ResourcePolicy = aws.String(doc)
		}
		_, err := c.CreateTable(ctx, in)
		return err
	}
	rpCode(t, create("txt", `{"Statement":[]}`), "ValidationException", "Invalid policy document: Statement must not be empty")
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("txt")}); err == nil {
		t.Fatal("a CreateTable refused for its policy created the table")
	}
	if err := create("txt", rpDoc("dynamodb:GetItem")); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	if err != nil || aws.ToString(g.Policy) != rpDoc("dynamodb:GetItem") || aws.ToString(g.RevisionId) == "" {
		t.Fatalf("Get after CreateTable = %+v, %v", g, err)
	}

	// The stream's policy is its own.
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("txt")})
	if err != nil {
		t.Fatal(err)
	}
	streamARN := aws.ToString(dt.Table.LatestStreamArn)
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(streamARN)})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+streamARN)
	sdoc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"444455556666"},"Action":["dynamodb:DescribeStream","dynamodb:GetRecords","dynamodb:GetShardIterator"],"Resource":"` + streamARN + `"}]}`
	sp, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(streamARN), Policy: aws.String(sdoc)})
	if err != nil {
		t.Fatal(err)
	}
	badStream := rpARN + "/stream/2000-01-01T00:00:00.000"
	_, err = c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(badStream), Policy: aws.String(sdoc)})
	apiErr(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+badStream+" not found")

	// Both survive a restart of the same Pebble directory.
	s.Restart()
	c = s.ClientFor("us-east-1", sdkAccount)
	g, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(streamARN)})
	if err != nil || aws.ToString(g.Policy) != sdoc || aws.ToString(g.RevisionId) != aws.ToString(sp.RevisionId) {
		t.Fatalf("stream policy after restart = %+v, %v", g, err)
	}
	g, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	if err != nil || aws.ToString(g.Policy) != rpDoc("dynamodb:GetItem") {
		t.Fatalf("table policy after restart = %+v, %v", g, err)
	}

	// Deleting the table deletes its policy: a new table of the name has none.
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("txt")}); err != nil {
		t.Fatal(err)
	}
	if err := create("txt", ""); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	apiErr(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+rpARN)
}

func TestResourcePolicyUpdateBlock(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithEngineOptions(func(o *emulator.Options) {
		o.PolicyUpdateBlock = 15 * time.Second
	}))
	c := s.ClientFor("us-east-1", sdkAccount)
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("txt"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	put := func(action string) error {
		_, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc(action))})
		return err
	}
	if err := put("dynamodb:GetItem"); err != nil {
		t.Fatal(err)
	}
	if err := put("dynamodb:GetItem"); err != nil {
		t.Fatalf("an identical Put is not an update: %v", err)
	}
	clk.add(14 * time.Second)
	rpCode(t, put("dynamodb:Query"), "ResourceInUseException", "Attempt to change a resource which is still in use")
	_, err := c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	rpCode(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use")
	clk.add(time.Second)
	if err := put("dynamodb:Query"); err != nil {
		t.Fatal(err)
	}
}

// Revisions within one millisecond still increase, across a delete too.
func TestResourcePolicyRevisionsOrdered(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk))
	c := s.ClientFor("us-east-1", sdkAccount)
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("txt"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		ResourcePolicy:       aws.String(rpDoc("dynamodb:GetItem")),
	}); err != nil {
		t.Fatal(err)
	}
	g, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(rpARN)})
	if err != nil {
		t.Fatal(err)
	}
	revs := []string{aws.ToString(g.RevisionId)}
	if want := strconv.FormatInt(clk.Now().UnixMilli(), 10); revs[0] != want {
		t.Fatalf("CreateTable's revision %s, want the epoch-ms value %s", revs[0], want)
	}
	for _, action := range []string{"dynamodb:Query", "dynamodb:Scan"} {
		p, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc(action))})
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, aws.ToString(p.RevisionId))
	}
	if _, err := c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(rpARN)}); err != nil {
		t.Fatal(err)
	}
	p, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(rpARN), Policy: aws.String(rpDoc("dynamodb:GetItem"))})
	if err != nil {
		t.Fatal(err)
	}
	revs = append(revs, aws.ToString(p.RevisionId))
	for i := 1; i < len(revs); i++ {
		a, _ := strconv.ParseInt(revs[i-1], 10, 64)
		b, _ := strconv.ParseInt(revs[i], 10, 64)
		if b <= a {
			t.Fatalf("revisions %v do not increase", revs)
		}
	}
}
