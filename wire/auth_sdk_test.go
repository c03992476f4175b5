package wire_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

// The credentials file of the authentication and authorization tests:
// account 111111111111 (alice: admin; carol: no policy; dave: his own
// partition key only), account 222222222222 (bob: may read tables of
// 111111111111; erin: no policy), and a role in 333333333333 alice may
// assume.
const testCredentials = `
users:
  - accessKeyId: AKIAALICE
    secretAccessKey: alice-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/alice
    policies:
      - Version: "2012-10-17"
        Statement:
          - {Effect: Allow, Action: ["dynamodb:*", "sts:AssumeRole"], Resource: "*"}
          - {Effect: Deny, Action: dynamodb:DeleteTable, Resource: "arn:aws:dynamodb:*:*:table/Keep"}
  - accessKeyId: AKIACAROL
    secretAccessKey: carol-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/carol
  - accessKeyId: AKIADAVE
    secretAccessKey: dave-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/dave
    policies:
      - '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:BatchGetItem"],"Resource":"arn:aws:dynamodb:us-east-1:111111111111:table/*","Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["dave"]}}}]}'
  - accessKeyId: AKIAFRANK
    secretAccessKey: frank-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/frank
    policies:
      - '{"Statement":[{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk","name"]},"Null":{"dynamodb:Attributes":"false"}}},{"Effect":"Allow","Action":"dynamodb:PutItem","Resource":"*","Condition":{"StringEqualsIfExists":{"dynamodb:ReturnValues":"NONE"}}},{"Effect":"Allow","Action":"dynamodb:CreateTable","Resource":"*"}]}'
  - accessKeyId: AKIAGINA
    secretAccessKey: gina-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/team/gina
    policies:
      - '{"Statement":[{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}]}'
  - accessKeyId: AKIAHANK
    secretAccessKey: hank-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/hank
    policies:
      - '{"Statement":[{"Effect":"Allow","Action":"dynamodb:UpdateTable","Resource":"*"}]}'
  - accessKeyId: AKIABOB
    secretAccessKey: bob-secret
    account: "222222222222"
    arn: arn:aws:iam::222222222222:user/bob
    policies:
      - Version: "2012-10-17"
        Statement:
          - {Effect: Allow, Action: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"], Resource: "arn:aws:dynamodb:*:111111111111:table/*"}
  - accessKeyId: AKIAERIN
    secretAccessKey: erin-secret
    account: "222222222222"
    arn: arn:aws:iam::222222222222:user/erin
roles:
  - arn: arn:aws:iam::333333333333:role/bobs
    trust: ["222222222222"]
  - arn: arn:aws:iam::333333333333:role/deployer
    trust: ["arn:aws:iam::111111111111:user/alice"]
    maxSessionDuration: 7200
    policies:
      - {Version: "2012-10-17", Statement: [{Effect: Allow, Action: "dynamodb:*", Resource: "*"}]}
`

func authServer(t *testing.T) (*testserver.Server, *wire.Credentials) {
	t.Helper()
	creds, err := wire.ParseCredentials([]byte(testCredentials))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.New(t, testserver.WithWireOptions(func(o *wire.Options) { o.Credentials = creds }))
	return s, creds
}

func static(key, secret string) aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(key, secret, "")
}

func apiCode(t *testing.T, err error) (string, string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want an API error, got %v", err)
	}
	return ae.ErrorCode(), ae.ErrorMessage()
}

func createKV(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

func TestAuthSignedClientPasses(t *testing.T) {
	s, _ := authServer(t)
	alice := s.ClientWith("us-east-1", static("AKIAALICE", "alice-secret"))
	createKV(t, alice, "Tab")
	ctx := context.Background()
	if _, err := alice.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Tab"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}); err != nil {
		t.Fatal(err)
	}
	out, err := alice.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Tab"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	if err != nil || out.Item == nil {
		t.Fatalf("GetItem: %v %v", out, err)
	}
	// The table is in alice's account, not the default one.
	if _, err := s.Engine().DescribeTable(ctx, api.Namespace{Account: "111111111111", Region: "us-east-1"},
		&api.DescribeTableInput{TableName: aws.String("Tab")}); err != nil {
		t.Fatalf("table not in alice's account: %v", err)
	}
	id, err := sts.NewFromConfig(s.ConfigWith("us-east-1", static("AKIAALICE", "alice-secret"))).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Arn != "arn:aws:iam::111111111111:user/alice" || *id.Account != "111111111111" {
		t.Fatalf("GetCallerIdentity: %+v %v", id, err)
	}
}

// signed builds a GetItem request signed by the SDK signer.
func signed(t *testing.T, s *testserver.Server, key, secret, token string, at time.Time, body string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	sum := sha256.Sum256([]byte(body))
	hash := hex.EncodeToString(sum[:])
	r.Header.Set("X-Amz-Content-Sha256", hash)
	err = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: token},
		r, hash, "dynamodb", "us-east-1", at)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type wireError struct {
	status int
	Type   string `json:"__type"`
	Msg    string `json:"message"`
}

func send(t *testing.T, s *testserver.Server, r *http.Request) wireError {
	t.Helper()
	resp, err := s.HTTPClient().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e wireError
	_ = json.Unmarshal(b, &e)
	e.status = resp.StatusCode
	return e
}

func TestAuthErrors(t *testing.T) {
	s, _ := authServer(t)
	now := time.Now()
	const coral = "com.amazon.coral.service#"
	mismatch := "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

	ok := send(t, s, signed(t, s, "AKIAALICE", "alice-secret", "", now, "{}"))
	if ok.status != 200 {
		t.Fatalf("a correctly signed request: %+v", ok)
	}

	unsigned, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader("{}"))
	unsigned.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	unsigned.Header.Set("Content-Type", "application/x-amz-json-1.0")

	incomplete, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader("{}"))
	incomplete.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	incomplete.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAALICE/20260101/us-east-1/dynamodb/aws4_request")

	tampered := signed(t, s, "AKIAALICE", "alice-secret", "", now, "{}")
	tampered.Header.Set("X-Amz-Target", "DynamoDB_20120810.DeleteTable")

	tamperedBody := signed(t, s, "AKIAALICE", "alice-secret", "", now, "{}")
	tamperedBody.Body = io.NopCloser(strings.NewReader(`{"Limit":1}`))
	tamperedBody.ContentLength = int64(len(`{"Limit":1}`))

	stale := now.Add(-20 * time.Minute)
	for _, c := range []struct {
		name string
		r    *http.Request
		code string
		msg  string
	}{
		{"no Authorization header", unsigned, "MissingAuthenticationTokenException", "Request is missing Authentication Token"},
		{"incomplete signature", incomplete, "IncompleteSignatureException",
			"Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. " +
				"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. " +
				"Authorization=AWS4-HMAC-SHA256 Credential=AKIAALICE/20260101/us-east-1/dynamodb/aws4_request"},
		{"wrong secret", signed(t, s, "AKIAALICE", "not-the-secret", "", now, "{}"), "InvalidSignatureException", mismatch},
		{"tampered header", tampered, "InvalidSignatureException", mismatch},
		{"tampered body", tamperedBody, "InvalidSignatureException", mismatch},
		{"unknown key", signed(t, s, "AKIAUNKNOWN", "whatever", "", now, "{}"), "UnrecognizedClientException",
			"The security token included in the request is invalid."},
		{"stale date", signed(t, s, "AKIAALICE", "alice-secret", "", stale, "{}"), "InvalidSignatureException", ""},
		{"token on a long-term key", signed(t, s, "AKIAALICE", "alice-secret", "bogus", now, "{}"), "UnrecognizedClientException",
			"The security token included in the request is invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := send(t, s, c.r)
			if got.status != 400 || got.Type != coral+c.code {
				t.Fatalf("got %d %s %q, want 400 %s", got.status, got.Type, got.Msg, c.code)
			}
			if c.msg != "" && got.Msg != c.msg {
				t.Errorf("message %q\nwant    %q", got.Msg, c.msg)
			}
		})
	}
	got := send(t, s, signed(t, s, "AKIAALICE", "alice-secret", "", stale, "{}"))
	f := func(x time.Time) string { return x.UTC().Format("20060102T150405Z") }
	if !strings.HasPrefix(got.Msg, "Signature expired: "+f(stale)+" is now earlier than ") || !strings.HasSuffix(got.Msg, " - 15 min.)") {
		t.Errorf("stale date message %q", got.Msg)
	}
}

func TestAssumeRoleIntoAnotherAccount(t *testing.T) {
	s, creds := authServer(t)
	ctx := context.Background()
	aliceSTS := sts.NewFromConfig(s.ConfigWith("us-east-1", static("AKIAALICE", "alice-secret")))
	out, err := aliceSTS.AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::333333333333:role/deployer"), RoleSessionName: aws.String("ci"), DurationSeconds: aws.Int32(900),
	})
	if err != nil {
		t.Fatal(err)
	}
	if *out.AssumedRoleUser.Arn != "arn:aws:sts::333333333333:assumed-role/deployer/ci" {
		t.Errorf("AssumedRoleUser.Arn = %s", *out.AssumedRoleUser.Arn)
	}
	if d := time.Until(*out.Credentials.Expiration); d < 14*time.Minute || d > 15*time.Minute {
		t.Errorf("expires in %s, want 15 minutes", d)
	}
	tmp := credentials.NewStaticCredentialsProvider(*out.Credentials.AccessKeyId, *out.Credentials.SecretAccessKey, *out.Credentials.SessionToken)
	createKV(t, s.ClientWith("us-east-1", tmp), "Deployed")
	// The table lands in the role's account.
	if _, err := s.Engine().DescribeTable(ctx, api.Namespace{Account: "333333333333", Region: "us-east-1"},
		&api.DescribeTableInput{TableName: aws.String("Deployed")}); err != nil {
		t.Fatalf("table not in the role's account: %v", err)
	}
	id, err := sts.NewFromConfig(s.ConfigWith("us-east-1", tmp)).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Arn != "arn:aws:sts::333333333333:assumed-role/deployer/ci" || *id.Account != "333333333333" {
		t.Fatalf("GetCallerIdentity: %+v %v", id, err)
	}

	// A wrong session token, then the credentials past their expiry.
	wrong := credentials.NewStaticCredentialsProvider(*out.Credentials.AccessKeyId, *out.Credentials.SecretAccessKey, "wrong")
	_, err = s.ClientWith("us-east-1", wrong).ListTables(ctx, &dynamodb.ListTablesInput{})
	if code, msg := apiCode(t, err); code != "UnrecognizedClientException" || msg != "The security token included in the request is invalid" {
		t.Errorf("wrong token: %s %q", code, msg)
	}
	creds.SetClock(func() time.Time { return time.Now().Add(16 * time.Minute) })
	_, err = s.ClientWith("us-east-1", tmp).ListTables(ctx, &dynamodb.ListTablesInput{})
	if code, msg := apiCode(t, err); code != "ExpiredTokenException" || msg != "The security token included in the request is expired" {
		t.Errorf("expired: %s %q", code, msg)
	}
	creds.SetClock(nil)

	// Bob is not trusted; DurationSeconds is bounded by the role's maximum.
	_, err = sts.NewFromConfig(s.ConfigWith("us-east-1", static("AKIABOB", "bob-secret"))).AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::333333333333:role/deployer"), RoleSessionName: aws.String("x1"),
	})
	if code, msg := apiCode(t, err); code != "AccessDenied" ||
		msg != "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::333333333333:role/deployer" {
		t.Errorf("untrusted: %s %q", code, msg)
	}
	// Alice's identity policy allows sts:AssumeRole on any role, but this
	// one trusts another account only.
	_, err = aliceSTS.AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::333333333333:role/bobs"), RoleSessionName: aws.String("x1"),
	})
	if code, _ := apiCode(t, err); code != "AccessDenied" {
		t.Errorf("role not trusting alice: %s", code)
	}
	_, err = aliceSTS.AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::333333333333:role/deployer"), RoleSessionName: aws.String("ci"), DurationSeconds: aws.Int32(7201),
	})
	if code, _ := apiCode(t, err); code != "ValidationError" {
		t.Errorf("over MaxSessionDuration: %s", code)
	}
}

// STS answers authentication failures in its own protocol and names.
func TestAuthErrorsSTS(t *testing.T) {
	s, _ := authServer(t)
	_, err := sts.NewFromConfig(s.ConfigWith("us-east-1", static("AKIAALICE", "wrong"))).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if code, _ := apiCode(t, err); code != "SignatureDoesNotMatch" {
		t.Errorf("got %s", code)
	}
	_, err = sts.NewFromConfig(s.ConfigWith("us-east-1", static("AKIANOBODY", "x"))).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if code, _ := apiCode(t, err); code != "InvalidClientTokenId" {
		t.Errorf("got %s", code)
	}
}

// Newer STS clients speak awsJson1_0: AssumeRole answers there too.
func TestAssumeRoleJSON(t *testing.T) {
	s, _ := authServer(t)
	body := `{"RoleArn":"arn:aws:iam::333333333333:role/deployer","RoleSessionName":"js","DurationSeconds":900}`
	r, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", "AWSSecurityTokenServiceV20110615.AssumeRole")
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AKIAALICE", SecretAccessKey: "alice-secret"},
		r, hex.EncodeToString(sum[:]), "sts", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := s.HTTPClient().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		AssumedRoleUser struct{ Arn string }
		Credentials     struct {
			AccessKeyId, SecretAccessKey, SessionToken string
			Expiration                                 float64
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if out.AssumedRoleUser.Arn != "arn:aws:sts::333333333333:assumed-role/deployer/js" || out.Credentials.SessionToken == "" ||
		time.Until(time.Unix(int64(out.Credentials.Expiration), 0)) > 15*time.Minute {
		t.Fatalf("%+v", out)
	}
	tmp := credentials.NewStaticCredentialsProvider(out.Credentials.AccessKeyId, out.Credentials.SecretAccessKey, out.Credentials.SessionToken)
	if _, err := s.ClientWith("us-east-1", tmp).ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
}
