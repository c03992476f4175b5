package backups

import (
	"encoding/binary"
	"time"

	"github.com/extenddb/extenddb/kv"
)

// AsOfIter yields the items of a table as of a moment, in primary key
// order, merging the item range and the undo log of one reader (a
// snapshot, so both are read at one moment).
type AsOfIter struct {
	items, undo  kv.Iterator
	itemP, undoP int // prefix lengths
	at           uint64
	iok, uok     bool
	key, val     []byte
}

// NewAsOfIter opens the view of table id as of at over r, starting after
// the primary key encoding `after` (nil: from the first item).
func NewAsOfIter(c Core, r kv.Reader, id [16]byte, at time.Time, after []byte) (*AsOfIter, error) {
	ip, up := c.ItemPrefix(id), HistoryPrefix(id)
	ilo, ulo := ip, up
	if after != nil {
		// The primary key encoding is prefix-free: every later key is at or
		// past the end of after's prefix.
		ilo = kv.PrefixEnd(append(append([]byte(nil), ip...), after...))
		ulo = kv.PrefixEnd(append(append([]byte(nil), up...), after...))
	}
	items, err := r.NewIter(ilo, kv.PrefixEnd(ip))
	if err != nil {
		return nil, err
	}
	undo, err := r.NewIter(ulo, kv.PrefixEnd(up))
	if err != nil {
		_ = items.Close()
		return nil, err
	}
	a := &AsOfIter{items: items, undo: undo, itemP: len(ip), undoP: len(up), at: uint64(at.UnixNano())}
	a.iok, a.uok = items.First(), undo.First()
	return a, nil
}

// Next moves to the next item present at the moment; false at the end
// (check Err).
func (a *AsOfIter) Next() bool {
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
func (a *AsOfIter) Key() []byte   { return a.key }
func (a *AsOfIter) Value() []byte { return a.val }

// Err reports an iteration failure.
func (a *AsOfIter) Err() error {
	if err := a.items.Error(); err != nil {
		return err
	}
	return a.undo.Error()
}

// Close closes the iterator.
func (a *AsOfIter) Close() error {
	err := a.items.Close()
	if uerr := a.undo.Close(); err == nil {
		err = uerr
	}
	return err
}

// asOfRows reads a table as of a moment: a point-in-time restore's rows.
type asOfRows struct {
	it   *AsOfIter
	snap kv.Snapshot
}

func (a *asOfRows) Next(n int) (keys, vals [][]byte, err error) {
	for len(keys) < n && a.it.Next() {
		keys = append(keys, append([]byte(nil), a.it.Key()...))
		vals = append(vals, a.it.Value())
	}
	return keys, vals, a.it.Err()
}

func (a *asOfRows) Close() {
	_ = a.it.Close()
	_ = a.snap.Close()
}
