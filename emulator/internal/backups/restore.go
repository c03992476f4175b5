package backups

// RestoreTableFromBackup and the restore job (RestoreTableToPointInTime's
// too).
//
// The restored table is stored at once, CREATING with Restore.InProgress
// set (a persisted flag, like a backfilling GSI's), and a job copies the
// backup's rows (or the source table's items as of the restore time) into
// it through the write path (Target.Write), so each kept index gets its
// entries and the stats stay exact. After every chunk the job saves a
// cursor (the last row done) in the same batch as the rows, under the new
// table's keys, so DeleteTable's range delete drops it too. New resumes
// every table left restoring from its cursor. The job clears InProgress in
// the batch that drops the cursor: the table is ACTIVE only with every
// item in. DeleteBackup refuses a backup being restored, so the rows
// outlive the job; if they are gone anyway, the restore fails and the
// half-made table is dropped.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// Restore is a restored table's RestoreSummary and job flag, stored with
// the table.
type Restore struct {
	SourceBackupArn string    `json:"backup"`
	SourceTableArn  string    `json:"sourceTable"`
	RestoreDateTime time.Time `json:"at"`
	InProgress      bool      `json:"inProgress,omitempty"`
	// SourceID is the source table's ID of a point-in-time restore (no
	// SourceBackupArn): a resumed job reads that incarnation's history only.
	SourceID TableID `json:"sourceID,omitzero"`
}

// RestoreTableFromBackup creates a table from a backup, in the request's
// namespace (a backup of another Region of the account restores across
// Regions). It answers CREATING; the job fills the table. checkSSE is the
// engine's check of an SSESpecification.
func RestoreTableFromBackup(c Core, ns api.Namespace, in *api.RestoreTableFromBackupInput, checkSSE func(*api.SSESpecification) error) (*api.RestoreTableFromBackupOutput, error) {
	if in == nil {
		in = &api.RestoreTableFromBackupInput{}
	}
	var v shape.Violations
	v.Name("targetTableName", in.TargetTableName, true)
	arnShape(&v, "backupArn", in.BackupArn, true)
	v.Enum("billingModeOverride", in.BillingModeOverride, "PROVISIONED", "PAY_PER_REQUEST")
	v.Throughput("provisionedThroughputOverride", in.ProvisionedThroughputOverride)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := checkSSE(in.SSESpecificationOverride); err != nil {
		return nil, err
	}
	now := c.Now()
	c.LockCatalog()
	defer c.UnlockCatalog()
	m, err := find(c, ns, *in.BackupArn, true)
	if err != nil {
		return nil, err
	}
	switch m.Status {
	case statusCreating:
		return nil, api.NewError(api.CodeBackupInUse, "Backup is being created: %s", m.ARN())
	case statusDeleted:
		return nil, notFound(*in.BackupArn)
	}
	if err := c.FreeTableName(ns, *in.TargetTableName, now); err != nil {
		return nil, err
	}
	if m.ns() != ns && in.SSESpecificationOverride == nil {
		return nil, api.Validation("SSESpecificationOverride is required for a cross-region restore")
	}
	r := &Restore{SourceBackupArn: m.ARN(), SourceTableArn: m.tableARN(), RestoreDateTime: m.CreatedAt, InProgress: true}
	d, err := c.CreateRestored(ns, Origin{Table: m.Table}, in, r, now)
	if err != nil {
		return nil, err
	}
	return &api.RestoreTableFromBackupOutput{TableDescription: d}, nil
}

// StartRestore runs t's restore job. The caller holds the catalog lock
// (or is New). snap, if not nil, is the store at a point-in-time
// restore's request, which the job reads and closes.
// On a shared store only the leader runs it: another process closes snap
// and leaves the job to the leader's poll (the engine's lease.go), which
// restores a point in time from the PITR history as a resumed job does.
func (j *Jobs) StartRestore(c Core, t Target, snap kv.Snapshot) {
	id := t.ID()
	job := fmt.Sprintf("restore/%x", id[:])
	if !c.ClaimJob(job) {
		if snap != nil {
			_ = snap.Close()
		}
		return
	}
	j.Tasks.Go(func(ctx context.Context) {
		defer c.ReleaseJob(job)
		err := j.restore(ctx, c, t, snap)
		switch {
		case err == nil, errors.Is(err, context.Canceled), errors.Is(err, ErrTableGone):
		case errors.Is(err, errBackupGone):
			c.Log().Error().Str("table", t.Name()).Str("backup", t.Restore().SourceBackupArn).Msg("restore failed: the backup is gone; the table is dropped")
			t.Drop()
		case errors.Is(err, ErrHistoryGone):
			c.Log().Error().Str("table", t.Name()).Str("source", t.Restore().SourceTableArn).Msg("restore failed: the source table's point-in-time history is gone; the table is dropped")
			t.Drop()
		default:
			c.Log().Error().Err(err).Str("table", t.Name()).Msg("restore failed; it resumes at the next start")
		}
	})
}

// backupRows reads a backup's rows from the store.
type backupRows struct {
	r     kv.Reader
	src   []byte // the backup's data prefix
	lower []byte
}

func (b *backupRows) Next(n int) (keys, vals [][]byte, err error) {
	keys, vals, err = nextEntries(b.r, b.lower, kv.PrefixEnd(b.src), n)
	if len(keys) > 0 {
		b.lower = append(append([]byte(nil), keys[len(keys)-1]...), 0)
	}
	for i := range keys {
		keys[i] = keys[i][len(b.src):]
	}
	return keys, vals, err
}

func (b *backupRows) Close() {}

// nextEntries returns up to n keys and values in [lower, upper).
func nextEntries(r kv.Reader, lower, upper []byte, n int) (keys, vals [][]byte, err error) {
	it, err := r.NewIter(lower, upper)
	if err != nil {
		return nil, nil, err
	}
	for ok := it.First(); ok && len(keys) < n; ok = it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
		vals = append(vals, append([]byte(nil), it.Value()...))
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, nil, err
	}
	return keys, vals, it.Close()
}

// backupSource opens the rows of t's backup after the cursor cur (nil:
// from the first) and returns how many rows it has.
func backupSource(c Core, t Target, cur []byte) (Rows, int64, error) {
	bns, _, id, ok := ParseARN(t.Restore().SourceBackupArn)
	if !ok {
		return nil, 0, errBackupGone
	}
	m, err := Get(c.Store(), bns, id)
	if err != nil {
		return nil, 0, err
	}
	if m == nil || m.Status != statusAvailable {
		return nil, 0, errBackupGone
	}
	src := DataPrefix(m.DataID)
	lower := src
	if cur != nil {
		lower = append(append(append([]byte(nil), src...), cur...), 0)
	}
	return &backupRows{r: c.Store(), src: src, lower: lower}, m.ItemCount, nil
}

func (j *Jobs) restore(ctx context.Context, c Core, t Target, snap kv.Snapshot) error {
	cur, err := t.Cursor()
	if err != nil {
		if snap != nil {
			_ = snap.Close()
		}
		return err
	}
	resumed := cur != nil
	var rows Rows
	var total int64
	r := t.Restore()
	if r.SourceBackupArn != "" {
		rows, total, err = backupSource(c, t, cur)
	} else {
		rows, err = asOfSource(c, t, snap, cur)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	arn := r.SourceBackupArn
	if arn == "" {
		arn = r.SourceTableArn
	}
	meter := c.JobMeter(t.Namespace(), t.Name(), "restore", arn, resumed)
	if resumed {
		total = 0
	}
	meter.Start("restore", total)
	done := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, vals, err := rows.Next(Chunk)
		if err != nil {
			return err
		}
		if err := t.Write(keys, vals); err != nil {
			return err
		}
		done += len(keys)
		meter.Add(int64(len(keys)))
		if len(keys) < Chunk {
			if err := t.Finish(); err != nil {
				return err
			}
			meter.Done()
			return nil
		}
		if f := j.AfterChunk; f != nil {
			f("restore", done)
		}
	}
}
