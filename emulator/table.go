package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/autoscale"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/insights"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/kinesis"
	"github.com/extenddb/extenddb/emulator/internal/streams"
	"github.com/extenddb/extenddb/emulator/internal/ttl"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/throttle"
)

// Table, index and stream statuses.
const (
	statusCreating = "CREATING"
	statusUpdating = "UPDATING"
	statusDeleting = "DELETING"
	statusActive   = "ACTIVE"

	billingProvisioned   = "PROVISIONED"
	billingPayPerRequest = "PAY_PER_REQUEST"

	classStandard = "STANDARD"
	classIA       = "STANDARD_INFREQUENT_ACCESS"

	keyHash  = "HASH"
	keyRange = "RANGE"

	// On-demand tables and indexes start with this warm throughput.
	onDemandWarmRead  = 12000
	onDemandWarmWrite = 4000
)

// metaVersion is bumped when tableMeta's stored form changes incompatibly.
const metaVersion = 1

// keyElem is one key attribute of a table or index, with its type resolved
// from the attribute definitions.
type keyElem struct {
	Name    string `json:"n"`
	KeyType string `json:"k"` // HASH or RANGE
	Type    string `json:"t"` // S, N or B
}

// attrDef is one attribute definition.
type attrDef struct {
	Name string `json:"n"`
	Type string `json:"t"`
}

// ptState is provisioned capacity with its change bookkeeping.
type ptState struct {
	Read           int64     `json:"r,omitempty"`
	Write          int64     `json:"w,omitempty"`
	LastIncrease   time.Time `json:"li,omitzero"`
	LastDecrease   time.Time `json:"ld,omitzero"`
	DecreasesToday int64     `json:"dt,omitempty"`
	DecreaseDay    string    `json:"dd,omitempty"` // UTC date of DecreasesToday
}

// odtCaps is an OnDemandThroughput cap; 0 means "no cap" for a member.
type odtCaps struct {
	Read  int64 `json:"r,omitempty"`
	Write int64 `json:"w,omitempty"`
}

func (o odtCaps) set() bool { return o.Read > 0 || o.Write > 0 }

// warmState is a warm throughput and when its pending increase completes.
type warmState struct {
	Read  int64     `json:"r"`
	Write int64     `json:"w"`
	Until time.Time `json:"u,omitzero"`
}

// indexMeta describes one secondary index. The data plane keys its entries
// with indexPrefix(table.ID, ID).
type indexMeta struct {
	Name           string    `json:"name"`
	ID             uint32    `json:"id"`
	Local          bool      `json:"local,omitempty"`
	KeySchema      []keyElem `json:"keys"`
	ProjectionType string    `json:"proj"`
	NonKeyAttrs    []string  `json:"nonKey,omitempty"`
	Throughput     ptState   `json:"pt"`
	OnDemand       odtCaps   `json:"odt"`
	Warm           warmState `json:"warm"`
	// Backfill marks an index added by UpdateTable, whose items a job
	// copies in (backfill.go); CreateTable indexes start empty.
	Backfill bool `json:"backfill,omitempty"`
	// Backfilling is set until that job has copied the last item: the
	// index is CREATING until then, whatever the transition delay says.
	Backfilling   bool      `json:"backfilling,omitempty"`
	CreatingUntil time.Time `json:"creatingUntil,omitzero"`
	UpdatingUntil time.Time `json:"updatingUntil,omitzero"`
	// Deleted is set by a GSI Delete; the entry stays listed as DELETING
	// until DeletingUntil and is then dropped.
	Deleted       bool      `json:"deleted,omitempty"`
	DeletingUntil time.Time `json:"deletingUntil,omitzero"`
	// Insights is the index's Contributor Insights setting (insights.go).
	Insights *insights.Setting `json:"ci,omitempty"`

	// Scaling is the index's auto scaling (emulator/internal/autoscale);
	// nil: none.
	Scaling *autoscale.Scaling `json:"scaling,omitempty"`

	// thr is a GSI's throttle handle, set with its table's (see
	// throttle_engine.go); nil for an LSI, which shares its table's
	// capacity. Not stored.
	thr *throttle.Index
	// ci counts the GSI's keys while Contributor Insights is on
	// (insights.go); not stored.
	ci *insights.Counter
}

// status derives the index status at now.
func (ix *indexMeta) status(now time.Time) string {
	switch {
	case ix.Deleted:
		return statusDeleting
	case ix.Backfilling, now.Before(ix.CreatingUntil):
		return statusCreating
	case now.Before(ix.UpdatingUntil):
		return statusUpdating
	}
	return statusActive
}

// gone reports whether a deleted index has finished deleting at now.
func (ix *indexMeta) gone(now time.Time) bool {
	return ix.Deleted && !now.Before(ix.DeletingUntil)
}

// tableMeta is everything the engine knows about one table. A *tableMeta
// handed out by the cache is never modified: changes build a copy (clone),
// persist it and swap it in, so readers need no lock.
//
// It is stored as JSON. The state of each capability is a struct of its
// own (tableBilling, streams.Spec, tableSSE, tableClassState, tableAccess,
// ttl.TTL, globaltables.Membership, backups.PITR, tableTransitions, tableSource,
// tableInsights), embedded without a json tag: encoding/json promotes the
// group's fields, so the stored JSON is the flat object it always was
// (TestTableMetaJSONGolden pins it), and Go code reads them as before
// (t.StreamEnabled). A group's fields must keep their place in the stored
// order, and no two groups may share a field name.
type tableMeta struct {
	Version   int              `json:"v"`
	Account   string           `json:"account"`
	Region    string           `json:"region"`
	Name      string           `json:"name"`
	ID        keyspace.TableID `json:"id"`
	CreatedAt time.Time        `json:"createdAt"`

	KeySchema []keyElem `json:"keys"`
	// AttrDefs holds every definition ever accepted; descriptions report
	// only those a live key still uses, as DynamoDB prunes them.
	AttrDefs []attrDef `json:"attrs"`

	tableBilling

	GSIs        []*indexMeta `json:"gsis,omitempty"`
	LSIs        []*indexMeta `json:"lsis,omitempty"`
	NextIndexID uint32       `json:"nextIndexID"`
	// Vectors are the table's vector indexes (vector_control.go); their
	// IDs come from NextIndexID too.
	Vectors []*vectorIndex `json:"vecs,omitempty"`

	streams.Spec // DynamoDB Streams (emulator/internal/streams)
	tableSSE
	tableClassState
	tableAccess
	// TTL is the table's Time to Live setting (emulator/internal/ttl).
	ttl.TTL
	globaltables.Membership // the table's global table membership (emulator/internal/globaltables)

	// Kinesis is the table's Kinesis streaming destinations
	// (emulator/internal/kinesis).
	Kinesis kinesis.Destinations `json:"kinesis,omitempty"`

	// Scaling is the table's auto scaling (emulator/internal/autoscale):
	// read settings are this Region's, write settings the group's, kept in
	// step.
	Scaling *autoscale.Scaling `json:"scaling,omitempty"`

	backups.PITR // point-in-time recovery (emulator/internal/backups)
	tableTransitions
	tableSource
	tableInsights

	// thr is the table's throttle handle, set by cacheTable (see
	// throttle_engine.go); not stored.
	thr *throttle.Table
	// streamsView is what the streams package reads of the table, built
	// once by cacheTable rather than on every write; not stored.
	streamsView *streams.Table
}

// tableBilling is the table's billing mode and capacity: CreateTable and
// UpdateTable set it (control_create.go, control_update.go), the throttle
// (throttle_engine.go) enforces it.
type tableBilling struct {
	BillingMode string `json:"billing"`
	// LastPayPerRequest is when the table last became PAY_PER_REQUEST
	// (zero if it never was); BillingModeSummary is shown once it is set.
	LastPayPerRequest time.Time `json:"lastPPR,omitzero"`
	EverPayPerRequest bool      `json:"everPPR,omitempty"`
	Throughput        ptState   `json:"pt"`
	OnDemand          odtCaps   `json:"odt"`
	Warm              warmState `json:"warm"`
}

// tableSSE is the table's encryption at rest, its SSESpecification
// (control_create.go, control_update.go).
type tableSSE struct {
	SSEEnabled   bool   `json:"sse,omitempty"`
	SSEKMSKeyArn string `json:"sseKey,omitempty"`
}

// tableClassState is the table's class, STANDARD or
// STANDARD_INFREQUENT_ACCESS (control_update.go).
type tableClassState struct {
	TableClass       string    `json:"class,omitempty"`
	TableClassSet    bool      `json:"classSet,omitempty"`
	TableClassUpdate time.Time `json:"classUpdate,omitzero"`
}

// tableAccess is what guards and labels the table: deletion protection
// (DeleteTable, control_tables.go), resource-based policies
// (resource_policy.go) and tags (TagResource, control_misc.go).
type tableAccess struct {
	DeletionProtection bool `json:"dp,omitempty"`
	// ResourcePolicy is the unversioned CreateTable policy of metadata
	// written before Policy existed (read through policyOf).
	ResourcePolicy string `json:"policy,omitempty"`
	// Policy is the table's resource-based policy, StreamPolicies those of
	// its streams by label (resource_policy.go).
	Policy         *resourcePolicy            `json:"rpolicy,omitempty"`
	StreamPolicies map[string]*resourcePolicy `json:"streamPolicies,omitempty"`
	Tags           []api.Tag                  `json:"tags,omitempty"`
}

// tableTransitions is the table's status timers: how long the transition
// delay keeps it CREATING, UPDATING or DELETING (status; CreateTable,
// UpdateTable and DeleteTable in control_create.go, control_update.go and
// control_tables.go).
type tableTransitions struct {
	CreatingUntil time.Time `json:"creatingUntil,omitzero"`
	UpdatingUntil time.Time `json:"updatingUntil,omitzero"`
	// UpdatingWhat names the change in flight, for ResourceInUse messages.
	UpdatingWhat string `json:"updatingWhat,omitempty"`
	// Deleting is set by DeleteTable when a transition delay keeps the
	// table visible as DELETING until DeletingUntil.
	Deleting      bool      `json:"deleting,omitempty"`
	DeletingUntil time.Time `json:"deletingUntil,omitzero"`
}

// tableSource is the job filling a table made by a restore
// (emulator/internal/backups) or an import (emulator/internal/s3io); the
// table is CREATING while it runs.
type tableSource struct {
	// Restore is set on a table made by RestoreTableFromBackup or
	// RestoreTableToPointInTime; while its InProgress is set the restore
	// job is copying the items in and the table is CREATING.
	Restore *backups.Restore `json:"restore,omitempty"`
	// Importing is the ARN of the ImportTable job (s3io_core.go) loading
	// the table; while it is set the table is CREATING.
	Importing string `json:"importing,omitempty"`
}

// tableInsights is the table's Contributor Insights (insights.go,
// emulator/internal/insights).
type tableInsights struct {
	// Insights is the table's Contributor Insights setting (insights.go).
	Insights *insights.Setting `json:"ci,omitempty"`
	// ci counts the table's keys while Contributor Insights is on
	// (insights.go); not stored.
	ci *insights.Counter
}

func (t *tableMeta) ns() api.Namespace { return api.Namespace{Account: t.Account, Region: t.Region} }

// ARN is the table's ARN.
func (t *tableMeta) ARN() string { return t.ns().TableARN(t.Name) }

// status derives the table status at now.
func (t *tableMeta) status(now time.Time) string {
	switch {
	case t.Deleting:
		return statusDeleting
	case t.Restore != nil && t.Restore.InProgress, t.Importing != "", now.Before(t.CreatingUntil):
		return statusCreating
	case now.Before(t.UpdatingUntil), t.vectorAllocating():
		return statusUpdating
	}
	if len(t.Group) > 0 {
		if s := t.GroupStatus(t.Region, now); s != "" {
			return s
		}
	}
	return statusActive
}

// gone reports whether a deleting table has finished deleting at now.
func (t *tableMeta) gone(now time.Time) bool {
	return t.Deleting && !now.Before(t.DeletingUntil)
}

// hashKey and rangeKey return the table's key attributes; rangeKey's ok is
// false for a hash-only table.
func (t *tableMeta) hashKey() keyElem { return t.KeySchema[0] }

func (t *tableMeta) rangeKey() (keyElem, bool) {
	if len(t.KeySchema) < 2 {
		return keyElem{}, false
	}
	return t.KeySchema[1], true
}

// index returns the live (not gone) GSI or LSI named name.
func (t *tableMeta) index(name string, now time.Time) (*indexMeta, bool) {
	for _, ix := range t.LSIs {
		if ix.Name == name {
			return ix, true
		}
	}
	for _, ix := range t.GSIs {
		if ix.Name == name && !ix.gone(now) {
			return ix, true
		}
	}
	return nil, false
}

// liveGSIs returns the GSIs not yet gone at now (DELETING ones included).
func (t *tableMeta) liveGSIs(now time.Time) []*indexMeta {
	out := make([]*indexMeta, 0, len(t.GSIs))
	for _, ix := range t.GSIs {
		if !ix.gone(now) {
			out = append(out, ix)
		}
	}
	return out
}

// usedAttrDefs returns the attribute definitions a live key uses, sorted by
// name as DescribeTable reports them.
func (t *tableMeta) usedAttrDefs(now time.Time) []attrDef {
	used := map[string]bool{}
	for _, k := range t.KeySchema {
		used[k.Name] = true
	}
	for _, ix := range t.LSIs {
		for _, k := range ix.KeySchema {
			used[k.Name] = true
		}
	}
	for _, ix := range t.liveGSIs(now) {
		for _, k := range ix.KeySchema {
			used[k.Name] = true
		}
	}
	out := make([]attrDef, 0, len(used))
	for _, d := range t.AttrDefs {
		if used[d.Name] {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (t *tableMeta) attrType(name string) (string, bool) {
	for _, d := range t.AttrDefs {
		if d.Name == name {
			return d.Type, true
		}
	}
	return "", false
}

// clone returns a deep copy to modify.
func (t *tableMeta) clone() *tableMeta {
	b, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("emulator: table metadata does not marshal: %v", err))
	}
	var c tableMeta
	if err := json.Unmarshal(b, &c); err != nil {
		panic(fmt.Sprintf("emulator: table metadata does not unmarshal: %v", err))
	}
	return &c
}

// dropGone removes deleted indexes whose deletion has completed.
func (t *tableMeta) dropGone(now time.Time) {
	kept := t.GSIs[:0]
	for _, ix := range t.GSIs {
		if !ix.gone(now) {
			kept = append(kept, ix)
		}
	}
	t.GSIs = kept
}

// namespaceTables is the cached tables of one namespace.
type namespaceTables map[string]*tableMeta

// loadTables fills the cache from the store (at start-up).
// The generation and the tables come from one snapshot (catalog.go).
func (e *Engine) loadTables() error {
	snap := e.opts.Store.NewSnapshot()
	defer snap.Close()
	g, err := readGen(snap)
	if err != nil {
		return err
	}
	ts, err := readTables(snap)
	if err != nil {
		return err
	}
	for _, t := range ts {
		e.cacheTable(t)
	}
	e.cat.gen = g
	return nil
}

// cacheTable stores t in the cache; the caller holds e.mu (or is New).
func (e *Engine) cacheTable(t *tableMeta) {
	ns := t.ns()
	m := e.tables[ns]
	if m == nil {
		m = namespaceTables{}
		e.tables[ns] = m
	}
	e.throttleCached(t)
	e.insightsCached(t)
	t.streamsView = newStreamsTable(t)
	m[t.Name] = t
}

func (e *Engine) uncacheTable(ns api.Namespace, name string) {
	if m := e.tables[ns]; m != nil {
		if t := m[name]; t != nil {
			e.items.stats.forget(t.ID)
			e.vec.drop(t.ID, 0)
		}
		delete(m, name)
	}
	e.throttleUncached(ns, name)
	e.ci.Forget(ns, name)
}

// lookup returns the cached table or nil; a table whose deletion has
// completed counts as absent. The caller holds e.mu (read or write).
func (e *Engine) lookup(ns api.Namespace, name string, now time.Time) *tableMeta {
	t := e.tables[ns][name]
	if t == nil || t.gone(now) {
		return nil
	}
	return t
}

// resolveName turns a TableName member (bare name or table ARN) into the
// namespace and name it designates. Another account's ARN resolves in that
// account, as cross-account access through resource policies does; another
// Region's ARN is rejected as DynamoDB rejects it.
func resolveName(ns api.Namespace, nameOrARN string) (api.Namespace, string, error) {
	if !strings.HasPrefix(nameOrARN, "arn:") {
		return ns, nameOrARN, nil
	}
	a, err := parseARN(nameOrARN)
	if err != nil {
		return ns, "", err
	}
	if a.partition != ns.Partition() {
		return ns, "", api.Validation("1 validation error detected: Invalid AWS partition in '%s'", nameOrARN)
	}
	if a.region != ns.Region {
		return ns, "", api.Validation("1 validation error detected: Invalid AWS region in '%s'", nameOrARN)
	}
	if a.index != "" || a.stream != "" || a.table == "" {
		return ns, "", api.Validation("1 validation error detected: Invalid resource type in '%s'", nameOrARN)
	}
	return api.Namespace{Account: a.account, Region: a.region}, a.table, nil
}

// arn is a parsed DynamoDB ARN.
type arnParts struct {
	partition, service, region, account string
	table, index, stream                string
}

// parseARN splits arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME[/index/I|/stream/S].
// It runs on every ARN-form data-plane request, so it slices instead of
// splitting and builds errors only when it fails.
func parseARN(s string) (arnParts, error) {
	bad := func() error {
		return api.Validation("1 validation error detected: Valid ARN format is arn:partition:dynamodb:region:account-id:table/table-name in '%s'", s)
	}
	var f [5]string
	rest := s
	for i := range f {
		j := strings.IndexByte(rest, ':')
		if j < 0 {
			return arnParts{}, bad()
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	if f[0] != "arn" {
		return arnParts{}, bad()
	}
	a := arnParts{partition: f[1], service: f[2], region: f[3], account: f[4]}
	if a.service != "dynamodb" || !strings.HasPrefix(rest, "table/") {
		return a, api.Validation("1 validation error detected: Invalid resource type in '%s'", s)
	}
	rest = rest[len("table/"):]
	a.table = rest
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		a.table = rest[:j]
		sub := rest[j+1:]
		k := strings.IndexByte(sub, '/')
		if k < 0 || k == len(sub)-1 || strings.IndexByte(sub[k+1:], '/') >= 0 {
			return a, bad()
		}
		switch sub[:k] {
		case "index":
			a.index = sub[k+1:]
		case "stream":
			a.stream = sub[k+1:]
		default:
			return a, bad()
		}
	}
	if a.table == "" || a.region == "" || a.account == "" {
		return a, bad()
	}
	return a, nil
}

// table resolves a TableName (bare name or ARN) for the data plane. It
// returns tables in every state but gone (check t.status for ACTIVE), and
// ResourceNotFoundException with DynamoDB's message otherwise. The returned
// *tableMeta must not be modified.
func (e *Engine) table(ns api.Namespace, nameOrARN string) (*tableMeta, error) {
	tns, name, err := resolveName(ns, nameOrARN)
	if err != nil {
		return nil, err
	}
	e.rlockCatalog()
	t := e.lookup(tns, name, e.now())
	e.mu.RUnlock()
	if t == nil {
		return nil, api.TableNotFound(name)
	}
	return t, nil
}

// tableStats and indexStats are in write_stats.go; the backfill in backfill.go.

// putTable writes t's metadata in b, with a new catalog generation
// (catalog.go), and, once b commits, the caller caches t.
func putTable(b kv.Batch, t *tableMeta) error {
	t.Version = metaVersion
	v, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := b.Set(keyspace.MetaKey(t.ns(), t.Name), v); err != nil {
		return err
	}
	return bumpGen(b)
}

// commit commits b with the engine's durability setting and closes it.
func (e *Engine) commit(b kv.Batch) error {
	defer b.Close()
	if err := b.Commit(e.opts.Sync); err != nil {
		return fmt.Errorf("emulator: commit: %w", err)
	}
	return nil
}

// saveTable persists t and swaps it into the cache. The caller holds e.mu.
func (e *Engine) saveTable(t *tableMeta) error {
	b := e.opts.Store.NewBatch()
	if err := putTable(b, t); err != nil {
		_ = b.Close()
		return err
	}
	if err := e.commit(b); err != nil {
		return err
	}
	e.cacheTable(t)
	return nil
}

// dropTableData deletes every key of table id in b.
func dropTableData(b kv.Batch, id keyspace.TableID) error {
	for _, p := range [][]byte{keyspace.ItemPrefix(id), keyspace.IndexesPrefix(id), keyspace.StreamPrefix(id), versionPrefix(id), outboxPrefix(id), pitrPrefix(id)} {
		if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return nil
}

// internalError wraps an unexpected store failure; the wire layer answers 500.
func internalError(err error) error {
	var de *api.Error
	if errors.As(err, &de) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// A request stopped by its context stays recognisable as such: the
		// wire layer answers a deadline and drops a client that left.
		return err
	}
	if errors.Is(err, kv.ErrUnavailable) {
		// A full disk or a stalled write: DynamoDB's own answer to a failing
		// service, which the SDKs retry. The store logs the cause.
		return &api.Error{Code: api.CodeInternalServerError, Message: "Internal server error"}
	}
	return &api.Error{Code: api.CodeInternalServerError, Message: "Internal server error: " + err.Error()}
}
