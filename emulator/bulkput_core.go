package emulator

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/bulkput"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
	"github.com/extenddb/extenddb/objstore"
	"github.com/rs/zerolog"
)

// Bulk put from S3 runs in emulator/internal/bulkput. This file checks the
// requests' shapes, as every operation's, and hands them over with bpCore:
// the table a bulk put writes, its restrictions, and the write pipeline its
// chunks go through (bulkTable.Write).

const famBulkOp, famBulkReport = bulkput.Op, bulkput.Report

// validateBulkPut runs the model's member constraints (API Reference,
// StartBulkPutItems, InputS3Configuration, OutputS3Configuration).
func validateBulkPut(in *api.StartBulkPutItemsInput) error {
	var v shape.Violations
	if in.TableName == nil {
		v.Null("tableName")
	} else {
		v.Length("tableName", *in.TableName, 1, 1024)
	}
	checkClientToken(&v, in.ClientToken)
	if s := in.InputS3Configuration; s == nil {
		v.Null("inputS3Configuration")
	} else {
		checkS3Bucket(&v, "inputS3Configuration.s3Bucket", "inputS3Configuration.s3BucketOwner", s.S3Bucket, s.S3BucketOwner)
		if s.S3KeyPrefix != nil {
			v.Length("inputS3Configuration.s3KeyPrefix", *s.S3KeyPrefix, 0, 1024)
		}
		if s.InputFormat == nil {
			v.Null("inputS3Configuration.inputFormat")
		}
		v.Enum("inputS3Configuration.inputFormat", s.InputFormat, "DYNAMODB_JSON", "ION")
		v.Enum("inputS3Configuration.inputCompressionType", s.InputCompressionType, "GZIP", "ZSTD", "NONE")
	}
	if o := in.OutputS3Configuration; o == nil {
		v.Null("outputS3Configuration")
	} else {
		if o.OutputType == nil {
			v.Null("outputS3Configuration.outputType")
		}
		for _, t := range o.OutputType {
			v.Enum("outputS3Configuration.outputType", &t, "ERROR", "CONDITION_CHECK_FAILURE")
		}
		if o.S3Bucket != nil || o.S3BucketOwner != nil {
			checkS3Bucket(&v, "outputS3Configuration.s3Bucket", "outputS3Configuration.s3BucketOwner", o.S3Bucket, o.S3BucketOwner)
		}
		if o.S3KeyPrefix != nil {
			v.Length("outputS3Configuration.s3KeyPrefix", *o.S3KeyPrefix, 0, 1024)
		}
		v.Enum("outputS3Configuration.s3SseAlgorithm", o.S3SseAlgorithm, "AES256", "KMS")
		if o.S3SseKmsKeyId != nil {
			v.Length("outputS3Configuration.s3SseKmsKeyId", *o.S3SseKmsKeyId, 1, 2048)
		}
	}
	v.Min("maxWriteRequestUnits", in.MaxWriteRequestUnits, 1024)
	v.Enum("performanceTier", in.PerformanceTier, "STANDARD", "ACCELERATED")
	if err := v.Err(); err != nil {
		return err
	}
	if o := in.OutputS3Configuration; o.S3SseKmsKeyId != nil && (o.S3SseAlgorithm == nil || *o.S3SseAlgorithm != "KMS") {
		return api.Validation("One or more parameter values were invalid: S3SseKmsKeyId can only be specified when S3SseAlgorithm is KMS")
	}
	return nil
}

// StartBulkPutItems starts loading items from the S3 stand-in into an
// existing table; the answer is IN_PROGRESS and a job writes them.
func (e *Engine) StartBulkPutItems(ctx context.Context, ns api.Namespace, in *api.StartBulkPutItemsInput) (*api.StartBulkPutItemsOutput, error) {
	if in == nil {
		in = &api.StartBulkPutItemsInput{}
	}
	if err := validateBulkPut(in); err != nil {
		return nil, err
	}
	return e.bp.Start((*bpCore)(e), ns, in)
}

func checkBulkArn(in *string) error {
	var v shape.Violations
	if in == nil {
		v.Null("bulkOperationArn")
	} else {
		v.Length("bulkOperationArn", *in, 37, 1024)
	}
	return v.Err()
}

// DescribeBulkOperation reports a bulk operation.
func (e *Engine) DescribeBulkOperation(ctx context.Context, ns api.Namespace, in *api.DescribeBulkOperationInput) (*api.DescribeBulkOperationOutput, error) {
	if in == nil {
		in = &api.DescribeBulkOperationInput{}
	}
	if err := checkBulkArn(in.BulkOperationArn); err != nil {
		return nil, err
	}
	return e.bp.Describe((*bpCore)(e), ns, *in.BulkOperationArn)
}

// CancelBulkOperation cancels a bulk operation (CANCELLING, then
// CANCELLED once its job stopped).
func (e *Engine) CancelBulkOperation(ctx context.Context, ns api.Namespace, in *api.CancelBulkOperationInput) (*api.CancelBulkOperationOutput, error) {
	if in == nil {
		in = &api.CancelBulkOperationInput{}
	}
	if err := checkBulkArn(in.BulkOperationArn); err != nil {
		return nil, err
	}
	return e.bp.Cancel((*bpCore)(e), ns, *in.BulkOperationArn)
}

// ListBulkOperations lists the namespace's bulk operations of the last
// 90 days, newest first.
func (e *Engine) ListBulkOperations(ctx context.Context, ns api.Namespace, in *api.ListBulkOperationsInput) (*api.ListBulkOperationsOutput, error) {
	if in == nil {
		in = &api.ListBulkOperationsInput{}
	}
	var v shape.Violations
	v.Min("maxResults", in.MaxResults, 1)
	v.Max("maxResults", in.MaxResults, 25)
	after := hexTokenAfter(&v, in.NextToken, 1)
	if err := v.Err(); err != nil {
		return nil, err
	}
	limit := 10
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	return e.bp.List((*bpCore)(e), ns, limit, after)
}

// BulkOperationCounts are the bulk operations started by this process and
// those that ended, by final status (for /metrics).
func (e *Engine) BulkOperationCounts() (started int64, finished map[string]int64) {
	return e.bp.Counts()
}

// resumeBulkPuts runs again every bulk operation left unfinished: at the
// start, and at the leader's every poll.
func (e *Engine) resumeBulkPuts() error { return e.bp.Resume((*bpCore)(e)) }

// bulkRunning refuses adding a replica to t while a bulk operation runs on
// it (Developer Guide, "Bulk put items: considerations").
func (e *Engine) bulkRunning(t *tableMeta) error {
	on, err := bulkput.Running(e.opts.Store, t.ns(), t.ID)
	if err != nil {
		return internalError(err)
	}
	if on {
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: A bulk operation is in progress on table: %s", t.Name)
	}
	return nil
}

// bpCore is the engine as bulk put uses it (bulkput.Core).
type bpCore Engine

func (c *bpCore) e() *Engine { return (*Engine)(c) }

func (c *bpCore) Now() time.Time                      { return c.e().now() }
func (c *bpCore) Store() kv.Store                     { return c.opts.Store }
func (c *bpCore) Commit(b kv.Batch) error             { return c.e().commit(b) }
func (c *bpCore) Objects() objstore.Store             { return c.opts.Objects }
func (c *bpCore) Log() *zerolog.Logger                { return &c.log }
func (c *bpCore) InternalError(err error) error       { return internalError(err) }
func (c *bpCore) NewID(now time.Time) (string, error) { return backups.NewID(now) }
func (c *bpCore) ClaimJob(key string) bool            { return c.e().claimJob(key) }
func (c *bpCore) ReleaseJob(key string)               { c.e().releaseJob(key) }

// Target resolves a StartBulkPutItems's table and applies the
// restrictions of the Developer Guide's "Bulk put items: considerations":
// ACTIVE (or UPDATING for a change other than an index), no index being
// created, never a global table.
func (c *bpCore) Target(ns api.Namespace, nameOrARN string) (bulkput.Table, error) {
	e := c.e()
	tns, name, err := resolveName(ns, nameOrARN)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(tns, name, now)
	e.mu.RUnlock()
	if t == nil || tns != ns {
		// Another account's or Region's table (by ARN) is not served: the
		// operation belongs to the caller's namespace.
		return nil, api.ResourceNotFoundError("Requested resource not found: Table: %s not found", name)
	}
	if len(t.Group) > 0 || t.Legacy != nil {
		return nil, api.Validation("Bulk operations are not supported on global tables. Table: %s", t.Name)
	}
	if s := t.status(now); s != statusActive && s != statusUpdating {
		return nil, api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is not ACTIVE: %s (status %s)", t.Name, s)
	}
	for _, ix := range t.GSIs {
		if ix.Backfilling || now.Before(ix.CreatingUntil) {
			return nil, api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Index is being created. Table: %s Index: %s", t.Name, ix.Name)
		}
	}
	return &bulkTable{e: e, t: t}, nil
}

// Table is the running operation's table incarnation.
func (c *bpCore) Table(ns api.Namespace, name string, id [16]byte) (bulkput.Table, error) {
	e := c.e()
	e.rlockCatalog()
	t := e.lookup(ns, name, e.now())
	e.mu.RUnlock()
	if t == nil || t.ID != id {
		return nil, bulkput.ErrTableGone
	}
	return &bulkTable{e: e, t: t}, nil
}

// bulkTable is a bulk operation's table (bulkput.Table).
type bulkTable struct {
	e *Engine
	t *tableMeta
}

func (bt *bulkTable) Name() string { return bt.t.Name }
func (bt *bulkTable) ID() [16]byte { return bt.t.ID }

// spec checks a record as PutItem checks its item and condition and
// returns its write.
func (bt *bulkTable) spec(t *tableMeta, p *bulkput.Put) (*writeSpec, error) {
	item := p.Item
	if len(item) == 0 {
		return nil, api.Validation("One or more parameter values were invalid: Missing the key %s in the item", t.hashKey().Name)
	}
	cond, err := bt.e.putDeleteCondition(putDeleteChecks{values: item, condition: p.ConditionExpression,
		names: p.ExpressionAttributeNames, exprValues: p.ExpressionAttributeValues, itemSizeLimit: true})
	if err != nil {
		return nil, err
	}
	if err := checkItemKeys(t, item); err != nil {
		return nil, err
	}
	if err := validateIndexKeys(t, item); err != nil {
		return nil, err
	}
	return &writeSpec{t: t, key: itemKey(t, item), cond: cond, build: func(av.Item) (av.Item, error) { return item, nil },
		sizeMsg: msgItemTooLarge, returnOldOnFail: true, oldUnread: cond == nil}, nil
}

// Write writes the longest prefix of puts that repeats no key through the
// write pipeline, holding the items' lock stripes, in one store
// transaction with what stage sets (bulkput.Table).
func (bt *bulkTable) Write(ctx context.Context, puts []bulkput.Put, stage func(outs []bulkput.Outcome, set func(k, v []byte) error) error) (int, []bulkput.Outcome, error) {
	e := bt.e
	t, err := e.current(bt.t)
	if err != nil {
		return 0, nil, bulkput.ErrTableGone
	}
	bt.t = t
	outs := make([]bulkput.Outcome, len(puts))
	type planned struct {
		j    int
		spec *writeSpec
	}
	var plan []planned
	var keys [][]byte
	seen := map[string]bool{}
	n := 0
	for ; n < len(puts); n++ {
		p := &puts[n]
		if p.Err != nil {
			outs[n].Err = p.Err
			continue
		}
		s, err := bt.spec(t, p)
		if err != nil {
			outs[n].Err = err
			continue
		}
		if seen[string(s.key)] {
			break
		}
		seen[string(s.key)] = true
		plan = append(plan, planned{n, s})
		keys = append(keys, s.key)
	}
	outs = outs[:n]
	stripes := e.items.locks.Lock(keys...)
	defer e.items.locks.Unlock(stripes)
	err = e.update(false, func(wb *writeBatch) error {
		cur, err := e.currentIn(wb.r, t)
		if err != nil {
			return err
		}
		for _, pl := range plan {
			o := &outs[pl.j]
			*o = bulkput.Outcome{}
			pl.spec.t = cur
			pw, err := e.prepare(wb.r, pl.spec)
			var ae *api.Error
			switch {
			case err != nil && errors.As(err, &ae) && ae.Code == api.CodeConditionalCheckFailed:
				o.ConditionFailed, o.Existing = true, pw.change.Old
				continue
			case err != nil && errors.As(err, &ae) && ae.Code == api.CodeValidation:
				o.Err = err
				continue
			case err != nil:
				return err
			}
			if err := wb.stage(pw); err != nil {
				return err
			}
			o.TableBytes = int64(pw.newSize)
			for i, ix := range pw.indexes {
				if ne := pw.entries[i].newEntry; ne != nil {
					o.Indexes = append(o.Indexes, bulkput.IndexBytes{Name: ix.Name, Local: ix.Local, Bytes: int64(av.ItemSize(ne))})
				}
			}
			for _, p := range pw.vecs {
				if p.has {
					o.Vectors = append(o.Vectors, bulkput.IndexBytes{Name: p.vi.Name, Bytes: int64(p.vi.Bytes(&p.new))})
				}
			}
		}
		return stage(outs, wb.b.Set)
	})
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Code == api.CodeResourceNotFound {
			return 0, nil, bulkput.ErrTableGone
		}
		return 0, nil, err
	}
	return n, outs, nil
}
