package objstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/objstore/objstoretest"
)

func TestDirConformance(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	objstoretest.Conformance(t, objstore.Dir{Root: root}, "bkt")
	// A key is a path under the bucket's folder.
	if _, err := os.Stat(filepath.Join(root, "bkt", "p", "AWSDynamoDB", "x", "data", "a.json.gz")); err != nil {
		t.Errorf("object file: %v", err)
	}
}

func TestDirRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bkt"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := objstore.Dir{Root: root}
	for _, k := range []string{"../x", "a/../../x", "a//b", "/abs"} {
		if _, err := d.Put(context.Background(), "bkt", k, nil); !errors.Is(err, objstore.ErrAccessDenied) {
			t.Errorf("Put %q: %v, want ErrAccessDenied", k, err)
		}
	}
	for _, b := range []string{"..", "a/b", ""} {
		if _, err := d.Put(context.Background(), b, "k", nil); !errors.Is(err, objstore.ErrNoSuchBucket) {
			t.Errorf("Put to bucket %q: %v, want ErrNoSuchBucket", b, err)
		}
	}
}
