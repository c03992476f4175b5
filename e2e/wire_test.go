package e2e_test

import (
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/extenddb/extenddb/internal/testserver"
)

var requestIDPattern = regexp.MustCompile(`^[A-Z0-9]{52}$`)

// unknownTarget makes the SDK send its request to an operation no
// DynamoDB serves: once the whole API model is served, no real operation
// is left to stand for an unknown one. It runs in the Build step, before
// the request is signed.
func unknownTarget(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Build.Add(middleware.BuildMiddlewareFunc("unknownTarget", func(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (middleware.BuildOutput, middleware.Metadata, error) {
			if req, ok := in.Request.(*smithyhttp.Request); ok {
				req.Header.Set("X-Amz-Target", "DynamoDB_20120810.Frobnicate")
			}
			return next.HandleBuild(ctx, in)
		}), middleware.After)
	})
}

// TestWireUnknownOperation: an operation ExtendDB does not serve is a 400
// UnknownOperationException (never a 5xx the SDK would retry), with a
// request ID, through the real SDK client.
func TestWireUnknownOperation(t *testing.T) {
	s := testserver.New(t)
	_, err := s.Client.ListTables(context.Background(), &dynamodb.ListTablesInput{}, unknownTarget)
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnknownOperationException" {
		t.Fatalf("an unknown target: %v, want UnknownOperationException", err)
	}
	var respErr *awshttp.ResponseError
	if !errors.As(err, &respErr) {
		t.Fatalf("no HTTP response error in %v", err)
	}
	if respErr.HTTPStatusCode() != http.StatusBadRequest {
		t.Errorf("status %d, want 400", respErr.HTTPStatusCode())
	}
	if !requestIDPattern.MatchString(respErr.ServiceRequestID()) {
		t.Errorf("request ID %q is not 52 upper-case alphanumerics", respErr.ServiceRequestID())
	}
}

// TestWireDispatchToEngine: a served operation reaches the engine and its
// answer (success, or the stub's UnknownOperationException while the
// operation is unimplemented) comes back through the SDK with a request ID.
func TestWireDispatchToEngine(t *testing.T) {
	s := testserver.New(t)
	out, err := s.Client.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnknownOperationException" || apiErr.ErrorMessage() == "" {
			t.Fatalf("ListTables: %v", err)
		}
		return
	}
	id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	if !ok || !requestIDPattern.MatchString(id) {
		t.Errorf("request ID %q", id)
	}
}

func TestWireHealthCheck(t *testing.T) {
	s := testserver.New(t, testserver.WithDefaultRegion("eu-west-1"))
	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "healthy: dynamodb.eu-west-1.amazonaws.com " {
		t.Errorf("GET / = %d %q", resp.StatusCode, body)
	}
}

// recordingTransport keeps the last response's headers and body so a test
// can check what the SDK was sent.
type recordingTransport struct {
	header http.Header
	body   []byte
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	rt.header, rt.body = resp.Header.Clone(), b
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp, nil
}

// TestWireCRC32: the x-amz-crc32 header is the CRC32 (IEEE) of the body as
// the SDK received it, on success and error responses alike, and the SDK's
// own check (on by default for DynamoDB) accepts it.
func TestWireCRC32(t *testing.T) {
	s := testserver.New(t)
	rt := &recordingTransport{}
	cfg := s.AWSConfig("us-east-1", testserver.DefaultAccessKeyID)
	cfg.HTTPClient = &http.Client{Transport: rt}
	c := dynamodb.NewFromConfig(cfg)
	ctx := context.Background()
	check := func(what string) {
		t.Helper()
		want := strconv.FormatUint(uint64(crc32.ChecksumIEEE(rt.body)), 10)
		if got := rt.header.Get("X-Amz-Crc32"); got != want || len(rt.body) == 0 {
			t.Errorf("%s: x-amz-crc32 %q, CRC32 of the %d-byte body is %s", what, got, len(rt.body), want)
		}
	}
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("ListTables: %v", err)
		}
	}
	check("ListTables")
	_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}, unknownTarget)
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnknownOperationException" {
		t.Fatalf("an unknown target: %v", err)
	}
	check("an unknown target")
}

// TestWireCRC32Gzip: a client that asks for gzip (EnableAcceptEncodingGzip,
// the SDK's option; it validates x-amz-crc32 on the bytes received, before
// decompressing them) gets answers whose CRC matches the bytes sent, on
// small and large (200 KB) answers and on errors, with no retry to hide a
// mismatch.
func TestWireCRC32Gzip(t *testing.T) {
	s := testserver.New(t)
	rt := &recordingTransport{}
	cfg := s.AWSConfig("us-east-1", testserver.DefaultAccessKeyID)
	cfg.HTTPClient = &http.Client{Transport: rt}
	cfg.RetryMaxAttempts = 1
	c := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.EnableAcceptEncodingGzip = true })
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		var apiErr smithy.APIError
		if err != nil && !errors.As(err, &apiErr) {
			t.Fatalf("%s: %v", what, err) // a CRC mismatch is no API error
		}
		want := strconv.FormatUint(uint64(crc32.ChecksumIEEE(rt.body)), 10)
		if got := rt.header.Get("X-Amz-Crc32"); got != want {
			t.Errorf("%s: x-amz-crc32 %q, CRC32 of the %d bytes sent is %s", what, got, len(rt.body), want)
		}
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("crc"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	check("CreateTable", err)
	filler := strings.Repeat("x", 2000)
	for i := range 100 {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("crc"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "k" + strconv.Itoa(i)},
			"v":  &types.AttributeValueMemberS{Value: filler},
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("crc")})
	check("Scan", err)
	if err == nil && len(out.Items) != 100 {
		t.Errorf("Scan: %d items, want 100", len(out.Items))
	}
	if len(rt.body) < 200_000 {
		t.Errorf("Scan: %d bytes sent, want the whole 200 KB table", len(rt.body))
	}
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("nope")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("DescribeTable of a missing table: %v", err)
	}
	check("DescribeTable of a missing table", err)
}

func TestWireSTSGetCallerIdentity(t *testing.T) {
	s := testserver.New(t,
		testserver.WithDefaultAccount("123456789012"),
		testserver.WithAccessKeyAccount("AKIAMAPPEDKEY", "210987654321"))
	for _, tc := range []struct {
		name, region, key string
		account, arn      string
	}{
		{"12-digit access key", "us-east-1", "111122223333", "111122223333", "arn:aws:iam::111122223333:root"},
		{"mapped access key", "eu-west-1", "AKIAMAPPEDKEY", "210987654321", "arn:aws:iam::210987654321:root"},
		{"default account", "us-west-2", "AKIAUNKNOWNKEY", "123456789012", "arn:aws:iam::123456789012:root"},
		{"China partition", "cn-north-1", "111122223333", "111122223333", "arn:aws-cn:iam::111122223333:root"},
		{"GovCloud partition", "us-gov-west-1", "111122223333", "111122223333", "arn:aws-us-gov:iam::111122223333:root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sts.NewFromConfig(s.AWSConfig(tc.region, tc.key))
			out, err := c.GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
			if err != nil {
				t.Fatal(err)
			}
			if aws.ToString(out.Account) != tc.account || aws.ToString(out.Arn) != tc.arn || aws.ToString(out.UserId) != tc.account {
				t.Errorf("got Account %q Arn %q UserId %q, want %q %q %q",
					aws.ToString(out.Account), aws.ToString(out.Arn), aws.ToString(out.UserId), tc.account, tc.arn, tc.account)
			}
			if id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); !ok || id == "" {
				t.Errorf("no request ID")
			}
		})
	}
}

// TestWireSTSUnknownAction: other STS actions get an STS error document
// the SDK can read, with HTTP 400.
func TestWireSTSUnknownAction(t *testing.T) {
	s := testserver.New(t)
	c := sts.NewFromConfig(s.AWSConfig("us-east-1", "AKIAEXAMPLE"))
	_, err := c.GetSessionToken(context.Background(), &sts.GetSessionTokenInput{})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidAction" ||
		apiErr.ErrorMessage() != "Could not find operation GetSessionToken for version 2011-06-15" {
		t.Fatalf("GetSessionToken: %v", err)
	}
	var respErr *awshttp.ResponseError
	if !errors.As(err, &respErr) || respErr.HTTPStatusCode() != http.StatusBadRequest {
		t.Errorf("want HTTP 400: %v", err)
	}
}

// TestWireNamespaces: the signing Region and the access key pick the
// (account, Region) namespace; the table ARN carries both.
func TestWireNamespaces(t *testing.T) {
	s := testserver.New(t, testserver.WithAccessKeyAccount("AKIAMAPPEDKEY", "210987654321"))
	ctx := context.Background()
	home := s.ClientFor("eu-west-1", "AKIAMAPPEDKEY")
	out, err := home.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if got, want := aws.ToString(out.TableDescription.TableArn), "arn:aws:dynamodb:eu-west-1:210987654321:table/Orders"; got != want {
		t.Errorf("TableArn %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name   string
		client *dynamodb.Client
		want   int
	}{
		{"same account and Region", home, 1},
		{"12-digit key of the same account", s.ClientFor("eu-west-1", "210987654321"), 1},
		{"other Region", s.ClientFor("eu-west-2", "AKIAMAPPEDKEY"), 0},
		{"other account", s.ClientFor("eu-west-1", "111122223333"), 0},
		{"default account", s.Client, 0},
	} {
		lt, err := tc.client.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatalf("%s: ListTables: %v", tc.name, err)
		}
		if len(lt.TableNames) != tc.want {
			t.Errorf("%s: ListTables = %v, want %d table(s)", tc.name, lt.TableNames, tc.want)
		}
	}
}

// TestWireStreamsDispatch: the DynamoDB Streams client reaches the Streams
// operations on the same port.
func TestWireStreamsDispatch(t *testing.T) {
	s := testserver.New(t)
	c := dynamodbstreams.NewFromConfig(s.AWSConfig("us-east-1", testserver.DefaultAccessKeyID))
	if _, err := c.ListStreams(context.Background(), &dynamodbstreams.ListStreamsInput{}); err != nil {
		t.Fatalf("ListStreams: %v", err)
	}
}
