package sdkhttp

import (
	"bytes"
	"io"
	"net/http"
)

// Client hands net/http a private copy of each request body.
//
// Without it the real client sometimes fails on a large response with
// "read tcp ...: use of closed network connection", and the server is not
// involved (internal/testserver's TestSDKBodyCloseRace makes it happen
// every time):
//
//  1. smithy-go wraps the body in a safeReadCloser, a type net/http does not
//     know to be in memory, so the transport flushes the headers first and
//     copies the body straight to the socket: the server has the whole
//     request before the transport's write loop is done with it.
//  2. After ContentLength bytes the write loop copies the rest of the body
//     to io.Discard, to catch a body longer than declared.
//  3. Meanwhile the server may answer, the client's Do return, and smithy's
//     ClientHandler close the request body. A closed safeReadCloser's
//     WriteTo returns io.EOF (not 0, nil), which io.Copy passes on, so the
//     write loop takes the request as failed and closes the connection:
//     the response still being read on it fails. A response that already
//     sits in the client's 4 KB read buffer is unharmed, hence "large".
//
// The SDK's default retryer retries the error (net.ErrClosed), which sends
// a request the server has already applied a second time (an ADD counts
// twice). A private *bytes.Reader is one net/http knows, is never closed by
// the SDK and returns 0, nil at its end: the copy removes the race without
// retrying anything. (aws-sdk-go-v2 #1825, #2737; the SDK's answer was the
// retry, #2949.)
type Client struct{ c *http.Client }

// OwnedBody returns c as an aws-sdk-go-v2 HTTP client (the HTTPClient of
// aws.Config) that hands net/http a private copy of each request body. A
// nil c is http.DefaultClient.
func OwnedBody(c *http.Client) Client {
	if c == nil {
		c = http.DefaultClient
	}
	return Client{c}
}

// Do implements the SDK's HTTPClient.
func (o Client) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return o.c.Do(req)
}
