package s3io

// An export's job and its recovery.
//
// The job writes the layout of an AWS export (Developer Guide, "DynamoDB
// table export output format") from the request's snapshot to the S3
// stand-in: _started first (it proves the bucket is writable; a missing
// bucket ends the export FAILED/S3NoSuchBucket as on AWS), then the data
// files, then manifest-files.json and manifest-summary.json with their
// .md5 files, and only then the record COMPLETED. It reads the table as
// of ExportTime from the snapshot's items and point-in-time history
// (Core.ItemsAsOf), so any moment of the recovery window can be exported.
//
// Recovery. A snapshot does not survive a restart and a copy resumed from
// the live table would not be the table at ExportTime, so the engine's
// start fails every export left IN_PROGRESS (FailUnfinishedExports). Its
// manifests were never written, so no reader of the prefix takes the
// partial data files for a finished export.

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/ion"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/klauspost/compress/gzip"
)

// startExport runs m's job from snap (taken at the request); it owns snap.
func (x *Jobs) startExport(c Core, m *exportMeta, snap kv.Snapshot) {
	x.Tasks.Go(func(ctx context.Context) {
		err := x.runExport(ctx, c, m, snap)
		_ = snap.Close()
		if errors.Is(err, context.Canceled) {
			return // stays IN_PROGRESS; the next start fails it
		}
		if err != nil {
			code, msg := s3Failure(err)
			c.Log().Error().Err(err).Str("export", m.ARN()).Msg("export failed")
			endExport(c, m, func(m *exportMeta) { m.Status, m.FailureCode, m.FailureMessage = exportFailed, code, msg })
		}
	})
}

// endExport stores m's final state, set by f, with its end time.
func endExport(c Core, m *exportMeta, f func(*exportMeta)) {
	f(m)
	m.End = c.Now()
	if err := putExport(c, m); err != nil {
		c.Log().Error().Err(err).Str("export", m.ARN()).Msg("storing the export's end")
	}
}

// manifestFile is one line of manifest-files.json.
type manifestFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// dataFiles writes an export's data files: gzipped lines, per items to a
// file, each file counted in files.
type dataFiles struct {
	ctx    context.Context
	obj    objstore.Store
	m      *exportMeta
	ext    string
	per    int64
	after  func(job string, n int)
	files  []manifestFile
	buf    bytes.Buffer
	zw     *gzip.Writer
	inFile int64
	items  int64
	billed int64
	wrote  bool
}

// flush writes the file being filled.
func (w *dataFiles) flush() error {
	if err := w.zw.Close(); err != nil {
		return err
	}
	name, err := randomFileName()
	if err != nil {
		return err
	}
	key := w.m.base() + "data/" + name + w.ext + ".gz"
	data := w.buf.Bytes()
	etag, err := w.obj.Put(w.ctx, w.m.Bucket, key, data)
	if err != nil {
		return err
	}
	sum := md5.Sum(data)
	w.files = append(w.files, manifestFile{ItemCount: w.inFile, MD5Checksum: base64.StdEncoding.EncodeToString(sum[:]),
		ETag: strings.Trim(etag, `"`), DataFileS3Key: key})
	w.buf.Reset()
	w.zw.Reset(&w.buf)
	w.inFile, w.wrote = 0, true
	if f := w.after; f != nil {
		f("export", len(w.files))
	}
	return w.ctx.Err()
}

// write adds one line (its newline appended here).
func (w *dataFiles) write(line []byte) error {
	line = append(line, '\n')
	if _, err := w.zw.Write(line); err != nil {
		return err
	}
	w.items++
	w.inFile++
	if w.inFile == w.per {
		return w.flush()
	}
	return nil
}

// runExport writes the export's objects from snap, then marks it COMPLETED.
func (x *Jobs) runExport(ctx context.Context, c Core, m *exportMeta, snap kv.Snapshot) (err error) {
	defer recoverJob(&err)
	obj := c.Objects()
	if obj == nil {
		return objstore.ErrNoSuchBucket
	}
	base := m.base()
	if _, err := obj.Put(ctx, m.Bucket, base+"_started", nil); err != nil {
		return err
	}
	per := x.FileItems
	if per <= 0 {
		per = defaultExportFileItems
	}
	enc := exportEncoder(m.Format)
	w := &dataFiles{ctx: ctx, obj: obj, m: m, ext: enc.ext, per: int64(per), after: x.AfterFile}
	w.zw = gzip.NewWriter(&w.buf)
	var line []byte
	f := m.filter
	if m.Filter != nil && f == nil {
		return errors.New("emulator: the export's filter was not bound to its table")
	}
	// The billed size is what the export reads: a key condition narrows
	// it, a filter does not (Developer Guide, "Filtering a table
	// export"); the item count is what it writes.
	if m.Type == exportIncremental {
		err = m.writeChanges(ctx, c, snap, func(ch incrementalChange) error {
			if !f.inKeyRange(ch.latest) {
				return nil
			}
			w.billed += int64(av.ItemSize(ch.Old) + av.ItemSize(ch.New))
			if ok, err := f.match(ch.latest); !ok || err != nil {
				return err
			}
			ch.Old, ch.New = f.project(ch.Old), f.project(ch.New)
			line = enc.change(line[:0], ch)
			return w.write(line)
		})
	} else {
		err = c.ItemsAsOf(snap, m.TableID, m.ExportTime, func(item av.Item) error {
			if !f.inKeyRange(item) {
				return nil
			}
			w.billed += int64(av.ItemSize(item))
			if ok, err := f.match(item); !ok || err != nil {
				return err
			}
			line = enc.item(line[:0], f.project(item))
			return w.write(line)
		})
	}
	if err != nil {
		return err
	}
	if w.inFile > 0 || !w.wrote {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if err := writeManifests(ctx, c, obj, m, w); err != nil {
		return err
	}
	endExport(c, m, func(m *exportMeta) {
		m.Status, m.Items, m.Billed, m.Manifest = exportCompleted, w.items, w.billed, base+"manifest-summary.json"
	})
	return nil
}

// writeManifests writes manifest-files and manifest-summary, each with its
// .md5, once every data file is written.
func writeManifests(ctx context.Context, c Core, obj objstore.Store, m *exportMeta, w *dataFiles) error {
	base := m.base()
	var mf bytes.Buffer
	for _, f := range w.files {
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
	end := c.Now()
	summary := map[string]any{
		"version": "2020-06-30", "exportArn": m.ARN(), "startTime": isoMillis(m.Start), "endTime": isoMillis(end),
		"tableArn": m.tableARN(), "tableId": m.TableID.UUID(), "exportTime": isoMillis(m.ExportTime),
		"s3Bucket": m.Bucket, "s3Prefix": m.Prefix, "s3SseAlgorithm": m.SSE, "s3SseKmsKeyId": m.SSEKey,
		"manifestFilesS3Key": base + "manifest-files.json", "billedSizeBytes": w.billed, "itemCount": w.items,
		"outputFormat": m.Format, "outputView": m.outputView(), "exportType": m.Type,
	}
	sb, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	if err := putWithMD5(ctx, obj, m.Bucket, base+"manifest-summary", sb); err != nil {
		return err
	}
	return ctx.Err()
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

// incrementalChange is one line of an incremental export: an item's final
// state in the window, with its image before it (Old, nil if it did not
// exist) and after (New, nil if deleted).
type incrementalChange struct {
	Written  time.Time
	Keys     av.Item
	Old, New av.Item
	// latest is the image a filter tests: New, or the image before a
	// delete (Developer Guide, "Filtering a table export"), whatever the
	// view type writes.
	latest av.Item
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
func (m *exportMeta) writeChanges(ctx context.Context, c Core, snap kv.Snapshot, fn func(incrementalChange) error) error {
	spec := m.Incremental
	from, to := timeOf(*spec.ExportFromTime), timeOf(*spec.ExportToTime)
	withOld := strOrDefault(spec.ExportViewType, "NEW_AND_OLD_IMAGES") == "NEW_AND_OLD_IMAGES"
	// ItemChanges's window is (from, to]: a nanosecond earlier each makes
	// it [from, to).
	return c.ItemChanges(ctx, snap, m.TableID, from.Add(-time.Nanosecond), to.Add(-time.Nanosecond), func(oldItem, newItem av.Item, written time.Time) error {
		src := newItem
		if src == nil {
			src = oldItem
		}
		ch := incrementalChange{Written: written, New: newItem, Keys: av.Item{}, latest: src}
		for _, k := range m.KeyNames {
			ch.Keys[k] = src[k]
		}
		if withOld {
			ch.Old = oldItem
		}
		return fn(ch)
	})
}

// FailUnfinishedExports marks every export left IN_PROGRESS by the last
// run FAILED (see Recovery above). The engine calls it at its start; on a
// shared store the leader calls it for the exports of processes gone
// (dead reports them).
func (x *Jobs) FailUnfinishedExports(c Core, dead func(owner string) bool) error {
	all, err := scanRecords[exportMeta](c.Store(), []byte{Export})
	if err != nil {
		return err
	}
	for _, m := range all {
		if m.Status != exportInProgress || (dead != nil && !dead(m.Owner)) {
			continue
		}
		endExport(c, m, func(m *exportMeta) {
			m.Status, m.FailureCode = exportFailed, "UNKNOWN"
			m.FailureMessage = "The export was interrupted by a restart of ExtendDB before it finished; no manifest was written. Start a new export."
		})
		c.Log().Warn().Str("export", m.ARN()).Msg("export interrupted by a restart; marked FAILED")
	}
	return nil
}
