package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
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
	// HTTPClient defaults to the SDK's.
	HTTPClient *http.Client
}

// Store is an objstore.Store over an S3 endpoint.
type Store struct {
	c *s3.Client
}

var _ objstore.Store = (*Store)(nil)

// New returns a Store for opts.
func New(opts Options) (*Store, error) {
	if opts.Endpoint == "" {
		return nil, errors.New("s3store: Endpoint is required")
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.AccessKeyID == "" {
		opts.AccessKeyID, opts.SecretAccessKey = "test", "test"
	}
	cfg := aws.Config{
		Region:      opts.Region,
		Credentials: credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, ""),
		// Checksums only where S3 requires them: many S3-compatible
		// servers do not understand the SDK's default aws-chunked CRC32
		// trailers.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if opts.HTTPClient != nil {
		cfg.HTTPClient = opts.HTTPClient
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(opts.Endpoint)
		o.UsePathStyle = true
	})
	return &Store{c: c}, nil
}

// mapErr turns S3's error codes into objstore's sentinels.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
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
	out, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key,
		Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data)))})
	if err != nil {
		return "", mapErr(err)
	}
	if out.ETag != nil {
		return *out.ETag, nil
	}
	return objstore.ETag(data), nil
}

// Get downloads an object.
func (s *Store) Get(ctx context.Context, bucket, key string) ([]byte, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return nil, mapErr(err)
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

// Open starts a GetObject and hands its body over as it arrives.
func (s *Store) Open(ctx context.Context, bucket, key string) (io.ReadCloser, int64, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return nil, 0, mapErr(err)
	}
	return out.Body, aws.ToInt64(out.ContentLength), nil
}

// List pages through ListObjectsV2.
func (s *Store) List(ctx context.Context, bucket, prefix string) ([]string, error) {
	var keys []string
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, mapErr(err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys, nil
}

// Delete removes an object.
func (s *Store) Delete(ctx context.Context, bucket, key string) error {
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &key})
	return mapErr(err)
}
