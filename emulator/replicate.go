package emulator

// Replication between the members of a global table (MREC): asynchronous,
// last writer wins, persisted.
//
// Keys (keys.go families 'v' and 'q'):
//
//	'v' <tableID> <encoded primary key> → version: ts:8 BE (Unix ns) | origin Region
//	'q' <dst tableID> <seq:8 BE>        → JSON replEntry (the outbox of dst)
//
// An applied change consumes write capacity in the destination's buckets
// (never refused) and is told to the Observer, like a local write.
//
// A write of an item of a table with replicas (any path: single item,
// batch, transaction, PartiQL, TTL) stages, in the batch that writes the
// item, the item's new version and one outbox entry per other member. So
// a write is acknowledged only with its replication queued, and a restart
// loses nothing: the applier drains whatever the store holds at New.
// Tables without replicas skip all of it (one length check in stage).
//
// The applier takes an entry, locks the destination item's stripe, and
// applies it only if its version is newer than the destination's (ts,
// then Region name: every member decides the same way), writing the
// destination's item, indexes, stats, stream record and version, and
// deleting the entry, in one batch. Deletes leave their version behind as
// a tombstone, so an older write arriving later cannot resurrect the
// item. A local write's version is later than the item's current one
// even if a replicated write came from a clock ahead of this one.
//
// Order does not matter for the outcome (LWW), so the outbox is a set
// drained in key order; Options.ReplicationDelay holds entries back.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

const (
	famVersion = 'v'
	famOutbox  = 'q'
	// replChunk is how many outbox entries the applier reads at a time.
	replChunk = 256
)

// version is an item's last-write stamp.
type version struct {
	ts     int64
	region string
}

func (a version) newer(b version) bool {
	return a.ts > b.ts || (a.ts == b.ts && a.region > b.region)
}

func (a version) encode() []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(a.region)), uint64(a.ts)), a.region...)
}

// versionKey is the version key of the item stored at itemKey.
func versionKey(itemKey []byte) []byte {
	k := make([]byte, len(itemKey))
	copy(k, itemKey)
	k[0] = famVersion
	return k
}

func versionPrefix(id tableID) []byte { return append([]byte{famVersion}, id[:]...) }

func outboxPrefix(dst tableID) []byte { return append([]byte{famOutbox}, dst[:]...) }

func outboxKey(dst tableID, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(outboxPrefix(dst), seq)
}

// readVersion returns the version of the item at itemKey; an item never
// written with replicas has the zero version.
func readVersion(r kv.Reader, itemKey []byte) (version, error) {
	b, err := r.Get(versionKey(itemKey))
	if errors.Is(err, kv.ErrNotFound) {
		return version{}, nil
	}
	if err != nil || len(b) < 8 {
		return version{}, internalError(errors.Join(err, errors.New("emulator: bad item version")))
	}
	return version{ts: int64(binary.BigEndian.Uint64(b)), region: string(b[8:])}, nil
}

// replEntry is one change queued for one replica.
type replEntry struct {
	Key    []byte    `json:"k"` // primary key encoding (after the table prefix)
	Item   []byte    `json:"i,omitempty"`
	Delete bool      `json:"d,omitempty"`
	TS     int64     `json:"ts"`
	Origin string    `json:"o"`
	At     time.Time `json:"at"` // when it was queued (ReplicationDelay)
}

// replState is the applier and the seeding jobs. New initialises it.
type replState struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	seeds  sync.WaitGroup // the seeding jobs only (tests wait on it)
	wake   chan struct{}
	seq    atomic.Uint64
	// applied, if set (tests), is called after each drain pass.
	applied func()
	// afterSeedChunk, if set (tests), runs after each saved seeding chunk.
	afterSeedChunk func(ctx context.Context)
}

func (e *Engine) startReplication() {
	s := &e.repl
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wake = make(chan struct{}, 1)
	// Outbox keys only need to be unique: start above any earlier run's,
	// even if the wall clock went back.
	s.seq.Store(max(uint64(time.Now().UnixNano()), e.lastOutboxSeq()))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		e.applier(s.ctx)
	}()
	e.resumeSeeds()
}

// lastOutboxSeq returns the highest sequence number of a queued entry (0
// if none, or if the store cannot say: the wall clock then decides).
func (e *Engine) lastOutboxSeq() uint64 {
	it, err := e.opts.Store.NewIter([]byte{famOutbox}, []byte{famOutbox + 1})
	if err != nil {
		return 0
	}
	defer it.Close()
	var last uint64
	for ok := it.First(); ok; ok = it.Next() {
		if k := it.Key(); len(k) == 1+16+8 {
			last = max(last, binary.BigEndian.Uint64(k[17:]))
		}
	}
	return last
}

func (e *Engine) stopReplication() {
	if e.repl.cancel == nil {
		return
	}
	e.repl.cancel()
	e.repl.wg.Wait()
}

func (e *Engine) wakeApplier() {
	select {
	case e.repl.wake <- struct{}{}:
	default:
	}
}

// applier drains the outboxes whenever woken, and when held-back entries
// fall due.
func (e *Engine) applier(ctx context.Context) {
	delay := e.opts.ReplicationDelay
	for {
		next, err := e.drainOutboxes(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Error().Err(err).Msg("replication: applying queued changes failed; retrying")
			next = e.now().Add(time.Second)
		}
		if !e.waitForWork(ctx, next, delay) {
			return
		}
	}
}

// waitForWork waits until next (zero: no held-back entry) or, without a
// delay, until a write queues work. With a delay a new entry is due no
// sooner than delay from now, so a wake only arms the timer: the outbox is
// not rescanned on every write while entries wait. It reports false once
// ctx is done.
func (e *Engine) waitForWork(ctx context.Context, next time.Time, delay time.Duration) bool {
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
		timer = time.NewTimer(max(next.Sub(e.now()), time.Millisecond))
		return timer.C
	}
	due := arm()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-due:
			return true
		case <-e.repl.wake:
			if delay <= 0 {
				return true
			}
			if next.IsZero() {
				next = e.now().Add(delay)
				due = arm()
			}
		}
	}
}

// drainOutboxes applies every due entry once and returns when the earliest
// held-back one falls due (zero if none).
func (e *Engine) drainOutboxes(ctx context.Context) (time.Time, error) {
	defer func() {
		if f := e.repl.applied; f != nil {
			f()
		}
	}()
	var next time.Time
	delay := e.opts.ReplicationDelay
	lower := []byte{famOutbox}
	for {
		if err := ctx.Err(); err != nil {
			return next, err
		}
		keys, vals, err := nextEntries(e.opts.Store, lower, []byte{famOutbox + 1}, replChunk)
		if err != nil {
			return next, err
		}
		tables := e.replicatedTables()
		now := e.now()
		for i, k := range keys {
			var en replEntry
			if err := json.Unmarshal(vals[i], &en); err != nil {
				e.log.Error().Err(err).Msg("replication: dropping an unreadable queued change")
				if err := e.deleteKey(k); err != nil {
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
			var dst tableID
			copy(dst[:], k[1:17])
			t := tables[dst]
			if err := e.applyReplicated(t, &en, k); err != nil {
				return next, err
			}
		}
		if len(keys) < replChunk {
			return next, nil
		}
		lower = append(keys[len(keys)-1], 0)
	}
}

func (e *Engine) deleteKey(k []byte) error {
	b := e.opts.Store.NewBatch()
	if err := b.Delete(k); err != nil {
		_ = b.Close()
		return err
	}
	return e.commit(b)
}

// replicatedTables maps the ID of every cached table not being deleted to
// it: a table that has left its group (its source was deleted) still gets
// the changes queued for it before.
func (e *Engine) replicatedTables() map[tableID]*tableMeta {
	e.rlockCatalog()
	defer e.mu.RUnlock()
	out := map[tableID]*tableMeta{}
	for _, m := range e.tables {
		for _, t := range m {
			if !t.Deleting {
				out[t.ID] = t
			}
		}
	}
	return out
}

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

// applyReplicated applies en to table t (nil: gone) if it is newer than
// t's copy, and deletes the outbox entry qkey (if any) in the same batch.
func (e *Engine) applyReplicated(t *tableMeta, en *replEntry, qkey []byte) error {
	if t == nil {
		if qkey == nil {
			return nil
		}
		return e.deleteKey(qkey) // the replica was deleted
	}
	k := append(itemPrefix(t.ID), en.Key...)
	stripe := e.items.locks.lockOne(k)
	defer e.items.locks.unlockOne(stripe)
	in := version{ts: en.TS, region: en.Origin}
	var item av.Item
	if !en.Delete {
		var err error
		if item, err = av.DecodeItem(en.Item); err != nil {
			return internalError(err)
		}
	}
	// A change not applied (the table is gone, the replica has a newer
	// version, a corrupt entry) only drops qkey, in the same transaction.
	var pw *pendingWrite
	var cur *tableMeta
	err := e.update(qkey == nil, func(wb *writeBatch) error {
		pw = nil
		var err error
		if cur, err = e.currentIn(wb.r, t); err != nil {
			return wb.dropKey(qkey)
		}
		have, err := readVersion(wb.r, k)
		if err != nil {
			return err
		}
		if !in.newer(have) {
			return wb.dropKey(qkey)
		}
		p, err := e.prepare(wb.r, &writeSpec{t: cur, key: k, sizeMsg: "Item size has exceeded the maximum allowed size", replicated: true,
			build: func(av.Item) (av.Item, error) { return item, nil }})
		if err != nil {
			// The members share their schema, so this is a corrupt entry.
			e.log.Error().Err(err).Str("table", cur.Name).Str("region", cur.Region).Msg("replication: dropping a change the replica refuses")
			return wb.dropKey(qkey)
		}
		p.change.repl, p.change.quiet = &in, qkey == nil
		if err := wb.stage(p); err != nil {
			return err
		}
		pw = p
		return wb.dropKey(qkey)
	})
	if err != nil {
		return writeError(err)
	}
	if pw != nil && qkey != nil {
		// A replicated write consumes write capacity in the destination
		// (never refused: it was accepted in its own Region).
		e.chargeThroughput(context.Background(), cur, k, &pw.use)
	}
	return nil
}

// dropKey deletes k (nil: nothing) in wb's transaction.
func (wb *writeBatch) dropKey(k []byte) error {
	if k == nil {
		return nil
	}
	if err := wb.b.Delete(k); err != nil {
		return internalError(err)
	}
	return nil
}

// stageReplication stages, for a local write of a table with replicas,
// the item's new version and an outbox entry per other member; for an
// applied replicated write, the version it carries. The caller holds the
// item's stripe.
func (wb *writeBatch) stageReplication(c *itemChange) error {
	vk := versionKey(c.Key)
	if c.repl != nil {
		return wb.b.Set(vk, c.repl.encode())
	}
	if c.Old == nil && c.New == nil {
		return nil // nothing changed, nothing to replicate
	}
	t, now := c.Table, wb.e.now()
	var targets []*replicaMeta
	for _, r := range t.Group {
		if r.Region != t.Region && !r.Deleting {
			targets = append(targets, r)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	prev, err := readVersion(wb.r, c.Key)
	if err != nil {
		return err
	}
	v := version{ts: max(now.UnixNano(), prev.ts+1), region: t.Region}
	if err := wb.b.Set(vk, v.encode()); err != nil {
		return internalError(err)
	}
	en := replEntry{Key: c.Key[len(itemPrefix(t.ID)):], TS: v.ts, Origin: v.region, At: now, Delete: c.New == nil}
	if c.New != nil {
		en.Item = av.AppendItem(nil, c.New)
	}
	val, err := json.Marshal(&en)
	if err != nil {
		return internalError(err)
	}
	for _, r := range targets {
		seq, err := wb.nextSeq(streamKey(r.ID, 'o'), &wb.e.repl.seq)
		if err != nil {
			return err
		}
		if err := wb.b.Set(outboxKey(r.ID, seq), val); err != nil {
			return internalError(err)
		}
	}
	wb.enqueued = true
	return nil
}
