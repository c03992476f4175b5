package backups

// The copy job and its recovery.
//
// Consistency. CreateBackup takes a store snapshot and writes the record
// (CREATING) under the catalog lock, then a job copies the table's item
// range from the snapshot in chunks and writes AVAILABLE in the batch of
// the last chunk. The snapshot is the table at the request, whatever
// writes, DeleteTable or a re-created table of the same name (a new table
// ID) come later; writers are never blocked, they only keep Pebble from
// compacting away the versions the snapshot still sees until the job ends.
//
// Recovery. A snapshot does not survive a restart, and a copy resumed from
// the live table would not be the table at the request. So New fails every
// backup left CREATING: its rows are dropped and its status becomes
// DELETED (the status DynamoDB gives a backup that will never be usable;
// Terraform's backup action reads it as a failure). A backup is AVAILABLE
// only once every row is in, in the same batch.

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/kv"
)

// Start runs the copy job of m from snap (taken at the request); it owns
// snap. The caller holds the catalog lock and has committed m's record.
func (j *Jobs) Start(c Core, m *Meta, snap kv.Snapshot) {
	ck := creatingKey(m.ns(), m.table.Name)
	if j.creating == nil {
		j.creating = map[string]string{}
	}
	j.creating[ck] = m.ID
	j.Tasks.Go(func(ctx context.Context) {
		err := j.copy(ctx, c, m, snap)
		_ = snap.Close()
		c.LockCatalog()
		if j.creating[ck] == m.ID {
			delete(j.creating, ck)
		}
		c.UnlockCatalog()
		switch {
		case err == nil, errors.Is(err, context.Canceled):
			// Canceled: the record stays CREATING and the next start fails it.
		default:
			c.Log().Error().Err(err).Str("backup", m.ARN()).Msg("backup failed; it is marked DELETED at the next start")
		}
	})
}

// copy copies the source table's rows from snap under the backup's data
// prefix, then marks the backup AVAILABLE in the last chunk's batch.
func (j *Jobs) copy(ctx context.Context, c Core, m *Meta, snap kv.Snapshot) error {
	src := c.ItemPrefix(m.table.ID)
	dst := DataPrefix(m.DataID)
	it, err := snap.NewIter(src, kv.PrefixEnd(src))
	if err != nil {
		return err
	}
	defer it.Close()
	meter := c.JobMeter(m.ns(), m.table.Name, "backup", m.ARN(), false)
	meter.Start("backup", m.ItemCount)
	if f := j.AfterChunk; f != nil {
		f("backup", 0)
	}
	b := c.Store().NewBatch()
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
		if inBatch == Chunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			// Without sync: the final commit syncs (Options.Sync), and a
			// crash before it leaves a CREATING backup the next start drops.
			if err := b.Commit(false); err != nil {
				return err
			}
			_ = b.Close()
			b = c.Store().NewBatch()
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
			if f := j.AfterChunk; f != nil {
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
	c.LockCatalog()
	defer c.UnlockCatalog()
	m.Status = statusAvailable
	if err := put(b, m); err != nil {
		return err
	}
	if err := b.Commit(c.Sync()); err != nil {
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

// FailUnfinished marks every backup left CREATING by the last run DELETED
// and drops its rows (see Recovery above). Called by New; on a shared
// store by the leader, for the backups of processes gone (dead reports
// them).
func FailUnfinished(c Core, dead func(owner string) bool) error {
	all, err := scan(c.Store(), []byte{Backup}, "backup record")
	if err != nil {
		return err
	}
	for _, m := range all {
		if m.Status != statusCreating || (dead != nil && !dead(m.Owner)) {
			continue
		}
		b := c.Store().NewBatch()
		p := DataPrefix(m.DataID)
		m.Status, m.Failed, m.SizeBytes, m.ItemCount = statusDeleted, true, 0, 0
		if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			_ = b.Close()
			return err
		}
		if err := put(b, m); err != nil {
			_ = b.Close()
			return err
		}
		if err := c.Commit(b); err != nil {
			return err
		}
		c.Log().Warn().Str("backup", m.ARN()).Msg("backup interrupted by a restart; marked DELETED")
	}
	return nil
}
