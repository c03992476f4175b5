package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// tmpPrefix marks a Put's file before its rename; List skips it, so a
// half-written object is never seen.
const tmpPrefix = ".extenddb-tmp-"

// Dir is a Store over a folder: bucket B is the folder Root/B (it must
// exist: a missing folder is ErrNoSuchBucket, as a missing bucket is on
// S3) and key K the file Root/B/K.
type Dir struct {
	Root string
}

// path resolves bucket and key to a file, refusing what would leave the
// bucket's folder.
func (d Dir) path(bucket, key string) (dir, file string, err error) {
	if bucket == "" || bucket == "." || bucket == ".." || strings.ContainsAny(bucket, `/\`) {
		return "", "", ErrNoSuchBucket
	}
	dir = filepath.Join(d.Root, bucket)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", "", ErrNoSuchBucket
	}
	if key == "" {
		return dir, "", nil
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == ".." || seg == "." || seg == "" || strings.HasPrefix(seg, tmpPrefix) {
			return "", "", ErrAccessDenied
		}
	}
	return dir, filepath.Join(dir, filepath.FromSlash(key)), nil
}

// Put writes data to a temporary file and renames it into place, so a
// reader sees the whole object or none.
func (d Dir) Put(_ context.Context, bucket, key string, data []byte) (string, error) {
	_, file, err := d.path(bucket, key)
	if err != nil {
		return "", err
	}
	if file == "" {
		return "", ErrAccessDenied
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(filepath.Dir(file), tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), file)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return "", werr
	}
	return ETag(data), nil
}

// Get reads an object.
func (d Dir) Get(_ context.Context, bucket, key string) ([]byte, error) {
	_, file, err := d.path(bucket, key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) || (err != nil && isDir(file)) || file == "" {
		return nil, ErrNoSuchKey
	}
	return b, err
}

// Open opens an object's file.
func (d Dir) Open(_ context.Context, bucket, key string) (io.ReadCloser, int64, error) {
	_, file, err := d.path(bucket, key)
	if err != nil {
		return nil, 0, err
	}
	if file == "" {
		return nil, 0, ErrNoSuchKey
	}
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, ErrNoSuchKey
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = ErrNoSuchKey
	}
	if err != nil {
		_ = f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// List walks the bucket's folder.
func (d Dir) List(_ context.Context, bucket, prefix string) ([]string, error) {
	dir, _, err := d.path(bucket, "")
	if err != nil {
		return nil, err
	}
	var keys []string
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || strings.HasPrefix(e.Name(), tmpPrefix) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
		return nil
	})
	sort.Strings(keys)
	return keys, err
}

// Delete removes an object.
func (d Dir) Delete(_ context.Context, bucket, key string) error {
	_, file, err := d.path(bucket, key)
	if err != nil {
		return err
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
