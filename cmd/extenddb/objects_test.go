package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/objstore"
	"github.com/extenddb/extenddb/objstore/s3store"
	"github.com/rs/zerolog"
)

func TestOpenObjects(t *testing.T) {
	log := zerolog.Nop()
	data := t.TempDir()
	cfg := newServeConfig(env("HOME", "/h"))
	cfg.dataDir = data

	// Default: a folder under the data directory, created.
	s, cleanup, err := openObjects(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if d, ok := s.(objstore.Dir); !ok || d.Root != filepath.Join(data, "s3") {
		t.Errorf("default store %#v", s)
	}
	if st, err := os.Stat(filepath.Join(data, "s3")); err != nil || !st.IsDir() {
		t.Errorf("DATA-DIR/s3 not created: %v", err)
	}

	// --s3-dir.
	cfg.s3Dir = filepath.Join(t.TempDir(), "x")
	s, _, err = openObjects(cfg, log)
	if d, ok := s.(objstore.Dir); err != nil || !ok || d.Root != cfg.s3Dir {
		t.Errorf("--s3-dir store %#v, %v", s, err)
	}

	// --in-memory: a temporary folder, removed by cleanup.
	cfg.s3Dir, cfg.inMemory = "", true
	s, cleanup, err = openObjects(cfg, log)
	d, ok := s.(objstore.Dir)
	if err != nil || !ok {
		t.Fatalf("--in-memory store %#v, %v", s, err)
	}
	cleanup()
	if _, err := os.Stat(d.Root); !os.IsNotExist(err) {
		t.Errorf("the temporary folder %s outlived cleanup: %v", d.Root, err)
	}

	// --s3-endpoint wins.
	cfg.s3Endpoint = "http://127.0.0.1:9"
	s, _, err = openObjects(cfg, log)
	if _, ok := s.(*s3store.Store); err != nil || !ok {
		t.Errorf("--s3-endpoint store %#v, %v", s, err)
	}
}
