package globaltables

// Replication between the members of a global table (MREC): asynchronous,
// last writer wins, persisted.
//
// A write of an item of a table with replicas (any path: single item,
// batch, transaction, PartiQL, TTL) stages, in the batch that writes the
// item, the item's new version and one Entry per other member in that
// member's outbox (the engine's replication derivation). So a write is
// acknowledged only with its replication queued, and a restart loses
// nothing: the applier drains whatever the store holds when it starts.
//
// The applier (Replicator) takes an entry and has the engine apply it
// only if its version is newer than the destination's (ts, then Region
// name: every member decides the same way), writing the destination's
// item and everything derived from it and deleting the entry, in one
// batch (the engine keeps the items' versions: its write path stamps
// them). Deletes leave their version behind as a tombstone, so an older
// write arriving later cannot resurrect the item. An applied change
// consumes write capacity in the destination's buckets (never refused)
// and is told to the Observer, like a local write.
//
// Order does not matter for the outcome (LWW), so the outbox is a set
// drained in key order; Options.ReplicationDelay holds entries back.

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/internal/jobs"
)

// replChunk is how many outbox entries the applier reads at a time.
const replChunk = 256

// Entry is one change queued for one replica, stored as JSON in the
// replica's outbox.
type Entry struct {
	Key    []byte    `json:"k"` // primary key encoding (after the table prefix)
	Item   []byte    `json:"i,omitempty"`
	Delete bool      `json:"d,omitempty"`
	TS     int64     `json:"ts"`
	Origin string    `json:"o"`
	At     time.Time `json:"at"` // when it was queued (ReplicationDelay)
}

// Queued is an outbox entry as the engine reads it.
type Queued struct {
	// Key is the entry's store key, handed back to apply or drop it.
	Key []byte
	// Dst is the ID of the replica the entry is for.
	Dst   TableID
	Value []byte
}

// Destinations applies changes to the tables they are queued for, as they
// were when a chunk of the outbox was read.
type Destinations interface {
	// Apply applies en to the table dst (if it is newer than the table's
	// copy) and deletes the entry key in the same batch; an entry for a
	// table gone is only deleted.
	Apply(dst TableID, en *Entry, key []byte) error
}

// Replicator is the applier of queued changes and the seeding jobs of new
// replicas. Start starts it; its zero value is ready for Start.
type Replicator struct {
	// applier runs the applier; seeds the seeding jobs (apart, so that
	// tests can wait for them alone). Stop stops both, Start restarts them.
	applier jobs.Group
	seeds   jobs.Group
	// disassoc runs the disassociation jobs (disassociate.go).
	disassoc jobs.Group
	// passMu guards pass, closed and replaced at the end of every drain
	// pass: the disassociation jobs wait on it.
	passMu sync.Mutex
	pass   chan struct{}
	wake   chan struct{}
	// Applied, if set (tests), is called after each drain pass.
	Applied func()
	// AfterSeedChunk, if set (tests), runs after each saved seeding chunk.
	AfterSeedChunk func(ctx context.Context)
}

// Start starts the applier and resumes the seeding job of every replica
// left seeding and the disassociation job of every replica left
// disassociating.
func (r *Replicator) Start(c Core) {
	r.applier.Restart()
	r.seeds.Restart()
	r.disassoc.Restart()
	r.wake = make(chan struct{}, 1)
	r.applier.Go(func(ctx context.Context) { r.apply(ctx, c) })
	r.ResumeSeeds(c)
	r.ResumeDisassociations(c)
}

// Stop stops the applier and the seeding jobs and waits for them; they
// resume at the next Start.
func (r *Replicator) Stop() {
	r.applier.Cancel()
	r.seeds.Cancel()
	r.disassoc.Cancel()
	r.applier.Wait()
	r.seeds.Wait()
	r.disassoc.Wait()
}

// Wake tells the applier that a write queued work.
func (r *Replicator) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// WaitSeeds waits for the seeding jobs started so far (tests).
func (r *Replicator) WaitSeeds() { r.seeds.Wait() }

// apply drains the outboxes whenever woken, and when held-back entries
// fall due.
func (r *Replicator) apply(ctx context.Context, c Core) {
	delay := c.ReplicationDelay()
	for {
		next, err := r.Drain(ctx, c)
		if err != nil && ctx.Err() == nil {
			c.Logger().Error().Err(err).Msg("replication: applying queued changes failed; retrying")
			next = c.Now().Add(time.Second)
		}
		if !r.waitForWork(ctx, c, next, delay) {
			return
		}
	}
}

// waitForWork waits until next (zero: no held-back entry) or, without a
// delay, until a write queues work. With a delay a new entry is due no
// sooner than delay from now, so a wake only arms the timer: the outbox is
// not rescanned on every write while entries wait. It reports false once
// ctx is done.
func (r *Replicator) waitForWork(ctx context.Context, c Core, next time.Time, delay time.Duration) bool {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	arm := func() <-chan time.Time {
		if next.IsZero() {
			return nil
		}
		if timer != nil {
			timer.Stop()
		}
		timer = time.NewTimer(max(next.Sub(c.Now()), time.Millisecond))
		return timer.C
	}
	due := arm()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-due:
			return true
		case <-r.wake:
			if delay <= 0 {
				return true
			}
			if next.IsZero() {
				next = c.Now().Add(delay)
				due = arm()
			}
		}
	}
}

// Drain applies every due entry once and returns when the earliest
// held-back one falls due (zero if none).
func (r *Replicator) Drain(ctx context.Context, c Core) (time.Time, error) {
	defer func() {
		r.passDone()
		if f := r.Applied; f != nil {
			f()
		}
	}()
	var next time.Time
	delay := c.ReplicationDelay()
	var after []byte
	for {
		if err := ctx.Err(); err != nil {
			return next, err
		}
		queued, err := c.Outbox(after, replChunk)
		if err != nil {
			return next, err
		}
		dsts := c.Destinations()
		now := c.Now()
		for _, q := range queued {
			var en Entry
			if err := json.Unmarshal(q.Value, &en); err != nil {
				c.Logger().Error().Err(err).Msg("replication: dropping an unreadable queued change")
				if err := c.DropQueued(q.Key); err != nil {
					return next, err
				}
				continue
			}
			if due := en.At.Add(delay); delay > 0 && now.Before(due) {
				if next.IsZero() || due.Before(next) {
					next = due
				}
				continue
			}
			if err := dsts.Apply(q.Dst, &en, q.Key); err != nil {
				return next, err
			}
		}
		if len(queued) < replChunk {
			return next, nil
		}
		after = queued[len(queued)-1].Key
	}
}

// nextPass returns a channel closed when the drain pass after this call
// ends.
func (r *Replicator) nextPass() <-chan struct{} {
	r.passMu.Lock()
	defer r.passMu.Unlock()
	if r.pass == nil {
		r.pass = make(chan struct{})
	}
	return r.pass
}

// passDone ends a drain pass for those waiting on nextPass.
func (r *Replicator) passDone() {
	r.passMu.Lock()
	defer r.passMu.Unlock()
	if r.pass != nil {
		close(r.pass)
		r.pass = nil
	}
}
