package emulator_test

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/pebblestore"
)

type sharedPebble struct{ *pebblestore.Store }

func (sharedPebble) SharedStore() bool { return true }
func (sharedPebble) Close() error      { return nil }

func sharedStore(t *testing.T) func() kv.Store {
	st, err := pebblestore.Open(pebblestore.Options{Dir: "/x", FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return func() kv.Store { return sharedPebble{st} }
}
