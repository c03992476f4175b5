package kinesis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/awsjson"
)

// The Kinesis Data Streams wire protocol: JSON 1.1 over HTTP POST, the
// operation in X-Amz-Target, requests signed with SigV4.
const (
	targetPrefix = "Kinesis_20131202."
	contentType  = "application/x-amz-json-1.1"
	service      = "kinesis"
	// maxResponse bounds what a response may make us buffer; a PutRecords
	// answer for 500 records is well under 100 KB.
	maxResponse = 8 << 20
)

// apiError is an error answer of Kinesis. Code is the error's name without
// its namespace (ResourceNotFoundException,
// ProvisionedThroughputExceededException, ...).
type apiError struct {
	Op, Code, Message, RequestID string
	Status                       int
}

func (e *apiError) Error() string {
	return fmt.Sprintf("kinesis %s: HTTP %d, RequestID: %s, %s: %s", e.Op, e.Status, e.RequestID, e.Code, e.Message)
}

// ErrorCode and ErrorMessage are the methods of smithy.APIError, so
// callers that look for the code the SDK's way still find it.
func (e *apiError) ErrorCode() string    { return e.Code }
func (e *apiError) ErrorMessage() string { return e.Message }

// call sends one request of op, signed for region, and decodes the answer
// into out. It does not retry: the deliverer does, on its own schedule.
func (s *Sink) call(ctx context.Context, region, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("kinesis %s: %w", op, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("kinesis %s: %w", op, err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	sum := sha256.Sum256(body)
	if err := s.signer.SignHTTP(ctx, s.creds, req, hex.EncodeToString(sum[:]), service, region, time.Now()); err != nil {
		return fmt.Errorf("kinesis %s: signing: %w", op, err)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("kinesis %s: %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("kinesis %s: HTTP %d: reading the response: %w", op, resp.StatusCode, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(op, resp, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("kinesis %s: HTTP %d: the response is not JSON (%w): %s", op, resp.StatusCode, err, snippet(data))
	}
	return nil
}

// decodeError reads an error answer the way the SDK does for JSON
// protocols (awsjson.ErrorAnswer).
func decodeError(op string, resp *http.Response, data []byte) error {
	code, message, err := awsjson.ErrorAnswer(resp.Header, data)
	if err != nil {
		return fmt.Errorf("kinesis %s: HTTP %d: %s", op, resp.StatusCode, snippet(data))
	}
	return &apiError{Op: op, Code: code, Message: message, RequestID: resp.Header.Get("X-Amzn-RequestId"), Status: resp.StatusCode}
}

// snippet is the start of a body for an error message.
func snippet(data []byte) string {
	const n = 200
	s := strings.TrimSpace(string(data))
	if len(s) > n {
		s = s[:n] + "..."
	}
	return fmt.Sprintf("%q", s)
}
