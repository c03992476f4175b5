package emulator

// Seeding a new replica: the engine's steps of the job
// emulator/internal/globaltables runs (its loop, its claim and its resumption
// at start). The cursor (the last source item key copied) is saved after
// every chunk under the replica's index family, so DeleteTable removes it.
// Each item is read under its source stripe with its version, then applied
// to the replica like a replicated change (replicate.go): last writer wins.

import (
	"encoding/binary"
	"errors"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

// seedCursorID is the pseudo index ID of the seeding cursor (beside
// statsIndexID, backfillCursorID and restoreCursorID; each job has its
// own, so no job reads or drops another's cursor).
const seedCursorID = 0xFFFFFFFC

func seedCursorKey(t keyspace.TableID) []byte {
	return binary.BigEndian.AppendUint32(keyspace.IndexPrefix(t, seedCursorID), 0)
}

// startSeed runs the seeding job of rt, a replica whose own entry is
// Seeding.
func (e *Engine) startSeed(rt *tableMeta) { e.repl.StartSeed((*gtCore)(e), gtTable(rt, e.now())) }

// seedOne copies the source item at k into rt.
func (e *Engine) seedOne(rt, src *tableMeta, k []byte) error {
	stripe := e.items.locks.LockOne(k)
	b, err := e.opts.Store.Get(k)
	var v version
	if err == nil {
		v, err = readVersion(e.opts.Store, k)
	}
	e.items.locks.UnlockOne(stripe)
	if errors.Is(err, kv.ErrNotFound) {
		return nil // deleted since the chunk was listed
	}
	if err != nil {
		return err
	}
	if v.region == "" {
		v.region = src.Region // written before the table had replicas
	}
	en := &replEntry{Key: k[len(keyspace.ItemPrefix(src.ID)):], Item: b, TS: v.ts, Origin: v.region}
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
			if m = e.liveMember(rt, r, now); m == nil {
				continue
			}
		}
		nm := m.clone()
		if self := nm.Member(rt.Region); self != nil && self.ID == globaltables.TableID(rt.ID) {
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

// resumeSeeds starts the job of every replica left Seeding.
func (e *Engine) resumeSeeds() { e.repl.ResumeSeeds((*gtCore)(e)) }
