package emulator

// RestoreTableFromBackup and its job.
//
// The restored table is stored at once, CREATING with Restore.InProgress
// set (a persisted flag, like a backfilling GSI's), and a job copies the
// backup's rows into it through the write path (prepare + stage), so each
// kept index gets its entries and the stats stay exact. After every chunk
// the job saves a cursor (the last row done) in the same batch as the rows,
// under the new table's index family with the reserved index ID
// restoreCursorID, so DeleteTable's range delete drops it too. New resumes
// every table left restoring from its cursor. The job clears InProgress in the batch that drops the
// cursor: the table is ACTIVE only with every item in. DeleteBackup
// refuses a backup being restored, so the rows outlive the job; if they
// are gone anyway, the restore fails and the half-made table is dropped.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// restoreCursorID is the pseudo index ID of a restore job's cursor
// (beside statsIndexID, backfillCursorID and seedCursorID).
const restoreCursorID = 0xFFFFFFFD

// restoreState is a restored table's RestoreSummary and job flag.
type restoreState struct {
	SourceBackupArn string    `json:"backup"`
	SourceTableArn  string    `json:"sourceTable"`
	RestoreDateTime time.Time `json:"at"`
	InProgress      bool      `json:"inProgress,omitempty"`
	// SourceID is the source table's ID of a point-in-time restore (no
	// SourceBackupArn): a resumed job reads that incarnation's history only.
	SourceID tableID `json:"sourceID,omitzero"`
}

func restoreCursorKey(t tableID) []byte { return indexPrefix(t, restoreCursorID) }

// RestoreTableFromBackup creates a table from a backup, in the request's
// namespace (a backup of another Region of the account restores across
// Regions). It answers CREATING; the job fills the table.
func (e *Engine) RestoreTableFromBackup(ctx context.Context, ns Namespace, in *RestoreTableFromBackupInput) (*RestoreTableFromBackupOutput, error) {
	if in == nil {
		in = &RestoreTableFromBackupInput{}
	}
	var v violations
	v.name("targetTableName", in.TargetTableName, true)
	backupArnShape(&v, "backupArn", in.BackupArn, true)
	v.enum("billingModeOverride", in.BillingModeOverride, billingProvisioned, billingPayPerRequest)
	v.throughput("provisionedThroughputOverride", in.ProvisionedThroughputOverride)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkSSESpec(in.SSESpecificationOverride); err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	m, err := e.findBackup(ns, *in.BackupArn, true)
	if err != nil {
		return nil, err
	}
	switch m.Status {
	case backupCreating:
		return nil, NewError(CodeBackupInUse, "Backup is being created: %s", m.ARN())
	case backupDeleted:
		return nil, backupNotFound(*in.BackupArn)
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
	if m.ns() != ns && in.SSESpecificationOverride == nil {
		return nil, Validation("SSESpecificationOverride is required for a cross-region restore")
	}
	t, err := restoredTable(ns, m.Table, in, now, e.opts.TransitionDelay)
	if err != nil {
		return nil, err
	}
	t.Restore = &restoreState{SourceBackupArn: m.ARN(), SourceTableArn: m.Table.ARN(), RestoreDateTime: m.CreatedAt, InProgress: true}
	if err := e.checkTableLimits(ns, t, t.Throughput.Read, t.Throughput.Write); err != nil {
		return nil, err
	}
	if err := e.saveTable(t); err != nil {
		return nil, internalError(err)
	}
	// Described before the job starts: the answer shows the empty table.
	d := e.describe(t, now)
	e.startRestore(t, nil)
	return &RestoreTableFromBackupOutput{TableDescription: d}, nil
}

// restoredTable builds the restored table's metadata from its source's (the
// backup's record of it, or the source table of a point-in-time restore):
// data, indexes (unless overridden), billing mode, capacity and encryption
// are kept; tags, stream, TTL, PITR, the resource policy, deletion
// protection, Kinesis streaming destinations and the table class are not
// (§3.2, §4.2). The caller sets
// t.Restore.
func restoredTable(ns Namespace, src *tableMeta, in *RestoreTableFromBackupInput, now time.Time, delay time.Duration) (*tableMeta, error) {
	t := src.clone()
	id, err := newTableID()
	if err != nil {
		return nil, internalError(err)
	}
	t.Account, t.Region, t.Name, t.ID, t.CreatedAt = ns.Account, ns.Region, *in.TargetTableName, id, now
	t.Throughput = ptState{Read: src.Throughput.Read, Write: src.Throughput.Write}
	t.StreamEnabled, t.StreamViewType, t.StreamLabel = false, "", ""
	t.TTLEnabled, t.TTLAttr = false, ""
	t.PITREnabled, t.PITRDays, t.PITREnabledAt = false, 0, time.Time{}
	t.Tags, t.ResourcePolicy, t.DeletionProtection = nil, "", false
	t.Kinesis = nil
	t.Policy, t.StreamPolicies, t.Group = nil, nil, nil
	t.TableClass, t.TableClassSet, t.TableClassUpdate = classStandard, false, time.Time{}
	t.CreatingUntil, t.UpdatingUntil, t.UpdatingWhat = time.Time{}, time.Time{}, ""
	t.Deleting, t.DeletingUntil = false, time.Time{}
	t.GSIs = backupGSIs(t)
	for _, ix := range t.GSIs {
		ix.Throughput = ptState{Read: ix.Throughput.Read, Write: ix.Throughput.Write}
		ix.Backfill, ix.Backfilling = false, false
		ix.CreatingUntil, ix.UpdatingUntil = time.Time{}, time.Time{}
	}
	if o := in.LocalSecondaryIndexOverride; o != nil {
		kept, err := keepIndexes(t.LSIs, o, func(l LocalSecondaryIndex) *string { return l.IndexName })
		if err != nil {
			return nil, err
		}
		t.LSIs = kept
	}
	if o := in.GlobalSecondaryIndexOverride; o != nil {
		kept, err := keepIndexes(t.GSIs, o, func(g GlobalSecondaryIndex) *string { return g.IndexName })
		if err != nil {
			return nil, err
		}
		t.GSIs = kept
		for _, g := range o {
			for _, ix := range t.GSIs {
				if ix.Name == *g.IndexName {
					if pt := g.ProvisionedThroughput; pt != nil && pt.ReadCapacityUnits != nil && pt.WriteCapacityUnits != nil {
						ix.Throughput = ptState{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
					}
					if g.OnDemandThroughput != nil {
						ix.OnDemand = odtFrom(g.OnDemandThroughput)
					}
				}
			}
		}
	}
	if err := applyBillingOverride(t, in, now); err != nil {
		return nil, err
	}
	if o := in.OnDemandThroughputOverride; o != nil {
		t.OnDemand = odtFrom(o)
	}
	if s := in.SSESpecificationOverride; s != nil {
		t.SSEEnabled, t.SSEKMSKeyArn = sseWanted(s), ""
		if t.SSEEnabled {
			t.SSEKMSKeyArn = kmsKeyArn(ns, s.KMSMasterKeyId)
		}
	}
	t.Warm = warmFor(t.BillingMode, t.Throughput)
	for _, ix := range t.GSIs {
		ix.Warm = warmFor(t.BillingMode, ix.Throughput)
	}
	if delay > 0 {
		t.CreatingUntil = now.Add(delay)
	}
	return t, nil
}

func warmFor(billing string, pt ptState) warmState {
	if billing == billingPayPerRequest {
		return warmState{Read: onDemandWarmRead, Write: onDemandWarmWrite}
	}
	return warmState{Read: pt.Read, Write: pt.Write}
}

// keepIndexes keeps the indexes an override names: an override may only
// drop indexes of the backup, never add one.
func keepIndexes[T any](have []*indexMeta, o []T, name func(T) *string) ([]*indexMeta, error) {
	kept := []*indexMeta{}
	for _, x := range o {
		n := name(x)
		if n == nil {
			return nil, Validation("One or more parameter values were invalid: IndexName must be specified in an index override")
		}
		found := false
		for _, ix := range have {
			if ix.Name == *n {
				kept, found = append(kept, ix), true
			}
		}
		if !found {
			return nil, Validation("One or more parameter values were invalid: Index %s is not present in the backup", *n)
		}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	return kept, nil
}

// applyBillingOverride applies BillingModeOverride and
// ProvisionedThroughputOverride to t (which holds the backup's settings).
func applyBillingOverride(t *tableMeta, in *RestoreTableFromBackupInput, now time.Time) error {
	billing := strOrDefault(in.BillingModeOverride, t.BillingMode)
	pt := in.ProvisionedThroughputOverride
	if billing == billingPayPerRequest {
		if pt != nil {
			return Validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		if t.BillingMode != billingPayPerRequest {
			t.BillingMode, t.EverPayPerRequest, t.LastPayPerRequest = billingPayPerRequest, true, now
			t.Throughput = ptState{}
			for _, ix := range t.GSIs {
				ix.Throughput = ptState{}
			}
		}
		return nil
	}
	if t.BillingMode == billingPayPerRequest && pt == nil {
		return Validation("One or more parameter values were invalid: ProvisionedThroughputOverride must be specified when BillingModeOverride is PROVISIONED")
	}
	if t.BillingMode == billingPayPerRequest {
		t.BillingMode, t.OnDemand = billingProvisioned, odtCaps{}
		for _, ix := range t.GSIs {
			// GSIs the override gives no capacity take the table's.
			if ix.Throughput.Read == 0 {
				ix.Throughput = ptState{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
			}
			ix.OnDemand = odtCaps{}
		}
	}
	if pt != nil {
		t.Throughput = ptState{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
	}
	return nil
}

// startRestore runs t's restore job. The caller holds e.mu (or is New).
// snap, if not nil, is the store at a point-in-time restore's request,
// which the job reads and closes.
// On a shared store only the leader runs it: another process closes snap
// and leaves the job to the leader's poll (lease.go), which restores a
// point in time from the PITR history as a resumed job does.
func (e *Engine) startRestore(t *tableMeta, snap kv.Snapshot) {
	job := fmt.Sprintf("restore/%x", t.ID[:])
	if !e.claimJob(job) {
		if snap != nil {
			_ = snap.Close()
		}
		return
	}
	e.bk.wg.Add(1)
	go func() {
		defer e.bk.wg.Done()
		defer e.releaseJob(job)
		err := e.restore(e.bk.ctx, t, snap)
		switch {
		case err == nil, errors.Is(err, context.Canceled), errors.Is(err, errTableGone):
		case errors.Is(err, errBackupGone):
			e.log.Error().Str("table", t.Name).Str("backup", t.Restore.SourceBackupArn).Msg("restore failed: the backup is gone; the table is dropped")
			e.dropRestored(t)
		case errors.Is(err, errHistoryGone):
			e.log.Error().Str("table", t.Name).Str("source", t.Restore.SourceTableArn).Msg("restore failed: the source table's point-in-time history is gone; the table is dropped")
			e.dropRestored(t)
		default:
			e.log.Error().Err(err).Str("table", t.Name).Msg("restore failed; it resumes at the next start")
		}
	}()
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

var errBackupGone = errors.New("emulator: the backup being restored is gone")

// rowSource yields a restore's rows in primary key order: each row's
// primary key encoding (after the table's item prefix) and encoded item.
type rowSource interface {
	next(n int) (keys, vals [][]byte, err error)
	close()
}

// backupRows reads a backup's rows from the store.
type backupRows struct {
	r     kv.Reader
	src   []byte // the backup's data prefix
	lower []byte
}

func (b *backupRows) next(n int) (keys, vals [][]byte, err error) {
	keys, vals, err = nextEntries(b.r, b.lower, prefixEnd(b.src), n)
	if len(keys) > 0 {
		b.lower = append(append([]byte(nil), keys[len(keys)-1]...), 0)
	}
	for i := range keys {
		keys[i] = keys[i][len(b.src):]
	}
	return keys, vals, err
}

func (b *backupRows) close() {}

// asOfRows reads a table as of a moment (pitr.go).
type asOfRows struct {
	it   *asOfIter
	snap kv.Snapshot
}

func (a *asOfRows) next(n int) (keys, vals [][]byte, err error) {
	for len(keys) < n && a.it.Next() {
		keys = append(keys, append([]byte(nil), a.it.Key()...))
		vals = append(vals, a.it.Value())
	}
	return keys, vals, a.it.Err()
}

func (a *asOfRows) close() {
	_ = a.it.Close()
	_ = a.snap.Close()
}

// backupSource opens the rows of t's backup after the cursor cur (nil:
// from the first) and returns how many rows it has.
func (e *Engine) backupSource(t *tableMeta, cur []byte) (rowSource, int64, error) {
	bns, _, id, ok := parseBackupARN(t.Restore.SourceBackupArn)
	if !ok {
		return nil, 0, errBackupGone
	}
	m, err := getBackup(e.opts.Store, bns, id)
	if err != nil {
		return nil, 0, err
	}
	if m == nil || m.Status != backupAvailable {
		return nil, 0, errBackupGone
	}
	src := backupDataPrefix(m.DataID)
	lower := src
	if cur != nil {
		lower = append(append(append([]byte(nil), src...), cur...), 0)
	}
	return &backupRows{r: e.opts.Store, src: src, lower: lower}, m.ItemCount, nil
}

func (e *Engine) restore(ctx context.Context, t *tableMeta, snap kv.Snapshot) error {
	ck := restoreCursorKey(t.ID)
	cur, err := e.opts.Store.Get(ck)
	resumed := err == nil
	if err != nil && !errors.Is(err, kv.ErrNotFound) {
		if snap != nil {
			_ = snap.Close()
		}
		return err
	}
	var rows rowSource
	var total int64
	if t.Restore.SourceBackupArn != "" {
		rows, total, err = e.backupSource(t, cur)
	} else {
		rows, err = e.asOfSource(t, snap, cur)
	}
	if err != nil {
		return err
	}
	defer rows.close()
	arn := t.Restore.SourceBackupArn
	if arn == "" {
		arn = t.Restore.SourceTableArn
	}
	meter := e.jobMeter(t.Account, t.Region, t.Name, "restore", arn, resumed)
	if resumed {
		total = 0
	}
	meter.Start("restore", total)
	itemP := itemPrefix(t.ID)
	done := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, vals, err := rows.next(backupChunk)
		if err != nil {
			return err
		}
		err = e.update(true, func(wb *writeBatch) error {
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
				return wb.b.Set(ck, keys[len(keys)-1])
			}
			return nil
		})
		if err != nil {
			return writeError(err)
		}
		done += len(keys)
		meter.Add(int64(len(keys)))
		if len(keys) < backupChunk {
			if err := e.finishRestore(t); err != nil {
				return err
			}
			meter.Done()
			return nil
		}
		if f := e.bk.afterChunk; f != nil {
			f("restore", done)
		}
	}
}

// noItems is the reader the restore prepares its writes against: a row
// after the cursor was never written to the new table (the cursor commits
// with the rows, and the table refuses writes while CREATING), so there is
// no old item to read. Skipping the read halves the restore's time.
type noItems struct{}

func (noItems) Get([]byte) ([]byte, error) { return nil, kv.ErrNotFound }

func (noItems) NewIter(_, _ []byte) (kv.Iterator, error) {
	return nil, errors.New("emulator: noItems has no iterator")
}

// finishRestore clears InProgress and drops the cursor in one batch (with
// Options.Sync, which makes the unsynced chunks before it durable too).
func (e *Engine) finishRestore(t *tableMeta) error {
	e.lockCatalog()
	defer e.unlockCatalog()
	c, ok := e.live(t)
	if !ok {
		return errTableGone
	}
	nt := c.clone()
	nt.Restore.InProgress = false
	return e.finishJob(restoreCursorKey(t.ID), nt)
}

// dropRestored deletes a table whose restore cannot finish.
func (e *Engine) dropRestored(t *tableMeta) {
	e.lockCatalog()
	defer e.unlockCatalog()
	if _, ok := e.live(t); !ok {
		return
	}
	b := e.opts.Store.NewBatch()
	if err := dropTableData(b, t.ID); err != nil {
		_ = b.Close()
		return
	}
	if err := deleteTableMeta(b, t.ns(), t.Name); err != nil {
		_ = b.Close()
		return
	}
	if err := e.commit(b); err != nil {
		e.log.Error().Err(err).Str("table", t.Name).Msg("dropping a failed restore")
		return
	}
	e.uncacheTable(t.ns(), t.Name)
}
