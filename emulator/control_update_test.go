package emulator

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

func gsiCreate(name string, ks []api.KeySchemaElement, p *api.ProvisionedThroughput) api.GlobalSecondaryIndexUpdate {
	return api.GlobalSecondaryIndexUpdate{Create: &api.CreateGlobalSecondaryIndexAction{
		IndexName: sp(name), KeySchema: ks, Projection: &api.Projection{ProjectionType: sp("ALL")}, ProvisionedThroughput: p,
	}}
}

func gsiUpdatePT(name string, p *api.ProvisionedThroughput) api.GlobalSecondaryIndexUpdate {
	return api.GlobalSecondaryIndexUpdate{Update: &api.UpdateGlobalSecondaryIndexAction{IndexName: sp(name), ProvisionedThroughput: p}}
}

func gsiDelete(name string) api.GlobalSecondaryIndexUpdate {
	return api.GlobalSecondaryIndexUpdate{Delete: &api.DeleteGlobalSecondaryIndexAction{IndexName: sp(name)}}
}

// provTable is a provisioned table with one GSI.
func provTable(name string) *api.CreateTableInput {
	return &api.CreateTableInput{
		TableName:             sp(name),
		AttributeDefinitions:  attrs("pk", "S", "g", "S"),
		KeySchema:             keys("pk", "HASH"),
		ProvisionedThroughput: pt(5, 5),
		GlobalSecondaryIndexes: []api.GlobalSecondaryIndex{{
			IndexName: sp("gsi1"), KeySchema: keys("g", "HASH"), Projection: &api.Projection{ProjectionType: sp("ALL")},
			ProvisionedThroughput: pt(2, 2),
		}},
	}
}

// pprTable is an on-demand table with one GSI.
func pprTable(name string) *api.CreateTableInput {
	in := provTable(name)
	in.ProvisionedThroughput, in.BillingMode = nil, sp("PAY_PER_REQUEST")
	in.GlobalSecondaryIndexes[0].ProvisionedThroughput = nil
	return in
}

func TestUpdateTableValidation(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreate(nsA, provTable("prov"))
	te.mustCreate(nsA, pprTable("ppr"))
	upd := func(name string, mod func(*api.UpdateTableInput)) *api.UpdateTableInput {
		in := &api.UpdateTableInput{TableName: sp(name)}
		mod(in)
		return in
	}
	const atLeastOne = "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required"
	cases := []struct {
		name string
		in   *api.UpdateTableInput
		code string
		msg  string
	}{
		{"no table name", &api.UpdateTableInput{DeletionProtectionEnabled: bl(true)}, api.CodeValidation,
			"The parameter 'TableName' is required but was not present in the request"},
		{"short table name", upd("ab", func(in *api.UpdateTableInput) { in.DeletionProtectionEnabled = bl(true) }), api.CodeValidation,
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"nothing to update", upd("prov", func(in *api.UpdateTableInput) {}), api.CodeValidation, atLeastOne},
		{"nothing to update on a missing table", upd("missing", func(in *api.UpdateTableInput) {}), api.CodeValidation, atLeastOne},
		{"only attribute definitions", upd("prov", func(in *api.UpdateTableInput) { in.AttributeDefinitions = attrs("pk", "S") }), api.CodeValidation, atLeastOne},
		{"empty gsi updates alone", upd("prov", func(in *api.UpdateTableInput) { in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{} }), api.CodeValidation, atLeastOne},
		{"empty gsi updates with DP", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{}
			in.DeletionProtectionEnabled = bl(true)
		}), api.CodeValidation, "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates is empty"},
		{"missing table", upd("missing", func(in *api.UpdateTableInput) { in.DeletionProtectionEnabled = bl(true) }), api.CodeResourceNotFound,
			"Requested resource not found: Table: missing not found"},
		{"empty gsi action", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{{}}
		}), api.CodeValidation, "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"},
		{"two gsi actions in one entry", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{{Update: gsiUpdatePT("gsi1", pt(3, 3)).Update, Delete: gsiDelete("gsi1").Delete}}
		}), api.CodeValidation, "One or more parameter values were invalid: Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object"},
		{"same index twice", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiUpdatePT("gsi1", pt(3, 3)), gsiDelete("gsi1")}
		}), api.CodeValidation, "One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: gsi1"},
		{"sse with other", upd("prov", func(in *api.UpdateTableInput) {
			in.SSESpecification = &api.SSESpecification{Enabled: bl(true)}
			in.DeletionProtectionEnabled = bl(true)
		}), api.CodeValidation, "One or more parameter values were invalid: Server-Side Encryption modification must be the only operation in the request"},
		{"class with other", upd("prov", func(in *api.UpdateTableInput) {
			in.TableClass = sp("STANDARD_INFREQUENT_ACCESS")
			in.DeletionProtectionEnabled = bl(true)
		}), api.CodeValidation, "One or more parameter values were invalid: TableClass modification must be the only operation in the request"},
		{"dp with other", upd("prov", func(in *api.UpdateTableInput) {
			in.DeletionProtectionEnabled = bl(true)
			in.ProvisionedThroughput = pt(9, 9)
		}), api.CodeValidation, "One or more parameter values were invalid: DeletionProtection modification must be the only operation in the request"},
		{"warm with gsi create", upd("prov", func(in *api.UpdateTableInput) {
			in.WarmThroughput = &api.WarmThroughput{ReadUnitsPerSecond: i64(20000)}
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi2", keys("g", "HASH"), pt(1, 1))}
		}), api.CodeValidation, "One or more parameter values were invalid: Create global secondary index cannot be specified when updating WarmThroughput"},
		{"gsi create with PT", upd("prov", func(in *api.UpdateTableInput) {
			in.ProvisionedThroughput = pt(9, 9)
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi2", keys("g", "HASH"), pt(1, 1))}
		}), api.CodeValidation, "One or more parameter values were invalid: You cannot create or delete index while updating table IOPS"},
		{"gsi delete with stream", upd("prov", func(in *api.UpdateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiDelete("gsi1")}
		}), api.CodeValidation, "One or more parameter values were invalid: You cannot create or delete index while changing stream status"},
		{"stream with PT", upd("prov", func(in *api.UpdateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
			in.ProvisionedThroughput = pt(9, 9)
		}), api.CodeValidation, "One or more parameter values were invalid: You cannot modify stream status while updating table IOPS"},
		{"odt with stream", upd("ppr", func(in *api.UpdateTableInput) {
			in.OnDemandThroughput = &api.OnDemandThroughput{MaxReadRequestUnits: i64(10)}
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}
		}), api.CodeValidation, "One or more parameter values were invalid: OnDemandThroughput can only be combined with BillingMode in an UpdateTable request"},
		{"PT on PPR", upd("ppr", func(in *api.UpdateTableInput) { in.ProvisionedThroughput = pt(1, 1) }), api.CodeValidation,
			"One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"PROVISIONED alone", upd("prov", func(in *api.UpdateTableInput) { in.BillingMode = sp("PROVISIONED") }), api.CodeValidation,
			"One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED"},
		{"switch to provisioned without gsi", upd("ppr", func(in *api.UpdateTableInput) {
			in.BillingMode, in.ProvisionedThroughput = sp("PROVISIONED"), pt(50, 50)
		}), api.CodeValidation, "One or more parameter values were invalid: ProvisionedThroughput must be specified for index: gsi1"},
		{"same throughput", upd("prov", func(in *api.UpdateTableInput) { in.ProvisionedThroughput = pt(5, 5) }), api.CodeValidation,
			"The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."},
		{"same index throughput", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiUpdatePT("gsi1", pt(2, 2))}
		}), api.CodeValidation, "The provisioned throughput for the index gsi1 will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index gsi1: 2. Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index gsi1: 2. Requested WriteCapacityUnits: 2. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."},
		{"index PT on PPR", upd("ppr", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiUpdatePT("gsi1", pt(2, 2))}
		}), api.CodeValidation, "One or more parameter values were invalid: The only Updates for index: gsi1 when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"},
		{"update unknown index", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiUpdatePT("nope", pt(3, 3))}
		}), api.CodeResourceNotFound, "Requested resource not found: Index nope for table prov"},
		{"create existing index", upd("prov", func(in *api.UpdateTableInput) {
			in.AttributeDefinitions = attrs("g", "S")
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi1", keys("g", "HASH"), pt(1, 1))}
		}), api.CodeValidation, "Attempting to create an index which already exists"},
		{"create without attribute definitions", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi3", keys("n", "HASH"), pt(1, 1))}
		}), api.CodeValidation, "One or more parameter values were invalid: AttributeDefinitions is not specified for index: gsi3"},
		{"create with undefined key", upd("prov", func(in *api.UpdateTableInput) {
			in.AttributeDefinitions = attrs("m", "S")
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi3", keys("n", "HASH"), pt(1, 1))}
		}), api.CodeValidation, "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [n], AttributeDefinitions: [m]"},
		{"create without throughput", upd("prov", func(in *api.UpdateTableInput) {
			in.AttributeDefinitions = attrs("n", "S")
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi-nopt", keys("n", "HASH"), nil)}
		}), api.CodeValidation, "One or more parameter values were invalid: Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: gsi-nopt"},
		{"two creates", upd("prov", func(in *api.UpdateTableInput) {
			in.AttributeDefinitions = attrs("n", "S")
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi3", keys("n", "HASH"), pt(1, 1)), gsiCreate("gsi4", keys("n", "HASH"), pt(1, 1))}
		}), api.CodeLimitExceeded, "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"},
		{"odt on provisioned", upd("prov", func(in *api.UpdateTableInput) {
			in.OnDemandThroughput = &api.OnDemandThroughput{MaxWriteRequestUnits: i64(10)}
		}), api.CodeValidation, "One or more parameter values were invalid: MaxWriteRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"},
		{"odt zero", upd("ppr", func(in *api.UpdateTableInput) {
			in.OnDemandThroughput = &api.OnDemandThroughput{MaxReadRequestUnits: i64(0)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{"odt -2", upd("ppr", func(in *api.UpdateTableInput) {
			in.OnDemandThroughput = &api.OnDemandThroughput{MaxWriteRequestUnits: i64(-2)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{"warm decrease", upd("ppr", func(in *api.UpdateTableInput) { in.WarmThroughput = &api.WarmThroughput{ReadUnitsPerSecond: i64(100)} }), api.CodeValidation,
			"One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not supported"},
		{"stream enable without type", upd("prov", func(in *api.UpdateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(true)}
		}), api.CodeValidation,
			"One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required"},
		{"stream disable with type", upd("prov", func(in *api.UpdateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(false), StreamViewType: sp("KEYS_ONLY")}
		}), api.CodeValidation, "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified"},
		{"stream disable when none", upd("prov", func(in *api.UpdateTableInput) {
			in.StreamSpecification = &api.StreamSpecification{StreamEnabled: bl(false)}
		}), api.CodeValidation,
			"Table has no stream to disable: TableName: prov"},
		{"sse disable default", upd("prov", func(in *api.UpdateTableInput) { in.SSESpecification = &api.SSESpecification{Enabled: bl(false)} }), api.CodeValidation,
			"One or more parameter values were invalid: Table is already encrypted by default"},
		{"table class invalid", upd("prov", func(in *api.UpdateTableInput) { in.TableClass = sp("x") }), api.CodeValidation,
			"Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."},
		{"delete LSI through GSI updates", upd("prov", func(in *api.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = []api.GlobalSecondaryIndexUpdate{gsiDelete("nope")}
		}), api.CodeResourceNotFound, "Requested resource not found: Index nope for table prov"},
		{"table PT above quota", upd("prov", func(in *api.UpdateTableInput) { in.ProvisionedThroughput = pt(40001, 5) }), api.CodeLimitExceeded,
			"The requested ReadCapacityUnits, 40001, is above the per table maximum for the account in us-east-1. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."},
	}
	before := te.describeT(nsA, "prov")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := te.UpdateTable(context.Background(), nsA, c.in)
			wantErr(t, err, c.code, c.msg)
		})
	}
	after := te.describeT(nsA, "prov")
	if before.ProvisionedThroughput != after.ProvisionedThroughput || after.DeletionProtectionEnabled || len(after.GlobalSecondaryIndexes) != 1 {
		t.Fatalf("a rejected update changed the table: %+v", after)
	}
}

func TestUpdateTableBillingSwitch(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, provTable("tb1"))

	// PROVISIONED → PAY_PER_REQUEST: throughput reads 0/0 on table and GSI.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), BillingMode: sp("PAY_PER_REQUEST")}); err != nil {
		t.Fatal(err)
	}
	d := te.describeT(nsA, "tb1")
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" || d.BillingModeSummary.LastUpdateToPayPerRequestDateTime == nil {
		t.Fatalf("BillingModeSummary = %+v", d.BillingModeSummary)
	}
	if d.ProvisionedThroughput.ReadCapacityUnits != 0 || d.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits != 0 {
		t.Fatalf("throughput after switch: %+v / %+v", d.ProvisionedThroughput, d.GlobalSecondaryIndexes[0].ProvisionedThroughput)
	}
	if d.WarmThroughput.ReadUnitsPerSecond != 12000 || d.WarmThroughput.WriteUnitsPerSecond != 4000 {
		t.Fatalf("warm after switch: %+v", d.WarmThroughput)
	}
	// A re-send of PAY_PER_REQUEST is accepted.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), BillingMode: sp("PAY_PER_REQUEST")}); err != nil {
		t.Fatal(err)
	}
	// ODT merges member by member; -1 removes a cap.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), OnDemandThroughput: &api.OnDemandThroughput{MaxReadRequestUnits: i64(100), MaxWriteRequestUnits: i64(50)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), OnDemandThroughput: &api.OnDemandThroughput{MaxWriteRequestUnits: i64(-1)}}); err != nil {
		t.Fatal(err)
	}
	if o := te.describeT(nsA, "tb1").OnDemandThroughput; o == nil || o.MaxReadRequestUnits != 100 || o.MaxWriteRequestUnits != -1 {
		t.Fatalf("OnDemandThroughput = %+v, want 100/-1", o)
	}
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), OnDemandThroughput: &api.OnDemandThroughput{MaxReadRequestUnits: i64(-1)}}); err != nil {
		t.Fatal(err)
	}
	if o := te.describeT(nsA, "tb1").OnDemandThroughput; o != nil {
		t.Fatalf("OnDemandThroughput = %+v, want absent", o)
	}

	// PAY_PER_REQUEST → PROVISIONED with every GSI's throughput.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{
		TableName: sp("tb1"), BillingMode: sp("PROVISIONED"), ProvisionedThroughput: pt(7, 8),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiUpdatePT("gsi1", pt(3, 4))},
	}); err != nil {
		t.Fatal(err)
	}
	d = te.describeT(nsA, "tb1")
	if d.ProvisionedThroughput.ReadCapacityUnits != 7 || d.ProvisionedThroughput.WriteCapacityUnits != 8 ||
		d.GlobalSecondaryIndexes[0].ProvisionedThroughput.ReadCapacityUnits != 3 || d.BillingModeSummary.BillingMode != "PROVISIONED" {
		t.Fatalf("after switch back: %+v %+v %+v", d.ProvisionedThroughput, d.GlobalSecondaryIndexes[0].ProvisionedThroughput, d.BillingModeSummary)
	}
	if d.ProvisionedThroughput.NumberOfDecreasesToday != 0 {
		t.Fatalf("a billing switch counted as a decrease: %+v", d.ProvisionedThroughput)
	}
}

func TestUpdateTableDecreaseBudget(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	in := provTable("tb1")
	in.ProvisionedThroughput = pt(50, 50)
	te.mustCreate(nsA, in)
	for i, r := range []int64{40, 30, 20, 10} {
		if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), ProvisionedThroughput: pt(r, r)}); err != nil {
			t.Fatalf("decrease %d: %v", i+1, err)
		}
		te.clock.Add(time.Second)
	}
	d := te.describeT(nsA, "tb1")
	if d.ProvisionedThroughput.NumberOfDecreasesToday != 4 || d.ProvisionedThroughput.LastDecreaseDateTime == nil {
		t.Fatalf("after 4 decreases: %+v", d.ProvisionedThroughput)
	}
	_, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), ProvisionedThroughput: pt(5, 5)})
	var de *api.Error
	if !cpAsError(err, &de) || de.Code != api.CodeLimitExceeded {
		t.Fatalf("5th decrease: %v, want LimitExceededException", err)
	}
	// An increase is always allowed, and an hour later one more decrease.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), ProvisionedThroughput: pt(20, 20)}); err != nil {
		t.Fatal(err)
	}
	te.clock.Add(time.Hour)
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), ProvisionedThroughput: pt(5, 5)}); err != nil {
		t.Fatal(err)
	}
	// The GSI has its own budget.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiUpdatePT("gsi1", pt(1, 1))}}); err != nil {
		t.Fatal(err)
	}
	// Warm throughput tracks the highest provisioned capacity and never drops.
	if w := te.describeT(nsA, "tb1").WarmThroughput; w.ReadUnitsPerSecond != 50 {
		t.Fatalf("warm = %+v, want 50", w)
	}
}

func TestUpdateTableGSILifecycle(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, provTable("tb1"))

	// Create: only the new key attribute needs a definition.
	out, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{
		TableName: sp("tb1"), AttributeDefinitions: attrs("n", "N"),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi2", keys("n", "HASH", "pk", "RANGE"), pt(1, 1))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TableDescription.GlobalSecondaryIndexes) != 2 {
		t.Fatalf("response lacks the new index: %+v", out.TableDescription.GlobalSecondaryIndexes)
	}
	// The index is built in the background; until then another index
	// change is refused, as DynamoDB refuses it.
	WaitBackfills(te.Engine)
	d := te.describeT(nsA, "tb1")
	if got := attrNames(d); got != "g n pk" {
		t.Fatalf("AttributeDefinitions = %q", got)
	}
	// Delete prunes definitions no key uses any more.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiDelete("gsi1")}}); err != nil {
		t.Fatal(err)
	}
	d = te.describeT(nsA, "tb1")
	if got := attrNames(d); got != "n pk" || len(d.GlobalSecondaryIndexes) != 1 || d.GlobalSecondaryIndexes[0].IndexName != "gsi2" {
		t.Fatalf("after delete: attrs %q, gsis %+v", got, d.GlobalSecondaryIndexes)
	}
	// Re-create under the old name: a new index ID, so no old entries.
	if _, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{
		TableName: sp("tb1"), AttributeDefinitions: attrs("g", "S"),
		GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{gsiCreate("gsi1", keys("g", "HASH"), pt(1, 1))},
	}); err != nil {
		t.Fatal(err)
	}
	tm, err := te.table(nsA, "tb1")
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := tm.index("gsi1", te.now())
	if ix.ID != 3 {
		t.Fatalf("re-created index ID = %d, want a fresh ID 3", ix.ID)
	}
}

func attrNames(d *api.TableDescription) string {
	var out string
	for i, a := range d.AttributeDefinitions {
		if i > 0 {
			out += " "
		}
		out += a.AttributeName
	}
	return out
}

func TestUpdateTableStreamsSSEClassDP(t *testing.T) {
	te := newTestEngine(t)
	ctx := context.Background()
	te.mustCreate(nsA, simpleTable("tb1"))
	update := func(in *api.UpdateTableInput) *api.TableDescription {
		t.Helper()
		in.TableName = sp("tb1")
		out, err := te.UpdateTable(ctx, nsA, in)
		if err != nil {
			t.Fatal(err)
		}
		return out.TableDescription
	}
	d := update(&api.UpdateTableInput{StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("NEW_IMAGE")}})
	if d.StreamSpecification == nil || d.LatestStreamLabel != "2026-12-02T11:30:00.123" || d.LatestStreamArn != nsA.TableARN("tb1")+"/stream/2026-12-02T11:30:00.123" {
		t.Fatalf("stream: %+v %q %q", d.StreamSpecification, d.LatestStreamLabel, d.LatestStreamArn)
	}
	_, err := te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("NEW_IMAGE")}})
	wantErr(t, err, api.CodeValidation, "Table already has an enabled stream: TableName: tb1")
	d = update(&api.UpdateTableInput{StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(false)}})
	if d.StreamSpecification != nil || d.LatestStreamLabel == "" {
		t.Fatalf("after disable: spec %+v label %q (the label lingers, the spec goes)", d.StreamSpecification, d.LatestStreamLabel)
	}
	d = update(&api.UpdateTableInput{StreamSpecification: &api.StreamSpecification{StreamEnabled: bl(true), StreamViewType: sp("KEYS_ONLY")}})
	if d.LatestStreamLabel == "2026-12-02T11:30:00.123" {
		t.Fatal("re-enabling kept the old stream label")
	}

	d = update(&api.UpdateTableInput{SSESpecification: &api.SSESpecification{Enabled: bl(true), SSEType: sp("KMS"), KMSMasterKeyId: sp("arn:aws:kms:us-east-1:111122223333:key/k1")}})
	if d.SSEDescription == nil || d.SSEDescription.KMSMasterKeyArn != "arn:aws:kms:us-east-1:111122223333:key/k1" || d.SSEDescription.Status != "ENABLED" {
		t.Fatalf("SSE = %+v", d.SSEDescription)
	}
	_, err = te.UpdateTable(ctx, nsA, &api.UpdateTableInput{TableName: sp("tb1"), SSESpecification: &api.SSESpecification{Enabled: bl(true), SSEType: sp("KMS"), KMSMasterKeyId: sp("arn:aws:kms:us-east-1:111122223333:key/k1")}})
	wantErr(t, err, api.CodeValidation, "One or more parameter values were invalid: Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
	d = update(&api.UpdateTableInput{SSESpecification: &api.SSESpecification{Enabled: bl(false)}})
	if d.SSEDescription != nil {
		t.Fatalf("SSE after disable = %+v", d.SSEDescription)
	}

	d = update(&api.UpdateTableInput{TableClass: sp("STANDARD_INFREQUENT_ACCESS")})
	if d.TableClassSummary == nil || d.TableClassSummary.TableClass != "STANDARD_INFREQUENT_ACCESS" {
		t.Fatalf("class = %+v", d.TableClassSummary)
	}
	d = update(&api.UpdateTableInput{DeletionProtectionEnabled: bl(true)})
	if !d.DeletionProtectionEnabled {
		t.Fatal("deletion protection not set")
	}
	_, err = te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("tb1")})
	wantErr(t, err, api.CodeValidation, "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	update(&api.UpdateTableInput{DeletionProtectionEnabled: bl(false)})
	if _, err := te.DeleteTable(ctx, nsA, &api.DeleteTableInput{TableName: sp("tb1")}); err != nil {
		t.Fatal(err)
	}
}
