package pgstore

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/extenddb/extenddb/kv"
)

// iter walks [lo, hi) in chunks of keyset-paginated scans. buf holds the
// rows of the last chunk in ascending order, and "cover" is the key range
// that chunk is known to hold completely, so positioning inside it needs
// no round trip.
type iter struct {
	s   *Store
	tc  *txConn // the transaction the chunks are read in; nil once complete
	own bool    // tc is the iterator's own, ended by Close
	lo  []byte  // never nil: the empty key is the least
	hi  []byte  // nil: no upper bound

	buf []pair
	// cover is [cLo, cHi): cStart means it starts at lo, cEnd that it
	// reaches hi (cLo and cHi are then not consulted on that side).
	hasCover     bool
	cStart, cEnd bool
	cLo, cHi     []byte

	pos   int
	state int
	err   error
	done  bool
}

const (
	unpositioned = iota
	valid
	beforeStart
	pastEnd
)

func newIter(s *Store, tc *txConn, lower, upper []byte) (*iter, error) {
	if lower != nil && upper != nil && bytes.Compare(lower, upper) > 0 {
		return nil, fmt.Errorf("%w: iterator bounds [%q, %q)", ErrInvalidRange, lower, upper)
	}
	// Copies: the caller may reuse its slices once NewIter returns.
	it := &iter{s: s, tc: tc, lo: append([]byte{}, lower...)}
	if upper != nil {
		it.hi = append([]byte{}, upper...)
	}
	return it, nil
}

// open reads the first chunk as one statement. If it holds the whole
// range, the iterator needs no transaction (nor connection) at all; else
// it starts its own REPEATABLE READ transaction and reads the first chunk
// again in it, so every chunk comes from one snapshot.
func (it *iter) open() error {
	s := it.s
	ctx, cancel := s.ctx()
	defer cancel()
	sql, args := it.fwdQuery(it.lo)
	rows, err := s.pool.Query(ctx, sql, args...)
	var first []pair
	if err == nil {
		first, err = scanPairs(rows)
		rows.Close()
	}
	if err != nil {
		return s.wrap("scan", err)
	}
	if len(first) < s.o.ScanChunk {
		it.buf = first
		it.hasCover, it.cStart, it.cEnd = true, true, true
		return nil
	}
	s.readers.Add(1)
	tc, err := s.acquire()
	if err != nil {
		s.readers.Done()
		return err
	}
	tc.begin = beginReadOnly
	tc.reader = true
	it.tc, it.own = tc, true
	it.fetchFwd(it.lo)
	it.state = unpositioned
	return it.err
}

func (it *iter) fwdQuery(from []byte) (string, []any) {
	n := it.s.o.ScanChunk
	if it.hi == nil {
		return it.s.sql.fwdOpen, []any{from, n}
	}
	return it.s.sql.fwd, []any{from, it.hi, n}
}

// fetchFwd reads the chunk of keys >= from and positions on its first.
func (it *iter) fetchFwd(from []byte) bool {
	sql, args := it.fwdQuery(from)
	rows, err := it.chunk(sql, args)
	if err != nil {
		return false
	}
	it.buf = rows
	it.hasCover = true
	it.cLo, it.cStart = from, bytes.Equal(from, it.lo)
	if len(rows) < it.s.o.ScanChunk {
		it.cEnd = true
	} else {
		it.cEnd, it.cHi = false, succ(rows[len(rows)-1].k)
	}
	return it.at(0)
}

// fetchBwd reads the chunk of keys < below (nil: up to hi, or no bound)
// and positions on its last.
func (it *iter) fetchBwd(below []byte) bool {
	n := it.s.o.ScanChunk
	var sql string
	var args []any
	switch {
	case below != nil:
		sql, args = it.s.sql.bwd, []any{it.lo, below, n}
	case it.hi != nil:
		sql, args = it.s.sql.bwd, []any{it.lo, it.hi, n}
	default:
		sql, args = it.s.sql.bwdOpen, []any{it.lo, n}
	}
	rows, err := it.chunk(sql, args)
	if err != nil {
		return false
	}
	slices.Reverse(rows)
	it.buf = rows
	it.hasCover = true
	it.cEnd = below == nil || (it.hi != nil && bytes.Equal(below, it.hi))
	it.cHi = below
	if len(rows) < n {
		it.cStart = true
	} else {
		it.cStart, it.cLo = false, rows[0].k
	}
	return it.at(len(rows) - 1)
}

func (it *iter) chunk(sql string, args []any) ([]pair, error) {
	if it.tc == nil {
		// Complete iterators never fetch; this is a bug, not a state.
		it.err = fmt.Errorf("pgstore: iterator has no transaction to read in")
	} else {
		var rows []pair
		rows, it.err = it.tc.scan(sql, args...)
		if it.err == nil {
			return rows, nil
		}
	}
	it.buf, it.hasCover, it.state = nil, false, unpositioned
	return nil, it.err
}

// at positions on buf[i], or before the start or past the end of it.
func (it *iter) at(i int) bool {
	it.pos = i
	switch {
	case i < 0:
		it.state = beforeStart
	case i >= len(it.buf):
		it.state = pastEnd
	default:
		it.state = valid
	}
	return it.state == valid
}

// succ is the least key after k.
func succ(k []byte) []byte { return append(append(make([]byte, 0, len(k)+1), k...), 0) }

func (it *iter) usable() bool { return !it.done && it.err == nil }

func (it *iter) First() bool { return it.SeekGE(it.lo) }

func (it *iter) Last() bool {
	if !it.usable() {
		return false
	}
	if it.hasCover && it.cEnd {
		if len(it.buf) > 0 || it.cStart {
			return it.at(len(it.buf) - 1)
		}
	}
	return it.fetchBwd(nil)
}

func (it *iter) SeekGE(key []byte) bool {
	if !it.usable() {
		return false
	}
	if bytes.Compare(key, it.lo) < 0 {
		key = it.lo
	}
	if it.hi != nil && bytes.Compare(key, it.hi) >= 0 {
		return it.at(len(it.buf))
	}
	if it.hasCover && (it.cStart || bytes.Compare(it.cLo, key) <= 0) && (it.cEnd || bytes.Compare(key, it.cHi) < 0) {
		i, _ := slices.BinarySearchFunc(it.buf, key, func(p pair, k []byte) int { return bytes.Compare(p.k, k) })
		if i < len(it.buf) || it.cEnd {
			return it.at(i)
		}
	}
	return it.fetchFwd(append([]byte{}, key...))
}

func (it *iter) SeekLT(key []byte) bool {
	if !it.usable() {
		return false
	}
	if it.hi != nil && bytes.Compare(key, it.hi) > 0 {
		key = it.hi
	}
	if bytes.Compare(key, it.lo) <= 0 {
		return it.at(-1)
	}
	if it.hasCover && (it.cEnd || bytes.Compare(key, it.cHi) <= 0) {
		i, _ := slices.BinarySearchFunc(it.buf, key, func(p pair, k []byte) int { return bytes.Compare(p.k, k) })
		if i > 0 || it.cStart {
			return it.at(i - 1)
		}
	}
	return it.fetchBwd(append([]byte{}, key...))
}

func (it *iter) Next() bool {
	if !it.usable() {
		return false
	}
	switch it.state {
	case beforeStart:
		return it.First()
	case valid:
		if it.pos+1 < len(it.buf) || it.cEnd {
			return it.at(it.pos + 1)
		}
		return it.fetchFwd(succ(it.buf[it.pos].k))
	}
	return false
}

func (it *iter) Prev() bool {
	if !it.usable() {
		return false
	}
	switch it.state {
	case pastEnd:
		return it.Last()
	case valid:
		if it.pos > 0 || it.cStart {
			return it.at(it.pos - 1)
		}
		return it.fetchBwd(it.buf[it.pos].k)
	}
	return false
}

func (it *iter) Valid() bool { return it.state == valid && it.usable() }

func (it *iter) Key() []byte {
	if !it.Valid() {
		return nil
	}
	return it.buf[it.pos].k
}

func (it *iter) Value() []byte {
	if !it.Valid() {
		return nil
	}
	return it.buf[it.pos].v
}

func (it *iter) Error() error { return it.err }

// Close ends the iterator's own transaction, if it has one; a second
// Close is a no-op.
func (it *iter) Close() error {
	if it.done {
		return nil
	}
	it.done = true
	if it.own && it.tc != nil {
		return it.tc.end(true)
	}
	return nil
}

// snapshot is a REPEATABLE READ READ ONLY transaction; err is why it could
// not start.
type snapshot struct {
	s   *Store
	tc  *txConn
	err error
}

func (sn *snapshot) check() error {
	switch {
	case sn.err != nil:
		return sn.err
	case sn.tc == nil || sn.s.closed.Load():
		return kv.ErrClosed
	}
	return nil
}

func (sn *snapshot) Get(key []byte) ([]byte, error) {
	if err := sn.check(); err != nil {
		return nil, err
	}
	return sn.tc.get(key)
}

func (sn *snapshot) NewIter(lower, upper []byte) (kv.Iterator, error) {
	if err := sn.check(); err != nil {
		return nil, err
	}
	return newIter(sn.s, sn.tc, lower, upper)
}

// Close ends the transaction; a second Close is a no-op.
func (sn *snapshot) Close() error {
	if sn.tc == nil {
		return nil
	}
	tc := sn.tc
	sn.tc = nil
	return tc.end(true)
}
