package emulator

// On-demand backups: the stored form, the copy job and its recovery.
//
// Keyspace (two families beside keys.go's):
//
//	'b' <account> 0x00 <region> 0x00 <backup id>  → JSON backupMeta
//	'c' <dataID:16> <encoded primary key>         → item (a copy of its row)
//
// The backup id is the ARN's suffix, "0" + 13-digit epoch ms + "-" + 8 hex
// digits, so a namespace's records sort by creation time (ListBackups'
// order) and a BackupArn names its record directly: account, Region and id
// come from the ARN. The record keeps the source table's metadata as it
// was at the request (schema, indexes, billing, SSE), which is what
// RestoreTableFromBackup rebuilds from. The data ID is random per backup,
// so a backup's rows are one range however many backups a table has, and
// DeleteBackup is one DeleteRange. Only item rows are copied: a restore
// rebuilds the index entries it keeps (restore.go).
//
// Consistency. CreateBackup takes a store snapshot and writes the record
// (CREATING) under e.mu, then a job copies the table's item range from the
// snapshot in chunks and writes AVAILABLE in the batch of the last chunk.
// The snapshot is the table at the request, whatever writes, DeleteTable
// or a re-created table of the same name (a new table ID) come later;
// writers are never blocked, they only keep Pebble from compacting away
// the versions the snapshot still sees until the job ends.
//
// Recovery. A snapshot does not survive a restart, and a copy resumed from
// the live table would not be the table at the request. So New fails every
// backup left CREATING: its rows are dropped and its status becomes
// DELETED (the status DynamoDB gives a backup that will never be usable;
// Terraform's backup action reads it as a failure). A backup is AVAILABLE
// only once every row is in, in the same batch.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/progress"
)

const (
	famBackup     = 'b'
	famBackupData = 'c'

	backupCreating  = "CREATING"
	backupAvailable = "AVAILABLE"
	backupDeleted   = "DELETED"

	backupUser   = "USER"
	backupSystem = "SYSTEM"

	// systemBackupRetention is how long DynamoDB keeps the SYSTEM backup of
	// a deleted table with PITR on.
	systemBackupRetention = 35 * 24 * time.Hour

	// backupChunk is how many rows a backup or restore job writes per batch.
	backupChunk = 1024
)

// backupMeta is one backup's stored record.
type backupMeta struct {
	Version   int       `json:"v"`
	Account   string    `json:"account"`
	Region    string    `json:"region"`
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	SizeBytes int64     `json:"size"`
	ItemCount int64     `json:"items"`
	DataID    tableID   `json:"data"`
	// Failed is set when the job could not finish (a restart); the rows
	// are gone and Status is DELETED.
	Failed bool `json:"failed,omitempty"`
	// Table is the source table's metadata at the request.
	Table *tableMeta `json:"table"`
	// Owner is the process copying it, on a shared store (lease.go):
	// the leader fails it once that process is gone.
	Owner string `json:"proc,omitempty"`
}

func (b *backupMeta) ns() Namespace { return Namespace{Account: b.Account, Region: b.Region} }

// ARN is the backup's ARN, in the source table's account and Region.
func (b *backupMeta) ARN() string { return b.ns().TableARN(b.Table.Name) + "/backup/" + b.ID }

func backupPrefix(ns Namespace) []byte {
	k := make([]byte, 0, 3+len(ns.Account)+len(ns.Region))
	k = append(k, famBackup)
	k = append(k, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	return append(k, 0)
}

func backupKey(ns Namespace, id string) []byte { return append(backupPrefix(ns), id...) }

// backupDataPrefix is the prefix of a backup's rows: the prefix plus an
// item's key after itemPrefix.
func backupDataPrefix(id tableID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, famBackupData)
	return append(k, id[:]...)
}

// newBackupID returns the ARN suffix of a backup created at now.
func newBackupID(now time.Time) (string, error) {
	var r [4]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%014d-%08x", now.UnixMilli(), binary.BigEndian.Uint32(r[:])), nil
}

// parseBackupARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/backup/ID
// (P the Region's partition); ok is false for anything else.
func parseBackupARN(s string) (ns Namespace, table, id string, ok bool) {
	// No 0x00: it separates account and Region in the record keys.
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[2] != "dynamodb" || f[3] == "" || f[4] == "" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", false
	}
	ns = Namespace{Account: f[4], Region: f[3]}
	if f[1] != ns.Partition() {
		return ns, "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "backup" || parts[3] == "" {
		return ns, "", "", false
	}
	return ns, parts[1], parts[3], true
}

// backupState is the engine's backup and restore jobs. New initialises it.
type backupState struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// creating holds the tables (namespace + name) with a backup being
	// copied, for BackupInUseException; guarded by e.mu.
	creating map[string]string
	// afterChunk, if set (tests), runs after each committed chunk of a
	// backup ("backup") or restore ("restore") job with the rows done, and
	// once before a backup copies anything (rows 0).
	afterChunk func(job string, rows int)
	// progressEvery, if set (tests), replaces progress.DefaultEvery.
	progressEvery time.Duration
}

func (s *backupState) init() {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.creating = map[string]string{}
}

func (s *backupState) stop() {
	s.cancel()
	s.wg.Wait()
}

func creatingKey(ns Namespace, table string) string {
	return ns.Account + "\x00" + ns.Region + "\x00" + table
}

func putBackup(b kv.Batch, m *backupMeta) error {
	m.Version = metaVersion
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Set(backupKey(m.ns(), m.ID), v)
}

// getBackup reads a backup record, or nil when there is none.
func getBackup(r kv.Reader, ns Namespace, id string) (*backupMeta, error) {
	v, err := r.Get(backupKey(ns, id))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m backupMeta
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, fmt.Errorf("emulator: backup record %s: %w", id, err)
	}
	return &m, nil
}

// newBackup builds the record of a backup of t taken at now, with its
// source figures. The caller holds e.mu.
func (e *Engine) newBackup(t *tableMeta, name, typ string, now time.Time) (*backupMeta, error) {
	id, err := newBackupID(now)
	if err != nil {
		return nil, err
	}
	dataID, err := newTableID()
	if err != nil {
		return nil, err
	}
	m := &backupMeta{Account: t.Account, Region: t.Region, ID: id, Name: name, Type: typ,
		Status: backupCreating, CreatedAt: now, DataID: dataID, Table: t.clone(), Owner: e.jobOwner()}
	m.ItemCount, m.SizeBytes = e.tableStats(t)
	if typ == backupSystem {
		m.ExpiresAt = now.Add(systemBackupRetention)
	}
	return m, nil
}

// startBackup runs the copy job of m from snap (taken at the request); it
// owns snap. The caller holds e.mu and has committed m's record.
func (e *Engine) startBackup(m *backupMeta, snap kv.Snapshot) {
	ck := creatingKey(m.ns(), m.Table.Name)
	e.bk.creating[ck] = m.ID
	e.bk.wg.Add(1)
	go func() {
		defer e.bk.wg.Done()
		err := e.copyBackup(e.bk.ctx, m, snap)
		_ = snap.Close()
		e.lockCatalog()
		if e.bk.creating[ck] == m.ID {
			delete(e.bk.creating, ck)
		}
		e.unlockCatalog()
		switch {
		case err == nil, errors.Is(err, context.Canceled):
			// Canceled: the record stays CREATING and the next start fails it.
		default:
			e.log.Error().Err(err).Str("backup", m.ARN()).Msg("backup failed; it is marked DELETED at the next start")
		}
	}()
}

// copyBackup copies the source table's rows from snap under the backup's
// data prefix, then marks the backup AVAILABLE in the last chunk's batch.
func (e *Engine) copyBackup(ctx context.Context, m *backupMeta, snap kv.Snapshot) error {
	src := itemPrefix(m.Table.ID)
	dst := backupDataPrefix(m.DataID)
	it, err := snap.NewIter(src, prefixEnd(src))
	if err != nil {
		return err
	}
	defer it.Close()
	meter := e.jobMeter(m.Account, m.Region, m.Table.Name, "backup", m.ARN(), false)
	meter.Start("backup", m.ItemCount)
	if f := e.bk.afterChunk; f != nil {
		f("backup", 0)
	}
	b := e.opts.Store.NewBatch()
	defer func() { _ = b.Close() }()
	rows, inBatch := 0, 0
	// One key buffer for every row: Set copies the key into the batch, so
	// the copy allocates nothing per row (less GC work charged to writers).
	k := append([]byte(nil), dst...)
	chunkStart := time.Now()
	for ok := it.First(); ok; ok = it.Next() {
		k = append(k[:len(dst)], it.Key()[len(src):]...)
		if err := b.Set(k, it.Value()); err != nil {
			return err
		}
		rows++
		inBatch++
		if inBatch == backupChunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			// Without sync: the final commit syncs (Options.Sync), and a
			// crash before it leaves a CREATING backup the next start drops.
			if err := b.Commit(false); err != nil {
				return err
			}
			_ = b.Close()
			b = e.opts.Store.NewBatch()
			meter.Add(int64(inBatch))
			inBatch = 0
			// Rest as long as the chunk took: the copy then uses at most
			// about half a core, and writers keep their latency (without
			// it a 1M-item backup made PutItem ~10x slower on 2 cores;
			// BenchmarkPutItemDuringBackup).
			if err := rest(ctx, time.Since(chunkStart)); err != nil {
				return err
			}
			chunkStart = time.Now()
			if f := e.bk.afterChunk; f != nil {
				f("backup", rows)
			}
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	meter.Add(int64(inBatch))
	e.lockCatalog()
	defer e.unlockCatalog()
	m.Status = backupAvailable
	if err := putBackup(b, m); err != nil {
		return err
	}
	if err := b.Commit(e.opts.Sync); err != nil {
		return err
	}
	meter.Done()
	return nil
}

// rest waits d, or until ctx is done.
func rest(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// jobMeter logs a backup or restore job's progress at info, as the GSI
// backfill does; resumed marks a restore resumed after a restart.
func (e *Engine) jobMeter(account, region, table, kind, arn string, resumed bool) *progress.Meter {
	return &progress.Meter{Unit: "items", Every: e.bk.progressEvery, Now: e.opts.Clock.Now, Report: func(r progress.Report) {
		ev := e.log.Info().Str("account", account).Str("region", region).Str("table", table).Str(kind, arn).
			Int64(r.Unit, r.Count)
		if r.Total > 0 {
			ev = ev.Int64("total", r.Total)
		}
		if resumed {
			ev = ev.Bool("resumed", true)
		}
		ev.Float64(r.Unit+"_per_second", r.Rate).Dur("elapsed", r.Elapsed).Msg(r.Message())
	}}
}

// failUnfinishedBackups marks every backup left CREATING by the last run
// DELETED and drops its rows (see Recovery above). Called by New; on a
// shared store by the leader, for the backups of processes gone (dead
// reports them).
func (e *Engine) failUnfinishedBackups(dead func(owner string) bool) error {
	it, err := e.opts.Store.NewIter([]byte{famBackup}, []byte{famBackup + 1})
	if err != nil {
		return err
	}
	var failed []*backupMeta
	for ok := it.First(); ok; ok = it.Next() {
		var m backupMeta
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			_ = it.Close()
			return fmt.Errorf("emulator: backup record at %q: %w", it.Key(), err)
		}
		if m.Status == backupCreating && (dead == nil || dead(m.Owner)) {
			failed = append(failed, &m)
		}
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return err
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, m := range failed {
		b := e.opts.Store.NewBatch()
		p := backupDataPrefix(m.DataID)
		m.Status, m.Failed, m.SizeBytes, m.ItemCount = backupDeleted, true, 0, 0
		if err := b.DeleteRange(p, prefixEnd(p)); err != nil {
			_ = b.Close()
			return err
		}
		if err := putBackup(b, m); err != nil {
			_ = b.Close()
			return err
		}
		if err := e.commit(b); err != nil {
			return err
		}
		e.log.Warn().Str("backup", m.ARN()).Msg("backup interrupted by a restart; marked DELETED")
	}
	return nil
}
