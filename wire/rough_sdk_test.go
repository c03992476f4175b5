package wire_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

// TestOversizedRequestSDK: a request over 16 MB is refused with 413 and
// an error the SDK shows with the limit in its message, and a log line;
// the SDK does not retry it.
func TestOversizedRequestSDK(t *testing.T) {
	fronts(t, func(t *testing.T, opts ...testserver.Option) {
		var l doneLog
		s := testserver.New(t, append(opts, testserver.WithWireOptions(l.options))...)
		big := strings.Repeat("x", 700<<10)
		var reqs []types.WriteRequest
		for i := range 25 {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: strings.Repeat("k", i+1)}, "v": &types.AttributeValueMemberS{Value: big},
			}}})
		}
		_, err := s.Client.BatchWriteItem(s.Context(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Orders": reqs}})
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != wire.CodeRequestEntityTooLarge || !strings.Contains(ae.ErrorMessage(), "16 MB") {
			t.Fatalf("err = %v, want %s naming the 16 MB limit", err, wire.CodeRequestEntityTooLarge)
		}
		var re *awshttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusRequestEntityTooLarge || re.ServiceRequestID() == "" {
			t.Fatalf("err = %v, want HTTP 413 with a request ID", err)
		}
		l.mu.Lock()
		log := l.log.String()
		l.mu.Unlock()
		if strings.Count(log, "refused: Request body of") != 1 || !strings.Contains(log, `"target":"DynamoDB_20120810.BatchWriteItem"`) {
			t.Errorf("want one refusal log line naming the target; log:\n%s", log)
		}
		if d, ok := l.find("BatchWriteItem", ""); !ok || d.Status != http.StatusRequestEntityTooLarge || d.ErrorCode != wire.CodeRequestEntityTooLarge {
			t.Errorf("OnRequest: %+v, %v", d, ok)
		}
	})
}

// TestUnusualBodiesLogged: a missing Content-Type (served as JSON), one
// DynamoDB does not accept (404, as DynamoDB answers) and a body that is
// not JSON keep their answers and are logged with the reason.
func TestUnusualBodiesLogged(t *testing.T) {
	var l doneLog
	s := testserver.New(t, testserver.WithWireOptions(l.options))
	post := func(contentType, body string) int {
		req, err := http.NewRequestWithContext(s.Context(), http.MethodPost, s.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("", `{}`); got != http.StatusOK {
		t.Errorf("no Content-Type: %d, want 200", got)
	}
	if got := post("text/plain", `{}`); got != http.StatusNotFound {
		t.Errorf("text/plain: %d, want 404", got)
	}
	if got := post("application/x-amz-json-1.0", `{not json`); got != http.StatusBadRequest {
		t.Errorf("not JSON: %d, want 400", got)
	}
	l.mu.Lock()
	log := l.log.String()
	l.mu.Unlock()
	for _, want := range []string{
		`"reason":"no Content-Type: the body is read as application/x-amz-json-1.0"`,
		`"contentType":"text/plain"`,
		`"reason":"the request body is not JSON"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no %s:\n%s", want, log)
		}
	}
}
