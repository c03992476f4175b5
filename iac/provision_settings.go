package iac

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/iac/spec"
)

func (p *provisioner) ttl(ctx context.Context) {
	name := spec.Str(p.s.Name())
	cur, err := p.eng.DescribeTimeToLive(ctx, p.ns, &api.DescribeTimeToLiveInput{TableName: name})
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
		_, err := p.eng.UpdateTimeToLive(ctx, p.ns, &api.UpdateTimeToLiveInput{TableName: name,
			TimeToLiveSpecification: &api.TimeToLiveSpecification{Enabled: spec.Bool(on), AttributeName: spec.Str(attr)}})
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
	cur, err := p.eng.DescribeContinuousBackups(ctx, p.ns, &api.DescribeContinuousBackupsInput{TableName: name})
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
	in := &api.UpdateContinuousBackupsInput{TableName: name,
		PointInTimeRecoverySpecification: &api.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: spec.Bool(wantOn)}}
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
		cur, err := p.eng.DescribeContributorInsights(ctx, p.ns, &api.DescribeContributorInsightsInput{TableName: spec.Str(p.s.Name()), IndexName: ip})
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
		in := &api.UpdateContributorInsightsInput{TableName: spec.Str(p.s.Name()), IndexName: ip, ContributorInsightsAction: spec.Str(action)}
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
	var have *api.KinesisDataStreamDestination
	for i := range cur {
		d := &cur[i]
		if d.DestinationStatus != "ACTIVE" {
			continue
		}
		if want != nil && d.StreamArn == want.StreamArn {
			have = d
			continue
		}
		if _, err := p.eng.DisableKinesisStreamingDestination(ctx, p.ns, &api.KinesisStreamingDestinationInput{TableName: name, StreamArn: spec.Str(d.StreamArn)}); err != nil {
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
		in := &api.KinesisStreamingDestinationInput{TableName: name, StreamArn: spec.Str(want.StreamArn)}
		if want.Precision != "" {
			in.EnableKinesisStreamingConfiguration = &api.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: spec.Str(want.Precision)}
		}
		if _, err := p.eng.EnableKinesisStreamingDestination(ctx, p.ns, in); err != nil {
			p.failAt("EnableKinesisStreamingDestination", err, "KinesisStreamSpecification")
			return
		}
	case have.ApproximateCreationDateTimePrecision != wantPrec:
		if _, err := p.eng.UpdateKinesisStreamingDestination(ctx, p.ns, &api.UpdateKinesisStreamingDestinationInput{TableName: name, StreamArn: spec.Str(want.StreamArn),
			UpdateKinesisStreamingConfiguration: &api.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: spec.Str(wantPrec)}}); err != nil {
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
func (p *provisioner) kinesisSettled(ctx context.Context) ([]api.KinesisDataStreamDestination, bool) {
	for {
		out, err := p.eng.DescribeKinesisStreamingDestination(ctx, p.ns, &api.DescribeKinesisStreamingDestinationInput{TableName: spec.Str(p.s.Name())})
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
		out, err := p.eng.ListTagsOfResource(ctx, p.ns, &api.ListTagsOfResourceInput{ResourceArn: arn, NextToken: token})
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
	var add []api.Tag
	for _, t := range p.s.Create.Tags {
		k, v := derefOr(t.Key, ""), derefOr(t.Value, "")
		want[k] = v
		if c, ok := cur[k]; !ok || c != v {
			add = append(add, api.Tag{Key: spec.Str(k), Value: spec.Str(v)})
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
		if _, err := p.eng.UntagResource(ctx, p.ns, &api.UntagResourceInput{ResourceArn: arn, TagKeys: remove}); err != nil {
			p.fail("UntagResource", err)
		}
	}
	if len(add) > 0 {
		if _, err := p.eng.TagResource(ctx, p.ns, &api.TagResourceInput{ResourceArn: arn, Tags: add}); err != nil {
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
	out, err := p.eng.DescribeTable(ctx, p.ns, &api.DescribeTableInput{TableName: spec.Str(p.s.Name())})
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
	cur, err := p.eng.GetResourcePolicy(ctx, p.ns, &api.GetResourcePolicyInput{ResourceArn: spec.Str(arn)})
	var e *api.Error
	switch {
	case errors.As(err, &e) && e.Code == api.CodePolicyNotFound:
		cur = nil
	case err != nil:
		p.failAt("GetResourcePolicy", err, path)
		return
	}
	switch {
	case want == nil && cur != nil:
		if _, err := p.eng.DeleteResourcePolicy(ctx, p.ns, &api.DeleteResourcePolicyInput{ResourceArn: spec.Str(arn)}); err != nil {
			p.failAt("DeleteResourcePolicy", err, path)
			return
		}
		p.changed = true
	case want != nil && (cur == nil || cur.Policy != *want):
		in := &api.PutResourcePolicyInput{ResourceArn: spec.Str(arn), Policy: want}
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
		got, err := p.eng.GetItem(ctx, p.ns, &api.GetItemInput{TableName: name, Key: key, ConsistentRead: spec.Bool(true)})
		if err != nil {
			p.diags.Errorf(pos, "seed item for table %s: GetItem: %v", p.s.Name(), err)
			continue
		}
		if got.Item != nil {
			continue
		}
		if _, err := p.eng.PutItem(ctx, p.ns, &api.PutItemInput{TableName: name, Item: item}); err != nil {
			p.diags.Errorf(pos, "seed item for table %s: PutItem: %v", p.s.Name(), err)
		}
		p.changed = true
	}
}
