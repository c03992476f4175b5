package emulator

import (
	"context"
	"strconv"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/pebblestore"
)

// TestBatchWriteSyncSurvivesPowerCut: with Sync, BatchWriteItem's items
// share one fsync, and every item acknowledged is in what a power cut
// leaves (a crash clone holds only synced data).
func TestBatchWriteSyncSurvivesPowerCut(t *testing.T) {
	fs := vfs.NewCrashableMem()
	open := func(fs vfs.FS) (*Engine, *pebblestore.Store) {
		st, err := pebblestore.Open(pebblestore.Options{FS: fs, Dir: "db", WALFlushInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(Options{Store: st, Sync: true, Throttle: ThrottleOptions{Off: true}, TTLInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		return e, st
	}
	e, st := open(fs)
	ctx := context.Background()
	if _, err := e.CreateTable(ctx, testNS, simpleTable("bws")); err != nil {
		t.Fatal(err)
	}
	reqs := make([]api.WriteRequest, 25)
	for i := range reqs {
		reqs[i] = api.WriteRequest{PutRequest: &api.PutRequest{Item: av.Item{"pk": avS(strconv.Itoa(i))}}}
	}
	if _, err := e.BatchWriteItem(ctx, testNS, &api.BatchWriteItemInput{RequestItems: map[string][]api.WriteRequest{"bws": reqs}}); err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	_ = e.Close()
	_ = st.Close()
	e2, st2 := open(crashed)
	defer func() { _ = e2.Close(); _ = st2.Close() }()
	for i := range reqs {
		out, err := e2.GetItem(ctx, testNS, &api.GetItemInput{TableName: sp("bws"), Key: av.Item{"pk": avS(strconv.Itoa(i))}})
		if err != nil || out.Item == nil {
			t.Fatalf("item %d lost after a power cut: %v", i, err)
		}
	}
}
