package globaltables

// Disassociating a replica (Developer Guide, "Disassociating a global
// table replica"): a persisted, resumable job, like seeding.
//
// UpdateTable's Disassociate stores the replica's group entry
// Disassociating, in every member, in one batch: from then on no write
// queues a change to it nor from it (Membership.Targets), and the replica
// and the other members are UPDATING. The job waits until the changes
// queued before that are delivered both ways (DisassociationMode
// WAIT_FOR_REPLICATION: the applier delivers them, the job only watches
// the outboxes) and any --transition-delay has passed, then removes the
// entry from every member and the replica's group, in one batch: the
// replica is a single-Region table; a member left without replicas is one
// too; three or more members stay a global table without it. The tables
// themselves (name, ARN, items, indexes, stream, TTL, backups) are not
// touched. Start resumes every replica left Disassociating.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// disassociatePoll is how long a disassociation job waits at most for the
// applier's next pass before it looks again whether what was queued has
// been delivered.
const disassociatePoll = 500 * time.Millisecond

// StartDisassociation runs the job that completes the disassociation of
// rt, a replica whose own entry is Disassociating. On a shared store only
// the leader runs it, once.
func (r *Replicator) StartDisassociation(c Core, rt *Table) {
	job := fmt.Sprintf("disassociate/%x", rt.ID[:])
	if !c.ClaimJob(job) {
		return
	}
	r.disassoc.Go(func(ctx context.Context) {
		defer c.ReleaseJob(job)
		err := r.disassociate(ctx, c, rt)
		switch {
		case err == nil, errors.Is(err, context.Canceled), errors.Is(err, ErrTableGone):
		default:
			c.Logger().Error().Err(err).Str("table", rt.Name).Str("region", rt.Region).Msg("replica disassociation failed; it resumes at the next start")
		}
	})
}

// ResumeDisassociations starts the job of every replica left
// Disassociating.
func (r *Replicator) ResumeDisassociations(c Core) {
	for _, t := range c.DisassociatingTables() {
		r.StartDisassociation(c, t)
	}
}

// WaitDisassociations waits for the disassociation jobs started so far
// (tests).
func (r *Replicator) WaitDisassociations() { r.disassoc.Wait() }

func (r *Replicator) disassociate(ctx context.Context, c Core, rt *Table) error {
	own := rt.Membership.Member(rt.Region)
	if own == nil || !own.Disassociating {
		return nil
	}
	due := own.DisassociatingSince.Add(c.TransitionDelay())
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Taken before the look, so a pass that delivers the last change
		// after it is not missed.
		pass := r.nextPass()
		pending, err := Pending(c, rt)
		if err != nil {
			return err
		}
		wait := disassociatePoll
		if !pending {
			if !c.Now().Before(due) {
				return c.FinishDisassociation(rt)
			}
			wait = min(wait, max(due.Sub(c.Now()), time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-pass:
			t.Stop()
		case <-t.C:
		}
	}
}

// Pending reports whether a change queued to rt, or queued by rt to
// another member of its group, is still to be delivered.
func Pending(c Core, rt *Table) (bool, error) {
	members := map[TableID]bool{}
	for _, m := range rt.Membership.Group {
		if m.Region != rt.Region {
			members[m.ID] = true
		}
	}
	var after []byte
	for {
		queued, err := c.Outbox(after, replChunk)
		if err != nil {
			return false, err
		}
		for _, q := range queued {
			if q.Dst == rt.ID {
				return true, nil
			}
			if !members[q.Dst] {
				continue
			}
			var en Entry
			if json.Unmarshal(q.Value, &en) == nil && en.Origin == rt.Region {
				return true, nil
			}
		}
		if len(queued) < replChunk {
			return false, nil
		}
		after = queued[len(queued)-1].Key
	}
}

// FinishDisassociating removes the member in Region region from the
// group of the table in Region self: the group is dropped when the table
// is left alone in it at now, or when the table is the one leaving.
func (m *Membership) FinishDisassociating(self, region string, now time.Time) {
	if self == region {
		m.Group = nil
		return
	}
	kept := m.Group[:0]
	for _, e := range m.Group {
		if e.Region != region {
			kept = append(kept, e)
		}
	}
	m.Group = kept
	if len(m.Replicas(self, now)) == 0 {
		m.Group = nil
	}
}
