package emulator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// maxDecreasesBeforeHourly is how many provisioned-throughput decreases a
// table or index gets per UTC day before the one-per-hour rule applies.
const maxDecreasesBeforeHourly = 4

const decreaseTimeLayout = "Monday, January 2, 2006 3:04:05 PM MST"

// updateConcerns says which kinds of change an UpdateTable request carries.
type updateConcerns struct {
	pt, billing, stream, sse, class, dp, dap, odt, warm, replica bool
	gsiCreate, gsiDelete, gsiUpdate                              int
	vecCreate, vecDelete                                         int // vector_update.go
}

func (c updateConcerns) count() int {
	n := c.gsiCreate + c.gsiDelete + c.gsiUpdate + c.vecCreate + c.vecDelete
	for _, b := range []bool{c.pt, c.billing, c.stream, c.sse, c.class, c.dp, c.dap, c.odt, c.warm, c.replica} {
		if b {
			n++
		}
	}
	return n
}

// UpdateTable changes a table's settings and global secondary indexes.
func (e *Engine) UpdateTable(ctx context.Context, ns api.Namespace, in *api.UpdateTableInput) (*api.UpdateTableOutput, error) {
	if in == nil {
		in = &api.UpdateTableInput{}
	}
	if err := shape.RequiredTableName(in.TableName); err != nil {
		return nil, err
	}
	if err := validateUpdateShape(in); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	c, err := updateRequestRules(in)
	if err != nil {
		return nil, err
	}
	tns, name, err := resolveName(ns, *in.TableName)
	if err != nil {
		return nil, err
	}

	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, api.TableNotFound(name)
	}
	if err := globaltables.CheckDisassociation(t.Name, t.Region, &t.Membership, in, now); err != nil {
		return nil, err
	}
	if t.Legacy != nil && len(in.ReplicaUpdates) > 0 {
		// The two versions do not mix: a legacy group changes through
		// UpdateGlobalTable (unverified message, docs/differences.md).
		return nil, api.Validation("Table %s is a replica of a global table version %s; use UpdateGlobalTable to change its replicas.", t.Name, globaltables.LegacyVersion)
	}
	if err := globaltables.Prechecks(t.Region, &t.Membership, t.StreamEnabled, in, now); err != nil {
		return nil, err
	}
	status := t.status(now)
	if status == statusUpdating && t.GroupStatus(t.Region, now) != "" && !now.Before(t.UpdatingUntil) {
		// Busy adding or removing a replica: every change is refused,
		// deletion protection included, as the service was observed to.
		return nil, api.NewError(api.CodeResourceInUse, msgGroupBusy)
	}
	dpOnly := c.dp && c.count() == 1
	if status != statusActive && !(status == statusUpdating && dpOnly) {
		return nil, inUse(t, status)
	}

	nt := t.clone()
	nt.dropGone(now)
	u := &tableUpdate{e: e, ns: tns, in: in, c: c, old: t, t: nt, now: now}
	if err := u.apply(); err != nil {
		return nil, err
	}

	b := e.opts.Store.NewBatch()
	for _, id := range u.droppedIndexes {
		p := keyspace.IndexPrefix(nt.ID, id)
		if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			_ = b.Close()
			return nil, internalError(err)
		}
	}
	if err := putTable(b, nt); err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	if err := u.stageReplicaTables(b); err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	if err := e.commit(b); err != nil {
		return nil, internalError(err)
	}
	e.cacheTable(nt)
	u.cacheReplicaTables()
	for _, ix := range u.created {
		e.startBackfill(nt, gsiBackfill{ix})
	}
	for _, rt := range u.seeds {
		e.startSeed(rt)
	}
	if u.disassociating {
		e.startDisassociation(nt)
	}
	for _, mi := range u.memberCreated {
		e.startBackfill(mi.t, gsiBackfill{mi.ix})
	}
	d := e.describe(nt, now)
	e.vectorsUpdated(u, d)
	return &api.UpdateTableOutput{TableDescription: d}, nil
}

// validateUpdateShape runs UpdateTable's member constraints.
func validateUpdateShape(in *api.UpdateTableInput) error {
	var v shape.Violations
	for i, a := range in.AttributeDefinitions {
		p := fmt.Sprintf("attributeDefinitions.%d.member", i+1)
		if a.AttributeName == nil {
			v.Null(p + ".attributeName")
		} else {
			v.Length(p+".attributeName", *a.AttributeName, 1, 255)
		}
		if a.AttributeType == nil {
			v.Null(p + ".attributeType")
		}
		v.Enum(p+".attributeType", a.AttributeType, "B", "N", "S")
	}
	v.TableRef("tableName", in.TableName)
	v.Enum("billingMode", in.BillingMode, billingProvisioned, billingPayPerRequest)
	v.Throughput("provisionedThroughput", in.ProvisionedThroughput)
	for i, g := range in.GlobalSecondaryIndexUpdates {
		p := fmt.Sprintf("globalSecondaryIndexUpdates.%d.member", i+1)
		if cr := g.Create; cr != nil {
			v.Name(p+".create.indexName", cr.IndexName, true)
			v.KeySchema(p+".create.keySchema", cr.KeySchema, cr.KeySchema != nil, 2*maxGSIHashOrRangeKs)
			v.Projection(p+".create.projection", cr.Projection)
			v.Throughput(p+".create.provisionedThroughput", cr.ProvisionedThroughput)
		}
		if up := g.Update; up != nil {
			v.Name(p+".update.indexName", up.IndexName, true)
			v.Throughput(p+".update.provisionedThroughput", up.ProvisionedThroughput)
		}
		if d := g.Delete; d != nil {
			v.Name(p+".delete.indexName", d.IndexName, true)
		}
	}
	if s := in.StreamSpecification; s != nil {
		if s.StreamEnabled == nil {
			v.Null("streamSpecification.streamEnabled")
		}
		v.Enum("streamSpecification.streamViewType", s.StreamViewType, "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
	}
	if s := in.SSESpecification; s != nil {
		v.Enum("sSESpecification.sSEType", s.SSEType, "AES256", "KMS")
	}
	vectorUpdateShape(&v, in)
	validateReplicaShape(&v, in)
	return v.Err()
}

// updateRequestRules applies the checks that need no table: something to
// update, well-formed index actions, and which changes may share a request.
func updateRequestRules(in *api.UpdateTableInput) (updateConcerns, error) {
	c := updateConcerns{
		pt: in.ProvisionedThroughput != nil, billing: in.BillingMode != nil,
		stream: in.StreamSpecification != nil, sse: in.SSESpecification != nil,
		class: in.TableClass != nil, dp: in.DeletionProtectionEnabled != nil,
		dap: in.DisassociationProtectionEnabled != nil,
		odt: in.OnDemandThroughput != nil, warm: in.WarmThroughput != nil,
		replica: len(in.ReplicaUpdates) > 0,
	}
	if err := vectorUpdateRules(in, &c); err != nil {
		return c, err
	}
	if c.count() == 0 && len(in.GlobalSecondaryIndexUpdates) == 0 {
		members := "ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, "
		if in.MultiRegionConsistency == nil {
			members += "MultiRegionConsistency, "
		}
		return c, api.Validation("At least one of %sDeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required", members)
	}
	if in.GlobalSecondaryIndexUpdates != nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		return c, shape.InvalidParam("List of GlobalSecondaryIndexUpdates is empty")
	}
	seen := map[string]bool{}
	for _, g := range in.GlobalSecondaryIndexUpdates {
		var name string
		actions := 0
		if g.Create != nil {
			actions++
			name = *g.Create.IndexName
			c.gsiCreate++
		}
		if g.Update != nil {
			actions++
			name = *g.Update.IndexName
			c.gsiUpdate++
		}
		if g.Delete != nil {
			actions++
			name = *g.Delete.IndexName
			c.gsiDelete++
		}
		switch {
		case actions == 0:
			return c, shape.InvalidParam("One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
		case actions > 1:
			return c, shape.InvalidParam("Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object")
		}
		if seen[name] {
			return c, shape.InvalidParam("Only one global secondary index update per index is allowed simultaneously. Index: %s", name)
		}
		seen[name] = true
	}

	others := c.count() - 1
	switch {
	case c.replica && others > 0:
		return c, shape.InvalidParam("Replica modification must be the only operation in the request")
	case c.sse && others > 0:
		return c, shape.InvalidParam("Server-Side Encryption modification must be the only operation in the request")
	case c.class && others > 0:
		return c, shape.InvalidParam("TableClass modification must be the only operation in the request")
	case c.dap && others > 0:
		// API Reference, UpdateTable: "You can't combine this change with
		// any other change in the same UpdateTable request."
		return c, shape.InvalidParam(globaltables.MsgProtectionAlone)
	case c.dp && others > 0:
		return c, shape.InvalidParam("DeletionProtection modification must be the only operation in the request")
	case c.warm && c.gsiCreate > 0:
		return c, shape.InvalidParam("Create global secondary index cannot be specified when updating WarmThroughput")
	case c.warm && others > 0:
		return c, shape.InvalidParam("WarmThroughput must be the only operation in the request")
	case c.odt && c.count()-1-c.gsiUpdate-b2i(c.billing) > 0:
		return c, shape.InvalidParam("OnDemandThroughput can only be combined with BillingMode in an UpdateTable request")
	case (c.gsiCreate > 0 || c.gsiDelete > 0) && c.pt:
		return c, shape.InvalidParam("You cannot create or delete index while updating table IOPS")
	case (c.gsiCreate > 0 || c.gsiDelete > 0) && c.stream:
		return c, shape.InvalidParam("You cannot create or delete index while changing stream status")
	case c.stream && (c.pt || (c.billing && *in.BillingMode == billingProvisioned)):
		return c, shape.InvalidParam("You cannot modify stream status while updating table IOPS")
	}
	if err := globaltables.RequestRules(in); err != nil {
		return c, err
	}
	return c, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tableUpdate applies one validated UpdateTable request to a copy of the table.
type tableUpdate struct {
	e   *Engine
	ns  api.Namespace
	in  *api.UpdateTableInput
	c   updateConcerns
	old *tableMeta
	t   *tableMeta
	now time.Time

	billing        string // billing mode after the request
	updating       string // non-empty: the table goes UPDATING for this reason
	created        []*indexMeta
	droppedIndexes []uint32
	// vecCreated and vecDeleted are the vector indexes added and removed
	// (vector_update.go).
	vecCreated, vecDeleted []*vectorIndex
	gsiPT                  map[string]*api.ProvisionedThroughput // GSI Update throughput by index

	// Replica changes (replica_update.go): other members' tables to store,
	// replica tables to delete, new replicas to seed.
	others  map[string]*tableMeta
	dropped []*tableMeta
	seeds   []*tableMeta
	// disassociating: the request disassociates the table (replica_disassociate.go).
	disassociating bool
	// GSI changes repeated in the other members (propagateGSIs).
	memberCreated, memberDropped []memberIndex
	// Vector index changes repeated in the other members (propagateVectors).
	memberVecCreated, memberVecDropped []memberVector
}

func (u *tableUpdate) apply() error {
	u.billing = u.t.BillingMode
	if u.in.BillingMode != nil {
		u.billing = *u.in.BillingMode
	}
	u.gsiPT = map[string]*api.ProvisionedThroughput{}
	for _, g := range u.in.GlobalSecondaryIndexUpdates {
		if g.Update != nil && g.Update.ProvisionedThroughput != nil {
			u.gsiPT[*g.Update.IndexName] = g.Update.ProvisionedThroughput
		}
	}
	if err := u.checkIndexesSettled(); err != nil {
		return err
	}
	steps := []func() error{u.applyBilling, u.applyODT, u.applyWarm, u.applyStream, u.applySSE, u.applyClass, u.applyGSIs, u.applyVectors, u.applyReplicas, u.applyDisassociationProtection}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	if u.in.DeletionProtectionEnabled != nil {
		u.t.DeletionProtection = *u.in.DeletionProtectionEnabled
	}
	if u.t.Legacy == nil {
		// A legacy member's indexes and capacity are its own.
		u.propagateGSIs()
		u.propagateVectors()
		u.propagateWriteCap()
	}
	if d := u.e.opts.TransitionDelay; d > 0 && u.updating != "" {
		u.t.UpdatingUntil, u.t.UpdatingWhat = u.now.Add(d), u.updating
	}
	return nil
}

// checkIndexesSettled refuses throughput and billing changes while a GSI is
// being deleted, and index creation or deletion while another is in flight.
func (u *tableUpdate) checkIndexesSettled() error {
	var deleting, busy []string
	for _, ix := range u.t.GSIs {
		switch ix.status(u.now) {
		case statusDeleting:
			deleting = append(deleting, ix.Name)
			busy = append(busy, ix.Name)
		case statusCreating:
			busy = append(busy, ix.Name)
		}
	}
	if len(deleting) > 0 && (u.c.pt || (u.c.billing && u.billing != u.old.BillingMode)) {
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Can't change table IOPS when an index is being deleted. Table: %s Indexes: [%s]",
			u.t.Name, strings.Join(deleting, ", "))
	}
	if u.c.odt && len(busy) > 0 {
		what := "creation"
		if len(deleting) > 0 {
			what = "deletion"
		}
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: OnDemandThroughput cannot be updated while index %s is in progress for indexes: [%s]",
			what, strings.Join(busy, ", "))
	}
	busy = append(busy, u.t.vectorBusy()...)
	if ops := u.c.gsiCreate + u.c.gsiDelete + u.c.vecCreate + u.c.vecDelete; ops > 1 || (ops > 0 && len(busy) > 0) {
		return api.NewError(api.CodeLimitExceeded, "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	}
	return nil
}

func (u *tableUpdate) applyBilling() error {
	t, pt := u.t, u.in.ProvisionedThroughput
	if !u.c.billing && !u.c.pt {
		return nil
	}
	if u.billing == billingPayPerRequest {
		if pt != nil {
			return shape.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		if t.BillingMode == billingPayPerRequest {
			return nil // a re-send is accepted and changes nothing
		}
		t.BillingMode = billingPayPerRequest
		t.EverPayPerRequest = true
		t.LastPayPerRequest = u.now
		t.OnDemand = odtCaps{}
		raiseWarm(&t.Warm, &api.WarmThroughput{ReadUnitsPerSecond: refOf(int64(onDemandWarmRead)), WriteUnitsPerSecond: refOf(int64(onDemandWarmWrite))})
		for _, ix := range t.GSIs {
			ix.OnDemand = odtCaps{}
			raiseWarm(&ix.Warm, &api.WarmThroughput{ReadUnitsPerSecond: refOf(int64(onDemandWarmRead)), WriteUnitsPerSecond: refOf(int64(onDemandWarmWrite))})
		}
		u.updating = "iops"
		return nil
	}
	if len(t.replicas(u.now)) > 0 && t.Legacy == nil {
		// Replicas need on-demand (or auto-scaled) writes; provisioned
		// global tables are not emulated, auto-scaled or not.
		return api.Validation(msgWriteCapacity)
	}
	if pt == nil {
		return shape.InvalidParam("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	}
	if t.BillingMode == billingPayPerRequest {
		for _, ix := range t.GSIs {
			if !ix.Deleted && u.gsiPT[ix.Name] == nil {
				return shape.InvalidParam("ProvisionedThroughput must be specified for index: %s", ix.Name)
			}
		}
		t.BillingMode = billingProvisioned
		t.OnDemand = odtCaps{}
		for _, ix := range t.GSIs {
			ix.OnDemand = odtCaps{}
		}
		t.Throughput.Read, t.Throughput.Write = 0, 0
	} else if *pt.ReadCapacityUnits == t.Throughput.Read && *pt.WriteCapacityUnits == t.Throughput.Write {
		return api.Validation("The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			t.Throughput.Read, *pt.ReadCapacityUnits, t.Throughput.Write, *pt.WriteCapacityUnits)
	}
	if err := u.e.checkTableLimits(u.ns, &tableMeta{}, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits); err != nil {
		return err
	}
	wasPPR := u.old.BillingMode == billingPayPerRequest
	if err := changeThroughput(&t.Throughput, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits, u.now, !wasPPR); err != nil {
		return err
	}
	raiseWarm(&t.Warm, &api.WarmThroughput{ReadUnitsPerSecond: pt.ReadCapacityUnits, WriteUnitsPerSecond: pt.WriteCapacityUnits})
	u.updating = "iops"
	return nil
}

// changeThroughput sets new provisioned capacity, counting a decrease
// against the day's budget when counted (a billing switch does not count).
func changeThroughput(pt *ptState, read, write int64, now time.Time, counted bool) error {
	day := now.UTC().Format(time.DateOnly)
	if pt.DecreaseDay != day {
		pt.DecreasesToday, pt.DecreaseDay = 0, day
	}
	decrease := read < pt.Read || write < pt.Write
	increase := read > pt.Read || write > pt.Write
	if counted && decrease {
		if pt.DecreasesToday >= maxDecreasesBeforeHourly && now.Sub(pt.LastDecrease) < time.Hour {
			next := pt.LastDecrease.Add(time.Hour).UTC()
			return api.NewError(api.CodeLimitExceeded, "Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. Number of decreases today: %d. Last decrease at %s. Next decrease can be made at %s",
				pt.DecreasesToday, pt.LastDecrease.UTC().Format(decreaseTimeLayout), next.Format(decreaseTimeLayout))
		}
		pt.DecreasesToday++
		pt.LastDecrease = now
	}
	if counted && increase {
		pt.LastIncrease = now
	}
	pt.Read, pt.Write = read, write
	return nil
}

// mergeODT merges a requested cap into cur member by member: -1 removes a
// cap, values below -1 and 0 are out of range.
func mergeODT(cur *odtCaps, req *api.OnDemandThroughput, what string) error {
	if req.MaxReadRequestUnits == nil && req.MaxWriteRequestUnits == nil {
		return shape.InvalidParam("OnDemandThroughput must specify MaxReadRequestUnits or MaxWriteRequestUnits")
	}
	check := func(member string, v *int64) error {
		if v != nil && (*v == 0 || *v < -1) {
			return shape.InvalidParam("Requested %s for OnDemandThroughput for %s is outside of valid range", member, what)
		}
		return nil
	}
	if err := check("MaxReadRequestUnits", req.MaxReadRequestUnits); err != nil {
		return err
	}
	if err := check("MaxWriteRequestUnits", req.MaxWriteRequestUnits); err != nil {
		return err
	}
	if v := req.MaxReadRequestUnits; v != nil {
		cur.Read = max(*v, 0)
	}
	if v := req.MaxWriteRequestUnits; v != nil {
		cur.Write = max(*v, 0)
	}
	return nil
}

func odtMember(o *api.OnDemandThroughput) string {
	if o.MaxReadRequestUnits == nil && o.MaxWriteRequestUnits != nil {
		return "MaxWriteRequestUnits"
	}
	return "MaxReadRequestUnits"
}

func (u *tableUpdate) applyODT() error {
	o := u.in.OnDemandThroughput
	if o == nil {
		return nil
	}
	if u.billing == billingProvisioned {
		return shape.InvalidParam("%s for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED", odtMember(o))
	}
	return mergeODT(&u.t.OnDemand, o, "table")
}

// applyWarmTo raises w to req, refusing decreases; what is "table" or "index NAME".
func (u *tableUpdate) applyWarmTo(w *warmState, req *api.WarmThroughput, what string) error {
	if req.ReadUnitsPerSecond != nil && *req.ReadUnitsPerSecond < w.Read {
		return shape.InvalidParam("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", what)
	}
	if req.WriteUnitsPerSecond != nil && *req.WriteUnitsPerSecond < w.Write {
		return shape.InvalidParam("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", what)
	}
	before := *w
	raiseWarm(w, req)
	if d := u.e.opts.TransitionDelay; d > 0 && (w.Read != before.Read || w.Write != before.Write) {
		w.Until = u.now.Add(d)
	}
	return nil
}

func (u *tableUpdate) applyWarm() error {
	if u.in.WarmThroughput == nil {
		return nil
	}
	return u.applyWarmTo(&u.t.Warm, u.in.WarmThroughput, "table")
}

func (u *tableUpdate) applyStream() error {
	s := u.in.StreamSpecification
	if s == nil {
		return nil
	}
	t := u.t
	if *s.StreamEnabled {
		if s.StreamViewType == nil {
			return shape.InvalidParam("If stream is being enabled then UpdateViewType is required")
		}
		if t.StreamEnabled {
			return api.Validation("Table already has an enabled stream: TableName: %s", t.Name)
		}
		label := u.now.UTC().Format(streamLabelLayout)
		if label <= t.StreamLabel {
			// Every enable mints a new stream, even within one millisecond.
			label = nextLabel(t.StreamLabel)
		}
		t.StreamEnabled, t.StreamViewType, t.StreamLabel = true, *s.StreamViewType, label
	} else {
		if s.StreamViewType != nil {
			return shape.InvalidParam("If stream is being disabled, then UpdateViewType must not be specified")
		}
		if !t.StreamEnabled {
			return api.Validation("Table has no stream to disable: TableName: %s", t.Name)
		}
		t.StreamEnabled, t.StreamViewType = false, ""
	}
	u.updating = "stream"
	return nil
}

// nextLabel returns the label one millisecond after label.
func nextLabel(label string) string {
	ts, err := time.Parse(streamLabelLayout, label)
	if err != nil {
		return label + "1"
	}
	return ts.Add(time.Millisecond).Format(streamLabelLayout)
}

func (u *tableUpdate) applySSE() error {
	s := u.in.SSESpecification
	if s == nil {
		return nil
	}
	if err := checkSSESpec(s); err != nil {
		return err
	}
	t := u.t
	if !sseWanted(s) {
		if !t.SSEEnabled {
			return shape.InvalidParam("Table is already encrypted by default")
		}
		t.SSEEnabled, t.SSEKMSKeyArn = false, ""
		return nil
	}
	key := u.ns.KMSKeyARN(s.KMSMasterKeyId)
	if t.SSEEnabled && s.KMSMasterKeyId != nil && key == t.SSEKMSKeyArn {
		return shape.InvalidParam("Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
	}
	t.SSEEnabled, t.SSEKMSKeyArn = true, key
	return nil
}

func (u *tableUpdate) applyClass() error {
	c := u.in.TableClass
	if c == nil {
		return nil
	}
	if err := checkTableClass(c); err != nil {
		return err
	}
	t := u.t
	if *c == t.TableClass {
		return nil
	}
	t.TableClass, t.TableClassSet, t.TableClassUpdate = *c, true, u.now
	u.updating = "class"
	return nil
}

func (u *tableUpdate) applyGSIs() error {
	for i := range u.in.GlobalSecondaryIndexUpdates {
		g := &u.in.GlobalSecondaryIndexUpdates[i]
		var err error
		switch {
		case g.Create != nil:
			err = u.createGSI(g.Create)
		case g.Update != nil:
			err = u.updateGSI(g.Update)
		case g.Delete != nil:
			err = u.deleteGSI(*g.Delete.IndexName)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// findGSI returns the live GSI named name, or the error DynamoDB gives for
// an LSI name or an unknown one.
func (u *tableUpdate) findGSI(name, verb string) (*indexMeta, error) {
	for _, ix := range u.t.LSIs {
		if ix.Name == name {
			return nil, api.Validation("Cannot %s an index that is not a GlobalSecondaryIndex: %s", verb, name)
		}
	}
	for _, ix := range u.t.GSIs {
		if ix.Name == name {
			return ix, nil
		}
	}
	return nil, api.NewError(api.CodeResourceNotFound, "Requested resource not found: Index %s for table %s", name, u.t.Name)
}

func (u *tableUpdate) indexInUse(ix *indexMeta) error {
	var what string
	switch ix.status(u.now) {
	case statusDeleting:
		what = "deleted"
	case statusUpdating:
		what = "updated"
	case statusCreating:
		what = "created"
	default:
		return nil
	}
	return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Index is being %s. Table: %s Index: %s", what, u.t.Name, ix.Name)
}

func (u *tableUpdate) createGSI(g *api.CreateGlobalSecondaryIndexAction) error {
	t, name := u.t, *g.IndexName
	if _, ok := t.index(name, u.now); ok {
		return api.Validation("Attempting to create an index which already exists")
	}
	if len(t.liveGSIs(u.now)) >= maxGSIs {
		return api.NewError(api.CodeLimitExceeded, "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of %d", maxGSIs)
	}
	if u.in.AttributeDefinitions == nil {
		return shape.InvalidParam("AttributeDefinitions is not specified for index: %s", name)
	}
	requested := map[string]string{}
	var defs []string
	for _, a := range u.in.AttributeDefinitions {
		requested[*a.AttributeName] = *a.AttributeType
		defs = append(defs, *a.AttributeName)
	}
	keys := keyNames(g.KeySchema)
	var added []attrDef
	for _, k := range keys {
		typ, given := requested[k]
		if live := u.liveSchemaOf(k); live != nil {
			// A key of the table or of a live index fixes the attribute's
			// type; the service refuses a new index that retypes it.
			if given && typ != keyType(live, k) {
				return shape.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: %s New schema: %s",
					renderSchema(live), renderSchema(requestedSchema(g.KeySchema, requested, t)))
			}
			continue
		}
		if _, ok := t.attrType(k); ok && !given {
			continue // defined by a dropped index: that type still serves
		}
		if !given {
			return shape.InvalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
				strings.Join(keys, ", "), strings.Join(defs, ", "))
		}
		added = append(added, attrDef{Name: k, Type: typ})
	}
	if err := checkGSIKeySchema(g.KeySchema); err != nil {
		return err
	}
	p := g.Projection
	if err := shape.CheckProjection(p); err != nil {
		return err
	}
	projected := len(p.NonKeyAttributes)
	for _, ix := range append(t.LSIs, t.liveGSIs(u.now)...) {
		projected += len(ix.NonKeyAttrs)
	}
	if projected > maxProjectedAttrs {
		return shape.InvalidParam("Number of projected attributes in all indexes exceeds limit of %d", maxProjectedAttrs)
	}
	if u.billing == billingProvisioned {
		if g.ProvisionedThroughput == nil {
			return shape.InvalidParam("Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: %s", name)
		}
		if err := u.e.checkIndexLimits(u.ns, name, *g.ProvisionedThroughput.ReadCapacityUnits, *g.ProvisionedThroughput.WriteCapacityUnits); err != nil {
			return err
		}
	} else if g.ProvisionedThroughput != nil {
		return shape.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: %s when BillingMode is PAY_PER_REQUEST", name)
	}
	if err := checkCreateODT(g.OnDemandThroughput, u.billing, "index : "+name); err != nil {
		return err
	}
	if err := checkCreateWarm(g.WarmThroughput, u.billing, g.ProvisionedThroughput, "index "+name); err != nil {
		return err
	}
	t.setAttrDefs(added)
	saved := t.BillingMode
	t.BillingMode = u.billing
	ix := t.newGSI(g, true)
	ix.Backfilling = true
	t.BillingMode = saved
	if d := u.e.opts.TransitionDelay; d > 0 {
		ix.CreatingUntil = u.now.Add(d)
		u.updating = "index"
	}
	t.GSIs = append(t.GSIs, ix)
	u.created = append(u.created, ix)
	return nil
}

// liveSchemaOf returns the key schema of the table, or else of the first
// live index, that has name as a key attribute; nil if none has.
func (u *tableUpdate) liveSchemaOf(name string) []keyElem {
	schemas := [][]keyElem{u.t.KeySchema}
	for _, ix := range append(append([]*indexMeta(nil), u.t.LSIs...), u.t.liveGSIs(u.now)...) {
		schemas = append(schemas, ix.KeySchema)
	}
	for _, s := range schemas {
		if keyType(s, name) != "" {
			return s
		}
	}
	return nil
}

func keyType(schema []keyElem, name string) string {
	for _, k := range schema {
		if k.Name == name {
			return k.Type
		}
	}
	return ""
}

// requestedSchema is a new index's key schema typed as the request (or,
// for keys it leaves out, the table) defines them.
func requestedSchema(ks []api.KeySchemaElement, requested map[string]string, t *tableMeta) []keyElem {
	out := t.keyElems(ks)
	for i := range out {
		if typ, ok := requested[out[i].Name]; ok {
			out[i].Type = typ
		}
	}
	return out
}

// renderSchema prints a key schema the way the service's redefinition
// message does: Schema:[SchemaElement: key{xyz:S:HASH}, …].
func renderSchema(schema []keyElem) string {
	parts := make([]string, len(schema))
	for i, k := range schema {
		parts[i] = "SchemaElement: key{" + k.Name + ":" + k.Type + ":" + k.KeyType + "}"
	}
	return "Schema:[" + strings.Join(parts, ", ") + "]"
}

// setAttrDefs records definitions, replacing a dropped index's definition
// of the same attribute.
func (t *tableMeta) setAttrDefs(defs []attrDef) {
	for _, d := range defs {
		replaced := false
		for i := range t.AttrDefs {
			if t.AttrDefs[i].Name == d.Name {
				t.AttrDefs[i].Type, replaced = d.Type, true
			}
		}
		if !replaced {
			t.AttrDefs = append(t.AttrDefs, d)
		}
	}
}

func (u *tableUpdate) updateGSI(g *api.UpdateGlobalSecondaryIndexAction) error {
	name := *g.IndexName
	ix, err := u.findGSI(name, "update")
	if err != nil {
		return err
	}
	if err := u.indexInUse(ix); err != nil {
		return err
	}
	changed := false
	if pt := g.ProvisionedThroughput; pt != nil {
		if u.billing == billingPayPerRequest {
			return shape.InvalidParam("The only Updates for index: %s when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput", name)
		}
		switching := u.old.BillingMode == billingPayPerRequest
		if !switching && *pt.ReadCapacityUnits == ix.Throughput.Read && *pt.WriteCapacityUnits == ix.Throughput.Write {
			return api.Validation("The provisioned throughput for the index %s will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index %s: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for index %s: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
				name, name, ix.Throughput.Read, *pt.ReadCapacityUnits, name, ix.Throughput.Write, *pt.WriteCapacityUnits)
		}
		if err := u.e.checkIndexLimits(u.ns, name, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits); err != nil {
			return err
		}
		if switching {
			ix.Throughput.Read, ix.Throughput.Write = 0, 0
		}
		if err := changeThroughput(&ix.Throughput, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits, u.now, !switching); err != nil {
			return err
		}
		raiseWarm(&ix.Warm, &api.WarmThroughput{ReadUnitsPerSecond: pt.ReadCapacityUnits, WriteUnitsPerSecond: pt.WriteCapacityUnits})
		changed = true
	}
	if o := g.OnDemandThroughput; o != nil {
		if u.billing == billingProvisioned {
			return shape.InvalidParam("%s for OnDemandThroughput for index : %s cannot be specified when the table BillingMode is PROVISIONED", odtMember(o), name)
		}
		if err := mergeODT(&ix.OnDemand, o, "index : "+name); err != nil {
			return err
		}
		changed = true
	}
	if w := g.WarmThroughput; w != nil {
		if err := u.applyWarmTo(&ix.Warm, w, "index "+name); err != nil {
			return err
		}
	}
	if d := u.e.opts.TransitionDelay; d > 0 && changed {
		ix.UpdatingUntil = u.now.Add(d)
	}
	return nil
}

func (u *tableUpdate) deleteGSI(name string) error {
	ix, err := u.findGSI(name, "delete")
	if err != nil {
		return err
	}
	if ix.status(u.now) == statusDeleting {
		return u.indexInUse(ix)
	}
	u.droppedIndexes = append(u.droppedIndexes, ix.ID)
	if d := u.e.opts.TransitionDelay; d > 0 {
		ix.Deleted, ix.DeletingUntil = true, u.now.Add(d)
		u.updating = "index"
		return nil
	}
	kept := u.t.GSIs[:0]
	for _, g := range u.t.GSIs {
		if g != ix {
			kept = append(kept, g)
		}
	}
	u.t.GSIs = kept
	return nil
}

func refOf[T any](v T) *T { return &v }
