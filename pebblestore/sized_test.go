package pebblestore

import (
	"fmt"
	"testing"
)

// TestNewBatchSized: a batch made with room up front takes more than that
// room and commits like any other.
func TestNewBatchSized(t *testing.T) {
	s, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatchSized(64)
	for i := range 100 {
		if err := b.Set(fmt.Appendf(nil, "k%03d", i), []byte("value")); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get([]byte("k099")); err != nil || string(v) != "value" {
		t.Fatalf("Get after a sized batch: %q %v", v, err)
	}
}
