package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// nsThird is a third Region of nsA's account.
var nsThird = api.Namespace{Account: nsA.Account, Region: "ap-northeast-1"}

// TestReplicationConvergesThreeRegions: two writers in each of three
// Regions on 12 shared keys, with puts, UpdateItem (SET and ADD), deletes
// and two-item TransactWriteItems, while the applier runs and the clock
// creeps forward (so timestamps differ and also tie). After quiescence
// every Region holds the same items with the same versions, each item is
// the post-image of a write some Region acknowledged (its tag names the
// Region its version says won), a key is absent only if a delete of it was
// acknowledged, and no change is left queued.
func TestReplicationConvergesThreeRegions(t *testing.T) {
	te := globalEngine(t, 0)
	ctx := context.Background()
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("gtab"), ReplicaUpdates: createReplica(nsThird.Region)}); err != nil {
		t.Fatal(err)
	}
	te.settle(t)
	regions := []api.Namespace{nsA, nsB, nsThird}
	for _, ns := range regions {
		if d := te.describeT(ns, "gtab"); len(d.Replicas) != 2 {
			t.Fatalf("%s: Replicas %+v, want the two others", ns.Region, d.Replicas)
		}
	}

	canon := func(it av.Item) string {
		b, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var mu sync.Mutex
	acked := map[string]map[string]bool{} // pk → post-images acknowledged
	deleted := map[string]bool{}          // pk → a delete was acknowledged
	ack := func(pk string, post av.Item) {
		mu.Lock()
		defer mu.Unlock()
		if post == nil {
			deleted[pk] = true
			return
		}
		if acked[pk] == nil {
			acked[pk] = map[string]bool{}
		}
		acked[pk][canon(post)] = true
	}

	stop := make(chan struct{})
	var ticks sync.WaitGroup
	ticks.Add(1)
	go func() { // the clock creeps, so some writes tie and some do not
		defer ticks.Done()
		for {
			select {
			case <-stop:
				return
			default:
				te.clock.Add(time.Microsecond)
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	const keys = 12
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	for w := range 6 {
		ns := regions[w%3]
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range 250 {
				pk := "k" + strconv.Itoa(r.IntN(keys))
				tag := fmt.Sprintf("%s/%d/%d", ns.Region, w, i)
				var err error
				switch op := r.IntN(10); {
				case op < 3:
					it := av.Item{"pk": avS(pk), "v": avS(tag), "n": avN("1")}
					if _, err = te.PutItem(ctx, ns, &api.PutItemInput{TableName: sp("gtab"), Item: it}); err == nil {
						ack(pk, it)
					}
				case op < 6:
					var out *api.WriteItemOutput
					out, err = te.UpdateItem(ctx, ns, &api.UpdateItemInput{TableName: sp("gtab"), Key: av.Item{"pk": avS(pk)},
						UpdateExpression: sp("SET v = :v ADD n :one"), ReturnValues: sp("ALL_NEW"),
						ExpressionAttributeValues: map[string]av.Value{":v": avS(tag), ":one": avN("1")}})
					if err == nil {
						ack(pk, out.Attributes)
					}
				case op < 8:
					if _, err = te.DeleteItem(ctx, ns, &api.DeleteItemInput{TableName: sp("gtab"), Key: av.Item{"pk": avS(pk)}}); err == nil {
						ack(pk, nil)
					}
				default:
					other := "k" + strconv.Itoa((r.IntN(keys-1)+1+int(pk[1]-'0'))%keys)
					if other == pk {
						other = pk + "x"
					}
					it := av.Item{"pk": avS(pk), "v": avS(tag + "/tx"), "n": avN("7")}
					_, err = te.TransactWriteItems(ctx, ns, &api.TransactWriteItemsInput{TransactItems: []api.TransactWriteItem{
						{Put: &api.TransactPut{TableName: sp("gtab"), Item: it}},
						{Delete: &api.TransactDelete{TableName: sp("gtab"), Key: av.Item{"pk": avS(other)}}},
					}})
					switch {
					case err == nil:
						ack(pk, it)
						ack(other, nil)
					case errors.Is(err, &api.Error{Code: api.CodeTransactionCanceled}), errors.Is(err, &api.Error{Code: api.CodeTransactionConflict}):
						conflicts.Add(1) // not acknowledged: it changed nothing
						err = nil
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	ticks.Wait()
	te.settle(t)

	var first map[string]string
	var firstVersions map[string]string
	for _, ns := range regions {
		out, err := te.Scan(ctx, ns, &api.ScanInput{TableName: sp("gtab"), ConsistentRead: bl(true)})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, it := range out.Items {
			got[it["pk"].S] = canon(it)
		}
		pks := make([]string, 0, len(got))
		for pk := range got {
			pks = append(pks, pk)
		}
		versions := te.versions(t, ns, pks)
		if first == nil {
			first, firstVersions = got, versions
		} else {
			if fmt.Sprint(got) != fmt.Sprint(first) {
				t.Errorf("%s diverged from %s:\n%v\n%v", ns.Region, regions[0].Region, got, first)
			}
			if fmt.Sprint(versions) != fmt.Sprint(firstVersions) {
				t.Errorf("%s item versions differ from %s's", ns.Region, regions[0].Region)
			}
		}
		if d := te.describeT(ns, "gtab"); d.ItemCount != int64(len(got)) {
			t.Errorf("%s: ItemCount %d, items %d", ns.Region, d.ItemCount, len(got))
		}
	}
	for pk, c := range first {
		if !acked[pk][c] {
			t.Errorf("%s = %s, which no Region acknowledged", pk, c)
		}
		var it map[string]struct{ S string }
		_ = json.Unmarshal([]byte(c), &it)
		if v := firstVersions["pk:"+pk]; !strings.HasPrefix(it["v"].S, v+"/") {
			t.Errorf("%s = %s, but its version says %q won", pk, c, v)
		}
	}
	for pk := range acked {
		if _, ok := first[pk]; !ok && !deleted[pk] {
			t.Errorf("%s lost: no delete of it was acknowledged", pk)
		}
	}
	if n := countKeys(t, te.store, []byte{famOutbox}); n != 0 {
		t.Errorf("%d changes left queued", n)
	}
	t.Logf("%d items; %d transactions cancelled by conflicts", len(first), conflicts.Load())
}

// versions returns the version (ts@origin Region) of each key of "gtab"
// in ns that has one, and the origin Region alone under "pk:" + pk for
// each of pks.
func (te *testEngine) versions(t *testing.T, ns api.Namespace, pks []string) map[string]string {
	t.Helper()
	te.mu.RLock()
	tm := te.lookup(ns, "gtab", te.now())
	te.mu.RUnlock()
	p := versionPrefix(tm.ID)
	it, err := te.store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[string]string{}
	for ok := it.First(); ok; ok = it.Next() {
		v := it.Value()
		out[string(it.Key()[len(p):])] = fmt.Sprintf("%x@%s", v[:8], v[8:])
	}
	for _, pk := range pks {
		v, err := readVersion(te.store, itemKey(tm, av.Item{"pk": avS(pk)}))
		if err != nil {
			t.Fatal(err)
		}
		out["pk:"+pk] = v.region
	}
	return out
}
