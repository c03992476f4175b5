package emulator

import "github.com/extenddb/extenddb/emulator/av"

// The change feed. Every write of an item, whatever the request or worker
// behind it (PutItem, UpdateItem, DeleteItem, BatchWriteItem, PartiQL,
// TransactWriteItems, TTL deletes, imports, restores, applied replicated
// changes and a new replica's seeding), reaches the store through
// writeBatch.stage (write.go), which puts or deletes the item and then
// hands the change (a pendingWrite: its itemChange, sizes and index
// entries) to every derivation below, in order, in the write's own store
// batch. Once every item of the batch is staged, writeBatch.finish gives
// each derivation, in the same order, the chance to stage what it derives
// from the batch as a whole. The commit is atomic: an item never commits
// without what it implies.
//
// The order is the order records are staged in, so it is part of the
// format: sequence numbers (stream records, outboxes) are taken in it.
// Changes marked in the itemChange reach a derivation the same way as any
// other; each derivation decides what the marks mean for it:
//
//   - repl (an applied replicated change): the replication derivation
//     stores the version it carries and queues nothing (the origin did);
//   - quiet (a new replica's seeding copy): no stream record, no Kinesis
//     record;
//   - ByTTL (a TTL delete): stream and Kinesis records name the service as
//     the deleter;
//   - unstamped (a legacy global table's write): the stream gets the write,
//     then the update adding the aws:rep:* attributes.
//
// A new derivation is a type implementing derivation in its own file and
// one line in derivations.

// A derivation stages, in the write's own store batch, the records an item
// change implies.
type derivation interface {
	// wants reports, cheaply, whether a write to t derives anything here:
	// a derivation a table does not want costs its writes nothing more.
	wants(e *Engine, t *tableMeta) bool
	// oldImage reports whether, when wanted, it needs the old item
	// decoded (not only its size): see Engine.oldImageNeeded.
	oldImage() bool
	// stage adds the records pw's change implies to wb (wb.b, reading
	// through wb.r). The caller holds the item's stripe.
	stage(wb *writeBatch, pw *pendingWrite) error
	// finish stages what the derivation derives from every change staged
	// in wb, once, after the last one (nothing, for most).
	finish(wb *writeBatch) error
	// committed runs once wb has committed: a derivation that queued
	// background work (its bit in wb.queued) wakes its worker.
	committed(wb *writeBatch)
}

// The bits of writeBatch.queued: the derivations whose staged records a
// background worker delivers once they commit.
const (
	replicationQueuedBit uint8 = 1 << iota // outbox entries (replicate.go)
	kinesisQueuedBit                       // Kinesis queue entries (kinesis_core.go)
)

// derivations is the change feed, in staging order. It is never modified.
var derivations = []derivation{
	statsDerivation{},       // ItemCount, TableSizeBytes (write_stats.go)
	indexDerivation{},       // GSI and LSI entries and their stats (index_write.go)
	vectorDerivation{},      // vector index entries and their stats (vector_write.go)
	replicationDerivation{}, // global table versions and outboxes (replicate.go)
	kinesisDerivation{},     // Kinesis Data Streams queue (kinesis_core.go)
	pitrDerivation{},        // point-in-time recovery history (pitr.go)
	streamDerivation{},      // DynamoDB Streams records (streams_core.go)
}

// perItem is embedded by a derivation that derives nothing per batch and
// wakes nothing once it commits (a derivation overrides what it does).
type perItem struct{}

func (perItem) finish(*writeBatch) error { return nil }
func (perItem) committed(*writeBatch)    {}

// derive hands pw's change to every derivation its table wants.
func (wb *writeBatch) derive(pw *pendingWrite) error {
	t := pw.change.Table
	for _, d := range derivations {
		if !d.wants(wb.e, t) {
			continue
		}
		if err := d.stage(wb, pw); err != nil {
			return err
		}
	}
	return nil
}

// committedDerived runs every derivation's committed, once wb has
// committed.
func (wb *writeBatch) committedDerived() {
	for _, d := range derivations {
		d.committed(wb)
	}
}

// beforeStage is what capabilities change in a local write's new item nw
// before it is sized and staged: a legacy (2017.11.29) global table's
// items carry aws:rep:* attributes, added here; ch.unstamped keeps the
// item as written, for its stream (globaltables_core.go).
func (e *Engine) beforeStage(t *tableMeta, nw av.Item, replicated bool, ch *itemChange) av.Item {
	if nw == nil || replicated {
		return nw
	}
	return e.stampLegacy(t, nw, ch)
}

// finishDerived runs every derivation's finish.
func (wb *writeBatch) finishDerived() error {
	for _, d := range derivations {
		if err := d.finish(wb); err != nil {
			return err
		}
	}
	return nil
}

// oldImageNeeded says whether a write to t needs the old item decoded
// whatever the request asks: for a derivation (its index entries, stream
// records, replication, Kinesis records, PITR history) or legacy stamps.
func (e *Engine) oldImageNeeded(t *tableMeta) bool {
	if t.Legacy != nil {
		return true
	}
	for _, d := range derivations {
		if d.oldImage() && d.wants(e, t) {
			return true
		}
	}
	return false
}
