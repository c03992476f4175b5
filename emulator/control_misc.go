package emulator

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// resourceTable resolves a ResourceArn (TagResource, UntagResource,
// ListTagsOfResource) to its table, with DynamoDB's errors for each kind of
// bad ARN. The caller holds e.mu.
func (e *Engine) resourceTable(ns Namespace, resourceArn string, now time.Time) (*tableMeta, error) {
	if !strings.HasPrefix(resourceArn, "arn:") {
		return nil, invalidParam("ARNs must start with 'arn:': %s", resourceArn)
	}
	parts := strings.SplitN(resourceArn, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" {
		return nil, invalidParam("Provided Arn is not a DynamoDB resource arn: %s", resourceArn)
	}
	a, err := parseARN(resourceArn)
	if err != nil || a.index != "" {
		return nil, invalidParam("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", resourceArn)
	}
	if a.region != ns.Region || a.partition != ns.Partition() {
		return nil, Validation("Invalid TableArn: Invalid ResourceArn provided as input %s", resourceArn)
	}
	t := e.lookup(Namespace{Account: a.account, Region: a.region}, a.table, now)
	if t == nil || a.stream != "" {
		return nil, NewError(CodeResourceNotFound, "Requested resource not found: ResourcArn: %s not found", resourceArn)
	}
	return t, nil
}

func resourceArnShape(v *violations, s *string) {
	if s == nil {
		v.null("resourceArn")
		return
	}
	v.length("resourceArn", *s, 1, 1283)
}

// TagResource adds or replaces tags on a table.
func (e *Engine) TagResource(ctx context.Context, ns Namespace, in *TagResourceInput) (*Empty, error) {
	if in == nil {
		in = &TagResourceInput{}
	}
	var v violations
	resourceArnShape(&v, in.ResourceArn)
	if in.Tags == nil {
		v.null("tags")
	}
	tagShape(&v, "tags", in.Tags)
	if err := v.err(); err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, Validation("Atleast one Tag needs to be provided as Input.")
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t, err := e.resourceTable(ns, *in.ResourceArn, now)
	if err != nil {
		return nil, err
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	existing := map[string]bool{}
	for _, tg := range t.Tags {
		existing[*tg.Key] = true
	}
	added := 0
	for _, tg := range in.Tags {
		if !existing[*tg.Key] {
			added++
		}
	}
	if err := checkTags(in.Tags, len(t.Tags)-len(in.Tags)+added); err != nil {
		return nil, err
	}
	nt := t.clone()
	for _, tg := range in.Tags {
		replaced := false
		for i := range nt.Tags {
			if *nt.Tags[i].Key == *tg.Key {
				nt.Tags[i].Value = refOf(*tg.Value)
				replaced = true
			}
		}
		if !replaced {
			nt.Tags = append(nt.Tags, Tag{Key: refOf(*tg.Key), Value: refOf(*tg.Value)})
		}
	}
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return &Empty{}, nil
}

// UntagResource removes tags from a table; absent keys are ignored.
func (e *Engine) UntagResource(ctx context.Context, ns Namespace, in *UntagResourceInput) (*Empty, error) {
	if in == nil {
		in = &UntagResourceInput{}
	}
	var v violations
	resourceArnShape(&v, in.ResourceArn)
	if in.TagKeys == nil {
		v.null("tagKeys")
	}
	for i, k := range in.TagKeys {
		v.length(fmt.Sprintf("tagKeys.%d.member", i+1), k, 1, 128)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if len(in.TagKeys) == 0 {
		return nil, Validation("Atleast one Tag Key needs to be provided as Input.")
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t, err := e.resourceTable(ns, *in.ResourceArn, now)
	if err != nil {
		return nil, err
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	for _, k := range in.TagKeys {
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return nil, Validation("Tag Key cannot be prefixed with aws:, Key: %s", k)
		}
	}
	remove := map[string]bool{}
	for _, k := range in.TagKeys {
		remove[k] = true
	}
	nt := t.clone()
	kept := nt.Tags[:0]
	for _, tg := range nt.Tags {
		if !remove[*tg.Key] {
			kept = append(kept, tg)
		}
	}
	nt.Tags = kept
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return &Empty{}, nil
}

// ListTagsOfResource lists a table's tags in one page (at most 50 exist).
func (e *Engine) ListTagsOfResource(ctx context.Context, ns Namespace, in *ListTagsOfResourceInput) (*ListTagsOfResourceOutput, error) {
	if in == nil {
		in = &ListTagsOfResourceInput{}
	}
	var v violations
	resourceArnShape(&v, in.ResourceArn)
	if err := v.err(); err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	t, err := e.resourceTable(ns, *in.ResourceArn, now)
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	out := &ListTagsOfResourceOutput{Tags: make([]DescribedTag, 0, len(t.Tags))}
	for _, tg := range t.Tags {
		out.Tags = append(out.Tags, DescribedTag{Key: *tg.Key, Value: *tg.Value})
	}
	return out, nil
}

// UpdateTimeToLive enables or disables TTL on a table.
func (e *Engine) UpdateTimeToLive(ctx context.Context, ns Namespace, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	if in == nil {
		in = &UpdateTimeToLiveInput{}
	}
	var v violations
	v.tableRef("tableName", in.TableName)
	spec := in.TimeToLiveSpecification
	if spec == nil {
		v.null("timeToLiveSpecification")
	} else {
		if spec.Enabled == nil {
			v.null("timeToLiveSpecification.enabled")
		}
		if spec.AttributeName == nil {
			v.null("timeToLiveSpecification.attributeName")
		} else {
			v.length("timeToLiveSpecification.attributeName", *spec.AttributeName, 1, 255)
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, TableNotFound(name)
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	attr, enable := *spec.AttributeName, *spec.Enabled
	switch {
	case enable && t.TTLEnabled && t.TTLAttr == attr:
		return nil, Validation("TimeToLive is already enabled")
	case t.TTLEnabled && t.TTLAttr != attr:
		return nil, Validation("TimeToLive is active on a different AttributeName: current AttributeName is %s", t.TTLAttr)
	case !enable && !t.TTLEnabled:
		return nil, Validation("TimeToLive is already disabled")
	}
	setTTL := func(m *tableMeta) {
		m.TTLEnabled, m.TTLAttr = enable, ""
		if enable {
			m.TTLAttr = attr
		}
	}
	nt := t.clone()
	setTTL(nt)
	// A global table's members share their TTL setting.
	if err := e.saveGrouped(nt, setTTL); err != nil {
		return nil, internalError(err)
	}
	return &UpdateTimeToLiveOutput{TimeToLiveSpecification: &DescribedTimeToLiveSpecification{Enabled: enable, AttributeName: attr}}, nil
}

// DescribeTimeToLive reports a table's TTL setting.
func (e *Engine) DescribeTimeToLive(ctx context.Context, ns Namespace, in *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	if in == nil {
		in = &DescribeTimeToLiveInput{}
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(tns, name, now)
	e.mu.RUnlock()
	if t == nil {
		return nil, TableNotFound(name)
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, Validation("Cannot describe time to live while table is in %s state: Current table state is %s", s, s)
	}
	d := &TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}
	if t.TTLEnabled {
		d.TimeToLiveStatus, d.AttributeName = "ENABLED", t.TTLAttr
	}
	return &DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}

// defaultRecoveryDays is the PITR recovery period when none is given.
const defaultRecoveryDays = 35

// backupsTable resolves the table of a continuous-backups request, which
// reports a missing table as TableNotFoundException. The caller holds e.mu.
func (e *Engine) backupsTable(ns Namespace, nameRef *string, now time.Time) (*tableMeta, error) {
	tns, name, err := tableRequest(ns, nameRef)
	if err != nil {
		return nil, err
	}
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, NewError(CodeTableNotFound, "Table not found: %s", name)
	}
	return t, nil
}

func (e *Engine) describeBackups(t *tableMeta, now time.Time) *ContinuousBackupsDescription {
	d := &ContinuousBackupsDescription{
		ContinuousBackupsStatus:        "ENABLED",
		PointInTimeRecoveryDescription: &PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "DISABLED"},
	}
	if t.PITREnabled {
		earliest, latest := e.pitrWindow(t, now)
		d.PointInTimeRecoveryDescription = &PointInTimeRecoveryDescription{
			PointInTimeRecoveryStatus:  "ENABLED",
			RecoveryPeriodInDays:       refOf(t.PITRDays),
			EarliestRestorableDateTime: refOf(epochSeconds(earliest)),
			LatestRestorableDateTime:   refOf(epochSeconds(latest)),
		}
	}
	return d
}

// UpdateContinuousBackups enables or disables point-in-time recovery.
func (e *Engine) UpdateContinuousBackups(ctx context.Context, ns Namespace, in *UpdateContinuousBackupsInput) (*UpdateContinuousBackupsOutput, error) {
	if in == nil {
		in = &UpdateContinuousBackupsInput{}
	}
	var v violations
	v.tableRef("tableName", in.TableName)
	spec := in.PointInTimeRecoverySpecification
	if spec == nil {
		v.null("pointInTimeRecoverySpecification")
	} else {
		if spec.PointInTimeRecoveryEnabled == nil {
			v.null("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled")
		}
		v.min("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.RecoveryPeriodInDays, 1)
		v.max("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.RecoveryPeriodInDays, 35)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if !*spec.PointInTimeRecoveryEnabled && spec.RecoveryPeriodInDays != nil {
		return nil, Validation("Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	}
	now := e.now()
	nt, enabled, err := e.saveContinuousBackups(ns, in.TableName, spec, now)
	if err != nil {
		return nil, err
	}
	if enabled {
		if nt, now, err = e.pitrBarrier(nt); err != nil {
			return nil, err
		}
	}
	return &UpdateContinuousBackupsOutput{ContinuousBackupsDescription: e.describeBackups(nt, now)}, nil
}

// saveContinuousBackups applies spec to the table under e.mu; enabled is
// set when it turned PITR on.
func (e *Engine) saveContinuousBackups(ns Namespace, name *string, spec *PointInTimeRecoverySpecification, now time.Time) (nt *tableMeta, enabled bool, err error) {
	e.lockCatalog()
	defer e.unlockCatalog()
	t, err := e.backupsTable(ns, name, now)
	if err != nil {
		return nil, false, err
	}
	if t.status(now) == statusCreating {
		return nil, false, NewError(CodeContinuousBackupsUnavailable, "Backups are being enabled for the table: %s. Please retry later", t.Name)
	}
	nt = t.clone()
	if *spec.PointInTimeRecoveryEnabled {
		if !nt.PITREnabled {
			nt.PITREnabled, nt.PITREnabledAt, enabled = true, now, true
		}
		nt.PITRDays = defaultRecoveryDays
		if spec.RecoveryPeriodInDays != nil {
			nt.PITRDays = *spec.RecoveryPeriodInDays
		}
	} else {
		nt.PITREnabled, nt.PITRDays, nt.PITREnabledAt = false, 0, time.Time{}
	}
	// Turning PITR off drops the history in the same batch (pitr.go).
	b := e.opts.Store.NewBatch()
	err = putTable(b, nt)
	if err == nil && t.PITREnabled && !nt.PITREnabled {
		err = dropHistory(b, nt.ID)
	}
	if err == nil {
		err = e.commit(b)
	} else {
		_ = b.Close()
	}
	if err != nil {
		return nil, false, internalError(err)
	}
	e.cacheTable(nt)
	return nt, enabled, nil
}

// pitrBarrier waits, once PITR is on in nt (cached), for every write that
// resolved the table before (it holds its item's stripe from resolving
// to committing, so it has no undo record), then moves PITREnabledAt to
// after them: every write after EarliestRestorableDateTime is in the
// history. It returns the table and that time.
func (e *Engine) pitrBarrier(nt *tableMeta) (*tableMeta, time.Time, error) {
	for i := range e.items.locks.mu {
		e.items.locks.mu[i].Lock()
		//lint:ignore SA2001 an empty critical section: waiting for the holder is the point
		e.items.locks.mu[i].Unlock()
	}
	at := e.now()
	if !at.After(nt.PITREnabledAt) {
		return nt, at, nil
	}
	e.lockCatalog()
	defer e.unlockCatalog()
	c := e.lookup(nt.ns(), nt.Name, at)
	if c == nil || c.ID != nt.ID || !c.PITREnabled || !c.PITREnabledAt.Equal(nt.PITREnabledAt) {
		return nt, at, nil // changed meanwhile: the later change answers for itself
	}
	c = c.clone()
	c.PITREnabledAt = at
	if err := e.saveTable(c); err != nil {
		return nil, at, internalError(err)
	}
	return c, at, nil
}

// DescribeContinuousBackups reports continuous backups and PITR.
func (e *Engine) DescribeContinuousBackups(ctx context.Context, ns Namespace, in *DescribeContinuousBackupsInput) (*DescribeContinuousBackupsOutput, error) {
	if in == nil {
		in = &DescribeContinuousBackupsInput{}
	}
	now := e.now()
	e.rlockCatalog()
	t, err := e.backupsTable(ns, in.TableName, now)
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return &DescribeContinuousBackupsOutput{ContinuousBackupsDescription: e.describeBackups(t, now)}, nil
}

// DescribeLimits reports the capacity quotas (Options.Limits).
func (e *Engine) DescribeLimits(ctx context.Context, ns Namespace, in *Empty) (*DescribeLimitsOutput, error) {
	lim := e.opts.Limits
	return &lim, nil
}

// DescribeEndpoints reports the Region's regional endpoint, as the service does.
func (e *Engine) DescribeEndpoints(ctx context.Context, ns Namespace, in *Empty) (*DescribeEndpointsOutput, error) {
	suffix := ".amazonaws.com"
	if ns.Partition() == "aws-cn" {
		suffix = ".amazonaws.com.cn"
	}
	return &DescribeEndpointsOutput{Endpoints: []Endpoint{{Address: "dynamodb." + ns.Region + suffix, CachePeriodInMinutes: 1440}}}, nil
}
