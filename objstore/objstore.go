package objstore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
)

// Store holds objects in buckets. Keys are S3 keys ("a/b/c.json.gz").
// Implementations are safe for concurrent use.
type Store interface {
	// Put writes data under key and returns the object's ETag (quoted hex
	// MD5 for a single-part upload, as S3 gives it).
	Put(ctx context.Context, bucket, key string, data []byte) (etag string, err error)
	// Get reads an object.
	Get(ctx context.Context, bucket, key string) ([]byte, error)
	// Open opens an object to read as a stream, and gives its size: a
	// reader of a large object holds a buffer, not the object. The caller
	// closes it.
	Open(ctx context.Context, bucket, key string) (io.ReadCloser, int64, error)
	// List returns the keys starting with prefix, in S3's (bytewise) order.
	List(ctx context.Context, bucket, prefix string) ([]string, error)
	// Delete removes an object; deleting a missing key is no error (as S3).
	Delete(ctx context.Context, bucket, key string) error
}

var (
	// ErrNoSuchBucket is a bucket that does not exist (S3's NoSuchBucket).
	ErrNoSuchBucket = errors.New("objstore: the specified bucket does not exist")
	// ErrNoSuchKey is a missing object (S3's NoSuchKey).
	ErrNoSuchKey = errors.New("objstore: the specified key does not exist")
	// ErrAccessDenied is a bucket or key the store may not use.
	ErrAccessDenied = errors.New("objstore: access denied")
)

// ETag is the ETag S3 gives a single-part object: its quoted hex MD5.
func ETag(data []byte) string {
	sum := md5.Sum(data)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}
