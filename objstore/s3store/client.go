package s3store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The S3 client: path-style requests signed with SigV4, the few
// operations Store needs. It replaces the SDK's service/s3, whose code and
// endpoint tables every start of the binary paid for (issue 36).

// emptySHA256 is the hex SHA-256 of no bytes, the payload hash of a
// request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// maxAttempts is the SDK standard retryer's: a request is sent at most
// three times.
const maxAttempts = 3

// apiError is an error answer of S3: the code and message of its XML body,
// or, for an answer without one, derived from its status (404 is NotFound).
type apiError struct {
	method, resource string
	status           int
	code, message    string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %s: %s (HTTP %d)", e.method, e.resource, e.code, e.message, e.status)
}

// do sends a request for bucket (and key, unless empty) with query q and
// body, and returns its 2xx answer, whose body the caller closes. What
// the SDK's standard retryer retried (throttling, 5xx, a failed
// connection) is retried, with a jittered exponential wait; anything else
// comes back as the *apiError of the answer or the transport's error.
func (s *Store) do(ctx context.Context, method, bucket, key string, q url.Values, body []byte) (*http.Response, error) {
	u := s.requestURL(bucket, key, q)
	hash := emptySHA256
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		hash = hex.EncodeToString(sum[:])
	}
	resource := bucket
	if key != "" {
		resource += "/" + key
	}
	for attempt := 1; ; attempt++ {
		resp, err := s.send(ctx, method, u, hash, body)
		if err == nil && resp.StatusCode/100 == 2 {
			return resp, nil
		}
		if err == nil {
			err = answerError(method, resource, resp)
		}
		if attempt == maxAttempts || !retryable(ctx, err) {
			return nil, err
		}
		if err := s.wait(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// requestURL is {endpoint}/{bucket}/{key}: path style, so any server
// name works without wildcard DNS. Path holds the names and RawPath their
// S3 encoding, which net/http sends and the signer signs as they are.
func (s *Store) requestURL(bucket, key string, q url.Values) string {
	u := *s.base
	u.Path = strings.TrimSuffix(s.base.Path, "/") + "/" + bucket
	u.RawPath = strings.TrimSuffix(s.base.EscapedPath(), "/") + "/" + escapePath(bucket, false)
	if key != "" {
		u.Path += "/" + key
		u.RawPath += "/" + escapePath(key, true)
	}
	u.RawQuery = q.Encode()
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// send makes one attempt.
func (s *Store) send(ctx context.Context, method, u, hash string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if method == http.MethodPut {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	err = s.signer.SignHTTP(ctx, s.creds, req, hash, "s3", s.region, time.Now(), func(o *v4.SignerOptions) {
		// S3 signs the path as sent, not escaped once more.
		o.DisableURIPathEscaping = true
	})
	if err != nil {
		return nil, err
	}
	// Objects come back as stored: without this net/http would ask for
	// gzip and undo it, losing Content-Length. Set after signing, so a
	// proxy that rewrites it does not break the signature.
	req.Header.Set("Accept-Encoding", "identity")
	return s.hc.Do(req)
}

// answerError reads a non-2xx answer's error and closes its body.
func answerError(method, resource string, resp *http.Response) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("%s %s: HTTP %d: reading the error: %w", method, resource, resp.StatusCode, err)
	}
	e := &apiError{method: method, resource: resource, status: resp.StatusCode}
	if len(bytes.TrimSpace(b)) > 0 {
		// <Error><Code>NoSuchKey</Code><Message>…</Message>…</Error>
		var body struct{ Code, Message string }
		if xml.Unmarshal(b, &body) != nil {
			e.code, e.message = "UnknownError", fmt.Sprintf("an answer that is not S3's XML error: %.200q", b)
			return e
		}
		e.code, e.message = body.Code, body.Message
	}
	if e.code == "" && e.message == "" {
		text := http.StatusText(resp.StatusCode)
		e.code, e.message = strings.ReplaceAll(text, " ", ""), text
	}
	if e.code == "" {
		e.code = "UnknownError"
	}
	return e
}

// retryable says whether err is worth another attempt: the SDK standard
// retryer's statuses and codes, and any failure to send or to read the
// answer, unless ctx is done.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		return true
	}
	switch ae.status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	switch ae.code {
	case "RequestTimeout", "RequestTimeoutException", "SlowDown", "Throttling", "ThrottlingException",
		"RequestThrottled", "RequestThrottledException", "TooManyRequestsException",
		"RequestLimitExceeded", "BandwidthLimitExceeded", "PriorRequestNotComplete":
		return true
	}
	return false
}

// wait sleeps before attempt+1: a random time up to s.backoff doubled
// attempt-1 times, or until ctx is done.
func (s *Store) wait(ctx context.Context, attempt int) error {
	t := time.NewTimer(rand.N(s.backoff<<(attempt-1) + 1))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// decodeXML decodes an answer's XML body into v and closes the body.
func decodeXML(resp *http.Response, v any) error {
	defer discard(resp)
	return xml.NewDecoder(resp.Body).Decode(v)
}

// discard drains a little of an answer's body and closes it, so its
// connection can be reused.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
}
