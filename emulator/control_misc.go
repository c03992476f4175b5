package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// resourceTable resolves a ResourceArn (TagResource, UntagResource,
// ListTagsOfResource) to its table, with DynamoDB's errors for each kind of
// bad ARN. The caller holds e.mu.
func (e *Engine) resourceTable(ns api.Namespace, resourceArn string, now time.Time) (*tableMeta, error) {
	if !strings.HasPrefix(resourceArn, "arn:") {
		return nil, shape.InvalidParam("ARNs must start with 'arn:': %s", resourceArn)
	}
	parts := strings.SplitN(resourceArn, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" {
		return nil, shape.InvalidParam("Provided Arn is not a DynamoDB resource arn: %s", resourceArn)
	}
	a, err := parseARN(resourceArn)
	if err != nil || a.index != "" {
		return nil, shape.InvalidParam("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", resourceArn)
	}
	if a.region != ns.Region || a.partition != ns.Partition() {
		return nil, api.Validation("Invalid TableArn: Invalid ResourceArn provided as input %s", resourceArn)
	}
	t := e.lookup(api.Namespace{Account: a.account, Region: a.region}, a.table, now)
	if t == nil || a.stream != "" {
		return nil, api.NewError(api.CodeResourceNotFound, "Requested resource not found: ResourcArn: %s not found", resourceArn)
	}
	return t, nil
}

func resourceArnShape(v *shape.Violations, s *string) {
	if s == nil {
		v.Null("resourceArn")
		return
	}
	v.Length("resourceArn", *s, 1, 1283)
}

// TagResource adds or replaces tags on a table.
func (e *Engine) TagResource(ctx context.Context, ns api.Namespace, in *api.TagResourceInput) (*api.Empty, error) {
	if in == nil {
		in = &api.TagResourceInput{}
	}
	var v shape.Violations
	resourceArnShape(&v, in.ResourceArn)
	if in.Tags == nil {
		v.Null("tags")
	}
	tagShape(&v, "tags", in.Tags)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 {
		return nil, api.Validation("Atleast one Tag needs to be provided as Input.")
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
			nt.Tags = append(nt.Tags, api.Tag{Key: refOf(*tg.Key), Value: refOf(*tg.Value)})
		}
	}
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return &api.Empty{}, nil
}

// UntagResource removes tags from a table; absent keys are ignored.
func (e *Engine) UntagResource(ctx context.Context, ns api.Namespace, in *api.UntagResourceInput) (*api.Empty, error) {
	if in == nil {
		in = &api.UntagResourceInput{}
	}
	var v shape.Violations
	resourceArnShape(&v, in.ResourceArn)
	if in.TagKeys == nil {
		v.Null("tagKeys")
	}
	for i, k := range in.TagKeys {
		v.Length(fmt.Sprintf("tagKeys.%d.member", i+1), k, 1, 128)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if len(in.TagKeys) == 0 {
		return nil, api.Validation("Atleast one Tag Key needs to be provided as Input.")
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
			return nil, api.Validation("Tag Key cannot be prefixed with aws:, Key: %s", k)
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
	return &api.Empty{}, nil
}

// ListTagsOfResource lists a table's tags in one page (at most 50 exist).
func (e *Engine) ListTagsOfResource(ctx context.Context, ns api.Namespace, in *api.ListTagsOfResourceInput) (*api.ListTagsOfResourceOutput, error) {
	if in == nil {
		in = &api.ListTagsOfResourceInput{}
	}
	var v shape.Violations
	resourceArnShape(&v, in.ResourceArn)
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	t, err := e.resourceTable(ns, *in.ResourceArn, now)
	e.mu.RUnlock()
	if err != nil {
		return nil, listTagsNotFound(ctx, ns, *in.ResourceArn, err)
	}
	out := &api.ListTagsOfResourceOutput{Tags: make([]api.DescribedTag, 0, len(t.Tags))}
	for _, tg := range t.Tags {
		out.Tags = append(out.Tags, api.DescribedTag{Key: *tg.Key, Value: *tg.Value})
	}
	return out, nil
}

// listTagsNotFound is ListTagsOfResource's answer for err: DynamoDB
// answers the ARN of a table that does not exist with AccessDeniedException
// naming the caller (the account's root user without --auth), as IAM words
// a refusal but with no reason clause; a stream ARN keeps
// ResourceNotFoundException.
func listTagsNotFound(ctx context.Context, ns api.Namespace, arn string, err error) error {
	var de *api.Error
	if !errors.As(err, &de) || de.Code != api.CodeResourceNotFound || strings.Contains(arn, "/stream/") {
		return err
	}
	caller := "arn:" + ns.Partition() + ":iam::" + ns.Account + ":root"
	if c := callerFrom(ctx); c != nil {
		caller = c.ARN
	}
	return &api.Error{Code: CodeAccessDenied, Message: "User: " + caller + " is not authorized to perform: dynamodb:ListTagsOfResource on resource: " + arn}
}

// backupsTable resolves the table of a continuous-backups request, which
// reports a missing table as TableNotFoundException. The caller holds e.mu.
func (e *Engine) backupsTable(ns api.Namespace, nameRef *string, now time.Time) (*tableMeta, error) {
	tns, name, err := tableRequest(ns, nameRef)
	if err != nil {
		return nil, err
	}
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, api.NewError(api.CodeTableNotFound, "Table not found: %s", name)
	}
	return t, nil
}

// UpdateContinuousBackups enables or disables point-in-time recovery
// (emulator/internal/backups; bkCore.SetPITR saves it).
func (e *Engine) UpdateContinuousBackups(ctx context.Context, ns api.Namespace, in *api.UpdateContinuousBackupsInput) (*api.UpdateContinuousBackupsOutput, error) {
	return backups.UpdateContinuousBackups((*bkCore)(e), ns, in)
}

// saveContinuousBackups applies spec to the table under e.mu; enabled is
// set when it turned PITR on.
func (e *Engine) saveContinuousBackups(ns api.Namespace, name *string, spec *api.PointInTimeRecoverySpecification, now time.Time) (nt *tableMeta, enabled bool, err error) {
	e.lockCatalog()
	defer e.unlockCatalog()
	t, err := e.backupsTable(ns, name, now)
	if err != nil {
		return nil, false, err
	}
	if t.status(now) == statusCreating {
		return nil, false, api.NewError(api.CodeContinuousBackupsUnavailable, "Backups are being enabled for the table: %s. Please retry later", t.Name)
	}
	nt = t.clone()
	nt.PITR, enabled = t.PITR.Apply(spec, now)
	// Turning PITR off drops the history in the same batch.
	b := e.opts.Store.NewBatch()
	err = putTable(b, nt)
	if err == nil && t.PITREnabled && !nt.PITREnabled {
		err = backups.DropHistory(b, nt.ID)
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
	for i := range e.items.locks.Mu {
		e.items.locks.Mu[i].Lock()
		//lint:ignore SA2001 an empty critical section: waiting for the holder is the point
		e.items.locks.Mu[i].Unlock()
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
func (e *Engine) DescribeContinuousBackups(ctx context.Context, ns api.Namespace, in *api.DescribeContinuousBackupsInput) (*api.DescribeContinuousBackupsOutput, error) {
	if in == nil {
		in = &api.DescribeContinuousBackupsInput{}
	}
	now := e.now()
	e.rlockCatalog()
	t, err := e.backupsTable(ns, in.TableName, now)
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return &api.DescribeContinuousBackupsOutput{ContinuousBackupsDescription: t.PITR.Describe(now, e.opts.PITRLag)}, nil
}

// DescribeLimits reports the capacity quotas (Options.Limits).
func (e *Engine) DescribeLimits(ctx context.Context, ns api.Namespace, in *api.Empty) (*api.DescribeLimitsOutput, error) {
	lim := e.opts.Limits
	return &lim, nil
}

// DescribeEndpoints reports the Region's regional endpoint, as the service does.
func (e *Engine) DescribeEndpoints(ctx context.Context, ns api.Namespace, in *api.Empty) (*api.DescribeEndpointsOutput, error) {
	suffix := ".amazonaws.com"
	if ns.Partition() == "aws-cn" {
		suffix = ".amazonaws.com.cn"
	}
	return &api.DescribeEndpointsOutput{Endpoints: []api.Endpoint{{Address: "dynamodb." + ns.Region + suffix, CachePeriodInMinutes: 1440}}}, nil
}
