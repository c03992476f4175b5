package emulator

import (
	"bytes"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"testing"
	"time"
)

// TestJobKeysDoNotOverlap: the keys the engine keeps under a table's index
// family for its own use (write stats, backfill, restore and seeding
// cursors) must neither equal nor prefix one another, nor the entries of a
// real index, or one job would read or drop another's state.
func TestJobKeysDoNotOverlap(t *testing.T) {
	id, err := keyspace.NewTableID()
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]byte{
		"stats":           statsRecord{table: id}.key(),
		"backfill cursor": backfillCursorKey(id, 1),
		"restore cursor":  restoreCursorKey(id),
		"seed cursor":     seedCursorKey(id),
		"index 1":         keyspace.IndexPrefix(id, 1),
	}
	for an, a := range keys {
		for bn, b := range keys {
			if an != bn && bytes.HasPrefix(b, a) {
				t.Errorf("the %s key %x is a prefix of the %s key %x", an, a, bn, b)
			}
		}
	}
}

// TestKeyFamiliesDistinct: every key family of keyspace/keys.go has its own tag,
// or two features would read each other's keys.
func TestKeyFamiliesDistinct(t *testing.T) {
	fams := map[string]byte{
		"meta": keyspace.FamMeta, "item": keyspace.FamItem, "index": keyspace.FamIndex, "stream": keyspace.FamStream,
		"version": famVersion, "outbox": famOutbox, "kinesis": famKinesis,
		"backup": famBackup, "backup data": famBackupData, "pitr": famPITR,
		"export": famExport, "import": famImport, "token": famToken,
		"bulk operation": famBulkOp, "bulk report": famBulkReport,
	}
	seen := map[byte]string{}
	for name, f := range fams {
		if other, ok := seen[f]; ok {
			t.Errorf("families %s and %s share the tag %q", name, other, f)
		}
		seen[f] = name
	}
}

// TestNewReplicaTableHasNoPolicies: the stream policies too start empty
// (the SDK test cannot see a copied one, as the replica's stream has
// another label, but a later label clash would expose it).
func TestNewReplicaTableHasNoPolicies(t *testing.T) {
	src := &tableMeta{Region: nsA.Region, Name: "t", tableAccess: tableAccess{ResourcePolicy: "{}",
		Policy: &resourcePolicy{Doc: "{}"}, StreamPolicies: map[string]*resourcePolicy{"l": {Doc: "{}"}}}}
	rt, err := newReplicaTable(src, nsB.Region, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if rt.ResourcePolicy != "" || rt.Policy != nil || rt.StreamPolicies != nil {
		t.Errorf("new replica policies %q %+v %+v, want none", rt.ResourcePolicy, rt.Policy, rt.StreamPolicies)
	}
}
