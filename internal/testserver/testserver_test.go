package testserver_test

import (
	"errors"
	"testing"

	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/kv"
)

func TestRestartKeepsData(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(t *testing.T) []testserver.Option
	}{
		{"memory", func(*testing.T) []testserver.Option { return nil }},
		{"disk", func(t *testing.T) []testserver.Option {
			return []testserver.Option{testserver.WithDataDir(t.TempDir())}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testserver.New(t, tc.opts(t)...)
			b := s.Store().NewBatch()
			if err := b.Set([]byte("k"), []byte("v")); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(false); err != nil {
				t.Fatal(err)
			}
			_ = b.Close()
			oldEngine := s.Engine()
			s.Restart()
			if s.Engine() == oldEngine {
				t.Fatal("Restart kept the old engine")
			}
			got, err := s.Store().Get([]byte("k"))
			if err != nil || string(got) != "v" {
				t.Fatalf("after restart Get = %q, %v; want v", got, err)
			}
		})
	}
}

func TestSeparateServersAreIsolated(t *testing.T) {
	a := testserver.New(t)
	b := testserver.New(t)
	bt := a.Store().NewBatch()
	_ = bt.Set([]byte("k"), []byte("v"))
	if err := bt.Commit(false); err != nil {
		t.Fatal(err)
	}
	_ = bt.Close()
	if _, err := b.Store().Get([]byte("k")); !errors.Is(err, kv.ErrNotFound) {
		t.Fatalf("second server sees first server's data: %v", err)
	}
}
