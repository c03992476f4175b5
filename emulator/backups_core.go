package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/progress"
	"github.com/rs/zerolog"
)

// On-demand backups and restores run in emulator/internal/backups. This
// file hands the operations over with bkCore, the core as backups and
// restores use it: the catalog, the table metadata a backup keeps and a
// restore rebuilds (restore.go), and the write path a restore's rows go
// through (restoreTarget).

const (
	famBackup     = backups.Backup
	famBackupData = backups.BackupData
)

// CreateBackup starts an on-demand backup of a table: the answer is
// CREATING at once and the copy runs in the background.
func (e *Engine) CreateBackup(ctx context.Context, ns api.Namespace, in *api.CreateBackupInput) (*api.CreateBackupOutput, error) {
	return e.bk.CreateBackup((*bkCore)(e), ns, in)
}

// DescribeBackup describes one backup.
func (e *Engine) DescribeBackup(ctx context.Context, ns api.Namespace, in *api.BackupArnInput) (*api.BackupDescriptionOutput, error) {
	return backups.DescribeBackup((*bkCore)(e), ns, in)
}

// DeleteBackup deletes a backup and its rows; the answer describes it as
// DELETED.
func (e *Engine) DeleteBackup(ctx context.Context, ns api.Namespace, in *api.BackupArnInput) (*api.BackupDescriptionOutput, error) {
	return backups.DeleteBackup((*bkCore)(e), ns, in)
}

// ListBackups lists the namespace's backups in creation order, filtered by
// table, type and creation time, a page at a time.
func (e *Engine) ListBackups(ctx context.Context, ns api.Namespace, in *api.ListBackupsInput) (*api.ListBackupsOutput, error) {
	return backups.ListBackups((*bkCore)(e), ns, in)
}

// RestoreTableToPointInTime creates a table holding the items the source
// table held at RestoreDateTime (or LatestRestorableDateTime), with the
// source's current settings and the overrides. It answers CREATING; the
// job fills the table.
func (e *Engine) RestoreTableToPointInTime(ctx context.Context, ns api.Namespace, in *api.RestoreTableToPointInTimeInput) (*api.RestoreTableToPointInTimeOutput, error) {
	return backups.RestoreTableToPointInTime((*bkCore)(e), ns, in, checkSSESpec)
}

// RestoreTableFromBackup creates a table from a backup, in the request's
// namespace (a backup of another Region of the account restores across
// Regions). It answers CREATING; the job fills the table.
func (e *Engine) RestoreTableFromBackup(ctx context.Context, ns api.Namespace, in *api.RestoreTableFromBackupInput) (*api.RestoreTableFromBackupOutput, error) {
	return backups.RestoreTableFromBackup((*bkCore)(e), ns, in, checkSSESpec)
}

// failUnfinishedBackups marks every backup left CREATING by the last run
// DELETED and drops its rows; on a shared store the leader does it for
// the backups of processes gone (dead reports them).
func (e *Engine) failUnfinishedBackups(dead func(owner string) bool) error {
	return backups.FailUnfinished((*bkCore)(e), dead)
}

// systemBackup stages in b the SYSTEM backup DeleteTable keeps of t (PITR
// on); the caller starts its copy with e.bk.Start once b is committed.
func (e *Engine) systemBackup(b kv.Batch, t *tableMeta, now time.Time) (*backups.Meta, error) {
	src, err := backupSource(e, t)
	if err != nil {
		return nil, err
	}
	return backups.SystemBackup((*bkCore)(e), b, t.ns(), src, now)
}

// startRestore runs t's restore job (backups.Jobs.StartRestore). The
// caller holds e.mu (or is New); snap, if not nil, is the store at a
// point-in-time restore's request.
func (e *Engine) startRestore(t *tableMeta, snap kv.Snapshot) {
	e.bk.StartRestore((*bkCore)(e), &restoreTarget{e: e, t: t}, snap)
}

// resumeRestores starts the job of every table left restoring.
func (e *Engine) resumeRestores() {
	var jobs []*tableMeta
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if t.Restore != nil && t.Restore.InProgress && !t.Deleting {
				jobs = append(jobs, t)
			}
		}
	}
	e.mu.RUnlock()
	for _, t := range jobs {
		e.startRestore(t, nil)
	}
}

// backupSource is what a backup keeps of t: its metadata as stored, and
// its statistics now.
func backupSource(e *Engine, t *tableMeta) (backups.Source, error) {
	raw, err := json.Marshal(t.clone())
	if err != nil {
		return backups.Source{}, err
	}
	src := backups.Source{Table: raw, Name: t.Name, ID: t.ID}
	src.ItemCount, src.SizeBytes = e.tableStats(t)
	return src, nil
}

// bkCore is the engine as backups and restores use it (backups.Core).
type bkCore Engine

func (c *bkCore) e() *Engine { return (*Engine)(c) }

func (c *bkCore) Now() time.Time                { return c.e().now() }
func (c *bkCore) Store() kv.Store               { return c.opts.Store }
func (c *bkCore) Commit(b kv.Batch) error       { return c.e().commit(b) }
func (c *bkCore) Sync() bool                    { return c.opts.Sync }
func (c *bkCore) Log() *zerolog.Logger          { return &c.log }
func (c *bkCore) InternalError(err error) error { return internalError(err) }
func (c *bkCore) LockCatalog()                  { c.e().lockCatalog() }
func (c *bkCore) UnlockCatalog()                { c.e().unlockCatalog() }
func (c *bkCore) RLockCatalog()                 { c.e().rlockCatalog() }
func (c *bkCore) RUnlockCatalog()               { c.mu.RUnlock() }
func (c *bkCore) ItemPrefix(id [16]byte) []byte { return keyspace.ItemPrefix(id) }
func (c *bkCore) JobOwner() string              { return c.e().jobOwner() }
func (c *bkCore) OwnerGone(owner string) bool   { return c.e().ownerGone(owner) }
func (c *bkCore) Shared() bool                  { return c.isShared }

// JobMeter logs a backup or restore job's progress at info, as the GSI
// backfill does.
func (c *bkCore) JobMeter(ns api.Namespace, table, kind, arn string, resumed bool) backups.Meter {
	return &progress.Meter{Unit: "items", Now: c.opts.Clock.Now, Report: func(r progress.Report) {
		ev := c.log.Info().Str("account", ns.Account).Str("region", ns.Region).Str("table", table).Str(kind, arn).
			Int64(r.Unit, r.Count)
		if r.Total > 0 {
			ev = ev.Int64("total", r.Total)
		}
		if resumed {
			ev = ev.Bool("resumed", true)
		}
		ev.Float64(r.Unit+"_per_second", r.Rate).Dur("elapsed", r.Elapsed).Msg(r.Message())
	}}
}

func (c *bkCore) ClaimJob(key string) bool { return c.e().claimJob(key) }
func (c *bkCore) ReleaseJob(key string)    { c.e().releaseJob(key) }

func (c *bkCore) ResolveName(ns api.Namespace, nameOrARN string) (api.Namespace, string, error) {
	return resolveName(ns, nameOrARN)
}

// BackupSource finds the table of a CreateBackup: not one being created
// or deleted.
func (c *bkCore) BackupSource(ns api.Namespace, name string, now time.Time) (backups.Source, error) {
	t := c.e().lookup(ns, name, now)
	if t == nil {
		return backups.Source{}, api.NewError(api.CodeTableNotFound, "Table not found: %s", name)
	}
	switch t.status(now) {
	case statusCreating:
		return backups.Source{}, api.NewError(api.CodeContinuousBackupsUnavailable, "Backups are being enabled for the table: %s. Please retry later", t.Name)
	case statusDeleting:
		return backups.Source{}, api.NewError(api.CodeTableInUse, "Table is being deleted: %s", t.Name)
	}
	src, err := backupSource(c.e(), t)
	if err != nil {
		return src, internalError(err)
	}
	return src, nil
}

func sourceThroughput(pt ptState, billing string) api.SourceProvisionedThroughput {
	if billing == billingPayPerRequest {
		return api.SourceProvisionedThroughput{}
	}
	return api.SourceProvisionedThroughput{ReadCapacityUnits: pt.Read, WriteCapacityUnits: pt.Write}
}

// DescribeSource is DescribeBackup's description of the table a backup
// keeps.
func (c *bkCore) DescribeSource(raw json.RawMessage) (*api.SourceTableDetails, *api.SourceTableFeatureDetails, error) {
	var t tableMeta
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, nil, err
	}
	src := &api.SourceTableDetails{TableName: t.Name, TableId: t.ID.UUID(), TableArn: t.ARN(),
		KeySchema: describeKeys(t.KeySchema), TableCreationDateTime: epochSeconds(t.CreatedAt),
		ProvisionedThroughput: sourceThroughput(t.Throughput, t.BillingMode), OnDemandThroughput: describeODT(t.OnDemand),
		BillingMode: t.BillingMode}
	f := &api.SourceTableFeatureDetails{}
	for _, ix := range t.LSIs {
		f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, api.LocalSecondaryIndexInfo{IndexName: ix.Name,
			KeySchema: describeKeys(ix.KeySchema), Projection: api.DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: ix.NonKeyAttrs}})
	}
	for _, ix := range backupGSIs(&t) {
		pt := sourceThroughput(ix.Throughput, t.BillingMode)
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, api.GlobalSecondaryIndexInfo{IndexName: ix.Name,
			KeySchema: describeKeys(ix.KeySchema), Projection: api.DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: sortedCopy(ix.NonKeyAttrs)},
			ProvisionedThroughput: &pt, OnDemandThroughput: describeODT(ix.OnDemand)})
	}
	f.VectorIndexes = backupVectorInfo(&t)
	if t.StreamEnabled {
		f.StreamDescription = &api.DescribedStreamSpecification{StreamEnabled: true, StreamViewType: t.StreamViewType}
	}
	if t.TTLEnabled {
		f.TimeToLiveDescription = &api.TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: t.TTLAttr}
	}
	if t.SSEEnabled {
		f.SSEDescription = &api.SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: t.SSEKMSKeyArn}
	}
	return src, f, nil
}

// backupGSIs are the GSIs a backup holds: those complete and not being
// deleted at the request (a GSI still backfilling is not in the backup).
func backupGSIs(t *tableMeta) []*indexMeta {
	var out []*indexMeta
	for _, ix := range t.GSIs {
		if !ix.Deleted && !ix.Backfilling {
			out = append(out, ix)
		}
	}
	return out
}

// RestoringFrom reports whether a restore from backup arn is running.
func (c *bkCore) RestoringFrom(arn string) bool {
	for _, m := range c.tables {
		for _, t := range m {
			if t.Restore != nil && t.Restore.InProgress && t.Restore.SourceBackupArn == arn {
				return true
			}
		}
	}
	return false
}

// CreateRestored makes the table of a restore, from a backup's record of
// its table or from a live table as of a moment.
func (c *bkCore) CreateRestored(ns api.Namespace, origin backups.Origin, in *api.RestoreTableFromBackupInput, r *backups.Restore, now time.Time) (*api.TableDescription, error) {
	e := c.e()
	var src *tableMeta
	if origin.Table != nil {
		src = &tableMeta{}
		if err := json.Unmarshal(origin.Table, src); err != nil {
			return nil, internalError(err)
		}
	} else if src = e.lookup(origin.Namespace, origin.Name, now); src == nil {
		return nil, api.NewError(api.CodeTableNotFound, "Table not found: %s", origin.Name)
	}
	t, err := restoredTable(ns, src, in, now, e.opts.TransitionDelay)
	if err != nil {
		return nil, err
	}
	t.Restore = r
	if err := e.checkTableLimits(ns, t, t.Throughput.Read, t.Throughput.Write); err != nil {
		return nil, err
	}
	var snap kv.Snapshot
	if origin.Table == nil {
		// The snapshot is taken before the table is saved, under e.mu: the
		// job reads the source as it is at the request, whatever comes
		// after (writes, PITR turned off, DeleteTable).
		snap = e.opts.Store.NewSnapshot()
	}
	if err := e.saveTable(t); err != nil {
		if snap != nil {
			_ = snap.Close()
		}
		return nil, internalError(err)
	}
	// Described before the job starts: the answer shows the empty table.
	d := e.describe(t, now)
	e.startRestore(t, snap)
	return d, nil
}

// FreeTableName refuses a restore's target name a live table of ns has
// (ResourceInUse while it is being created or deleted, TableAlreadyExists
// else), and forgets a table of that name that is gone.
func (c *bkCore) FreeTableName(ns api.Namespace, name string, now time.Time) error {
	e := c.e()
	if old := e.tables[ns][name]; old != nil {
		if !old.gone(now) {
			if s := old.status(now); s == statusCreating || s == statusDeleting {
				return api.NewError(api.CodeTableInUse, "Table is being created or deleted: %s", name)
			}
			return api.NewError(api.CodeTableAlreadyExists, "Table already exists: %s", name)
		}
		e.uncacheTable(ns, name)
	}
	return nil
}

func (c *bkCore) PITRLag() time.Duration { return c.opts.PITRLag }

// SetPITR saves a table's PITR setting (control_misc.go).
func (c *bkCore) SetPITR(ns api.Namespace, nameRef *string, spec *api.PointInTimeRecoverySpecification, now time.Time) (backups.PITR, time.Time, error) {
	e := c.e()
	nt, enabled, err := e.saveContinuousBackups(ns, nameRef, spec, now)
	if err != nil {
		return backups.PITR{}, now, err
	}
	if enabled {
		if nt, now, err = e.pitrBarrier(nt); err != nil {
			return backups.PITR{}, now, err
		}
	}
	return nt.PITR, now, nil
}

// SourceTableARN checks a point-in-time restore's source ARN: a table's
// (no index or stream) of ns's partition.
func (c *bkCore) SourceTableARN(ns api.Namespace, arn string) (api.Namespace, string, error) {
	a, err := parseARN(arn)
	if err != nil {
		return ns, "", err
	}
	if a.partition != ns.Partition() || a.index != "" || a.stream != "" || a.table == "" {
		return ns, "", api.Validation("1 validation error detected: Invalid resource type in '%s'", arn)
	}
	return api.Namespace{Account: a.account, Region: a.region}, a.table, nil
}

func liveOf(t *tableMeta) (backups.Live, bool) {
	if t == nil {
		return backups.Live{}, false
	}
	return backups.Live{ID: t.ID, ARN: t.ARN(), PITR: t.PITR}, true
}

// LiveTable is the live table name of ns.
func (c *bkCore) LiveTable(ns api.Namespace, name string, now time.Time) (backups.Live, bool) {
	return liveOf(c.e().lookup(ns, name, now))
}

// LiveTableARN is the live table of a table's ARN.
func (c *bkCore) LiveTableARN(arn string, now time.Time) (backups.Live, bool) {
	a, err := parseARN(arn)
	if err != nil {
		return backups.Live{}, false
	}
	return liveOf(c.e().lookup(api.Namespace{Account: a.account, Region: a.region}, a.table, now))
}

// restoreTarget is a table being restored (backups.Target).
type restoreTarget struct {
	e *Engine
	t *tableMeta
}

func (r *restoreTarget) Namespace() api.Namespace  { return r.t.ns() }
func (r *restoreTarget) Name() string              { return r.t.Name }
func (r *restoreTarget) ID() [16]byte              { return r.t.ID }
func (r *restoreTarget) Restore() *backups.Restore { return r.t.Restore }

// Cursor reads the job's cursor, stored under the table's index family
// with the reserved index ID restoreCursorID, so DeleteTable's range
// delete drops it too.
func (r *restoreTarget) Cursor() ([]byte, error) {
	cur, err := r.e.opts.Store.Get(restoreCursorKey(r.t.ID))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	return cur, err
}

// Write stages the rows through the write path (prepare + stage), so each
// kept index gets its entries and the stats stay exact, with the cursor.
func (r *restoreTarget) Write(keys, vals [][]byte) error {
	e, t := r.e, r.t
	itemP := keyspace.ItemPrefix(t.ID)
	err := e.update(true, func(wb *writeBatch) error {
		for i, k := range keys {
			item, err := av.DecodeItem(vals[i])
			if err != nil {
				return internalError(err)
			}
			key := append(append(make([]byte, 0, len(itemP)+len(k)), itemP...), k...)
			pw, err := e.prepare(noItems{}, &writeSpec{t: t, key: key, build: func(av.Item) (av.Item, error) { return item, nil }})
			if err == nil {
				err = wb.stage(pw)
			}
			if err != nil {
				return err
			}
		}
		if len(keys) > 0 {
			return wb.b.Set(restoreCursorKey(t.ID), keys[len(keys)-1])
		}
		return nil
	})
	if err != nil {
		return writeError(err)
	}
	return nil
}

// Finish clears InProgress and drops the cursor in one batch (with
// Options.Sync, which makes the unsynced chunks before it durable too).
func (r *restoreTarget) Finish() error {
	e := r.e
	e.lockCatalog()
	defer e.unlockCatalog()
	c, ok := e.live(r.t)
	if !ok {
		return backups.ErrTableGone
	}
	nt := c.clone()
	nt.Restore.InProgress = false
	return e.finishJob(restoreCursorKey(r.t.ID), nt)
}

// Drop deletes a table whose restore cannot finish.
func (r *restoreTarget) Drop() { r.e.dropRestored(r.t) }
