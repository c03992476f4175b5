package objstoretest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/extenddb/extenddb/objstore"
)

// Conformance runs the behaviour every Store must have against s, which
// holds an empty bucket named bucket and no bucket named "missing-bucket".
func Conformance(t *testing.T, s objstore.Store, bucket string) {
	t.Helper()
	ctx := context.Background()
	etag, err := s.Put(ctx, bucket, "p/AWSDynamoDB/x/data/a.json.gz", []byte("hello"))
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if etag != objstore.ETag([]byte("hello")) {
		t.Errorf("ETag = %s, want %s", etag, objstore.ETag([]byte("hello")))
	}
	if _, err := s.Put(ctx, bucket, "p/b", nil); err != nil {
		t.Fatalf("Put empty: %v", err)
	}
	if _, err := s.Put(ctx, bucket, "q", []byte("q")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, err := s.Get(ctx, bucket, "p/AWSDynamoDB/x/data/a.json.gz")
	if err != nil || string(got) != "hello" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	rc, size, err := s.Open(ctx, bucket, "p/AWSDynamoDB/x/data/a.json.gz")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	streamed, err := io.ReadAll(rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil || string(streamed) != "hello" || size != 5 {
		t.Errorf("Open = %q of size %d, %v; want hello of 5", streamed, size, err)
	}
	if _, _, err := s.Open(ctx, bucket, "nope"); !errors.Is(err, objstore.ErrNoSuchKey) {
		t.Errorf("Open missing key: %v, want objstore.ErrNoSuchKey", err)
	}
	if _, _, err := s.Open(ctx, "missing-bucket", "k"); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("Open in a missing bucket: %v, want objstore.ErrNoSuchBucket", err)
	}
	keys, err := s.List(ctx, bucket, "p/")
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(keys) != 2 || keys[0] != "p/AWSDynamoDB/x/data/a.json.gz" || keys[1] != "p/b" {
		t.Errorf("List(p/) = %q", keys)
	}
	all, err := s.List(ctx, bucket, "")
	if err != nil || len(all) != 3 {
		t.Errorf("List() = %q, %v", all, err)
	}
	if _, err := s.Get(ctx, bucket, "nope"); !errors.Is(err, objstore.ErrNoSuchKey) {
		t.Errorf("Get missing key: %v, want objstore.ErrNoSuchKey", err)
	}
	if _, err := s.Put(ctx, "missing-bucket", "k", []byte("x")); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("Put to a missing bucket: %v, want objstore.ErrNoSuchBucket", err)
	}
	if _, err := s.List(ctx, "missing-bucket", ""); !errors.Is(err, objstore.ErrNoSuchBucket) {
		t.Errorf("List of a missing bucket: %v, want objstore.ErrNoSuchBucket", err)
	}
	if err := s.Delete(ctx, bucket, "q"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, bucket, "q"); !errors.Is(err, objstore.ErrNoSuchKey) {
		t.Errorf("Get after Delete: %v", err)
	}
}
