package emulator

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/kv"
)

// Leases let the processes sharing a store take turns: the catalog lock
// (catalog.go) and the workers' leader. A lease is a key holding its
// owner's ID and an expiry (wall clock, as the processes share no other);
// it is taken, renewed and released through Update, so two processes
// never both hold it. A holder that dies frees it when it expires.
//
// Only the leader runs the periodic workers (TTL, stream trim, replication
// applier, Kinesis delivery, auto scaling, PITR trim) and the jobs that
// can start from the store alone (index backfill, restore, import): a job
// another process creates is persisted there and the leader's poll, every
// renewal, starts it. Backups and exports copy a snapshot taken at the
// request, which no other process can read, so they run in the process
// that took the request (docs/differences.md). On Pebble the process is
// always the leader and nothing here runs.
//
// The background work itself lives in emulator/internal/jobs: the periodic
// workers TTL (with stream trim), auto scaling and PITR trim are
// registered on e.workers in New and started and stopped here, with a
// "this process leads" gate before each pass; the exports, imports,
// backups and restores run in the jobs.Group of e.ex and e.bk; the jobs
// running here are claimed in e.lease.jobs; the election is a periodic
// worker of its own.

// leaseState is the engine's side of the leases.
type leaseState struct {
	// owner identifies this process (this incarnation of its jobs, see
	// loseLead) in lease values; a []byte, read with ownerID.
	owner atomic.Value
	// leading is set while this process holds the leader lease (always on
	// Pebble).
	leading atomic.Bool
	// expiry is when the leader lease this process last wrote ends (unix
	// nanoseconds); only the lease loop touches it.
	expiry int64
	// mu serialises starting and stopping the workers.
	mu      sync.Mutex
	running bool
	// loop is the election itself, a periodic worker of its own (a
	// shared store only): every renewal interval, leaseTick.
	loop jobs.Workers

	// jobs is the backfill, restore and import jobs running here, so the
	// leader's poll starts each once.
	jobs jobs.Claims
}

func (e *Engine) leaseDuration() time.Duration {
	if d := e.opts.LeaseDuration; d > 0 {
		return d
	}
	return DefaultLeaseDuration
}

func (e *Engine) leaseRenew() time.Duration {
	if d := e.opts.LeaseRenewInterval; d > 0 {
		return d
	}
	return e.leaseDuration() / 3
}

func newOwnerID() []byte {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return []byte(hex.EncodeToString(b[:]))
}

// errLeaseHeld is tryLease's answer when another live process holds it.
var errLeaseHeld = errors.New("emulator: lease held by another process")

// tryLease takes or renews the lease at key for leaseDuration from now. It
// reports whether this process holds it.
func (e *Engine) tryLease(key []byte) (bool, error) {
	now := time.Now()
	until := now.Add(e.leaseDuration()).UnixNano()
	me := e.ownerID()
	err := e.opts.Store.Update(e.opts.Sync, func(tx kv.Txn) error {
		v, err := tx.Get(key)
		switch {
		case errors.Is(err, kv.ErrNotFound):
		case err != nil:
			return err
		default:
			owner, exp := decodeLease(v)
			if !bytes.Equal(owner, me) && now.UnixNano() < exp {
				return errLeaseHeld
			}
		}
		return tx.Batch().Set(key, encodeLease(me, until))
	})
	if err != nil {
		return false, err
	}
	if bytes.Equal(key, leaderKey) {
		e.lease.expiry = until
	}
	return true, nil
}

// releaseLease deletes the lease at key if this process holds it, so the
// next holder need not wait for it to expire.
func (e *Engine) releaseLease(key []byte) {
	me := e.ownerID()
	err := e.opts.Store.Update(e.opts.Sync, func(tx kv.Txn) error {
		v, err := tx.Get(key)
		if errors.Is(err, kv.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if owner, _ := decodeLease(v); !bytes.Equal(owner, me) {
			return nil
		}
		return tx.Batch().Delete(key)
	})
	if err != nil {
		// It expires on its own.
		e.log.Warn().Err(err).Str("lease", string(key)).Msg("lease: release failed")
	}
}

func encodeLease(owner []byte, until int64) []byte {
	v := binary.BigEndian.AppendUint64(nil, uint64(until))
	return append(v, owner...)
}

func decodeLease(v []byte) (owner []byte, until int64) {
	if len(v) < 8 {
		return nil, 0
	}
	return v[8:], int64(binary.BigEndian.Uint64(v))
}

func (e *Engine) ownerID() []byte { return e.lease.owner.Load().([]byte) }

// leading reports whether this process runs the workers and jobs.
func (e *Engine) leading() bool { return e.lease.leading.Load() }

// startLeaseLoop runs the leader election of a shared store: every
// renewal interval, take or renew the leader lease; on taking it, start
// the workers; on losing it, stop them; while leading, poll for jobs.
func (e *Engine) startLeaseLoop() {
	e.leaseTick()
	e.lease.loop.Register(jobs.Periodic{Name: "lease", Every: e.leaseRenew(), Pass: func(context.Context) { e.leaseTick() }})
	e.lease.loop.Start()
}

func (e *Engine) leaseTick() {
	e.heartbeat()
	ok, err := e.tryLease(leaderKey)
	switch {
	case ok:
		if !e.leading() {
			e.log.Info().Str("owner", string(e.ownerID())).Msg("lease: this process leads the workers")
			e.lease.leading.Store(true)
			if err := e.startWorkers(); err != nil {
				e.log.Error().Err(err).Msg("lease: starting the workers failed")
			}
		}
		e.pollJobs()
	case e.leading() && (errors.Is(err, errLeaseHeld) || time.Now().UnixNano() >= e.lease.expiry):
		// Another process took it, or ours ran out while the store
		// failed: stop before the next leader starts.
		e.log.Warn().Err(err).Msg("lease: leadership lost; stopping the workers")
		e.loseLead()
	case err != nil && !errors.Is(err, errLeaseHeld):
		e.log.Warn().Err(err).Msg("lease: renewing the leader lease failed")
	}
}

// stopLeaseLoop stops the election and, if leading, the workers, and
// releases the lease so another process takes over at its next renewal.
func (e *Engine) stopLeaseLoop() {
	if !e.isShared {
		return // no election: Close stops the workers
	}
	e.lease.loop.Stop()
	if e.leading() {
		e.lease.leading.Store(false)
		e.stopWorkers()
		e.releaseLease(leaderKey)
	}
	// The backups and exports it was copying stop with Close; the leader
	// fails them at once rather than after the heartbeat expires.
	e.bk.Tasks.Stop()
	e.ex.Tasks.Stop()
	e.bp.Tasks.Stop()
	b := e.opts.Store.NewBatch()
	if b.Delete(aliveKey(e.ownerID())) == nil {
		_ = e.commit(b)
	} else {
		_ = b.Close()
	}
}

// pollJobs starts the jobs other processes persisted, fails the backups
// and exports of processes gone, and wakes the workers whose queues other
// processes' writes fill.
func (e *Engine) pollJobs() {
	e.syncCatalog()
	if err := e.failUnfinishedBackups(e.ownerGone); err != nil {
		e.log.Warn().Err(err).Msg("lease: failing the backups of processes gone")
	}
	if err := e.failUnfinishedExports(e.ownerGone); err != nil {
		e.log.Warn().Err(err).Msg("lease: failing the exports of processes gone")
	}
	e.resumeBackfills()
	e.resumeRestores()
	e.resumeSeeds()
	if err := e.resumeImports(); err != nil {
		e.log.Warn().Err(err).Msg("lease: polling imports failed")
	}
	if err := e.resumeBulkPuts(); err != nil {
		e.log.Warn().Err(err).Msg("lease: polling bulk operations failed")
	}
	e.wakeApplier()
	e.wakeKinesis()
}

// startWorkers starts the periodic workers and resumes the unfinished
// jobs, in the order New always ran them.
func (e *Engine) startWorkers() error {
	e.lease.mu.Lock()
	defer e.lease.mu.Unlock()
	if e.lease.running {
		return nil
	}
	e.lease.running = true
	// Before any worker that writes (replication, restores, TTL) can
	// queue a Kinesis record: the queue's sequence must be set first.
	e.startKinesis()
	e.resumeBackfills()
	// On a shared store only those of processes gone: another live one
	// may be copying them.
	var dead func(string) bool
	if e.isShared {
		dead = e.ownerGone
	}
	if err := e.failUnfinishedBackups(dead); err != nil {
		return err
	}
	if err := e.failUnfinishedExports(dead); err != nil {
		return err
	}
	e.startReplication()
	e.resumeRestores()
	// Before the PITR trim worker starts, as it always was, and before any
	// worker that writes runs a pass.
	e.pitr.Store(uint64(time.Now().UnixNano()))
	// TTL, auto scaling, PITR trim (registered in New).
	e.workers.Start()
	// Last: a resumed import's job caches tables, which the steps above
	// read without e.mu.
	if err := e.resumeImports(); err != nil {
		return err
	}
	return e.resumeBulkPuts()
}

// stopWorkers stops what startWorkers started; unfinished jobs resume at
// the next start (or at another leader's).
func (e *Engine) stopWorkers() {
	e.lease.mu.Lock()
	defer e.lease.mu.Unlock()
	if !e.lease.running {
		return
	}
	e.lease.running = false
	// The periodic workers first (TTL, auto scaling, PITR trim, each
	// cancelled and waited for in turn): they make work for the others.
	e.workers.Stop()
	e.bf.tasks.Stop()
	e.stopReplication()
	e.bk.Tasks.Stop()
	e.ex.Tasks.Stop()
	e.bp.Tasks.Stop()
	e.stopKinesis()
}

// loseLead stops what the leader runs, and the backups and exports this
// process copies (they share the jobs' contexts), and takes a new owner
// ID: the records of the jobs it stopped name the old one, whose heartbeat
// ends, so the new leader fails them as it would a dead process's.
func (e *Engine) loseLead() {
	e.lease.leading.Store(false)
	e.stopWorkers()
	e.restartJobContexts()
	old := e.ownerID()
	// Under e.mu: a control-plane change holding the catalog lock
	// releases it under the owner that took it.
	e.mu.Lock()
	e.lease.owner.Store(newOwnerID())
	e.mu.Unlock()
	b := e.opts.Store.NewBatch()
	if b.Delete(aliveKey(old)) == nil {
		_ = e.commit(b)
	} else {
		_ = b.Close()
	}
	e.heartbeat()
}

// restartJobContexts makes the job states usable again after stopWorkers
// cancelled them (leadership lost, the process keeps serving).
func (e *Engine) restartJobContexts() {
	e.bf.tasks.Restart()
	e.bk.Tasks.Restart()
	e.ex.Tasks.Restart()
	e.bp.Tasks.Restart()
}

// initQueueSeqs sets the sequences a write uses to key its replication,
// Kinesis and PITR records, which the workers' start sets on the leader.
// They start at the wall clock (above any earlier run's, as there), so
// two processes' keys stay apart as long as neither writes faster than a
// record per nanosecond since the other started.
func (e *Engine) initQueueSeqs() {
	now := uint64(time.Now().UnixNano())
	e.repl.seq.Store(max(now, e.lastOutboxSeq()))
	if e.opts.Kinesis != nil {
		e.kds.Seq().Store(max(now, e.lastKinesisSeq()))
	}
	e.pitr.Store(now)
}

// claimJob marks job key running here; false if it already is. A job
// started on a process that does not lead is left to the leader's poll.
func (e *Engine) claimJob(key string) bool {
	if !e.leading() {
		return false
	}
	return e.lease.jobs.Claim(key)
}

// jobRunning reports whether job key runs in this process.
func (e *Engine) jobRunning(key string) bool { return e.lease.jobs.Running(key) }

func (e *Engine) releaseJob(key string) { e.lease.jobs.Release(key) }

// Every process sharing a store keeps a heartbeat key (family 'l', 'p'
// and its owner ID) with an expiry, renewed with each lease tick: the
// backups and exports a process copies (from its own snapshot, which no
// other can take over) are failed by the leader once it is gone.

func aliveKey(owner []byte) []byte { return append([]byte{famLease, 'p'}, owner...) }

// jobOwner is the owner recorded in a backup or export record: this
// process on a shared store, none on Pebble (New fails them all there).
func (e *Engine) jobOwner() string {
	if !e.isShared {
		return ""
	}
	return string(e.ownerID())
}

// heartbeat renews this process's heartbeat key.
func (e *Engine) heartbeat() {
	b := e.opts.Store.NewBatch()
	me := e.ownerID()
	if err := b.Set(aliveKey(me), encodeLease(me, time.Now().Add(e.leaseDuration()).UnixNano())); err != nil {
		_ = b.Close()
		return
	}
	if err := e.commit(b); err != nil {
		e.log.Warn().Err(err).Msg("lease: heartbeat failed")
	}
}

// ownerGone reports whether the process owner has stopped (or never had
// a heartbeat: a record written on Pebble, or before heartbeats).
func (e *Engine) ownerGone(owner string) bool {
	if owner == string(e.ownerID()) {
		return false
	}
	v, err := e.opts.Store.Get(aliveKey([]byte(owner)))
	if errors.Is(err, kv.ErrNotFound) {
		return true
	}
	if err != nil {
		return false // unknown: next poll
	}
	_, until := decodeLease(v)
	return time.Now().UnixNano() >= until
}
