package emulator

// Kinesis Data Streams streaming destinations are emulator/internal/kinesis.
// The engine checks the four operations' request shapes, implements the
// package's Core with kinesisCore (the table lookups under the catalog's
// locks, the queue's keys), and kinesisDerivation hands each write's
// change to kinesis.Stage.
//
// Queue keys (keyspace/keys.go family 'k'):
//
//	'k' <tableID:16> <seq:8 BE> → JSON queue entry (stream ARN, partition key, record)

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/kinesis"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

const famKinesis = 'k'

// KinesisRecord is one record for PutRecords.
type KinesisRecord = kinesis.Record

// KinesisSink is a Kinesis Data Streams endpoint.
type KinesisSink = kinesis.Sink

func kinesisPrefix(id keyspace.TableID) []byte { return append([]byte{famKinesis}, id[:]...) }

// kinesisShape checks the members common to the four operations, in the
// model's order.
func kinesisShape(v *shape.Violations, table, stream *string, streamRequired bool) {
	v.TableRef("tableName", table)
	if stream == nil {
		if streamRequired {
			v.Null("streamArn")
		}
		return
	}
	v.Length("streamArn", *stream, 37, 1024)
}

func precisionEnum(v *shape.Violations, path string, p *string) {
	v.Enum(path, p, kinesis.PrecisionMilli, kinesis.PrecisionMicro)
}

// destinationShape is the shape check Enable and Disable share: they take
// the same input.
func destinationShape(in *api.KinesisStreamingDestinationInput) error {
	var v shape.Violations
	kinesisShape(&v, in.TableName, in.StreamArn, true)
	if c := in.EnableKinesisStreamingConfiguration; c != nil {
		precisionEnum(&v, "enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision", c.ApproximateCreationDateTimePrecision)
	}
	return v.Err()
}

// EnableKinesisStreamingDestination starts streaming a table's item changes
// to a Kinesis data stream.
func (e *Engine) EnableKinesisStreamingDestination(ctx context.Context, ns api.Namespace, in *api.KinesisStreamingDestinationInput) (*api.KinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &api.KinesisStreamingDestinationInput{}
	}
	if err := destinationShape(in); err != nil {
		return nil, err
	}
	return kinesis.Enable(ctx, (*kinesisCore)(e), ns, in)
}

// DisableKinesisStreamingDestination stops streaming to a destination; it
// stays listed as DISABLED.
func (e *Engine) DisableKinesisStreamingDestination(ctx context.Context, ns api.Namespace, in *api.KinesisStreamingDestinationInput) (*api.KinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &api.KinesisStreamingDestinationInput{}
	}
	if err := destinationShape(in); err != nil {
		return nil, err
	}
	return kinesis.Disable((*kinesisCore)(e), ns, in)
}

// UpdateKinesisStreamingDestination changes the timestamp precision of an
// active destination.
func (e *Engine) UpdateKinesisStreamingDestination(ctx context.Context, ns api.Namespace, in *api.UpdateKinesisStreamingDestinationInput) (*api.UpdateKinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &api.UpdateKinesisStreamingDestinationInput{}
	}
	var v shape.Violations
	kinesisShape(&v, in.TableName, in.StreamArn, true)
	if cfg := in.UpdateKinesisStreamingConfiguration; cfg != nil {
		precisionEnum(&v, "updateKinesisStreamingConfiguration.approximateCreationDateTimePrecision", cfg.ApproximateCreationDateTimePrecision)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return kinesis.Update((*kinesisCore)(e), ns, in)
}

// DescribeKinesisStreamingDestination lists a table's destinations.
func (e *Engine) DescribeKinesisStreamingDestination(ctx context.Context, ns api.Namespace, in *api.DescribeKinesisStreamingDestinationInput) (*api.DescribeKinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &api.DescribeKinesisStreamingDestinationInput{}
	}
	var v shape.Violations
	kinesisShape(&v, in.TableName, nil, false)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return kinesis.Describe((*kinesisCore)(e), ns, in)
}

// kinesisTable resolves TableName and looks the table up under e.mu.
func (e *Engine) kinesisTable(ns api.Namespace, name string, now time.Time) (*tableMeta, error) {
	if err := shape.CheckBareName(name); err != nil {
		return nil, err
	}
	tns, n, err := resolveName(ns, name)
	if err != nil {
		return nil, err
	}
	t := e.lookup(tns, n, now)
	if t == nil {
		return nil, api.TableNotFound(n)
	}
	return t, nil
}

// kinesisView is what the kinesis package reads of t, with t's
// destinations.
func kinesisView(t *tableMeta, now time.Time) *kinesis.Table {
	kt := &kinesis.Table{
		ID: t.ID, Name: t.Name, ARN: t.ARN(), Account: t.Account, Region: t.Region,
		Partition: t.ns().Partition(), Destinations: &t.Kinesis,
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		kt.InUse = inUse(t, s)
	}
	return kt
}

func (e *Engine) startKinesis() { e.kds.Start((*kinesisCore)(e)) }
func (e *Engine) stopKinesis()  { e.kds.Stop() }
func (e *Engine) wakeKinesis()  { e.kds.Wake() }

// lastKinesisSeq returns the highest queued sequence number (0 if none).
func (e *Engine) lastKinesisSeq() uint64 {
	it, err := e.opts.Store.NewIter([]byte{famKinesis}, []byte{famKinesis + 1})
	if err != nil {
		return 0
	}
	defer it.Close()
	var last uint64
	for ok := it.First(); ok; ok = it.Next() {
		if k := it.Key(); len(k) == 1+16+8 {
			last = max(last, binary.BigEndian.Uint64(k[17:]))
		}
	}
	return last
}

// kinesisCore is the engine as the streaming destinations use it
// (kinesis.Core).
type kinesisCore Engine

func (c *kinesisCore) Now() time.Time                 { return (*Engine)(c).now() }
func (c *kinesisCore) TransitionDelay() time.Duration { return c.opts.TransitionDelay }
func (c *kinesisCore) Store() kv.Store                { return c.opts.Store }
func (c *kinesisCore) Sync() bool                     { return c.opts.Sync }
func (c *kinesisCore) Span() (lo, hi []byte)          { return []byte{famKinesis}, []byte{famKinesis + 1} }
func (c *kinesisCore) Sink() kinesis.Sink             { return c.opts.Kinesis }
func (c *kinesisCore) Log() *zerolog.Logger           { return &c.log }
func (c *kinesisCore) InternalError(err error) error  { return internalError(err) }
func (c *kinesisCore) LastSeq() uint64                { return (*Engine)(c).lastKinesisSeq() }

func (c *kinesisCore) Entries(lower, upper []byte, n int) ([][]byte, [][]byte, error) {
	return nextEntries(c.opts.Store, lower, upper, n)
}

func (c *kinesisCore) View(ns api.Namespace, name string, fn func(t *kinesis.Table, now time.Time) error) error {
	e := (*Engine)(c)
	e.rlockCatalog()
	defer e.mu.RUnlock()
	now := e.now()
	t, err := e.kinesisTable(ns, name, now)
	if err != nil {
		return err
	}
	return fn(kinesisView(t, now), now)
}

func (c *kinesisCore) Change(ns api.Namespace, name string, fn func(t *kinesis.Table, now time.Time) error) error {
	e := (*Engine)(c)
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	t, err := e.kinesisTable(ns, name, now)
	if err != nil {
		return err
	}
	nt := t.clone()
	if err := fn(kinesisView(nt, now), now); err != nil {
		return err
	}
	if err := e.saveTable(nt); err != nil {
		return internalError(err)
	}
	return nil
}

// kinesisDerivation queues a write's records for the table's Kinesis
// destinations (kinesis.Stage), when the engine has a Kinesis client. A
// new replica's seeding copies (itemChange.quiet) have none.
type kinesisDerivation struct{ perItem }

// committed wakes the deliverer when the batch queued Kinesis records.
func (kinesisDerivation) committed(wb *writeBatch) {
	if wb.queued&kinesisQueuedBit != 0 {
		wb.e.wakeKinesis()
	}
}

func (kinesisDerivation) wants(e *Engine, t *tableMeta) bool {
	return len(t.Kinesis) > 0 && e.opts.Kinesis != nil
}

func (kinesisDerivation) oldImage() bool { return true }

func (kinesisDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	c := &pw.change
	if c.quiet {
		return nil
	}
	t := c.Table
	src := kinesis.Source{ID: t.ID, Name: t.Name, Region: t.Region, Destinations: t.Kinesis}
	src.Hash, src.Range = t.KeySchema[0].Name, ""
	if len(t.KeySchema) > 1 {
		src.Range = t.KeySchema[1].Name
	}
	return kinesis.Stage((*kinesisBatch)(wb), &src, &kinesis.Change{Old: c.Old, New: c.New, ByTTL: c.ByTTL}, wb.e.now())
}

// kinesisBatch is a write batch as kinesis.Stage queues into it.
type kinesisBatch writeBatch

// Enqueue stages val under the next number of table id's queue.
func (b *kinesisBatch) Enqueue(id [16]byte, val []byte) error {
	wb := (*writeBatch)(b)
	seq, err := wb.nextSeq(streamKey(id, 'k'), wb.e.kds.Seq())
	if err != nil {
		return err
	}
	k := binary.BigEndian.AppendUint64(kinesisPrefix(id), seq)
	if err := wb.b.Set(k, val); err != nil {
		return internalError(err)
	}
	wb.queued |= kinesisQueuedBit
	return nil
}

func (b *kinesisBatch) InternalError(err error) error { return internalError(err) }
