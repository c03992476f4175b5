package s3store_test

import (
	"net/http/httptest"
	"testing"

	"github.com/extenddb/extenddb/objstore/objstoretest"
	"github.com/extenddb/extenddb/objstore/s3store"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestConformance runs the suite against a real S3 protocol server
// (gofakes3) started in-process.
func TestConformance(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	s, err := s3store.New(s3store.Options{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	objstoretest.Conformance(t, s, "bkt")
}
