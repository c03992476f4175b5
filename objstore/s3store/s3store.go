package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/objstore"
)

// Options configures a Store.
type Options struct {
	// Endpoint is the server's URL (http://127.0.0.1:9000). Required.
	Endpoint string
	// Region defaults to us-east-1.
	Region string
	// AccessKeyID and SecretAccessKey sign requests; empty means "test"
	// and "test", which local S3 servers accept.
	AccessKeyID, SecretAccessKey string
	// HTTPClient defaults to a client of the Store's own, over a copy of
	// http.DefaultTransport that keeps up to 10 idle connections to the
	// endpoint (as the SDK's default client did).
	HTTPClient *http.Client
}

// Store is an objstore.Store over an S3 endpoint.
type Store struct {
	base   *url.URL // the endpoint; its path, if any, prefixes every request's
	region string
	creds  aws.Credentials
	hc     *http.Client
	signer *v4.Signer
	// pageSize is a List page's max-keys, 0 for the server's default
	// (1,000 on S3); tests make it small to see several pages.
	pageSize int
	// backoff is the most the first retry waits; it doubles each attempt.
	backoff time.Duration
}

var _ objstore.Store = (*Store)(nil)

// New returns a Store for opts.
func New(opts Options) (*Store, error) {
	if opts.Endpoint == "" {
		return nil, errors.New("s3store: Endpoint is required")
	}
	base, err := url.Parse(opts.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("s3store: Endpoint: %w", err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("s3store: Endpoint %q is not an http or https URL", opts.Endpoint)
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.AccessKeyID == "" {
		opts.AccessKeyID, opts.SecretAccessKey = "test", "test"
	}
	hc := opts.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Every request goes to one host: net/http's default of 2 idle
		// connections per host would close and reopen connections under
		// concurrent puts.
		t.MaxIdleConnsPerHost = 10
		hc = &http.Client{Transport: t}
	}
	return &Store{
		base:    base,
		region:  opts.Region,
		creds:   aws.Credentials{AccessKeyID: opts.AccessKeyID, SecretAccessKey: opts.SecretAccessKey},
		hc:      hc,
		signer:  v4.NewSigner(),
		backoff: time.Second,
	}, nil
}

// mapErr turns S3's error codes into objstore's sentinels. NotFound and
// Forbidden are the codes of an answer without a body (derived from its
// status, as the SDK did).
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var ae *apiError
	if errors.As(err, &ae) {
		switch ae.code {
		case "NoSuchBucket":
			return objstore.ErrNoSuchBucket
		case "NoSuchKey", "NotFound":
			return objstore.ErrNoSuchKey
		case "AccessDenied", "Forbidden":
			return objstore.ErrAccessDenied
		}
	}
	return fmt.Errorf("s3store: %w", err)
}

// Put uploads data in one PutObject.
func (s *Store) Put(ctx context.Context, bucket, key string, data []byte) (string, error) {
	if err := checkNames(bucket, key, true); err != nil {
		return "", err
	}
	resp, err := s.do(ctx, http.MethodPut, bucket, key, nil, data)
	if err != nil {
		return "", mapErr(err)
	}
	discard(resp)
	if etag := resp.Header.Get("ETag"); etag != "" {
		return etag, nil
	}
	return objstore.ETag(data), nil
}

// Get downloads an object.
func (s *Store) Get(ctx context.Context, bucket, key string) ([]byte, error) {
	if err := checkNames(bucket, key, true); err != nil {
		return nil, err
	}
	resp, err := s.do(ctx, http.MethodGet, bucket, key, nil, nil)
	if err != nil {
		return nil, mapErr(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("s3store: reading %s/%s: %w", bucket, key, err)
	}
	return b, nil
}

// Open starts a GetObject and hands its body over as it arrives.
func (s *Store) Open(ctx context.Context, bucket, key string) (io.ReadCloser, int64, error) {
	if err := checkNames(bucket, key, true); err != nil {
		return nil, 0, err
	}
	resp, err := s.do(ctx, http.MethodGet, bucket, key, nil, nil)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	// S3 always sends Content-Length here; without one the size is 0, as
	// the SDK gave it.
	return resp.Body, max(resp.ContentLength, 0), nil
}

// listPage is the part of a ListObjectsV2 answer List reads.
type listPage struct {
	Contents []struct {
		Key string
	}
	IsTruncated           bool
	NextContinuationToken string
}

// List pages through ListObjectsV2.
func (s *Store) List(ctx context.Context, bucket, prefix string) ([]string, error) {
	if err := checkNames(bucket, "", false); err != nil {
		return nil, err
	}
	var keys []string
	token := ""
	for {
		q := url.Values{"list-type": {"2"}, "prefix": {prefix}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		if s.pageSize > 0 {
			q.Set("max-keys", strconv.Itoa(s.pageSize))
		}
		resp, err := s.do(ctx, http.MethodGet, bucket, "", q, nil)
		if err != nil {
			return nil, mapErr(err)
		}
		var page listPage
		err = decodeXML(resp, &page)
		if err != nil {
			return nil, fmt.Errorf("s3store: listing %s: %w", bucket, err)
		}
		for _, c := range page.Contents {
			keys = append(keys, c.Key)
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			return keys, nil
		}
		if page.NextContinuationToken == token {
			// A server that hands the same token back would loop forever.
			return nil, fmt.Errorf("s3store: listing %s: the server repeated continuation token %q", bucket, token)
		}
		token = page.NextContinuationToken
	}
}

// Delete removes an object.
func (s *Store) Delete(ctx context.Context, bucket, key string) error {
	if err := checkNames(bucket, key, true); err != nil {
		return err
	}
	resp, err := s.do(ctx, http.MethodDelete, bucket, key, nil, nil)
	if err != nil {
		return mapErr(err)
	}
	discard(resp)
	return nil
}

// checkNames refuses what the SDK refused before sending: an empty bucket
// or key would address another resource (the bucket, the service).
func checkNames(bucket, key string, wantKey bool) error {
	if bucket == "" {
		return errors.New("s3store: the bucket name must not be empty")
	}
	if wantKey && key == "" {
		return errors.New("s3store: the key must not be empty")
	}
	return nil
}

// escapePath is S3's URI encoding of a path: every byte but the unreserved
// ones (A-Z a-z 0-9 - . _ ~) as %XX, and '/' too unless keepSlash (a key's
// slashes stay; a bucket name has none to keep). It is the form both the
// request line and the signature's canonical URI take.
func escapePath(s string, keepSlash bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/' && keepSlash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
