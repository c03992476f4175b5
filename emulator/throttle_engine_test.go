package emulator

import (
	"context"
	"strconv"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/throttle"
)

// thrS is a string attribute value.
func thrS(s string) av.Value { return av.Value{Type: av.TypeS, S: s} }

// TestPartitionOf: every key of one partition key value (any sort key, and
// a Query's partition prefix) shares one bucket; other values, index keys
// and Scan do not.
func TestPartitionOf(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreate(nsA, &api.CreateTableInput{
		TableName: sp("ranged"), AttributeDefinitions: attrs("pk", "S", "sk", "S", "g", "S"),
		KeySchema: keys("pk", "HASH", "sk", "RANGE"), BillingMode: sp("PAY_PER_REQUEST"),
		GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{IndexName: sp("gsi"), KeySchema: keys("g", "HASH"), Projection: &api.Projection{ProjectionType: sp("ALL")}}},
	})
	te.mustCreate(nsA, simpleTable("hashonly"))
	r, err := te.table(nsA, "ranged")
	if err != nil {
		t.Fatal(err)
	}
	h, err := te.table(nsA, "hashonly")
	if err != nil {
		t.Fatal(err)
	}
	item := func(pk, sk string) av.Item { return av.Item{"pk": thrS(pk), "sk": thrS(sk)} }
	a1 := partitionOf(r, itemKey(r, item("a", "1")))
	cases := []struct {
		name string
		got  string
		same bool
	}{
		{"another sort key", partitionOf(r, itemKey(r, item("a", "2"))), true},
		{"a sort key extending the value", partitionOf(r, itemKey(r, item("a", "1\x00x"))), true},
		{"the Query prefix", partitionOf(r, itemPartitionPrefix(r, thrS("a"))), true},
		{"another value", partitionOf(r, itemKey(r, item("b", "1"))), false},
		{"a value extending it", partitionOf(r, itemKey(r, item("a\x00", "1"))), false},
		{"hash-only table", partitionOf(h, itemKey(h, av.Item{"pk": thrS("a")})), true},
	}
	for _, c := range cases {
		if (c.got == a1) != c.same {
			t.Errorf("%s: same bucket %v, want %v", c.name, c.got == a1, c.same)
		}
		if c.got == "" {
			t.Errorf("%s: no bucket", c.name)
		}
	}
	ix, _ := r.index("gsi", te.now())
	for name, k := range map[string][]byte{"nil (Scan)": nil, "index Query": indexPartitionPrefix(r, ix, []av.Value{thrS("a")})} {
		if got := partitionOf(r, k); got != "" {
			t.Errorf("%s: bucket %q, want none", name, got)
		}
	}
}

// TestThrottleRegistration: tables are registered when cached, re-sized by
// UpdateTable, registered again after a restart and forgotten by
// DeleteTable.
func TestThrottleRegistration(t *testing.T) {
	te := newTestEngine(t)
	in := simpleTable("reg")
	in.BillingMode = sp("PROVISIONED")
	in.ProvisionedThroughput = pt(3, 4)
	te.mustCreate(nsA, in)
	want := func(tp throttle.Throughput) {
		t.Helper()
		h := te.thr.Table(nsA.Account, nsA.Region, "reg")
		tm, err := te.table(nsA, "reg")
		if err != nil {
			t.Fatal(err)
		}
		if h == nil || tm.thr != h || h.Throughput() != tp {
			t.Fatalf("registered %+v (handle on meta %v), want %+v", h, tm.thr == h, tp)
		}
	}
	want(throttle.ProvisionedThroughput(3, 4))
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("reg"), ProvisionedThroughput: pt(5, 6)}); err != nil {
		t.Fatal(err)
	}
	want(throttle.ProvisionedThroughput(5, 6))
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp("reg"), BillingMode: sp("PAY_PER_REQUEST"),
		OnDemandThroughput: &api.OnDemandThroughput{MaxWriteRequestUnits: i64(7)}}); err != nil {
		t.Fatal(err)
	}
	want(throttle.OnDemandThroughput(0, 7))
	te.restart()
	want(throttle.OnDemandThroughput(0, 7))
	if _, err := te.DeleteTable(context.Background(), nsA, &api.DeleteTableInput{TableName: sp("reg")}); err != nil {
		t.Fatal(err)
	}
	if h := te.thr.Table(nsA.Account, nsA.Region, "reg"); h != nil {
		t.Fatal("DeleteTable left the table registered")
	}
}

// BenchmarkPutItemThrottle measures what metering adds to a PutItem:
// throttle on (the default) against off, on an on-demand table, cycling
// 1,024 partition key values.
func BenchmarkPutItemThrottle(b *testing.B) {
	for _, off := range []bool{false, true} {
		name := "on"
		if off {
			name = "off"
		}
		b.Run(name, func(b *testing.B) {
			te := newTestEngine(b, func(o *Options) { o.Throttle.Off = off })
			te.mustCreate(nsA, simpleTable("bench"))
			ins := make([]*api.PutItemInput, 1024)
			for i := range ins {
				ins[i] = &api.PutItemInput{TableName: sp("bench"), Item: av.Item{"pk": thrS("k" + strconv.Itoa(i)), "v": thrS("x")}}
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := te.PutItem(ctx, nsA, ins[i%len(ins)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
