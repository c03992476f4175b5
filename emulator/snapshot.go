package emulator

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/s3io"
	"github.com/extenddb/extenddb/emulator/internal/txn"
	"github.com/extenddb/extenddb/kv"
)

// Snapshots and resets for test suites: the whole state of the server (every
// namespace's tables, items, indexes, stream records, PITR history, backups
// and the records of exports and imports) saved in one value, and put back
// in place of whatever the store holds, atomically for requests.
//
// A snapshot is the store's keys and values, read from one store snapshot
// (a point in time: every request's writes are one batch, so it holds all
// of a request's writes or none). Its encoding is its file format:
//
//	"EXTENDDB-SNAPSHOT" 0x00 <version 1>
//	{ uvarint(len key) key uvarint(len value) value }   (keys in order)
//	0x00                                                 (a key is never empty)
//	CRC-32C of every byte above, big-endian
//
// A restore (and a reset) is the same thing as a restart on the new state:
// requests are held at the engine's gate (Enter) while it runs, the
// background work (TTL, PITR trim, auto scaling, replication, Kinesis
// delivery, backfills, backups, exports, imports, restores) is stopped, the
// store's keys are replaced in one batch, the caches built from the store
// (catalog, throttle buckets, Contributor Insights counters, table-size
// memo, stream state, auto scaling datapoints, transaction tokens) are
// dropped and rebuilt, and the background work starts again, resuming the
// jobs the new state records as unfinished, as New does.

// snapshotMagic opens every snapshot.
var snapshotMagic = []byte("EXTENDDB-SNAPSHOT\x00\x01")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Snapshot is a saved state of the server. It is immutable and may be
// restored any number of times, by any engine of this version.
type Snapshot struct {
	buf  []byte // the whole encoding, trailer included
	keys int
}

// Keys is how many store keys the snapshot holds.
func (s *Snapshot) Keys() int { return s.keys }

// Size is the length of the snapshot's encoding in bytes.
func (s *Snapshot) Size() int { return len(s.buf) }

// Bytes is the snapshot's encoding (its file format); do not modify it.
func (s *Snapshot) Bytes() []byte { return s.buf }

// WriteTo writes the snapshot's encoding to w.
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(s.buf)
	return int64(n), err
}

// ErrBadSnapshot is returned (wrapped) for bytes that are not a whole
// snapshot of this version.
var ErrBadSnapshot = errors.New("emulator: not an ExtendDB snapshot, or a damaged or truncated one")

// ParseSnapshot checks b, a snapshot's encoding, and returns the snapshot
// (which keeps b).
func ParseSnapshot(b []byte) (*Snapshot, error) {
	if !bytes.HasPrefix(b, snapshotMagic) || len(b) < len(snapshotMagic)+5 {
		return nil, ErrBadSnapshot
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadSnapshot)
	}
	s := &Snapshot{buf: b}
	err := s.each(func(k, v []byte) error {
		s.keys++
		if k[0] == keyspace.FamMeta {
			if _, err := decodeTable(k, v); err != nil {
				return fmt.Errorf("%w: %v", ErrBadSnapshot, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ReadSnapshot reads a snapshot's encoding from r (a file `extenddb
// snapshot save` wrote, or Snapshot.WriteTo).
func ReadSnapshot(r io.Reader) (*Snapshot, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return ParseSnapshot(b)
}

// each calls fn with every key and value of a checked encoding.
func (s *Snapshot) each(fn func(k, v []byte) error) error {
	p := s.buf[len(snapshotMagic) : len(s.buf)-4]
	for {
		kl, n := binary.Uvarint(p)
		if n <= 0 || uint64(len(p)-n) < kl {
			return ErrBadSnapshot
		}
		p = p[n:]
		if kl == 0 {
			if len(p) != 0 {
				return ErrBadSnapshot
			}
			return nil
		}
		k := p[:kl:kl]
		p = p[kl:]
		vl, n := binary.Uvarint(p)
		if n <= 0 || uint64(len(p)-n) < vl {
			return ErrBadSnapshot
		}
		v := p[n : n+int(vl) : n+int(vl)]
		p = p[n+int(vl):]
		if err := fn(k, v); err != nil {
			return err
		}
	}
}

// snapshotted reports whether key k belongs in a snapshot: everything but
// a shared store's leases and heartbeats, which belong to the processes.
func snapshotted(k []byte) bool { return len(k) > 0 && k[0] != famLease }

// errSharedSnapshot refuses snapshots on a store several processes share.
var errSharedSnapshot = errors.New("emulator: snapshots, restores and resets need a store of one process (Pebble on disk or in memory), not a shared one")

// Snapshot saves the server's whole state. Requests carry on meanwhile: it
// reads one point-in-time view of the store.
func (e *Engine) Snapshot(ctx context.Context) (*Snapshot, error) {
	if e.isShared {
		return nil, errSharedSnapshot
	}
	snap := e.opts.Store.NewSnapshot()
	defer snap.Close()
	it, err := snap.NewIter(nil, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	buf := append(make([]byte, 0, 1<<16), snapshotMagic...)
	keys := 0
	for ok := it.First(); ok; ok = it.Next() {
		if keys&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		k, v := it.Key(), it.Value()
		if !snapshotted(k) {
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(len(k)))
		buf = append(buf, k...)
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
		keys++
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	buf = append(buf, 0)
	buf = binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
	return &Snapshot{buf: buf, keys: keys}, nil
}

// Restore replaces the server's whole state by snap's. Requests that
// entered the engine (Enter) finish first; those that arrive meanwhile
// wait, and see the restored state. Iterators of DynamoDB Streams taken
// before are refused as expired afterwards.
func (e *Engine) Restore(ctx context.Context, snap *Snapshot) error {
	if snap == nil {
		return errors.New("emulator: Restore of a nil snapshot")
	}
	// The batch's records take what the snapshot's do (a key and a value
	// with their lengths), plus a kind byte each.
	return e.replaceState(ctx, len(snap.buf)+snap.keys+64, func(b kv.Batch) error {
		if err := b.DeleteRange([]byte{0}, []byte{famLease}); err != nil {
			return err
		}
		if err := b.DeleteRange([]byte{famLease + 1}, []byte{0xff}); err != nil {
			return err
		}
		return snap.each(func(k, v []byte) error {
			if !snapshotted(k) {
				return nil
			}
			return b.Set(k, v)
		})
	})
}

// Reset drops every table of the server, with its items, indexes, streams
// and PITR history, and every backup and export and import record: the
// state of a new server.
func (e *Engine) Reset(ctx context.Context) error {
	return e.replaceState(ctx, 0, func(b kv.Batch) error {
		if err := b.DeleteRange([]byte{0}, []byte{famLease}); err != nil {
			return err
		}
		return b.DeleteRange([]byte{famLease + 1}, []byte{0xff})
	})
}

// ResetNamespace drops every table of ns, with its items, indexes, streams
// and PITR history, and ns's backups and export and import records; other
// namespaces keep theirs. A global table's replicas in other Regions keep
// their own membership records (reset each Region, or the server).
func (e *Engine) ResetNamespace(ctx context.Context, ns api.Namespace) error {
	return e.replaceState(ctx, 0, func(b kv.Batch) error {
		var ids []keyspace.TableID
		for _, t := range e.tables[ns] {
			ids = append(ids, t.ID)
		}
		// Backed-up items live under each backup's data ID.
		data, err := e.backupDataIDs(ns)
		if err != nil {
			return err
		}
		for _, fam := range []byte{keyspace.FamMeta, backups.Backup, s3io.Export, s3io.Import, txn.FamToken} {
			p := keyspace.MetaPrefix(ns)
			p[0] = fam
			if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
				return err
			}
		}
		for _, id := range ids {
			for _, fam := range []byte{keyspace.FamItem, keyspace.FamIndex, keyspace.FamStream, famVersion, famOutbox, famKinesis, famPITR} {
				p := append([]byte{fam}, id[:]...)
				if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
					return err
				}
			}
		}
		for _, id := range data {
			p := append([]byte{backups.BackupData}, id[:]...)
			if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
				return err
			}
		}
		return nil
	})
}

// backupDataIDs lists the data IDs of ns's backups.
func (e *Engine) backupDataIDs(ns api.Namespace) ([]keyspace.TableID, error) {
	p := keyspace.MetaPrefix(ns)
	p[0] = backups.Backup
	it, err := e.opts.Store.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []keyspace.TableID
	for ok := it.First(); ok; ok = it.Next() {
		var rec struct {
			Data keyspace.TableID `json:"data"`
		}
		if json.Unmarshal(it.Value(), &rec) == nil {
			out = append(out, rec.Data)
		}
	}
	return out, it.Error()
}

// gate holds requests while the state is replaced: each request holds it
// shared (Enter), a restore or reset exclusively.
type gate struct {
	mu sync.RWMutex
}

// Enter admits one request to the engine; Leave ends it. A restore or
// reset waits for the requests admitted before it, and holds the ones
// that come meanwhile until it is done, so a request sees the state
// before or after, never a mix. The wire layer and the console call them
// once per request; an engine method never does (a request must not
// enter twice). Two calls rather than a returned func: that func would
// cost an allocation per request.
func (e *Engine) Enter() { e.gate.mu.RLock() }

// Leave ends a request Enter admitted.
func (e *Engine) Leave() { e.gate.mu.RUnlock() }

// replaceState runs fill, which writes the new state into one batch (of
// about size bytes, when known), and commits it with the engine quiesced:
// no request inside, no background work running; then rebuilds every
// cache from the store.
func (e *Engine) replaceState(ctx context.Context, size int, fill func(kv.Batch) error) error {
	if e.isShared {
		return errSharedSnapshot
	}
	e.gate.mu.Lock()
	defer e.gate.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	e.stopWorkers()
	e.restartJobContexts()
	e.mu.Lock()
	var b kv.Batch
	if sb, ok := e.opts.Store.(kv.SizedBatcher); ok && size > 0 {
		b = sb.NewBatchSized(size)
	} else {
		b = e.opts.Store.NewBatch()
	}
	err := fill(b)
	if err == nil {
		err = e.commit(b)
	} else {
		_ = b.Close()
	}
	if err == nil {
		err = e.reloadState()
	}
	e.mu.Unlock()
	if err != nil {
		// The batch is all or nothing; the caches still match the store
		// unless the reload failed, which only a broken store causes.
		e.log.Error().Err(err).Msg("state restore failed")
	}
	if serr := e.startWorkers(); serr != nil && err == nil {
		err = serr
	}
	if err == nil {
		e.log.Info().Dur("took", time.Since(start)).Msg("state replaced (snapshot restore or reset)")
	}
	return err
}

// reloadState drops every cache built from the store and builds the
// catalog again. The caller holds e.mu for writing and the gate.
func (e *Engine) reloadState() error {
	for ns, m := range e.tables {
		for name := range m {
			e.uncacheTable(ns, name)
		}
	}
	e.tables = map[api.Namespace]namespaceTables{}
	e.items.stats.reset()
	e.vec.reset()
	e.streams.Reset()
	e.tx.Reset()
	e.as.Reset()
	return e.loadTables()
}

// reset forgets every table's records and memo (a restore replaced the
// store: table IDs may come back with other contents).
func (m *statsMemo) reset() {
	m.mu.Lock()
	m.gen, m.memo = nil, nil
	m.mu.Unlock()
	m.recMu.Lock()
	m.recs = nil
	m.recMu.Unlock()
}

// keptSnapshots are the snapshots saved on the server by name (the HTTP
// controls and the console): they live as long as the process.
type keptSnapshots struct {
	mu    sync.Mutex
	named map[string]*KeptSnapshot
}

// KeptSnapshot is a snapshot saved on the server under a name.
type KeptSnapshot struct {
	Name     string
	Saved    time.Time
	Snapshot *Snapshot
}

// Keep saves snap on the server under name, replacing the one of that
// name; KeptSnapshot and KeptSnapshots give it back.
func (e *Engine) Keep(name string, snap *Snapshot) *KeptSnapshot {
	k := &KeptSnapshot{Name: name, Saved: time.Now().UTC(), Snapshot: snap}
	e.kept.mu.Lock()
	defer e.kept.mu.Unlock()
	if e.kept.named == nil {
		e.kept.named = map[string]*KeptSnapshot{}
	}
	e.kept.named[name] = k
	return k
}

// KeptSnapshot returns the snapshot kept under name, or nil.
func (e *Engine) KeptSnapshot(name string) *KeptSnapshot {
	e.kept.mu.Lock()
	defer e.kept.mu.Unlock()
	return e.kept.named[name]
}

// KeptSnapshots lists the kept snapshots by name.
func (e *Engine) KeptSnapshots() []*KeptSnapshot {
	e.kept.mu.Lock()
	defer e.kept.mu.Unlock()
	out := make([]*KeptSnapshot, 0, len(e.kept.named))
	for _, k := range e.kept.named {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b *KeptSnapshot) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// AuthorizeServer decides action (one of ExtendDB's own controls, such as
// extenddb:Restore) over the whole server for the caller in ctx: the
// caller's identity policies must allow it on every table of every
// account and Region (arn:aws:dynamodb:*:*:table/*, which a policy's "*"
// resource covers and one naming tables of one account does not). With no
// caller (--auth=off) everything is allowed.
func (e *Engine) AuthorizeServer(ctx context.Context, action string) error {
	c := callerFrom(ctx)
	if c == nil {
		return nil
	}
	return c.decide(action, "arn:aws:dynamodb:*:*:table/*", nil, c.Account, nil)
}
