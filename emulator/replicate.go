package emulator

// The engine's side of replication between the members of a global table
// (emulator/internal/globaltables owns the applier loop and the seeding
// jobs): the items' versions and the outboxes in the keyspace, the
// derivation that stages them with each local write, and the application
// of one queued change through the write pipeline.
//
// Keys (keyspace/keys.go families 'v' and 'q'):
//
//	'v' <tableID> <encoded primary key> → version: ts:8 BE (Unix ns) | origin Region
//	'q' <dst tableID> <seq:8 BE>        → JSON globaltables.Entry (the outbox of dst)
//
// Tables without replicas skip all of it (one length check in stage). A
// local write's version is later than the item's current one even if a
// replicated write came from a clock ahead of this one.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/kv"
)

const (
	famVersion = 'v'
	famOutbox  = 'q'
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

func versionPrefix(id keyspace.TableID) []byte { return append([]byte{famVersion}, id[:]...) }

func outboxPrefix(dst keyspace.TableID) []byte { return append([]byte{famOutbox}, dst[:]...) }

func outboxKey(dst keyspace.TableID, seq uint64) []byte {
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
type replEntry = globaltables.Entry

// replState is the applier and the seeding jobs (globaltables), and the
// sequence of outbox keys the write path takes.
type replState struct {
	globaltables.Replicator
	seq atomic.Uint64
}

func (e *Engine) startReplication() {
	// Outbox keys only need to be unique: start above any earlier run's,
	// even if the wall clock went back.
	e.repl.seq.Store(max(uint64(time.Now().UnixNano()), e.lastOutboxSeq()))
	e.repl.Start((*gtCore)(e))
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

func (e *Engine) stopReplication() { e.repl.Stop() }

func (e *Engine) wakeApplier() { e.repl.Wake() }

func (e *Engine) deleteKey(k []byte) error {
	b := e.opts.Store.NewBatch()
	if err := b.Delete(k); err != nil {
		_ = b.Close()
		return err
	}
	return e.commit(b)
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
	k := append(keyspace.ItemPrefix(t.ID), en.Key...)
	stripe := e.items.locks.LockOne(k)
	defer e.items.locks.UnlockOne(stripe)
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
	targets := t.Targets(t.Region)
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
	en := replEntry{Key: c.Key[len(keyspace.ItemPrefix(t.ID)):], TS: v.ts, Origin: v.region, At: now, Delete: c.New == nil}
	if c.New != nil {
		en.Item = av.AppendItem(nil, c.New)
	}
	val, err := json.Marshal(&en)
	if err != nil {
		return internalError(err)
	}
	for _, r := range targets {
		seq, err := wb.nextSeq(streamKey(keyspace.TableID(r.ID), 'o'), &wb.e.repl.seq)
		if err != nil {
			return err
		}
		if err := wb.b.Set(outboxKey(keyspace.TableID(r.ID), seq), val); err != nil {
			return internalError(err)
		}
	}
	wb.queued |= replicationQueuedBit
	return nil
}

// replicationDerivation keeps a global table's members in step: for a
// local write, the item's new version and an outbox entry per other
// member; for an applied replicated change (itemChange.repl), only the
// version it carries, so a change is never sent on again.
type replicationDerivation struct{ perItem }

// committed wakes the applier when the batch queued outbox entries.
func (replicationDerivation) committed(wb *writeBatch) {
	if wb.queued&replicationQueuedBit != 0 {
		wb.e.wakeApplier()
	}
}

func (replicationDerivation) wants(_ *Engine, t *tableMeta) bool { return len(t.Group) > 0 }

func (replicationDerivation) oldImage() bool { return true }

func (replicationDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	return wb.stageReplication(&pw.change)
}
