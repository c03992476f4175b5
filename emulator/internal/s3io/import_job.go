package s3io

// An import's job and its recovery.
//
// The job reads every object under the prefix from the S3 stand-in,
// parses it (DYNAMODB_JSON, ION or CSV, after GZIP/ZSTD/NONE), and writes
// the valid items through the engine's write path (Table.Write), so index
// entries and table stats stay exact. It ends by making the table ACTIVE
// and storing the final record in one batch: COMPLETED, or
// FAILED/ItemValidationError with the valid items kept when some were bad
// (Developer Guide, "Import format quotas and validation"). A missing
// bucket fails the import and drops the table, as AWS creates none.
//
// Recovery. The job's writes are puts of whole items, so running it again
// from the first object ends in the same table (a duplicate key keeps one
// of its items, as on AWS). The engine's start restarts every import left
// IN_PROGRESS from scratch (ResumeImports); the counters are only stored
// at the end.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/s3format"
	"github.com/extenddb/extenddb/objstore"
)

// importChunk is how many items an import writes per batch (a backup's
// chunk).
const importChunk = 1024

// startImport runs m's job into t. The caller holds the catalog lock (or
// is the engine's start). On a shared store only the leader runs it, once.
func (x *Jobs) startImport(c Core, m *importMeta, t Table) {
	job := "import/" + m.ARN()
	if !c.ClaimJob(job) {
		return
	}
	x.Tasks.Go(func(ctx context.Context) {
		defer c.ReleaseJob(job)
		err := x.runImport(ctx, c, m, t)
		switch {
		case err == nil, errors.Is(err, context.Canceled):
			// Canceled: still IN_PROGRESS; the next start runs it again.
		case errors.Is(err, ErrTableGone):
			c.Log().Warn().Str("import", m.ARN()).Msg("the table being imported into was deleted; the import fails")
			endImport(c, m, t, func(m *importMeta) {
				m.Status, m.FailureCode, m.FailureMsg = importFailed, "UNKNOWN", "The table was deleted during the import."
			})
		default:
			code, msg := s3Failure(err)
			c.Log().Error().Err(err).Str("import", m.ARN()).Msg("import failed; the table is dropped")
			t.Drop()
			m.TableDropped = true
			endImport(c, m, nil, func(m *importMeta) { m.Status, m.FailureCode, m.FailureMsg = importFailed, code, msg })
		}
	})
}

// ResumeImports runs again every import left IN_PROGRESS; the engine calls
// it at its start, and on a shared store at the leader's every poll.
func (x *Jobs) ResumeImports(c Core) error {
	all, err := scanRecords[importMeta](c.Store(), []byte{Import})
	if err != nil {
		return err
	}
	type job struct {
		m *importMeta
		t Table
	}
	var jobs []job
	for _, m := range all {
		if m.Status == importInProgress {
			jobs = append(jobs, job{m, c.LookupTable(m.ns(), m.TableName)})
		}
	}
	for _, j := range jobs {
		m, t := j.m, j.t
		if t == nil || t.ID() != m.TableID {
			endImport(c, m, nil, func(m *importMeta) {
				m.Status, m.FailureCode, m.FailureMsg = importFailed, "UNKNOWN", "The table was deleted during the import."
			})
			continue
		}
		if c.JobRunning("import/" + m.ARN()) {
			continue // the leader's poll finds it running
		}
		c.Log().Info().Str("import", m.ARN()).Msg("resuming an import interrupted by a restart")
		x.startImport(c, m, t)
	}
	return nil
}

// endImport stores m's final state, set by f, and (t non-nil) makes the
// table ACTIVE in the same batch.
func endImport(c Core, m *importMeta, t Table, f func(*importMeta)) {
	c.LockCatalog()
	defer c.UnlockCatalog()
	f(m)
	m.End = c.Now()
	b := c.Store().NewBatch()
	var done func()
	if t != nil {
		var err error
		if done, err = t.Finish(b); err != nil {
			_ = b.Close()
			return
		}
	}
	m.Version = recordVersion
	if err := putRecord(b, importKey(m.ns(), m.ID), m); err != nil {
		_ = b.Close()
		return
	}
	if err := c.Commit(b); err != nil {
		c.Log().Error().Err(err).Str("import", m.ARN()).Msg("storing the import's end")
		return
	}
	if done != nil {
		done()
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
	var ee *api.Error
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
func (x *Jobs) runImport(ctx context.Context, c Core, m *importMeta, t Table) (err error) {
	defer recoverJob(&err)
	obj := c.Objects()
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
	var n importCounts
	for i, key := range keys {
		if strings.HasSuffix(key, "/") {
			continue
		}
		data, err := obj.Get(ctx, bucket, key)
		if err != nil {
			return err
		}
		if err := importObject(ctx, m, t, key, data, &n); err != nil {
			return err
		}
		if f := x.AfterFile; f != nil {
			f("import", i+1)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	endImport(c, m, t, func(m *importMeta) {
		m.Processed, m.Imported, m.Errors, m.ProcessedB = n.processed, n.imported, n.errors, n.bytes
		m.ErrorLog = n.log
		m.Status = importCompleted
		if n.errors > 0 {
			m.Status, m.FailureCode, m.FailureMsg = importFailed, "ItemValidationError", msgItemValidation
		}
	})
	return nil
}

// importObject parses one object and writes its valid items. The first bad
// item abandons the rest of the object, as one error (Developer Guide,
// "Import format quotas and validation").
func importObject(ctx context.Context, m *importMeta, t Table, key string, data []byte, c *importCounts) error {
	raw, err := s3format.DecompressAll(m.Compression, data)
	if err != nil {
		c.fail(m, key, 0, fmt.Errorf("the object does not decompress as %s: %w", m.Compression, err))
		return nil
	}
	c.bytes += int64(len(raw))
	next := itemReader(m.Format, m.Options, t, raw)
	var batch []av.Item
	flush := func() error {
		var err error
		if len(batch) > 0 {
			err = t.Write(batch)
		}
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
		if len(batch) == importChunk {
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

var errBadLine = s3format.ErrNotItem

// checkImportItem applies PutItem's item checks.
func checkImportItem(t Table, item av.Item) error {
	if len(item) == 0 {
		return errBadLine
	}
	for k := range item {
		if k == "" {
			return errBadLine
		}
	}
	if err := t.CheckItem(item); err != nil {
		return err
	}
	if av.ItemSize(item) > maxItemBytes {
		return errBadLine
	}
	return nil
}

// itemReader returns a function yielding the object's items one by one
// (io.EOF at the end) in the import's format.
func itemReader(format string, opts *api.InputFormatOptions, t Table, raw []byte) func() (av.Item, error) {
	if format == formatCSV {
		return csvReader(opts, t, raw)
	}
	r, err := s3format.NewReader(format, bytes.NewReader(raw))
	if err != nil {
		return func() (av.Item, error) { return nil, err }
	}
	return func() (av.Item, error) {
		rec, err := r.Next()
		return rec.Item, err
	}
}

// csvReader reads CSV rows: the header is the first row unless HeaderList
// is given; table and index key columns take their declared types, every
// other column is a string; empty cells are left out.
func csvReader(opts *api.InputFormatOptions, t Table, raw []byte) func() (av.Item, error) {
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	var header []string
	if o := opts; o != nil && o.Csv != nil {
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
			switch t.AttrType(header[i]) {
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
