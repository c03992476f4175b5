package emulator

// RestoreTableToPointInTime: the restored table is made as a restore from
// backup is (restore.go: stored CREATING at once, filled by a persisted,
// resumable job), from the source table's items as of the restore time
// (pitr.go) instead of a backup's rows.

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/kv"
)

// errHistoryGone fails a resumed point-in-time restore whose source table,
// or the part of its history the restore needs, no longer exists.
var errHistoryGone = errors.New("emulator: the point-in-time history being restored is gone")

// RestoreTableToPointInTime creates a table holding the items the source
// table held at RestoreDateTime (or LatestRestorableDateTime), with the
// source's current settings (the API Reference: "All these settings come
// from the current settings of the source table at the time of restore")
// and the overrides. It answers CREATING; the job fills the table.
func (e *Engine) RestoreTableToPointInTime(ctx context.Context, ns Namespace, in *RestoreTableToPointInTimeInput) (*RestoreTableToPointInTimeOutput, error) {
	if in == nil {
		in = &RestoreTableToPointInTimeInput{}
	}
	var v violations
	if in.SourceTableArn != nil {
		v.length("sourceTableArn", *in.SourceTableArn, 1, 1024)
	}
	v.name("sourceTableName", in.SourceTableName, false)
	v.name("targetTableName", in.TargetTableName, true)
	v.enum("billingModeOverride", in.BillingModeOverride, billingProvisioned, billingPayPerRequest)
	v.throughput("provisionedThroughputOverride", in.ProvisionedThroughputOverride)
	if err := v.err(); err != nil {
		return nil, err
	}
	if (in.SourceTableArn == nil) == (in.SourceTableName == nil) {
		return nil, Validation("Exactly one of SourceTableArn or SourceTableName must be specified")
	}
	latest := in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	if latest && in.RestoreDateTime != nil {
		return nil, Validation("Only one of RestoreDateTime or UseLatestRestorableTime may be specified")
	}
	// Neither restores the latest restorable time: Terraform sends neither
	// for a restore_source_name without restore_date_time or
	// restore_to_latest_time (unverified against DynamoDB).
	latest = latest || in.RestoreDateTime == nil
	if err := checkSSESpec(in.SSESpecificationOverride); err != nil {
		return nil, err
	}
	sns, sname := ns, ""
	if in.SourceTableArn != nil {
		// Unlike a TableName ARN, the source may be in another Region of
		// the account: that is a cross-Region restore.
		a, err := parseARN(*in.SourceTableArn)
		if err != nil {
			return nil, err
		}
		if a.partition != ns.Partition() || a.index != "" || a.stream != "" || a.table == "" {
			return nil, Validation("1 validation error detected: Invalid resource type in '%s'", *in.SourceTableArn)
		}
		sns, sname = Namespace{Account: a.account, Region: a.region}, a.table
	} else {
		sname = *in.SourceTableName
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	src := e.lookup(sns, sname, now)
	if src == nil {
		return nil, NewError(CodeTableNotFound, "Table not found: %s", sname)
	}
	name := *in.TargetTableName
	if old := e.tables[ns][name]; old != nil {
		if !old.gone(now) {
			if s := old.status(now); s == statusCreating || s == statusDeleting {
				return nil, NewError(CodeTableInUse, "Table is being created or deleted: %s", name)
			}
			return nil, NewError(CodeTableAlreadyExists, "Table already exists: %s", name)
		}
		e.uncacheTable(ns, name)
	}
	if !src.PITREnabled {
		return nil, pitrUnavailable(sname)
	}
	var at time.Time
	if latest {
		_, at = e.pitrWindow(src, now)
	} else {
		at = fromEpoch(*in.RestoreDateTime)
		if err := e.checkRestoreTime(src, at, now); err != nil {
			return nil, err
		}
	}
	if sns != ns && in.SSESpecificationOverride == nil {
		return nil, Validation("SSESpecificationOverride is required for a cross-region restore")
	}
	t, err := restoredTable(ns, src, &RestoreTableFromBackupInput{
		TargetTableName:               in.TargetTableName,
		BillingModeOverride:           in.BillingModeOverride,
		GlobalSecondaryIndexOverride:  in.GlobalSecondaryIndexOverride,
		LocalSecondaryIndexOverride:   in.LocalSecondaryIndexOverride,
		ProvisionedThroughputOverride: in.ProvisionedThroughputOverride,
		OnDemandThroughputOverride:    in.OnDemandThroughputOverride,
		SSESpecificationOverride:      in.SSESpecificationOverride,
	}, now, e.opts.TransitionDelay)
	if err != nil {
		return nil, err
	}
	t.Restore = &restoreState{SourceTableArn: src.ARN(), RestoreDateTime: at, InProgress: true, SourceID: src.ID}
	if err := e.checkTableLimits(ns, t, t.Throughput.Read, t.Throughput.Write); err != nil {
		return nil, err
	}
	// The snapshot is taken before the table is saved, under e.mu: the job
	// reads the source as it is at the request, whatever comes after
	// (writes, PITR turned off, DeleteTable).
	snap := e.opts.Store.NewSnapshot()
	if err := e.saveTable(t); err != nil {
		_ = snap.Close()
		return nil, internalError(err)
	}
	// Described before the job starts: the answer shows the empty table.
	d := e.describe(t, now)
	e.startRestore(t, snap)
	return &RestoreTableToPointInTimeOutput{TableDescription: d}, nil
}

// asOfSource opens the source of t's point-in-time restore as of its
// restore time, after the cursor cur (nil: from the first item). snap is
// the store at the request, or nil for a job resumed after a restart,
// which reads the store now: the as-of view holds at any later moment
// (pitr.go) if the source incarnation still has PITR on since before the
// restore time and its history still reaches back to it.
func (e *Engine) asOfSource(t *tableMeta, snap kv.Snapshot, cur []byte) (rowSource, error) {
	r := t.Restore
	if snap == nil {
		a, err := parseARN(r.SourceTableArn)
		now := e.now()
		e.rlockCatalog()
		var src *tableMeta
		if err == nil {
			src = e.lookup(Namespace{Account: a.account, Region: a.region}, a.table, now)
		}
		ok := src != nil && src.ID == r.SourceID && src.PITREnabled &&
			!r.RestoreDateTime.Before(src.PITREnabledAt.Truncate(time.Millisecond)) &&
			r.RestoreDateTime.After(now.Add(-time.Duration(src.PITRDays)*24*time.Hour).Add(-pitrTrimMargin/2))
		if ok {
			snap = e.opts.Store.NewSnapshot()
		}
		e.mu.RUnlock()
		if !ok {
			return nil, errHistoryGone
		}
	}
	it, err := newAsOfIter(snap, r.SourceID, r.RestoreDateTime, cur)
	if err != nil {
		_ = snap.Close()
		return nil, err
	}
	return &asOfRows{it: it, snap: snap}, nil
}
