package backups

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/kv"
	"github.com/rs/zerolog"
)

// Core is what backups and restores use of the engine: its clock, store
// and logger, the catalog lock, the job claims and owners of a shared
// store, the table metadata a backup keeps (as the engine stores it) and
// the tables a restore creates and fills.
type Core interface {
	// Now is the engine's clock.
	Now() time.Time
	// Store is the engine's store; the backup records and rows live in it
	// under the families Backup and BackupData.
	Store() kv.Store
	// Commit commits b with the engine's durability setting and closes it.
	Commit(b kv.Batch) error
	// Sync is the engine's durability setting (Options.Sync).
	Sync() bool
	// Log is the engine's logger.
	Log() *zerolog.Logger
	// InternalError is the engine's answer to an unexpected failure of
	// the store (500); an *api.Error or a context's error passes as it is.
	InternalError(err error) error
	// LockCatalog and UnlockCatalog hold the catalog's write lock,
	// RLockCatalog and RUnlockCatalog its read lock.
	LockCatalog()
	UnlockCatalog()
	RLockCatalog()
	RUnlockCatalog()
	// ItemPrefix is the key prefix of table id's items.
	ItemPrefix(id [16]byte) []byte
	// ResolveName splits a TableName (a name or an ARN) of a request in
	// ns into the table's namespace and name.
	ResolveName(ns api.Namespace, nameOrARN string) (api.Namespace, string, error)

	// JobOwner is the owner a backup records: this process on a shared
	// store, whose leader fails the backups of processes gone; "" else.
	JobOwner() string
	// OwnerGone reports whether the process owner no longer runs.
	OwnerGone(owner string) bool
	// Shared reports whether the store is shared by several processes.
	Shared() bool
	// JobMeter is the meter of a backup's or restore's progress (kind
	// "backup" or "restore", arn the backup's or the source table's),
	// which the engine logs as it does a GSI backfill's; resumed marks a
	// restore resumed after a restart.
	JobMeter(ns api.Namespace, table, kind, arn string, resumed bool) Meter
	// ClaimJob marks job key running in this process; false if it already
	// runs, or if this process does not lead (the leader's poll starts it).
	ClaimJob(key string) bool
	// ReleaseJob unmarks job key.
	ReleaseJob(key string)

	// BackupSource finds the table CreateBackup names in ns, refusing one
	// being created or deleted, and returns what a backup of it keeps.
	// The caller holds the catalog lock.
	BackupSource(ns api.Namespace, name string, now time.Time) (Source, error)
	// DescribeSource is a backup's SourceTableDetails (without its size
	// and item count) and SourceTableFeatureDetails, from the table
	// metadata it keeps.
	DescribeSource(table json.RawMessage) (*api.SourceTableDetails, *api.SourceTableFeatureDetails, error)
	// RestoringFrom reports whether a restore from backup arn is running.
	// The caller holds the catalog lock.
	RestoringFrom(arn string) bool
	// FreeTableName refuses a restore's target name a live table of ns
	// has (ResourceInUseException while it is being created or deleted,
	// TableAlreadyExistsException else), and forgets a table of that name
	// that is gone. The caller holds the catalog lock.
	FreeTableName(ns api.Namespace, name string, now time.Time) error
	// CreateRestored creates the table a restore from origin makes in
	// ns, with the request's overrides (a point-in-time restore's in the
	// same shape) and r as its Restore, stored CREATING, and starts its
	// job (from a snapshot taken before the table is stored, for a
	// point-in-time restore); it answers the table's description. The
	// caller holds the catalog lock.
	CreateRestored(ns api.Namespace, origin Origin, in *api.RestoreTableFromBackupInput, r *Restore, now time.Time) (*api.TableDescription, error)

	// PITRLag is how far LatestRestorableDateTime trails the clock
	// (Options.PITRLag; see PITR.Window).
	PITRLag() time.Duration
	// SetPITR applies spec to the PITR setting (PITR.Apply) of the table
	// nameRef names in ns, refusing a table being created, and saves it;
	// once PITR is turned on it waits for the writes that began before,
	// so every write after EarliestRestorableDateTime is in the history.
	// It answers the setting saved and the time to describe it at.
	SetPITR(ns api.Namespace, nameRef *string, spec *api.PointInTimeRecoverySpecification, now time.Time) (PITR, time.Time, error)
	// SourceTableARN splits a point-in-time restore's SourceTableArn (a
	// table of the account, in any Region of the partition of ns) into
	// the table's namespace and name, or answers ValidationException.
	SourceTableARN(ns api.Namespace, arn string) (api.Namespace, string, error)
	// LiveTable is the live table name of ns, false if none. The caller
	// holds the catalog lock.
	LiveTable(ns api.Namespace, name string, now time.Time) (Live, bool)
	// LiveTableARN is LiveTable of a table's ARN, false if it is no
	// table's. The caller holds the catalog lock.
	LiveTableARN(arn string, now time.Time) (Live, bool)
}

// Origin is the source of a restored table: a backup's record of its
// table (Table), or a live table (Namespace and Name) of a point-in-time
// restore.
type Origin struct {
	Table     json.RawMessage
	Namespace api.Namespace
	Name      string
}

// Source is what a backup keeps of its table: the table's metadata as
// the engine stores it, and the figures of the moment.
type Source struct {
	// Table is the table's stored metadata.
	Table json.RawMessage
	Name  string
	ID    [16]byte
	// ItemCount and SizeBytes are the table's statistics.
	ItemCount, SizeBytes int64
}

// Target is a table being restored, as the engine holds it.
type Target interface {
	// Namespace and Name are the restored table's.
	Namespace() api.Namespace
	Name() string
	// ID is the restored table's ID.
	ID() [16]byte
	// Restore is the table's restore state.
	Restore() *Restore
	// Cursor is the last row the job wrote (nil: none yet).
	Cursor() ([]byte, error)
	// Write puts the rows (primary key encodings after the table's item
	// prefix, and encoded items) through the write path, and records the
	// last key as the cursor, in one batch without sync.
	Write(keys, vals [][]byte) error
	// Finish clears the restore's InProgress and drops its cursor in one
	// batch: the table becomes ACTIVE. ErrTableGone once it is deleted.
	Finish() error
	// Drop deletes the table (the restore failed).
	Drop()
}

// Meter counts a job's items: Start once with the total (0: unknown), Add
// as they are done, Done at the end.
type Meter interface {
	Start(name string, total int64)
	Add(n int64)
	Done()
}

// Rows yields a restore's rows in primary key order: each row's primary
// key encoding (after the table's item prefix) and encoded item.
type Rows interface {
	Next(n int) (keys, vals [][]byte, err error)
	Close()
}

var (
	// ErrTableGone is Target's error once the restored table is deleted.
	ErrTableGone = errors.New("emulator: table deleted during restore")
	// ErrHistoryGone fails a resumed point-in-time restore whose source
	// table, or the part of its history the restore needs, no longer
	// exists.
	ErrHistoryGone = errors.New("emulator: the point-in-time history being restored is gone")
	errBackupGone  = errors.New("emulator: the backup being restored is gone")
)

// Jobs is the engine's backup and restore jobs; its zero value is ready
// to use.
type Jobs struct {
	// Tasks runs the backup and restore jobs; Close (and losing the lead)
	// cancels them and waits.
	Tasks jobs.Group
	// AfterChunk, if set (tests), runs after each committed chunk of a
	// backup ("backup") or restore ("restore") job with the rows done, and
	// once before a backup copies anything (rows 0).
	AfterChunk func(job string, rows int)
	// creating holds the tables (namespace + name) with a backup being
	// copied, for BackupInUseException; guarded by the catalog lock.
	creating map[string]string
}

// Chunk is how many rows a backup or restore job writes per batch (and
// the PITR trim deletes per batch).
const Chunk = 1024

// TableID is a table ID as the records store it: hex, as the engine's
// table metadata does.
type TableID [16]byte

// MarshalText keeps the ID readable in stored records.
func (id TableID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(id[:])), nil }

// UnmarshalText is the inverse of MarshalText.
func (id *TableID) UnmarshalText(b []byte) error {
	_, err := hex.Decode(id[:], b)
	return err
}

func refOf[T any](v T) *T { return &v }
