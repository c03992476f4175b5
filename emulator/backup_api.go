package emulator

import (
	"context"
	"encoding/json"
	"time"
)

// CreateBackup, DescribeBackup, ListBackups and DeleteBackup (backup.go
// holds the stored form and the copy job; restore.go the restore).

// listBackupsDefaultLimit is ListBackups' page size without a Limit.
const listBackupsDefaultLimit = 100

func backupNotFound(arn string) error {
	return NewError(CodeBackupNotFound, "Backup not found: %s", arn)
}

// backupArnShape checks a BackupArn member (37–1024 characters).
func backupArnShape(v *violations, path string, s *string, required bool) {
	if s == nil {
		if required {
			v.null(path)
		}
		return
	}
	v.length(path, *s, 37, 1024)
}

// CreateBackup starts an on-demand backup of a table: the answer is
// CREATING at once and the copy runs in the background (backup.go).
func (e *Engine) CreateBackup(ctx context.Context, ns Namespace, in *CreateBackupInput) (*CreateBackupOutput, error) {
	if in == nil {
		in = &CreateBackupInput{}
	}
	var v violations
	v.tableRef("tableName", in.TableName)
	v.name("backupName", in.BackupName, true)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkBareName(*in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := resolveName(ns, *in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, NewError(CodeTableNotFound, "Table not found: %s", name)
	}
	switch t.status(now) {
	case statusCreating:
		return nil, NewError(CodeContinuousBackupsUnavailable, "Backups are being enabled for the table: %s. Please retry later", t.Name)
	case statusDeleting:
		return nil, NewError(CodeTableInUse, "Table is being deleted: %s", t.Name)
	}
	if busy, err := e.backupBusy(tns, t.Name); err != nil {
		return nil, internalError(err)
	} else if busy {
		return nil, NewError(CodeBackupInUse, "Backup is already being created for table: %s", t.Name)
	}
	m, err := e.newBackup(t, *in.BackupName, backupUser, now)
	if err != nil {
		return nil, internalError(err)
	}
	snap := e.opts.Store.NewSnapshot()
	b := e.opts.Store.NewBatch()
	if err := putBackup(b, m); err != nil {
		_ = b.Close()
		_ = snap.Close()
		return nil, internalError(err)
	}
	if err := e.commit(b); err != nil {
		_ = snap.Close()
		return nil, internalError(err)
	}
	d := backupDetails(m)
	e.startBackup(m, snap)
	return &CreateBackupOutput{BackupDetails: d}, nil
}

func backupDetails(m *backupMeta) *BackupDetails {
	d := &BackupDetails{BackupArn: m.ARN(), BackupName: m.Name, BackupStatus: m.Status, BackupType: m.Type,
		BackupCreationDateTime: epochSeconds(m.CreatedAt), BackupSizeBytes: refOf(m.SizeBytes)}
	if !m.ExpiresAt.IsZero() {
		d.BackupExpiryDateTime = refOf(epochSeconds(m.ExpiresAt))
	}
	return d
}

func sourceThroughput(pt ptState, billing string) SourceProvisionedThroughput {
	if billing == billingPayPerRequest {
		return SourceProvisionedThroughput{}
	}
	return SourceProvisionedThroughput{ReadCapacityUnits: pt.Read, WriteCapacityUnits: pt.Write}
}

// describeBackup is DescribeBackup's description of m.
func describeBackup(m *backupMeta) *BackupDescription {
	t := m.Table
	src := &SourceTableDetails{TableName: t.Name, TableId: t.ID.UUID(), TableArn: t.ARN(), TableSizeBytes: m.SizeBytes,
		KeySchema: describeKeys(t.KeySchema), TableCreationDateTime: epochSeconds(t.CreatedAt),
		ProvisionedThroughput: sourceThroughput(t.Throughput, t.BillingMode), OnDemandThroughput: describeODT(t.OnDemand),
		ItemCount: m.ItemCount, BillingMode: t.BillingMode}
	f := &SourceTableFeatureDetails{}
	for _, ix := range t.LSIs {
		f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, LocalSecondaryIndexInfo{IndexName: ix.Name,
			KeySchema: describeKeys(ix.KeySchema), Projection: DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: ix.NonKeyAttrs}})
	}
	for _, ix := range backupGSIs(t) {
		pt := sourceThroughput(ix.Throughput, t.BillingMode)
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, GlobalSecondaryIndexInfo{IndexName: ix.Name,
			KeySchema: describeKeys(ix.KeySchema), Projection: DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: sortedCopy(ix.NonKeyAttrs)},
			ProvisionedThroughput: &pt, OnDemandThroughput: describeODT(ix.OnDemand)})
	}
	if t.StreamEnabled {
		f.StreamDescription = &DescribedStreamSpecification{StreamEnabled: true, StreamViewType: t.StreamViewType}
	}
	if t.TTLEnabled {
		f.TimeToLiveDescription = &TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: t.TTLAttr}
	}
	if t.SSEEnabled {
		f.SSEDescription = &SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: t.SSEKMSKeyArn}
	}
	return &BackupDescription{BackupDetails: backupDetails(m), SourceTableDetails: src, SourceTableFeatureDetails: f}
}

// backupGSIs are the GSIs a backup holds: those complete and not being
// deleted at the request (a GSI still backfilling is not in the backup).
func backupGSIs(t *tableMeta) []*indexMeta {
	var out []*indexMeta
	for _, ix := range t.GSIs {
		if !ix.Deleted && !ix.Backfilling {
			out = append(out, ix)
		}
	}
	return out
}

// findBackup resolves a BackupArn in the request's namespace (or, with
// anyRegion, the request's account in any Region: a cross-Region restore).
func (e *Engine) findBackup(ns Namespace, arn string, anyRegion bool) (*backupMeta, error) {
	bns, table, id, ok := parseBackupARN(arn)
	if !ok || bns.Account != ns.Account || (!anyRegion && bns.Region != ns.Region) {
		return nil, backupNotFound(arn)
	}
	m, err := getBackup(e.opts.Store, bns, id)
	if err != nil {
		return nil, internalError(err)
	}
	if m == nil || m.Table.Name != table {
		return nil, backupNotFound(arn)
	}
	return m, nil
}

// DescribeBackup describes one backup.
func (e *Engine) DescribeBackup(ctx context.Context, ns Namespace, in *BackupArnInput) (*BackupDescriptionOutput, error) {
	if in == nil {
		in = &BackupArnInput{}
	}
	var v violations
	backupArnShape(&v, "backupArn", in.BackupArn, true)
	if err := v.err(); err != nil {
		return nil, err
	}
	e.rlockCatalog()
	defer e.mu.RUnlock()
	m, err := e.findBackup(ns, *in.BackupArn, false)
	if err != nil {
		return nil, err
	}
	return &BackupDescriptionOutput{BackupDescription: describeBackup(m)}, nil
}

// restoringFrom reports whether a restore from backup arn is running. The
// caller holds e.mu.
func (e *Engine) restoringFrom(arn string) bool {
	for _, m := range e.tables {
		for _, t := range m {
			if t.Restore != nil && t.Restore.InProgress && t.Restore.SourceBackupArn == arn {
				return true
			}
		}
	}
	return false
}

// DeleteBackup deletes a backup and its rows; the answer describes it as
// DELETED.
func (e *Engine) DeleteBackup(ctx context.Context, ns Namespace, in *BackupArnInput) (*BackupDescriptionOutput, error) {
	if in == nil {
		in = &BackupArnInput{}
	}
	var v violations
	backupArnShape(&v, "backupArn", in.BackupArn, true)
	if err := v.err(); err != nil {
		return nil, err
	}
	e.lockCatalog()
	defer e.unlockCatalog()
	m, err := e.findBackup(ns, *in.BackupArn, false)
	if err != nil {
		return nil, err
	}
	if m.Status == backupCreating {
		return nil, NewError(CodeBackupInUse, "Backup is being created: %s", m.ARN())
	}
	if e.restoringFrom(m.ARN()) {
		return nil, NewError(CodeBackupInUse, "Backup is being restored: %s", m.ARN())
	}
	b := e.opts.Store.NewBatch()
	p := backupDataPrefix(m.DataID)
	if err := b.DeleteRange(p, prefixEnd(p)); err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	if err := b.Delete(backupKey(m.ns(), m.ID)); err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	if err := e.commit(b); err != nil {
		return nil, internalError(err)
	}
	m.Status = backupDeleted
	return &BackupDescriptionOutput{BackupDescription: describeBackup(m)}, nil
}

// ListBackups lists the namespace's backups in creation order, filtered by
// table, type and creation time, a page at a time.
func (e *Engine) ListBackups(ctx context.Context, ns Namespace, in *ListBackupsInput) (*ListBackupsOutput, error) {
	if in == nil {
		in = &ListBackupsInput{}
	}
	var v violations
	if in.TableName != nil {
		v.tableRef("tableName", in.TableName)
	}
	v.min("limit", in.Limit, 1)
	v.max("limit", in.Limit, 100)
	backupArnShape(&v, "exclusiveStartBackupArn", in.ExclusiveStartBackupArn, false)
	v.enum("backupType", in.BackupType, "USER", "SYSTEM", "AWS_BACKUP", "ALL")
	if err := v.err(); err != nil {
		return nil, err
	}
	var tns Namespace
	var table string
	if in.TableName != nil {
		if err := checkBareName(*in.TableName); err != nil {
			return nil, err
		}
		var err error
		if tns, table, err = resolveName(ns, *in.TableName); err != nil {
			return nil, err
		}
	}
	limit := listBackupsDefaultLimit
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	typ := strOrDefault(in.BackupType, backupUser)
	lower := backupPrefix(ns)
	if in.ExclusiveStartBackupArn != nil {
		sns, _, id, ok := parseBackupARN(*in.ExclusiveStartBackupArn)
		if !ok || sns != ns {
			return nil, Validation("Invalid ExclusiveStartBackupArn: %s", *in.ExclusiveStartBackupArn)
		}
		lower = append(backupKey(ns, id), 0)
	}
	var from, until time.Time
	if in.TimeRangeLowerBound != nil {
		from = fromEpoch(*in.TimeRangeLowerBound)
	}
	if in.TimeRangeUpperBound != nil {
		until = fromEpoch(*in.TimeRangeUpperBound)
	}

	e.rlockCatalog()
	defer e.mu.RUnlock()
	it, err := e.opts.Store.NewIter(lower, prefixEnd(backupPrefix(ns)))
	if err != nil {
		return nil, internalError(err)
	}
	defer it.Close()
	out := &ListBackupsOutput{BackupSummaries: []BackupSummary{}}
	for ok := it.First(); ok; ok = it.Next() {
		var m backupMeta
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			return nil, internalError(err)
		}
		switch {
		case m.Status == backupDeleted,
			table != "" && (m.Table.Name != table || m.ns() != tns),
			typ != "ALL" && m.Type != typ,
			!from.IsZero() && m.CreatedAt.Before(from),
			!until.IsZero() && !m.CreatedAt.Before(until):
			continue
		}
		if len(out.BackupSummaries) == limit {
			// Another match follows the full page.
			out.LastEvaluatedBackupArn = out.BackupSummaries[limit-1].BackupArn
			break
		}
		d := backupDetails(&m)
		out.BackupSummaries = append(out.BackupSummaries, BackupSummary{TableName: m.Table.Name, TableId: m.Table.ID.UUID(),
			TableArn: m.Table.ARN(), BackupArn: d.BackupArn, BackupName: d.BackupName, BackupCreationDateTime: d.BackupCreationDateTime,
			BackupExpiryDateTime: d.BackupExpiryDateTime, BackupStatus: d.BackupStatus, BackupType: d.BackupType, BackupSizeBytes: d.BackupSizeBytes})
	}
	if err := it.Error(); err != nil {
		return nil, internalError(err)
	}
	return out, nil
}

// fromEpoch converts epoch seconds with a fraction to a time (ms precision,
// as DynamoDB keeps).
func fromEpoch(s float64) time.Time {
	return time.UnixMilli(int64(s*1000 + 0.5*sign(s))).UTC()
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}
