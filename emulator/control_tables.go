package emulator

import (
	"context"
	"sort"

	"github.com/extenddb/extenddb/kv"
)

// inUse returns DynamoDB's ResourceInUseException for a change attempted on
// a table that is not ACTIVE, or nil when the table is ACTIVE.
func inUse(t *tableMeta, status string) error {
	switch status {
	case statusCreating:
		return NewError(CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being created: %s", t.Name)
	case statusDeleting:
		return NewError(CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being deleted: %s", t.Name)
	case statusUpdating:
		if t.UpdatingWhat == "iops" {
			return NewError(CodeResourceInUse, "Attempt to change a resource which is still in use: Table IOPS are currently being updated. Table: %s", t.Name)
		}
		return NewError(CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being updated: %s", t.Name)
	}
	return nil
}

// tableRequest validates a request's TableName member and resolves it.
func tableRequest(ns Namespace, name *string) (Namespace, string, error) {
	var v violations
	v.tableRef("tableName", name)
	if err := v.err(); err != nil {
		return ns, "", err
	}
	if err := checkBareName(*name); err != nil {
		return ns, "", err
	}
	return resolveName(ns, *name)
}

// DescribeTable returns the table's complete description.
func (e *Engine) DescribeTable(ctx context.Context, ns Namespace, in *DescribeTableInput) (*DescribeTableOutput, error) {
	if in == nil {
		in = &DescribeTableInput{}
	}
	if err := requiredTableName(in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	t := e.lookup(tns, name, now)
	e.mu.RUnlock()
	if t == nil {
		return nil, TableNotFound(name)
	}
	return &DescribeTableOutput{Table: e.describe(t, now)}, nil
}

// ListTables lists the namespace's table names in order, a page at a time.
func (e *Engine) ListTables(ctx context.Context, ns Namespace, in *ListTablesInput) (*ListTablesOutput, error) {
	if in == nil {
		in = &ListTablesInput{}
	}
	var v violations
	v.name("exclusiveStartTableName", in.ExclusiveStartTableName, false)
	v.min("limit", in.Limit, 1)
	v.max("limit", in.Limit, 100)
	if err := v.err(); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	now := e.now()
	e.rlockCatalog()
	all := make([]string, 0, len(e.tables[ns]))
	for name, t := range e.tables[ns] {
		if !t.gone(now) {
			all = append(all, name)
		}
	}
	e.mu.RUnlock()
	sort.Strings(all)
	start := 0
	if in.ExclusiveStartTableName != nil {
		start = sort.SearchStrings(all, *in.ExclusiveStartTableName)
		if start < len(all) && all[start] == *in.ExclusiveStartTableName {
			start++
		}
	}
	out := &ListTablesOutput{TableNames: []string{}}
	end := min(start+limit, len(all))
	out.TableNames = append(out.TableNames, all[start:end]...)
	if end < len(all) {
		out.LastEvaluatedTableName = all[end-1]
	}
	return out, nil
}

// DeleteTable deletes a table and all its data.
func (e *Engine) DeleteTable(ctx context.Context, ns Namespace, in *DeleteTableInput) (*DeleteTableOutput, error) {
	if in == nil {
		in = &DeleteTableInput{}
	}
	if err := requiredTableName(in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := tableRequest(ns, in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	t := e.lookup(tns, name, now)
	if t == nil {
		return nil, TableNotFound(name)
	}
	if t.DeletionProtection {
		return nil, Validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	if err := inUse(t, t.status(now)); err != nil {
		return nil, err
	}
	for _, ix := range t.liveGSIs(now) {
		if ix.status(now) != statusActive {
			return nil, NewError(CodeResourceInUse, "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.")
		}
	}

	d := e.describe(t, now)
	d.TableStatus = statusDeleting
	// The service's DeleteTable description leaves out the schema and the
	// creation time (DescribeTable has them).
	d.KeySchema, d.AttributeDefinitions, d.CreationDateTime = nil, nil, 0

	b := e.opts.Store.NewBatch()
	// Deleting a global table's member deletes that replica only: the
	// others leave it out of their group (control-plane-facts §1.6).
	members, err := e.stageLeaveGroup(b, t, now)
	if err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	// With PITR on, DynamoDB keeps the table as it was before the deletion
	// in a SYSTEM backup: its record goes in the deletion's batch and the
	// copy reads a snapshot taken before it (backup.go).
	var sys *backupMeta
	var snap kv.Snapshot
	if t.PITREnabled {
		if sys, err = e.newBackup(t, t.Name+"$DeletedTableBackup", backupSystem, now); err == nil {
			err = putBackup(b, sys)
		}
		if err != nil {
			_ = b.Close()
			return nil, internalError(err)
		}
		snap = e.opts.Store.NewSnapshot()
	}
	nt, err := e.stageDropTable(b, t, now)
	if err != nil {
		_ = b.Close()
		if snap != nil {
			_ = snap.Close()
		}
		return nil, internalError(err)
	}
	if err := e.commit(b); err != nil {
		if snap != nil {
			_ = snap.Close()
		}
		return nil, internalError(err)
	}
	for _, m := range members {
		e.cacheTable(m)
	}
	if sys != nil {
		e.startBackup(sys, snap)
	}
	if nt.Deleting {
		e.cacheTable(nt)
	} else {
		e.uncacheTable(t.ns(), t.Name)
	}
	return &DeleteTableOutput{TableDescription: d}, nil
}
