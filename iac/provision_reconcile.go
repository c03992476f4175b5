package iac

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

func keyString(ks []api.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, derefOr(k.AttributeName, "")+" "+derefOr(k.KeyType, ""))
	}
	return strings.Join(parts, ", ")
}

func describedKeyString(ks []api.DescribedKeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, k.AttributeName+" "+k.KeyType)
	}
	return strings.Join(parts, ", ")
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func attrType(defs []api.AttributeDefinition, name string) string {
	for _, d := range defs {
		if derefOr(d.AttributeName, "") == name {
			return derefOr(d.AttributeType, "")
		}
	}
	return ""
}

func describedAttrType(defs []api.DescribedAttributeDefinition, name string) string {
	for _, d := range defs {
		if d.AttributeName == name {
			return d.AttributeType
		}
	}
	return ""
}

// keyChange describes what of the keys (key schema, key attribute types,
// LSIs) differs between the declaration and the table; "" when nothing.
func keyChange(want *api.CreateTableInput, cur *api.TableDescription) string {
	if keyString(want.KeySchema) != describedKeyString(cur.KeySchema) {
		return fmt.Sprintf("key schema [%s]; the declaration says [%s]", describedKeyString(cur.KeySchema), keyString(want.KeySchema))
	}
	for _, k := range want.KeySchema {
		n := derefOr(k.AttributeName, "")
		if w, c := attrType(want.AttributeDefinitions, n), describedAttrType(cur.AttributeDefinitions, n); w != c {
			return fmt.Sprintf("key attribute %s of type %s; the declaration says %s", n, c, w)
		}
	}
	if lsiString(want.LocalSecondaryIndexes) != describedLSIString(cur.LocalSecondaryIndexes) {
		return "different local secondary indexes"
	}
	return ""
}

// reconcile brings an existing table to the declaration with UpdateTable.
// It returns false when the table cannot be reconciled.
func (p *provisioner) reconcile(ctx context.Context, cur *api.TableDescription) bool {
	want := &p.s.Create
	if change := keyChange(want, cur); change != "" {
		if !p.opts.ReplaceOnKeyChange {
			p.diags.Warnf(p.s.Pos, "%s: table %s exists with %s. UpdateTable cannot change that, so the table is kept as it is; delete it to re-create it, or serve with --replace-on-key-change (its items are lost)",
				p.s.Source, p.s.Name(), change)
			p.action = Kept
			return true
		}
		p.diags.Warnf(p.s.Pos, "%s: table %s exists with %s: deleting and re-creating it (--replace-on-key-change); its items are lost",
			p.s.Source, p.s.Name(), change)
		if !p.replace(ctx) {
			return false
		}
		p.action = Replaced
		return true
	}

	// Global secondary indexes the declaration no longer has go first, so a
	// switch to PROVISIONED below need not give them a throughput. GSI
	// changes are one per UpdateTable, as DynamoDB requires.
	curGSI := map[string]api.GlobalSecondaryIndexDescription{}
	for _, g := range cur.GlobalSecondaryIndexes {
		curGSI[g.IndexName] = g
	}
	if !p.dropGSIs(ctx, want, curGSI) {
		return false
	}
	cur, ok := p.reconcileBilling(ctx, want, cur, curGSI)
	if !ok {
		return false
	}
	if w := want.WarmThroughput; w != nil && (cur.WarmThroughput == nil ||
		(w.ReadUnitsPerSecond != nil && *w.ReadUnitsPerSecond != cur.WarmThroughput.ReadUnitsPerSecond) ||
		(w.WriteUnitsPerSecond != nil && *w.WriteUnitsPerSecond != cur.WarmThroughput.WriteUnitsPerSecond)) {
		if !p.update(ctx, &api.UpdateTableInput{WarmThroughput: w}) {
			return false
		}
	}
	if !p.reconcileStream(ctx, want, cur) {
		return false
	}

	// Table class and deletion protection.
	curClass := "STANDARD"
	if cur.TableClassSummary != nil && cur.TableClassSummary.TableClass != "" {
		curClass = cur.TableClassSummary.TableClass
	}
	if derefOr(want.TableClass, "STANDARD") != curClass {
		if !p.update(ctx, &api.UpdateTableInput{TableClass: spec.Str(derefOr(want.TableClass, "STANDARD"))}) {
			return false
		}
	}
	if derefOr(want.DeletionProtectionEnabled, false) != cur.DeletionProtectionEnabled {
		if !p.update(ctx, &api.UpdateTableInput{DeletionProtectionEnabled: spec.Bool(derefOr(want.DeletionProtectionEnabled, false))}) {
			return false
		}
	}
	return p.reconcileGSIs(ctx, want, curGSI) && p.reconcileVectors(ctx, want, cur)
}

// update applies one UpdateTable to the table and waits for it to be
// ACTIVE again.
func (p *provisioner) update(ctx context.Context, in *api.UpdateTableInput) bool {
	in.TableName = spec.Str(p.s.Name())
	if _, err := p.eng.UpdateTable(ctx, p.ns, in); err != nil {
		p.fail("UpdateTable", err)
		return false
	}
	p.changed = true
	return p.waitActive(ctx)
}

// dropGSIs deletes the table's indexes that want no longer has, in name
// order.
func (p *provisioner) dropGSIs(ctx context.Context, want *api.CreateTableInput, curGSI map[string]api.GlobalSecondaryIndexDescription) bool {
	wantGSI := map[string]bool{}
	for _, g := range want.GlobalSecondaryIndexes {
		wantGSI[derefOr(g.IndexName, "")] = true
	}
	var drop []string
	for n := range curGSI {
		if !wantGSI[n] {
			drop = append(drop, n)
		}
	}
	sort.Strings(drop)
	for _, n := range drop {
		if !p.update(ctx, &api.UpdateTableInput{GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{{Delete: &api.DeleteGlobalSecondaryIndexAction{IndexName: spec.Str(n)}}}}) {
			return false
		}
	}
	return true
}

// reconcileBilling brings the billing mode, throughput and caps to want's,
// and returns the table as it then is (curGSI updated with it).
func (p *provisioner) reconcileBilling(ctx context.Context, want *api.CreateTableInput, cur *api.TableDescription, curGSI map[string]api.GlobalSecondaryIndexDescription) (*api.TableDescription, bool) {
	wantBilling := derefOr(want.BillingMode, "PROVISIONED")
	curBilling := "PROVISIONED"
	if cur.BillingModeSummary != nil && cur.BillingModeSummary.BillingMode != "" {
		curBilling = cur.BillingModeSummary.BillingMode
	}
	var u api.UpdateTableInput
	changed := false
	if wantBilling != curBilling {
		u.BillingMode = spec.Str(wantBilling)
		changed = true
	}
	if wantBilling == "PROVISIONED" && want.ProvisionedThroughput != nil {
		pt := want.ProvisionedThroughput
		if changed || derefOr(pt.ReadCapacityUnits, 0) != cur.ProvisionedThroughput.ReadCapacityUnits ||
			derefOr(pt.WriteCapacityUnits, 0) != cur.ProvisionedThroughput.WriteCapacityUnits {
			u.ProvisionedThroughput = pt
			changed = true
		}
	}
	if wantBilling == "PAY_PER_REQUEST" && !sameCaps(want.OnDemandThroughput, cur.OnDemandThroughput) {
		u.OnDemandThroughput = capsOrNone(want.OnDemandThroughput)
		changed = true
	}
	if !changed {
		return cur, true
	}
	if wantBilling == "PAY_PER_REQUEST" && u.BillingMode != nil && want.OnDemandThroughput != nil {
		u.OnDemandThroughput = want.OnDemandThroughput
	}
	if wantBilling == "PROVISIONED" && u.BillingMode != nil {
		// DynamoDB requires every index's throughput in the same call
		// that leaves on-demand ("ProvisionedThroughput must be
		// specified for index").
		for _, g := range want.GlobalSecondaryIndexes {
			if _, ok := curGSI[derefOr(g.IndexName, "")]; ok && g.ProvisionedThroughput != nil {
				u.GlobalSecondaryIndexUpdates = append(u.GlobalSecondaryIndexUpdates, api.GlobalSecondaryIndexUpdate{
					Update: &api.UpdateGlobalSecondaryIndexAction{IndexName: g.IndexName, ProvisionedThroughput: g.ProvisionedThroughput}})
			}
		}
	}
	if !p.update(ctx, &u) {
		return nil, false
	}
	// The indexes' throughput changed with the table's.
	out, err := p.eng.DescribeTable(ctx, p.ns, &api.DescribeTableInput{TableName: spec.Str(p.s.Name())})
	if err != nil {
		p.fail("DescribeTable", err)
		return nil, false
	}
	cur = out.Table
	clear(curGSI)
	for _, g := range cur.GlobalSecondaryIndexes {
		curGSI[g.IndexName] = g
	}
	return cur, true
}

// reconcileStream turns the table's stream on or off, or changes its view
// type, as want declares.
func (p *provisioner) reconcileStream(ctx context.Context, want *api.CreateTableInput, cur *api.TableDescription) bool {
	wantStream := want.StreamSpecification != nil && derefOr(want.StreamSpecification.StreamEnabled, false)
	curStream := cur.StreamSpecification != nil && cur.StreamSpecification.StreamEnabled
	switch {
	case wantStream && !curStream:
		if !p.update(ctx, &api.UpdateTableInput{StreamSpecification: want.StreamSpecification}) {
			return false
		}
	case wantStream && curStream && derefOr(want.StreamSpecification.StreamViewType, "") != cur.StreamSpecification.StreamViewType:
		// A view type change is a disable followed by an enable.
		if !p.update(ctx, &api.UpdateTableInput{StreamSpecification: &api.StreamSpecification{StreamEnabled: spec.Bool(false)}}) ||
			!p.update(ctx, &api.UpdateTableInput{StreamSpecification: want.StreamSpecification}) {
			return false
		}
	case !wantStream && curStream && cur.GlobalTableVersion != "":
		// Adding a replica turned the stream on, and a global table's
		// stream cannot be turned off.
	case !wantStream && curStream:
		if !p.update(ctx, &api.UpdateTableInput{StreamSpecification: &api.StreamSpecification{StreamEnabled: spec.Bool(false)}}) {
			return false
		}
	}
	return true
}

// reconcileGSIs creates the indexes want declares that the table lacks,
// re-creates those whose key or projection changed and updates the
// throughput or caps of the others, one UpdateTable each.
func (p *provisioner) reconcileGSIs(ctx context.Context, want *api.CreateTableInput, curGSI map[string]api.GlobalSecondaryIndexDescription) bool {
	wantBilling := derefOr(want.BillingMode, "PROVISIONED")
	for i := range want.GlobalSecondaryIndexes {
		g := want.GlobalSecondaryIndexes[i]
		n := derefOr(g.IndexName, "")
		c, exists := curGSI[n]
		if exists && (keyString(g.KeySchema) != describedKeyString(c.KeySchema) || projString(g.Projection) != describedProjString(c.Projection)) {
			if !p.update(ctx, &api.UpdateTableInput{GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{{Delete: &api.DeleteGlobalSecondaryIndexAction{IndexName: spec.Str(n)}}}}) {
				return false
			}
			exists = false
		}
		if !exists {
			gc := g
			if !p.update(ctx, &api.UpdateTableInput{AttributeDefinitions: want.AttributeDefinitions,
				GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{{Create: &gc}}}) {
				return false
			}
			continue
		}
		act := api.UpdateGlobalSecondaryIndexAction{IndexName: spec.Str(n)}
		changed := false
		if wantBilling == "PROVISIONED" && g.ProvisionedThroughput != nil &&
			(derefOr(g.ProvisionedThroughput.ReadCapacityUnits, 0) != c.ProvisionedThroughput.ReadCapacityUnits ||
				derefOr(g.ProvisionedThroughput.WriteCapacityUnits, 0) != c.ProvisionedThroughput.WriteCapacityUnits) {
			act.ProvisionedThroughput = g.ProvisionedThroughput
			changed = true
		}
		if wantBilling == "PAY_PER_REQUEST" && !sameCaps(g.OnDemandThroughput, c.OnDemandThroughput) {
			act.OnDemandThroughput = capsOrNone(g.OnDemandThroughput)
			changed = true
		}
		if changed {
			if !p.update(ctx, &api.UpdateTableInput{GlobalSecondaryIndexUpdates: []api.GlobalSecondaryIndexUpdate{{Update: &act}}}) {
				return false
			}
		}
	}
	return true
}

func sameCaps(want *api.OnDemandThroughput, cur *api.OnDemandThroughputDescription) bool {
	wr, ww := int64(-1), int64(-1)
	if want != nil {
		wr, ww = derefOr(want.MaxReadRequestUnits, -1), derefOr(want.MaxWriteRequestUnits, -1)
	}
	cr, cw := int64(-1), int64(-1)
	if cur != nil {
		cr, cw = cur.MaxReadRequestUnits, cur.MaxWriteRequestUnits
	}
	return wr == cr && ww == cw
}

// capsOrNone is the OnDemandThroughput that sets want, -1 removing a cap.
func capsOrNone(want *api.OnDemandThroughput) *api.OnDemandThroughput {
	out := &api.OnDemandThroughput{MaxReadRequestUnits: spec.Int(-1), MaxWriteRequestUnits: spec.Int(-1)}
	if want != nil {
		if want.MaxReadRequestUnits != nil {
			out.MaxReadRequestUnits = want.MaxReadRequestUnits
		}
		if want.MaxWriteRequestUnits != nil {
			out.MaxWriteRequestUnits = want.MaxWriteRequestUnits
		}
	}
	return out
}

func projString(p *api.Projection) string {
	if p == nil {
		return ""
	}
	attrs := append([]string(nil), p.NonKeyAttributes...)
	sort.Strings(attrs)
	return derefOr(p.ProjectionType, "") + " " + strings.Join(attrs, ",")
}

func describedProjString(p api.DescribedProjection) string {
	attrs := append([]string(nil), p.NonKeyAttributes...)
	sort.Strings(attrs)
	return p.ProjectionType + " " + strings.Join(attrs, ",")
}

func lsiString(ls []api.LocalSecondaryIndex) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, derefOr(l.IndexName, "")+":"+keyString(l.KeySchema)+":"+projString(l.Projection))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func describedLSIString(ls []api.LocalSecondaryIndexDescription) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.IndexName+":"+describedKeyString(l.KeySchema)+":"+describedProjString(l.Projection))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}
