package pgstore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/extenddb/extenddb/kv"
	"github.com/jackc/pgx/v5"
)

type opKind uint8

const (
	opSet opKind = iota
	opDelete
	opDeleteRange
)

// op is one buffered write; its slices are the batch's own copies.
type op struct {
	kind opKind
	k, v []byte // v is the end of a DeleteRange
}

// batch buffers writes until Commit sends them as one transaction in one
// round trip. An Update's batch (inTxn) is applied by Update instead.
type batch struct {
	s         *Store
	ops       []op
	inTxn     bool
	committed bool
	closed    bool
}

var errTxnBatch = errors.New("pgstore: an Update's batch is committed by Update, not by its caller")

func (b *batch) check() error {
	switch {
	case b.closed:
		return kv.ErrClosed
	case b.committed:
		return ErrBatchCommitted
	}
	return nil
}

func (b *batch) Set(key, value []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	b.ops = append(b.ops, op{opSet, append([]byte{}, key...), append([]byte{}, value...)})
	return nil
}

func (b *batch) Delete(key []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	b.ops = append(b.ops, op{kind: opDelete, k: append([]byte{}, key...)})
	return nil
}

// DeleteRange deletes [start, end). As in pebblestore, a start after end
// (a nil end included) is refused and an empty range deletes nothing.
func (b *batch) DeleteRange(start, end []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	switch c := bytes.Compare(start, end); {
	case c > 0:
		return fmt.Errorf("%w: DeleteRange [%q, %q)", ErrInvalidRange, start, end)
	case c == 0:
		return nil // empty range: nothing to delete
	}
	b.ops = append(b.ops, op{kind: opDeleteRange, k: append([]byte{}, start...), v: append([]byte{}, end...)})
	return nil
}

func (b *batch) Empty() bool { return len(b.ops) == 0 }

// queue appends the batch's statements to pb, in order. A run of Sets
// becomes one multi-row upsert and a run of Deletes one DELETE: the server
// executes statements one after the other, so an item written with its
// index entries costs one statement instead of several. Within a run the
// last write of a key wins (an upsert may not touch a row twice), as it
// would one statement at a time.
func (b *batch) queue(pb *pgx.Batch) {
	q := &b.s.sql
	for i := 0; i < len(b.ops); {
		o := b.ops[i]
		j := i + 1
		for j < len(b.ops) && b.ops[j].kind == o.kind && o.kind != opDeleteRange {
			j++
		}
		switch {
		case j-i > 1 && o.kind == opSet:
			ks, vs := lastWins(b.ops[i:j])
			pb.Queue(q.setMany, ks, vs)
		case j-i > 1:
			ks, _ := lastWins(b.ops[i:j])
			pb.Queue(q.delMany, ks)
		case o.kind == opSet:
			pb.Queue(q.set, o.k, o.v)
		case o.kind == opDelete:
			pb.Queue(q.del, o.k)
		default:
			pb.Queue(q.delRange, o.k, o.v)
		}
		i = j
	}
}

// lastWins returns the keys and values of a run of writes of one kind,
// each key once, with its last value, in key order: two batches then lock
// their common rows in the same order and do not deadlock on them.
func lastWins(run []op) (keys, values [][]byte) {
	last := make(map[string]int, len(run))
	for i, o := range run {
		last[string(o.k)] = i
	}
	idx := make([]int, 0, len(last))
	for _, i := range last {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int { return bytes.Compare(run[a].k, run[b].k) })
	keys, values = make([][]byte, len(idx)), make([][]byte, len(idx))
	for n, i := range idx {
		keys[n], values[n] = run[i].k, run[i].v
	}
	return keys, values
}

// Commit sends the writes as one transaction (a single statement needs
// none) in one round trip. Every PostgreSQL commit is durable, so sync changes
// nothing. A deadlock with another batch (or CockroachDB's serialization
// failure) rolls it back, and it is sent again.
func (b *batch) Commit(sync bool) error {
	if b.inTxn {
		return errTxnBatch
	}
	if err := b.check(); err != nil {
		return err
	}
	if b.s.closed.Load() {
		return kv.ErrClosed
	}
	b.committed = true
	if len(b.ops) == 0 {
		return nil
	}
	pb := &pgx.Batch{}
	b.queue(pb)
	if pb.Len() > 1 {
		// A single statement is atomic on its own.
		pb.QueuedQueries = append([]*pgx.QueuedQuery{{SQL: "BEGIN"}}, pb.QueuedQueries...)
		pb.Queue("COMMIT")
	}
	return b.s.retry("commit", func() (error, bool) {
		ctx, cancel := b.s.ctx()
		defer cancel()
		// A failed statement leaves the connection inside the aborted
		// transaction; pgxpool closes such a connection on release.
		br := b.s.pool.SendBatch(ctx, pb)
		var err error
		for range pb.Len() {
			if _, err = br.Exec(); err != nil {
				break
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return err, retryable(err)
	})
}

// Close releases the batch; it is safe after Commit and a second time.
func (b *batch) Close() error {
	b.closed = true
	b.ops = nil
	return nil
}

// retry runs attempt until it succeeds, fails for good, or has been
// refused (retry true) Options.MaxTries times or for Options.RetryFor,
// sleeping a jittered, growing backoff between tries.
func (s *Store) retry(op string, attempt func() (err error, retry bool)) error {
	deadline := time.Now().Add(s.o.RetryFor)
	for try := 1; ; try++ {
		err, again := attempt()
		if err == nil {
			return nil
		}
		if !again {
			return s.wrap(op, err)
		}
		if try >= s.o.MaxTries || time.Now().After(deadline) || s.closed.Load() {
			return fmt.Errorf("pgstore: %s: refused %d times: %w", op, try, s.wrap(op, err))
		}
		// Full jitter over 1ms·2^try, capped at 100ms: contenders spread
		// out instead of colliding again in lockstep.
		d := min(time.Millisecond<<min(try, 7), 100*time.Millisecond)
		time.Sleep(rand.N(d) + time.Millisecond/2)
	}
}
