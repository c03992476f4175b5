package s3io

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/rs/zerolog"
)

// Core is what exports and imports use of the engine: its clock, store,
// object store and logger, the catalog lock a request holds from its
// token check to its commit, the job claims of a shared store, the
// point-in-time history an export reads, and the tables an import creates
// and writes.
type Core interface {
	// Now is the engine's clock.
	Now() time.Time
	// Store is the engine's store; the export and import records live in
	// it under the families Export and Import.
	Store() kv.Store
	// Commit commits b with the engine's durability setting and closes it.
	Commit(b kv.Batch) error
	// Objects is the S3 stand-in, nil when none is configured (every job
	// then fails as on a missing bucket).
	Objects() objstore.Store
	// Log is the engine's logger.
	Log() *zerolog.Logger
	// InternalError is the engine's answer to an unexpected failure of
	// the store (500); an *api.Error or a context's error passes as it is.
	InternalError(err error) error
	// LockCatalog and UnlockCatalog hold the catalog's write lock: a
	// request holds it from its ClientToken check to its commit, so two
	// requests with one token start one job.
	LockCatalog()
	UnlockCatalog()
	// NewID is the id of a job started at now, the suffix of its ARN (a
	// backup's form: 13-digit epoch milliseconds, "-", 8 hex digits).
	NewID(now time.Time) (string, error)
	// JobOwner is the owner an export records: this process on a shared
	// store, whose leader fails the exports of processes gone; "" else.
	JobOwner() string
	// ClaimJob marks job key running in this process; false if it already
	// runs, or if this process does not lead (the leader's poll starts it).
	ClaimJob(key string) bool
	// JobRunning reports whether job key runs in this process.
	JobRunning(key string) bool
	// ReleaseJob unmarks job key.
	ReleaseJob(key string)

	// ExportSource finds the table an export names by ARN in ns, which
	// must have point-in-time recovery on: the ARN's parse error,
	// TableNotFoundException, or PointInTimeRecoveryUnavailableException.
	// The caller holds the catalog lock.
	ExportSource(ns api.Namespace, tableArn string, now time.Time) (Source, error)
	// ItemsAsOf calls fn for each item of table id as of at, read from
	// snap's items and point-in-time history.
	ItemsAsOf(snap kv.Reader, id [16]byte, at time.Time, fn func(av.Item) error) error
	// ItemChanges calls fn for each item of table id written in (from,
	// to], with its images at from and at to (nil where it did not exist)
	// and the time of its last write in the window, from snap.
	ItemChanges(ctx context.Context, snap kv.Reader, id [16]byte, from, to time.Time, fn func(old, new av.Item, written time.Time) error) error

	// FreeTableName refuses (ResourceInUseException) a name a live table
	// of ns has, and forgets a table of that name that is gone. The caller
	// holds the catalog lock.
	FreeTableName(ns api.Namespace, name string, now time.Time) error
	// NewTable builds the table ImportTable creates, by CreateTable's
	// rules (in has passed its checks), within the account's limits; it
	// is stored by Table.Create. The caller holds the catalog lock.
	NewTable(ns api.Namespace, in *api.CreateTableInput, now time.Time) (Table, error)
	// LookupTable is the cached table name of ns, nil if none.
	LookupTable(ns api.Namespace, name string) Table
}

// Source is what an export reads of its table.
type Source struct {
	Name string
	ID   [16]byte
	// Keys are the key attributes' names, the partition key first (an
	// incremental export's Keys); KeyTypes their types (S, N or B).
	Keys     []string
	KeyTypes []string
	// Earliest is the table's EarliestRestorableDateTime.
	Earliest time.Time
}

// Table is one incarnation of the table an import loads, as the engine
// holds it.
type Table interface {
	// ID is the incarnation's table ID.
	ID() [16]byte
	// Create stages the new table in b, CREATING while job importArn
	// loads it; Cache shows it once b is committed.
	Create(b kv.Batch, importArn string) error
	Cache()
	// AttrType is the declared type of attribute name (a key of the table
	// or an index), "" if it has none.
	AttrType(name string) string
	// CheckItem applies PutItem's checks of values, keys and index keys.
	CheckItem(item av.Item) error
	// Write puts items through the write path (indexes and statistics
	// follow); ErrTableGone once the incarnation is deleted.
	Write(items []av.Item) error
	// Finish stages the live incarnation, its import cleared (ACTIVE), in
	// b and returns what shows it once b is committed; nil when the table
	// is gone. The caller holds the catalog lock.
	Finish(b kv.Batch) (done func(), err error)
	// Drop deletes the table and its items (the import failed).
	Drop()
}

// ErrTableGone is Table.Write's error once the table was deleted.
var ErrTableGone = errors.New("emulator: the table being imported into was deleted")

// Jobs is the engine's export and import jobs; its zero value is ready to
// use.
type Jobs struct {
	// Tasks runs the export and import jobs; Close (and losing the lead)
	// cancels them and waits.
	Tasks jobs.Group
	// FileItems, if set (tests), replaces defaultExportFileItems.
	FileItems int
	// AfterFile, if set (tests), runs after each data file an export
	// writes ("export") or each object an import reads ("import").
	AfterFile func(job string, n int)
}

const (
	// Export and Import are the key families of the records (the engine's
	// keyspace/keys.go lists every family):
	//
	//	'e' <account> 0x00 <region> 0x00 <export id>  → JSON exportMeta
	//	'j' <account> 0x00 <region> 0x00 <import id>  → JSON importMeta
	Export = 'e'
	Import = 'j'

	// recordVersion is the records' format version (the engine's
	// metaVersion).
	recordVersion = 1

	formatDynamoDBJSON = "DYNAMODB_JSON"
	formatION          = "ION"
	formatCSV          = "CSV"
)

// tableID is a table ID as the records store it: hex, as the engine's
// table metadata does.
type tableID [16]byte

// UUID formats the ID as DynamoDB's TableId.
func (id tableID) UUID() string { return api.UUIDString(id) }

// MarshalText keeps the ID readable in stored records.
func (id tableID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(id[:])), nil }

// UnmarshalText is the inverse of MarshalText.
func (id *tableID) UnmarshalText(b []byte) error {
	_, err := hex.Decode(id[:], b)
	return err
}

// jobRecord is what the records of exports and imports share, in the
// order both store it: the job's namespace and id, its table, its status
// and its times.
type jobRecord struct {
	Account   string    `json:"account"`
	Region    string    `json:"region"`
	ID        string    `json:"id"`
	TableName string    `json:"table"`
	TableID   tableID   `json:"tableID"`
	Status    string    `json:"status"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end,omitzero"`
}

func (r *jobRecord) ns() api.Namespace { return api.Namespace{Account: r.Account, Region: r.Region} }

func (r *jobRecord) tableARN() string { return r.ns().TableARN(r.TableName) }

// recordPrefix is the prefix of family fam's records of ns.
func recordPrefix(fam byte, ns api.Namespace) []byte {
	k := append([]byte{fam}, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	return append(k, 0)
}

// scanRecords decodes every record under prefix (a family's, of all
// namespaces or one).
func scanRecords[T any](r kv.Reader, prefix []byte) ([]*T, error) {
	it, err := r.NewIter(prefix, kv.PrefixEnd(prefix))
	if err != nil {
		return nil, err
	}
	var out []*T
	for ok := it.First(); ok; ok = it.Next() {
		var m T
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			_ = it.Close()
			return nil, fmt.Errorf("emulator: record at %q: %w", it.Key(), err)
		}
		out = append(out, &m)
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, err
	}
	return out, it.Close()
}

// getRecord decodes the record at key into m; false if there is none.
func getRecord(r kv.Reader, key []byte, m any) (bool, error) {
	v, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(v, m)
}

// putRecord stores m at key in b.
func putRecord(b kv.Batch, key []byte, m any) error {
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Set(key, v)
}

// s3Failure is the FailureCode and FailureMessage of a failed S3 access.
func s3Failure(err error) (code, msg string) {
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket):
		return "S3NoSuchBucket", "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchBucket)"
	case errors.Is(err, objstore.ErrAccessDenied):
		return "S3AccessDenied", "Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied)"
	}
	return "UNKNOWN", err.Error()
}

// recoverJob turns a panic of an export or import job into its error, so
// one bad object fails its job instead of the server.
func recoverJob(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("emulator: the job panicked: %v", r)
	}
}

func ref[T any](v T) *T { return &v }

// epochRef is t in epoch seconds, as the API's dates.
func epochRef(t time.Time) *float64 { return ref(api.EpochSeconds(t)) }

func strOrDefault(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}
