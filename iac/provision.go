package iac

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/extenddb/extenddb/progress"
)

// Provision creates each table through the engine's API, or reconciles an
// existing one by UpdateTable's rules. It is idempotent: provisioning the
// same specs twice changes nothing the second time and keeps every item. A
// key schema or LSI change is reported as a warning and not applied (see
// ProvisionWith to replace such tables). Each table's failures are reported
// at its declaration and do not stop the others.
func Provision(ctx context.Context, eng *emulator.Engine, specs []TableSpec) Diagnostics {
	_, diags := ProvisionWith(ctx, eng, specs, ProvisionOptions{})
	return diags
}

// ProvisionOptions configures ProvisionWith.
type ProvisionOptions struct {
	// ReplaceOnKeyChange deletes and re-creates a table whose key schema,
	// key attribute types or local secondary indexes differ from the
	// declaration (UpdateTable cannot change them). Its items are lost.
	// Default false: the table is kept as it is and a warning says so.
	ReplaceOnKeyChange bool
	// Progress, when set, receives the progress of the tables provisioned
	// ("provisioning tables", counted in "tables") and of the items seeded
	// ("seeding items", counted in "items"). Only work that outlasts
	// ProgressEvery is reported (progress.Meter.Quiet): a small load says
	// nothing. Default nil: nothing is reported.
	Progress func(progress.Report)
	// ProgressEvery is the least time between two reports of one kind;
	// zero means progress.DefaultEvery.
	ProgressEvery time.Duration
}

// What provisioning did to one table.
const (
	Created   = "created"
	Updated   = "updated"
	Unchanged = "unchanged"
	// Replaced: deleted and re-created for a key change (ReplaceOnKeyChange).
	Replaced = "replaced"
	// Kept: a key change was declared but not applied; the table is as it was.
	Kept   = "kept"
	Failed = "failed"
)

// Outcome is what provisioning did to one table.
type Outcome struct {
	Spec   *TableSpec
	Action string // Created, Updated, Unchanged, Replaced, Kept or Failed
}

// ProvisionWith is Provision with options; it also reports what it did to
// each table, in the order of specs.
func ProvisionWith(ctx context.Context, eng *emulator.Engine, specs []TableSpec, opts ProvisionOptions) ([]Outcome, Diagnostics) {
	var diags Diagnostics
	var outcomes []Outcome
	meter := func(unit string) *progress.Meter {
		return &progress.Meter{Unit: unit, Report: opts.Progress, Every: opts.ProgressEvery, Quiet: true}
	}
	tables, items := meter("tables"), meter("items")
	reported := map[string]bool{}
	var nItems int64
	for i := range specs {
		nItems += int64(len(specs[i].Items))
	}
	tables.Start("provisioning tables", int64(len(specs)))
	items.Start("seeding items", nItems)
	defer items.Done()
	defer tables.Done()
	// A global table's home Region first: its replicas are added to it.
	order := make([]int, 0, len(specs))
	for _, replicas := range []bool{false, true} {
		for i := range specs {
			if isReplicaSpec(&specs[i]) == replicas {
				order = append(order, i)
			}
		}
	}
	outcomes = make([]Outcome, len(specs))
	done := 0
	for _, i := range order {
		p := provisioner{eng: eng, s: &specs[i], ns: specs[i].Namespace(), diags: &diags, opts: opts, items: items, reported: reported}
		errs := len(diags.Errs())
		p.run(ctx)
		action := p.action
		switch {
		case len(diags.Errs()) > errs, p.failed:
			action = Failed
		case action == "" && p.changed:
			action = Updated
		case action == "":
			action = Unchanged
		}
		outcomes[i] = Outcome{Spec: &specs[i], Action: action}
		done++
		tables.Add(1)
		if ctx.Err() != nil {
			diags.Errorf(Pos{}, "provisioning interrupted: %v", ctx.Err())
			break
		}
	}
	if done == len(specs) {
		linkLegacyGlobals(ctx, eng, specs, &diags)
	}
	if done < len(specs) {
		// Interrupted: report only the tables dealt with, in spec order.
		kept := outcomes[:0]
		for _, o := range outcomes {
			if o.Spec != nil {
				kept = append(kept, o)
			}
		}
		outcomes = kept
	}
	return outcomes, diags
}

// isReplicaSpec reports whether s is a global table's replica in another
// Region than its home (Replicas[0]).
func isReplicaSpec(s *TableSpec) bool {
	return len(s.Replicas) > 1 && s.Region != s.Replicas[0]
}

type provisioner struct {
	eng   *emulator.Engine
	s     *TableSpec
	ns    emulator.Namespace
	diags *Diagnostics
	opts  ProvisionOptions
	// reported holds the errors reported so far (fail); failed records
	// that this table had one, reported or not.
	reported map[string]bool
	failed   bool
	// items counts the seed items provisioned, written or already there.
	items *progress.Meter
	// action is Created, Replaced or Kept once decided; changed records
	// that a reconcile step changed something.
	action  string
	changed bool
}

// fail reports err of op. An error of CreateTable or UpdateTable about a
// member of the declaration is reported where that member is declared
// (spec.Blame), else at the table; the same error at the same place (a
// replica of the same declaration) is reported once.
func (p *provisioner) fail(op string, err error) {
	var e *emulator.Error
	if (op == "CreateTable" || op == "UpdateTable") && errors.As(err, &e) {
		p.failAt(op, err, spec.Blame(&p.s.Create, e.Message)...)
		return
	}
	p.failAt(op, err)
}

// failAtPos reports err of op at pos, or at the table when pos is unknown.
func (p *provisioner) failAtPos(op string, err error, pos spec.Pos) {
	if pos.File == "" {
		p.failAt(op, err)
		return
	}
	p.failed = true
	key := pos.String() + "\x00" + op + "\x00" + err.Error()
	if p.reported[key] {
		return
	}
	p.reported[key] = true
	p.diags.Errorf(pos, "%s (%s in %s/%s): %s: %v", p.s.Source, p.s.Name(), p.ns.Account, p.ns.Region, op, err)
}

// failAt reports err of op where the first of paths found is declared
// (spec.TableSpec.PosOf), else at the table.
func (p *provisioner) failAt(op string, err error, paths ...string) {
	p.failed = true
	pos := p.s.PosOf(paths...)
	key := pos.String() + "\x00" + op + "\x00" + err.Error()
	if p.reported[key] {
		return
	}
	p.reported[key] = true
	p.diags.Errorf(pos, "%s (%s in %s/%s): %s: %v", p.s.Source, p.s.Name(), p.ns.Account, p.ns.Region, op, err)
}

func isNotFound(err error) bool {
	var e *emulator.Error
	return errors.As(err, &e) && e.Code == emulator.CodeResourceNotFound
}

func (p *provisioner) run(ctx context.Context) {
	name := p.s.Name()
	desc, err := p.eng.DescribeTable(ctx, p.ns, &emulator.DescribeTableInput{TableName: spec.Str(name)})
	var ve *emulator.Error
	switch {
	case isNotFound(err) && isReplicaSpec(p.s):
		linked, ok := p.addReplica(ctx)
		if !ok {
			return
		}
		if !linked && !p.create(ctx) {
			return
		}
		p.action = Created
		if linked {
			desc, err := p.eng.DescribeTable(ctx, p.ns, &emulator.DescribeTableInput{TableName: spec.Str(name)})
			if err != nil {
				p.fail("DescribeTable", err)
				return
			}
			// Per-Region settings (deletion protection, …) the replica
			// did not get from the group.
			if !p.reconcile(ctx, desc.Table) {
				return
			}
		}
	case isNotFound(err), errors.As(err, &ve) && ve.Code == emulator.CodeValidation:
		// A name DescribeTable rejects names no existing table:
		// CreateTable reports what is wrong with it.
		if !p.create(ctx) {
			return
		}
		p.action = Created
	case err != nil:
		p.fail("DescribeTable", err)
		return
	default:
		if !p.reconcile(ctx, desc.Table) {
			return
		}
	}
	if p.action == Kept {
		// The declaration does not describe this table; reconciling its
		// attributes against it would be guesswork.
		return
	}
	if !p.waitActive(ctx) {
		return
	}
	p.ttl(ctx)
	p.pitr(ctx)
	p.insights(ctx)
	p.kinesis(ctx)
	p.tags(ctx)
	p.policies(ctx)
	p.seed(ctx)
}

// waitActive waits for the table and its indexes to leave the transitional
// states the engine may hold them in (see emulator.Options.TransitionDelay).
func (p *provisioner) waitActive(ctx context.Context) bool {
	for {
		out, err := p.eng.DescribeTable(ctx, p.ns, &emulator.DescribeTableInput{TableName: spec.Str(p.s.Name())})
		if err != nil {
			p.fail("DescribeTable", err)
			return false
		}
		ready := out.Table.TableStatus == "ACTIVE"
		for _, g := range out.Table.GlobalSecondaryIndexes {
			if g.IndexStatus != "ACTIVE" {
				ready = false
			}
		}
		if ready {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func keyString(ks []emulator.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, derefOr(k.AttributeName, "")+" "+derefOr(k.KeyType, ""))
	}
	return strings.Join(parts, ", ")
}

func describedKeyString(ks []emulator.DescribedKeySchemaElement) string {
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

func attrType(defs []emulator.AttributeDefinition, name string) string {
	for _, d := range defs {
		if derefOr(d.AttributeName, "") == name {
			return derefOr(d.AttributeType, "")
		}
	}
	return ""
}

func describedAttrType(defs []emulator.DescribedAttributeDefinition, name string) string {
	for _, d := range defs {
		if d.AttributeName == name {
			return d.AttributeType
		}
	}
	return ""
}

// keyChange describes what of the keys (key schema, key attribute types,
// LSIs) differs between the declaration and the table; "" when nothing.
func keyChange(want *emulator.CreateTableInput, cur *emulator.TableDescription) string {
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

// addReplica adds this Region to the global table in its home Region
// (UpdateTable ReplicaUpdates Create), as Terraform and CloudFormation do,
// and waits for the replica to be ACTIVE. linked is false when the home
// table cannot take replicas here (absent, or not on demand: write auto
// scaling is not emulated): the caller then creates an independent table.
func (p *provisioner) addReplica(ctx context.Context) (linked, ok bool) {
	home := emulator.Namespace{Account: p.ns.Account, Region: p.s.Replicas[0]}
	name := spec.Str(p.s.Name())
	for {
		out, err := p.eng.DescribeTable(ctx, home, &emulator.DescribeTableInput{TableName: name})
		if err != nil {
			return false, true
		}
		if out.Table.BillingModeSummary == nil || out.Table.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" {
			p.diags.Infof(p.s.Pos, "%s: table %s in %s is not on demand, so the replica in %s is an independent table (write auto scaling is not emulated)",
				p.s.Source, p.s.Name(), home.Region, p.ns.Region)
			return false, true
		}
		if out.Table.TableStatus == "ACTIVE" {
			break
		}
		select {
		case <-ctx.Done():
			return false, false
		case <-time.After(20 * time.Millisecond):
		}
	}
	a := &emulator.ReplicationGroupMemberAction{RegionName: spec.Str(p.ns.Region), TableClassOverride: p.s.Create.TableClass}
	if sse := p.s.Create.SSESpecification; sse != nil {
		a.KMSMasterKeyId = sse.KMSMasterKeyId
	}
	if _, err := p.eng.UpdateTable(ctx, home, &emulator.UpdateTableInput{TableName: name,
		ReplicaUpdates: []emulator.ReplicationGroupUpdate{{Create: a}}}); err != nil {
		p.fail("UpdateTable", err)
		return false, false
	}
	return true, p.waitActive(ctx)
}

// create issues the declaration's CreateTable.
func (p *provisioner) create(ctx context.Context) bool {
	if p.s.Import != nil {
		return p.importTable(ctx)
	}
	in := p.s.Create
	if _, err := p.eng.CreateTable(ctx, p.ns, &in); err != nil {
		p.fail("CreateTable", err)
		return false
	}
	return true
}

// replace deletes the table, waits until it is gone, and creates it anew.
func (p *provisioner) replace(ctx context.Context) bool {
	name := spec.Str(p.s.Name())
	if _, err := p.eng.DeleteTable(ctx, p.ns, &emulator.DeleteTableInput{TableName: name}); err != nil {
		p.fail("DeleteTable", err)
		return false
	}
	for {
		_, err := p.eng.DescribeTable(ctx, p.ns, &emulator.DescribeTableInput{TableName: name})
		if isNotFound(err) {
			break
		}
		if err != nil {
			p.fail("DescribeTable", err)
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p.create(ctx)
}

// reconcile brings an existing table to the declaration with UpdateTable.
// It returns false when the table cannot be reconciled.
func (p *provisioner) reconcile(ctx context.Context, cur *emulator.TableDescription) bool {
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
	name := spec.Str(p.s.Name())
	update := func(in *emulator.UpdateTableInput) bool {
		in.TableName = name
		if _, err := p.eng.UpdateTable(ctx, p.ns, in); err != nil {
			p.fail("UpdateTable", err)
			return false
		}
		p.changed = true
		return p.waitActive(ctx)
	}

	// Global secondary indexes the declaration no longer has go first, so a
	// switch to PROVISIONED below need not give them a throughput. GSI
	// changes are one per UpdateTable, as DynamoDB requires.
	curGSI := map[string]emulator.GlobalSecondaryIndexDescription{}
	for _, g := range cur.GlobalSecondaryIndexes {
		curGSI[g.IndexName] = g
	}
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
		if !update(&emulator.UpdateTableInput{GlobalSecondaryIndexUpdates: []emulator.GlobalSecondaryIndexUpdate{{Delete: &emulator.DeleteGlobalSecondaryIndexAction{IndexName: spec.Str(n)}}}}) {
			return false
		}
	}
	// Billing mode, throughput and caps.
	wantBilling := derefOr(want.BillingMode, "PROVISIONED")
	curBilling := "PROVISIONED"
	if cur.BillingModeSummary != nil && cur.BillingModeSummary.BillingMode != "" {
		curBilling = cur.BillingModeSummary.BillingMode
	}
	var u emulator.UpdateTableInput
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
	if changed {
		if wantBilling == "PAY_PER_REQUEST" && u.BillingMode != nil && want.OnDemandThroughput != nil {
			u.OnDemandThroughput = want.OnDemandThroughput
		}
		if wantBilling == "PROVISIONED" && u.BillingMode != nil {
			// DynamoDB requires every index's throughput in the same call
			// that leaves on-demand ("ProvisionedThroughput must be
			// specified for index").
			for _, g := range want.GlobalSecondaryIndexes {
				if _, ok := curGSI[derefOr(g.IndexName, "")]; ok && g.ProvisionedThroughput != nil {
					u.GlobalSecondaryIndexUpdates = append(u.GlobalSecondaryIndexUpdates, emulator.GlobalSecondaryIndexUpdate{
						Update: &emulator.UpdateGlobalSecondaryIndexAction{IndexName: g.IndexName, ProvisionedThroughput: g.ProvisionedThroughput}})
				}
			}
		}
		if !update(&u) {
			return false
		}
		// The indexes' throughput changed with the table's.
		out, err := p.eng.DescribeTable(ctx, p.ns, &emulator.DescribeTableInput{TableName: name})
		if err != nil {
			p.fail("DescribeTable", err)
			return false
		}
		cur = out.Table
		clear(curGSI)
		for _, g := range cur.GlobalSecondaryIndexes {
			curGSI[g.IndexName] = g
		}
	}
	if w := want.WarmThroughput; w != nil && (cur.WarmThroughput == nil ||
		(w.ReadUnitsPerSecond != nil && *w.ReadUnitsPerSecond != cur.WarmThroughput.ReadUnitsPerSecond) ||
		(w.WriteUnitsPerSecond != nil && *w.WriteUnitsPerSecond != cur.WarmThroughput.WriteUnitsPerSecond)) {
		if !update(&emulator.UpdateTableInput{WarmThroughput: w}) {
			return false
		}
	}

	// Stream.
	wantStream := want.StreamSpecification != nil && derefOr(want.StreamSpecification.StreamEnabled, false)
	curStream := cur.StreamSpecification != nil && cur.StreamSpecification.StreamEnabled
	switch {
	case wantStream && !curStream:
		if !update(&emulator.UpdateTableInput{StreamSpecification: want.StreamSpecification}) {
			return false
		}
	case wantStream && curStream && derefOr(want.StreamSpecification.StreamViewType, "") != cur.StreamSpecification.StreamViewType:
		// A view type change is a disable followed by an enable.
		if !update(&emulator.UpdateTableInput{StreamSpecification: &emulator.StreamSpecification{StreamEnabled: spec.Bool(false)}}) ||
			!update(&emulator.UpdateTableInput{StreamSpecification: want.StreamSpecification}) {
			return false
		}
	case !wantStream && curStream && cur.GlobalTableVersion != "":
		// Adding a replica turned the stream on, and a global table's
		// stream cannot be turned off.
	case !wantStream && curStream:
		if !update(&emulator.UpdateTableInput{StreamSpecification: &emulator.StreamSpecification{StreamEnabled: spec.Bool(false)}}) {
			return false
		}
	}

	// Table class and deletion protection.
	curClass := "STANDARD"
	if cur.TableClassSummary != nil && cur.TableClassSummary.TableClass != "" {
		curClass = cur.TableClassSummary.TableClass
	}
	if derefOr(want.TableClass, "STANDARD") != curClass {
		if !update(&emulator.UpdateTableInput{TableClass: spec.Str(derefOr(want.TableClass, "STANDARD"))}) {
			return false
		}
	}
	if derefOr(want.DeletionProtectionEnabled, false) != cur.DeletionProtectionEnabled {
		if !update(&emulator.UpdateTableInput{DeletionProtectionEnabled: spec.Bool(derefOr(want.DeletionProtectionEnabled, false))}) {
			return false
		}
	}

	for i := range want.GlobalSecondaryIndexes {
		g := want.GlobalSecondaryIndexes[i]
		n := derefOr(g.IndexName, "")
		c, exists := curGSI[n]
		if exists && (keyString(g.KeySchema) != describedKeyString(c.KeySchema) || projString(g.Projection) != describedProjString(c.Projection)) {
			if !update(&emulator.UpdateTableInput{GlobalSecondaryIndexUpdates: []emulator.GlobalSecondaryIndexUpdate{{Delete: &emulator.DeleteGlobalSecondaryIndexAction{IndexName: spec.Str(n)}}}}) {
				return false
			}
			exists = false
		}
		if !exists {
			gc := g
			if !update(&emulator.UpdateTableInput{AttributeDefinitions: want.AttributeDefinitions,
				GlobalSecondaryIndexUpdates: []emulator.GlobalSecondaryIndexUpdate{{Create: &gc}}}) {
				return false
			}
			continue
		}
		act := emulator.UpdateGlobalSecondaryIndexAction{IndexName: spec.Str(n)}
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
			if !update(&emulator.UpdateTableInput{GlobalSecondaryIndexUpdates: []emulator.GlobalSecondaryIndexUpdate{{Update: &act}}}) {
				return false
			}
		}
	}
	return true
}

func sameCaps(want *emulator.OnDemandThroughput, cur *emulator.OnDemandThroughputDescription) bool {
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
func capsOrNone(want *emulator.OnDemandThroughput) *emulator.OnDemandThroughput {
	out := &emulator.OnDemandThroughput{MaxReadRequestUnits: spec.Int(-1), MaxWriteRequestUnits: spec.Int(-1)}
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

func projString(p *emulator.Projection) string {
	if p == nil {
		return ""
	}
	attrs := append([]string(nil), p.NonKeyAttributes...)
	sort.Strings(attrs)
	return derefOr(p.ProjectionType, "") + " " + strings.Join(attrs, ",")
}

func describedProjString(p emulator.DescribedProjection) string {
	attrs := append([]string(nil), p.NonKeyAttributes...)
	sort.Strings(attrs)
	return p.ProjectionType + " " + strings.Join(attrs, ",")
}

func lsiString(ls []emulator.LocalSecondaryIndex) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, derefOr(l.IndexName, "")+":"+keyString(l.KeySchema)+":"+projString(l.Projection))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func describedLSIString(ls []emulator.LocalSecondaryIndexDescription) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.IndexName+":"+describedKeyString(l.KeySchema)+":"+describedProjString(l.Projection))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func (p *provisioner) ttl(ctx context.Context) {
	name := spec.Str(p.s.Name())
	cur, err := p.eng.DescribeTimeToLive(ctx, p.ns, &emulator.DescribeTimeToLiveInput{TableName: name})
	if err != nil {
		p.fail("DescribeTimeToLive", err)
		return
	}
	curOn := cur.TimeToLiveDescription != nil && (cur.TimeToLiveDescription.TimeToLiveStatus == "ENABLED" || cur.TimeToLiveDescription.TimeToLiveStatus == "ENABLING")
	curAttr := ""
	if cur.TimeToLiveDescription != nil {
		curAttr = cur.TimeToLiveDescription.AttributeName
	}
	want := p.s.TTL
	wantOn := want != nil && derefOr(want.Enabled, false)
	set := func(on bool, attr string) bool {
		_, err := p.eng.UpdateTimeToLive(ctx, p.ns, &emulator.UpdateTimeToLiveInput{TableName: name,
			TimeToLiveSpecification: &emulator.TimeToLiveSpecification{Enabled: spec.Bool(on), AttributeName: spec.Str(attr)}})
		if err != nil {
			p.fail("UpdateTimeToLive", err)
			return false
		}
		p.changed = true
		return true
	}
	switch {
	case wantOn && !curOn:
		set(true, derefOr(want.AttributeName, ""))
	case wantOn && curOn && derefOr(want.AttributeName, "") != curAttr:
		if set(false, curAttr) {
			set(true, derefOr(want.AttributeName, ""))
		}
	case !wantOn && curOn:
		set(false, curAttr)
	}
}

func (p *provisioner) pitr(ctx context.Context) {
	name := spec.Str(p.s.Name())
	want := p.s.PITR
	wantOn := want != nil && derefOr(want.PointInTimeRecoveryEnabled, false)
	cur, err := p.eng.DescribeContinuousBackups(ctx, p.ns, &emulator.DescribeContinuousBackupsInput{TableName: name})
	if err != nil {
		p.fail("DescribeContinuousBackups", err)
		return
	}
	curOn := false
	var curDays int64
	if d := cur.ContinuousBackupsDescription; d != nil && d.PointInTimeRecoveryDescription != nil {
		curOn = d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == "ENABLED"
		curDays = derefOr(d.PointInTimeRecoveryDescription.RecoveryPeriodInDays, 0)
	}
	if wantOn == curOn && (!wantOn || want.RecoveryPeriodInDays == nil || *want.RecoveryPeriodInDays == curDays) {
		return
	}
	in := &emulator.UpdateContinuousBackupsInput{TableName: name,
		PointInTimeRecoverySpecification: &emulator.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: spec.Bool(wantOn)}}
	if wantOn {
		in.PointInTimeRecoverySpecification.RecoveryPeriodInDays = want.RecoveryPeriodInDays
	}
	if _, err := p.eng.UpdateContinuousBackups(ctx, p.ns, in); err != nil {
		p.fail("UpdateContinuousBackups", err)
	}
	p.changed = true
}

// insights applies the declared Contributor Insights settings, table
// first, then each GSI by name; one already as declared is left alone.
func (p *provisioner) insights(ctx context.Context) {
	names := make([]string, 0, len(p.s.Insights))
	for k := range p.s.Insights {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, index := range names {
		want := p.s.Insights[index]
		var ip *string
		if index != "" {
			ip = spec.Str(index)
		}
		cur, err := p.eng.DescribeContributorInsights(ctx, p.ns, &emulator.DescribeContributorInsightsInput{TableName: spec.Str(p.s.Name()), IndexName: ip})
		if err != nil {
			p.failAtPos("DescribeContributorInsights", err, want.Pos)
			continue
		}
		on := cur.ContributorInsightsStatus == "ENABLING" || cur.ContributorInsightsStatus == "ENABLED"
		if on == want.Enabled && (!on || want.Mode == nil || *want.Mode == cur.ContributorInsightsMode) {
			continue
		}
		action := "DISABLE"
		if want.Enabled {
			action = "ENABLE"
		}
		in := &emulator.UpdateContributorInsightsInput{TableName: spec.Str(p.s.Name()), IndexName: ip, ContributorInsightsAction: spec.Str(action)}
		if want.Enabled {
			in.ContributorInsightsMode = want.Mode
		}
		if _, err := p.eng.UpdateContributorInsights(ctx, p.ns, in); err != nil {
			p.failAtPos("UpdateContributorInsights", err, want.Pos)
			continue
		}
		p.changed = true
	}
}

// kinesis makes the declared Kinesis streaming destination the table's only
// live one: it disables the others, enables the declared stream (or
// updates its precision), and waits for each change to settle, so a
// destination switched to another stream can be enabled (the engine
// allows one live destination per table).
func (p *provisioner) kinesis(ctx context.Context) {
	name := spec.Str(p.s.Name())
	want := p.s.Kinesis
	wantPrec := "MILLISECOND"
	if want != nil && want.Precision != "" {
		wantPrec = want.Precision
	}
	cur, ok := p.kinesisSettled(ctx)
	if !ok {
		return
	}
	var have *emulator.KinesisDataStreamDestination
	for i := range cur {
		d := &cur[i]
		if d.DestinationStatus != "ACTIVE" {
			continue
		}
		if want != nil && d.StreamArn == want.StreamArn {
			have = d
			continue
		}
		if _, err := p.eng.DisableKinesisStreamingDestination(ctx, p.ns, &emulator.KinesisStreamingDestinationInput{TableName: name, StreamArn: spec.Str(d.StreamArn)}); err != nil {
			p.failAt("DisableKinesisStreamingDestination", err, "KinesisStreamSpecification")
			return
		}
		p.changed = true
	}
	if want == nil {
		return
	}
	if _, ok := p.kinesisSettled(ctx); !ok {
		return
	}
	switch {
	case have == nil:
		in := &emulator.KinesisStreamingDestinationInput{TableName: name, StreamArn: spec.Str(want.StreamArn)}
		if want.Precision != "" {
			in.EnableKinesisStreamingConfiguration = &emulator.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: spec.Str(want.Precision)}
		}
		if _, err := p.eng.EnableKinesisStreamingDestination(ctx, p.ns, in); err != nil {
			p.failAt("EnableKinesisStreamingDestination", err, "KinesisStreamSpecification")
			return
		}
	case have.ApproximateCreationDateTimePrecision != wantPrec:
		if _, err := p.eng.UpdateKinesisStreamingDestination(ctx, p.ns, &emulator.UpdateKinesisStreamingDestinationInput{TableName: name, StreamArn: spec.Str(want.StreamArn),
			UpdateKinesisStreamingConfiguration: &emulator.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: spec.Str(wantPrec)}}); err != nil {
			p.failAt("UpdateKinesisStreamingDestination", err, "KinesisStreamSpecification")
			return
		}
	default:
		return
	}
	p.changed = true
	if cur, ok := p.kinesisSettled(ctx); ok {
		for _, d := range cur {
			if d.StreamArn == want.StreamArn && d.DestinationStatus == "ENABLE_FAILED" {
				p.failAt("EnableKinesisStreamingDestination", fmt.Errorf("%s", d.DestinationStatusDescription), "KinesisStreamSpecification")
			}
		}
	}
}

// kinesisSettled waits until no destination of the table is ENABLING,
// UPDATING or DISABLING and returns them.
func (p *provisioner) kinesisSettled(ctx context.Context) ([]emulator.KinesisDataStreamDestination, bool) {
	for {
		out, err := p.eng.DescribeKinesisStreamingDestination(ctx, p.ns, &emulator.DescribeKinesisStreamingDestinationInput{TableName: spec.Str(p.s.Name())})
		if err != nil {
			p.failAt("DescribeKinesisStreamingDestination", err, "KinesisStreamSpecification")
			return nil, false
		}
		settled := true
		for _, d := range out.KinesisDataStreamDestinations {
			switch d.DestinationStatus {
			case "ENABLING", "UPDATING", "DISABLING":
				settled = false
			}
		}
		if settled {
			return out.KinesisDataStreamDestinations, true
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tags makes the table's tags exactly the declared ones.
func (p *provisioner) tags(ctx context.Context) {
	arn := spec.Str(p.s.ARN())
	cur := map[string]string{}
	var token *string
	for {
		out, err := p.eng.ListTagsOfResource(ctx, p.ns, &emulator.ListTagsOfResourceInput{ResourceArn: arn, NextToken: token})
		if err != nil {
			p.fail("ListTagsOfResource", err)
			return
		}
		for _, t := range out.Tags {
			cur[t.Key] = t.Value
		}
		if out.NextToken == "" {
			break
		}
		token = spec.Str(out.NextToken)
	}
	want := map[string]string{}
	var add []emulator.Tag
	for _, t := range p.s.Create.Tags {
		k, v := derefOr(t.Key, ""), derefOr(t.Value, "")
		want[k] = v
		if c, ok := cur[k]; !ok || c != v {
			add = append(add, emulator.Tag{Key: spec.Str(k), Value: spec.Str(v)})
		}
	}
	var remove []string
	for k := range cur {
		if _, ok := want[k]; !ok {
			remove = append(remove, k)
		}
	}
	sort.Strings(remove)
	if len(remove) > 0 || len(add) > 0 {
		p.changed = true
	}
	if len(remove) > 0 {
		if _, err := p.eng.UntagResource(ctx, p.ns, &emulator.UntagResourceInput{ResourceArn: arn, TagKeys: remove}); err != nil {
			p.fail("UntagResource", err)
		}
	}
	if len(add) > 0 {
		if _, err := p.eng.TagResource(ctx, p.ns, &emulator.TagResourceInput{ResourceArn: arn, Tags: add}); err != nil {
			p.fail("TagResource", err)
		}
	}
}

// policies makes the resource-based policies of the table and of its
// latest stream exactly the declared ones (an undeclared one is deleted, as
// tags are reconciled). A policy CreateTable already applied is left alone.
func (p *provisioner) policies(ctx context.Context) {
	p.policy(ctx, p.s.ARN(), p.s.Create.ResourcePolicy, "ResourcePolicy")
	if p.s.StreamPolicy == nil && p.s.Create.StreamSpecification == nil {
		return
	}
	out, err := p.eng.DescribeTable(ctx, p.ns, &emulator.DescribeTableInput{TableName: spec.Str(p.s.Name())})
	if err != nil {
		p.fail("DescribeTable", err)
		return
	}
	if out.Table.LatestStreamArn == "" {
		if p.s.StreamPolicy != nil {
			p.diags.Errorf(p.s.PosOf(streamPolicyPath), "%s (%s in %s/%s): a stream resource policy needs the table's stream to be enabled",
				p.s.Source, p.s.Name(), p.ns.Account, p.ns.Region)
			p.failed = true
		}
		return
	}
	p.policy(ctx, out.Table.LatestStreamArn, p.s.StreamPolicy, streamPolicyPath)
}

// streamPolicyPath is where loaders record a stream policy's declaration.
const streamPolicyPath = "StreamSpecification.ResourcePolicy"

// policy puts want on arn when it differs from the current policy, or
// deletes the current one when want is nil; errors are reported where the
// policy is declared (path).
func (p *provisioner) policy(ctx context.Context, arn string, want *string, path string) {
	cur, err := p.eng.GetResourcePolicy(ctx, p.ns, &emulator.GetResourcePolicyInput{ResourceArn: spec.Str(arn)})
	var e *emulator.Error
	switch {
	case errors.As(err, &e) && e.Code == emulator.CodePolicyNotFound:
		cur = nil
	case err != nil:
		p.failAt("GetResourcePolicy", err, path)
		return
	}
	switch {
	case want == nil && cur != nil:
		if _, err := p.eng.DeleteResourcePolicy(ctx, p.ns, &emulator.DeleteResourcePolicyInput{ResourceArn: spec.Str(arn)}); err != nil {
			p.failAt("DeleteResourcePolicy", err, path)
			return
		}
		p.changed = true
	case want != nil && (cur == nil || cur.Policy != *want):
		in := &emulator.PutResourcePolicyInput{ResourceArn: spec.Str(arn), Policy: want}
		if p.s.ConfirmRemoveSelf {
			in.ConfirmRemoveSelfResourceAccess = spec.Bool(true)
		}
		if _, err := p.eng.PutResourcePolicy(ctx, p.ns, in); err != nil {
			p.failAt("PutResourcePolicy", err, path)
			return
		}
		p.changed = true
	}
}

// seed writes each declared item whose key is absent, so a reload never
// overwrites what a session changed.
func (p *provisioner) seed(ctx context.Context) {
	name := spec.Str(p.s.Name())
	for i, item := range p.s.Items {
		p.items.Add(1)
		pos := p.s.Pos
		if i < len(p.s.ItemPos) {
			pos = p.s.ItemPos[i]
		}
		key := av.Item{}
		for _, k := range p.s.Create.KeySchema {
			n := derefOr(k.AttributeName, "")
			v, ok := item[n]
			if !ok {
				p.diags.Errorf(pos, "seed item for table %s lacks key attribute %s", p.s.Name(), n)
				key = nil
				break
			}
			key[n] = v
		}
		if key == nil {
			continue
		}
		got, err := p.eng.GetItem(ctx, p.ns, &emulator.GetItemInput{TableName: name, Key: key, ConsistentRead: spec.Bool(true)})
		if err != nil {
			p.diags.Errorf(pos, "seed item for table %s: GetItem: %v", p.s.Name(), err)
			continue
		}
		if got.Item != nil {
			continue
		}
		if _, err := p.eng.PutItem(ctx, p.ns, &emulator.PutItemInput{TableName: name, Item: item}); err != nil {
			p.diags.Errorf(pos, "seed item for table %s: PutItem: %v", p.s.Name(), err)
		}
		p.changed = true
	}
}

// linkLegacyGlobals creates each declared global table version 2017.11.29
// over its provisioned members (CreateGlobalTable), or brings an existing
// one's Regions to the declared ones (UpdateGlobalTable), as Terraform's
// aws_dynamodb_global_table does. The engine refuses them unless it runs
// with --legacy-global-tables.
func linkLegacyGlobals(ctx context.Context, eng *emulator.Engine, specs []TableSpec, diags *Diagnostics) {
	done := map[*spec.LegacyGlobal]bool{}
	for i := range specs {
		g := specs[i].LegacyGlobal
		if g == nil || done[g] {
			continue
		}
		done[g] = true
		ns := emulator.Namespace{Account: g.Account, Region: g.Regions[0]}
		cur, err := eng.DescribeGlobalTable(ctx, ns, &emulator.DescribeGlobalTableInput{GlobalTableName: &g.Name})
		if err != nil {
			if !errors.Is(err, &emulator.Error{Code: emulator.CodeGlobalTableNotFound}) {
				diags.Errorf(g.Pos, "%s: DescribeGlobalTable: %v", g.Source, err)
				continue
			}
			in := &emulator.CreateGlobalTableInput{GlobalTableName: &g.Name}
			for _, r := range g.Regions {
				in.ReplicationGroup = append(in.ReplicationGroup, emulator.GlobalTableReplica{RegionName: &r})
			}
			if _, err := eng.CreateGlobalTable(ctx, ns, in); err != nil {
				diags.Errorf(g.Pos, "%s: CreateGlobalTable: %v%s", g.Source, err, legacyHint(err))
			}
			continue
		}
		have := map[string]bool{}
		for _, r := range cur.GlobalTableDescription.ReplicationGroup {
			have[r.RegionName] = true
		}
		want := map[string]bool{}
		in := &emulator.UpdateGlobalTableInput{GlobalTableName: &g.Name}
		for _, r := range g.Regions {
			want[r] = true
			if !have[r] {
				in.ReplicaUpdates = append(in.ReplicaUpdates, emulator.GlobalTableReplicaUpdate{Create: &emulator.GlobalTableReplica{RegionName: &r}})
			}
		}
		for _, r := range cur.GlobalTableDescription.ReplicationGroup {
			if !want[r.RegionName] {
				in.ReplicaUpdates = append(in.ReplicaUpdates, emulator.GlobalTableReplicaUpdate{Delete: &emulator.GlobalTableReplica{RegionName: &r.RegionName}})
			}
		}
		if len(in.ReplicaUpdates) == 0 {
			continue
		}
		if _, err := eng.UpdateGlobalTable(ctx, ns, in); err != nil {
			diags.Errorf(g.Pos, "%s: UpdateGlobalTable: %v", g.Source, err)
		}
	}
}

// importTable creates the table with ImportTable, as Terraform's
// import_table and CloudFormation's ImportSourceSpecification do, and waits
// for the import to end. Items that failed validation leave the table with
// the valid ones (a warning); any other failure leaves no table (an error).
func (p *provisioner) importTable(ctx context.Context) bool {
	c := p.s.Create
	in := *p.s.Import
	in.ClientToken = spec.Str(newToken())
	in.TableCreationParameters = &emulator.TableCreationParameters{TableName: c.TableName,
		AttributeDefinitions: c.AttributeDefinitions, KeySchema: c.KeySchema, BillingMode: c.BillingMode,
		ProvisionedThroughput: c.ProvisionedThroughput, OnDemandThroughput: c.OnDemandThroughput,
		SSESpecification: c.SSESpecification, GlobalSecondaryIndexes: c.GlobalSecondaryIndexes}
	if len(c.LocalSecondaryIndexes) > 0 || c.StreamSpecification != nil {
		p.diags.Warnf(p.s.Pos, "%s: ImportTable creates no local secondary indexes or stream; they are left out", p.s.Source)
	}
	out, err := p.eng.ImportTable(ctx, p.ns, &in)
	if err != nil {
		p.failAt("ImportTable", err)
		return false
	}
	arn := out.ImportTableDescription.ImportArn
	for {
		d, err := p.eng.DescribeImport(ctx, p.ns, &emulator.DescribeImportInput{ImportArn: &arn})
		if err != nil {
			p.failAt("DescribeImport", err)
			return false
		}
		switch desc := d.ImportTableDescription; desc.ImportStatus {
		case "COMPLETED":
			return true
		case "IN_PROGRESS":
		default:
			msg := fmt.Sprintf("%s: import %s ended %s: %s: %s (%d items imported, %d errors)", p.s.Source, arn, desc.ImportStatus,
				derefOr(desc.FailureCode, ""), derefOr(desc.FailureMessage, ""), desc.ImportedItemCount, desc.ErrorCount)
			if derefOr(desc.FailureCode, "") == "ItemValidationError" {
				p.diags.Warnf(p.s.Pos, "%s", msg)
				return true
			}
			p.failed = true
			p.diags.Errorf(p.s.Pos, "%s", msg)
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// legacyHint explains the error of a server without --legacy-global-tables.
func legacyHint(err error) string {
	var e *emulator.Error
	if errors.As(err, &e) && e.Code == emulator.CodeValidation && strings.Contains(e.Message, "2017.11.29 is not supported") {
		return " (start the server with --legacy-global-tables to serve global tables version 2017.11.29)"
	}
	return ""
}

// newToken is a random UUID, the ClientToken the SDKs generate.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
