package iac

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
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
		setDisassociationProtection(ctx, eng, specs, outcomes, &diags)
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
	ns    api.Namespace
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
	var e *api.Error
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
	var e *api.Error
	return errors.As(err, &e) && e.Code == api.CodeResourceNotFound
}

func (p *provisioner) run(ctx context.Context) {
	name := p.s.Name()
	desc, err := p.eng.DescribeTable(ctx, p.ns, &api.DescribeTableInput{TableName: spec.Str(name)})
	var ve *api.Error
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
			desc, err := p.eng.DescribeTable(ctx, p.ns, &api.DescribeTableInput{TableName: spec.Str(name)})
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
	case isNotFound(err), errors.As(err, &ve) && ve.Code == api.CodeValidation:
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
		out, err := p.eng.DescribeTable(ctx, p.ns, &api.DescribeTableInput{TableName: spec.Str(p.s.Name())})
		if err != nil {
			p.fail("DescribeTable", err)
			return false
		}
		ready := out.Table.TableStatus == "ACTIVE" && vectorsReady(out.Table)
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

// addReplica adds this Region to the global table in its home Region
// (UpdateTable ReplicaUpdates Create), as Terraform and CloudFormation do,
// and waits for the replica to be ACTIVE. linked is false when the home
// table cannot take replicas here (absent, or not on demand: write auto
// scaling is not emulated): the caller then creates an independent table.
func (p *provisioner) addReplica(ctx context.Context) (linked, ok bool) {
	home := api.Namespace{Account: p.ns.Account, Region: p.s.Replicas[0]}
	name := spec.Str(p.s.Name())
	for {
		out, err := p.eng.DescribeTable(ctx, home, &api.DescribeTableInput{TableName: name})
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
	a := &api.ReplicationGroupMemberAction{RegionName: spec.Str(p.ns.Region), TableClassOverride: p.s.Create.TableClass}
	if sse := p.s.Create.SSESpecification; sse != nil {
		a.KMSMasterKeyId = sse.KMSMasterKeyId
	}
	if _, err := p.eng.UpdateTable(ctx, home, &api.UpdateTableInput{TableName: name,
		ReplicaUpdates: []api.ReplicationGroupUpdate{{Create: a}}}); err != nil {
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
	if _, err := p.eng.DeleteTable(ctx, p.ns, &api.DeleteTableInput{TableName: name}); err != nil {
		p.fail("DeleteTable", err)
		return false
	}
	for {
		_, err := p.eng.DescribeTable(ctx, p.ns, &api.DescribeTableInput{TableName: name})
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
