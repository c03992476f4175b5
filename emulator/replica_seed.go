package emulator

// Seeding a new replica: a persisted, resumable job, like a GSI backfill
// (backfill.go). The replica's group entry is stored Seeding in the batch
// that creates it, so the replica is CREATING until the job clears the flag
// in the batch that records its end; New resumes every replica left
// Seeding. The cursor (the last source item key copied) is saved after
// every chunk under the replica's index family, so DeleteTable removes it.
//
// Each item is read under its source stripe with its version, then applied
// to the replica like a replicated change (replicate.go): last writer wins,
// so a change the applier brought first, or a copy a resumed job repeats,
// is never overwritten by an older one.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// seedCursorID is the pseudo index ID of the seeding cursor (beside
// statsIndexID, backfillCursorID and restoreCursorID; each job has its
// own, so no job reads or drops another's cursor).
const seedCursorID = 0xFFFFFFFC

func seedCursorKey(t tableID) []byte {
	return binary.BigEndian.AppendUint32(indexPrefix(t, seedCursorID), 0)
}

// startSeed runs the seeding job of rt, a replica whose own entry is
// Seeding. On a shared store only the leader runs it, once (lease.go).
func (e *Engine) startSeed(rt *tableMeta) {
	job := fmt.Sprintf("seed/%x", rt.ID[:])
	if !e.claimJob(job) {
		return
	}
	e.repl.wg.Add(1)
	e.repl.seeds.Add(1)
	go func() {
		defer e.repl.wg.Done()
		defer e.repl.seeds.Done()
		defer e.releaseJob(job)
		err := e.seed(e.repl.ctx, rt)
		switch {
		case err == nil, errors.Is(err, context.Canceled), errors.Is(err, errTableGone):
		default:
			e.log.Error().Err(err).Str("table", rt.Name).Str("region", rt.Region).Msg("replica seeding failed; it resumes at the next start")
		}
	}()
}

// resumeSeeds starts the job of every replica left Seeding.
func (e *Engine) resumeSeeds() {
	var jobs []*tableMeta
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if r := t.member(t.Region); r != nil && r.Seeding && !t.Deleting {
				jobs = append(jobs, t)
			}
		}
	}
	e.mu.RUnlock()
	for _, t := range jobs {
		e.startSeed(t)
	}
}

func (e *Engine) seed(ctx context.Context, rt *tableMeta) error {
	self := rt.member(rt.Region)
	src := rt.member(self.SeedFrom)
	var srcT *tableMeta
	if src != nil {
		e.rlockCatalog()
		srcT = e.lookup(Namespace{Account: rt.Account, Region: src.Region}, rt.Name, e.now())
		e.mu.RUnlock()
	}
	if srcT == nil || srcT.ID != src.ID {
		// The source went away before the copy: the replica keeps what it
		// has and what the other members send it.
		return e.finishSeed(rt)
	}
	ck := seedCursorKey(rt.ID)
	p := itemPrefix(srcT.ID)
	lower := p
	if cur, err := e.opts.Store.Get(ck); err == nil {
		lower = append(cur, 0)
	} else if !errors.Is(err, kv.ErrNotFound) {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, err := nextKeys(e.opts.Store, lower, prefixEnd(p), backfillChunk)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := e.seedOne(rt, srcT, k); err != nil {
				return err
			}
		}
		if len(keys) < backfillChunk {
			return e.finishSeed(rt)
		}
		last := keys[len(keys)-1]
		if err := e.saveCursor(rt, ck, last); err != nil {
			return err
		}
		lower = append(last, 0)
		if f := e.repl.afterSeedChunk; f != nil {
			f(ctx)
		}
	}
}

// seedOne copies the source item at k into rt.
func (e *Engine) seedOne(rt, src *tableMeta, k []byte) error {
	stripe := e.items.locks.lockOne(k)
	b, err := e.opts.Store.Get(k)
	var v version
	if err == nil {
		v, err = readVersion(e.opts.Store, k)
	}
	e.items.locks.unlockOne(stripe)
	if errors.Is(err, kv.ErrNotFound) {
		return nil // deleted since the chunk was listed
	}
	if err != nil {
		return err
	}
	if v.region == "" {
		v.region = src.Region // written before the table had replicas
	}
	en := &replEntry{Key: k[len(itemPrefix(src.ID)):], Item: b, TS: v.ts, Origin: v.region}
	if _, err := av.DecodeItem(b); err != nil {
		return internalError(err)
	}
	return e.applyReplicated(rt, en, nil)
}

// finishSeed clears the Seeding flag of rt's entry in every member and
// drops the cursor, in one batch.
func (e *Engine) finishSeed(rt *tableMeta) error {
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	c, ok := e.live(rt)
	if !ok {
		return errTableGone
	}
	b := e.opts.Store.NewBatch()
	if err := b.Delete(seedCursorKey(rt.ID)); err != nil {
		_ = b.Close()
		return err
	}
	var updated []*tableMeta
	for _, r := range c.Group {
		m := c
		if r.Region != rt.Region {
			m = e.lookup(Namespace{Account: rt.Account, Region: r.Region}, rt.Name, now)
			if m == nil || m.ID != r.ID || m.Deleting {
				continue
			}
		}
		nm := m.clone()
		if self := nm.member(rt.Region); self != nil && self.ID == rt.ID {
			self.Seeding = false
		}
		if err := putTable(b, nm); err != nil {
			_ = b.Close()
			return err
		}
		updated = append(updated, nm)
	}
	if err := e.commit(b); err != nil {
		return err
	}
	for _, m := range updated {
		e.cacheTable(m)
	}
	return nil
}
