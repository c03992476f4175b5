package emulator

// The write path, shared by every writer of items: PutItem, UpdateItem,
// DeleteItem, BatchWriteItem, TransactWriteItems, PartiQL, TTL deletes,
// imports, restores and replication.
//
// Keys. An item lives at
//
//	itemPrefix(table) | h(pk):4 | enc(pk) | enc(sk)?
//
// where enc is av.AppendKey (order-preserving, prefix-free) and h is FNV-1a
// of enc(pk), big-endian. The hash first spreads partitions evenly over the
// keyspace, so a parallel Scan segment is a range of hash values and covers
// every item exactly once; every item of one partition shares the prefix up
// to enc(pk), so a Query is a prefix scan in sort-key order. An index entry
// lives at
//
//	indexPrefix(table, index) | h(ipk):4 | enc(ipk) | enc(isk)? | enc(pk) | enc(sk)?
//
// with the projected attributes (av.AppendItem) as its value: a Query on an
// index is the same prefix scan, and the table key suffix keeps entries with
// equal index keys distinct. Items absent from an index (a key attribute
// missing) have no entry: indexes are sparse.
//
// A GSI with a multi-attribute key (up to four HASH and four RANGE
// attributes) stores enc(ipk) as the concatenation enc(h1)|…|enc(hn), hashed
// together, and enc(isk) as enc(r1)|…|enc(rm). enc is prefix-free and
// order-preserving per type, so the concatenation sorts as the tuple of
// RANGE values, each by its own type, and every equality prefix of the RANGE
// attributes is a key prefix: Query keeps the same prefix scan. With one
// HASH and at most one RANGE attribute this is exactly the layout above, so
// stores written before multi-attribute keys read unchanged.
//
// Atomicity. Every write of an item holds the item's lock stripe
// (keyspace/lock.go) from reading the old item to committing the batch, so a
// conditional write sees no interleaving in this process. A multi-item
// writer (transactions) locks all its stripes in ascending order first
// (itemLocks.lock), then runs prepare for every item and stage for every
// item into one writeBatch, and commits once. The read-check-write itself
// runs in one store transaction (Engine.update, kv.Transactor), every read
// through it: on Pebble that is one batch and the stripes are the
// atomicity; on a store shared by several processes the store makes it
// atomic against the other processes' writers (serializable, rerun on a
// conflict), and the stripes only keep conflicts between this process's
// own writers rare. Writers re-resolve the table's metadata inside the
// transaction, so an index added by UpdateTable is maintained by every
// write that commits after the backfill job has visited the item
// (backfill.go).
//
// Steps. prepare reads the old item, evaluates the condition, builds the new
// item, validates it (size, index key types) and computes the capacity
// (index_write.go finds its index entries); stage puts the item in a
// writeBatch and hands its change (an itemChange: table, key, old and new
// item) to the change feed, whose derivations stage what it implies (index
// entries, stats deltas and the capabilities' records: derive.go); finish writes the queue counters and what the
// derivations derive from the whole batch (stats and stream records), and
// the store transaction commits.
//
// Stats. DescribeTable's ItemCount, TableSizeBytes and index sizes come
// from per-stripe stats records (write_stats.go), updated in the same batch
// under the stripe lock, so they are exact and survive restarts.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/streams"
	"github.com/extenddb/extenddb/emulator/work"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// itemState is the engine's data-plane state. Its zero value is ready.
type itemState struct {
	locks keyspace.ItemLocks
	stats statsMemo
	// batches pools writeBatches (getWriteBatch).
	batches sync.Pool
	// afterPrepare, when set (tests), runs in a write's store transaction
	// between its reads and its commit, to widen the window in which
	// another process's commit conflicts with it.
	afterPrepare func()

	cacheOnce sync.Once
	cache     *expr.Cache
}

// exprCache is the engine's parse cache, shared by every request.
func (e *Engine) exprCache() *expr.Cache {
	e.items.cacheOnce.Do(func() { e.items.cache = expr.NewCache(0) })
	return e.items.cache
}

// storageOverhead is the per-item (and per-index-entry) overhead DynamoDB
// adds to TableSizeBytes and IndexSizeBytes; it is not billed as capacity.
const storageOverhead = 100

// MsgConditionalCheckFailed is ConditionalCheckFailedException's message.
const MsgConditionalCheckFailed = "The conditional request failed"

// appendPartition appends h(enc(v)) | enc(v) for a partition key value.
func appendPartition(dst []byte, v av.Value) []byte {
	n := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = av.AppendKey(dst, v)
	binary.BigEndian.PutUint32(dst[n:], keyspace.Fnv32(dst[n+4:]))
	return dst
}

// itemKey is the storage key of the item whose primary key attributes are
// in key (an item or a Key parameter, already validated).
func itemKey(t *tableMeta, key av.Item) []byte {
	return appendItemKey(make([]byte, 0, 64), t, key)
}

// appendItemKey appends itemKey(t, key) to k.
func appendItemKey(k []byte, t *tableMeta, key av.Item) []byte {
	k = append(k, keyspace.FamItem)
	k = append(k, t.ID[:]...)
	k = appendPartition(k, key[t.hashKey().Name])
	if rk, ok := t.rangeKey(); ok {
		k = av.AppendKey(k, key[rk.Name])
	}
	return k
}

// itemPartitionPrefix is the prefix shared by every item of the partition
// whose key value is pk (Query on the table).
func itemPartitionPrefix(t *tableMeta, pk av.Value) []byte {
	return appendPartition(keyspace.ItemPrefix(t.ID), pk)
}

// readItem returns the item stored at k, or nil.
func readItem(r kv.Reader, k []byte) (av.Item, error) {
	b, err := readStored(r, k)
	if b == nil || err != nil {
		return nil, err
	}
	it, err := av.DecodeItem(b)
	if err != nil {
		return nil, internalError(err)
	}
	return it, nil
}

// readStored returns the stored form of the item under k, nil if there
// is none.
func readStored(r kv.Reader, k []byte) ([]byte, error) {
	b, err := r.Get(k)
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, internalError(err)
	}
	return b, nil
}

// itemChange is one item's change, as the change feed hands it to every
// derivation (derive.go): Old or New is nil when the item did not exist
// before or does not after. Its marks (ByTTL, repl, quiet, unstamped) are
// how a writer tells the derivations a change is special.
type itemChange struct {
	Table *tableMeta
	Key   []byte
	Old   av.Item
	New   av.Item
	// ByTTL marks a deletion by the TTL worker (streams_core.go, ttl_core.go).
	ByTTL bool
	// repl is the version of a replicated change being applied
	// (replicate.go); nil for a local write.
	repl *version
	// quiet leaves the change out of the stream (a new replica's seeding
	// copies existed before its stream).
	quiet bool
	// unstamped is the item as written when beforeStage (derive.go)
	// changed it, as a legacy global table's aws:rep:* stamps do: its
	// stream gets the write, then the update adding them, as DynamoDB's did.
	unstamped av.Item
}

// writeSpec describes one single-item write.
type writeSpec struct {
	t   *tableMeta
	key []byte // itemKey
	// cond must hold on the old item (nil: unconditional).
	cond *expr.Condition
	// build returns the new item from the old one (nil when absent); a nil
	// result deletes the item. Its errors are returned as they are.
	build func(old av.Item) (av.Item, error)
	// sizeMsg is the message for a new item over 400 KB.
	sizeMsg string
	// returnOldOnFail puts the old item in ConditionalCheckFailedException
	// (ReturnValuesOnConditionCheckFailure=ALL_OLD).
	returnOldOnFail bool
	// deferSync commits without fsync; the caller syncs the store once
	// before answering (BatchWriteItem with Options.Sync).
	deferSync bool
	// replicated marks a change applied from another member of a global
	// table: a legacy table's aws:rep:* attributes come with it.
	replicated bool
	// oldUnread says the request itself needs of the old item only whether
	// it exists and its size (an unconditional PutItem or DeleteItem
	// returning no old values): prepare then skips decoding it when the
	// table needs no image either (oldImageNeeded).
	oldUnread bool
	// meter stops the condition's evaluation once the request is over
	// (writeOne sets it; a transaction's items checks its context itself).
	meter work.Meter
	// checked is the table metadata the new item's index and vector
	// values were already checked against (PutItem checks them before the
	// condition): prepare checks them again only when the write runs
	// against other metadata (an index added meanwhile). Parsing a large
	// vector once instead of twice is most of it.
	checked *tableMeta
	// scratch, when set, is a buffer of the caller's (its pooled
	// writeBatch's) that the old item is read into when only its size is
	// needed, instead of a copy of its own; prepare keeps nothing of it.
	scratch *[]byte
}

// pendingWrite is a prepared write: what stage will store and what it cost.
type pendingWrite struct {
	change itemChange
	use    capacityUse
	// entries[i] are the old and new entries of activeIndexes(t)[i].
	indexes []*indexMeta
	entries []indexPair
	// vecs are the old and new entries of each vector index (vector_write.go).
	vecs    []vectorPair
	oldSize int
	newSize int
	// stripe is the item's lock stripe (set by stage).
	stripe uint16
	// oldExists is whether the item existed, even when change.Old was not
	// decoded (writeSpec.oldUnread).
	oldExists bool
}

// prepare runs a write up to (not including) storing it: read the old item,
// check the condition, build and validate the new item, compute the
// capacity. The caller holds the item's stripe. A failed condition returns
// the ConditionalCheckFailedException together with a pendingWrite whose
// use is what the attempt consumed.
func (e *Engine) prepare(r kv.Reader, s *writeSpec) (*pendingWrite, error) {
	sizeOnly := s.oldUnread && !e.oldImageNeeded(s.t)
	var stored []byte
	var err error
	if a, ok := r.(kv.ValueAppender); ok && sizeOnly && s.scratch != nil {
		*s.scratch, err = a.AppendValue((*s.scratch)[:0], s.key)
		if err == nil {
			stored = *s.scratch
			if stored == nil {
				stored = []byte{} // found, if empty (and then malformed)
			}
		}
	} else {
		stored, err = r.Get(s.key)
	}
	if errors.Is(err, kv.ErrNotFound) {
		stored, err = nil, nil
	}
	if err != nil {
		return nil, internalError(err)
	}
	pw := &pendingWrite{change: itemChange{Table: s.t, Key: s.key}, oldExists: stored != nil}
	var old av.Item
	if stored != nil {
		if sizeOnly {
			pw.oldSize, err = av.StoredItemSize(stored)
		} else {
			old, err = av.DecodeItem(stored)
			pw.oldSize = av.ItemSize(old)
		}
		if err != nil {
			return nil, internalError(err)
		}
	}
	pw.change.Old = old
	ok, err := s.cond.EvalMetered(old, &s.meter)
	if err != nil {
		return nil, exprError(err)
	}
	if !ok {
		// A failed condition is charged on the larger of the old item and
		// the item the request would have written.
		size := pw.oldSize
		if nw, berr := s.build(old); berr == nil && nw != nil {
			size = max(size, av.ItemSize(nw))
		}
		pw.use.table = WriteUnits(size)
		ccf := api.NewError(api.CodeConditionalCheckFailed, MsgConditionalCheckFailed)
		if s.returnOldOnFail && old != nil {
			ccf.Item = old
		}
		return pw, ccf
	}
	nw, err := s.build(old)
	if err != nil {
		return nil, err
	}
	nw = e.beforeStage(s.t, nw, s.replicated, &pw.change)
	if nw != nil {
		pw.newSize = av.ItemSize(nw)
		if pw.newSize > av.MaxItemSize {
			return nil, api.Validation("%s", s.sizeMsg)
		}
		if s.checked != s.t {
			if err := validateIndexKeysOver(s.t, old, nw); err != nil {
				return nil, err
			}
		}
	}
	pw.change.New = nw
	pw.use.table = WriteUnits(max(pw.oldSize, pw.newSize))
	if err := prepareIndexes(r, pw, old, nw); err != nil {
		return nil, err
	}
	return pw, nil
}

// writeBatch collects staged writes, their stats deltas and their changes
// for one atomic commit.
type writeBatch struct {
	e *Engine
	// r and b are the store transaction's reads and writes (Engine.update).
	r       kv.Reader
	b       kv.Batch
	deltas  map[statsRecord]statsCounts
	tables  map[keyspace.TableID]*tableMeta
	changes []streams.Change // the stream derivation's (streams_core.go)
	// vecs are the vector index changes staged, for the in-memory indexes
	// once they commit (vector_write.go).
	vecs []vectorChange
	// noSync commits without fsync whatever Options.Sync says (backfill
	// copies, made durable by the job's next synced commit).
	noSync bool
	// queued holds the bits (queued…, derive.go) of the derivations that
	// staged records a worker delivers once they commit.
	queued uint8
	// release unlocks the stream tables streams.State.Stage locked; they
	// stay locked until the store transaction has committed.
	release func()
	// fn stages the writes (Engine.update); one, when fn is nil, is the
	// single write it stages instead (writeOne), pw what it prepared.
	fn  func(*writeBatch) error
	one *writeSpec
	pw  *pendingWrite
	// attemptFn is wb.attempt, bound once per pooled writeBatch.
	attemptFn func(kv.Txn) error
	// seqs are the queue counters (nextSeq) this attempt read from a
	// shared store, with the last number it took; finish writes them back.
	seqs map[string]uint64
	// stats are the in-memory stats records finish staged and the values
	// they take once the batch commits (mergeStatsMem); spare are emptied
	// maps for addDelta, so a write allocates none.
	stats []pendingStats
	spare []statsCounts
	// buf encodes each value staged (items, index entries, stats
	// records) in turn: a kv.Batch copies what Set is given
	// (kvtest's testBatchCopiesArguments), so one buffer serves them all.
	buf []byte
}

// maxPooledBuf bounds the encoding buffer a pooled writeBatch keeps: one
// 400 KB item must not pin its buffer for every later small write.
const maxPooledBuf = 64 << 10

// nextSeq takes the next number of a derivation's queue (an outbox, a
// delivery queue). mem is the process's counter, set at start-up past the
// clock and every queued entry: alone it is enough for one process. On a
// shared store processes started close together would reach each other's
// numbers, and a queued entry written under a taken number would replace
// another's, so there the counter at key, read and rewritten in the store
// transaction, is the truth (mem is where it starts).
func (wb *writeBatch) nextSeq(key []byte, mem *atomic.Uint64) (uint64, error) {
	if !wb.e.shared() {
		return mem.Add(1), nil
	}
	if wb.seqs == nil {
		wb.seqs = map[string]uint64{}
	}
	n, ok := wb.seqs[string(key)]
	if !ok {
		n = mem.Load()
		b, err := wb.r.Get(key)
		switch {
		case errors.Is(err, kv.ErrNotFound):
		case err != nil:
			return 0, internalError(err)
		case len(b) != 8:
			return 0, internalError(fmt.Errorf("emulator: queue counter %x has %d bytes", key, len(b)))
		default:
			n = max(n, binary.BigEndian.Uint64(b))
		}
	}
	n++
	wb.seqs[string(key)] = n
	return n, nil
}

// getWriteBatch returns an empty writeBatch from the engine's pool: a
// write then allocates neither the batch, its maps nor the function the
// store calls.
func (e *Engine) getWriteBatch(noSync bool) *writeBatch {
	wb, _ := e.items.batches.Get().(*writeBatch)
	if wb == nil {
		wb = &writeBatch{e: e, deltas: map[statsRecord]statsCounts{}, tables: map[keyspace.TableID]*tableMeta{}}
		wb.attemptFn = wb.attempt
	}
	wb.noSync = noSync
	return wb
}

// putWriteBatch returns wb to the pool, keeping nothing it refers to.
func (e *Engine) putWriteBatch(wb *writeBatch) {
	wb.r, wb.b, wb.fn, wb.one, wb.pw = nil, nil, nil, nil, nil
	clear(wb.seqs)
	clear(wb.deltas)
	clear(wb.tables)
	clear(wb.changes)
	wb.changes = wb.changes[:0]
	clear(wb.vecs)
	wb.vecs = wb.vecs[:0]
	clear(wb.stats)
	wb.stats = wb.stats[:0]
	if len(wb.spare) > 8 {
		// A large batch's maps are not kept: a pooled batch stays small.
		clear(wb.spare)
		wb.spare = wb.spare[:0]
	}
	if cap(wb.buf) > maxPooledBuf {
		wb.buf = nil
	}
	e.items.batches.Put(wb)
}

// reset readies wb for an attempt of its store transaction: whatever an
// earlier attempt staged or noted was not committed.
func (wb *writeBatch) reset(tx kv.Txn) {
	wb.unlockStreams()
	wb.r, wb.b, wb.pw = tx, tx.Batch(), nil
	if len(wb.deltas) > 0 {
		clear(wb.deltas)
	}
	if len(wb.tables) > 0 {
		clear(wb.tables)
	}
	clear(wb.changes)
	wb.changes = wb.changes[:0]
	clear(wb.vecs)
	wb.vecs = wb.vecs[:0]
	clear(wb.seqs)
	clear(wb.stats)
	wb.stats = wb.stats[:0]
	wb.queued = 0
}

func (wb *writeBatch) unlockStreams() {
	if wb.release != nil {
		wb.release()
		wb.release = nil
	}
}

// attempt is one run of the store transaction: stage, then the stats
// records and stream records, reading through the transaction.
func (wb *writeBatch) attempt(tx kv.Txn) error {
	wb.reset(tx)
	var err error
	if wb.fn != nil {
		err = wb.fn(wb)
	} else {
		err = wb.stageOne()
	}
	if err != nil {
		return err
	}
	return wb.finish()
}

// update runs fn, which reads through wb.r and stages into wb, in one
// store transaction (kv.Transactor) and commits it with the stats and
// stream records of what fn staged. On a shared store fn may run several
// times, each time on an emptied wb; it must leave no trace outside wb
// (what it reports to its caller it sets anew each time). What a commit
// causes beyond the store (the stats memo, waking the workers) happens
// once, after. noSync commits without fsync whatever Options.Sync says.
// fn's errors are returned as they are; a store that kept refusing the
// transaction returns kv.ErrConflict (see writeError).
func (e *Engine) update(noSync bool, fn func(*writeBatch) error) error {
	wb := e.getWriteBatch(noSync)
	wb.fn = fn
	err := e.runUpdate(wb)
	e.putWriteBatch(wb)
	return err
}

// runUpdate runs wb's store transaction and, once it committed, what the
// commit causes beyond the store.
func (e *Engine) runUpdate(wb *writeBatch) error {
	err := e.opts.Store.Update(e.opts.Sync && !wb.noSync, wb.attemptFn)
	wb.unlockStreams()
	if err != nil {
		return err
	}
	// Committed: the records in memory take their new values (the caller
	// still holds their stripes); the maps they replace serve the next
	// writes' deltas.
	for i, p := range wb.stats {
		if old := p.rec.counts; old != nil {
			clear(old)
			wb.spare = append(wb.spare, old)
		}
		p.rec.counts = p.counts
		wb.stats[i] = pendingStats{}
	}
	wb.stats = wb.stats[:0]
	for id := range wb.tables {
		e.items.stats.bump(id)
	}
	wb.committedDerived()
	return nil
}

// writeError is the answer to a failed update: fn's own errors as they
// are, a store that kept conflicting as a retryable InternalServerError
// (the SDKs retry it), anything else the store said as internalError.
func writeError(err error) error {
	if errors.Is(err, kv.ErrConflict) {
		return &api.Error{Code: api.CodeInternalServerError, Message: "Internal server error"}
	}
	return internalError(err)
}

// stage adds pw's item to the batch, then what the change implies
// (indexes, stats, streams, replication…: derive.go).
func (wb *writeBatch) stage(pw *pendingWrite) error {
	c := &pw.change
	pw.stripe = keyspace.StripeOf(c.Key)
	wb.tables[c.Table.ID] = c.Table
	var err error
	if c.New == nil {
		if pw.oldExists {
			err = wb.b.Delete(c.Key)
		}
	} else {
		wb.buf = av.AppendItem(wb.buf[:0], c.New)
		err = wb.b.Set(c.Key, wb.buf)
	}
	if err != nil {
		return internalError(err)
	}
	return wb.derive(pw)
}

// finish stages what is derived from the batch as a whole (the stats
// records, the stream records: derive.go) and the queue counters the
// staged writes advanced (nextSeq), reading through the transaction. The
// caller still holds the stripes of every staged item.
func (wb *writeBatch) finish() error {
	for k, n := range wb.seqs {
		if err := wb.b.Set([]byte(k), binary.BigEndian.AppendUint64(nil, n)); err != nil {
			return internalError(err)
		}
	}
	return wb.finishDerived()
}

// writeOne runs a single-item write: lock the item, then in one store
// transaction re-resolve the table, prepare, stage, commit. It returns the
// pendingWrite (also on a failed condition, for the capacity it consumed).
func (e *Engine) writeOne(ctx context.Context, s *writeSpec) (*pendingWrite, error) {
	stripe, err := e.lockForWrite(s.key)
	if err != nil {
		return nil, err
	}
	defer e.items.locks.UnlockOne(stripe)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.meter = work.New(ctx, &e.work)
	wb := e.getWriteBatch(s.deferSync)
	wb.one = s
	err = e.runUpdate(wb)
	pw := wb.pw
	e.putWriteBatch(wb)
	if err != nil {
		return pw, writeError(err)
	}
	return pw, nil
}

// stageOne is writeOne's part of the store transaction.
func (wb *writeBatch) stageOne() error {
	e, s := wb.e, wb.one
	t, err := e.currentIn(wb.r, s.t)
	if err != nil {
		return err
	}
	s.t = t
	s.scratch = &wb.buf
	pw, err := e.prepare(wb.r, s)
	s.scratch = nil // wb goes back to its pool; s may not
	wb.pw = pw      // a failed condition's too: its capacity is charged
	if err != nil {
		return err
	}
	if f := e.items.afterPrepare; f != nil {
		f()
	}
	// Only now are the GSIs the write touches known: one without capacity
	// refuses the whole write (back-pressure), which then costs nothing.
	if c, ix, ok := e.throttleShares(t, pw.use.shares, throttle.Write); !ok {
		wb.pw = nil
		return ThrottleError(c, t.ns().IndexARN(t.Name, ix.Name))
	}
	return wb.stage(pw)
}

// current returns the cached metadata of t's table now (indexes may have
// changed since the request resolved it), or ResourceNotFoundException if
// the table was deleted (or re-created) meanwhile.
func (e *Engine) current(t *tableMeta) (*tableMeta, error) {
	e.mu.RLock()
	c := e.lookup(t.ns(), t.Name, e.now())
	e.mu.RUnlock()
	if c == nil || c.ID != t.ID {
		return nil, api.ResourceNotFound()
	}
	return c, nil
}

// exprError turns an expression or attribute-value failure into DynamoDB's
// ValidationException; other errors pass through.
func exprError(err error) error { return api.AsValidation(err) }
