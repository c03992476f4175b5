package emulator

// Point-in-time recovery: the history (an undo log of every write of a
// table with PITR on), its as-of reads and its trim live in
// emulator/internal/backups (pitr.go there explains the log). This file
// is the derivation that feeds it from the write pipeline and the
// engine's reads of it: ItemsAsOf, RestorableWindow and ItemChanges
// (which exports use, s3io_core.go), and the trim worker's pass.

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

const famPITR = backups.History

// DefaultPITRLag is how far LatestRestorableDateTime trails the clock:
// DynamoDB's "typically 5 minutes".
const DefaultPITRLag = backups.DefaultLag

// DefaultPITRTrimInterval is the period of the history trim worker.
const DefaultPITRTrimInterval = backups.DefaultTrimInterval

// pitrTrimMargin keeps records a little older than the earliest
// restorable time (backups.TrimMargin).
const pitrTrimMargin = backups.TrimMargin

func pitrPrefix(id keyspace.TableID) []byte { return backups.HistoryPrefix(id) }

// pitrDerivation keeps the history of a table with PITR on: an undo
// record per write (backups.Seq.StageUndo).
type pitrDerivation struct{ perItem }

func (pitrDerivation) wants(_ *Engine, t *tableMeta) bool { return t.PITREnabled }

func (pitrDerivation) oldImage() bool { return true }

func (pitrDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	c := &pw.change
	if c.Old == nil && c.New == nil {
		return nil
	}
	if err := wb.e.pitr.StageUndo(wb.b, c.Key, c.Old, pw.oldSize, wb.e.now()); err != nil {
		return internalError(err)
	}
	return nil
}

// pitrWindow returns t's EarliestRestorableDateTime and
// LatestRestorableDateTime at now; t has PITR on.
func (e *Engine) pitrWindow(t *tableMeta, now time.Time) (earliest, latest time.Time) {
	return t.PITR.Window(now, e.opts.PITRLag)
}

// ItemsAsOf calls fn with every item of table (a name or ARN in ns) as it
// was at `at`, in primary key order, from one snapshot of the store: the
// table-as-of-T reader for RestoreTableToPointInTime and
// ExportTableToPointInTime. The table must have PITR on
// (PointInTimeRecoveryUnavailableException) and at must be between its
// EarliestRestorableDateTime and now (InvalidRestoreTimeException; the
// history reaches to now, whatever --pitr-lag says, so a caller with a
// window and an error of its own checks them first, see RestorableWindow).
// fn's item is its own; an error from fn stops the walk and is returned.
func (e *Engine) ItemsAsOf(ctx context.Context, ns api.Namespace, table string, at time.Time, fn func(av.Item) error) error {
	t, snap, now, err := e.historySnapshot(ns, table)
	if err != nil {
		return err
	}
	defer snap.Close()
	if earliest, _ := e.pitrWindow(t, now); at.Before(earliest.Truncate(time.Millisecond)) || at.After(now) {
		return backups.InvalidRestoreTime()
	}
	it, err := backups.NewAsOfIter((*bkCore)(e), snap, t.ID, at, nil)
	if err != nil {
		return internalError(err)
	}
	defer it.Close()
	for it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		item, err := av.DecodeItem(it.Value())
		if err != nil {
			return internalError(err)
		}
		if err := fn(item); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return internalError(err)
	}
	return nil
}

// historySnapshot resolves table and takes a snapshot of the store for
// reading its point-in-time history: TableNotFound without the table,
// PointInTimeRecoveryUnavailable without PITR.
func (e *Engine) historySnapshot(ns api.Namespace, table string) (*tableMeta, kv.Snapshot, time.Time, error) {
	tns, name, err := resolveName(ns, table)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	now := e.now()
	e.rlockCatalog()
	defer e.mu.RUnlock()
	t := e.lookup(tns, name, now)
	switch {
	case t == nil:
		return nil, nil, now, api.NewError(api.CodeTableNotFound, "Table not found: %s", name)
	case !t.PITREnabled:
		return nil, nil, now, backups.Unavailable(name)
	}
	return t, e.opts.Store.NewSnapshot(), now, nil
}

// RestorableWindow returns table's EarliestRestorableDateTime and
// LatestRestorableDateTime now (DescribeContinuousBackups' figures), or
// PointInTimeRecoveryUnavailableException without PITR.
func (e *Engine) RestorableWindow(ns api.Namespace, table string) (earliest, latest time.Time, err error) {
	tns, name, err := resolveName(ns, table)
	if err != nil {
		return earliest, latest, err
	}
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(tns, name, now)
	e.mu.RUnlock()
	switch {
	case t == nil:
		return earliest, latest, api.NewError(api.CodeTableNotFound, "Table not found: %s", name)
	case !t.PITREnabled:
		return earliest, latest, backups.Unavailable(name)
	}
	earliest, latest = e.pitrWindow(t, now)
	return earliest, latest, nil
}

// ItemChanges calls fn for every item of table written in (from, to],
// with its image at from and at to (nil where it did not exist; never both
// nil), in primary key order, from one snapshot: what an incremental
// export between the two times holds. The table must have PITR on and
// from must not be before EarliestRestorableDateTime, nor to after now
// (InvalidRestoreTimeException; callers with their own window and error
// check first, see RestorableWindow).
func (e *Engine) ItemChanges(ctx context.Context, ns api.Namespace, table string, from, to time.Time, fn func(old, new av.Item) error) error {
	t, snap, now, err := e.historySnapshot(ns, table)
	if err != nil {
		return err
	}
	defer snap.Close()
	if earliest, _ := e.pitrWindow(t, now); from.Before(earliest.Truncate(time.Millisecond)) || to.After(now) || to.Before(from) {
		return backups.InvalidRestoreTime()
	}
	return backups.ItemChanges(ctx, (*bkCore)(e), snap, t.ID, from, to, func(oldB, newB []byte, _ time.Time) error {
		oldItem, err := decodeOrNil(oldB)
		if err != nil {
			return internalError(err)
		}
		newItem, err := decodeOrNil(newB)
		if err != nil {
			return internalError(err)
		}
		return fn(oldItem, newItem)
	})
}

func decodeOrNil(b []byte) (av.Item, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return av.DecodeItem(b)
}

// pitrTrimPass is one pass of the worker that trims the history of every
// table with PITR on (registered in New).
func (e *Engine) pitrTrimPass(ctx context.Context) {
	// Cancelled by Close part-way, a trim just leaves the rest for the
	// next start.
	if _, err := e.TrimPITRHistory(ctx); err != nil && !errors.Is(err, context.Canceled) {
		e.log.Error().Err(err).Msg("trimming point-in-time recovery history")
	}
}

// TrimPITRHistory deletes the undo records no restorable time needs (at or
// before each table's EarliestRestorableDateTime, less a margin) and
// returns how many it deleted. The trim worker runs it; tests call it.
func (e *Engine) TrimPITRHistory(ctx context.Context) (int, error) {
	now := e.now()
	var tables []*tableMeta
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if t.PITREnabled && !t.gone(now) {
				tables = append(tables, t)
			}
		}
	}
	e.mu.RUnlock()
	total := 0
	for _, t := range tables {
		earliest, _ := e.pitrWindow(t, now)
		n, err := backups.TrimHistory(ctx, e.opts.Store, t.ID, earliest)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, ctx.Err()
}
