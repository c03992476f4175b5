package main

import (
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/extenddb/extenddb/internal/testserver"
)

// TestServeLargeResponses: about 100 KB Query pages, BatchGetItem and
// GetRecords answers, many at once, from the real listener with serve's
// http.Server settings and the on-disk store. The clients tests use never
// fail; the bare SDK client may fail only by its own race
// (internal/testserver's TestSDKBodyCloseRace), each failure checked.
func TestServeLargeResponses(t *testing.T) {
	addr, logs, stop, done := startServe(t, "--data-dir", filepath.Join(t.TempDir(), "d"), "--throttle=off")
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("exit %d\n%s", code, logs.String())
		}
	}()
	newClients := func(hc aws.HTTPClient) (*dynamodb.Client, *dynamodbstreams.Client) {
		cfg := aws.Config{
			Region:           testserver.DefaultRegion,
			BaseEndpoint:     aws.String("http://" + addr),
			Credentials:      credentials.NewStaticCredentialsProvider(testserver.DefaultAccessKeyID, testserver.DefaultSecretKey, ""),
			RetryMaxAttempts: 1,
			HTTPClient:       hc,
		}
		return dynamodb.NewFromConfig(cfg), dynamodbstreams.NewFromConfig(cfg)
	}
	db, st := newClients(testserver.SDKHTTPClient(nil))
	l, err := testserver.SeedLargeResponses(t.Context(), db, st, "big")
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	l.Check(t, rounds, newClients)
	if t.Failed() {
		t.Logf("server log:\n%s", logs.String())
	}
}

// TestIdleTimeoutOutlastsTheSDKs: the server keeps an idle connection
// longer than the Go SDK's transport does, so the client is always the one
// to close it.
func TestIdleTimeoutOutlastsTheSDKs(t *testing.T) {
	if serveIdleTimeout <= awshttp.DefaultHTTPTransportIdleConnTimeout {
		t.Fatalf("idle timeout %s, the SDK's %s", serveIdleTimeout, awshttp.DefaultHTTPTransportIdleConnTimeout)
	}
}
