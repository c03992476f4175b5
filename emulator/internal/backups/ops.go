package backups

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// CreateBackup, DescribeBackup, ListBackups and DeleteBackup (copy.go
// holds the copy job; restore.go the restore).

// listDefaultLimit is ListBackups' page size without a Limit.
const listDefaultLimit = 100

func notFound(arn string) error {
	return api.NewError(api.CodeBackupNotFound, "Backup not found: %s", arn)
}

// arnShape checks a BackupArn member (37–1024 characters).
func arnShape(v *shape.Violations, path string, s *string, required bool) {
	if s == nil {
		if required {
			v.Null(path)
		}
		return
	}
	v.Length(path, *s, 37, 1024)
}

// CreateBackup starts an on-demand backup of a table: the answer is
// CREATING at once and the copy runs in the background (copy.go).
func (j *Jobs) CreateBackup(c Core, ns api.Namespace, in *api.CreateBackupInput) (*api.CreateBackupOutput, error) {
	if in == nil {
		in = &api.CreateBackupInput{}
	}
	var v shape.Violations
	v.TableRef("tableName", in.TableName)
	v.Name("backupName", in.BackupName, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := c.ResolveName(ns, *in.TableName)
	if err != nil {
		return nil, err
	}
	now := c.Now()
	c.LockCatalog()
	defer c.UnlockCatalog()
	src, err := c.BackupSource(tns, name, now)
	if err != nil {
		return nil, err
	}
	if busy, err := j.busy(c, tns, src.Name); err != nil {
		return nil, c.InternalError(err)
	} else if busy {
		return nil, api.NewError(api.CodeBackupInUse, "Backup is already being created for table: %s", src.Name)
	}
	m, err := newMeta(c, tns, src, *in.BackupName, typeUser, now)
	if err != nil {
		return nil, c.InternalError(err)
	}
	snap := c.Store().NewSnapshot()
	b := c.Store().NewBatch()
	if err := put(b, m); err != nil {
		_ = b.Close()
		_ = snap.Close()
		return nil, c.InternalError(err)
	}
	if err := c.Commit(b); err != nil {
		_ = snap.Close()
		return nil, c.InternalError(err)
	}
	d := details(m)
	j.Start(c, m, snap)
	return &api.CreateBackupOutput{BackupDetails: d}, nil
}

// SystemBackup stages in b the record of the SYSTEM backup DeleteTable
// keeps of src (a table with PITR on) in ns; Start copies it once b is
// committed.
func SystemBackup(c Core, b kv.Batch, ns api.Namespace, src Source, now time.Time) (*Meta, error) {
	m, err := newMeta(c, ns, src, src.Name+"$DeletedTableBackup", TypeSystem, now)
	if err != nil {
		return nil, err
	}
	return m, put(b, m)
}

// busy reports whether a backup of table is being created: by this
// process (in memory) or, on a shared store, by another live one.
func (j *Jobs) busy(c Core, ns api.Namespace, table string) (bool, error) {
	if _, busy := j.creating[creatingKey(ns, table)]; busy || !c.Shared() {
		return busy, nil
	}
	all, err := scan(c.Store(), prefix(ns), "record")
	if err != nil {
		return false, err
	}
	for _, m := range all {
		if m.Status == statusCreating && m.table.Name == table && !c.OwnerGone(m.Owner) {
			return true, nil
		}
	}
	return false, nil
}

func details(m *Meta) *api.BackupDetails {
	d := &api.BackupDetails{BackupArn: m.ARN(), BackupName: m.Name, BackupStatus: m.Status, BackupType: m.Type,
		BackupCreationDateTime: api.EpochSeconds(m.CreatedAt), BackupSizeBytes: refOf(m.SizeBytes)}
	if !m.ExpiresAt.IsZero() {
		d.BackupExpiryDateTime = refOf(api.EpochSeconds(m.ExpiresAt))
	}
	return d
}

// describe is DescribeBackup's description of m.
func describe(c Core, m *Meta) (*api.BackupDescription, error) {
	src, f, err := c.DescribeSource(m.Table)
	if err != nil {
		return nil, c.InternalError(err)
	}
	src.TableSizeBytes, src.ItemCount = m.SizeBytes, m.ItemCount
	return &api.BackupDescription{BackupDetails: details(m), SourceTableDetails: src, SourceTableFeatureDetails: f}, nil
}

// find resolves a BackupArn in the request's namespace (or, with
// anyRegion, the request's account in any Region: a cross-Region restore).
func find(c Core, ns api.Namespace, arn string, anyRegion bool) (*Meta, error) {
	bns, table, id, ok := ParseARN(arn)
	if !ok || bns.Account != ns.Account || (!anyRegion && bns.Region != ns.Region) {
		return nil, notFound(arn)
	}
	m, err := Get(c.Store(), bns, id)
	if err != nil {
		return nil, c.InternalError(err)
	}
	if m == nil || m.table.Name != table {
		return nil, notFound(arn)
	}
	return m, nil
}

// DescribeBackup describes one backup.
func DescribeBackup(c Core, ns api.Namespace, in *api.BackupArnInput) (*api.BackupDescriptionOutput, error) {
	if in == nil {
		in = &api.BackupArnInput{}
	}
	var v shape.Violations
	arnShape(&v, "backupArn", in.BackupArn, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	c.RLockCatalog()
	defer c.RUnlockCatalog()
	m, err := find(c, ns, *in.BackupArn, false)
	if err != nil {
		return nil, err
	}
	d, err := describe(c, m)
	if err != nil {
		return nil, err
	}
	return &api.BackupDescriptionOutput{BackupDescription: d}, nil
}

// DeleteBackup deletes a backup and its rows; the answer describes it as
// DELETED.
func DeleteBackup(c Core, ns api.Namespace, in *api.BackupArnInput) (*api.BackupDescriptionOutput, error) {
	if in == nil {
		in = &api.BackupArnInput{}
	}
	var v shape.Violations
	arnShape(&v, "backupArn", in.BackupArn, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	c.LockCatalog()
	defer c.UnlockCatalog()
	m, err := find(c, ns, *in.BackupArn, false)
	if err != nil {
		return nil, err
	}
	if m.Status == statusCreating {
		return nil, api.NewError(api.CodeBackupInUse, "Backup is being created: %s", m.ARN())
	}
	if c.RestoringFrom(m.ARN()) {
		return nil, api.NewError(api.CodeBackupInUse, "Backup is being restored: %s", m.ARN())
	}
	b := c.Store().NewBatch()
	p := DataPrefix(m.DataID)
	if err := b.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
		_ = b.Close()
		return nil, c.InternalError(err)
	}
	if err := b.Delete(Key(m.ns(), m.ID)); err != nil {
		_ = b.Close()
		return nil, c.InternalError(err)
	}
	if err := c.Commit(b); err != nil {
		return nil, c.InternalError(err)
	}
	m.Status = statusDeleted
	d, err := describe(c, m)
	if err != nil {
		return nil, err
	}
	return &api.BackupDescriptionOutput{BackupDescription: d}, nil
}

// listQuery is a ListBackups request once checked.
type listQuery struct {
	tns         api.Namespace
	table, typ  string
	limit       int
	lower       []byte
	from, until time.Time
}

func planList(c Core, ns api.Namespace, in *api.ListBackupsInput) (*listQuery, error) {
	var v shape.Violations
	if in.TableName != nil {
		v.TableRef("tableName", in.TableName)
	}
	v.Min("limit", in.Limit, 1)
	v.Max("limit", in.Limit, 100)
	arnShape(&v, "exclusiveStartBackupArn", in.ExclusiveStartBackupArn, false)
	v.Enum("backupType", in.BackupType, "USER", "SYSTEM", "AWS_BACKUP", "ALL")
	if err := v.Err(); err != nil {
		return nil, err
	}
	q := &listQuery{limit: listDefaultLimit}
	if in.TableName != nil {
		if err := shape.CheckBareName(*in.TableName); err != nil {
			return nil, err
		}
		var err error
		if q.tns, q.table, err = c.ResolveName(ns, *in.TableName); err != nil {
			return nil, err
		}
	}
	if in.Limit != nil {
		q.limit = int(*in.Limit)
	}
	q.typ = shape.StrOrDefault(in.BackupType, typeUser)
	q.lower = prefix(ns)
	if in.ExclusiveStartBackupArn != nil {
		sns, _, id, ok := ParseARN(*in.ExclusiveStartBackupArn)
		if !ok || sns != ns {
			return nil, api.Validation("Invalid ExclusiveStartBackupArn: %s", *in.ExclusiveStartBackupArn)
		}
		q.lower = append(Key(ns, id), 0)
	}
	if in.TimeRangeLowerBound != nil {
		q.from = FromEpoch(*in.TimeRangeLowerBound)
	}
	if in.TimeRangeUpperBound != nil {
		q.until = FromEpoch(*in.TimeRangeUpperBound)
	}
	return q, nil
}

// skip reports whether m is not on q's list.
func (q *listQuery) skip(m *Meta) bool {
	return m.Status == statusDeleted ||
		q.table != "" && (m.table.Name != q.table || m.ns() != q.tns) ||
		q.typ != "ALL" && m.Type != q.typ ||
		!q.from.IsZero() && m.CreatedAt.Before(q.from) ||
		!q.until.IsZero() && !m.CreatedAt.Before(q.until)
}

// ListBackups lists the namespace's backups in creation order, filtered by
// table, type and creation time, a page at a time.
func ListBackups(c Core, ns api.Namespace, in *api.ListBackupsInput) (*api.ListBackupsOutput, error) {
	if in == nil {
		in = &api.ListBackupsInput{}
	}
	q, err := planList(c, ns, in)
	if err != nil {
		return nil, err
	}
	c.RLockCatalog()
	defer c.RUnlockCatalog()
	it, err := c.Store().NewIter(q.lower, kv.PrefixEnd(prefix(ns)))
	if err != nil {
		return nil, c.InternalError(err)
	}
	defer it.Close()
	out := &api.ListBackupsOutput{BackupSummaries: []api.BackupSummary{}}
	for ok := it.First(); ok; ok = it.Next() {
		m, err := decode(it.Value())
		if err != nil {
			return nil, c.InternalError(err)
		}
		if q.skip(m) {
			continue
		}
		if len(out.BackupSummaries) == q.limit {
			// Another match follows the full page.
			out.LastEvaluatedBackupArn = out.BackupSummaries[q.limit-1].BackupArn
			break
		}
		d := details(m)
		out.BackupSummaries = append(out.BackupSummaries, api.BackupSummary{TableName: m.table.Name, TableId: api.UUIDString(m.table.ID),
			TableArn: m.tableARN(), BackupArn: d.BackupArn, BackupName: d.BackupName, BackupCreationDateTime: d.BackupCreationDateTime,
			BackupExpiryDateTime: d.BackupExpiryDateTime, BackupStatus: d.BackupStatus, BackupType: d.BackupType, BackupSizeBytes: d.BackupSizeBytes})
	}
	if err := it.Error(); err != nil {
		return nil, c.InternalError(err)
	}
	return out, nil
}

// FromEpoch converts epoch seconds with a fraction to a time (ms
// precision, as DynamoDB keeps).
func FromEpoch(s float64) time.Time {
	return time.UnixMilli(int64(s*1000 + 0.5*sign(s))).UTC()
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}
