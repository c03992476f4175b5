package emulator

// Delivery of item changes to Kinesis Data Streams destinations, at least
// once, through a KinesisSink (package sink/kinesis; cmd wires it from
// --kinesis-endpoint). Without a sink destinations are bookkeeping only and
// nothing is queued.
//
// Keys (keys.go family 'k'):
//
//	'k' <tableID:16> <seq:8 BE> → JSON kdsEntry (stream ARN, partition key, record)
//
// A write of an item of a table whose destination delivers (any path that
// stages through writeBatch.stage: single item, batch, transaction,
// PartiQL, TTL, an applied replicated write) stages, in the batch that
// writes the item, the finished record. So a write is acknowledged only
// with its record queued, and a restart loses nothing: the deliverer sends
// whatever the store holds at New. Tables without destinations skip all
// of it (one length check in stage).
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
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
)

const (
	famKinesis = 'k'
	// kdsMaxRecords and kdsMaxBytes are PutRecords' limits (500 records,
	// 5 MiB per request).
	kdsMaxRecords = 500
	kdsMaxBytes   = 5 << 20
	// kdsMaxPause bounds the pause between retries while Kinesis refuses.
	kdsMaxPause = 2 * time.Second
)

// KinesisRecord is one record for PutRecords.
type KinesisRecord struct {
	PartitionKey string
	Data         []byte
}

// KinesisSink is a Kinesis Data Streams endpoint.
type KinesisSink interface {
	// StreamExists reports whether the stream of the ARN exists; an error
	// means Kinesis could not say.
	StreamExists(ctx context.Context, streamARN string) (bool, error)
	// PutRecords sends recs to the stream in order and reports, per
	// record, whether Kinesis accepted it; an error means none was.
	PutRecords(ctx context.Context, streamARN string, recs []KinesisRecord) ([]bool, error)
}

// kdsEntry is one queued record.
type kdsEntry struct {
	Stream string          `json:"s"`
	PK     string          `json:"p"`
	Data   json.RawMessage `json:"d"`
}

// kdsRecord is the record DynamoDB writes to Kinesis (Developer Guide,
// "Kinesis Data Streams record format"); field order as the service's.
type kdsRecord struct {
	AwsRegion    string          `json:"awsRegion"`
	Dynamodb     kdsRecordData   `json:"dynamodb"`
	EventID      string          `json:"eventID"`
	EventName    string          `json:"eventName"`
	UserIdentity *StreamIdentity `json:"userIdentity"`
	RecordFormat string          `json:"recordFormat"`
	TableName    string          `json:"tableName"`
	EventSource  string          `json:"eventSource"`
}

type kdsRecordData struct {
	ApproximateCreationDateTime int64   `json:"ApproximateCreationDateTime"`
	Keys                        av.Item `json:"Keys"`
	NewImage                    av.Item `json:"NewImage,omitempty"`
	OldImage                    av.Item `json:"OldImage,omitempty"`
	SizeBytes                   int64   `json:"SizeBytes"`
}

// kdsState is the deliverer. startKinesis initialises it.
type kdsState struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}
	seq    atomic.Uint64
}

func kinesisPrefix(id tableID) []byte { return append([]byte{famKinesis}, id[:]...) }

func (e *Engine) startKinesis() {
	if e.opts.Kinesis == nil {
		return
	}
	s := &e.kds
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wake = make(chan struct{}, 1)
	// Keys only need to grow: start above any earlier run's.
	s.seq.Store(max(uint64(time.Now().UnixNano()), e.lastKinesisSeq()))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		e.kinesisDeliverer(s.ctx)
	}()
}

func (e *Engine) stopKinesis() {
	if e.kds.cancel == nil {
		return
	}
	e.kds.cancel()
	e.kds.wg.Wait()
}

func (e *Engine) wakeKinesis() {
	select {
	case e.kds.wake <- struct{}{}:
	default:
	}
}

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

// stageKinesis queues c's record for every destination of its table that
// delivers now. The caller holds the item's stripe.
func (wb *writeBatch) stageKinesis(c *itemChange) error {
	if c.Old == nil && c.New == nil {
		return nil
	}
	t, now := c.Table, wb.e.now()
	for _, d := range t.Kinesis {
		if !d.delivers(now) {
			continue
		}
		rec, pk, ok := buildKinesisRecord(t, c, d.precision(), now)
		if !ok {
			return nil
		}
		val, err := json.Marshal(&kdsEntry{Stream: d.StreamArn, PK: pk, Data: rec})
		if err != nil {
			return internalError(err)
		}
		seq, err := wb.nextSeq(streamKey(t.ID, 'k'), &wb.e.kds.seq)
		if err != nil {
			return err
		}
		k := binary.BigEndian.AppendUint64(kinesisPrefix(t.ID), seq)
		if err := wb.b.Set(k, val); err != nil {
			return internalError(err)
		}
		wb.kinesisQueued = true
	}
	return nil
}

// buildKinesisRecord returns c's record and its Kinesis partition key, or
// false when c changes nothing. Kinesis records always carry both images.
func buildKinesisRecord(t *tableMeta, c *itemChange, precision string, now time.Time) ([]byte, string, bool) {
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
	for _, k := range t.KeySchema {
		keys[k.Name] = keySrc[k.Name]
	}
	ts := now.UnixMilli()
	if precision == precisionMicro {
		ts = now.UnixMicro()
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	rec := kdsRecord{
		AwsRegion: t.Region,
		Dynamodb: kdsRecordData{ApproximateCreationDateTime: ts, Keys: keys, NewImage: c.New, OldImage: c.Old,
			SizeBytes: int64(av.ItemSize(keys) + av.ItemSize(c.New) + av.ItemSize(c.Old))},
		EventID: formatUUID(id), EventName: name, RecordFormat: "application/json",
		TableName: t.Name, EventSource: "aws:dynamodb",
	}
	if c.ByTTL {
		rec.UserIdentity = &StreamIdentity{PrincipalId: "dynamodb.amazonaws.com", Type: "Service"}
	}
	b, err := json.Marshal(&rec)
	if err != nil {
		return nil, "", false
	}
	// All changes of one item share a partition key (so a shard), from a
	// hash of the item's partition key value.
	h := md5.Sum(av.AppendJSON(nil, keySrc[t.KeySchema[0].Name]))
	return b, strings.ToUpper(hex.EncodeToString(h[:])), true
}

func formatUUID(id [16]byte) string {
	id[6] = (id[6] & 0x0f) | 0x40
	id[8] = (id[8] & 0x3f) | 0x80
	return tableID(id).UUID()
}

// kinesisDeliverer sends the queue whenever woken, pausing between
// attempts while Kinesis refuses.
func (e *Engine) kinesisDeliverer(ctx context.Context) {
	var pause time.Duration
	for {
		err := e.deliverKinesis(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			pause = min(max(2*pause, 100*time.Millisecond), kdsMaxPause)
			e.log.Warn().Err(err).Dur("retry_in", pause).Msg("kinesis: delivering change records failed; retrying")
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
		case <-e.kds.wake:
		}
	}
}

// deliverKinesis sends every queued record once; it returns an error if
// any was not accepted (those stay queued).
func (e *Engine) deliverKinesis(ctx context.Context) error {
	lower := []byte{famKinesis}
	var failed error
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, vals, err := nextEntries(e.opts.Store, lower, []byte{famKinesis + 1}, kdsMaxRecords)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			return failed
		}
		if err := e.sendKinesis(ctx, keys, vals); err != nil {
			failed = err
		}
		if len(keys) < kdsMaxRecords {
			return failed
		}
		lower = append(keys[len(keys)-1], 0)
	}
}

// sendKinesis sends one chunk of the queue, grouped by stream in key
// order, and deletes what was accepted.
func (e *Engine) sendKinesis(ctx context.Context, keys, vals [][]byte) error {
	type batch struct {
		keys [][]byte
		recs []KinesisRecord
		size int
	}
	var order []string
	batches := map[string][]*batch{}
	drop := e.opts.Store.NewBatch()
	defer drop.Close()
	for i, k := range keys {
		var en kdsEntry
		if err := json.Unmarshal(vals[i], &en); err != nil || en.Stream == "" {
			e.log.Error().Err(err).Msg("kinesis: dropping an unreadable queued record")
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
		if len(bs) == 0 || bs[len(bs)-1].size+n > kdsMaxBytes {
			bs = append(bs, &batch{})
			batches[en.Stream] = bs
		}
		b := bs[len(bs)-1]
		b.keys = append(b.keys, k)
		b.recs = append(b.recs, KinesisRecord{PartitionKey: en.PK, Data: en.Data})
		b.size += n
	}
	var failed error
	for _, stream := range order {
		for _, b := range batches[stream] {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			ok, err := e.opts.Kinesis.PutRecords(cctx, stream, b.recs)
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
		if err := drop.Commit(e.opts.Sync); err != nil {
			return internalError(err)
		}
	}
	return failed
}
