package bulkput

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/s3format"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
)

// defaultChunk is how many records a job writes per commit.
const defaultChunk = 256

// errCancelled stops a job whose operation was cancelled.
var errCancelled = errors.New("bulkput: cancelled")

// failure is an operation's FailureCode and FailureMessage.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.code + ": " + f.msg }

// startLocked runs m's job, once per process and only on the leader; the
// caller holds x.mu.
func (x *Jobs) startLocked(c Core, m *opMeta) {
	job := "bulkput/" + m.ID
	if !c.ClaimJob(job) {
		return
	}
	if x.runs == nil {
		x.runs = map[string]*run{}
	}
	r := &run{cancel: m.Status == statusCancelling}
	x.runs[m.ID] = r
	x.Tasks.Go(func(ctx context.Context) {
		defer c.ReleaseJob(job)
		status := x.runJob(ctx, c, m, r)
		x.unregister(m.ID, status)
	})
}

// Resume runs again every operation left IN_PROGRESS or CANCELLING; the
// engine calls it at its start, and on a shared store at the leader's
// every poll.
func (x *Jobs) Resume(c Core) error {
	all, err := scanOps(c.Store(), []byte{Op})
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, m := range all {
		if m.terminal() || x.runs[m.ID] != nil {
			continue
		}
		c.Log().Info().Str("bulkOperation", m.ARN()).Msg("resuming a bulk operation interrupted by a restart")
		x.startLocked(c, m)
	}
	return nil
}

// runJob runs m to its end and returns its final status ("" when the
// engine stopped it: it resumes at the next start).
func (x *Jobs) runJob(ctx context.Context, c Core, m *opMeta, r *run) (status string) {
	err := x.load(ctx, c, m, r)
	var f *failure
	switch {
	case err == nil, errors.Is(err, errCancelled):
		status = statusCompleted
		if m.Failed > 0 {
			status = statusCompletedWithErrors
		}
		if errors.Is(err, errCancelled) {
			status = statusCancelled
		}
		if werr := x.writeReports(ctx, c, m, status); werr != nil {
			if ctx.Err() != nil {
				return ""
			}
			code, msg := s3Failure(werr)
			f = &failure{code, msg}
			break
		}
		if x.end(c, m, r, status, nil) != nil {
			return ""
		}
		return status
	case ctx.Err() != nil:
		return ""
	case errors.As(err, &f):
	case errors.Is(err, ErrTableGone):
		f = &failure{"ResourceNotFound", "The table was deleted during the bulk operation."}
	default:
		code, msg := s3Failure(err)
		f = &failure{code, msg}
	}
	c.Log().Error().Str("bulkOperation", m.ARN()).Str("code", f.code).Str("reason", f.msg).Msg("bulk operation failed")
	if x.end(c, m, r, statusFailed, f) != nil {
		return ""
	}
	return statusFailed
}

// end stores m's final state and drops its report lines, in one batch.
func (x *Jobs) end(c Core, m *opMeta, r *run, status string, f *failure) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	m.Status, m.End = status, c.Now()
	if f != nil {
		m.FailureCode, m.FailureMsg = f.code, f.msg
	}
	b := c.Store().NewBatch()
	p := reportPrefix(m.ID)
	if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
		_ = b.Close()
		return err
	}
	if err := putOp(b.Set, m); err != nil {
		_ = b.Close()
		return err
	}
	if err := c.Commit(b); err != nil {
		c.Log().Error().Err(err).Str("bulkOperation", m.ARN()).Msg("storing the bulk operation's end")
		return err
	}
	return nil
}

// saveProgress stores m as it is (outside a chunk's commit).
func (x *Jobs) saveProgress(c Core, m *opMeta, r *run) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel {
		m.Status = statusCancelling
	}
	b := c.Store().NewBatch()
	if err := putOp(b.Set, m); err != nil {
		_ = b.Close()
		return err
	}
	return c.Commit(b)
}

// inputKeys lists the input objects (a key ending in "/" is a folder).
func inputKeys(ctx context.Context, obj objstore.Store, m *opMeta) ([]string, error) {
	prefix := ""
	if p := m.Input.S3KeyPrefix; p != nil {
		prefix = *p
	}
	all, err := obj.List(ctx, *m.Input.S3Bucket, prefix)
	if err != nil {
		return nil, err
	}
	keys := all[:0]
	for _, k := range all {
		if !strings.HasSuffix(k, "/") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, &failure{"S3NoSuchKey", fmt.Sprintf("No input objects found under s3://%s/%s", *m.Input.S3Bucket, prefix)}
	}
	return keys, nil
}

func outputBucket(m *opMeta) string {
	if b := m.Output.S3Bucket; b != nil {
		return *b
	}
	return *m.Input.S3Bucket
}

// load reads every object from where m's progress says and writes its
// records.
func (x *Jobs) load(ctx context.Context, c Core, m *opMeta, r *run) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bulkput: the job panicked: %v", p)
		}
	}()
	obj := c.Objects()
	if obj == nil {
		return objstore.ErrNoSuchBucket
	}
	t, err := c.Table(m.ns(), m.TableName, m.TableID)
	if err != nil {
		return err
	}
	keys, err := inputKeys(ctx, obj, m)
	if err != nil {
		return err
	}
	if _, err := obj.List(ctx, outputBucket(m), "AWSDynamoDB/"); err != nil {
		return err
	}
	if m.Object < len(keys) && m.ObjectKey != "" && keys[m.Object] != m.ObjectKey || m.Object > len(keys) {
		return &failure{"InvalidInput", "The input objects changed while the bulk operation ran."}
	}
	if m.TotalBytes == nil {
		var total int64
		for _, k := range keys {
			rc, size, err := obj.Open(ctx, *m.Input.S3Bucket, k)
			if err != nil {
				return err
			}
			_ = rc.Close() // only its size is wanted here
			total += size
		}
		m.TotalBytes = &total
		if err := x.saveProgress(c, m, r); err != nil {
			return err
		}
	}
	lim := newLimiter(m.MaxWRU)
	for i := m.Object; i < len(keys); i++ {
		if err := x.object(ctx, c, t, m, r, lim, keys[i], i); err != nil {
			return err
		}
	}
	return nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// object loads object i (key), from record m.Record when it is the object
// the job was in.
func (x *Jobs) object(ctx context.Context, c Core, t Table, m *opMeta, r *run, lim *limiter, key string, i int) error {
	// Streamed: the job holds a chunk of records, never the object.
	rc, objSize, err := c.Objects().Open(ctx, *m.Input.S3Bucket, key)
	if err != nil {
		return err
	}
	defer rc.Close()
	if m.Object != i || m.ObjectKey != key {
		m.Object, m.ObjectKey, m.Record = i, key, 0
	}
	cr := &countReader{r: rc}
	var rd s3format.Reader
	dec, closeFn, err := s3format.Decompress(*m.Input.InputCompressionType, cr)
	if err == nil {
		defer closeFn()
		rd, err = s3format.NewReader(*m.Input.InputFormat, dec)
	}
	if err != nil {
		// An object that does not decompress is one error record.
		bad := []Put{{Err: fmt.Errorf("the object does not decompress as %s: %w", *m.Input.InputCompressionType, err), Object: i, Pos: m.Record}}
		if m.Record == 0 {
			if err := x.chunk(ctx, c, t, m, r, lim, bad, objSize); err != nil {
				return err
			}
		}
		return x.nextObject(c, m, r, objSize)
	}
	// Skip what an earlier run committed.
	pos := int64(0)
	for ; pos < m.Record; pos++ {
		if _, err := rd.Next(); err == io.EOF || err != nil && rd.Fatal() {
			break
		}
	}
	size := x.Chunk
	if size <= 0 {
		size = defaultChunk
	}
	eof := pos < m.Record
	var pending []Put
	for !eof || len(pending) > 0 {
		for !eof && len(pending) < size {
			rec, err := rd.Next()
			if err == io.EOF {
				eof = true
				break
			}
			p := Put{Record: rec, Object: i, Pos: pos, Raw: bytes.Clone(rd.Raw())}
			pos++
			if err != nil {
				p.Record, p.Err = s3format.Record{}, err
				eof = rd.Fatal()
			}
			pending = append(pending, p)
		}
		if len(pending) == 0 {
			break
		}
		n, err := x.write(ctx, c, t, m, r, lim, pending, cr.n)
		if err != nil {
			return err
		}
		pending = pending[n:]
	}
	return x.nextObject(c, m, r, objSize)
}

// nextObject stores that the object of n bytes is done.
func (x *Jobs) nextObject(c Core, m *opMeta, r *run, n int64) error {
	m.Object++
	m.ObjectKey, m.Record = "", 0
	m.DoneBytes += n
	m.ReadBytes = m.DoneBytes
	return x.saveProgress(c, m, r)
}

// chunk writes puts whole (they repeat no key).
func (x *Jobs) chunk(ctx context.Context, c Core, t Table, m *opMeta, r *run, lim *limiter, puts []Put, read int64) error {
	for len(puts) > 0 {
		n, err := x.write(ctx, c, t, m, r, lim, puts, read)
		if err != nil {
			return err
		}
		puts = puts[n:]
	}
	return nil
}

// write commits a prefix of puts with m's progress and their report lines
// and returns its length; read is the input bytes of the object read so
// far.
func (x *Jobs) write(ctx context.Context, c Core, t Table, m *opMeta, r *run, lim *limiter, puts []Put, read int64) (int, error) {
	r.mu.Lock()
	if !r.cancel {
		// Another process of a shared store may have stored the cancel.
		if st, err := getOp(c.Store(), opKey(m.ns(), m.ID)); err == nil && st != nil && st.Status == statusCancelling {
			r.cancel = true
		}
	}
	cancelled := r.cancel
	r.mu.Unlock()
	if cancelled {
		return 0, errCancelled
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	units := 0.0
	for _, p := range puts {
		if p.Err == nil && p.Item != nil {
			units += writeUnits(av.ItemSize(p.Item))
		}
	}
	if err := lim.wait(ctx, units); err != nil {
		return 0, err
	}
	n, err := x.commit(ctx, t, m, r, puts, read)
	if err != nil {
		return 0, err
	}
	if f := x.AfterChunk; f != nil {
		f(m.Processed)
	}
	return n, nil
}

// commit is write's commit, under the run's lock.
func (x *Jobs) commit(ctx context.Context, t Table, m *opMeta, r *run, puts []Put, read int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var next *opMeta
	n, _, err := t.Write(ctx, puts, func(outs []Outcome, set func(k, v []byte) error) error {
		nm := m.clone()
		if r.cancel {
			nm.Status = statusCancelling
		}
		if err := nm.apply(puts[:len(outs)], outs, set); err != nil {
			return err
		}
		nm.ReadBytes = nm.DoneBytes + read
		next = nm
		return putOp(set, nm)
	})
	if err != nil {
		return 0, err
	}
	*m = *next
	return n, nil
}

// writeUnits is an item's write units: one per KB (API Reference,
// StartBulkPutItems: MaxWriteRequestUnits).
func writeUnits(size int) float64 { return float64(max(1, (size+1023)/1024)) }

func s3Failure(err error) (code, msg string) {
	switch {
	case errors.Is(err, objstore.ErrNoSuchBucket):
		return "S3NoSuchBucket", "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchBucket)"
	case errors.Is(err, objstore.ErrNoSuchKey):
		return "S3NoSuchKey", "The specified key does not exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchKey)"
	case errors.Is(err, objstore.ErrAccessDenied):
		return "S3AccessDenied", "Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied)"
	}
	return "UNKNOWN", err.Error()
}
