package emulator

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/accounts"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/s3io"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/rs/zerolog"
)

// Table export to S3 and import from S3 run in emulator/internal/s3io.
// This file checks the requests' shapes, as every operation's, and hands
// them over with s3Core, the core as exports and imports use it: the
// catalog, the point-in-time history an export reads, and the write path
// an import's items go through.

const (
	famExport = s3io.Export
	famImport = s3io.Import
)

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

// s3Bucket checks a bucket's name and its owner's account (the members'
// paths given), as export and import requests name them.
func checkS3Bucket(v *shape.Violations, member, ownerMember string, bucket, owner *string) {
	if bucket == nil {
		v.Null(member)
	} else {
		v.Length(member, *bucket, 0, 255)
		if !validBucket(*bucket) {
			v.Add(shape.QuoteValue(*bucket), member, "Member must satisfy regular expression pattern: "+s3BucketPattern)
		}
	}
	if owner != nil && !accounts.IsID(*owner) {
		v.Add(shape.QuoteValue(*owner), ownerMember, "Member must satisfy regular expression pattern: [0-9]{12}")
	}
}

// clientToken checks a ClientToken (pattern ^[^\$]+$, at most 36).
func checkClientToken(v *shape.Violations, s *string) {
	if s == nil {
		return
	}
	v.Length("clientToken", *s, 1, 36)
	if *s == "" || strings.Contains(*s, "$") {
		v.Add(shape.QuoteValue(*s), "clientToken", `Member must satisfy regular expression pattern: ^[^\$]+$`)
	}
}

// validateExport runs the model's member constraints in its order.
func validateExport(in *api.ExportTableToPointInTimeInput) error {
	var v shape.Violations
	if in.TableArn == nil {
		v.Null("tableArn")
	} else {
		v.Length("tableArn", *in.TableArn, 1, 1024)
	}
	checkClientToken(&v, in.ClientToken)
	checkS3Bucket(&v, "s3Bucket", "s3BucketOwner", in.S3Bucket, in.S3BucketOwner)
	if in.S3Prefix != nil {
		v.Length("s3Prefix", *in.S3Prefix, 1, 1024)
	}
	v.Enum("s3SseAlgorithm", in.S3SseAlgorithm, "AES256", "KMS")
	if in.S3SseKmsKeyId != nil {
		v.Length("s3SseKmsKeyId", *in.S3SseKmsKeyId, 1, 2048)
	}
	v.Enum("exportFormat", in.ExportFormat, "DYNAMODB_JSON", "ION")
	v.Enum("exportType", in.ExportType, "FULL_EXPORT", "INCREMENTAL_EXPORT")
	if s := in.IncrementalExportSpecification; s != nil {
		v.Enum("incrementalExportSpecification.exportViewType", s.ExportViewType, "NEW_IMAGE", "NEW_AND_OLD_IMAGES")
	}
	return v.Err()
}

// ExportTableToPointInTime starts a full export of a table with PITR on to
// the S3 stand-in; the answer is IN_PROGRESS and a job writes the files.
func (e *Engine) ExportTableToPointInTime(ctx context.Context, ns api.Namespace, in *api.ExportTableToPointInTimeInput) (*api.ExportTableToPointInTimeOutput, error) {
	if in == nil {
		in = &api.ExportTableToPointInTimeInput{}
	}
	if err := validateExport(in); err != nil {
		return nil, err
	}
	return e.ex.ExportTableToPointInTime((*s3Core)(e), ns, in)
}

// DescribeExport reports an export.
func (e *Engine) DescribeExport(ctx context.Context, ns api.Namespace, in *api.DescribeExportInput) (*api.DescribeExportOutput, error) {
	if in == nil {
		in = &api.DescribeExportInput{}
	}
	var v shape.Violations
	if in.ExportArn == nil {
		v.Null("exportArn")
	} else {
		v.Length("exportArn", *in.ExportArn, 37, 1024)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.ex.DescribeExport((*s3Core)(e), ns, *in.ExportArn)
}

// ListExports lists the namespace's exports (of one table with TableArn),
// running and failed ones too, in reverse ExportArn order.
func (e *Engine) ListExports(ctx context.Context, ns api.Namespace, in *api.ListExportsInput) (*api.ListExportsOutput, error) {
	if in == nil {
		in = &api.ListExportsInput{}
	}
	var v shape.Violations
	if in.TableArn != nil {
		v.Length("tableArn", *in.TableArn, 1, 1024)
	}
	v.Min("maxResults", in.MaxResults, 1)
	v.Max("maxResults", in.MaxResults, 25)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.ex.ListExports((*s3Core)(e), ns, in)
}

// ImportErrorRecord is one record of an import's error log, as AWS writes
// it to the log group /aws-dynamodb/imports, stream <import-id>/error.
type ImportErrorRecord = s3io.ImportErrorRecord

// ItemS3Pointer locates a bad item: its object and its index in it.
type ItemS3Pointer = s3io.ItemS3Pointer

var csvDelimiters = []string{",", ";", ":", "|", "\t", " "}

// validateImport runs the model's member constraints in its order.
func validateImport(in *api.ImportTableInput) error {
	var v shape.Violations
	checkClientToken(&v, in.ClientToken)
	if s := in.S3BucketSource; s == nil {
		v.Null("s3BucketSource")
	} else {
		checkS3Bucket(&v, "s3BucketSource.s3Bucket", "s3BucketSource.s3BucketOwner", s.S3Bucket, s.S3BucketOwner)
		if s.S3KeyPrefix != nil {
			v.Length("s3BucketSource.s3KeyPrefix", *s.S3KeyPrefix, 0, 1024)
		}
	}
	if in.InputFormat == nil {
		v.Null("inputFormat")
	}
	v.Enum("inputFormat", in.InputFormat, "DYNAMODB_JSON", "ION", "CSV")
	if o := in.InputFormatOptions; o != nil && o.Csv != nil {
		if d := o.Csv.Delimiter; d != nil {
			v.Length("inputFormatOptions.csv.delimiter", *d, 1, 1)
			ok := false
			for _, x := range csvDelimiters {
				ok = ok || *d == x
			}
			if !ok {
				v.Add(shape.QuoteValue(*d), "inputFormatOptions.csv.delimiter", "Member must satisfy regular expression pattern: [,;:|\\t ]")
			}
		}
		if h := o.Csv.HeaderList; h != nil && (len(h) < 1 || len(h) > 255) {
			v.Add(fmt.Sprintf("'%v'", h), "inputFormatOptions.csv.headerList", "Member must have length less than or equal to 255")
		}
	}
	v.Enum("inputCompressionType", in.InputCompressionType, "GZIP", "ZSTD", "NONE")
	if in.TableCreationParameters == nil {
		v.Null("tableCreationParameters")
	}
	return v.Err()
}

// ImportTable creates a table and loads it from the S3 stand-in; the
// answer is IN_PROGRESS and the table CREATING until the job ends.
func (e *Engine) ImportTable(ctx context.Context, ns api.Namespace, in *api.ImportTableInput) (*api.ImportTableOutput, error) {
	if in == nil {
		in = &api.ImportTableInput{}
	}
	if err := validateImport(in); err != nil {
		return nil, err
	}
	if in.ClientToken == nil {
		// The SDKs fill the idempotency token in; a raw request without
		// one is refused, as on AWS.
		var v shape.Violations
		v.Null("clientToken")
		return nil, v.Err()
	}
	if in.InputFormatOptions != nil && in.InputFormatOptions.Csv != nil && *in.InputFormat != "CSV" {
		return nil, api.Validation("One or more parameter values were invalid: InputFormatOptions with CSV options is only supported for CSV input format")
	}
	p := in.TableCreationParameters
	cin := &api.CreateTableInput{TableName: p.TableName, AttributeDefinitions: p.AttributeDefinitions, KeySchema: p.KeySchema,
		BillingMode: p.BillingMode, ProvisionedThroughput: p.ProvisionedThroughput, OnDemandThroughput: p.OnDemandThroughput,
		SSESpecification: p.SSESpecification, GlobalSecondaryIndexes: p.GlobalSecondaryIndexes, VectorIndexes: p.VectorIndexes}
	if err := shape.RequiredTableName(cin.TableName); err != nil {
		return nil, err
	}
	if err := validateCreateShape(cin); err != nil {
		return nil, err
	}
	if err := validateCreateSemantics(cin, shape.StrOrDefault(cin.BillingMode, billingProvisioned)); err != nil {
		return nil, err
	}
	if err := checkSSESpec(cin.SSESpecification); err != nil {
		return nil, err
	}
	return e.ex.ImportTable((*s3Core)(e), ns, in, cin)
}

// DescribeImport reports an import.
func (e *Engine) DescribeImport(ctx context.Context, ns api.Namespace, in *api.DescribeImportInput) (*api.DescribeImportOutput, error) {
	if in == nil {
		in = &api.DescribeImportInput{}
	}
	var v shape.Violations
	if in.ImportArn == nil {
		v.Null("importArn")
	} else {
		v.Length("importArn", *in.ImportArn, 37, 1024)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.ex.DescribeImport((*s3Core)(e), ns, *in.ImportArn)
}

// ListImports lists the namespace's imports (of one table with TableArn),
// running ones too, in reverse ImportArn order.
func (e *Engine) ListImports(ctx context.Context, ns api.Namespace, in *api.ListImportsInput) (*api.ListImportsOutput, error) {
	if in == nil {
		in = &api.ListImportsInput{}
	}
	var v shape.Violations
	if in.TableArn != nil {
		v.Length("tableArn", *in.TableArn, 1, 1024)
	}
	v.Min("pageSize", in.PageSize, 1)
	v.Max("pageSize", in.PageSize, 25)
	after := hexTokenAfter(&v, in.NextToken, 112)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.ex.ListImports((*s3Core)(e), ns, in, after)
}

// hexTokenAfter checks a nextToken of the hex form ListImports and
// ListBulkOperations hand out (their pattern, ([0-9a-f]{16})+, and at
// least minLen characters) into v, and returns the id it names: where
// the next page starts after. Nil: the first page ("").
func hexTokenAfter(v *shape.Violations, token *string, minLen int) string {
	if token == nil {
		return ""
	}
	v.Length("nextToken", *token, minLen, 1024)
	b, err := hex.DecodeString(*token)
	if err != nil || len(*token)%16 != 0 {
		v.Add(shape.QuoteValue(*token), "nextToken", "Member must satisfy regular expression pattern: ([0-9a-f]{16})+")
	}
	return strings.TrimRight(string(b), "\x00")
}

// ImportErrors returns the error log of an import (the first 100 records),
// ExtendDB's stand-in for its CloudWatch log stream.
func (e *Engine) ImportErrors(ctx context.Context, ns api.Namespace, importArn string) ([]ImportErrorRecord, error) {
	return e.ex.ImportErrors((*s3Core)(e), ns, importArn)
}

// resumeImports runs again every import left IN_PROGRESS (s3io's
// import_job.go, Recovery): at the start, and at the leader's every poll.
func (e *Engine) resumeImports() error { return e.ex.ResumeImports((*s3Core)(e)) }

// failUnfinishedExports marks every export left IN_PROGRESS FAILED
// (s3io's export_job.go, Recovery): at the start, and on a shared store by
// the leader for the exports of processes gone (dead reports them).
func (e *Engine) failUnfinishedExports(dead func(owner string) bool) error {
	return e.ex.FailUnfinishedExports((*s3Core)(e), dead)
}

// s3Core is the engine as exports and imports use it (s3io.Core).
type s3Core Engine

func (c *s3Core) e() *Engine { return (*Engine)(c) }

func (c *s3Core) Now() time.Time                      { return c.e().now() }
func (c *s3Core) Store() kv.Store                     { return c.opts.Store }
func (c *s3Core) Commit(b kv.Batch) error             { return c.e().commit(b) }
func (c *s3Core) Objects() objstore.Store             { return c.opts.Objects }
func (c *s3Core) Log() *zerolog.Logger                { return &c.log }
func (c *s3Core) InternalError(err error) error       { return internalError(err) }
func (c *s3Core) LockCatalog()                        { c.e().lockCatalog() }
func (c *s3Core) UnlockCatalog()                      { c.e().unlockCatalog() }
func (c *s3Core) NewID(now time.Time) (string, error) { return backups.NewID(now) }
func (c *s3Core) JobOwner() string                    { return c.e().jobOwner() }
func (c *s3Core) ClaimJob(key string) bool            { return c.e().claimJob(key) }
func (c *s3Core) JobRunning(key string) bool          { return c.e().jobRunning(key) }
func (c *s3Core) ReleaseJob(key string)               { c.e().releaseJob(key) }

// ExportSource finds an export's table: an ARN of a table (no index or
// stream) of ns's account, Region and partition, with PITR on.
func (c *s3Core) ExportSource(ns api.Namespace, tableArn string, now time.Time) (s3io.Source, error) {
	a, err := parseARN(tableArn)
	if err != nil {
		return s3io.Source{}, err
	}
	var t *tableMeta
	if a.index == "" && a.stream == "" && a.account == ns.Account && a.region == ns.Region && a.partition == ns.Partition() {
		t = c.e().lookup(ns, a.table, now)
	}
	if t == nil {
		return s3io.Source{}, api.NewError(api.CodeTableNotFound, "Table not found: %s", tableArn)
	}
	if !t.PITREnabled {
		return s3io.Source{}, backups.Unavailable(t.Name)
	}
	src := s3io.Source{Name: t.Name, ID: t.ID}
	for _, k := range t.KeySchema {
		src.Keys = append(src.Keys, k.Name)
		src.KeyTypes = append(src.KeyTypes, k.Type)
	}
	src.Earliest, _ = c.e().pitrWindow(t, now)
	return src, nil
}

// ItemsAsOf reads table id as of at from snap's items and history
// (backups.AsOfIter).
func (c *s3Core) ItemsAsOf(snap kv.Reader, id [16]byte, at time.Time, fn func(av.Item) error) error {
	it, err := backups.NewAsOfIter((*bkCore)(c), snap, id, at, nil)
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

// ItemChanges is backups.ItemChanges with the images decoded.
func (c *s3Core) ItemChanges(ctx context.Context, snap kv.Reader, id [16]byte, from, to time.Time, fn func(old, new av.Item, written time.Time) error) error {
	return backups.ItemChanges(ctx, (*bkCore)(c), snap, id, from, to, func(oldB, newB []byte, written time.Time) error {
		oldItem, err := decodeOrNil(oldB)
		if err != nil {
			return err
		}
		newItem, err := decodeOrNil(newB)
		if err != nil {
			return err
		}
		return fn(oldItem, newItem, written)
	})
}

// FreeTableName refuses the name of a live table; a gone one is uncached
// so the import's table takes its name. The caller holds e.mu.
func (c *s3Core) FreeTableName(ns api.Namespace, name string, now time.Time) error {
	if t := c.tables[ns][name]; t != nil {
		if !t.gone(now) {
			return api.NewError(api.CodeResourceInUse, "Table already exists: %s", name)
		}
		c.e().uncacheTable(ns, name)
	}
	return nil
}

// NewTable builds an import's table as CreateTable would, within the
// account's limits. The caller holds e.mu.
func (c *s3Core) NewTable(ns api.Namespace, in *api.CreateTableInput, now time.Time) (s3io.Table, error) {
	t, err := c.e().buildTable(ns, in, shape.StrOrDefault(in.BillingMode, billingProvisioned), now)
	if err != nil {
		return nil, err
	}
	if err := c.e().checkTableLimits(ns, t, t.Throughput.Read, t.Throughput.Write); err != nil {
		return nil, err
	}
	return &importTable{e: c.e(), t: t}, nil
}

// LookupTable is the cached table, nil if none.
func (c *s3Core) LookupTable(ns api.Namespace, name string) s3io.Table {
	c.e().rlockCatalog()
	defer c.mu.RUnlock()
	t := c.e().lookup(ns, name, c.e().now())
	if t == nil {
		return nil
	}
	return &importTable{e: c.e(), t: t}
}

// importTable is one incarnation of an import's table (s3io.Table).
type importTable struct {
	e *Engine
	t *tableMeta
}

func (it *importTable) ID() [16]byte { return it.t.ID }

func (it *importTable) Create(b kv.Batch, importArn string) error {
	it.t.Importing = importArn
	return putTable(b, it.t)
}

func (it *importTable) Cache() { it.e.cacheTable(it.t) }

func (it *importTable) AttrType(name string) string {
	typ, _ := it.t.attrType(name)
	return typ
}

func (it *importTable) CheckItem(item av.Item) error {
	if err := validateItemValues(item); err != nil {
		return err
	}
	if err := checkItemKeys(it.t, item); err != nil {
		return err
	}
	return validateIndexKeys(it.t, item)
}

// Write puts items in batches through the write path (writeBatch.stage).
func (it *importTable) Write(items []av.Item) error {
	e, t := it.e, it.t
	if len(items) == 0 {
		return nil
	}
	e.rlockCatalog()
	_, ok := e.live(t)
	e.mu.RUnlock()
	if !ok {
		return s3io.ErrTableGone
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

// Finish stages the live incarnation with Importing cleared. The caller
// holds e.mu.
func (it *importTable) Finish(b kv.Batch) (func(), error) {
	c, ok := it.e.live(it.t)
	if !ok {
		return nil, nil
	}
	nt := c.clone()
	nt.Importing = ""
	if err := putTable(b, nt); err != nil {
		return nil, err
	}
	return func() { it.e.cacheTable(nt) }, nil
}

func (it *importTable) Drop() { it.e.dropRestored(it.t) }
