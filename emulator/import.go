package emulator

// ImportTable's stored form, its job and its recovery.
//
// Keyspace (beside keys.go's families):
//
//	'j' <account> 0x00 <region> 0x00 <import id>  → JSON importMeta
//
// ImportTable stores the new table (CREATING, its Importing set to the
// import's ARN) and the import record (IN_PROGRESS) in one batch, then a
// job reads every object under the prefix from the S3 stand-in, parses it
// (DYNAMODB_JSON, ION or CSV, after GZIP/ZSTD/NONE), and writes the valid
// items through the write path, so index entries and table stats stay
// exact. It ends by clearing Importing and storing the final record in one
// batch: COMPLETED, or FAILED/ItemValidationError with the valid items
// kept when some were bad (§5.3). A missing bucket fails the import and
// drops the table, as AWS creates none.
//
// Recovery. The job's writes are puts of whole items, so running it again
// from the first object ends in the same table (a duplicate key keeps one
// of its items, as on AWS). New restarts every import left IN_PROGRESS
// from scratch; the counters are only stored at the end.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/ion"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

const (
	famImport = 'j'

	importInProgress = "IN_PROGRESS"
	importCompleted  = "COMPLETED"
	importFailed     = "FAILED"

	msgItemValidation = "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details."

	// maxItemBytes is DynamoDB's item size limit.
	maxItemBytes = 400 * 1024
)

// importMeta is one import's stored record.
type importMeta struct {
	Version      int                      `json:"v"`
	Account      string                   `json:"account"`
	Region       string                   `json:"region"`
	ID           string                   `json:"id"`
	TableName    string                   `json:"table"`
	TableID      tableID                  `json:"tableID"`
	Status       string                   `json:"status"`
	Start        time.Time                `json:"start"`
	End          time.Time                `json:"end,omitzero"`
	ClientToken  string                   `json:"token"`
	Source       S3BucketSource           `json:"source"`
	Format       string                   `json:"format"`
	Options      *InputFormatOptions      `json:"options,omitempty"`
	Compression  string                   `json:"compression"`
	Params       *TableCreationParameters `json:"params"`
	Processed    int64                    `json:"processed"`
	Imported     int64                    `json:"imported"`
	Errors       int64                    `json:"errors"`
	ProcessedB   int64                    `json:"processedBytes"`
	FailureCode  string                   `json:"failureCode,omitempty"`
	FailureMsg   string                   `json:"failureMessage,omitempty"`
	TableDropped bool                     `json:"dropped,omitempty"`
	// ErrorLog holds the first maxImportErrorLog error records, what AWS
	// writes to CloudWatch Logs (ImportErrors serves them).
	ErrorLog []ImportErrorRecord `json:"errorLog,omitempty"`
}

// maxImportErrorLog bounds the error records an import keeps.
const maxImportErrorLog = 100

// ImportErrorRecord is one record of an import's error log, as AWS writes
// it to the log group /aws-dynamodb/imports, stream <import-id>/error.
type ImportErrorRecord struct {
	ItemS3Pointer ItemS3Pointer `json:"itemS3Pointer"`
	ImportArn     string        `json:"importArn"`
	ErrorMessages []string      `json:"errorMessages"`
}

// ItemS3Pointer locates a bad item: its object and its index in it.
type ItemS3Pointer struct {
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	ItemIndex int64  `json:"itemIndex"`
}

// ImportErrors returns the error log of an import (the first 100 records),
// ExtendDB's stand-in for its CloudWatch log stream.
func (e *Engine) ImportErrors(ctx context.Context, ns Namespace, importArn string) ([]ImportErrorRecord, error) {
	ins, part, id, ok := parseImportARN(importArn)
	if !ok {
		return nil, Validation("Invalid importArn: %s", importArn)
	}
	if ins != ns || part != ns.Partition() {
		return nil, NewError(CodeImportNotFound, "Import not found: %s", importArn)
	}
	v, err := e.opts.Store.Get(append(importPrefix(ns), id...))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, NewError(CodeImportNotFound, "Import not found: %s", importArn)
	}
	if err != nil {
		return nil, internalError(err)
	}
	var m importMeta
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, internalError(err)
	}
	if m.ARN() != importArn {
		return nil, NewError(CodeImportNotFound, "Import not found: %s", importArn)
	}
	if m.ErrorLog == nil {
		return []ImportErrorRecord{}, nil
	}
	return m.ErrorLog, nil
}

func (m *importMeta) ns() Namespace { return Namespace{Account: m.Account, Region: m.Region} }

func (m *importMeta) tableARN() string { return m.ns().TableARN(m.TableName) }

// ARN is the target table's ARN plus /import/<id>.
func (m *importMeta) ARN() string { return m.tableARN() + "/import/" + m.ID }

func (m *importMeta) logGroupARN() string {
	return fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws-dynamodb/imports:*", m.ns().Partition(), m.Region, m.Account)
}

func importPrefix(ns Namespace) []byte {
	k := append([]byte{famImport}, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	return append(k, 0)
}

func putImport(b kv.Batch, m *importMeta) error {
	m.Version = metaVersion
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Set(append(importPrefix(m.ns()), m.ID...), v)
}

var csvDelimiters = []string{",", ";", ":", "|", "\t", " "}

// validateImport runs the model's member constraints in its order.
func validateImport(in *ImportTableInput) error {
	var v violations
	v.clientToken(in.ClientToken)
	if s := in.S3BucketSource; s == nil {
		v.null("s3BucketSource")
	} else {
		v.s3Bucket("s3BucketSource.s3Bucket", "s3BucketSource.s3BucketOwner", s.S3Bucket, s.S3BucketOwner)
		if s.S3KeyPrefix != nil {
			v.length("s3BucketSource.s3KeyPrefix", *s.S3KeyPrefix, 0, 1024)
		}
	}
	if in.InputFormat == nil {
		v.null("inputFormat")
	}
	v.enum("inputFormat", in.InputFormat, formatDynamoDBJSON, formatION, formatCSV)
	if o := in.InputFormatOptions; o != nil && o.Csv != nil {
		if d := o.Csv.Delimiter; d != nil {
			v.length("inputFormatOptions.csv.delimiter", *d, 1, 1)
			ok := false
			for _, x := range csvDelimiters {
				ok = ok || *d == x
			}
			if !ok {
				v.add(quoteValue(*d), "inputFormatOptions.csv.delimiter", "Member must satisfy regular expression pattern: [,;:|\\t ]")
			}
		}
		if h := o.Csv.HeaderList; h != nil && (len(h) < 1 || len(h) > 255) {
			v.add(fmt.Sprintf("'%v'", h), "inputFormatOptions.csv.headerList", "Member must have length less than or equal to 255")
		}
	}
	v.enum("inputCompressionType", in.InputCompressionType, "GZIP", "ZSTD", "NONE")
	if in.TableCreationParameters == nil {
		v.null("tableCreationParameters")
	}
	return v.err()
}

// ImportTable creates a table and loads it from the S3 stand-in; the
// answer is IN_PROGRESS and the table CREATING until the job ends.
func (e *Engine) ImportTable(ctx context.Context, ns Namespace, in *ImportTableInput) (*ImportTableOutput, error) {
	if in == nil {
		in = &ImportTableInput{}
	}
	if err := validateImport(in); err != nil {
		return nil, err
	}
	if in.ClientToken == nil {
		// The SDKs fill the idempotency token in; a raw request without
		// one is refused, as on AWS.
		var v violations
		v.null("clientToken")
		return nil, v.err()
	}
	if in.InputFormatOptions != nil && in.InputFormatOptions.Csv != nil && *in.InputFormat != formatCSV {
		return nil, Validation("One or more parameter values were invalid: InputFormatOptions with CSV options is only supported for CSV input format")
	}
	p := in.TableCreationParameters
	cin := &CreateTableInput{TableName: p.TableName, AttributeDefinitions: p.AttributeDefinitions, KeySchema: p.KeySchema,
		BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput, OnDemandThroughput: p.OnDemandThroughput,
		SSESpecification: p.SSESpecification, GlobalSecondaryIndexes: p.GlobalSecondaryIndexes}
	if err := requiredTableName(cin.TableName); err != nil {
		return nil, err
	}
	if err := validateCreateShape(cin); err != nil {
		return nil, err
	}
	billing := strOrDefault(cin.BillingMode, billingProvisioned)
	if err := validateCreateSemantics(cin, billing); err != nil {
		return nil, err
	}
	if err := checkSSESpec(cin.SSESpecification); err != nil {
		return nil, err
	}
	now := e.now()
	name := *p.TableName
	e.lockCatalog()
	defer e.unlockCatalog()
	all, err := scanRecords[importMeta](e.opts.Store, importPrefix(ns))
	if err != nil {
		return nil, internalError(err)
	}
	var old *importMeta
	for _, m := range all {
		if m.ClientToken == *in.ClientToken {
			old = m
		}
	}
	if old != nil && old.TableName != name {
		return nil, NewError(CodeImportConflict, "Duplicate request detected with conflicting parameters")
	}
	if old != nil && old.Status == importInProgress {
		return &ImportTableOutput{ImportTableDescription: describeImport(old)}, nil
	}
	if t := e.tables[ns][name]; t != nil {
		if !t.gone(now) {
			return nil, NewError(CodeResourceInUse, "Table already exists: %s", name)
		}
		e.uncacheTable(ns, name)
	}
	if old != nil {
		return &ImportTableOutput{ImportTableDescription: describeImport(old)}, nil
	}
	t, err := e.buildTable(ns, cin, billing, now)
	if err != nil {
		return nil, err
	}
	if err := e.checkTableLimits(ns, t, t.Throughput.Read, t.Throughput.Write); err != nil {
		return nil, err
	}
	id, err := newBackupID(now)
	if err != nil {
		return nil, internalError(err)
	}
	m := &importMeta{Account: ns.Account, Region: ns.Region, ID: id, TableName: name, TableID: t.ID, Status: importInProgress,
		Start: now, ClientToken: *in.ClientToken, Source: *in.S3BucketSource, Format: *in.InputFormat,
		Options: in.InputFormatOptions, Compression: strOrDefault(in.InputCompressionType, "NONE"), Params: p}
	t.Importing = m.ARN()
	b := e.opts.Store.NewBatch()
	if err := putTable(b, t); err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	if err := putImport(b, m); err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	if err := e.commit(b); err != nil {
		return nil, internalError(err)
	}
	e.cacheTable(t)
	e.startImport(m, t)
	return &ImportTableOutput{ImportTableDescription: describeImport(m)}, nil
}

func describeImport(m *importMeta) *ImportTableDescription {
	src := m.Source
	d := &ImportTableDescription{ImportArn: m.ARN(), ImportStatus: m.Status, TableArn: m.tableARN(), TableId: m.TableID.UUID(),
		ClientToken: refOf(m.ClientToken), S3BucketSource: &src, CloudWatchLogGroupArn: m.logGroupARN(), InputFormat: m.Format,
		InputFormatOptions: m.Options, InputCompressionType: m.Compression, TableCreationParameters: m.Params,
		StartTime: refOf(epochSeconds(m.Start)), ErrorCount: m.Errors, ProcessedItemCount: m.Processed, ImportedItemCount: m.Imported}
	if m.Status != importInProgress {
		d.EndTime = refOf(epochSeconds(m.End))
		d.ProcessedSizeBytes = refOf(m.ProcessedB)
	}
	if m.FailureCode != "" {
		d.FailureCode, d.FailureMessage = refOf(m.FailureCode), refOf(m.FailureMsg)
	}
	return d
}

// parseImportARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/import/ID.
func parseImportARN(s string) (ns Namespace, partition, id string, ok bool) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[2] != "dynamodb" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "import" || parts[3] == "" {
		return ns, "", "", false
	}
	return Namespace{Account: f[4], Region: f[3]}, f[1], parts[3], true
}

// DescribeImport reports an import.
func (e *Engine) DescribeImport(ctx context.Context, ns Namespace, in *DescribeImportInput) (*DescribeImportOutput, error) {
	if in == nil {
		in = &DescribeImportInput{}
	}
	var v violations
	if in.ImportArn == nil {
		v.null("importArn")
	} else {
		v.length("importArn", *in.ImportArn, 37, 1024)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	ins, part, id, ok := parseImportARN(*in.ImportArn)
	if !ok {
		return nil, Validation("Invalid importArn: %s", *in.ImportArn)
	}
	notFound := NewError(CodeImportNotFound, "Import not found: %s", *in.ImportArn)
	if ins != ns || part != ns.Partition() {
		return nil, notFound
	}
	v2, err := e.opts.Store.Get(append(importPrefix(ns), id...))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, internalError(err)
	}
	var m importMeta
	if err := json.Unmarshal(v2, &m); err != nil {
		return nil, internalError(err)
	}
	if m.ARN() != *in.ImportArn {
		return nil, notFound
	}
	return &DescribeImportOutput{ImportTableDescription: describeImport(&m)}, nil
}

// ListImports lists the namespace's imports (of one table with TableArn),
// running ones too, in reverse ImportArn order.
func (e *Engine) ListImports(ctx context.Context, ns Namespace, in *ListImportsInput) (*ListImportsOutput, error) {
	if in == nil {
		in = &ListImportsInput{}
	}
	var v violations
	if in.TableArn != nil {
		v.length("tableArn", *in.TableArn, 1, 1024)
	}
	v.min("pageSize", in.PageSize, 1)
	v.max("pageSize", in.PageSize, 25)
	var after string
	if in.NextToken != nil {
		v.length("nextToken", *in.NextToken, 112, 1024)
		b, err := hex.DecodeString(*in.NextToken)
		if err != nil || len(*in.NextToken)%16 != 0 {
			v.add(quoteValue(*in.NextToken), "nextToken", "Member must satisfy regular expression pattern: ([0-9a-f]{16})+")
		}
		after = strings.TrimRight(string(b), "\x00")
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	all, err := scanRecords[importMeta](e.opts.Store, importPrefix(ns))
	if err != nil {
		return nil, internalError(err)
	}
	var ms []*importMeta
	for _, m := range all {
		if (in.TableArn == nil || m.tableARN() == *in.TableArn) && (after == "" || m.ARN() < after) {
			ms = append(ms, m)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ARN() > ms[j].ARN() })
	limit := 25
	if in.PageSize != nil {
		limit = int(*in.PageSize)
	}
	out := &ListImportsOutput{ImportSummaryList: []ImportSummary{}}
	for i, m := range ms {
		if i == limit {
			// The token is the last ARN in hex, padded to whole 16-digit
			// groups as the model's pattern wants.
			tok := []byte(ms[i-1].ARN())
			for len(tok)%8 != 0 {
				tok = append(tok, 0)
			}
			out.NextToken = refOf(hex.EncodeToString(tok))
			break
		}
		src := m.Source
		s := ImportSummary{ImportArn: m.ARN(), ImportStatus: m.Status, TableArn: m.tableARN(), S3BucketSource: &src,
			CloudWatchLogGroupArn: m.logGroupARN(), InputFormat: m.Format, StartTime: refOf(epochSeconds(m.Start))}
		if m.Status != importInProgress {
			s.EndTime = refOf(epochSeconds(m.End))
		}
		out.ImportSummaryList = append(out.ImportSummaryList, s)
	}
	return out, nil
}

// startImport runs m's job into t. The caller holds e.mu (or is New).
// On a shared store only the leader runs it (lease.go), once.
func (e *Engine) startImport(m *importMeta, t *tableMeta) {
	job := "import/" + m.ARN()
	if !e.claimJob(job) {
		return
	}
	e.ex.wg.Add(1)
	go func() {
		defer e.ex.wg.Done()
		defer e.releaseJob(job)
		err := e.runImport(e.ex.ctx, m, t)
		switch {
		case err == nil, errors.Is(err, context.Canceled):
			// Canceled: still IN_PROGRESS; the next start runs it again.
		case errors.Is(err, errTableGone):
			e.log.Warn().Str("import", m.ARN()).Msg("the table being imported into was deleted; the import fails")
			e.endImport(m, t, func(m *importMeta) {
				m.Status, m.FailureCode, m.FailureMsg = importFailed, "UNKNOWN", "The table was deleted during the import."
			})
		default:
			code, msg := s3Failure(err)
			e.log.Error().Err(err).Str("import", m.ARN()).Msg("import failed; the table is dropped")
			e.dropRestored(t)
			m.TableDropped = true
			e.endImport(m, nil, func(m *importMeta) { m.Status, m.FailureCode, m.FailureMsg = importFailed, code, msg })
		}
	}()
}

// resumeImports runs again every import left IN_PROGRESS. Called by New.
func (e *Engine) resumeImports() error {
	all, err := scanRecords[importMeta](e.opts.Store, []byte{famImport})
	if err != nil {
		return err
	}
	type job struct {
		m *importMeta
		t *tableMeta
	}
	var jobs []job
	e.rlockCatalog()
	for _, m := range all {
		if m.Status == importInProgress {
			jobs = append(jobs, job{m, e.lookup(m.ns(), m.TableName, e.now())})
		}
	}
	e.mu.RUnlock()
	for _, j := range jobs {
		m, t := j.m, j.t
		if t == nil || t.ID != m.TableID {
			e.endImport(m, nil, func(m *importMeta) {
				m.Status, m.FailureCode, m.FailureMsg = importFailed, "UNKNOWN", "The table was deleted during the import."
			})
			continue
		}
		if e.jobRunning("import/" + m.ARN()) {
			continue // the leader's poll finds it running
		}
		e.log.Info().Str("import", m.ARN()).Msg("resuming an import interrupted by a restart")
		e.startImport(m, t)
	}
	return nil
}

// endImport stores m's final state, set by f, and (t non-nil) makes the
// table ACTIVE in the same batch.
func (e *Engine) endImport(m *importMeta, t *tableMeta, f func(*importMeta)) {
	e.lockCatalog()
	defer e.unlockCatalog()
	f(m)
	m.End = e.now()
	b := e.opts.Store.NewBatch()
	var nt *tableMeta
	if t != nil {
		if c, ok := e.live(t); ok {
			nt = c.clone()
			nt.Importing = ""
			if err := putTable(b, nt); err != nil {
				_ = b.Close()
				return
			}
		}
	}
	if err := putImport(b, m); err != nil {
		_ = b.Close()
		return
	}
	if err := e.commit(b); err != nil {
		e.log.Error().Err(err).Str("import", m.ARN()).Msg("storing the import's end")
		return
	}
	if nt != nil {
		e.cacheTable(nt)
	}
}

// importCounts are an import's counters.
type importCounts struct {
	processed, imported, errors, bytes int64
	log                                []ImportErrorRecord
}

// fail counts a bad item (index idx of object key) and logs it.
func (c *importCounts) fail(m *importMeta, key string, idx int64, err error) {
	c.processed++
	c.errors++
	if len(c.log) >= maxImportErrorLog {
		return
	}
	msg := "The item could not be parsed"
	var ee *Error
	switch {
	case errors.As(err, &ee):
		msg = ee.Message
	case errors.Is(err, errBadLine):
		msg = "The item is not in the import's format"
	case err != nil:
		msg += ": " + err.Error()
	}
	c.log = append(c.log, ImportErrorRecord{ItemS3Pointer: ItemS3Pointer{Bucket: *m.Source.S3Bucket, Key: key, ItemIndex: idx},
		ImportArn: m.ARN(), ErrorMessages: []string{msg}})
}

// runImport reads every object under the prefix and loads its items.
func (e *Engine) runImport(ctx context.Context, m *importMeta, t *tableMeta) (err error) {
	defer recoverJob(&err)
	obj := e.opts.Objects
	if obj == nil {
		return objstore.ErrNoSuchBucket
	}
	bucket, prefix := *m.Source.S3Bucket, ""
	if m.Source.S3KeyPrefix != nil {
		prefix = *m.Source.S3KeyPrefix
	}
	var keys []string
	keys, err = obj.List(ctx, bucket, prefix)
	if err != nil {
		return err
	}
	var c importCounts
	for n, key := range keys {
		if strings.HasSuffix(key, "/") {
			continue
		}
		data, err := obj.Get(ctx, bucket, key)
		if err != nil {
			return err
		}
		if err := e.importObject(ctx, m, t, key, data, &c); err != nil {
			return err
		}
		if f := e.ex.afterFile; f != nil {
			f("import", n+1)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	e.endImport(m, t, func(m *importMeta) {
		m.Processed, m.Imported, m.Errors, m.ProcessedB = c.processed, c.imported, c.errors, c.bytes
		m.ErrorLog = c.log
		m.Status = importCompleted
		if c.errors > 0 {
			m.Status, m.FailureCode, m.FailureMsg = importFailed, "ItemValidationError", msgItemValidation
		}
	})
	return nil
}

// decompress undoes the import's InputCompressionType; an object that does
// not decompress is one bad object, not a failed import.
func decompress(kind string, data []byte) ([]byte, error) {
	switch kind {
	case "GZIP":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case "ZSTD":
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return zr.DecodeAll(data, nil)
	}
	return data, nil
}

// importObject parses one object and writes its valid items. The first bad
// item abandons the rest of the object, as one error (§5.3).
func (e *Engine) importObject(ctx context.Context, m *importMeta, t *tableMeta, key string, data []byte, c *importCounts) error {
	raw, err := decompress(m.Compression, data)
	if err != nil {
		c.fail(m, key, 0, fmt.Errorf("the object does not decompress as %s: %w", m.Compression, err))
		return nil
	}
	c.bytes += int64(len(raw))
	next := itemReader(m, t, raw)
	var batch []av.Item
	flush := func() error {
		err := e.importItems(t, batch)
		batch = batch[:0]
		return err
	}
	for idx := int64(0); ; idx++ {
		item, err := next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = checkImportItem(t, item)
		}
		if err != nil {
			c.fail(m, key, idx, err)
			break
		}
		c.processed++
		c.imported++
		batch = append(batch, item)
		if len(batch) == backupChunk {
			if err := flush(); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return flush()
}

var errBadLine = errors.New("emulator: an import line is not an item")

// checkImportItem applies PutItem's item checks.
func checkImportItem(t *tableMeta, item av.Item) error {
	if len(item) == 0 {
		return errBadLine
	}
	for k := range item {
		if k == "" {
			return errBadLine
		}
	}
	if err := validateItemValues(item); err != nil {
		return err
	}
	if err := checkItemKeys(t, item); err != nil {
		return err
	}
	if err := validateIndexKeys(t, item); err != nil {
		return err
	}
	if av.ItemSize(item) > maxItemBytes {
		return errBadLine
	}
	return nil
}

// importItems writes items in one batch through the write path.
func (e *Engine) importItems(t *tableMeta, items []av.Item) error {
	if len(items) == 0 {
		return nil
	}
	e.rlockCatalog()
	_, ok := e.live(t)
	e.mu.RUnlock()
	if !ok {
		return errTableGone
	}
	// A batch reads the items it replaces from the store: keys repeated
	// within the batch are written one batch each, so stats stay exact.
	for len(items) > 0 {
		n, seen := 0, map[string]bool{}
		for n < len(items) && !seen[string(itemKey(t, items[n]))] {
			seen[string(itemKey(t, items[n]))] = true
			n++
		}
		part := items[:n]
		items = items[n:]
		err := e.update(true, func(wb *writeBatch) error {
			for _, item := range part {
				it := item
				pw, err := e.prepare(wb.r, &writeSpec{t: t, key: itemKey(t, it), build: func(av.Item) (av.Item, error) { return it, nil }})
				if err != nil {
					return err
				}
				if err := wb.stage(pw); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return writeError(err)
		}
	}
	return nil
}

// itemReader returns a function yielding the object's items one by one
// (io.EOF at the end) in the import's format.
func itemReader(m *importMeta, t *tableMeta, raw []byte) func() (av.Item, error) {
	switch m.Format {
	case formatION:
		d := ion.NewDecoder(raw)
		return func() (av.Item, error) {
			v, err := d.Next()
			if err != nil {
				return nil, err
			}
			it, ok := v.M["Item"]
			if v.Type != av.TypeM || !ok || it.Type != av.TypeM {
				return nil, errBadLine
			}
			return av.Item(it.M), nil
		}
	case formatCSV:
		return csvReader(m, t, raw)
	}
	lines := bytes.Split(raw, []byte{'\n'})
	i := 0
	return func() (av.Item, error) {
		for i < len(lines) {
			line := bytes.TrimSpace(lines[i])
			i++
			if len(line) == 0 || string(line) == "{}" {
				continue
			}
			// The export's own form, {"Item":{…}}, skips encoding/json.
			if inner, ok := bytes.CutPrefix(line, []byte(`{"Item":`)); ok && len(inner) > 0 && inner[len(inner)-1] == '}' {
				if it, err := av.DecodeItemJSON(inner[:len(inner)-1]); err == nil {
					return it, nil
				}
			}
			var w struct {
				Item json.RawMessage
			}
			if err := json.Unmarshal(line, &w); err != nil {
				return nil, err
			}
			if w.Item == nil {
				return nil, errBadLine
			}
			return av.DecodeItemJSON(w.Item)
		}
		return nil, io.EOF
	}
}

// csvReader reads CSV rows: the header is the first row unless HeaderList
// is given; table and index key columns take their declared types, every
// other column is a string; empty cells are left out.
func csvReader(m *importMeta, t *tableMeta, raw []byte) func() (av.Item, error) {
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	var header []string
	if o := m.Options; o != nil && o.Csv != nil {
		if d := o.Csv.Delimiter; d != nil && *d != "" {
			r.Comma = rune((*d)[0])
		}
		header = o.Csv.HeaderList
	}
	return func() (av.Item, error) {
		rec, err := r.Read()
		if err != nil {
			return nil, err
		}
		if header == nil {
			header = rec
			if rec, err = r.Read(); err != nil {
				return nil, err
			}
		}
		if len(rec) != len(header) {
			return nil, errBadLine
		}
		item := av.Item{}
		for i, cell := range rec {
			if cell == "" {
				continue
			}
			typ, _ := t.attrType(header[i])
			switch typ {
			case "N":
				item[header[i]] = av.Value{Type: av.TypeN, S: cell}
			case "B":
				b, err := base64.StdEncoding.DecodeString(cell)
				if err != nil {
					return nil, errBadLine
				}
				item[header[i]] = av.Value{Type: av.TypeB, S: string(b)}
			default:
				item[header[i]] = av.Value{Type: av.TypeS, S: cell}
			}
		}
		return item, nil
	}
}
