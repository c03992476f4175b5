package emulator

import (
	"context"
	"sort"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// inUse returns DynamoDB's ResourceInUseException for a change attempted on
// a table that is not ACTIVE, or nil when the table is ACTIVE.
func inUse(t *tableMeta, status string) error {
	switch status {
	case statusCreating:
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being created: %s", t.Name)
	case statusDeleting:
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being deleted: %s", t.Name)
	case statusUpdating:
		if t.UpdatingWhat == "iops" {
			return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table IOPS are currently being updated. Table: %s", t.Name)
		}
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Table is being updated: %s", t.Name)
	}
	return nil
}

// tableRequest validates a request's TableName member and resolves it.
func tableRequest(ns api.Namespace, name *string) (api.Namespace, string, error) {
	var v shape.Violations
	v.TableRef("tableName", name)
	if err := v.Err(); err != nil {
		return ns, "", err
	}
	if err := shape.CheckBareName(*name); err != nil {
		return ns, "", err
	}
	return resolveName(ns, *name)
}

// DescribeTable returns the table's complete description.
func (e *Engine) DescribeTable(ctx context.Context, ns api.Namespace, in *api.DescribeTableInput) (*api.DescribeTableOutput, error) {
	if in == nil {
		in = &api.DescribeTableInput{}
	}
	if err := shape.RequiredTableName(in.TableName); err != nil {
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
		return nil, api.TableNotFound(name)
	}
	return &api.DescribeTableOutput{Table: e.describe(t, now)}, nil
}

// ListTables lists the namespace's table names in order, a page at a time.
func (e *Engine) ListTables(ctx context.Context, ns api.Namespace, in *api.ListTablesInput) (*api.ListTablesOutput, error) {
	if in == nil {
		in = &api.ListTablesInput{}
	}
	var v shape.Violations
	v.Name("exclusiveStartTableName", in.ExclusiveStartTableName, false)
	v.Min("limit", in.Limit, 1)
	v.Max("limit", in.Limit, 100)
	if err := v.Err(); err != nil {
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
	out := &api.ListTablesOutput{TableNames: []string{}}
	end := min(start+limit, len(all))
	out.TableNames = append(out.TableNames, all[start:end]...)
	if end < len(all) {
		out.LastEvaluatedTableName = all[end-1]
	}
	return out, nil
}

// msgIndexesBusy refuses DeleteTable while an index is being created,
// updated or deleted.
const msgIndexesBusy = "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted."

// DeleteTable deletes a table and all its data.
func (e *Engine) DeleteTable(ctx context.Context, ns api.Namespace, in *api.DeleteTableInput) (*api.DeleteTableOutput, error) {
	if in == nil {
		in = &api.DeleteTableInput{}
	}
	if err := shape.RequiredTableName(in.TableName); err != nil {
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
		return nil, api.TableNotFound(name)
	}
	if t.DeletionProtection {
		return nil, api.Validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	if err := inUse(t, t.status(now)); err != nil {
		return nil, err
	}
	for _, ix := range t.liveGSIs(now) {
		if ix.status(now) != statusActive {
			return nil, api.NewError(api.CodeResourceInUse, msgIndexesBusy)
		}
	}
	if len(t.vectorBusy()) > 0 {
		return nil, api.NewError(api.CodeResourceInUse, msgIndexesBusy)
	}

	d := e.describe(t, now)
	d.TableStatus = statusDeleting
	// The service's DeleteTable description leaves out the schema, the
	// creation time and the secondary indexes (DescribeTable has them).
	d.KeySchema, d.AttributeDefinitions, d.CreationDateTime = nil, nil, 0
	d.LocalSecondaryIndexes, d.GlobalSecondaryIndexes = nil, nil

	b := e.opts.Store.NewBatch()
	// Deleting a global table's member deletes that replica only: the
	// others leave it out of their group (docs/differences.md, "Global
	// tables").
	members, err := e.stageLeaveGroup(b, t, now)
	if err != nil {
		_ = b.Close()
		return nil, internalError(err)
	}
	// With PITR on, DynamoDB keeps the table as it was before the deletion
	// in a SYSTEM backup: its record goes in the deletion's batch and the
	// copy reads a snapshot taken before it (emulator/internal/backups).
	var sys *backups.Meta
	var snap kv.Snapshot
	if t.PITREnabled {
		if sys, err = e.systemBackup(b, t, now); err != nil {
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
		e.bk.Start((*bkCore)(e), sys, snap)
	}
	if nt.Deleting {
		e.cacheTable(nt)
	} else {
		e.uncacheTable(t.ns(), t.Name)
	}
	return &api.DeleteTableOutput{TableDescription: d}, nil
}
