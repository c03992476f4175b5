package streams

// The DynamoDB Streams API: ListStreams, DescribeStream, GetShardIterator,
// GetRecords, over the state of store.go. The engine has checked each
// request's shape (the members' lengths, ranges and enums) before it hands
// the request over.

import (
	"encoding/base64"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/kv"
)

const (
	// iteratorLifetime is how long a shard iterator stays usable.
	iteratorLifetime = 15 * time.Minute
	// MaxGetRecords, MaxListStreams and MaxDescribeShards are the largest
	// Limit of GetRecords, ListStreams and DescribeStream, and their
	// default.
	MaxGetRecords     = 1000
	MaxListStreams    = 100
	MaxDescribeShards = 100
	iteratorPrefix    = "v1|"
)

// open returns table t's stream state, locked, loaded and synced
// (persisting what sync changed). The caller unlocks st.mu.
func (s *State) open(c Core, t *Table, now time.Time) (*table, error) {
	st := s.tableFor(t.ID)
	st.mu.Lock()
	// One store transaction: on a shared store the counter and shards are
	// read afresh and a shard opened here conflicts with a writer's
	// records instead of reusing their sequence numbers.
	err := c.Store().Update(c.Sync(), func(tx kv.Txn) error {
		if err := loadStreams(c, st, tx, t.ID); err != nil {
			return err
		}
		if t.StreamLabel == "" || !st.sync(t, now, c.ShardRollover()) {
			return nil
		}
		return st.stage(c, tx.Batch(), t.ID, true)
	})
	if err != nil {
		st.mu.Unlock()
		return nil, c.WriteError(err)
	}
	return st, nil
}

// visible reports whether stream s is still listed at now: a disabled
// stream ages out after the retention period.
func (s *stream) visible(now time.Time) bool {
	return s.Disabled.IsZero() || now.Before(s.Disabled.Add(retention))
}

// resolve finds the stream of arn. The caller unlocks st.mu.
func (s *State) resolve(c Core, ns api.Namespace, arn string, now time.Time) (*Table, *table, *stream, error) {
	t, label, err := c.StreamTable(ns, arn, now)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := s.open(c, t, now)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, s := range st.doc.Streams {
		if s.Label == label && s.visible(now) {
			return t, st, s, nil
		}
	}
	st.mu.Unlock()
	return nil, nil, nil, NotFound(arn)
}

// Check reports whether arn names a stream that is listed at now (nil) or
// why not, as DescribeStream would answer.
func (s *State) Check(c Core, ns api.Namespace, arn string, now time.Time) error {
	_, st, _, err := s.resolve(c, ns, arn, now)
	if err != nil {
		return err
	}
	st.mu.Unlock()
	return nil
}

// ListStreams lists the streams of one table or of every table in ns.
func (s *State) ListStreams(c Core, ns api.Namespace, in *api.ListStreamsInput) (*api.ListStreamsOutput, error) {
	now := c.Now()
	var tables []*Table
	if in.TableName != nil {
		if t := c.Table(ns, *in.TableName, now); t != nil {
			tables = append(tables, t)
		}
	} else {
		tables = c.Tables(ns, now)
	}
	if in.TableName != nil && len(tables) == 0 {
		return nil, api.ResourceNotFoundError("Requested resource not found: Table: %s not found", *in.TableName)
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	var all []api.StreamSummary
	for _, t := range tables {
		if t.StreamLabel == "" {
			continue
		}
		st, err := s.open(c, t, now)
		if err != nil {
			return nil, err
		}
		for _, s := range st.doc.Streams {
			if s.visible(now) {
				all = append(all, api.StreamSummary{StreamArn: t.ARN + "/stream/" + s.Label, TableName: t.Name, StreamLabel: s.Label})
			}
		}
		st.mu.Unlock()
	}
	if in.ExclusiveStartStreamArn != nil {
		for i, s := range all {
			if s.StreamArn == *in.ExclusiveStartStreamArn {
				all = all[i+1:]
				break
			}
		}
	}
	limit := MaxListStreams
	if in.Limit != nil && *in.Limit < int64(limit) {
		limit = int(*in.Limit)
	}
	out := &api.ListStreamsOutput{Streams: all}
	if len(all) > limit {
		out.Streams = all[:limit]
		out.LastEvaluatedStreamArn = all[limit-1].StreamArn
	}
	if out.Streams == nil {
		out.Streams = []api.StreamSummary{}
	}
	return out, nil
}

// shardRange is a shard's SequenceNumberRange as DescribeStream shows it.
func shardRange(sh *shard) api.SequenceNumberRange {
	r := api.SequenceNumberRange{StartingSequenceNumber: formatSeq(sh.Start)}
	if !sh.open() {
		r.EndingSequenceNumber = formatSeq(sh.End)
	}
	return r
}

// shardVisible reports whether sh is still described at now: a closed
// shard ages out after the retention period.
func shardVisible(sh *shard, now time.Time) bool {
	return sh.open() || now.Before(sh.Closed.Add(retention))
}

// DescribeStream describes a stream and its shards.
func (s *State) DescribeStream(c Core, ns api.Namespace, in *api.DescribeStreamInput) (*api.DescribeStreamOutput, error) {
	now := c.Now()
	t, st, sm, err := s.resolve(c, ns, *in.StreamArn, now)
	if err != nil {
		return nil, err
	}
	defer st.mu.Unlock()
	status := "DISABLED"
	if t.StreamEnabled && t.StreamLabel == sm.Label {
		status = "ENABLED"
	}
	d := api.StreamDescription{
		StreamArn: *in.StreamArn, StreamLabel: sm.Label, StreamStatus: status, StreamViewType: sm.View,
		CreationRequestDateTime: float64(sm.Created.UnixMilli()) / 1000, TableName: t.Name,
	}
	for _, k := range t.Key {
		d.KeySchema = append(d.KeySchema, api.KeySchemaElement{AttributeName: ptr(k.Name), KeyType: ptr(k.KeyType)})
	}
	var shards []api.StreamShard
	for _, sh := range sm.Shards {
		if !shardVisible(sh, now) {
			continue
		}
		if in.ShardFilter != nil && sh.Parent != *in.ShardFilter.ShardId {
			continue
		}
		shards = append(shards, api.StreamShard{ShardId: sh.ID, ParentShardId: sh.Parent, SequenceNumberRange: shardRange(sh)})
	}
	if in.ExclusiveStartShardId != nil {
		// A start shard the stream does not have lists nothing after it.
		start := len(shards)
		for i, sh := range shards {
			if sh.ShardId == *in.ExclusiveStartShardId {
				start = i + 1
				break
			}
		}
		shards = shards[start:]
	}
	limit := MaxDescribeShards
	if in.Limit != nil && *in.Limit < int64(limit) {
		limit = int(*in.Limit)
	}
	if len(shards) > limit {
		shards = shards[:limit]
		d.LastEvaluatedShardId = shards[limit-1].ShardId
	}
	if shards == nil {
		shards = []api.StreamShard{}
	}
	d.Shards = shards
	return &api.DescribeStreamOutput{StreamDescription: d}, nil
}

func ptr[T any](v T) *T { return &v }

// shardIterator is what an iterator string carries.
type shardIterator struct {
	Arn     string `json:"a"`
	Shard   string `json:"s"`
	Pos     uint64 `json:"p"` // next sequence number to read
	Created int64  `json:"c"` // unix milliseconds
	// Epoch is State.epoch when the iterator was taken.
	Epoch uint64 `json:"e,omitempty"`
}

func (it shardIterator) encode() string {
	b, _ := json.Marshal(it)
	return it.Arn + "|" + iteratorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func decodeIterator(s string) (shardIterator, bool) {
	var it shardIterator
	i := strings.LastIndex(s, "|"+iteratorPrefix)
	if i < 0 {
		return it, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s[i+1+len(iteratorPrefix):])
	if err != nil || json.Unmarshal(b, &it) != nil || it.Arn != s[:i] {
		return it, false
	}
	return it, true
}

func findShard(s *stream, id string) *shard {
	for _, sh := range s.Shards {
		if sh.ID == id {
			return sh
		}
	}
	return nil
}

// firstRecord returns the first record at or after seq (up to end, 0 for no
// bound) and its sequence number.
func firstRecord(c Core, r kv.Reader, t *Table, from, end uint64) (*api.StreamRecord, uint64, error) {
	hi := recordsEnd(c, t.ID)
	if end != 0 {
		hi = recordKey(c, t.ID, end+1)
	}
	it, err := r.NewIter(recordKey(c, t.ID, from), hi)
	if err != nil {
		return nil, 0, c.InternalError(err)
	}
	defer it.Close()
	if !it.First() {
		return nil, 0, it.Error()
	}
	var rec api.StreamRecord
	if err := json.Unmarshal(it.Value(), &rec); err != nil {
		return nil, 0, c.InternalError(err)
	}
	k := it.Key()
	return &rec, beUint64(k[len(k)-8:]), nil
}

func beUint64(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

// firstAtOrAfter returns the sequence number of the first record in
// [from, end) whose ApproximateCreationDateTime (whole seconds, as the
// API shows it) is at or after ts, or end when there is none. Records are
// stored in sequence order, and their times follow it.
func firstAtOrAfter(c Core, t *Table, from, end uint64, ts float64) (uint64, error) {
	it, err := c.Store().NewIter(recordKey(c, t.ID, from), recordKey(c, t.ID, end))
	if err != nil {
		return 0, c.InternalError(err)
	}
	defer it.Close()
	var rec struct {
		Dynamodb struct {
			ApproximateCreationDateTime int64
		}
	}
	for ok := it.First(); ok; ok = it.Next() {
		rec.Dynamodb.ApproximateCreationDateTime = 0
		if err := json.Unmarshal(it.Value(), &rec); err != nil {
			return 0, c.InternalError(err)
		}
		if float64(rec.Dynamodb.ApproximateCreationDateTime) >= ts {
			k := it.Key()
			return beUint64(k[len(k)-8:]), nil
		}
	}
	if err := it.Error(); err != nil {
		return 0, c.InternalError(err)
	}
	return end, nil
}

// epochMillis formats Unix seconds with their milliseconds, as the
// API's timestamps are written (1791316726.480).
func epochMillis(sec float64) string {
	return strconv.FormatFloat(sec, 'f', 3, 64)
}

// trimmed reports whether rec is past the retention period at now.
func trimmed(rec *api.StreamRecord, now time.Time) bool {
	return rec.Dynamodb.ApproximateCreationDateTime < now.Add(-retention).Unix()
}

func trimmedError() error {
	return api.NewError(api.CodeTrimmedDataAccess, "The operation attempted to read past the oldest stream record in a shard.")
}

// GetShardIterator returns an iterator positioned in a shard.
func (s *State) GetShardIterator(c Core, ns api.Namespace, in *api.GetShardIteratorInput) (*api.GetShardIteratorOutput, error) {
	typ := *in.ShardIteratorType
	bySeq := typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER"
	if bySeq && in.SequenceNumber == nil {
		return nil, api.Validation("Must specify sequence number for iterator type %s", typ)
	}
	if !bySeq && in.SequenceNumber != nil {
		return nil, api.Validation("Sequence number must not be specified for iterator type %s", typ)
	}
	byTime := typ == "AT_TIMESTAMP"
	if byTime && in.Timestamp == nil {
		return nil, api.Validation("Must specify timestamp for iterator type %s", typ)
	}
	if !byTime && in.Timestamp != nil {
		return nil, api.Validation("Timestamp must not be specified for iterator type %s", typ)
	}
	now := c.Now()
	if byTime && *in.Timestamp > float64(now.UnixMilli())/1000 {
		return nil, api.Validation("The Timestamp parameter cannot be in the future. Timestamp: %s, current time: %s",
			epochMillis(*in.Timestamp), epochMillis(float64(now.UnixMilli())/1000))
	}
	t, st, sm, err := s.resolve(c, ns, *in.StreamArn, now)
	if err != nil {
		return nil, err
	}
	defer st.mu.Unlock()
	sh := findShard(sm, *in.ShardId)
	if sh == nil || !shardVisible(sh, now) {
		return nil, api.ResourceNotFoundError("Requested resource not found: Shard does not exist")
	}
	it := shardIterator{Arn: *in.StreamArn, Shard: sh.ID, Created: now.UnixMilli(), Epoch: s.epoch.Load()}
	switch typ {
	case "TRIM_HORIZON":
		it.Pos = sh.Start
	case "LATEST":
		if sh.open() {
			it.Pos = st.next
		} else {
			it.Pos = sh.End + 1
		}
	case "AT_TIMESTAMP":
		// Older than the trim horizon is TRIM_HORIZON; otherwise the
		// first record at or after the time, or the shard's end when none
		// is yet (later records come after it).
		if *in.Timestamp < float64(now.Add(-retention).Unix()) {
			it.Pos = sh.Start
			break
		}
		end := st.next
		if !sh.open() {
			end = sh.End + 1
		}
		pos, err := firstAtOrAfter(c, t, sh.Start, end, *in.Timestamp)
		if err != nil {
			return nil, err
		}
		it.Pos = pos
	default:
		seq, ok := parseSeq(*in.SequenceNumber)
		if !ok || seq < sh.Start || (!sh.open() && seq > sh.End) || (sh.open() && seq >= st.next) {
			return nil, api.Validation("Invalid SequenceNumber for ShardIteratorType %s: %s", typ, *in.SequenceNumber)
		}
		rec, at, err := firstRecord(c, c.Store(), t, seq, sh.End)
		if err != nil {
			return nil, err
		}
		if seq < st.doc.TrimmedBefore || (rec != nil && at == seq && trimmed(rec, now)) {
			return nil, trimmedError()
		}
		it.Pos = seq
		if typ == "AFTER_SEQUENCE_NUMBER" {
			it.Pos++
		}
	}
	return &api.GetShardIteratorOutput{ShardIterator: it.encode()}, nil
}

// GetRecords reads records from a shard iterator's position.
func (s *State) GetRecords(c Core, ns api.Namespace, in *api.GetRecordsInput) (*api.GetRecordsOutput, error) {
	pos, ok := decodeIterator(*in.ShardIterator)
	if !ok {
		return nil, api.Validation("Invalid ShardIterator")
	}
	now := c.Now()
	if pos.Epoch != s.epoch.Load() {
		// The server's state was restored from a snapshot (or reset) since
		// the iterator was taken: the stream it points into is gone.
		return nil, api.NewError(api.CodeExpiredIterator, "Iterator expired. The iterator was created before the server's state was restored from a snapshot or reset; get a new shard iterator.")
	}
	if created := time.UnixMilli(pos.Created); now.Sub(created) > iteratorLifetime {
		return nil, api.NewError(api.CodeExpiredIterator, "Iterator expired. The iterator was created at time %s while right now it is %s which is further in the future than the tolerated delay of %d milliseconds.",
			javaDate(created), javaDate(now), iteratorLifetime.Milliseconds())
	}
	t, st, sm, err := s.resolve(c, ns, pos.Arn, now)
	if err != nil {
		return nil, err
	}
	sh := findShard(sm, pos.Shard)
	if sh == nil || !shardVisible(sh, now) {
		st.mu.Unlock()
		return nil, trimmedError()
	}
	shard := *sh
	trimmedBefore := st.doc.TrimmedBefore
	st.mu.Unlock()
	if pos.Pos < trimmedBefore && pos.Pos != shard.Start {
		return nil, trimmedError()
	}
	limit := MaxGetRecords
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	out := &api.GetRecordsOutput{Records: []api.StreamRecord{}}
	next, done, err := readShard(c, t, &shard, pos.Pos, limit, now, out)
	if err != nil {
		return nil, err
	}
	if !done {
		out.NextShardIterator = shardIterator{Arn: pos.Arn, Shard: pos.Shard, Pos: next, Created: now.UnixMilli(), Epoch: pos.Epoch}.encode()
	}
	return out, nil
}

// readShard appends to out.Records up to limit records of shard from
// position from on, leaving out those past the retention period, and
// returns the position after the last one read and whether the shard is
// read to its end (closed and nothing left).
func readShard(c Core, t *Table, shard *shard, from uint64, limit int, now time.Time, out *api.GetRecordsOutput) (uint64, bool, error) {
	if !shard.open() && from > shard.End {
		return from, true, nil
	}
	hi := recordsEnd(c, t.ID)
	if !shard.open() {
		hi = recordKey(c, t.ID, shard.End)
	}
	next := from
	it, err := c.Store().NewIter(recordKey(c, t.ID, from), hi)
	if err != nil {
		return 0, false, c.InternalError(err)
	}
	n := 0
	okIt := it.First()
	for ; okIt && n < limit; okIt = it.Next() {
		var rec api.StreamRecord
		if err := json.Unmarshal(it.Value(), &rec); err != nil {
			_ = it.Close()
			return 0, false, c.InternalError(err)
		}
		if trimmed(&rec, now) {
			if n == 0 && next == from && from != shard.Start {
				_ = it.Close()
				return 0, false, trimmedError()
			}
			k := it.Key()
			next = beUint64(k[len(k)-8:]) + 1
			continue
		}
		out.Records = append(out.Records, rec)
		k := it.Key()
		next = beUint64(k[len(k)-8:]) + 1
		n++
	}
	done := !okIt && !shard.open()
	if err := it.Error(); err != nil {
		_ = it.Close()
		return 0, false, c.InternalError(err)
	}
	_ = it.Close()
	return next, done, nil
}

// javaDate formats t as Java's Date.toString does, as DynamoDB's messages show it.
func javaDate(t time.Time) string {
	return t.UTC().Format("Mon Jan 02 15:04:05 MST 2006")
}
