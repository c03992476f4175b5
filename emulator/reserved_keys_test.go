package emulator

import (
	"bytes"
	"testing"
)

// TestJobKeysDoNotOverlap: the keys the engine keeps under a table's index
// family for its own use (write stats, backfill, restore and seeding
// cursors) must neither equal nor prefix one another, nor the entries of a
// real index, or one job would read or drop another's state.
func TestJobKeysDoNotOverlap(t *testing.T) {
	id, err := newTableID()
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]byte{
		"stats":           statsRecord{table: id}.key(),
		"backfill cursor": backfillCursorKey(id, 1),
		"restore cursor":  restoreCursorKey(id),
		"seed cursor":     seedCursorKey(id),
		"index 1":         indexPrefix(id, 1),
	}
	for an, a := range keys {
		for bn, b := range keys {
			if an != bn && bytes.HasPrefix(b, a) {
				t.Errorf("the %s key %x is a prefix of the %s key %x", an, a, bn, b)
			}
		}
	}
}
