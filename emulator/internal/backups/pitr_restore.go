package backups

// RestoreTableToPointInTime: the restored table is made as a restore from
// backup is (restore.go: stored CREATING at once, filled by a persisted,
// resumable job), from the source table's items as of the restore time
// (AsOfIter) instead of a backup's rows.

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// Live is what a point-in-time restore reads of its source table.
type Live struct {
	ID  [16]byte
	ARN string
	PITR
}

// checkPointInTime runs RestoreTableToPointInTime's checks of the request
// alone; latest reports a restore of the latest restorable time.
func checkPointInTime(in *api.RestoreTableToPointInTimeInput, checkSSE func(*api.SSESpecification) error) (latest bool, err error) {
	var v shape.Violations
	if in.SourceTableArn != nil {
		v.Length("sourceTableArn", *in.SourceTableArn, 1, 1024)
	}
	v.Name("sourceTableName", in.SourceTableName, false)
	v.Name("targetTableName", in.TargetTableName, true)
	v.Enum("billingModeOverride", in.BillingModeOverride, "PROVISIONED", "PAY_PER_REQUEST")
	v.Throughput("provisionedThroughputOverride", in.ProvisionedThroughputOverride)
	if err := v.Err(); err != nil {
		return false, err
	}
	if (in.SourceTableArn == nil) == (in.SourceTableName == nil) {
		return false, api.Validation("Exactly one of SourceTableArn or SourceTableName must be specified")
	}
	latest = in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	if latest && in.RestoreDateTime != nil {
		return false, api.Validation("Only one of RestoreDateTime or UseLatestRestorableTime may be specified")
	}
	// Neither restores the latest restorable time: Terraform sends neither
	// for a restore_source_name without restore_date_time or
	// restore_to_latest_time (unverified against DynamoDB).
	latest = latest || in.RestoreDateTime == nil
	return latest, checkSSE(in.SSESpecificationOverride)
}

// RestoreTableToPointInTime creates a table holding the items the source
// table held at RestoreDateTime (or LatestRestorableDateTime), with the
// source's current settings (the API Reference: "All these settings come
// from the current settings of the source table at the time of restore")
// and the overrides. It answers CREATING; the job fills the table.
// checkSSE is the engine's check of an SSESpecification.
func RestoreTableToPointInTime(c Core, ns api.Namespace, in *api.RestoreTableToPointInTimeInput, checkSSE func(*api.SSESpecification) error) (*api.RestoreTableToPointInTimeOutput, error) {
	if in == nil {
		in = &api.RestoreTableToPointInTimeInput{}
	}
	useLatest, err := checkPointInTime(in, checkSSE)
	if err != nil {
		return nil, err
	}
	sns, sname := ns, ""
	if in.SourceTableArn != nil {
		// Unlike a TableName ARN, the source may be in another Region of
		// the account: that is a cross-Region restore.
		if sns, sname, err = c.SourceTableARN(ns, *in.SourceTableArn); err != nil {
			return nil, err
		}
	} else {
		sname = *in.SourceTableName
	}
	now := c.Now()
	c.LockCatalog()
	defer c.UnlockCatalog()
	src, ok := c.LiveTable(sns, sname, now)
	if !ok {
		return nil, api.NewError(api.CodeTableNotFound, "Table not found: %s", sname)
	}
	if err := c.FreeTableName(ns, *in.TargetTableName, now); err != nil {
		return nil, err
	}
	if !src.PITREnabled {
		return nil, Unavailable(sname)
	}
	earliest, latest := src.Window(now, c.PITRLag())
	at := latest
	if !useLatest {
		at = FromEpoch(*in.RestoreDateTime)
		// The window's ends are compared at the millisecond, the precision
		// of the times DescribeContinuousBackups reports.
		if at.Before(earliest.Truncate(time.Millisecond)) || at.After(latest) {
			return nil, InvalidRestoreTime()
		}
	}
	if sns != ns && in.SSESpecificationOverride == nil {
		return nil, api.Validation("SSESpecificationOverride is required for a cross-region restore")
	}
	r := &Restore{SourceTableArn: src.ARN, RestoreDateTime: at, InProgress: true, SourceID: TableID(src.ID)}
	d, err := c.CreateRestored(ns, Origin{Namespace: sns, Name: sname}, &api.RestoreTableFromBackupInput{
		TargetTableName:               in.TargetTableName,
		BillingModeOverride:           in.BillingModeOverride,
		GlobalSecondaryIndexOverride:  in.GlobalSecondaryIndexOverride,
		LocalSecondaryIndexOverride:   in.LocalSecondaryIndexOverride,
		ProvisionedThroughputOverride: in.ProvisionedThroughputOverride,
		OnDemandThroughputOverride:    in.OnDemandThroughputOverride,
		SSESpecificationOverride:      in.SSESpecificationOverride,
		VectorIndexOverride:           in.VectorIndexOverride,
	}, r, now)
	if err != nil {
		return nil, err
	}
	return &api.RestoreTableToPointInTimeOutput{TableDescription: d}, nil
}

// asOfSource opens the source of t's point-in-time restore as of its
// restore time, after the cursor cur (nil: from the first item). snap is
// the store at the request, or nil for a job resumed after a restart,
// which reads the store now: the as-of view holds at any later moment
// (pitr.go) if the source incarnation still has PITR on since before the
// restore time and its history still reaches back to it.
func asOfSource(c Core, t Target, snap kv.Snapshot, cur []byte) (Rows, error) {
	r := t.Restore()
	if snap == nil {
		now := c.Now()
		c.RLockCatalog()
		src, found := c.LiveTableARN(r.SourceTableArn, now)
		ok := found && src.ID == [16]byte(r.SourceID) && src.PITREnabled &&
			!r.RestoreDateTime.Before(src.PITREnabledAt.Truncate(time.Millisecond)) &&
			r.RestoreDateTime.After(now.Add(-time.Duration(src.PITRDays)*24*time.Hour).Add(-TrimMargin/2))
		if ok {
			snap = c.Store().NewSnapshot()
		}
		c.RUnlockCatalog()
		if !ok {
			return nil, ErrHistoryGone
		}
	}
	it, err := NewAsOfIter(c, snap, r.SourceID, r.RestoreDateTime, cur)
	if err != nil {
		_ = snap.Close()
		return nil, err
	}
	return &asOfRows{it: it, snap: snap}, nil
}
