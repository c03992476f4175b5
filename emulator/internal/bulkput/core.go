package bulkput

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/jobs"
	"github.com/extenddb/extenddb/emulator/internal/s3format"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/rs/zerolog"
)

// Core is what bulk put uses of the engine.
type Core interface {
	// Now is the engine's clock.
	Now() time.Time
	// Store is the engine's store; the records live under Op and Report.
	Store() kv.Store
	// Commit commits b with the engine's durability setting and closes it.
	Commit(b kv.Batch) error
	// Objects is the S3 stand-in, nil when none is configured.
	Objects() objstore.Store
	// Log is the engine's logger.
	Log() *zerolog.Logger
	// InternalError is the engine's answer to an unexpected store failure.
	InternalError(err error) error
	// NewID is the id of an operation started at now.
	NewID(now time.Time) (string, error)
	// ClaimJob marks job key running in this process; false if it runs
	// already or this process does not lead.
	ClaimJob(key string) bool
	// ReleaseJob unmarks job key.
	ReleaseJob(key string)
	// Target resolves the table a StartBulkPutItems names (name or ARN)
	// in ns and applies the restrictions: ResourceNotFoundException,
	// ResourceInUseException (not ACTIVE, an index being created), or
	// ValidationException (a global table).
	Target(ns api.Namespace, nameOrARN string) (Table, error)
	// Table is the running operation's table, ErrTableGone once the
	// incarnation id is deleted.
	Table(ns api.Namespace, name string, id [16]byte) (Table, error)
}

// ErrTableGone is the error once the operation's table was deleted.
var ErrTableGone = errors.New("bulkput: the table was deleted")

// Table is one incarnation of a bulk operation's table.
type Table interface {
	Name() string
	ID() [16]byte
	// Write writes a chunk of puts. It takes the longest prefix puts[:n]
	// in which no item key repeats (the rest is the caller's next chunk),
	// checks each (a put with Err set is passed through as its outcome),
	// evaluates each condition on the stored item and writes the items
	// that pass through the write pipeline, in one commit with what stage
	// sets for the outcomes of the prefix. stage may run more than once
	// (a shared store retries the commit); it must set the same keys.
	Write(ctx context.Context, puts []Put, stage func(outs []Outcome, set func(k, v []byte) error) error) (n int, outs []Outcome, err error)
}

// Put is one record to write.
type Put struct {
	s3format.Record
	// Err is set for a record that did not parse: its outcome is an
	// ERROR without touching the table.
	Err error
	// Object and Pos locate the record: the object's index in the sorted
	// listing and the record's index in the object.
	Object int
	Pos    int64
	// Raw is the record's text (DynamoDB JSON), for the report.
	Raw []byte
}

// Outcome is what became of a put.
type Outcome struct {
	// Err is the reason an invalid put was not written (ERROR report).
	Err error
	// ConditionFailed is set when the put's condition did not hold;
	// Existing is the stored item then (nil when there was none).
	ConditionFailed bool
	Existing        av.Item
	// TableBytes is the size of the item written; Indexes what its
	// entries took in each index it is projected into.
	TableBytes int64
	Indexes    []IndexBytes
	// Vectors are the vector bytes of its entry in each vector index
	// (Local unused).
	Vectors []IndexBytes
}

// IndexBytes is the size of an index entry a put wrote.
type IndexBytes struct {
	Name  string
	Local bool
	Bytes int64
}

const (
	// Op and Report are the key families of the records (the engine's
	// keyspace/keys.go lists every family):
	//
	//	'u' <account> 0x00 <region> 0x00 <operation id>          → JSON opMeta
	//	'w' <operation id> 0x00 <kind> <object:4> <record:8>     → JSON report line
	Op     = 'u'
	Report = 'w'

	recordVersion = 1

	statusInProgress          = "IN_PROGRESS"
	statusCompleted           = "COMPLETED"
	statusCompletedWithErrors = "COMPLETED_WITH_ERRORS"
	statusCancelling          = "CANCELLING"
	statusCancelled           = "CANCELLED"
	statusFailed              = "FAILED"

	outputError     = "ERROR"
	outputCondition = "CONDITION_CHECK_FAILURE"

	kindError     = 'E'
	kindCondition = 'C'
)

// tableID is a table ID as the records store it (hex).
type tableID [16]byte

func (id tableID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(id[:])), nil }

func (id *tableID) UnmarshalText(b []byte) error {
	_, err := hex.Decode(id[:], b)
	return err
}

// opMeta is one bulk operation's stored record: its request, its status
// and its progress, rewritten in the commit of every chunk.
type opMeta struct {
	Version     int                       `json:"v"`
	Account     string                    `json:"account"`
	Region      string                    `json:"region"`
	ID          string                    `json:"id"`
	TableName   string                    `json:"table"`
	TableID     tableID                   `json:"tableID"`
	Status      string                    `json:"status"`
	Start       time.Time                 `json:"start"`
	End         time.Time                 `json:"end,omitzero"`
	ClientToken string                    `json:"token,omitempty"`
	Input       api.InputS3Configuration  `json:"input"`
	Output      api.OutputS3Configuration `json:"output"`
	MaxWRU      *int64                    `json:"maxWRU,omitempty"`
	Tier        string                    `json:"tier"`
	FailureCode string                    `json:"failureCode,omitempty"`
	FailureMsg  string                    `json:"failureMessage,omitempty"`

	// Progress: the next record to read is record Record of object
	// Object (of the sorted listing, whose key is ObjectKey).
	Object     int    `json:"object"`
	ObjectKey  string `json:"objectKey,omitempty"`
	Record     int64  `json:"record"`
	Processed  int64  `json:"processed"`
	Failed     int64  `json:"failed"`
	Conditions int64  `json:"conditions"`
	// DoneBytes are the input bytes of the objects finished, ReadBytes
	// those read so far (DoneBytes and the current object's part).
	DoneBytes  int64            `json:"doneBytes"`
	ReadBytes  int64            `json:"readBytes"`
	TotalBytes *int64           `json:"totalBytes,omitempty"`
	TableBytes int64            `json:"tableBytes"`
	GSIBytes   map[string]int64 `json:"gsiBytes,omitempty"`
	LSIBytes   map[string]int64 `json:"lsiBytes,omitempty"`
	// VecBytes are the vector indexes' BulkPutVectorBytes.
	VecBytes map[string]int64 `json:"vecBytes,omitempty"`
}

func (m *opMeta) ns() api.Namespace { return api.Namespace{Account: m.Account, Region: m.Region} }

// ARN is the table's ARN plus /bulk-operation/<id>.
func (m *opMeta) ARN() string { return m.ns().TableARN(m.TableName) + "/bulk-operation/" + m.ID }

func (m *opMeta) terminal() bool {
	switch m.Status {
	case statusInProgress, statusCancelling:
		return false
	}
	return true
}

// clone copies m deeply enough for a chunk's commit to work on.
func (m *opMeta) clone() *opMeta {
	c := *m
	c.GSIBytes = cloneMap(m.GSIBytes)
	c.LSIBytes = cloneMap(m.LSIBytes)
	c.VecBytes = cloneMap(m.VecBytes)
	return &c
}

func cloneMap(m map[string]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func recordPrefix(ns api.Namespace) []byte {
	k := append([]byte{Op}, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	return append(k, 0)
}

func opKey(ns api.Namespace, id string) []byte { return append(recordPrefix(ns), id...) }

func reportPrefix(id string) []byte {
	k := append([]byte{Report}, id...)
	return append(k, 0)
}

func reportKey(id string, kind byte, object int, pos int64) []byte {
	k := append(reportPrefix(id), kind)
	k = binary.BigEndian.AppendUint32(k, uint32(object))
	return binary.BigEndian.AppendUint64(k, uint64(pos))
}

func scanOps(r kv.Reader, prefix []byte) ([]*opMeta, error) {
	it, err := r.NewIter(prefix, kv.PrefixEnd(prefix))
	if err != nil {
		return nil, err
	}
	var out []*opMeta
	for ok := it.First(); ok; ok = it.Next() {
		var m opMeta
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			_ = it.Close()
			return nil, fmt.Errorf("bulkput: record at %q: %w", it.Key(), err)
		}
		out = append(out, &m)
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, err
	}
	return out, it.Close()
}

func getOp(r kv.Reader, key []byte) (*opMeta, error) {
	v, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m opMeta
	return &m, json.Unmarshal(v, &m)
}

func putOp(set func(k, v []byte) error, m *opMeta) error {
	m.Version = recordVersion
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return set(opKey(m.ns(), m.ID), v)
}

// run is a job running in this process: Cancel and the job's commits
// take mu, so a cancel is never overwritten by a chunk's progress.
type run struct {
	mu     sync.Mutex
	cancel bool
}

// Jobs is the engine's bulk operations; its zero value is ready to use.
type Jobs struct {
	// Tasks runs the jobs; Close (and losing the lead) cancels them.
	Tasks jobs.Group
	// Chunk, if set (tests), replaces defaultChunk.
	Chunk int
	// AfterChunk, if set (tests), runs after each chunk a job commits.
	AfterChunk func(processed int64)
	// mu guards runs and the counters: the operations started and those
	// ended, by final status (the /metrics counters).
	mu       sync.Mutex
	runs     map[string]*run
	started  int64
	finished map[string]int64
}

// Counts are the operations started in this process and those that ended,
// by final status.
func (x *Jobs) Counts() (started int64, finished map[string]int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.started, cloneMap(x.finished)
}

func (x *Jobs) lookupRun(id string) *run {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.runs[id]
}

func (x *Jobs) unregister(id, status string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.runs, id)
	if status != "" {
		if x.finished == nil {
			x.finished = map[string]int64{}
		}
		x.finished[status]++
	}
}

func ref[T any](v T) *T { return &v }

func epochRef(t time.Time) *float64 { return ref(api.EpochSeconds(t)) }
