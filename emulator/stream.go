package emulator

// DynamoDB Streams: records written atomically with item changes, shards
// that roll over on a schedule, and the state the Streams API reads.
//
// Keys, under the table's 's' family (keys.go):
//
//	's' <tableID> 'c'               → next sequence number (uint64 BE)
//	's' <tableID> 'm'               → JSON streamsDoc (every stream, its shards)
//	's' <tableID> 'r' <seq:8 BE>    → JSON StreamRecord
//	's' <tableID> 'o'               → last outbox number taken for the table, shared stores only (write.go nextSeq)
//	's' <tableID> 'k'               → last Kinesis queue number taken, shared stores only
//
// Sequence numbers are per table and strictly increasing; every record of
// every stream of the table lives in one sequence, and a shard is a range
// [Start, End] of it. Opening a shard reserves its Start (no record has it),
// so a shard is never empty of sequence numbers and a closed shard's End is
// at least its Start.
//
// Ordering. A writer allocates its records' sequence numbers and commits
// its batch while holding the table's streamTable.mu, so records become
// visible in sequence order and a reader never skips one that commits
// later with a lower number. The writer also holds the item's stripe, so
// the records of one item are in order. On a store shared by several
// processes the in-memory copy is not trusted: the counter and the doc are
// re-read through the writer's store transaction (loadStreams) and written
// back in it, so two processes' writers of one table conflict in the store
// and one is rerun with the next numbers; the store's serializable commits
// are then the order of the records.
//
// Stream lifecycle is derived from the table's metadata (StreamEnabled,
// StreamLabel): syncStreams, run on every write and every Streams API call
// that touches the table, creates the stream of a new label, closes the
// open shard of a stream that is no longer current, and rolls the current
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
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

const (
	// streamRetention is how long records and closed shards stay readable.
	streamRetention = 24 * time.Hour
	// defaultShardRollover is how often the open shard is closed and a
	// child opened when Options.StreamShardRollover is zero (DynamoDB's
	// shards live about four hours).
	defaultShardRollover = 4 * time.Hour
	// seqBase makes sequence numbers 21 digits long, as DynamoDB's are.
	seqBase = "1"
)

// streamState is the engine's streams state; its zero value is ready.
type streamState struct {
	mu     sync.Mutex
	tables map[tableID]*streamTable
}

// streamTable is the in-memory copy of one table's stream keys. mu guards
// every field and is held across a writer's commit (see Ordering).
type streamTable struct {
	mu     sync.Mutex
	loaded bool
	next   uint64
	doc    streamsDoc
}

type streamsDoc struct {
	Streams []*streamMeta `json:"streams"`
	// TrimmedBefore: records with a lower sequence number were deleted by
	// trimStreams (past the retention period).
	TrimmedBefore uint64 `json:"trimmedBefore,omitempty"`
}

type streamMeta struct {
	Label    string       `json:"label"`
	View     string       `json:"view"`
	Created  time.Time    `json:"created"`
	Disabled time.Time    `json:"disabled,omitzero"`
	Shards   []*shardMeta `json:"shards"`
}

type shardMeta struct {
	ID     string    `json:"id"`
	Parent string    `json:"parent,omitempty"`
	Start  uint64    `json:"start"`
	End    uint64    `json:"end,omitempty"` // 0 while open
	Opened time.Time `json:"opened"`
	Closed time.Time `json:"closed,omitzero"`
}

func (s *shardMeta) open() bool { return s.End == 0 }

func streamKey(id tableID, kind byte) []byte {
	return append(streamPrefix(id), kind)
}

func streamRecordKey(id tableID, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(streamKey(id, 'r'), seq)
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

// streamTableFor returns table id's stream state, loaded from the store.
func (e *Engine) streamTableFor(id tableID) (*streamTable, error) {
	e.streams.mu.Lock()
	if e.streams.tables == nil {
		e.streams.tables = map[tableID]*streamTable{}
	}
	st := e.streams.tables[id]
	if st == nil {
		st = &streamTable{}
		e.streams.tables[id] = st
	}
	e.streams.mu.Unlock()
	return st, nil
}

// load reads the table's stream keys once; the caller holds st.mu.
func (st *streamTable) load(r kv.Reader, id tableID) error {
	if st.loaded {
		return nil
	}
	st.doc = streamsDoc{}
	b, err := r.Get(streamKey(id, 'c'))
	switch {
	case errors.Is(err, kv.ErrNotFound):
		st.next = 1
	case err != nil:
		return internalError(err)
	case len(b) != 8:
		return internalError(fmt.Errorf("emulator: stream counter of %x has %d bytes", id, len(b)))
	default:
		st.next = binary.BigEndian.Uint64(b)
	}
	b, err = r.Get(streamKey(id, 'm'))
	switch {
	case errors.Is(err, kv.ErrNotFound):
	case err != nil:
		return internalError(err)
	default:
		if err := json.Unmarshal(b, &st.doc); err != nil {
			return internalError(err)
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
func (e *Engine) loadStreams(st *streamTable, r kv.Reader, id tableID) error {
	if e.shared() {
		st.loaded = false
	}
	return st.load(r, id)
}

func newShardID(now time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("shardId-%020d-%s", now.UnixMilli(), hex.EncodeToString(r[:]))
}

// sync brings st in line with t's stream settings at now (see the file
// comment) and reports whether the doc or counter changed. The caller
// holds st.mu and has loaded st.
func (st *streamTable) sync(t *tableMeta, now time.Time, rollover time.Duration) bool {
	want := ""
	if t.StreamEnabled {
		want = t.StreamLabel
	}
	dirty := false
	closeShard := func(sh *shardMeta) {
		sh.End, sh.Closed = st.next, now
		st.next++ // End is reserved like Start, so End >= Start and no record has it
		dirty = true
	}
	openShard := func(s *streamMeta, parent string) {
		s.Shards = append(s.Shards, &shardMeta{ID: newShardID(now), Parent: parent, Start: st.next, Opened: now})
		st.next++
		dirty = true
	}
	var cur *streamMeta
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
		created, err := time.Parse(streamLabelLayout, want)
		if err != nil {
			created = now
		}
		cur = &streamMeta{Label: want, View: t.StreamViewType, Created: created}
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
func (st *streamTable) stage(b kv.Batch, id tableID, docChanged bool) error {
	if err := b.Set(streamKey(id, 'c'), binary.BigEndian.AppendUint64(nil, st.next)); err != nil {
		return internalError(err)
	}
	if docChanged {
		d, err := json.Marshal(&st.doc)
		if err != nil {
			return internalError(err)
		}
		if err := b.Set(streamKey(id, 'm'), d); err != nil {
			return internalError(err)
		}
	}
	return nil
}

func (e *Engine) shardRollover() time.Duration {
	if e.opts.StreamShardRollover > 0 {
		return e.opts.StreamShardRollover
	}
	return defaultShardRollover
}

// stageStreamRecords adds the stream records of changes to b, reading the
// stream keys through r, and returns a release function to call once b is
// committed (or abandoned): until then the tables' stream locks are held,
// so records commit in sequence order. Tables that never had a stream cost
// nothing.
func (e *Engine) stageStreamRecords(r kv.Reader, b kv.Batch, changes []itemChange) (func(), error) {
	var ids []tableID
	metas := map[tableID]*tableMeta{}
	for _, c := range changes {
		if c.Table.StreamLabel == "" {
			continue
		}
		if _, ok := metas[c.Table.ID]; !ok {
			ids = append(ids, c.Table.ID)
		}
		metas[c.Table.ID] = c.Table
	}
	if len(ids) == 0 {
		return func() {}, nil
	}
	// Fixed order, so two multi-table batches never deadlock.
	slices.SortFunc(ids, func(a, b tableID) int { return bytesCompare(a[:], b[:]) })
	var locked []*streamTable
	release := func() {
		for _, st := range locked {
			st.mu.Unlock()
		}
	}
	now := e.now()
	tables := map[tableID]*streamTable{}
	for _, id := range ids {
		st, err := e.streamTableFor(id)
		if err != nil {
			release()
			return nil, err
		}
		st.mu.Lock()
		locked = append(locked, st)
		if err := e.loadStreams(st, r, id); err != nil {
			release()
			return nil, err
		}
		tables[id] = st
	}
	docChanged := map[tableID]bool{}
	for _, id := range ids {
		docChanged[id] = tables[id].sync(metas[id], now, e.shardRollover())
	}
	for _, c := range changes {
		t := c.Table
		if !t.StreamEnabled || c.quiet {
			continue
		}
		st := tables[t.ID]
		rec, ok := buildStreamRecord(t, c, now)
		if !ok {
			continue
		}
		seq := st.next
		st.next++
		rec.Dynamodb.SequenceNumber = formatSeq(seq)
		v, err := json.Marshal(rec)
		if err != nil {
			release()
			return nil, internalError(err)
		}
		if err := b.Set(streamRecordKey(t.ID, seq), v); err != nil {
			release()
			return nil, internalError(err)
		}
	}
	for _, id := range ids {
		if err := tables[id].stage(b, id, docChanged[id]); err != nil {
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

// buildStreamRecord returns c's record (without its sequence number), or
// false when c changes nothing.
func buildStreamRecord(t *tableMeta, c itemChange, now time.Time) (*StreamRecord, bool) {
	var name string
	var keySrc av.Item
	switch {
	case c.Old == nil && c.New == nil:
		return nil, false
	case c.Old == nil:
		name, keySrc = "INSERT", c.New
	case c.New == nil:
		name, keySrc = "REMOVE", c.Old
	default:
		if av.EqualItems(c.Old, c.New) {
			return nil, false
		}
		name, keySrc = "MODIFY", c.New
	}
	keys := make(av.Item, 2)
	for _, k := range t.KeySchema {
		keys[k.Name] = keySrc[k.Name]
	}
	d := StreamRecordData{ApproximateCreationDateTime: now.Unix(), Keys: keys, StreamViewType: t.StreamViewType}
	size := av.ItemSize(keys)
	if t.StreamViewType == "NEW_IMAGE" || t.StreamViewType == "NEW_AND_OLD_IMAGES" {
		d.NewImage = c.New
		size += av.ItemSize(c.New)
	}
	if t.StreamViewType == "OLD_IMAGE" || t.StreamViewType == "NEW_AND_OLD_IMAGES" {
		d.OldImage = c.Old
		size += av.ItemSize(c.Old)
	}
	d.SizeBytes = int64(size)
	var id [16]byte
	_, _ = rand.Read(id[:])
	rec := &StreamRecord{
		AwsRegion: t.Region, Dynamodb: d, EventID: hex.EncodeToString(id[:]),
		EventName: name, EventSource: "aws:dynamodb", EventVersion: "1.1",
	}
	if c.ByTTL {
		rec.UserIdentity = &StreamIdentity{PrincipalId: "dynamodb.amazonaws.com", Type: "Service"}
	}
	return rec, true
}

// trimStreams deletes the stream records older than the retention period
// of every table whose streams were used since start-up. The TTL worker
// runs it on every pass.
func (e *Engine) trimStreams(now time.Time) error {
	e.streams.mu.Lock()
	ids := make([]tableID, 0, len(e.streams.tables))
	for id := range e.streams.tables {
		ids = append(ids, id)
	}
	e.streams.mu.Unlock()
	for _, id := range ids {
		st, err := e.streamTableFor(id)
		if err != nil {
			return err
		}
		if err := e.trimTable(st, id, now); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) trimTable(st *streamTable, id tableID, now time.Time) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.loaded {
		return nil
	}
	p := streamKey(id, 'r')
	it, err := e.opts.Store.NewIter(p, prefixEnd(p))
	if err != nil {
		return internalError(err)
	}
	var keep []byte // first record kept; nil: every record is trimmed
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		var rec StreamRecord
		if err := json.Unmarshal(it.Value(), &rec); err != nil {
			_ = it.Close()
			return internalError(err)
		}
		if !trimmed(&rec, now) {
			keep = append([]byte(nil), it.Key()...)
			break
		}
		n++
	}
	if err := it.Close(); err != nil {
		return internalError(err)
	}
	if n == 0 {
		return nil
	}
	// The records found above are past retention, so deleting them needs
	// no transaction; the counter and doc rewritten with TrimmedBefore do
	// (another process may be appending records).
	err = e.opts.Store.Update(e.opts.Sync, func(tx kv.Txn) error {
		if err := e.loadStreams(st, tx, id); err != nil {
			return err
		}
		end, before := keep, st.next
		if keep == nil {
			end = prefixEnd(p)
		} else {
			before = binary.BigEndian.Uint64(keep[len(keep)-8:])
		}
		b := tx.Batch()
		if err := b.DeleteRange(p, end); err != nil {
			return internalError(err)
		}
		st.doc.TrimmedBefore = max(st.doc.TrimmedBefore, before)
		return st.stage(b, id, true)
	})
	if err != nil {
		return writeError(err)
	}
	return nil
}
