package backups

// Point-in-time recovery history: an undo log.
//
// Keyspace (one family beside emulator/internal/keyspace's keys.go):
//
//	'p' <tableID:16> <encoded primary key> <at:8 BE> <seq:8 BE> → the item as it was before a write at `at` (empty: absent)
//
// While PITR is on, every write of an item (every path goes through the
// engine's writeBatch.stage: single item, batch, transactions, PartiQL,
// TTL deletes, replicated writes) also stores the item's previous image,
// in the same batch (History.StageUndo, fed by the engine's
// pitrDerivation), keyed by the item's key and the write's time
// (UnixNano) and a sequence number (two writes in one clock tick keep
// their order). The table as of T is then, per item: the old image of
// its first write after T if there is one, else the item as it is now.
// So no copy is made when PITR is turned on, a table without PITR pays
// nothing, and a table with it pays one more Set per write
// (BenchmarkPutItemPITR). The primary key encoding is prefix-free, so a
// key's records are contiguous and in time order, and the as-of view is
// one merge of the item range and the log range (AsOfIter).
//
// The view holds at any moment after T, not only at T: a write after T
// adds a record after T, which never precedes the first one. So a restore
// resumed after a restart reads the live store again and still gets the
// table as of T, as long as the log still reaches back to T.
//
// Records at or before EarliestRestorableDateTime are never the first
// after a restorable time: the trim worker deletes them (TrimHistory).
// Turning PITR off drops the table's log in the batch that saves the
// table (DropHistory); DeleteTable drops it with the table's other
// families.

import (
	"context"
	"encoding/binary"
	"errors"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

const (
	// History is the key family of the undo log.
	History = 'p'

	// DefaultLag is how far LatestRestorableDateTime trails the clock:
	// DynamoDB's "typically 5 minutes".
	DefaultLag = 5 * time.Minute
	// DefaultTrimInterval is the period of the history trim worker.
	DefaultTrimInterval = time.Hour
	// TrimMargin keeps records a little older than the earliest
	// restorable time: a RestoreDateTime read back from
	// DescribeContinuousBackups is rounded to the millisecond.
	TrimMargin = time.Minute
	// DefaultRecoveryDays is the PITR recovery period when none is given.
	DefaultRecoveryDays = 35
)

// PITR is a table's point-in-time recovery setting, stored with the table
// (embedded: its fields are the table's).
type PITR struct {
	PITREnabled   bool      `json:"pitr,omitempty"`
	PITRDays      int64     `json:"pitrDays,omitempty"`
	PITREnabledAt time.Time `json:"pitrAt,omitzero"`
}

// Window returns the table's EarliestRestorableDateTime and
// LatestRestorableDateTime at now; PITR is on. lag is Options.PITRLag:
// zero means DefaultLag, negative none.
func (p *PITR) Window(now time.Time, lag time.Duration) (earliest, latest time.Time) {
	earliest = p.PITREnabledAt
	if w := now.Add(-time.Duration(p.PITRDays) * 24 * time.Hour); w.After(earliest) {
		earliest = w
	}
	switch {
	case lag == 0:
		lag = DefaultLag
	case lag < 0:
		lag = 0
	}
	latest = now.Add(-lag)
	if latest.Before(earliest) {
		latest = earliest
	}
	return earliest, latest
}

// Seq orders the undo records of one clock tick; the engine sets it from
// the wall clock's nanoseconds at start, so it also grows across restarts.
type Seq struct{ n atomic.Uint64 }

// Store sets the sequence to v.
func (s *Seq) Store(v uint64) { s.n.Store(v) }

// StageUndo stages in b the undo record of a write at now of the item at
// key (the engine's item key: family byte, table ID, primary key), whose
// previous image was old (nil: absent; oldSize its size). Key and value
// share one buffer, which Set copies.
func (s *Seq) StageUndo(b kv.Batch, key []byte, old av.Item, oldSize int, now time.Time) error {
	n := len(key) + 16
	buf := make([]byte, 0, n+oldSize+64)
	buf = append(buf, History)
	buf = append(buf, key[1:]...) // the table ID and the primary key
	buf = binary.BigEndian.AppendUint64(buf, uint64(now.UnixNano()))
	buf = binary.BigEndian.AppendUint64(buf, s.n.Add(1))
	var v []byte
	if old != nil {
		v = av.AppendItem(buf[n:], old)
	}
	return b.Set(buf[:n], v)
}

// HistoryPrefix is the prefix of table id's undo log.
func HistoryPrefix(id [16]byte) []byte {
	k := make([]byte, 0, 17)
	k = append(k, History)
	return append(k, id[:]...)
}

// DropHistory deletes table id's undo log in b (PITR turned off).
func DropHistory(b kv.Batch, id [16]byte) error {
	p := HistoryPrefix(id)
	return b.DeleteRange(p, kv.PrefixEnd(p))
}

// InvalidRestoreTime is the answer to a moment outside the restorable
// window.
func InvalidRestoreTime() error {
	return api.NewError(api.CodeInvalidRestoreTime, "RestoreDateTime must be between EarliestRestorableDateTime and LatestRestorableDateTime")
}

// Unavailable is the answer about a table without PITR.
func Unavailable(name string) error {
	return api.NewError(api.CodePointInTimeRecoveryUnavailable, "Point in time recovery is not enabled for table '%s'", name)
}

// TrimHistory deletes the undo records of table id no restorable time
// needs (at or before earliest, its EarliestRestorableDateTime, less
// TrimMargin) and returns how many it deleted.
func TrimHistory(ctx context.Context, s kv.Store, id [16]byte, earliest time.Time) (int, error) {
	horizon := uint64(earliest.Add(-TrimMargin).UnixNano())
	p := HistoryPrefix(id)
	it, err := s.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		return 0, err
	}
	b := s.NewBatch()
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
		if n%Chunk == 0 {
			if err := b.Commit(false); err != nil {
				break
			}
			_ = b.Close()
			b = s.NewBatch()
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
	return n, err
}

// ItemChanges calls fn for every item of table id written in (from, to],
// with the stored images at from and at to (empty where the item did not
// exist; never both) and the time of the item's last write in the window,
// in primary key order, from snap. The store's failures are
// Core.InternalError's; fn's errors are returned as they are.
func ItemChanges(ctx context.Context, c Core, snap kv.Reader, id [16]byte, from, to time.Time, fn func(oldB, newB []byte, written time.Time) error) error {
	lo, hi := uint64(from.UnixNano()), uint64(to.UnixNano())
	up := HistoryPrefix(id)
	undo, err := snap.NewIter(up, kv.PrefixEnd(up))
	if err != nil {
		return c.InternalError(err)
	}
	defer undo.Close()
	items := c.ItemPrefix(id)
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
			v, err := snap.Get(append(append([]byte(nil), items...), pk...))
			if err != nil && !errors.Is(err, kv.ErrNotFound) {
				return c.InternalError(err)
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
		return c.InternalError(err)
	}
	return nil
}
