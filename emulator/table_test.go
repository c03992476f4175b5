package emulator

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

func TestNamespacesAreIsolated(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	a := te.mustCreate(nsA, simpleTable("same"))
	b := te.mustCreate(nsB, simpleTable("same"))
	c := te.mustCreate(nsC, simpleTable("same"))
	want := map[string]string{
		a.TableArn: "arn:aws:dynamodb:us-east-1:111122223333:table/same",
		b.TableArn: "arn:aws:dynamodb:eu-west-1:111122223333:table/same",
		c.TableArn: "arn:aws:dynamodb:us-east-1:444455556666:table/same",
	}
	for got, w := range want {
		if got != w {
			t.Errorf("ARN %s, want %s", got, w)
		}
	}
	if len(want) != 3 || a.TableId == b.TableId || a.TableId == c.TableId {
		t.Fatalf("tables share identity: %s %s %s", a.TableId, b.TableId, c.TableId)
	}
	if _, err := te.DeleteTable(ctx, nsB, &api.DeleteTableInput{TableName: sp("same")}); err != nil {
		t.Fatal(err)
	}
	te.describeT(nsA, "same")
	te.describeT(nsC, "same")
	_, err := te.DescribeTable(ctx, nsB, &api.DescribeTableInput{TableName: sp("same")})
	wantErr(t, err, api.CodeResourceNotFound, "Requested resource not found: Table: same not found")

	cn := api.Namespace{Account: "111122223333", Region: "cn-north-1"}
	d := te.mustCreate(cn, &api.CreateTableInput{TableName: sp("cn1"), AttributeDefinitions: attrs("pk", "S"), KeySchema: keys("pk", "HASH"), BillingMode: sp("PAY_PER_REQUEST"),
		GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{IndexName: sp("gsi"), KeySchema: keys("pk", "HASH"), Projection: &api.Projection{ProjectionType: sp("ALL")}}}})
	if d.TableArn != "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/cn1" || d.GlobalSecondaryIndexes[0].IndexArn != d.TableArn+"/index/gsi" {
		t.Fatalf("partition ARNs: %s %s", d.TableArn, d.GlobalSecondaryIndexes[0].IndexArn)
	}
}

func TestTableByARN(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreate(nsA, simpleTable("orders"))
	te.mustCreate(nsC, simpleTable("theirs"))
	cases := []struct {
		ref  string
		name string // "" when an error is expected
		code string
		msg  string
	}{
		{"orders", "orders", "", ""},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/orders", "orders", "", ""},
		{"arn:aws:dynamodb:us-east-1:444455556666:table/theirs", "theirs", "", ""},
		{"arn:aws:dynamodb:eu-west-1:111122223333:table/orders", "", api.CodeValidation, "1 validation error detected: Invalid AWS region in 'arn:aws:dynamodb:eu-west-1:111122223333:table/orders'"},
		{"arn:aws-cn:dynamodb:us-east-1:111122223333:table/orders", "", api.CodeValidation, "1 validation error detected: Invalid AWS partition in 'arn:aws-cn:dynamodb:us-east-1:111122223333:table/orders'"},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/orders/index/i", "", api.CodeValidation, "1 validation error detected: Invalid resource type in 'arn:aws:dynamodb:us-east-1:111122223333:table/orders/index/i'"},
		{"arn:aws:s3:us-east-1:111122223333:table/orders", "", api.CodeValidation, "1 validation error detected: Invalid resource type in 'arn:aws:s3:us-east-1:111122223333:table/orders'"},
		{"arn:aws:dynamodb:us-east-1", "", api.CodeValidation, "1 validation error detected: Valid ARN format is arn:partition:dynamodb:region:account-id:table/table-name in 'arn:aws:dynamodb:us-east-1'"},
		{"arn:aws:dynamodb:us-east-1:111122223333:table/missing", "", api.CodeResourceNotFound, "Requested resource not found: Table: missing not found"},
		{"missing", "", api.CodeResourceNotFound, "Requested resource not found: Table: missing not found"},
	}
	for _, c := range cases {
		tm, err := te.table(nsA, c.ref)
		if c.name != "" {
			if err != nil || tm.Name != c.name {
				t.Errorf("table(%q) = %v, %v; want %s", c.ref, tm, err, c.name)
			}
			continue
		}
		wantErr(t, err, c.code, c.msg)
	}
	// Every operation accepts the ARN form.
	arn := nsA.TableARN("orders")
	if _, err := te.DescribeTable(context.Background(), nsA, &api.DescribeTableInput{TableName: sp(arn)}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.UpdateTable(context.Background(), nsA, &api.UpdateTableInput{TableName: sp(arn), DeletionProtectionEnabled: bl(false)}); err != nil {
		t.Fatal(err)
	}
	// A bare name longer than a table name may be, but within the ARN form's limit.
	_, err := te.DescribeTable(context.Background(), nsA, &api.DescribeTableInput{TableName: sp(strings.Repeat("a", 256))})
	wantErr(t, err, api.CodeValidation, "TableName must be at least 3 characters long and at most 255 characters long")
}

func FuzzParseARN(f *testing.F) {
	for _, s := range []string{
		"arn:aws:dynamodb:us-east-1:111122223333:table/orders",
		"arn:aws:dynamodb:us-east-1:111122223333:table/orders/index/i",
		"arn:aws:dynamodb:us-east-1:111122223333:table/orders/stream/2026-01-01T00:00:00.000",
		"arn:", "arn:::::", "orders", "arn:aws:dynamodb:r:a:table/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseARN(s)
		if err == nil {
			if a.table == "" || a.region == "" || a.account == "" || a.service != "dynamodb" {
				t.Fatalf("parseARN(%q) accepted %+v", s, a)
			}
			if !strings.Contains(s, ":table/"+a.table) {
				t.Fatalf("parseARN(%q) table %q not in input", s, a.table)
			}
		}
		_, _, _ = resolveName(nsA, s)
	})
}

func TestKeys(t *testing.T) {
	id := keyspace.TableID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef, 0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	if got := id.UUID(); got != "12345678-9abc-4def-8123-456789abcdef" {
		t.Fatalf("UUID = %s", got)
	}
	for _, c := range []struct{ in, want []byte }{
		{[]byte("ab"), []byte("ac")},
		{[]byte{'a', 0xff}, []byte("b")},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := kv.PrefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("kv.PrefixEnd(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// One namespace's meta prefix never covers another's.
	p1 := keyspace.MetaPrefix(api.Namespace{Account: "1", Region: "us-east-1"})
	p2 := keyspace.MetaPrefix(api.Namespace{Account: "1", Region: "us-east-1x"})
	p3 := keyspace.MetaPrefix(api.Namespace{Account: "12", Region: "us-east-1"})
	if bytes.HasPrefix(p2, p1) || bytes.HasPrefix(p3, p1) {
		t.Fatalf("meta prefixes overlap: %q %q %q", p1, p2, p3)
	}
	other := id
	other[15]++
	if bytes.HasPrefix(keyspace.ItemPrefix(other), keyspace.ItemPrefix(id)) || !bytes.HasPrefix(keyspace.IndexPrefix(id, 7), keyspace.IndexesPrefix(id)) {
		t.Fatal("table prefixes overlap")
	}
}

// countKeys counts the store keys under prefix p.
func countKeys(t *testing.T, r kv.Reader, p []byte) int {
	t.Helper()
	it, err := r.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n
}

func TestDeleteTableRemovesDataAndRecreateIsFresh(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, pprTable("data"))
	tm, err := te.table(nsA, "data")
	if err != nil {
		t.Fatal(err)
	}
	gsi, _ := tm.index("gsi1", te.now())
	// Stand-ins for what the data plane writes.
	b := te.store.NewBatch()
	for _, k := range [][]byte{
		append(keyspace.ItemPrefix(tm.ID), "k1"...), append(keyspace.ItemPrefix(tm.ID), "k2"...),
		append(keyspace.IndexPrefix(tm.ID, gsi.ID), "e1"...), append(keyspace.StreamPrefix(tm.ID), "r1"...),
	} {
		if err := b.Set(k, []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()

	out, err := te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("data")})
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != "DELETING" {
		t.Fatalf("DeleteTable status %s, want DELETING", out.TableDescription.TableStatus)
	}
	for _, p := range [][]byte{keyspace.ItemPrefix(tm.ID), keyspace.IndexesPrefix(tm.ID), keyspace.StreamPrefix(tm.ID), keyspace.MetaKey(nsA, "data")} {
		if n := countKeys(t, te.store, p); n != 0 {
			t.Fatalf("%d keys left under %q", n, p)
		}
	}
	_, err = te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("data")})
	wantErr(t, err, api.CodeResourceNotFound, "Requested resource not found: Table: data not found")

	d := te.mustCreate(nsA, pprTable("data"))
	if d.TableId == tm.ID.UUID() {
		t.Fatal("re-created table reuses the old table ID")
	}
}

func TestRestartKeepsTables(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	in := pprTable("keep")
	in.Tags = []api.Tag{{Key: sp("k"), Value: sp("v")}}
	in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
	te.mustCreate(nsA, in)
	te.mustCreate(nsB, simpleTable("other"))
	if _, err := te.UpdateTimeToLive(ctx, nsA, &api.UpdateTimeToLiveInput{TableName: sp("keep"), TimeToLiveSpecification: &api.TimeToLiveSpecification{Enabled: bl(true), AttributeName: sp("exp")}}); err != nil {
		t.Fatal(err)
	}
	before := te.describeT(nsA, "keep")
	te.restart()
	after := te.describeT(nsA, "keep")
	if before.TableId != after.TableId || before.LatestStreamArn != after.LatestStreamArn || len(after.GlobalSecondaryIndexes) != 1 || after.CreationDateTime != before.CreationDateTime {
		t.Fatalf("after restart:\n%+v\nwant\n%+v", after, before)
	}
	ttl, err := te.DescribeTimeToLive(ctx, nsA, &api.DescribeTimeToLiveInput{TableName: sp("keep")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != "ENABLED" {
		t.Fatalf("TTL after restart: %+v %v", ttl, err)
	}
	tags, err := te.ListTagsOfResource(ctx, nsA, &api.ListTagsOfResourceInput{ResourceArn: sp(after.TableArn)})
	if err != nil || len(tags.Tags) != 1 {
		t.Fatalf("tags after restart: %+v %v", tags, err)
	}
	te.describeT(nsB, "other")
}

func TestTransitionDelay(t *testing.T) {
	const delay = 10 * time.Second
	te := newTestEngine(t, func(o *Options) { o.TransitionDelay = delay })
	ctx := context.Background()
	status := func() string { return te.describeT(nsA, "slow").TableStatus }

	d := te.mustCreate(nsA, pprTable("slow"))
	if d.TableStatus != "CREATING" || d.GlobalSecondaryIndexes[0].IndexStatus != "CREATING" {
		t.Fatalf("CreateTable: %s / %s", d.TableStatus, d.GlobalSecondaryIndexes[0].IndexStatus)
	}
	_, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("slow"), DeletionProtectionEnabled: bl(true)})
	wantErr(t, err, api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being created: slow")
	_, err = te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("slow")})
	wantErr(t, err, api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being created: slow")
	_, err = te.DescribeTimeToLive(ctx, nsA, &api.DescribeTimeToLiveInput{TableName: sp("slow")})
	wantErr(t, err, api.CodeValidation, "Cannot describe time to live while table is in CREATING state: Current table state is CREATING")
	_, err = te.UpdateContinuousBackups(ctx, nsA, &api.UpdateContinuousBackupsInput{TableName: sp("slow"), PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: bl(true)}})
	wantErr(t, err, api.CodeContinuousBackupsUnavailable, "Backups are being enabled for the table: slow. Please retry later")

	te.clock.Add(delay)
	if st := status(); st != "ACTIVE" {
		t.Fatalf("after delay: %s", st)
	}

	// A stream change keeps the table UPDATING; deletion protection is still admitted.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("slow"), StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}}); err != nil {
		t.Fatal(err)
	}
	if st := status(); st != "UPDATING" {
		t.Fatalf("after stream enable: %s", st)
	}
	_, err = te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("slow"), StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(false)}})
	wantErr(t, err, api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being updated: slow")
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("slow"), DeletionProtectionEnabled: bl(false)}); err != nil {
		t.Fatalf("DP during UPDATING: %v", err)
	}
	te.clock.Add(delay)

	// A GSI added by UpdateTable: CREATING with Backfilling, then ACTIVE.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("slow"), AttributeDefinitions: attrs("n", "S"),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi2", keys("n", "HASH"), nil)}}); err != nil {
		t.Fatal(err)
	}
	d = te.describeT(nsA, "slow")
	g2 := d.GlobalSecondaryIndexes[1]
	if g2.IndexStatus != "CREATING" || g2.Backfilling == nil || !*g2.Backfilling || d.GlobalSecondaryIndexes[0].Backfilling != nil {
		t.Fatalf("new index: %+v", g2)
	}
	_, err = te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("slow")})
	wantErr(t, err, api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being updated: slow")
	te.clock.Add(delay)
	WaitBackfills(te.Engine)
	_, err = te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("slow"), GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiDelete("gsi1")}})
	if err != nil {
		t.Fatal(err)
	}
	d = te.describeT(nsA, "slow")
	if d.GlobalSecondaryIndexes[0].IndexStatus != "DELETING" || d.TableStatus != "UPDATING" {
		t.Fatalf("deleting index: %s / %s", d.TableStatus, d.GlobalSecondaryIndexes[0].IndexStatus)
	}
	te.clock.Add(delay)
	d = te.describeT(nsA, "slow")
	if len(d.GlobalSecondaryIndexes) != 1 || d.GlobalSecondaryIndexes[0].IndexName != "gsi2" || attrNames(d) != "n pk" {
		t.Fatalf("after index deletion: %+v attrs %q", d.GlobalSecondaryIndexes, attrNames(d))
	}

	// DeleteTable: DELETING until the delay passes, then gone; the name is free again.
	if _, err := te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("slow")}); err != nil {
		t.Fatal(err)
	}
	if st := status(); st != "DELETING" {
		t.Fatalf("after DeleteTable: %s", st)
	}
	_, err = te.CreateTable(ctx, nsA, simpleTable("slow"))
	wantErr(t, err, api.CodeResourceInUse, "Table already exists: slow")
	te.restart() // a DELETING table survives a restart as DELETING
	if st := status(); st != "DELETING" {
		t.Fatalf("after restart: %s", st)
	}
	te.clock.Add(delay)
	_, err = te.DescribeTable(ctx, nsA, &api.DescribeTableInput{TableName: sp("slow")})
	var de *api.Error
	if !errors.As(err, &de) || de.Code != api.CodeResourceNotFound {
		t.Fatalf("after delete delay: %v", err)
	}
	te.mustCreate(nsA, simpleTable("slow"))
}

// TestConcurrentControlPlane runs changes and lookups side by side (meant
// for -race): readers hold published metadata while writers swap copies.
func TestConcurrentControlPlane(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, pprTable("busy"))
	done := make(chan struct{})
	errs := make(chan error, 8)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				tm, err := te.table(nsA, "busy")
				if err != nil {
					errs <- err
					return
				}
				_ = te.describe(tm, te.now())
			}
		}()
	}
	for i := range 50 {
		key := "k" + string(rune('a'+i%26))
		if _, err := te.TagResource(ctx, nsA, &api.TagResourceInput{ResourceArn: sp(nsA.TableARN("busy")), Tags: []api.Tag{{Key: sp(key), Value: sp("v")}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("busy"), DeletionProtectionEnabled: bl(i%2 == 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.CreateTable(ctx, nsA, simpleTable("side"+string(rune('a'+i%26))+"x")); err != nil && i < 26 {
			t.Fatal(err)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
