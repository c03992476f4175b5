package kinesis

// Delivery of item changes to Kinesis Data Streams destinations, at least
// once, through a Sink (package sink/kinesis; cmd wires it from
// --kinesis-endpoint). Without a sink destinations are bookkeeping only and
// nothing is queued.
//
// Queue entries are JSON entry values (stream ARN, partition key, record)
// under keys the engine gives (its keyspace's family 'k': the table's ID,
// then the number the engine takes from Deliverer.Seq's counter), all in
// Queue.Span.
//
// A write of an item of a table whose destination delivers (any path that
// stages through the engine's write batch: single item, batch,
// transaction, PartiQL, TTL, an applied replicated write) stages, in the
// batch that writes the item, the finished record (Stage). So a write is
// acknowledged only with its record queued, and a restart loses nothing:
// the deliverer sends whatever the store holds at start. Tables without
// destinations skip all of it (the engine's check before Stage).
//
// The deliverer sends queued records with PutRecords in key order (so in
// write order per table), deletes what Kinesis accepted and retries the
// rest with a growing pause while the endpoint is down or the stream is
// missing. Records can therefore repeat, as DynamoDB warns they can. The
// queue outlives DeleteTable: what was acknowledged before is still sent.

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

const (
	// maxRecords and maxBytes are PutRecords' limits (500 records,
	// 5 MiB per request).
	maxRecords = 500
	maxBytes   = 5 << 20
	// maxPause bounds the pause between retries while Kinesis refuses.
	maxPause = 2 * time.Second
)

// Record is one record for PutRecords.
type Record struct {
	PartitionKey string
	Data         []byte
}

// Sink is a Kinesis Data Streams endpoint.
type Sink interface {
	// StreamExists reports whether the stream of the ARN exists; an error
	// means Kinesis could not say.
	StreamExists(ctx context.Context, streamARN string) (bool, error)
	// PutRecords sends recs to the stream in order and reports, per
	// record, whether Kinesis accepted it; an error means none was.
	PutRecords(ctx context.Context, streamARN string, recs []Record) ([]bool, error)
}

// Queue is what the deliverer uses of the engine: the store holding the
// queue, the key range of the queue, the sink, the log and the engine's
// answer to an unexpected store failure.
type Queue interface {
	// Store is the engine's store.
	Store() kv.Store
	// Sync is whether the store's commits fsync.
	Sync() bool
	// Span is the key range [lo, hi) of every queued entry.
	Span() (lo, hi []byte)
	// LastSeq is the highest number of a queued entry (0 if none).
	LastSeq() uint64
	// Entries returns up to n keys and values of the store in
	// [lower, upper), copied.
	Entries(lower, upper []byte, n int) (keys, vals [][]byte, err error)
	// Sink is the Kinesis endpoint, nil when none is configured.
	Sink() Sink
	// Log is the engine's logger.
	Log() *zerolog.Logger
	// InternalError is the engine's answer to an unexpected store
	// failure.
	InternalError(err error) error
}

// entry is one queued record.
type entry struct {
	Stream string          `json:"s"`
	PK     string          `json:"p"`
	Data   json.RawMessage `json:"d"`
}

// record is the record DynamoDB writes to Kinesis (Developer Guide,
// "Kinesis Data Streams record format"); field order as the service's.
type record struct {
	AwsRegion    string              `json:"awsRegion"`
	Dynamodb     recordData          `json:"dynamodb"`
	EventID      string              `json:"eventID"`
	EventName    string              `json:"eventName"`
	UserIdentity *api.StreamIdentity `json:"userIdentity"`
	RecordFormat string              `json:"recordFormat"`
	TableName    string              `json:"tableName"`
	EventSource  string              `json:"eventSource"`
}

type recordData struct {
	ApproximateCreationDateTime int64   `json:"ApproximateCreationDateTime"`
	Keys                        av.Item `json:"Keys"`
	NewImage                    av.Item `json:"NewImage,omitempty"`
	OldImage                    av.Item `json:"OldImage,omitempty"`
	SizeBytes                   int64   `json:"SizeBytes"`
}

// Source is what a record names of its table.
type Source struct {
	ID           [16]byte
	Name, Region string
	// Hash and Range are the key attributes (Range "" for a hash-only
	// table).
	Hash, Range  string
	Destinations Destinations
}

// Change is one item change.
type Change struct {
	Old, New av.Item
	// ByTTL marks a TTL delete: the record names the service as deleter.
	ByTTL bool
}

// Batch is where Stage queues entries: the write's own store batch.
type Batch interface {
	// Enqueue stages val as the next entry of table id's queue.
	Enqueue(id [16]byte, val []byte) error
	// InternalError is the engine's answer to an unexpected failure.
	InternalError(err error) error
}

// Stage queues c's record in b for every destination of t that delivers
// at now. The caller holds the item's stripe.
func Stage(b Batch, t *Source, c *Change, now time.Time) error {
	if c.Old == nil && c.New == nil {
		return nil
	}
	for _, d := range t.Destinations {
		if !d.delivers(now) {
			continue
		}
		rec, pk, ok := buildRecord(t, c, d.precision(), now)
		if !ok {
			return nil
		}
		val, err := json.Marshal(&entry{Stream: d.StreamArn, PK: pk, Data: rec})
		if err != nil {
			return b.InternalError(err)
		}
		if err := b.Enqueue(t.ID, val); err != nil {
			return err
		}
	}
	return nil
}

// buildRecord returns c's record and its Kinesis partition key, or false
// when c changes nothing. Kinesis records always carry both images.
func buildRecord(t *Source, c *Change, precision string, now time.Time) ([]byte, string, bool) {
	var name string
	keySrc := c.New
	switch {
	case c.Old == nil:
		name = "INSERT"
	case c.New == nil:
		name, keySrc = "REMOVE", c.Old
	default:
		if av.EqualItems(c.Old, c.New) {
			return nil, "", false
		}
		name = "MODIFY"
	}
	keys := make(av.Item, 2)
	keys[t.Hash] = keySrc[t.Hash]
	if t.Range != "" {
		keys[t.Range] = keySrc[t.Range]
	}
	ts := now.UnixMilli()
	if precision == PrecisionMicro {
		ts = now.UnixMicro()
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	rec := record{
		AwsRegion: t.Region,
		Dynamodb: recordData{ApproximateCreationDateTime: ts, Keys: keys, NewImage: c.New, OldImage: c.Old,
			SizeBytes: int64(av.ItemSize(keys) + av.ItemSize(c.New) + av.ItemSize(c.Old))},
		EventID: formatUUID(id), EventName: name, RecordFormat: "application/json",
		TableName: t.Name, EventSource: "aws:dynamodb",
	}
	if c.ByTTL {
		rec.UserIdentity = &api.StreamIdentity{PrincipalId: "dynamodb.amazonaws.com", Type: "Service"}
	}
	b, err := json.Marshal(&rec)
	if err != nil {
		return nil, "", false
	}
	// All changes of one item share a partition key (so a shard), from a
	// hash of the item's partition key value.
	h := md5.Sum(av.AppendJSON(nil, keySrc[t.Hash]))
	return b, strings.ToUpper(hex.EncodeToString(h[:])), true
}

func formatUUID(id [16]byte) string {
	id[6] = (id[6] & 0x0f) | 0x40
	id[8] = (id[8] & 0x3f) | 0x80
	return api.UUIDString(id)
}

// Deliverer sends the queue to the sink in the background; Start starts
// it. Its zero value is ready (and idle).
type Deliverer struct {
	loop jobs.Group // the delivery loop, while started
	wake chan struct{}
	seq  atomic.Uint64
}

// Seq is the process's counter of queue numbers (see the engine's
// nextSeq): set at start-up past the clock and every queued entry.
func (d *Deliverer) Seq() *atomic.Uint64 { return &d.seq }

// Start sets the queue's counter and starts the delivery loop, when q has
// a sink.
func (d *Deliverer) Start(q Queue) {
	if q.Sink() == nil {
		return
	}
	d.loop.Restart()
	d.wake = make(chan struct{}, 1)
	// Keys only need to grow: start above any earlier run's.
	d.seq.Store(max(uint64(time.Now().UnixNano()), q.LastSeq()))
	d.loop.Go(func(ctx context.Context) { d.deliverLoop(ctx, q) })
}

// Stop stops the delivery loop Start started and waits for it.
func (d *Deliverer) Stop() { d.loop.Stop() }

// Wake makes a running loop send the queue (a write queued records).
func (d *Deliverer) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// deliverLoop sends the queue whenever woken, pausing between attempts
// while Kinesis refuses.
func (d *Deliverer) deliverLoop(ctx context.Context, q Queue) {
	var pause time.Duration
	for {
		err := deliver(ctx, q)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			pause = min(max(2*pause, 100*time.Millisecond), maxPause)
			q.Log().Warn().Err(err).Dur("retry_in", pause).Msg("kinesis: delivering change records failed; retrying")
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		pause = 0
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
	}
}

// deliver sends every queued record once; it returns an error if any was
// not accepted (those stay queued).
func deliver(ctx context.Context, q Queue) error {
	lower, upper := q.Span()
	var failed error
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, vals, err := q.Entries(lower, upper, maxRecords)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			return failed
		}
		if err := send(ctx, q, keys, vals); err != nil {
			failed = err
		}
		if len(keys) < maxRecords {
			return failed
		}
		lower = append(keys[len(keys)-1], 0)
	}
}

// send sends one chunk of the queue, grouped by stream in key order, and
// deletes what was accepted.
func send(ctx context.Context, q Queue, keys, vals [][]byte) error {
	type batch struct {
		keys [][]byte
		recs []Record
		size int
	}
	var order []string
	batches := map[string][]*batch{}
	drop := q.Store().NewBatch()
	defer drop.Close()
	for i, k := range keys {
		var en entry
		if err := json.Unmarshal(vals[i], &en); err != nil || en.Stream == "" {
			q.Log().Error().Err(err).Msg("kinesis: dropping an unreadable queued record")
			if err := drop.Delete(k); err != nil {
				return err
			}
			continue
		}
		bs := batches[en.Stream]
		if bs == nil {
			order = append(order, en.Stream)
		}
		n := len(en.Data) + len(en.PK)
		if len(bs) == 0 || bs[len(bs)-1].size+n > maxBytes {
			bs = append(bs, &batch{})
			batches[en.Stream] = bs
		}
		b := bs[len(bs)-1]
		b.keys = append(b.keys, k)
		b.recs = append(b.recs, Record{PartitionKey: en.PK, Data: en.Data})
		b.size += n
	}
	var failed error
	for _, stream := range order {
		for _, b := range batches[stream] {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			ok, err := q.Sink().PutRecords(cctx, stream, b.recs)
			cancel()
			if err != nil {
				failed = fmt.Errorf("stream %s: %w", stream, err)
				continue
			}
			refused := 0
			for i, k := range b.keys {
				if i < len(ok) && ok[i] {
					if err := drop.Delete(k); err != nil {
						return err
					}
				} else {
					refused++
				}
			}
			if refused > 0 {
				failed = fmt.Errorf("stream %s: %d of %d records not accepted", stream, refused, len(b.keys))
			}
		}
	}
	if !drop.Empty() {
		if err := drop.Commit(q.Sync()); err != nil {
			return q.InternalError(err)
		}
	}
	return failed
}
