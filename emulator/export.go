package emulator

// ExportTableToPointInTime's stored form, its job and its recovery.
//
// Keyspace (beside keys.go's families):
//
//	'e' <account> 0x00 <region> 0x00 <export id>  → JSON exportMeta
//
// The export id is the ARN's suffix (as a backup's, "0" + 13-digit epoch ms
// + "-" + 8 hex digits), so an ExportArn names its record directly.
//
// Consistency. The request takes a store snapshot and writes the record
// (IN_PROGRESS) under e.mu; a job then writes the layout of an AWS export
// (control-plane-facts §5.2) from the snapshot to the S3 stand-in:
// _started first (it proves the bucket is writable; a missing bucket ends
// the export FAILED/S3NoSuchBucket as on AWS), then the data files, then
// manifest-files.json and manifest-summary.json with their .md5 files, and
// only then the record COMPLETED. The job reads the table as of ExportTime
// from the snapshot's items and point-in-time history (pitr.go's asOfIter),
// so any moment of the recovery window can be exported.
//
// Recovery. A snapshot does not survive a restart and a copy resumed from
// the live table would not be the table at ExportTime, so New fails every
// export left IN_PROGRESS. Its manifests were never written, so no reader
// of the prefix takes the partial data files for a finished export.

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/ion"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/klauspost/compress/gzip"
)

const (
	famExport = 'e'

	exportInProgress = "IN_PROGRESS"
	exportCompleted  = "COMPLETED"
	exportFailed     = "FAILED"

	formatDynamoDBJSON = "DYNAMODB_JSON"
	formatION          = "ION"
	formatCSV          = "CSV"

	exportFull        = "FULL_EXPORT"
	exportIncremental = "INCREMENTAL_EXPORT"

	// defaultExportFileItems is how many items go in one data file.
	defaultExportFileItems = 100_000

	// exportTimeSlack is how far ExportTime may lie after the request:
	// clients send "now" read from their own clock.
	exportTimeSlack = 5 * time.Second
)

// exportMeta is one export's stored record.
type exportMeta struct {
	Version int `json:"v"`
	// Owner is the process running it, on a shared store (lease.go):
	// the leader fails it once that process is gone.
	Owner       string                          `json:"proc,omitempty"`
	Account     string                          `json:"account"`
	Region      string                          `json:"region"`
	ID          string                          `json:"id"`
	TableName   string                          `json:"table"`
	TableID     tableID                         `json:"tableID"`
	Status      string                          `json:"status"`
	Start       time.Time                       `json:"start"`
	End         time.Time                       `json:"end,omitzero"`
	ExportTime  time.Time                       `json:"exportTime"`
	ClientToken string                          `json:"token,omitempty"`
	Bucket      string                          `json:"bucket"`
	BucketOwner *string                         `json:"owner,omitempty"`
	Prefix      *string                         `json:"prefix,omitempty"`
	SSE         *string                         `json:"sse,omitempty"`
	SSEKey      *string                         `json:"sseKey,omitempty"`
	Format      string                          `json:"format"`
	Type        string                          `json:"type"`
	Incremental *IncrementalExportSpecification `json:"incr,omitempty"`
	// KeyNames are the table's key attributes (an incremental export's
	// Keys).
	KeyNames       []string `json:"keys,omitempty"`
	Manifest       string   `json:"manifest,omitempty"`
	FailureCode    string   `json:"failureCode,omitempty"`
	FailureMessage string   `json:"failureMessage,omitempty"`
	Billed         int64    `json:"billed,omitempty"`
	Items          int64    `json:"items,omitempty"`
}

func (m *exportMeta) ns() Namespace { return Namespace{Account: m.Account, Region: m.Region} }

func (m *exportMeta) tableARN() string { return m.ns().TableARN(m.TableName) }

// ARN is the export's ARN: the table's plus /export/<id>.
func (m *exportMeta) ARN() string { return m.tableARN() + "/export/" + m.ID }

// base is the key prefix of everything the export writes.
func (m *exportMeta) base() string {
	p := ""
	if m.Prefix != nil && *m.Prefix != "" {
		p = strings.TrimSuffix(*m.Prefix, "/") + "/"
	}
	return p + "AWSDynamoDB/" + m.ID + "/"
}

func exportPrefix(ns Namespace) []byte {
	k := append([]byte{famExport}, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	return append(k, 0)
}

func exportKey(ns Namespace, id string) []byte { return append(exportPrefix(ns), id...) }

func putExport(b kv.Batch, m *exportMeta) error {
	m.Version = metaVersion
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Set(exportKey(m.ns(), m.ID), v)
}

// exportState is the engine's export (and import) jobs. New initialises it.
type exportState struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// fileItems, if set (tests), replaces defaultExportFileItems.
	fileItems int
	// afterFile, if set (tests), runs after each data file an export
	// writes ("export") or each object an import reads ("import").
	afterFile func(job string, n int)
}

func (s *exportState) init() {
	s.ctx, s.cancel = context.WithCancel(context.Background())
}

func (s *exportState) stop() {
	s.cancel()
	s.wg.Wait()
}

// scanRecords decodes every record of family fam (all namespaces, or one).
func scanRecords[T any](r kv.Reader, prefix []byte) ([]*T, error) {
	it, err := r.NewIter(prefix, prefixEnd(prefix))
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

var s3BucketPattern = `^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`

func validBucket(s string) bool {
	if len(s) < 2 {
		return false
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
	if !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func validAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clientToken checks a ClientToken (pattern ^[^\$]+$, at most 36).
// s3Bucket checks a bucket's name and its owner's account (the members'
// paths given), as export and import requests name them.
func (v *violations) s3Bucket(member, ownerMember string, bucket, owner *string) {
	if bucket == nil {
		v.null(member)
	} else {
		v.length(member, *bucket, 0, 255)
		if !validBucket(*bucket) {
			v.add(quoteValue(*bucket), member, "Member must satisfy regular expression pattern: "+s3BucketPattern)
		}
	}
	if owner != nil && !validAccountID(*owner) {
		v.add(quoteValue(*owner), ownerMember, "Member must satisfy regular expression pattern: [0-9]{12}")
	}
}

func (v *violations) clientToken(s *string) {
	if s == nil {
		return
	}
	v.length("clientToken", *s, 1, 36)
	if *s == "" || strings.Contains(*s, "$") {
		v.add(quoteValue(*s), "clientToken", `Member must satisfy regular expression pattern: ^[^\$]+$`)
	}
}

// validateExport runs the model's member constraints in its order.
func validateExport(in *ExportTableToPointInTimeInput) error {
	var v violations
	if in.TableArn == nil {
		v.null("tableArn")
	} else {
		v.length("tableArn", *in.TableArn, 1, 1024)
	}
	v.clientToken(in.ClientToken)
	v.s3Bucket("s3Bucket", "s3BucketOwner", in.S3Bucket, in.S3BucketOwner)
	if in.S3Prefix != nil {
		v.length("s3Prefix", *in.S3Prefix, 1, 1024)
	}
	v.enum("s3SseAlgorithm", in.S3SseAlgorithm, "AES256", "KMS")
	if in.S3SseKmsKeyId != nil {
		v.length("s3SseKmsKeyId", *in.S3SseKmsKeyId, 1, 2048)
	}
	v.enum("exportFormat", in.ExportFormat, formatDynamoDBJSON, formatION)
	v.enum("exportType", in.ExportType, exportFull, exportIncremental)
	if s := in.IncrementalExportSpecification; s != nil {
		v.enum("incrementalExportSpecification.exportViewType", s.ExportViewType, "NEW_IMAGE", "NEW_AND_OLD_IMAGES")
	}
	return v.err()
}

func timeOf(f float64) time.Time { return time.UnixMilli(int64(f * 1000)).UTC() }

// ExportTableToPointInTime starts a full export of a table with PITR on to
// the S3 stand-in; the answer is IN_PROGRESS and a job writes the files.
func (e *Engine) ExportTableToPointInTime(ctx context.Context, ns Namespace, in *ExportTableToPointInTimeInput) (*ExportTableToPointInTimeOutput, error) {
	if in == nil {
		in = &ExportTableToPointInTimeInput{}
	}
	if err := validateExport(in); err != nil {
		return nil, err
	}
	typ := strOrDefault(in.ExportType, exportFull)
	if typ == exportIncremental && in.IncrementalExportSpecification == nil {
		return nil, Validation("IncrementalExportSpecification must be provided when ExportType is INCREMENTAL_EXPORT")
	}
	if typ == exportFull && in.IncrementalExportSpecification != nil {
		return nil, Validation("IncrementalExportSpecification can only be provided when ExportType is INCREMENTAL_EXPORT")
	}
	a, err := parseARN(*in.TableArn)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	var t *tableMeta
	if a.index == "" && a.stream == "" && a.account == ns.Account && a.region == ns.Region && a.partition == ns.Partition() {
		t = e.lookup(ns, a.table, now)
	}
	if t == nil {
		return nil, NewError(CodeTableNotFound, "Table not found: %s", *in.TableArn)
	}
	if !t.PITREnabled {
		return nil, pitrUnavailable(t.Name)
	}
	if typ == exportIncremental {
		// The window must lie in the recovery window, the start first.
		// DynamoDB's 15-minute minimum and 24-hour maximum are not
		// enforced (docs/differences.md).
		spec := in.IncrementalExportSpecification
		earliest, _ := e.pitrWindow(t, now)
		if spec.ExportFromTime == nil || timeOf(*spec.ExportFromTime).Before(earliest.Truncate(time.Second)) ||
			(spec.ExportToTime != nil && (timeOf(*spec.ExportToTime).After(now) || !timeOf(*spec.ExportToTime).After(timeOf(*spec.ExportFromTime)))) {
			return nil, NewError(CodeInvalidExportTime, "Export Time is invalid")
		}
	}
	at := now
	if in.ExportTime != nil {
		at = timeOf(*in.ExportTime)
		// Any moment of the recovery window; clients send "now" read from
		// their own clock, so a second of slack past it is taken as now.
		earliest, _ := e.pitrWindow(t, now)
		if at.After(now.Add(exportTimeSlack)) || at.Before(earliest.Truncate(time.Second)) {
			return nil, NewError(CodeInvalidExportTime, "Export Time is invalid")
		}
		if at.After(now) {
			at = now
		}
	}
	m := &exportMeta{Owner: e.jobOwner(), Account: ns.Account, Region: ns.Region, TableName: t.Name, TableID: t.ID,
		Status: exportInProgress, Start: now, ExportTime: at, Bucket: *in.S3Bucket,
		BucketOwner: in.S3BucketOwner, Prefix: in.S3Prefix, SSE: in.S3SseAlgorithm, SSEKey: in.S3SseKmsKeyId,
		Format: strOrDefault(in.ExportFormat, formatDynamoDBJSON), Type: typ, Incremental: in.IncrementalExportSpecification}
	if typ == exportIncremental {
		spec := *in.IncrementalExportSpecification
		if spec.ExportToTime == nil {
			spec.ExportToTime = refOf(epochSeconds(now))
		}
		if spec.ExportViewType == nil {
			spec.ExportViewType = refOf("NEW_AND_OLD_IMAGES")
		}
		m.Incremental = &spec
		for _, k := range t.KeySchema {
			m.KeyNames = append(m.KeyNames, k.Name)
		}
	}
	if in.ClientToken != nil {
		m.ClientToken = *in.ClientToken
		old, err := e.exportByToken(ns, m.ClientToken)
		if err != nil {
			return nil, internalError(err)
		}
		if old != nil {
			if !sameExport(old, m, in.ExportTime != nil) {
				return nil, NewError(CodeExportConflict, "Duplicate request detected with conflicting parameters")
			}
			return &ExportTableToPointInTimeOutput{ExportDescription: describeExport(old)}, nil
		}
	}
	if m.ID, err = newBackupID(now); err != nil {
		return nil, internalError(err)
	}
	snap := e.opts.Store.NewSnapshot()
	b := e.opts.Store.NewBatch()
	if err := putExport(b, m); err != nil {
		_ = b.Close()
		_ = snap.Close()
		return nil, internalError(err)
	}
	if err := e.commit(b); err != nil {
		_ = snap.Close()
		return nil, internalError(err)
	}
	d := describeExport(m)
	e.startExport(m, snap)
	return &ExportTableToPointInTimeOutput{ExportDescription: d}, nil
}

func eqStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// sameExport reports whether a retried request asks for the export old is
// (the same token may only repeat the same parameters).
func sameExport(old, m *exportMeta, timed bool) bool {
	if old.TableName != m.TableName || old.Bucket != m.Bucket || !eqStr(old.BucketOwner, m.BucketOwner) ||
		!eqStr(old.Prefix, m.Prefix) || !eqStr(old.SSE, m.SSE) || !eqStr(old.SSEKey, m.SSEKey) ||
		old.Format != m.Format || old.Type != m.Type {
		return false
	}
	return !timed || old.ExportTime.Equal(m.ExportTime)
}

// exportByToken finds ns's export with ClientToken token, or nil.
func (e *Engine) exportByToken(ns Namespace, token string) (*exportMeta, error) {
	all, err := scanRecords[exportMeta](e.opts.Store, exportPrefix(ns))
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		if m.ClientToken == token {
			return m, nil
		}
	}
	return nil, nil
}

func describeExport(m *exportMeta) *ExportDescription {
	d := &ExportDescription{ExportArn: m.ARN(), ExportStatus: m.Status, StartTime: refOf(epochSeconds(m.Start)),
		TableArn: m.tableARN(), TableId: m.TableID.UUID(), ExportTime: refOf(epochSeconds(m.ExportTime)),
		S3Bucket: m.Bucket, S3BucketOwner: m.BucketOwner, S3Prefix: m.Prefix, S3SseAlgorithm: m.SSE,
		S3SseKmsKeyId: m.SSEKey, ExportFormat: m.Format, ExportType: m.Type, IncrementalExportSpecification: m.Incremental}
	if m.ClientToken != "" {
		d.ClientToken = refOf(m.ClientToken)
	}
	switch m.Status {
	case exportCompleted:
		d.EndTime = refOf(epochSeconds(m.End))
		d.ExportManifest = refOf(m.Manifest)
		d.ItemCount, d.BilledSizeBytes = refOf(m.Items), refOf(m.Billed)
	case exportFailed:
		d.EndTime = refOf(epochSeconds(m.End))
		d.FailureCode, d.FailureMessage = refOf(m.FailureCode), refOf(m.FailureMessage)
	}
	return d
}

// parseExportARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/export/ID.
func parseExportARN(s string) (ns Namespace, partition, table, id string, ok bool) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "export" || parts[3] == "" {
		return ns, "", "", "", false
	}
	return Namespace{Account: f[4], Region: f[3]}, f[1], parts[1], parts[3], f[2] == "dynamodb"
}

// DescribeExport reports an export.
func (e *Engine) DescribeExport(ctx context.Context, ns Namespace, in *DescribeExportInput) (*DescribeExportOutput, error) {
	if in == nil {
		in = &DescribeExportInput{}
	}
	var v violations
	if in.ExportArn == nil {
		v.null("exportArn")
	} else {
		v.length("exportArn", *in.ExportArn, 37, 1024)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	ens, part, _, id, ok := parseExportARN(*in.ExportArn)
	if !ok && (part == "" || ens.Region == "") {
		return nil, Validation("Invalid Export ARN")
	}
	if !ok || ens != ns || part != ns.Partition() {
		return nil, NewError(CodeAccessDenied, "Access is denied")
	}
	m, err := e.getExport(ns, id)
	if err != nil {
		return nil, internalError(err)
	}
	if m == nil || m.ARN() != *in.ExportArn {
		return nil, NewError(CodeExportNotFound, "Export not found: %s", *in.ExportArn)
	}
	return &DescribeExportOutput{ExportDescription: describeExport(m)}, nil
}

func (e *Engine) getExport(ns Namespace, id string) (*exportMeta, error) {
	v, err := e.opts.Store.Get(exportKey(ns, id))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m exportMeta
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ListExports lists the namespace's exports (of one table with TableArn),
// running and failed ones too, in reverse ExportArn order.
func (e *Engine) ListExports(ctx context.Context, ns Namespace, in *ListExportsInput) (*ListExportsOutput, error) {
	if in == nil {
		in = &ListExportsInput{}
	}
	var v violations
	if in.TableArn != nil {
		v.length("tableArn", *in.TableArn, 1, 1024)
	}
	v.min("maxResults", in.MaxResults, 1)
	v.max("maxResults", in.MaxResults, 25)
	if err := v.err(); err != nil {
		return nil, err
	}
	all, err := scanRecords[exportMeta](e.opts.Store, exportPrefix(ns))
	if err != nil {
		return nil, internalError(err)
	}
	var arns []*exportMeta
	for _, m := range all {
		if in.TableArn == nil || m.tableARN() == *in.TableArn {
			arns = append(arns, m)
		}
	}
	sort.Slice(arns, func(i, j int) bool { return arns[i].ARN() > arns[j].ARN() })
	if in.NextToken != nil {
		after, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(after) == 0 {
			return nil, Validation("Invalid NextToken")
		}
		i := sort.Search(len(arns), func(i int) bool { return arns[i].ARN() < string(after) })
		arns = arns[i:]
	}
	limit := 25
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	out := &ListExportsOutput{ExportSummaries: []ExportSummary{}}
	for i, m := range arns {
		if i == limit {
			out.NextToken = refOf(base64.RawURLEncoding.EncodeToString([]byte(arns[i-1].ARN())))
			break
		}
		out.ExportSummaries = append(out.ExportSummaries, ExportSummary{ExportArn: m.ARN(), ExportStatus: m.Status, ExportType: m.Type})
	}
	return out, nil
}

// startExport runs m's job from snap (taken at the request); it owns snap.
func (e *Engine) startExport(m *exportMeta, snap kv.Snapshot) {
	e.ex.wg.Add(1)
	go func() {
		defer e.ex.wg.Done()
		err := e.runExport(e.ex.ctx, m, snap)
		_ = snap.Close()
		if errors.Is(err, context.Canceled) {
			return // stays IN_PROGRESS; the next start fails it
		}
		if err != nil {
			code, msg := s3Failure(err)
			e.log.Error().Err(err).Str("export", m.ARN()).Msg("export failed")
			e.endExport(m, func(m *exportMeta) { m.Status, m.FailureCode, m.FailureMessage = exportFailed, code, msg })
		}
	}()
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

// endExport stores m's final state, set by f, with its end time.
func (e *Engine) endExport(m *exportMeta, f func(*exportMeta)) {
	f(m)
	m.End = e.now()
	b := e.opts.Store.NewBatch()
	if err := putExport(b, m); err != nil {
		_ = b.Close()
		e.log.Error().Err(err).Str("export", m.ARN()).Msg("storing the export's end")
		return
	}
	if err := e.commit(b); err != nil {
		e.log.Error().Err(err).Str("export", m.ARN()).Msg("storing the export's end")
	}
}

// manifestFile is one line of manifest-files.json.
type manifestFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// runExport writes the export's objects from snap, then marks it COMPLETED.
func (e *Engine) runExport(ctx context.Context, m *exportMeta, snap kv.Snapshot) (err error) {
	defer recoverJob(&err)
	obj := e.opts.Objects
	if obj == nil {
		return objstore.ErrNoSuchBucket
	}
	base := m.base()
	if _, err := obj.Put(ctx, m.Bucket, base+"_started", nil); err != nil {
		return err
	}
	per := e.ex.fileItems
	if per <= 0 {
		per = defaultExportFileItems
	}
	enc := exportEncoder(m.Format)
	var (
		files     []manifestFile
		buf       bytes.Buffer
		line      []byte
		inFile    int64
		items     int64
		billed    int64
		zw        = gzip.NewWriter(&buf)
		wroteOnce bool
	)
	flush := func() error {
		if err := zw.Close(); err != nil {
			return err
		}
		name, err := randomFileName()
		if err != nil {
			return err
		}
		key := base + "data/" + name + enc.ext + ".gz"
		data := buf.Bytes()
		etag, err := obj.Put(ctx, m.Bucket, key, data)
		if err != nil {
			return err
		}
		sum := md5.Sum(data)
		files = append(files, manifestFile{ItemCount: inFile, MD5Checksum: base64.StdEncoding.EncodeToString(sum[:]),
			ETag: strings.Trim(etag, `"`), DataFileS3Key: key})
		buf.Reset()
		zw.Reset(&buf)
		inFile, wroteOnce = 0, true
		if f := e.ex.afterFile; f != nil {
			f("export", len(files))
		}
		return ctx.Err()
	}
	write := func(size int) error {
		line = append(line, '\n')
		if _, err := zw.Write(line); err != nil {
			return err
		}
		billed += int64(size)
		items++
		inFile++
		if inFile == int64(per) {
			return flush()
		}
		return nil
	}
	if m.Type == exportIncremental {
		err = m.writeChanges(ctx, snap, func(c incrementalChange) error {
			line = enc.change(line[:0], c)
			return write(av.ItemSize(c.Old) + av.ItemSize(c.New))
		})
	} else {
		err = exportItemsAsOf(snap, m, func(item av.Item) error {
			line = enc.item(line[:0], item)
			return write(av.ItemSize(item))
		})
	}
	if err != nil {
		return err
	}
	if inFile > 0 || !wroteOnce {
		if err := flush(); err != nil {
			return err
		}
	}
	var mf bytes.Buffer
	for _, f := range files {
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		mf.Write(b)
		mf.WriteByte('\n')
	}
	if err := putWithMD5(ctx, obj, m.Bucket, base+"manifest-files", mf.Bytes()); err != nil {
		return err
	}
	end := e.now()
	summary := map[string]any{
		"version": "2020-06-30", "exportArn": m.ARN(), "startTime": isoMillis(m.Start), "endTime": isoMillis(end),
		"tableArn": m.tableARN(), "tableId": m.TableID.UUID(), "exportTime": isoMillis(m.ExportTime),
		"s3Bucket": m.Bucket, "s3Prefix": m.Prefix, "s3SseAlgorithm": m.SSE, "s3SseKmsKeyId": m.SSEKey,
		"manifestFilesS3Key": base + "manifest-files.json", "billedSizeBytes": billed, "itemCount": items,
		"outputFormat": m.Format, "outputView": m.outputView(), "exportType": m.Type,
	}
	sb, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	if err := putWithMD5(ctx, obj, m.Bucket, base+"manifest-summary", sb); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e.endExport(m, func(m *exportMeta) {
		m.Status, m.Items, m.Billed, m.Manifest = exportCompleted, items, billed, base+"manifest-summary.json"
	})
	return nil
}

// recoverJob turns a panic of an export or import job into its error, so
// one bad object fails its job instead of the server.
func recoverJob(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("emulator: the job panicked: %v", r)
	}
}

// putWithMD5 writes name.json and name.md5, the base64 MD5 of the JSON.
func putWithMD5(ctx context.Context, obj objstore.Store, bucket, name string, data []byte) error {
	if _, err := obj.Put(ctx, bucket, name+".json", data); err != nil {
		return err
	}
	sum := md5.Sum(data)
	_, err := obj.Put(ctx, bucket, name+".md5", []byte(base64.StdEncoding.EncodeToString(sum[:])))
	return err
}

func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

var fileNameEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// randomFileName is a data file's name: 26 lowercase base32 characters,
// as AWS names them.
func randomFileName() (string, error) {
	var r [16]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return fileNameEncoding.EncodeToString(r[:]), nil
}

// itemEncoder writes one item as a line of an export format.
type itemEncoder struct {
	ext    string
	item   func(dst []byte, it av.Item) []byte
	change func(dst []byte, c incrementalChange) []byte
}

func exportEncoder(format string) itemEncoder {
	if format == formatION {
		return itemEncoder{ext: ".ion", item: ion.AppendItemLine, change: func(dst []byte, c incrementalChange) []byte {
			return ion.AppendRecordLine(dst, c.parts())
		}}
	}
	return itemEncoder{ext: ".json", item: func(dst []byte, it av.Item) []byte {
		dst = append(dst, `{"Item":`...)
		dst = av.AppendItemJSON(dst, it)
		return append(dst, '}')
	}, change: func(dst []byte, c incrementalChange) []byte {
		dst = append(dst, '{')
		for i, p := range c.parts() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = av.AppendJSONString(dst, p.Name)
			dst = append(dst, ':')
			dst = av.AppendItemJSON(dst, p.Item)
		}
		return append(dst, '}')
	}}
}

// exportItemsAsOf calls fn for each item of m's table as of its ExportTime.
func exportItemsAsOf(snap kv.Snapshot, m *exportMeta, fn func(av.Item) error) error {
	it, err := newAsOfIter(snap, m.TableID, m.ExportTime, nil)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		item, err := av.DecodeItem(it.Value())
		if err != nil {
			return err
		}
		if err := fn(item); err != nil {
			return err
		}
	}
	return it.Err()
}

// outputView is the manifest's outputView: NEW_IMAGE for a full export,
// the view type of an incremental one.
func (m *exportMeta) outputView() string {
	if m.Incremental != nil && m.Incremental.ExportViewType != nil {
		return *m.Incremental.ExportViewType
	}
	return "NEW_IMAGE"
}

// incrementalChange is one line of an incremental export: an item's final
// state in the window, with its image before it (Old, nil if it did not
// exist) and after (New, nil if deleted).
type incrementalChange struct {
	Written  time.Time
	Keys     av.Item
	Old, New av.Item
}

// parts are the line's members in the order AWS writes them: Metadata,
// Keys, NewImage (absent for a delete), OldImage (absent for an insert).
func (c incrementalChange) parts() []ion.Part {
	ps := []ion.Part{
		{Name: "Metadata", Item: av.Item{"WriteTimestampMicros": {Type: av.TypeN, S: strconv.FormatInt(c.Written.UnixMicro(), 10)}}},
		{Name: "Keys", Item: c.Keys},
	}
	if c.New != nil {
		ps = append(ps, ion.Part{Name: "NewImage", Item: c.New})
	}
	if c.Old != nil {
		ps = append(ps, ion.Part{Name: "OldImage", Item: c.Old})
	}
	return ps
}

// writeChanges calls fn for each item written in m's incremental window,
// [ExportFromTime, ExportToTime), compacted to its final state; OldImage
// only with NEW_AND_OLD_IMAGES.
func (m *exportMeta) writeChanges(ctx context.Context, snap kv.Snapshot, fn func(incrementalChange) error) error {
	spec := m.Incremental
	from, to := timeOf(*spec.ExportFromTime), timeOf(*spec.ExportToTime)
	withOld := strOrDefault(spec.ExportViewType, "NEW_AND_OLD_IMAGES") == "NEW_AND_OLD_IMAGES"
	// itemChangesIn's window is (from, to]: a nanosecond earlier each
	// makes it [from, to).
	return itemChangesIn(ctx, snap, m.TableID, from.Add(-time.Nanosecond), to.Add(-time.Nanosecond), func(oldB, newB []byte, written time.Time) error {
		oldItem, err := decodeOrNil(oldB)
		if err != nil {
			return err
		}
		newItem, err := decodeOrNil(newB)
		if err != nil {
			return err
		}
		c := incrementalChange{Written: written, New: newItem, Keys: av.Item{}}
		src := newItem
		if src == nil {
			src = oldItem
		}
		for _, k := range m.KeyNames {
			c.Keys[k] = src[k]
		}
		if withOld {
			c.Old = oldItem
		}
		return fn(c)
	})
}

// failUnfinishedExports marks every export left IN_PROGRESS by the last
// run FAILED (see Recovery above). Called by New; on a shared store by
// the leader, for the exports of processes gone (dead reports them).
func (e *Engine) failUnfinishedExports(dead func(owner string) bool) error {
	all, err := scanRecords[exportMeta](e.opts.Store, []byte{famExport})
	if err != nil {
		return err
	}
	for _, m := range all {
		if m.Status != exportInProgress || (dead != nil && !dead(m.Owner)) {
			continue
		}
		e.endExport(m, func(m *exportMeta) {
			m.Status, m.FailureCode = exportFailed, "UNKNOWN"
			m.FailureMessage = "The export was interrupted by a restart of ExtendDB before it finished; no manifest was written. Start a new export."
		})
		e.log.Warn().Str("export", m.ARN()).Msg("export interrupted by a restart; marked FAILED")
	}
	return nil
}
