package emulator

// GSI backfill: a GSI added by UpdateTable is built by a background job
// that copies the table's existing items into it. The job is persisted:
//
//   - The index is stored with Backfilling set, in the same batch that adds
//     it, so it is CREATING (and refuses reads) until the job clears the flag
//     in the batch that records its end. A crash leaves the flag set, and
//     New resumes every flagged index: an index is either CREATING or
//     complete, never ACTIVE with part of the items.
//   - Progress is a cursor (the last item key copied) stored under the
//     table's index family after every chunk, so a resumed job skips what is
//     done. Copying an item is idempotent (an entry already present is kept),
//     so re-copying the chunk after the cursor is harmless.
//
// Each item is copied under its stripe, so a concurrent write of the item
// is either seen here or sees the index (writers re-resolve the table's
// metadata under the stripe). While the flag is set, writers count an item's
// old entry only if it is stored (prepare), so the index's stats stay exact.
//
// UpdateTable answers at once; Close cancels the jobs and waits for them,
// leaving the cursor for the next start.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/progress"
)

// backfillChunk is how many items a job copies between cursor saves.
const backfillChunk = 256

// backfillCursorID is the pseudo index ID under which cursors are kept
// (beside statsIndexID), so DeleteTable's range delete removes them too.
const backfillCursorID = 0xFFFFFFFE

// backfillState is the engine's backfill jobs. New initialises it.
type backfillState struct {
	// tasks runs the jobs; stopWorkers stops it (Close, or leadership
	// lost) and an unfinished job resumes at the next start.
	tasks jobs.Group
	// afterChunk, if set (tests), runs after each saved chunk with the
	// number of items the job has visited.
	afterChunk func(visited int)
	// progressEvery, if set (tests), replaces progress.DefaultEvery as the
	// least time between two "in progress" log lines.
	progressEvery time.Duration
}

func backfillCursorKey(t keyspace.TableID, ix uint32) []byte {
	return binary.BigEndian.AppendUint32(keyspace.IndexPrefix(t, backfillCursorID), ix)
}

// backfillTarget is an index a backfill fills: a GSI (gsiBackfill) or a
// vector index (vectorBackfill, vector_update.go).
type backfillTarget interface {
	indexID() uint32
	name() string
	// begin runs once before the first item is copied (each start).
	begin(e *Engine, t *tableMeta) error
	// copyOne copies the item at k, under its stripe.
	copyOne(e *Engine, t *tableMeta, k []byte) error
	// finish makes the index complete and drops the cursor in one batch.
	finish(e *Engine, t *tableMeta) error
}

// chunkCopier is a backfillTarget that copies a chunk of items in one
// batch.
type chunkCopier interface {
	copyChunk(e *Engine, t *tableMeta, keys [][]byte) error
}

// gsiBackfill is the backfill of a GSI added by UpdateTable.
type gsiBackfill struct{ ix *indexMeta }

func (b gsiBackfill) indexID() uint32                      { return b.ix.ID }
func (b gsiBackfill) name() string                         { return b.ix.Name }
func (b gsiBackfill) begin(*Engine, *tableMeta) error      { return nil }
func (b gsiBackfill) finish(e *Engine, t *tableMeta) error { return e.finishBackfill(t, b.ix) }
func (b gsiBackfill) copyOne(e *Engine, t *tableMeta, k []byte) error {
	return e.backfillOne(t, b.ix, k)
}

// startBackfill runs the job of ix, an index of t being filled.
// On a shared store only the leader runs it (the others leave it to the
// leader's poll, lease.go), and each job runs once.
func (e *Engine) startBackfill(t *tableMeta, ix backfillTarget) {
	job := fmt.Sprintf("backfill/%x/%d", t.ID[:], ix.indexID())
	if !e.claimJob(job) {
		return
	}
	e.bf.tasks.Go(func(ctx context.Context) {
		defer e.releaseJob(job)
		err := e.backfill(ctx, t, ix)
		switch {
		case err == nil, errors.Is(err, context.Canceled), errors.Is(err, errTableGone):
		default:
			// The flag stays set: the next start resumes the job.
			e.log.Error().Err(err).Str("table", t.Name).Str("index", ix.name()).Msg("index backfill failed; it resumes at the next start")
		}
	})
}

// resumeBackfills starts the job of every index left Backfilling.
// The jobs are collected first: a started job may change e.tables.
func (e *Engine) resumeBackfills() {
	type job struct {
		t  *tableMeta
		ix backfillTarget
	}
	var jobs []job
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if t.Deleting {
				continue
			}
			for _, ix := range t.GSIs {
				if ix.Backfilling && !ix.Deleted {
					jobs = append(jobs, job{t, gsiBackfill{ix}})
				}
			}
			for _, vi := range t.Vectors {
				if vi.Creating {
					jobs = append(jobs, job{t, vectorBackfill{vi}})
				}
			}
		}
	}
	e.mu.RUnlock()
	for _, j := range jobs {
		e.startBackfill(j.t, j.ix)
	}
}

var errTableGone = errors.New("emulator: table deleted during backfill")

func (e *Engine) backfill(ctx context.Context, t *tableMeta, ix backfillTarget) error {
	if err := ix.begin(e, t); err != nil {
		return err
	}
	ck := backfillCursorKey(t.ID, ix.indexID())
	p := keyspace.ItemPrefix(t.ID)
	lower := p
	cur, err := e.opts.Store.Get(ck)
	resumed := err == nil
	switch {
	case err == nil:
		lower = append(cur, 0) // the next key after the cursor
	case !errors.Is(err, kv.ErrNotFound):
		return err
	}
	// A resumed job counts from its cursor, so the table's item count is
	// its total only when it starts from the beginning.
	var total int64
	if !resumed {
		total, _ = e.tableStats(t)
	}
	m := e.backfillMeter(t, ix.name(), resumed)
	m.Start("index backfill", total)
	visited := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, err := nextKeys(e.opts.Store, lower, kv.PrefixEnd(p), backfillChunk)
		if err != nil {
			return err
		}
		if c, ok := ix.(chunkCopier); ok {
			if err := c.copyChunk(e, t, keys); err != nil {
				return err
			}
		} else {
			for _, k := range keys {
				if err := ix.copyOne(e, t, k); err != nil {
					return err
				}
			}
		}
		visited += len(keys)
		if len(keys) > 0 {
			m.Add(int64(len(keys)))
		}
		if len(keys) < backfillChunk {
			if err := ix.finish(e, t); err != nil {
				return err
			}
			m.Done()
			return nil
		}
		last := keys[len(keys)-1]
		if err := e.saveCursor(t, ck, last); err != nil {
			return err
		}
		lower = append(last, 0)
		if f := e.bf.afterChunk; f != nil {
			f(visited)
		}
	}
}

// backfillMeter logs the progress of ix's job at info: started, every
// progress.DefaultEvery while it runs, finished, with the items copied
// and their rate.
func (e *Engine) backfillMeter(t *tableMeta, index string, resumed bool) *progress.Meter {
	return &progress.Meter{Unit: "items", Every: e.bf.progressEvery, Now: e.opts.Clock.Now, Report: func(r progress.Report) {
		ev := e.log.Info().Str("account", t.Account).Str("region", t.Region).Str("table", t.Name).Str("index", index).
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

// nextKeys returns up to n keys in [lower, upper).
func nextKeys(r kv.Reader, lower, upper []byte, n int) ([][]byte, error) {
	it, err := r.NewIter(lower, upper)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	for ok := it.First(); ok && len(keys) < n; ok = it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, err
	}
	return keys, it.Close()
}

// live reports whether t is still the cached incarnation of its table. The
// caller holds e.mu.
func (e *Engine) live(t *tableMeta) (*tableMeta, bool) {
	c := e.lookup(t.ns(), t.Name, e.now())
	return c, c != nil && c.ID == t.ID && !c.Deleting
}

// saveCursor records that every item up to last is in the index. It holds
// e.mu for reading, so it never lands after DeleteTable dropped the table's
// keys. The commit follows Options.Sync, and makes the copies before it
// (committed without sync) as durable as itself.
func (e *Engine) saveCursor(t *tableMeta, ck, last []byte) error {
	e.rlockCatalog()
	defer e.mu.RUnlock()
	if _, ok := e.live(t); !ok {
		return errTableGone
	}
	b := e.opts.Store.NewBatch()
	if err := b.Set(ck, last); err != nil {
		_ = b.Close()
		return err
	}
	return e.commit(b)
}

// finishBackfill clears ix's Backfilling flag and drops its cursor in one
// batch: from then on the index is ACTIVE (once any --transition-delay has
// passed too).
func (e *Engine) finishBackfill(t *tableMeta, ix *indexMeta) error {
	e.lockCatalog()
	defer e.unlockCatalog()
	c, ok := e.live(t)
	if !ok {
		return errTableGone
	}
	nt := c.clone()
	found := false
	for _, g := range nt.GSIs {
		if g.ID == ix.ID {
			g.Backfilling, found = false, true
		}
	}
	if !found {
		return nil // the index was deleted meanwhile
	}
	return e.finishJob(backfillCursorKey(t.ID, ix.ID), nt)
}

// finishJob ends a background job over a table (a backfill, a restore):
// its cursor goes and the table's new metadata nt is stored in one batch,
// so a restart sees either the job still to resume or the job done.
func (e *Engine) finishJob(cursor []byte, nt *tableMeta) error {
	b := e.opts.Store.NewBatch()
	if err := b.Delete(cursor); err != nil {
		_ = b.Close()
		return err
	}
	if err := putTable(b, nt); err != nil {
		_ = b.Close()
		return err
	}
	if err := e.commit(b); err != nil {
		return err
	}
	e.cacheTable(nt)
	return nil
}

// backfillOne copies the item at k into ix. The commit does not sync: the
// next cursor save (or the end of the job) does.
func (e *Engine) backfillOne(t *tableMeta, ix *indexMeta, k []byte) error {
	stripe := e.items.locks.LockOne(k)
	defer e.items.locks.UnlockOne(stripe)
	err := e.update(true, func(wb *writeBatch) error {
		item, err := readItem(wb.r, k)
		if err != nil || item == nil {
			return err
		}
		entry, ek := indexEntry(t, ix, item)
		if entry == nil {
			return nil
		}
		if _, err := wb.r.Get(ek); err == nil {
			return nil // a write since the index appeared, or an earlier run, put it
		} else if !errors.Is(err, kv.ErrNotFound) {
			return err
		}
		wb.tables[t.ID] = t
		if err := wb.b.Set(ek, av.AppendItem(nil, entry)); err != nil {
			return err
		}
		wb.addDelta(t.ID, stripe, ix.ID, false, true, 0, av.ItemSize(entry))
		return nil
	})
	return err
}
