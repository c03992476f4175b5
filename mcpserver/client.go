package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/internal/awsjson"
)

// The package's own DynamoDB client: JSON 1.0 over HTTP, signed with
// SigV4. aws-sdk-go-v2's service/dynamodb would do the same, but its
// initialisation (schemas, types, endpoint rules) costs every start of
// every extenddb command, the MCP server's or not (issue 36). The few
// operations the tools use need no more than this; what the SDK's client
// did that a caller sees is kept: its retries and the text of its errors.

// target is where one request goes: the Region it names and the
// credentials that sign it (a 12-digit access key picks that account on
// the server).
type target struct {
	region string
	creds  aws.CredentialsProvider
}

// maxAttempts and the base delays are the SDK's DynamoDB client's
// (standard retry mode, with DynamoDB's 4 attempts and 25 ms base), so a
// throttled table is retried as before.
const (
	maxAttempts       = 4
	retryBaseDelay    = 25 * time.Millisecond
	throttleBaseDelay = time.Second
	maxRetryDelay     = 20 * time.Second
	maxResponseBytes  = 64 << 20
)

// call runs the DynamoDB operation op: in is its request (JSON-encoded
// as it is), out receives its response (nil: ignored). A failure is an
// *opError, worded as the SDK's are.
func (s *server) call(ctx context.Context, t target, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return &opError{op: op, err: err}
	}
	for attempt := 1; ; attempt++ {
		err := s.attempt(ctx, t, op, body, out)
		if err == nil {
			return nil
		}
		throttle, retry := retryable(err)
		if !retry {
			return &opError{op: op, err: err}
		}
		if attempt >= maxAttempts {
			return &opError{op: op, err: fmt.Errorf("exceeded maximum number of attempts, %d, %w", attempt, err)}
		}
		select {
		case <-ctx.Done():
			return &opError{op: op, err: fmt.Errorf("request canceled, %w", ctx.Err())}
		case <-time.After(retryDelay(attempt, throttle)):
		}
	}
}

// retryDelay is the SDK's backoff before the retry after attempt: a
// random part of base·2^(attempt-1), at most maxRetryDelay, where base is
// a second for throttling and 25 ms otherwise.
func retryDelay(attempt int, throttle bool) time.Duration {
	base := retryBaseDelay
	if throttle {
		base = throttleBaseDelay
	}
	d := min(base<<(attempt-1), maxRetryDelay)
	return time.Duration(rand.Float64() * float64(d))
}

// attempt sends op once.
func (s *server) attempt(ctx context.Context, t target, op string, body []byte, out any) error {
	u := *s.base
	u.Path += "/"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return &responseError{err: err}
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	creds, err := t.creds.Retrieve(ctx)
	if err != nil {
		return &responseError{err: fmt.Errorf("failed to retrieve credentials: %w", err)}
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "dynamodb", t.region, time.Now()); err != nil {
		return &responseError{err: err}
	}
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return &responseError{err: fmt.Errorf("canceled, %w", ctx.Err()), canceled: true}
		}
		return &responseError{err: fmt.Errorf("request send failed, %w", err), send: true}
	}
	defer resp.Body.Close()
	re := &responseError{status: resp.StatusCode, requestID: resp.Header.Get("X-Amzn-RequestId")}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		re.err = fmt.Errorf("deserialization failed, failed to read response body, %w", err)
		return re
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		re.err = decodeAPIError(resp.Header, b)
		return re
	}
	if out == nil || len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		re.err = fmt.Errorf("deserialization failed, %w", err)
		return re
	}
	return nil
}

// opError is a failed operation, as the SDK words it: "operation error
// DynamoDB: GetItem, https response error StatusCode: 400, RequestID: …,
// ResourceNotFoundException: Requested resource not found".
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	return fmt.Sprintf("operation error DynamoDB: %s, %v", e.op, e.err)
}

func (e *opError) Unwrap() error { return e.err }

// responseError is one attempt's failure: the HTTP status (0 when no
// answer came) and request ID around the cause.
type responseError struct {
	status    int
	requestID string
	err       error
	// send and canceled say the request did not reach an answer: the
	// connection failed, or ctx ended.
	send, canceled bool
}

func (e *responseError) Error() string {
	return fmt.Sprintf("https response error StatusCode: %d, RequestID: %s, %v", e.status, e.requestID, e.err)
}

func (e *responseError) Unwrap() error { return e.err }

// apiError is the server's error answer: its code (the __type without
// its namespace) and message.
type apiError struct {
	code, message string
	// modeled: the code is one of DynamoDB's modeled errors, which the
	// SDK words "Code: message"; others it words "api error Code:
	// message".
	modeled bool
}

func (e *apiError) Error() string {
	if e.modeled {
		return e.code + ": " + e.message
	}
	return "api error " + e.code + ": " + e.message
}

// modeledErrors are the errors DynamoDB's model declares (the SDK's
// types.*Exception); ValidationException, for one, is not among them.
var modeledErrors = map[string]bool{
	"BackupInUseException": true, "BackupNotFoundException": true, "ConditionalCheckFailedException": true,
	"ContinuousBackupsUnavailableException": true, "DuplicateItemException": true, "ExportConflictException": true,
	"ExportNotFoundException": true, "GlobalTableAlreadyExistsException": true, "GlobalTableNotFoundException": true,
	"IdempotentParameterMismatchException": true, "ImportConflictException": true, "ImportNotFoundException": true,
	"IndexNotFoundException": true, "InternalServerError": true, "InvalidEndpointException": true,
	"InvalidExportTimeException": true, "InvalidRestoreTimeException": true, "ItemCollectionSizeLimitExceededException": true,
	"LimitExceededException": true, "PointInTimeRecoveryUnavailableException": true, "PolicyNotFoundException": true,
	"ProvisionedThroughputExceededException": true, "ReplicaAlreadyExistsException": true, "ReplicaNotFoundException": true,
	"ReplicatedWriteConflictException": true, "RequestLimitExceeded": true, "ResourceInUseException": true,
	"ResourceNotFoundException": true, "TableAlreadyExistsException": true, "TableInUseException": true,
	"TableNotFoundException": true, "ThrottlingException": true, "TransactionCanceledException": true,
	"TransactionConflictException": true, "TransactionInProgressException": true,
}

// decodeAPIError reads an error answer as the SDK's JSON protocol does
// (awsjson.ErrorAnswer).
func decodeAPIError(h http.Header, body []byte) error {
	code, message, err := awsjson.ErrorAnswer(h, body)
	if err != nil {
		return fmt.Errorf("deserialization failed, failed to decode response body, %w", err)
	}
	e := &apiError{code: code, message: message, modeled: modeledErrors[code]}
	if e.message == "" && !e.modeled {
		e.message = "UnknownError"
	}
	return e
}

// errorCode is err's DynamoDB error code, "" when it has none.
func errorCode(err error) string {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.code
	}
	return ""
}

// throttleCodes and retryCodes are the codes the SDK's standard retryer
// retries.
var (
	throttleCodes = map[string]bool{
		"Throttling": true, "ThrottlingException": true, "ThrottledException": true, "RequestThrottledException": true,
		"TooManyRequestsException": true, "ProvisionedThroughputExceededException": true, "TransactionInProgressException": true,
		"RequestLimitExceeded": true, "BandwidthLimitExceeded": true, "LimitExceededException": true,
		"RequestThrottled": true, "SlowDown": true, "PriorRequestNotComplete": true, "EC2ThrottledException": true,
	}
	retryCodes = map[string]bool{"RequestTimeout": true, "RequestTimeoutException": true}
)

// retryable says whether the SDK would retry an attempt that failed with
// err, and whether err is throttling (a longer backoff).
func retryable(err error) (throttle, retry bool) {
	var re *responseError
	if !errors.As(err, &re) || re.canceled {
		return false, false
	}
	if re.send {
		return false, connectionError(re.err)
	}
	var ae *apiError
	if errors.As(err, &ae) {
		if throttleCodes[ae.code] || (re.status == http.StatusTooManyRequests && !ae.modeled) {
			return true, true
		}
		if retryCodes[ae.code] {
			return false, true
		}
	}
	switch re.status {
	case 500, 502, 503, 504:
		return false, true
	}
	return false, false
}

// connectionError says whether a failed send is one the SDK retries: a
// refused or reset connection, a failed dial, a timeout.
func connectionError(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	msg := err.Error()
	if strings.Contains(msg, "connection refused") || strings.Contains(msg, "connection reset") || strings.Contains(msg, "use of closed network connection") {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && strings.EqualFold(op.Op, "dial") {
		return true
	}
	var timeout interface{ Timeout() bool }
	return errors.As(err, &timeout) && timeout.Timeout()
}
