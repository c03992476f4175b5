package emulator

// TTL expiry: a background worker that deletes items whose TTL attribute
// (a Number of epoch seconds) is in the past, through the normal delete
// path (indexes and stats updated, a REMOVE stream record marked as the
// service's). Expired items stay readable until the worker reaches them,
// as in DynamoDB.

import (
	"context"
	"errors"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
)

// DefaultTTLInterval is the TTL worker's period when Options.TTLInterval
// is zero.
const DefaultTTLInterval = 5 * time.Second

// ttlBatch bounds how many items one scan step collects before deleting
// them, so a large expiry holds no iterator or lock for long.
const ttlBatch = 100

// ttlMaxAge: DynamoDB does not delete items whose TTL is more than five
// years in the past.
const ttlMaxAge = 5 * 365 * 24 * time.Hour

// ttlState is the worker's state; its zero value is a stopped worker.
type ttlState struct {
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
}

// errNotExpired aborts a TTL delete whose item changed under it.
var errNotExpired = errors.New("emulator: item no longer expired")

func (e *Engine) startTTL() {
	every := e.opts.TTLInterval
	if every == 0 {
		every = DefaultTTLInterval
	}
	if every < 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.ttl.cancel, e.ttl.done = cancel, make(chan struct{})
	go func() {
		defer close(e.ttl.done)
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
				if _, err := e.ExpireTTL(ctx); err != nil && ctx.Err() == nil {
					e.log.Warn().Err(err).Msg("ttl expiry pass failed")
				}
				if err := e.trimStreams(e.now()); err != nil {
					e.log.Warn().Err(err).Msg("stream trim failed")
				}
			}
		}
	}()
}

func (e *Engine) stopTTL() {
	e.ttl.stopOnce.Do(func() {
		if e.ttl.cancel != nil {
			e.ttl.cancel()
			<-e.ttl.done
		}
	})
}

// ExpireTTL runs one expiry pass over every table with TTL enabled, at the
// engine clock's now, and returns how many items it deleted. The worker
// calls it every TTLInterval; tests call it directly.
func (e *Engine) ExpireTTL(ctx context.Context) (int, error) {
	now := e.now()
	var tables []*tableMeta
	e.rlockCatalog()
	for _, m := range e.tables {
		for _, t := range m {
			if t.TTLEnabled && !t.gone(now) && !t.Deleting {
				tables = append(tables, t)
			}
		}
	}
	e.mu.RUnlock()
	sort.Slice(tables, func(i, j int) bool { return tables[i].ARN() < tables[j].ARN() })
	n := 0
	for _, t := range tables {
		k, err := e.expireTable(ctx, t, now)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ttlExpired reports whether item's TTL attribute attr is a Number of epoch
// seconds in the past (and not more than five years so).
func ttlExpired(item av.Item, attr string, now time.Time) bool {
	v, ok := item[attr]
	if !ok || v.Type != av.TypeN {
		return false
	}
	f, _, err := big.ParseFloat(v.S, 10, 128, big.ToNearestEven)
	if err != nil {
		return false
	}
	return f.Cmp(big.NewFloat(float64(now.Unix()))) < 0 &&
		f.Cmp(big.NewFloat(float64(now.Add(-ttlMaxAge).Unix()))) >= 0
}

func (e *Engine) expireTable(ctx context.Context, t *tableMeta, now time.Time) (int, error) {
	p := itemPrefix(t.ID)
	from, end := p, prefixEnd(p)
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		keys, next, err := e.collectExpired(t, from, end, now)
		if err != nil {
			return n, err
		}
		for _, k := range keys {
			ok, err := e.ttlDelete(ctx, t, k, now)
			if err != nil {
				if errors.Is(err, errResourceGone) {
					return n, nil
				}
				return n, err
			}
			if ok {
				n++
			}
		}
		if next == nil {
			return n, nil
		}
		from = next
	}
}

// collectExpired returns up to ttlBatch keys of expired items in [from,
// end) and the key to resume from (nil at the end).
func (e *Engine) collectExpired(t *tableMeta, from, end []byte, now time.Time) ([][]byte, []byte, error) {
	it, err := e.opts.Store.NewIter(from, end)
	if err != nil {
		return nil, nil, internalError(err)
	}
	defer it.Close()
	var keys [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		if len(keys) == ttlBatch {
			return keys, append([]byte(nil), it.Key()...), nil
		}
		item, err := av.DecodeItem(it.Value())
		if err != nil {
			return nil, nil, internalError(err)
		}
		if ttlExpired(item, t.TTLAttr, now) {
			keys = append(keys, append([]byte(nil), it.Key()...))
		}
	}
	return keys, nil, it.Error()
}

// errResourceGone stops a pass over a table deleted meanwhile.
var errResourceGone = errors.New("emulator: table gone")

// ttlDelete deletes the item at key if it is still expired, under its
// stripe, through prepare/stage/commit like DeleteItem; TTL deletes
// consume no capacity and are never throttled.
func (e *Engine) ttlDelete(ctx context.Context, t *tableMeta, key []byte, now time.Time) (bool, error) {
	stripe, err := e.lockForWrite(key)
	if err != nil {
		return false, nil // a transaction holds it: next pass
	}
	defer e.items.locks.unlockOne(stripe)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	err = e.update(false, func(wb *writeBatch) error {
		cur, err := e.currentIn(wb.r, t)
		if err != nil || !cur.TTLEnabled {
			return errResourceGone
		}
		if len(cur.replicas(now)) > 0 {
			// One member expires an item, the one that wrote it last,
			// and the delete replicates: the other Regions' stream
			// records carry no TTL identity (control-plane-facts §1.5).
			v, err := readVersion(wb.r, key)
			if err != nil {
				return err
			}
			if v.region != "" && v.region != cur.Region {
				return errNotExpired
			}
		}
		attr := cur.TTLAttr
		pw, err := e.prepare(wb.r, &writeSpec{t: cur, key: key, build: func(old av.Item) (av.Item, error) {
			if old == nil || !ttlExpired(old, attr, now) {
				return nil, errNotExpired
			}
			return nil, nil
		}})
		if err != nil {
			return err
		}
		pw.change.ByTTL = true
		return wb.stage(pw)
	})
	switch {
	case errors.Is(err, errNotExpired):
		return false, nil
	case errors.Is(err, errResourceGone):
		return false, err
	case err != nil:
		return false, writeError(err)
	}
	return true, nil
}
