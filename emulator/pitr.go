package emulator

// Point-in-time recovery history: an undo log.
//
// Keyspace (one family beside keys.go's):
//
//	'p' <tableID:16> <encoded primary key> <at:8 BE> <seq:8 BE> → the item as it was before a write at `at` (empty: absent)
//
// While PITR is on, every write of an item (every path goes through
// writeBatch.stage: single item, batch, transactions, PartiQL, TTL
// deletes, replicated writes) also stores the item's previous image, in
// the same batch, keyed by the item's key and the write's time (UnixNano)
// and a sequence number (two writes in one clock tick keep their order).
// The table as of T is then, per item: the old image of its first write
// after T if there is one, else the item as it is now. So no copy is made
// when PITR is turned on, a table without PITR pays nothing, and a table
// with it pays one more Set per write (BenchmarkPutItemPITR). The primary
// key encoding is prefix-free, so a key's records are contiguous and in
// time order, and the as-of view is one merge of the item range and the
// log range (asOfIter).
//
// The view holds at any moment after T, not only at T: a write after T
// adds a record after T, which never precedes the first one. So a restore
// resumed after a restart reads the live store again and still gets the
// table as of T, as long as the log still reaches back to T.
//
// Records at or before EarliestRestorableDateTime are never the first
// after a restorable time: the trim worker deletes them. Turning PITR off
// drops the table's log in the batch that saves the table; DeleteTable
// drops it with the table's other families.

import (
	"context"
	"encoding/binary"
	"errors"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

const famPITR = 'p'

// The errors of RestoreTableToPointInTime (and of ItemsAsOf).
const (
	CodeInvalidRestoreTime             = "InvalidRestoreTimeException"
	CodePointInTimeRecoveryUnavailable = "PointInTimeRecoveryUnavailableException"
)

// DefaultPITRLag is how far LatestRestorableDateTime trails the clock:
// DynamoDB's "typically 5 minutes".
const DefaultPITRLag = 5 * time.Minute

// DefaultPITRTrimInterval is the period of the history trim worker.
const DefaultPITRTrimInterval = time.Hour

// pitrTrimMargin keeps records a little older than the earliest
// restorable time: a RestoreDateTime read back from DescribeContinuousBackups
// is rounded to the millisecond.
const pitrTrimMargin = time.Minute

// pitrState is the history's state; New initialises it.
type pitrState struct {
	// seq orders records of one clock tick. It starts at the wall clock's
	// nanoseconds, so it also grows across restarts.
	seq  atomic.Uint64
	stop context.CancelFunc
	done chan struct{}
}

func pitrPrefix(id tableID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, famPITR)
	return append(k, id[:]...)
}

// stageUndo adds the undo record of c (a write of a table with PITR on;
// oldSize is c.Old's size) to the batch. Key and value share one buffer,
// which Set copies.
func (wb *writeBatch) stageUndo(c *itemChange, oldSize int) error {
	if c.Old == nil && c.New == nil {
		return nil
	}
	n := len(c.Key) + 16
	buf := make([]byte, 0, n+oldSize+64)
	buf = append(buf, famPITR)
	buf = append(buf, c.Key[1:]...) // the table ID and the primary key
	buf = binary.BigEndian.AppendUint64(buf, uint64(wb.e.now().UnixNano()))
	buf = binary.BigEndian.AppendUint64(buf, wb.e.pitr.seq.Add(1))
	var v []byte
	if c.Old != nil {
		v = av.AppendItem(buf[n:], c.Old)
	}
	if err := wb.b.Set(buf[:n], v); err != nil {
		return internalError(err)
	}
	return nil
}

// pitrWindow returns t's EarliestRestorableDateTime and
// LatestRestorableDateTime at now; t has PITR on.
func (e *Engine) pitrWindow(t *tableMeta, now time.Time) (earliest, latest time.Time) {
	earliest = t.PITREnabledAt
	if w := now.Add(-time.Duration(t.PITRDays) * 24 * time.Hour); w.After(earliest) {
		earliest = w
	}
	lag := e.opts.PITRLag
	switch {
	case lag == 0:
		lag = DefaultPITRLag
	case lag < 0:
		lag = 0
	}
	latest = now.Add(-lag)
	if latest.Before(earliest) {
		latest = earliest
	}
	return earliest, latest
}

// asOfIter yields the items of a table as of a moment, in primary key
// order, merging the item range and the undo log of one reader (a
// snapshot, so both are read at one moment).
type asOfIter struct {
	items, undo  kv.Iterator
	itemP, undoP int // prefix lengths
	at           uint64
	iok, uok     bool
	key, val     []byte
}

// newAsOfIter opens the view of table id as of at over r, starting after
// the primary key encoding `after` (nil: from the first item).
func newAsOfIter(r kv.Reader, id tableID, at time.Time, after []byte) (*asOfIter, error) {
	ip, up := itemPrefix(id), pitrPrefix(id)
	ilo, ulo := ip, up
	if after != nil {
		// The primary key encoding is prefix-free: every later key is at or
		// past the end of after's prefix.
		ilo = prefixEnd(append(append([]byte(nil), ip...), after...))
		ulo = prefixEnd(append(append([]byte(nil), up...), after...))
	}
	items, err := r.NewIter(ilo, prefixEnd(ip))
	if err != nil {
		return nil, err
	}
	undo, err := r.NewIter(ulo, prefixEnd(up))
	if err != nil {
		_ = items.Close()
		return nil, err
	}
	a := &asOfIter{items: items, undo: undo, itemP: len(ip), undoP: len(up), at: uint64(at.UnixNano())}
	a.iok, a.uok = items.First(), undo.First()
	return a, nil
}

// Next moves to the next item present at the moment; false at the end
// (check Err).
func (a *asOfIter) Next() bool {
	for a.iok || a.uok {
		var ik, uk []byte
		if a.iok {
			ik = a.items.Key()[a.itemP:]
		}
		if a.uok {
			k := a.undo.Key()
			uk = k[a.undoP : len(k)-16]
		}
		var pk []byte
		switch {
		case !a.uok:
			pk = ik
		case !a.iok:
			pk = uk
		case string(ik) <= string(uk):
			pk = ik
		default:
			pk = uk
		}
		a.key = append(a.key[:0], pk...)
		var val []byte
		found := false
		// The first record of this key after the moment holds its state then.
		for a.uok {
			k := a.undo.Key()
			if string(k[a.undoP:len(k)-16]) != string(a.key) {
				break
			}
			if !found && binary.BigEndian.Uint64(k[len(k)-16:]) > a.at {
				val, found = append([]byte(nil), a.undo.Value()...), true
			}
			a.uok = a.undo.Next()
		}
		if a.iok && string(a.items.Key()[a.itemP:]) == string(a.key) {
			if !found {
				val, found = append([]byte(nil), a.items.Value()...), true
			}
			a.iok = a.items.Next()
		}
		if found && len(val) > 0 {
			a.val = val
			return true
		}
	}
	return false
}

// Key is the current item's primary key encoding (after the table's item
// prefix); Value its encoded item. Both stay valid until the next Next.
func (a *asOfIter) Key() []byte   { return a.key }
func (a *asOfIter) Value() []byte { return a.val }

// Err reports an iteration failure.
func (a *asOfIter) Err() error {
	if err := a.items.Error(); err != nil {
		return err
	}
	return a.undo.Error()
}

func (a *asOfIter) Close() error {
	err := a.items.Close()
	if uerr := a.undo.Close(); err == nil {
		err = uerr
	}
	return err
}

// ItemsAsOf calls fn with every item of table (a name or ARN in ns) as it
// was at `at`, in primary key order, from one snapshot of the store: the
// table-as-of-T reader for RestoreTableToPointInTime and
// ExportTableToPointInTime. The table must have PITR on
// (PointInTimeRecoveryUnavailableException) and at must be between its
// EarliestRestorableDateTime and now (InvalidRestoreTimeException; the
// history reaches to now, whatever --pitr-lag says, so a caller with a
// window and an error of its own checks them first, see RestorableWindow).
// fn's item is its own; an error from fn stops the walk and is returned.
func (e *Engine) ItemsAsOf(ctx context.Context, ns Namespace, table string, at time.Time, fn func(av.Item) error) error {
	t, snap, now, err := e.historySnapshot(ns, table)
	if err != nil {
		return err
	}
	defer snap.Close()
	if earliest, _ := e.pitrWindow(t, now); at.Before(earliest.Truncate(time.Millisecond)) || at.After(now) {
		return invalidRestoreTime()
	}
	it, err := newAsOfIter(snap, t.ID, at, nil)
	if err != nil {
		return internalError(err)
	}
	defer it.Close()
	for it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		item, err := av.DecodeItem(it.Value())
		if err != nil {
			return internalError(err)
		}
		if err := fn(item); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return internalError(err)
	}
	return nil
}

// historySnapshot resolves table and takes a snapshot of the store for
// reading its point-in-time history: TableNotFound without the table,
// PointInTimeRecoveryUnavailable without PITR.
func (e *Engine) historySnapshot(ns Namespace, table string) (*tableMeta, kv.Snapshot, time.Time, error) {
	tns, name, err := resolveName(ns, table)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	now := e.now()
	e.rlockCatalog()
	defer e.mu.RUnlock()
	t := e.lookup(tns, name, now)
	switch {
	case t == nil:
		return nil, nil, now, NewError(CodeTableNotFound, "Table not found: %s", name)
	case !t.PITREnabled:
		return nil, nil, now, pitrUnavailable(name)
	}
	return t, e.opts.Store.NewSnapshot(), now, nil
}

// RestorableWindow returns table's EarliestRestorableDateTime and
// LatestRestorableDateTime now (DescribeContinuousBackups' figures), or
// PointInTimeRecoveryUnavailableException without PITR.
func (e *Engine) RestorableWindow(ns Namespace, table string) (earliest, latest time.Time, err error) {
	tns, name, err := resolveName(ns, table)
	if err != nil {
		return earliest, latest, err
	}
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(tns, name, now)
	e.mu.RUnlock()
	switch {
	case t == nil:
		return earliest, latest, NewError(CodeTableNotFound, "Table not found: %s", name)
	case !t.PITREnabled:
		return earliest, latest, pitrUnavailable(name)
	}
	earliest, latest = e.pitrWindow(t, now)
	return earliest, latest, nil
}

// ItemChanges calls fn for every item of table written in (from, to],
// with its image at from and at to (nil where it did not exist; never both
// nil), in primary key order, from one snapshot: what an incremental
// export between the two times holds. The table must have PITR on and
// from must not be before EarliestRestorableDateTime, nor to after now
// (InvalidRestoreTimeException; callers with their own window and error
// check first, see RestorableWindow).
func (e *Engine) ItemChanges(ctx context.Context, ns Namespace, table string, from, to time.Time, fn func(old, new av.Item) error) error {
	t, snap, now, err := e.historySnapshot(ns, table)
	if err != nil {
		return err
	}
	defer snap.Close()
	if earliest, _ := e.pitrWindow(t, now); from.Before(earliest.Truncate(time.Millisecond)) || to.After(now) || to.Before(from) {
		return invalidRestoreTime()
	}
	return itemChangesIn(ctx, snap, t.ID, from, to, func(oldB, newB []byte, _ time.Time) error {
		oldItem, err := decodeOrNil(oldB)
		if err != nil {
			return internalError(err)
		}
		newItem, err := decodeOrNil(newB)
		if err != nil {
			return internalError(err)
		}
		return fn(oldItem, newItem)
	})
}

func decodeOrNil(b []byte) (av.Item, error) {
	if len(b) == 0 {
		return nil, nil
	}
	return av.DecodeItem(b)
}

// itemChangesIn is ItemChanges over table id of snap, with the stored
// images (empty where the item did not exist) and the time of the item's
// last write in (from, to].
func itemChangesIn(ctx context.Context, snap kv.Reader, id tableID, from, to time.Time, fn func(oldB, newB []byte, written time.Time) error) error {
	lo, hi := uint64(from.UnixNano()), uint64(to.UnixNano())
	up := pitrPrefix(id)
	undo, err := snap.NewIter(up, prefixEnd(up))
	if err != nil {
		return internalError(err)
	}
	defer undo.Close()
	ip := itemPrefix(id)
	ok := undo.First()
	for ok {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := undo.Key()
		pk := append([]byte(nil), k[len(up):len(k)-16]...)
		// The key's records are in time order: the first after from holds
		// its image at from, the first after to its image at to; with none
		// after to, the image at to is the current item.
		var atFrom, atTo []byte
		haveFrom, haveTo := false, false
		var written uint64
		for ok {
			k := undo.Key()
			if string(k[len(up):len(k)-16]) != string(pk) {
				break
			}
			ts := binary.BigEndian.Uint64(k[len(k)-16:])
			if ts > lo && !haveFrom {
				atFrom, haveFrom = append([]byte(nil), undo.Value()...), true
			}
			if ts > hi && !haveTo {
				atTo, haveTo = append([]byte(nil), undo.Value()...), true
			}
			if ts > lo && ts <= hi {
				written = ts
			}
			ok = undo.Next()
		}
		if written == 0 {
			continue
		}
		if !haveTo {
			v, err := snap.Get(append(append([]byte(nil), ip...), pk...))
			if err != nil && !errors.Is(err, kv.ErrNotFound) {
				return internalError(err)
			}
			atTo = v
		}
		if len(atFrom) == 0 && len(atTo) == 0 {
			continue
		}
		if err := fn(atFrom, atTo, time.Unix(0, int64(written))); err != nil {
			return err
		}
	}
	if err := undo.Error(); err != nil {
		return internalError(err)
	}
	return nil
}

func pitrUnavailable(name string) error {
	return NewError(CodePointInTimeRecoveryUnavailable, "Point in time recovery is not enabled for table '%s'", name)
}

// checkRestoreTime refuses a moment outside t's restorable window. The
// window's ends are compared at the millisecond, the precision of the
// times DescribeContinuousBackups reports.
func (e *Engine) checkRestoreTime(t *tableMeta, at, now time.Time) error {
	earliest, latest := e.pitrWindow(t, now)
	if at.Before(earliest.Truncate(time.Millisecond)) || at.After(latest) {
		return invalidRestoreTime()
	}
	return nil
}

func invalidRestoreTime() error {
	return NewError(CodeInvalidRestoreTime, "RestoreDateTime must be between EarliestRestorableDateTime and LatestRestorableDateTime")
}

// dropHistory deletes table id's undo log in b (PITR turned off).
func dropHistory(b kv.Batch, id tableID) error {
	p := pitrPrefix(id)
	return b.DeleteRange(p, prefixEnd(p))
}

// startPITRTrim starts the worker that trims the history of every table
// with PITR on, every Options.PITRTrimInterval.
func (e *Engine) startPITRTrim() {
	e.pitr.seq.Store(uint64(time.Now().UnixNano()))
	if e.opts.PITRTrimInterval < 0 {
		return
	}
	every := e.opts.PITRTrimInterval
	if every == 0 {
		every = DefaultPITRTrimInterval
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.pitr.stop, e.pitr.done = cancel, make(chan struct{})
	go func() {
		defer close(e.pitr.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// Cancelled by Close part-way, a trim just leaves the rest
				// for the next start.
				if _, err := e.TrimPITRHistory(ctx); err != nil && !errors.Is(err, context.Canceled) {
					e.log.Error().Err(err).Msg("trimming point-in-time recovery history")
				}
			}
		}
	}()
}

func (e *Engine) stopPITRTrim() {
	if e.pitr.stop != nil {
		e.pitr.stop()
		<-e.pitr.done
		e.pitr.stop = nil
	}
}

// TrimPITRHistory deletes the undo records no restorable time needs (at or
// before each table's EarliestRestorableDateTime, less a margin) and
// returns how many it deleted. The trim worker runs it; tests call it.
func (e *Engine) TrimPITRHistory(ctx context.Context) (int, error) {
	now := e.now()
	var tables []*tableMeta
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if t.PITREnabled && !t.gone(now) {
				tables = append(tables, t)
			}
		}
	}
	e.mu.RUnlock()
	total := 0
	for _, t := range tables {
		earliest, _ := e.pitrWindow(t, now)
		horizon := uint64(earliest.Add(-pitrTrimMargin).UnixNano())
		p := pitrPrefix(t.ID)
		it, err := e.opts.Store.NewIter(p, prefixEnd(p))
		if err != nil {
			return total, err
		}
		b := e.opts.Store.NewBatch()
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			k := it.Key()
			if binary.BigEndian.Uint64(k[len(k)-16:]) > horizon {
				continue
			}
			if err := b.Delete(k); err != nil {
				break
			}
			n++
			if n%backupChunk == 0 {
				if err := b.Commit(false); err != nil {
					break
				}
				_ = b.Close()
				b = e.opts.Store.NewBatch()
				if ctx.Err() != nil {
					break
				}
			}
		}
		err = it.Error()
		_ = it.Close()
		if err == nil {
			err = b.Commit(false)
		}
		_ = b.Close()
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, ctx.Err()
}
