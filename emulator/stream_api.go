package emulator

// The DynamoDB Streams API: ListStreams, DescribeStream, GetShardIterator,
// GetRecords, over the state of stream.go.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/extenddb/extenddb/kv"
)

const (
	// iteratorLifetime is how long a shard iterator stays usable.
	iteratorLifetime = 15 * time.Minute
	maxGetRecords    = 1000
	maxListStreams   = 100
	maxDescribeShard = 100
	iteratorPrefix   = "v1|"
)

func streamNotFound(arn string) error {
	return ResourceNotFoundError("Requested resource not found: Stream: %s not found", arn)
}

// ResourceNotFoundError is ResourceNotFoundException with a message.
func ResourceNotFoundError(format string, args ...any) *Error {
	return NewError(CodeResourceNotFound, format, args...)
}

// streamARN is the ARN of table t's stream label.
func streamARN(t *tableMeta, label string) string { return t.ARN() + "/stream/" + label }

// invalidStreamARN is the service's answer to a stream ARN that does not
// parse (one that parses but names no stream is ResourceNotFound).
func invalidStreamARN() error { return Validation("Invalid StreamArn") }

// wellFormedStreamARN reports whether arn has a stream ARN's shape,
// arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL, in any
// namespace.
func wellFormedStreamARN(arn string) bool {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] != "dynamodb" || parts[3] == "" || parts[4] == "" {
		return false
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return false
	}
	name, label, ok := strings.Cut(rest, "/stream/")
	return ok && validName(name) && label != "" && !strings.Contains(label, "/")
}

// parseStreamARN splits a stream ARN of ns into table name and label.
func parseStreamARN(ns Namespace, arn string) (name, label string, ok bool) {
	rest, ok := strings.CutPrefix(arn, ns.TableARN(""))
	if !ok {
		return "", "", false
	}
	name, label, ok = strings.Cut(rest, "/stream/")
	return name, label, ok && name != "" && label != ""
}

// openStreams returns table t's stream state, locked, loaded and synced
// (persisting what sync changed). The caller unlocks st.mu.
func (e *Engine) openStreams(t *tableMeta, now time.Time) (*streamTable, error) {
	st, err := e.streamTableFor(t.ID)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	// One store transaction: on a shared store the counter and shards are
	// read afresh and a shard opened here conflicts with a writer's
	// records instead of reusing their sequence numbers.
	err = e.opts.Store.Update(e.opts.Sync, func(tx kv.Txn) error {
		if err := e.loadStreams(st, tx, t.ID); err != nil {
			return err
		}
		if t.StreamLabel == "" || !st.sync(t, now, e.shardRollover()) {
			return nil
		}
		return st.stage(tx.Batch(), t.ID, true)
	})
	if err != nil {
		st.mu.Unlock()
		return nil, writeError(err)
	}
	return st, nil
}

// visible reports whether stream s is still listed at now: a disabled
// stream ages out after the retention period.
func (s *streamMeta) visible(now time.Time) bool {
	return s.Disabled.IsZero() || now.Before(s.Disabled.Add(streamRetention))
}

// resolveStream finds the stream of arn. The caller unlocks st.mu.
func (e *Engine) resolveStream(ns Namespace, arn string, now time.Time) (*tableMeta, *streamTable, *streamMeta, error) {
	if !wellFormedStreamARN(arn) {
		return nil, nil, nil, invalidStreamARN()
	}
	// Another account's stream ARN resolves in that account, as a table
	// ARN does (cross-account access through resource policies).
	if a, err := parseARN(arn); err == nil && a.account != ns.Account && a.region == ns.Region && a.partition == ns.Partition() {
		ns = Namespace{Account: a.account, Region: a.region}
	}
	name, label, ok := parseStreamARN(ns, arn)
	if !ok {
		return nil, nil, nil, streamNotFound(arn)
	}
	e.rlockCatalog()
	t := e.lookup(ns, name, now)
	e.mu.RUnlock()
	if t == nil {
		return nil, nil, nil, streamNotFound(arn)
	}
	st, err := e.openStreams(t, now)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, s := range st.doc.Streams {
		if s.Label == label && s.visible(now) {
			return t, st, s, nil
		}
	}
	st.mu.Unlock()
	return nil, nil, nil, streamNotFound(arn)
}

// ListStreams lists the streams of one table or of every table in ns.
func (e *Engine) ListStreams(ctx context.Context, ns Namespace, in *ListStreamsInput) (*ListStreamsOutput, error) {
	if in == nil {
		in = &ListStreamsInput{}
	}
	var v violations
	v.min("limit", in.Limit, 1)
	v.max("limit", in.Limit, maxListStreams)
	if in.TableName != nil {
		v.length("tableName", *in.TableName, 3, 255)
	}
	if in.ExclusiveStartStreamArn != nil {
		v.length("exclusiveStartStreamArn", *in.ExclusiveStartStreamArn, 37, 1024)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if in.ExclusiveStartStreamArn != nil && !wellFormedStreamARN(*in.ExclusiveStartStreamArn) {
		return nil, invalidStreamARN()
	}
	now := e.now()
	var tables []*tableMeta
	e.rlockCatalog()
	if in.TableName != nil {
		name := *in.TableName
		if t := e.lookup(ns, name, now); t != nil {
			tables = append(tables, t)
		}
	} else {
		for name := range e.tables[ns] {
			if t := e.lookup(ns, name, now); t != nil {
				tables = append(tables, t)
			}
		}
	}
	e.mu.RUnlock()
	if in.TableName != nil && len(tables) == 0 {
		return nil, ResourceNotFoundError("Requested resource not found: Table: %s not found", *in.TableName)
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	var all []StreamSummary
	for _, t := range tables {
		if t.StreamLabel == "" {
			continue
		}
		st, err := e.openStreams(t, now)
		if err != nil {
			return nil, err
		}
		for _, s := range st.doc.Streams {
			if s.visible(now) {
				all = append(all, StreamSummary{StreamArn: streamARN(t, s.Label), TableName: t.Name, StreamLabel: s.Label})
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
	limit := maxListStreams
	if in.Limit != nil && *in.Limit < int64(limit) {
		limit = int(*in.Limit)
	}
	out := &ListStreamsOutput{Streams: all}
	if len(all) > limit {
		out.Streams = all[:limit]
		out.LastEvaluatedStreamArn = all[limit-1].StreamArn
	}
	if out.Streams == nil {
		out.Streams = []StreamSummary{}
	}
	return out, nil
}

// shardRange is a shard's SequenceNumberRange as DescribeStream shows it.
func shardRange(sh *shardMeta) SequenceNumberRange {
	r := SequenceNumberRange{StartingSequenceNumber: formatSeq(sh.Start)}
	if !sh.open() {
		r.EndingSequenceNumber = formatSeq(sh.End)
	}
	return r
}

// shardVisible reports whether sh is still described at now: a closed
// shard ages out after the retention period.
func shardVisible(sh *shardMeta, now time.Time) bool {
	return sh.open() || now.Before(sh.Closed.Add(streamRetention))
}

// DescribeStream describes a stream and its shards.
func (e *Engine) DescribeStream(ctx context.Context, ns Namespace, in *DescribeStreamInput) (*DescribeStreamOutput, error) {
	if in == nil {
		in = &DescribeStreamInput{}
	}
	var v violations
	if in.StreamArn == nil {
		v.null("streamArn")
	} else {
		v.length("streamArn", *in.StreamArn, 37, 1024)
	}
	v.min("limit", in.Limit, 1)
	if in.ExclusiveStartShardId != nil {
		v.length("exclusiveStartShardId", *in.ExclusiveStartShardId, 28, 65)
	}
	if f := in.ShardFilter; f != nil {
		// CHILD_SHARDS is the only filter and it needs the parent's ID.
		if f.Type == nil {
			v.null("shardFilter.type")
		}
		v.enum("shardFilter.type", f.Type, "CHILD_SHARDS")
		if f.ShardId == nil {
			v.null("shardFilter.shardId")
		} else {
			v.length("shardFilter.shardId", *f.ShardId, 28, 65)
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	now := e.now()
	t, st, s, err := e.resolveStream(ns, *in.StreamArn, now)
	if err != nil {
		return nil, err
	}
	defer st.mu.Unlock()
	status := "DISABLED"
	if t.StreamEnabled && t.StreamLabel == s.Label {
		status = "ENABLED"
	}
	d := StreamDescription{
		StreamArn: *in.StreamArn, StreamLabel: s.Label, StreamStatus: status, StreamViewType: s.View,
		CreationRequestDateTime: float64(s.Created.UnixMilli()) / 1000, TableName: t.Name,
	}
	for _, k := range t.KeySchema {
		d.KeySchema = append(d.KeySchema, KeySchemaElement{AttributeName: ptr(k.Name), KeyType: ptr(k.KeyType)})
	}
	var shards []StreamShard
	for _, sh := range s.Shards {
		if !shardVisible(sh, now) {
			continue
		}
		if in.ShardFilter != nil && sh.Parent != *in.ShardFilter.ShardId {
			continue
		}
		shards = append(shards, StreamShard{ShardId: sh.ID, ParentShardId: sh.Parent, SequenceNumberRange: shardRange(sh)})
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
	limit := maxDescribeShard
	if in.Limit != nil && *in.Limit < int64(limit) {
		limit = int(*in.Limit)
	}
	if len(shards) > limit {
		shards = shards[:limit]
		d.LastEvaluatedShardId = shards[limit-1].ShardId
	}
	if shards == nil {
		shards = []StreamShard{}
	}
	d.Shards = shards
	return &DescribeStreamOutput{StreamDescription: d}, nil
}

func ptr[T any](v T) *T { return &v }

// shardIterator is what an iterator string carries.
type shardIterator struct {
	Arn     string `json:"a"`
	Shard   string `json:"s"`
	Pos     uint64 `json:"p"` // next sequence number to read
	Created int64  `json:"c"` // unix milliseconds
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

func findShard(s *streamMeta, id string) *shardMeta {
	for _, sh := range s.Shards {
		if sh.ID == id {
			return sh
		}
	}
	return nil
}

// firstRecord returns the first record at or after seq (up to end, 0 for no
// bound) and its sequence number.
func (e *Engine) firstRecord(r kv.Reader, t *tableMeta, from, end uint64) (*StreamRecord, uint64, error) {
	hi := prefixEnd(streamKey(t.ID, 'r'))
	if end != 0 {
		hi = streamRecordKey(t.ID, end+1)
	}
	it, err := r.NewIter(streamRecordKey(t.ID, from), hi)
	if err != nil {
		return nil, 0, internalError(err)
	}
	defer it.Close()
	if !it.First() {
		return nil, 0, it.Error()
	}
	var rec StreamRecord
	if err := json.Unmarshal(it.Value(), &rec); err != nil {
		return nil, 0, internalError(err)
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

// trimmed reports whether rec is past the retention period at now.
func trimmed(rec *StreamRecord, now time.Time) bool {
	return rec.Dynamodb.ApproximateCreationDateTime < now.Add(-streamRetention).Unix()
}

func trimmedError() error {
	return NewError(CodeTrimmedDataAccess, "The operation attempted to read past the oldest stream record in a shard.")
}

// GetShardIterator returns an iterator positioned in a shard.
func (e *Engine) GetShardIterator(ctx context.Context, ns Namespace, in *GetShardIteratorInput) (*GetShardIteratorOutput, error) {
	if in == nil {
		in = &GetShardIteratorInput{}
	}
	var v violations
	if in.StreamArn == nil {
		v.null("streamArn")
	} else {
		v.length("streamArn", *in.StreamArn, 37, 1024)
	}
	if in.ShardIteratorType == nil {
		v.null("shardIteratorType")
	} else {
		v.enum("shardIteratorType", in.ShardIteratorType, "TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER")
	}
	if in.ShardId == nil {
		v.null("shardId")
	} else {
		v.length("shardId", *in.ShardId, 28, 65)
	}
	if in.SequenceNumber != nil {
		v.length("sequenceNumber", *in.SequenceNumber, 21, 40)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	typ := *in.ShardIteratorType
	bySeq := typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER"
	if bySeq && in.SequenceNumber == nil {
		return nil, Validation("Must specify sequence number for iterator type %s", typ)
	}
	if !bySeq && in.SequenceNumber != nil {
		return nil, Validation("Sequence number must not be specified for iterator type %s", typ)
	}
	now := e.now()
	t, st, s, err := e.resolveStream(ns, *in.StreamArn, now)
	if err != nil {
		return nil, err
	}
	defer st.mu.Unlock()
	sh := findShard(s, *in.ShardId)
	if sh == nil || !shardVisible(sh, now) {
		return nil, ResourceNotFoundError("Requested resource not found: Shard does not exist")
	}
	it := shardIterator{Arn: *in.StreamArn, Shard: sh.ID, Created: now.UnixMilli()}
	switch typ {
	case "TRIM_HORIZON":
		it.Pos = sh.Start
	case "LATEST":
		if sh.open() {
			it.Pos = st.next
		} else {
			it.Pos = sh.End + 1
		}
	default:
		seq, ok := parseSeq(*in.SequenceNumber)
		if !ok || seq < sh.Start || (!sh.open() && seq > sh.End) || (sh.open() && seq >= st.next) {
			return nil, Validation("Invalid SequenceNumber for ShardIteratorType %s: %s", typ, *in.SequenceNumber)
		}
		rec, at, err := e.firstRecord(e.opts.Store, t, seq, sh.End)
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
	return &GetShardIteratorOutput{ShardIterator: it.encode()}, nil
}

// GetRecords reads records from a shard iterator's position.
func (e *Engine) GetRecords(ctx context.Context, ns Namespace, in *GetRecordsInput) (*GetRecordsOutput, error) {
	if in == nil {
		in = &GetRecordsInput{}
	}
	var v violations
	if in.ShardIterator == nil {
		v.null("shardIterator")
	} else {
		v.length("shardIterator", *in.ShardIterator, 1, 2048)
	}
	v.min("limit", in.Limit, 1)
	v.max("limit", in.Limit, maxGetRecords)
	if err := v.err(); err != nil {
		return nil, err
	}
	pos, ok := decodeIterator(*in.ShardIterator)
	if !ok {
		return nil, Validation("Invalid ShardIterator")
	}
	now := e.now()
	if created := time.UnixMilli(pos.Created); now.Sub(created) > iteratorLifetime {
		return nil, NewError(CodeExpiredIterator, "Iterator expired. The iterator was created at time %s while right now it is %s which is further in the future than the tolerated delay of %d milliseconds.",
			javaDate(created), javaDate(now), iteratorLifetime.Milliseconds())
	}
	t, st, s, err := e.resolveStream(ns, pos.Arn, now)
	if err != nil {
		return nil, err
	}
	sh := findShard(s, pos.Shard)
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
	limit := maxGetRecords
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	out := &GetRecordsOutput{Records: []StreamRecord{}}
	hi := prefixEnd(streamKey(t.ID, 'r'))
	if !shard.open() {
		hi = streamRecordKey(t.ID, shard.End)
	}
	next := pos.Pos
	done := false
	if shard.open() || pos.Pos <= shard.End {
		it, err := e.opts.Store.NewIter(streamRecordKey(t.ID, pos.Pos), hi)
		if err != nil {
			return nil, internalError(err)
		}
		n := 0
		okIt := it.First()
		for ; okIt && n < limit; okIt = it.Next() {
			var rec StreamRecord
			if err := json.Unmarshal(it.Value(), &rec); err != nil {
				_ = it.Close()
				return nil, internalError(err)
			}
			if trimmed(&rec, now) {
				if n == 0 && next == pos.Pos && pos.Pos != shard.Start {
					_ = it.Close()
					return nil, trimmedError()
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
		done = !okIt && !shard.open()
		if err := it.Error(); err != nil {
			_ = it.Close()
			return nil, internalError(err)
		}
		_ = it.Close()
	} else {
		done = true
	}
	if !done {
		out.NextShardIterator = shardIterator{Arn: pos.Arn, Shard: pos.Shard, Pos: next, Created: now.UnixMilli()}.encode()
	}
	return out, nil
}

// javaDate formats t as Java's Date.toString does, as DynamoDB's messages show it.
func javaDate(t time.Time) string {
	return t.UTC().Format("Mon Jan 02 15:04:05 MST 2006")
}
