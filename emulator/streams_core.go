package emulator

// DynamoDB Streams is emulator/internal/streams. The engine checks the
// Streams API's request shapes, resolves stream ARNs, and implements the
// package's Core with streamsCore; streamDerivation hands the write
// pipeline's changes to it once per batch.

import (
	"context"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/streams"
	"github.com/extenddb/extenddb/kv"
)

// streamKey is the key of table id's stream key of the given kind: the
// streams package's ('c', 'm', 'r') and the queue counters of replication
// ('o') and Kinesis ('k') on a shared store.
func streamKey(id keyspace.TableID, kind byte) []byte {
	return append(keyspace.StreamPrefix(id), kind)
}

func streamNotFound(arn string) error { return streams.NotFound(arn) }

// invalidStreamARN is the service's answer to a stream ARN that does not
// parse (one that parses but names no stream is ResourceNotFound).
func invalidStreamARN() error { return api.Validation("Invalid StreamArn") }

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
	return ok && shape.ValidName(name) && label != "" && !strings.Contains(label, "/")
}

// parseStreamARN splits a stream ARN of ns into table name and label.
func parseStreamARN(ns api.Namespace, arn string) (name, label string, ok bool) {
	rest, ok := strings.CutPrefix(arn, ns.TableARN(""))
	if !ok {
		return "", "", false
	}
	name, label, ok = strings.Cut(rest, "/stream/")
	return name, label, ok && name != "" && label != ""
}

// ListStreams lists the streams of one table or of every table in ns.
func (e *Engine) ListStreams(ctx context.Context, ns api.Namespace, in *api.ListStreamsInput) (*api.ListStreamsOutput, error) {
	if in == nil {
		in = &api.ListStreamsInput{}
	}
	var v shape.Violations
	v.Min("limit", in.Limit, 1)
	v.Max("limit", in.Limit, streams.MaxListStreams)
	if in.TableName != nil {
		v.Length("tableName", *in.TableName, 3, 255)
	}
	if in.ExclusiveStartStreamArn != nil {
		v.Length("exclusiveStartStreamArn", *in.ExclusiveStartStreamArn, 37, 1024)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if in.ExclusiveStartStreamArn != nil && !wellFormedStreamARN(*in.ExclusiveStartStreamArn) {
		return nil, invalidStreamARN()
	}
	return e.streams.ListStreams((*streamsCore)(e), ns, in)
}

// DescribeStream describes a stream and its shards.
func (e *Engine) DescribeStream(ctx context.Context, ns api.Namespace, in *api.DescribeStreamInput) (*api.DescribeStreamOutput, error) {
	if in == nil {
		in = &api.DescribeStreamInput{}
	}
	var v shape.Violations
	if in.StreamArn == nil {
		v.Null("streamArn")
	} else {
		v.Length("streamArn", *in.StreamArn, 37, 1024)
	}
	v.Min("limit", in.Limit, 1)
	if in.ExclusiveStartShardId != nil {
		v.Length("exclusiveStartShardId", *in.ExclusiveStartShardId, 28, 65)
	}
	if f := in.ShardFilter; f != nil {
		// CHILD_SHARDS is the only filter and it needs the parent's ID.
		if f.Type == nil {
			v.Null("shardFilter.type")
		}
		v.Enum("shardFilter.type", f.Type, "CHILD_SHARDS")
		if f.ShardId == nil {
			v.Null("shardFilter.shardId")
		} else {
			v.Length("shardFilter.shardId", *f.ShardId, 28, 65)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.streams.DescribeStream((*streamsCore)(e), ns, in)
}

// GetShardIterator returns an iterator positioned in a shard.
func (e *Engine) GetShardIterator(ctx context.Context, ns api.Namespace, in *api.GetShardIteratorInput) (*api.GetShardIteratorOutput, error) {
	if in == nil {
		in = &api.GetShardIteratorInput{}
	}
	var v shape.Violations
	if in.StreamArn == nil {
		v.Null("streamArn")
	} else {
		v.Length("streamArn", *in.StreamArn, 37, 1024)
	}
	if in.ShardIteratorType == nil {
		v.Null("shardIteratorType")
	} else {
		v.Enum("shardIteratorType", in.ShardIteratorType, "TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER", "AT_TIMESTAMP")
	}
	if in.ShardId == nil {
		v.Null("shardId")
	} else {
		v.Length("shardId", *in.ShardId, 28, 65)
	}
	if in.SequenceNumber != nil {
		v.Length("sequenceNumber", *in.SequenceNumber, 21, 40)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.streams.GetShardIterator((*streamsCore)(e), ns, in)
}

// GetRecords reads records from a shard iterator's position.
func (e *Engine) GetRecords(ctx context.Context, ns api.Namespace, in *api.GetRecordsInput) (*api.GetRecordsOutput, error) {
	if in == nil {
		in = &api.GetRecordsInput{}
	}
	var v shape.Violations
	if in.ShardIterator == nil {
		v.Null("shardIterator")
	} else {
		v.Length("shardIterator", *in.ShardIterator, 1, 2048)
	}
	v.Min("limit", in.Limit, 1)
	v.Max("limit", in.Limit, streams.MaxGetRecords)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.streams.GetRecords((*streamsCore)(e), ns, in)
}

// checkStream reports whether arn names a listed stream of ns (nil) or
// why not, as DescribeStream answers.
func (e *Engine) checkStream(ns api.Namespace, arn string, now time.Time) error {
	return e.streams.Check((*streamsCore)(e), ns, arn, now)
}

// DefaultStreamTrimInterval is the period of the stream trim worker.
const DefaultStreamTrimInterval = time.Minute

// trimStreams deletes the stream records older than the retention period
// (streams.State.Trim).
func (e *Engine) trimStreams(now time.Time) error {
	return e.streams.Trim((*streamsCore)(e), now)
}

// streamTrimPass is one pass of the stream trim worker (registered in
// New), which runs whether TTL's worker does or not: records past the
// retention leave the store even with TTL off.
func (e *Engine) streamTrimPass(ctx context.Context) {
	if err := e.trimStreams(e.now()); err != nil && ctx.Err() == nil {
		e.log.Warn().Err(err).Msg("stream trim failed")
	}
}

// streamsTable is what the streams package reads of t: the view cacheTable
// built, or a new one for a table not (yet) cached.
func streamsTable(t *tableMeta) *streams.Table {
	if t.streamsView != nil {
		return t.streamsView
	}
	return newStreamsTable(t)
}

func newStreamsTable(t *tableMeta) *streams.Table {
	st := &streams.Table{ID: t.ID, Name: t.Name, Region: t.Region, ARN: t.ARN(), Spec: t.Spec, Key: make([]streams.KeyElem, len(t.KeySchema))}
	for i, k := range t.KeySchema {
		st.Key[i] = streams.KeyElem{Name: k.Name, KeyType: k.KeyType}
	}
	return st
}

// streamsCore is the engine as DynamoDB Streams uses it (streams.Core).
type streamsCore Engine

func (c *streamsCore) Now() time.Time  { return (*Engine)(c).now() }
func (c *streamsCore) Store() kv.Store { return c.opts.Store }
func (c *streamsCore) Sync() bool      { return c.opts.Sync }
func (c *streamsCore) Shared() bool    { return (*Engine)(c).shared() }

func (c *streamsCore) ShardRollover() time.Duration {
	if c.opts.StreamShardRollover > 0 {
		return c.opts.StreamShardRollover
	}
	return streams.DefaultShardRollover
}

func (c *streamsCore) Prefix(id [16]byte) []byte     { return keyspace.StreamPrefix(id) }
func (c *streamsCore) InternalError(err error) error { return internalError(err) }
func (c *streamsCore) WriteError(err error) error    { return writeError(err) }

func (c *streamsCore) Table(ns api.Namespace, name string, now time.Time) *streams.Table {
	e := (*Engine)(c)
	e.rlockCatalog()
	t := e.lookup(ns, name, now)
	e.mu.RUnlock()
	if t == nil {
		return nil
	}
	return streamsTable(t)
}

func (c *streamsCore) Tables(ns api.Namespace, now time.Time) []*streams.Table {
	e := (*Engine)(c)
	var ts []*tableMeta
	e.rlockCatalog()
	for name := range e.tables[ns] {
		if t := e.lookup(ns, name, now); t != nil {
			ts = append(ts, t)
		}
	}
	e.mu.RUnlock()
	out := make([]*streams.Table, len(ts))
	for i, t := range ts {
		out[i] = streamsTable(t)
	}
	return out
}

func (c *streamsCore) StreamTable(ns api.Namespace, arn string, now time.Time) (*streams.Table, string, error) {
	if !wellFormedStreamARN(arn) {
		return nil, "", invalidStreamARN()
	}
	// Another account's stream ARN resolves in that account, as a table
	// ARN does (cross-account access through resource policies).
	if a, err := parseARN(arn); err == nil && a.account != ns.Account && a.region == ns.Region && a.partition == ns.Partition() {
		ns = api.Namespace{Account: a.account, Region: a.region}
	}
	name, label, ok := parseStreamARN(ns, arn)
	if !ok {
		return nil, "", streamNotFound(arn)
	}
	t := c.Table(ns, name, now)
	if t == nil {
		return nil, "", streamNotFound(arn)
	}
	return t, label, nil
}

// streamDerivation feeds DynamoDB Streams: per write, it notes the change
// (a legacy global table's write twice: the write as made, then the update
// adding its aws:rep:* attributes, as DynamoDB's streams showed them); per
// batch, it hands the changes noted to the streams package, which stages
// their records (streams.State.Stage), leaving out a new replica's seeding
// copies (itemChange.quiet) and naming the service as a TTL delete's
// deleter (itemChange.ByTTL).
type streamDerivation struct{}

func (streamDerivation) committed(*writeBatch) {}

// wants is every table that has or had a stream (oldImageNeeded's test
// before the change feed): Stage records the changes of a table with a
// stream and syncs the shards of one whose stream was disabled.
func (streamDerivation) wants(_ *Engine, t *tableMeta) bool {
	return t.StreamEnabled || t.StreamLabel != ""
}

func (streamDerivation) oldImage() bool { return true }

func (streamDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	c := &pw.change
	// The view is the cached table's own (streamsTable), and wb.changes a
	// pooled slice: noting a change allocates nothing.
	sc := streams.Change{Table: streamsTable(c.Table), Old: c.Old, New: c.New, ByTTL: c.ByTTL, Quiet: c.quiet}
	if u := c.unstamped; u != nil {
		write, stamp := sc, sc
		write.New = u
		stamp.Old = u
		wb.changes = append(wb.changes, write, stamp)
		return nil
	}
	wb.changes = append(wb.changes, sc)
	return nil
}

// finish stages the stream records of the changes noted, in the batch;
// the stream tables stay locked until it has committed (wb.release).
func (streamDerivation) finish(wb *writeBatch) error {
	if len(wb.changes) == 0 {
		wb.release = func() {}
		return nil
	}
	release, err := wb.e.streams.Stage((*streamsCore)(wb.e), wb.r, wb.b, wb.changes)
	wb.release = release
	return err
}
