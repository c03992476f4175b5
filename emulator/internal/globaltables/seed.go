package globaltables

// Seeding a new replica: a persisted, resumable job, like a GSI backfill.
// The replica's group entry is stored Seeding in the batch that creates
// it, so the replica is CREATING until the job clears the flag in the
// batch that records its end; Start resumes every replica left Seeding.
// The cursor (the last source item key copied) is saved after every chunk,
// where the engine drops it with the replica's table.
//
// Each item is read under its source stripe with its version, then applied
// to the replica like a replicated change: last writer wins, so a change
// the applier brought first, or a copy a resumed job repeats, is never
// overwritten by an older one.

import (
	"context"
	"errors"
	"fmt"
)

// seedChunk is how many source items a seeding job copies between two
// saves of its cursor.
const seedChunk = 256

// ErrTableGone is what the Core's seeding steps answer when the replica
// was deleted while it was seeded: the job ends quietly.
var ErrTableGone = errors.New("globaltables: replica deleted while it was seeded")

// StartSeed runs the seeding job of rt, a replica whose own entry is
// Seeding. On a shared store only the leader runs it, once.
func (r *Replicator) StartSeed(c Core, rt *Table) {
	job := fmt.Sprintf("seed/%x", rt.ID[:])
	if !c.ClaimJob(job) {
		return
	}
	r.seeds.Go(func(ctx context.Context) {
		defer c.ReleaseJob(job)
		err := r.seed(ctx, c, rt)
		switch {
		case err == nil, errors.Is(err, context.Canceled), errors.Is(err, ErrTableGone):
		default:
			c.Logger().Error().Err(err).Str("table", rt.Name).Str("region", rt.Region).Msg("replica seeding failed; it resumes at the next start")
		}
	})
}

// ResumeSeeds starts the job of every replica left Seeding.
func (r *Replicator) ResumeSeeds(c Core) {
	for _, t := range c.SeedingTables() {
		r.StartSeed(c, t)
	}
}

func (r *Replicator) seed(ctx context.Context, c Core, rt *Table) error {
	self := rt.Membership.Member(rt.Region)
	src := rt.Membership.Member(self.SeedFrom)
	var srcT *Table
	if src != nil {
		c.RLockCatalog()
		srcT = c.Table(rt.Account, src.Region, rt.Name, c.Now())
		c.RUnlockCatalog()
	}
	if srcT == nil || srcT.ID != src.ID {
		// The source went away before the copy: the replica keeps what it
		// has and what the other members send it.
		return c.FinishSeed(rt)
	}
	after, err := c.SeedCursor(rt)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, err := c.ItemKeys(srcT, after, seedChunk)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := c.SeedItem(rt, srcT, k); err != nil {
				return err
			}
		}
		if len(keys) < seedChunk {
			return c.FinishSeed(rt)
		}
		last := keys[len(keys)-1]
		if err := c.SaveSeedCursor(rt, last); err != nil {
			return err
		}
		after = last
		if f := r.AfterSeedChunk; f != nil {
			f(ctx)
		}
	}
}
