package streams

// Records written atomically with item changes, shards that roll over on
// a schedule, and the state the Streams API reads.
//
// Keys, under the table's stream prefix (Core.Prefix; emulator/internal/keyspace's keys.go
// family 's'):
//
//	<prefix> 'c'               → next sequence number (uint64 BE)
//	<prefix> 'm'               → JSON doc (every stream, its shards)
//	<prefix> 'r' <seq:8 BE>    → JSON api.StreamRecord
//
// (The engine keeps two queue counters of its own under the same prefix,
// 'o' and 'k'.)
//
// Sequence numbers are per table and strictly increasing; every record of
// every stream of the table lives in one sequence, and a shard is a range
// [Start, End] of it. Opening a shard reserves its Start (no record has it),
// so a shard is never empty of sequence numbers and a closed shard's End is
// at least its Start.
//
// Ordering. A writer allocates its records' sequence numbers and commits
// its batch while holding the table's table.mu, so records become visible
// in sequence order and a reader never skips one that commits later with
// a lower number. The writer also holds the item's stripe, so the records
// of one item are in order. On a store shared by several processes the
// in-memory copy is not trusted: the counter and the doc are re-read
// through the writer's store transaction (loadStreams) and written back in
// it, so two processes' writers of one table conflict in the store and one
// is rerun with the next numbers; the store's serializable commits are
// then the order of the records.
//
// Stream lifecycle is derived from the table's Spec (StreamEnabled,
// StreamLabel): sync, run on every write and every Streams API call that
// touches the table, creates the stream of a new label, closes the open
// shard of a stream that is no longer current, and rolls the current
// stream's open shard over once it is older than the rollover period.

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

const (
	// retention is how long records and closed shards stay readable.
	retention = 24 * time.Hour
	// DefaultShardRollover is how often the open shard is closed and a
	// child opened when Options.StreamShardRollover is zero (DynamoDB's
	// shards live about four hours).
	DefaultShardRollover = 4 * time.Hour
	// seqBase makes sequence numbers 21 digits long, as DynamoDB's are.
	seqBase = "1"
)

// State is the engine's streams state; its zero value is ready.
type State struct {
	mu     sync.Mutex
	tables map[[16]byte]*table
	// epoch counts the engine's state restores (Reset): an iterator
	// carries the epoch it was taken in, and one of an earlier epoch
	// reads a stream the restore replaced, so it is refused as expired.
	epoch atomic.Uint64
}

// Reset forgets every table's stream state (the store was replaced by a
// snapshot restore or a reset: it is loaded again from the store) and
// makes every iterator taken before expire.
func (s *State) Reset() {
	s.mu.Lock()
	s.tables = nil
	s.mu.Unlock()
	s.epoch.Add(1)
}

// table is the in-memory copy of one table's stream keys. mu guards
// every field and is held across a writer's commit (see Ordering).
type table struct {
	mu     sync.Mutex
	loaded bool
	next   uint64
	doc    doc
}

type doc struct {
	Streams []*stream `json:"streams"`
	// TrimmedBefore: records with a lower sequence number were deleted by
	// Trim (past the retention period).
	TrimmedBefore uint64 `json:"trimmedBefore,omitempty"`
}

type stream struct {
	Label    string    `json:"label"`
	View     string    `json:"view"`
	Created  time.Time `json:"created"`
	Disabled time.Time `json:"disabled,omitzero"`
	Shards   []*shard  `json:"shards"`
}

type shard struct {
	ID     string    `json:"id"`
	Parent string    `json:"parent,omitempty"`
	Start  uint64    `json:"start"`
	End    uint64    `json:"end,omitempty"` // 0 while open
	Opened time.Time `json:"opened"`
	Closed time.Time `json:"closed,omitzero"`
}

func (s *shard) open() bool { return s.End == 0 }

// Key is the key of table id's stream key of the given kind (see the file
// comment).
func Key(c Core, id [16]byte, kind byte) []byte {
	return append(c.Prefix(id), kind)
}

// recordsEnd is the end of table id's records: the key after every
// key with their prefix.
func recordsEnd(c Core, id [16]byte) []byte { return Key(c, id, 'r'+1) }

func recordKey(c Core, id [16]byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(Key(c, id, 'r'), seq)
}

// formatSeq renders a sequence number as DynamoDB's decimal string.
func formatSeq(n uint64) string { return seqBase + fmt.Sprintf("%020d", n) }

// parseSeq is the inverse of formatSeq.
func parseSeq(s string) (uint64, bool) {
	if len(s) != 21 || s[:1] != seqBase {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:], 10, 64)
	return n, err == nil
}

// tableFor returns table id's stream state, loaded from the store.
func (s *State) tableFor(id [16]byte) *table {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables == nil {
		s.tables = map[[16]byte]*table{}
	}
	st := s.tables[id]
	if st == nil {
		st = &table{}
		s.tables[id] = st
	}
	return st
}

// load reads the table's stream keys once; the caller holds st.mu.
func (st *table) load(c Core, r kv.Reader, id [16]byte) error {
	if st.loaded {
		return nil
	}
	st.doc = doc{}
	b, err := r.Get(Key(c, id, 'c'))
	switch {
	case errors.Is(err, kv.ErrNotFound):
		st.next = 1
	case err != nil:
		return c.InternalError(err)
	case len(b) != 8:
		return c.InternalError(fmt.Errorf("emulator: stream counter of %x has %d bytes", id, len(b)))
	default:
		st.next = binary.BigEndian.Uint64(b)
	}
	b, err = r.Get(Key(c, id, 'm'))
	switch {
	case errors.Is(err, kv.ErrNotFound):
	case err != nil:
		return c.InternalError(err)
	default:
		if err := json.Unmarshal(b, &st.doc); err != nil {
			return c.InternalError(err)
		}
	}
	st.loaded = true
	return nil
}

// loadStreams loads st (locked by the caller) through r. On a store
// shared with other processes the copy is only as good as r: it is read
// again every time, so a sequence number is never allocated from a counter
// another process has moved on (the store transaction that reads and
// rewrites the counter conflicts with any other that does).
func loadStreams(c Core, st *table, r kv.Reader, id [16]byte) error {
	if c.Shared() {
		st.loaded = false
	}
	return st.load(c, r, id)
}

func newShardID(now time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("shardId-%020d-%s", now.UnixMilli(), hex.EncodeToString(r[:]))
}

// sync brings st in line with t's stream settings at now (see the file
// comment) and reports whether the doc or counter changed. The caller
// holds st.mu and has loaded st.
func (st *table) sync(t *Table, now time.Time, rollover time.Duration) bool {
	want := ""
	if t.StreamEnabled {
		want = t.StreamLabel
	}
	dirty := false
	closeShard := func(sh *shard) {
		sh.End, sh.Closed = st.next, now
		st.next++ // End is reserved like Start, so End >= Start and no record has it
		dirty = true
	}
	openShard := func(s *stream, parent string) {
		s.Shards = append(s.Shards, &shard{ID: newShardID(now), Parent: parent, Start: st.next, Opened: now})
		st.next++
		dirty = true
	}
	var cur *stream
	for _, s := range st.doc.Streams {
		if s.Label == want {
			cur = s
			continue
		}
		if n := len(s.Shards); n > 0 && s.Shards[n-1].open() {
			closeShard(s.Shards[n-1])
		}
		if s.Disabled.IsZero() {
			s.Disabled, dirty = now, true
		}
	}
	if want == "" {
		return dirty
	}
	if cur == nil {
		created, err := time.Parse(LabelLayout, want)
		if err != nil {
			created = now
		}
		cur = &stream{Label: want, View: t.StreamViewType, Created: created}
		st.doc.Streams = append(st.doc.Streams, cur)
		openShard(cur, "")
	}
	if last := cur.Shards[len(cur.Shards)-1]; !now.Before(last.Opened.Add(rollover)) {
		closeShard(last)
		openShard(cur, last.ID)
	}
	return dirty
}

// stage puts st's counter and (if changed) doc in b.
func (st *table) stage(c Core, b kv.Batch, id [16]byte, docChanged bool) error {
	if err := b.Set(Key(c, id, 'c'), binary.BigEndian.AppendUint64(nil, st.next)); err != nil {
		return c.InternalError(err)
	}
	if docChanged {
		d, err := json.Marshal(&st.doc)
		if err != nil {
			return c.InternalError(err)
		}
		if err := b.Set(Key(c, id, 'm'), d); err != nil {
			return c.InternalError(err)
		}
	}
	return nil
}

// Stage adds the stream records of changes to b, reading the stream keys
// through r, and returns a release function to call once b is committed
// (or abandoned): until then the tables' stream locks are held, so
// records commit in sequence order. Tables that never had a stream cost
// nothing.
func (s *State) Stage(c Core, r kv.Reader, b kv.Batch, changes []Change) (func(), error) {
	var ids [][16]byte
	metas := map[[16]byte]*Table{}
	for _, ch := range changes {
		if ch.Table.StreamLabel == "" {
			continue
		}
		if _, ok := metas[ch.Table.ID]; !ok {
			ids = append(ids, ch.Table.ID)
		}
		metas[ch.Table.ID] = ch.Table
	}
	if len(ids) == 0 {
		return func() {}, nil
	}
	// Fixed order, so two multi-table batches never deadlock.
	slices.SortFunc(ids, func(a, b [16]byte) int { return bytesCompare(a[:], b[:]) })
	var locked []*table
	release := func() {
		for _, st := range locked {
			st.mu.Unlock()
		}
	}
	now := c.Now()
	tables := map[[16]byte]*table{}
	for _, id := range ids {
		st := s.tableFor(id)
		st.mu.Lock()
		locked = append(locked, st)
		if err := loadStreams(c, st, r, id); err != nil {
			release()
			return nil, err
		}
		tables[id] = st
	}
	docChanged := map[[16]byte]bool{}
	for _, id := range ids {
		docChanged[id] = tables[id].sync(metas[id], now, c.ShardRollover())
	}
	for _, ch := range changes {
		t := ch.Table
		if !t.StreamEnabled || ch.Quiet {
			continue
		}
		st := tables[t.ID]
		rec, ok := buildRecord(t, ch, now)
		if !ok {
			continue
		}
		seq := st.next
		st.next++
		rec.Dynamodb.SequenceNumber = formatSeq(seq)
		v, err := json.Marshal(rec)
		if err != nil {
			release()
			return nil, c.InternalError(err)
		}
		if err := b.Set(recordKey(c, t.ID, seq), v); err != nil {
			release()
			return nil, c.InternalError(err)
		}
	}
	for _, id := range ids {
		if err := tables[id].stage(c, b, id, docChanged[id]); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

func bytesCompare(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

// buildRecord returns ch's record (without its sequence number), or false
// when ch changes nothing.
func buildRecord(t *Table, ch Change, now time.Time) (*api.StreamRecord, bool) {
	var name string
	var keySrc av.Item
	switch {
	case ch.Old == nil && ch.New == nil:
		return nil, false
	case ch.Old == nil:
		name, keySrc = "INSERT", ch.New
	case ch.New == nil:
		name, keySrc = "REMOVE", ch.Old
	default:
		if av.EqualItems(ch.Old, ch.New) {
			return nil, false
		}
		name, keySrc = "MODIFY", ch.New
	}
	keys := make(av.Item, 2)
	for _, k := range t.Key {
		keys[k.Name] = keySrc[k.Name]
	}
	d := api.StreamRecordData{ApproximateCreationDateTime: now.Unix(), Keys: keys, StreamViewType: t.StreamViewType}
	size := av.ItemSize(keys)
	if t.StreamViewType == "NEW_IMAGE" || t.StreamViewType == "NEW_AND_OLD_IMAGES" {
		d.NewImage = ch.New
		size += av.ItemSize(ch.New)
	}
	if t.StreamViewType == "OLD_IMAGE" || t.StreamViewType == "NEW_AND_OLD_IMAGES" {
		d.OldImage = ch.Old
		size += av.ItemSize(ch.Old)
	}
	d.SizeBytes = int64(size)
	var id [16]byte
	_, _ = rand.Read(id[:])
	rec := &api.StreamRecord{
		AwsRegion: t.Region, Dynamodb: d, EventID: hex.EncodeToString(id[:]),
		EventName: name, EventSource: "aws:dynamodb", EventVersion: "1.1",
	}
	if ch.ByTTL {
		rec.UserIdentity = &api.StreamIdentity{PrincipalId: "dynamodb.amazonaws.com", Type: "Service"}
	}
	return rec, true
}

// Trim deletes the stream records older than the retention period of
// every table whose streams were used since start-up. The engine's TTL
// worker runs it on every pass.
func (s *State) Trim(c Core, now time.Time) error {
	s.mu.Lock()
	ids := make([][16]byte, 0, len(s.tables))
	for id := range s.tables {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		if err := trimTable(c, s.tableFor(id), id, now); err != nil {
			return err
		}
	}
	return nil
}

func trimTable(c Core, st *table, id [16]byte, now time.Time) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.loaded {
		return nil
	}
	p := Key(c, id, 'r')
	it, err := c.Store().NewIter(p, recordsEnd(c, id))
	if err != nil {
		return c.InternalError(err)
	}
	var keep []byte // first record kept; nil: every record is trimmed
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		var rec api.StreamRecord
		if err := json.Unmarshal(it.Value(), &rec); err != nil {
			_ = it.Close()
			return c.InternalError(err)
		}
		if !trimmed(&rec, now) {
			keep = append([]byte(nil), it.Key()...)
			break
		}
		n++
	}
	if err := it.Close(); err != nil {
		return c.InternalError(err)
	}
	if n == 0 {
		return nil
	}
	// The records found above are past retention, so deleting them needs
	// no transaction; the counter and doc rewritten with TrimmedBefore do
	// (another process may be appending records).
	err = c.Store().Update(c.Sync(), func(tx kv.Txn) error {
		if err := loadStreams(c, st, tx, id); err != nil {
			return err
		}
		end, before := keep, st.next
		if keep == nil {
			end = recordsEnd(c, id)
		} else {
			before = binary.BigEndian.Uint64(keep[len(keep)-8:])
		}
		b := tx.Batch()
		if err := b.DeleteRange(p, end); err != nil {
			return c.InternalError(err)
		}
		st.doc.TrimmedBefore = max(st.doc.TrimmedBefore, before)
		return st.stage(c, b, id, true)
	})
	if err != nil {
		return c.WriteError(err)
	}
	return nil
}
