package emulator

// The restored table of RestoreTableFromBackup and RestoreTableToPointInTime
// (the operations and the job that fills it run in
// emulator/internal/backups; backups_core.go hands them over): its
// metadata, built from the source's with the request's overrides, and the
// pseudo index ID of the job's cursor.

import (
	"errors"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// restoreCursorID is the pseudo index ID of a restore job's cursor
// (beside statsIndexID, backfillCursorID and seedCursorID).
const restoreCursorID = 0xFFFFFFFD

func restoreCursorKey(t keyspace.TableID) []byte { return keyspace.IndexPrefix(t, restoreCursorID) }

// restoredTable builds the restored table's metadata from its source's (the
// backup's record of it, or the source table of a point-in-time restore):
// data, indexes (unless overridden), billing mode, capacity and encryption
// are kept; tags, stream, TTL, PITR, the resource policy, deletion
// protection, Kinesis streaming destinations and the table class are not
// (API Reference, RestoreTableFromBackup and RestoreTableToPointInTime:
// "You must manually set up the following on the restored table"). The
// caller sets t.Restore.
func restoredTable(ns api.Namespace, src *tableMeta, in *api.RestoreTableFromBackupInput, now time.Time, delay time.Duration) (*tableMeta, error) {
	t := src.clone()
	id, err := keyspace.NewTableID()
	if err != nil {
		return nil, internalError(err)
	}
	t.Account, t.Region, t.Name, t.ID, t.CreatedAt = ns.Account, ns.Region, *in.TargetTableName, id, now
	t.Throughput = ptState{Read: src.Throughput.Read, Write: src.Throughput.Write}
	t.StreamEnabled, t.StreamViewType, t.StreamLabel = false, "", ""
	t.TTLEnabled, t.TTLAttr = false, ""
	t.PITREnabled, t.PITRDays, t.PITREnabledAt = false, 0, time.Time{}
	t.Tags, t.ResourcePolicy, t.DeletionProtection = nil, "", false
	t.Kinesis = nil
	t.Policy, t.StreamPolicies, t.Group = nil, nil, nil
	t.TableClass, t.TableClassSet, t.TableClassUpdate = classStandard, false, time.Time{}
	t.CreatingUntil, t.UpdatingUntil, t.UpdatingWhat = time.Time{}, time.Time{}, ""
	t.Deleting, t.DeletingUntil = false, time.Time{}
	t.GSIs = backupGSIs(t)
	for _, ix := range t.GSIs {
		ix.Throughput = ptState{Read: ix.Throughput.Read, Write: ix.Throughput.Write}
		ix.Backfill, ix.Backfilling = false, false
		ix.CreatingUntil, ix.UpdatingUntil = time.Time{}, time.Time{}
	}
	if o := in.LocalSecondaryIndexOverride; o != nil {
		kept, err := keepIndexes(t.LSIs, o, func(l api.LocalSecondaryIndex) *string { return l.IndexName })
		if err != nil {
			return nil, err
		}
		t.LSIs = kept
	}
	if o := in.GlobalSecondaryIndexOverride; o != nil {
		kept, err := keepIndexes(t.GSIs, o, func(g api.GlobalSecondaryIndex) *string { return g.IndexName })
		if err != nil {
			return nil, err
		}
		t.GSIs = kept
		for _, g := range o {
			for _, ix := range t.GSIs {
				if ix.Name == *g.IndexName {
					if pt := g.ProvisionedThroughput; pt != nil && pt.ReadCapacityUnits != nil && pt.WriteCapacityUnits != nil {
						ix.Throughput = ptState{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
					}
					if g.OnDemandThroughput != nil {
						ix.OnDemand = odtFrom(g.OnDemandThroughput)
					}
				}
			}
		}
	}
	if err := restoredVectors(t, in.VectorIndexOverride); err != nil {
		return nil, err
	}
	if err := applyBillingOverride(t, in, now); err != nil {
		return nil, err
	}
	if len(t.Vectors) > 0 && t.BillingMode != billingPayPerRequest {
		// A restore may not make a table that CreateTable refuses
		// (unverified: docs/differences.md, "Vector indexes").
		return nil, shape.InvalidParam("Vector indexes are only supported for PAY_PER_REQUEST tables")
	}
	if o := in.OnDemandThroughputOverride; o != nil {
		t.OnDemand = odtFrom(o)
	}
	if s := in.SSESpecificationOverride; s != nil {
		t.SSEEnabled, t.SSEKMSKeyArn = sseWanted(s), ""
		if t.SSEEnabled {
			t.SSEKMSKeyArn = ns.KMSKeyARN(s.KMSMasterKeyId)
		}
	}
	t.Warm = warmFor(t.BillingMode, t.Throughput)
	for _, ix := range t.GSIs {
		ix.Warm = warmFor(t.BillingMode, ix.Throughput)
	}
	if delay > 0 {
		t.CreatingUntil = now.Add(delay)
	}
	return t, nil
}

func warmFor(billing string, pt ptState) warmState {
	if billing == billingPayPerRequest {
		return warmState{Read: onDemandWarmRead, Write: onDemandWarmWrite}
	}
	return warmState{Read: pt.Read, Write: pt.Write}
}

// keepIndexes keeps the indexes an override names: an override may only
// drop indexes of the backup, never add one.
func keepIndexes[T any](have []*indexMeta, o []T, name func(T) *string) ([]*indexMeta, error) {
	kept := []*indexMeta{}
	for _, x := range o {
		n := name(x)
		if n == nil {
			return nil, api.Validation("One or more parameter values were invalid: IndexName must be specified in an index override")
		}
		found := false
		for _, ix := range have {
			if ix.Name == *n {
				kept, found = append(kept, ix), true
			}
		}
		if !found {
			return nil, api.Validation("One or more parameter values were invalid: Index %s is not present in the backup", *n)
		}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	return kept, nil
}

// applyBillingOverride applies BillingModeOverride and
// ProvisionedThroughputOverride to t (which holds the backup's settings).
func applyBillingOverride(t *tableMeta, in *api.RestoreTableFromBackupInput, now time.Time) error {
	billing := shape.StrOrDefault(in.BillingModeOverride, t.BillingMode)
	pt := in.ProvisionedThroughputOverride
	if billing == billingPayPerRequest {
		if pt != nil {
			return api.Validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		if t.BillingMode != billingPayPerRequest {
			t.BillingMode, t.EverPayPerRequest, t.LastPayPerRequest = billingPayPerRequest, true, now
			t.Throughput = ptState{}
			for _, ix := range t.GSIs {
				ix.Throughput = ptState{}
			}
		}
		return nil
	}
	if t.BillingMode == billingPayPerRequest && pt == nil {
		return api.Validation("One or more parameter values were invalid: ProvisionedThroughputOverride must be specified when BillingModeOverride is PROVISIONED")
	}
	if t.BillingMode == billingPayPerRequest {
		t.BillingMode, t.OnDemand = billingProvisioned, odtCaps{}
		for _, ix := range t.GSIs {
			// GSIs the override gives no capacity take the table's.
			if ix.Throughput.Read == 0 {
				ix.Throughput = ptState{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
			}
			ix.OnDemand = odtCaps{}
		}
	}
	if pt != nil {
		t.Throughput = ptState{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
	}
	return nil
}

// noItems is the reader the restore prepares its writes against: a row
// after the cursor was never written to the new table (the cursor commits
// with the rows, and the table refuses writes while CREATING), so there is
// no old item to read. Skipping the read halves the restore's time.
type noItems struct{}

func (noItems) Get([]byte) ([]byte, error) { return nil, kv.ErrNotFound }

func (noItems) NewIter(_, _ []byte) (kv.Iterator, error) {
	return nil, errors.New("emulator: noItems has no iterator")
}

// dropRestored deletes a table whose restore (or import) cannot finish.
func (e *Engine) dropRestored(t *tableMeta) {
	e.lockCatalog()
	defer e.unlockCatalog()
	if _, ok := e.live(t); !ok {
		return
	}
	b := e.opts.Store.NewBatch()
	if err := dropTableData(b, t.ID); err != nil {
		_ = b.Close()
		return
	}
	if err := deleteTableMeta(b, t.ns(), t.Name); err != nil {
		_ = b.Close()
		return
	}
	if err := e.commit(b); err != nil {
		e.log.Error().Err(err).Str("table", t.Name).Msg("dropping a failed restore")
		return
	}
	e.uncacheTable(t.ns(), t.Name)
}
