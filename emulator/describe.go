package emulator

import (
	"sort"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/streams"
)

// streamLabelLayout is LatestStreamLabel's format: ISO-8601 UTC with millis.
const streamLabelLayout = streams.LabelLayout

// epochSeconds and epochPtr are the API's dates (api.EpochSeconds).
func epochSeconds(t time.Time) float64 { return api.EpochSeconds(t) }
func epochPtr(t time.Time) *float64    { return api.EpochPtr(t) }

func describeKeys(ks []keyElem) []api.DescribedKeySchemaElement {
	out := make([]api.DescribedKeySchemaElement, len(ks))
	for i, k := range ks {
		out[i] = api.DescribedKeySchemaElement{AttributeName: k.Name, KeyType: k.KeyType}
	}
	return out
}

func describeThroughput(pt ptState, billing string, now time.Time) api.ProvisionedThroughputDescription {
	d := api.ProvisionedThroughputDescription{
		LastIncreaseDateTime: epochPtr(pt.LastIncrease),
		LastDecreaseDateTime: epochPtr(pt.LastDecrease),
	}
	// The counter restarts at 00:00 UTC.
	if pt.DecreaseDay == now.UTC().Format(time.DateOnly) {
		d.NumberOfDecreasesToday = pt.DecreasesToday
	}
	if billing == billingProvisioned {
		d.ReadCapacityUnits, d.WriteCapacityUnits = pt.Read, pt.Write
	}
	return d
}

// describeODT reports a cap the way DynamoDB echoes it: absent when neither
// member is capped, -1 for an uncapped member next to a capped one.
func describeODT(o odtCaps) *api.OnDemandThroughputDescription {
	if !o.set() {
		return nil
	}
	d := &api.OnDemandThroughputDescription{MaxReadRequestUnits: -1, MaxWriteRequestUnits: -1}
	if o.Read > 0 {
		d.MaxReadRequestUnits = o.Read
	}
	if o.Write > 0 {
		d.MaxWriteRequestUnits = o.Write
	}
	return d
}

func warmStatus(w warmState, now time.Time) string {
	if now.Before(w.Until) {
		return statusUpdating
	}
	return statusActive
}

// describe builds the full TableDescription of t at now.
func (e *Engine) describe(t *tableMeta, now time.Time) *api.TableDescription {
	ns := t.ns()
	d := &api.TableDescription{
		TableName:                 t.Name,
		TableArn:                  t.ARN(),
		TableId:                   t.ID.UUID(),
		TableStatus:               t.status(now),
		CreationDateTime:          epochSeconds(t.CreatedAt),
		KeySchema:                 describeKeys(t.KeySchema),
		ProvisionedThroughput:     describeThroughput(t.Throughput, t.BillingMode, now),
		DeletionProtectionEnabled: t.DeletionProtection,
		OnDemandThroughput:        describeODT(t.OnDemand),
		WarmThroughput: &api.TableWarmThroughputDescription{
			ReadUnitsPerSecond:  t.Warm.Read,
			WriteUnitsPerSecond: t.Warm.Write,
			Status:              warmStatus(t.Warm, now),
		},
	}
	for _, a := range t.usedAttrDefs(now) {
		d.AttributeDefinitions = append(d.AttributeDefinitions, api.DescribedAttributeDefinition{AttributeName: a.Name, AttributeType: a.Type})
	}
	d.ItemCount, d.TableSizeBytes = e.tableStats(t)
	if t.BillingMode == billingPayPerRequest || t.EverPayPerRequest {
		d.BillingModeSummary = &api.BillingModeSummary{
			BillingMode:                       t.BillingMode,
			LastUpdateToPayPerRequestDateTime: epochPtr(t.LastPayPerRequest),
		}
	}
	for _, ix := range t.LSIs {
		ld := api.LocalSecondaryIndexDescription{
			IndexName:  ix.Name,
			KeySchema:  describeKeys(ix.KeySchema),
			Projection: api.DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: ix.NonKeyAttrs},
			IndexArn:   ns.IndexARN(t.Name, ix.Name),
		}
		ld.ItemCount, ld.IndexSizeBytes = e.indexStats(t, ix)
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, ld)
	}
	for _, ix := range t.liveGSIs(now) {
		gd := api.GlobalSecondaryIndexDescription{
			IndexName:             ix.Name,
			KeySchema:             describeKeys(ix.KeySchema),
			Projection:            api.DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: sortedCopy(ix.NonKeyAttrs)},
			IndexStatus:           ix.status(now),
			ProvisionedThroughput: describeThroughput(ix.Throughput, t.BillingMode, now),
			OnDemandThroughput:    describeODT(ix.OnDemand),
			WarmThroughput: &api.GlobalSecondaryIndexWarmThroughputDescription{
				ReadUnitsPerSecond:  ix.Warm.Read,
				WriteUnitsPerSecond: ix.Warm.Write,
				Status:              warmStatus(ix.Warm, now),
			},
			IndexArn: ns.IndexARN(t.Name, ix.Name),
		}
		if gd.IndexStatus == statusCreating {
			// Only indexes being added by UpdateTable report Backfilling.
			if ix.Backfill {
				b := true
				gd.Backfilling = &b
			}
			if gd.WarmThroughput.Status == statusActive {
				gd.WarmThroughput.Status = statusUpdating
			}
		}
		gd.ItemCount, gd.IndexSizeBytes = e.indexStats(t, ix)
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, gd)
	}
	d.VectorIndexes = e.describeVectors(t)
	if t.StreamEnabled {
		d.StreamSpecification = &api.DescribedStreamSpecification{StreamEnabled: true, StreamViewType: t.StreamViewType}
	}
	if t.StreamLabel != "" {
		d.LatestStreamLabel = t.StreamLabel
		d.LatestStreamArn = t.ARN() + "/stream/" + t.StreamLabel
	}
	globaltables.DescribeReplicas(d, t.Account, t.Region, t.Name, &t.Membership, now)
	if t.SSEEnabled {
		d.SSEDescription = &api.SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: t.SSEKMSKeyArn}
	}
	if r := t.Restore; r != nil {
		d.RestoreSummary = &api.RestoreSummary{SourceBackupArn: r.SourceBackupArn, SourceTableArn: r.SourceTableArn,
			RestoreDateTime: epochSeconds(r.RestoreDateTime), RestoreInProgress: r.InProgress}
		if r.InProgress {
			// The indexes fill with the table: CREATING until it is ACTIVE.
			for i := range d.GlobalSecondaryIndexes {
				d.GlobalSecondaryIndexes[i].IndexStatus = statusCreating
			}
		}
	}
	if t.TableClassSet {
		d.TableClassSummary = &api.TableClassSummary{TableClass: t.TableClass, LastUpdateDateTime: epochPtr(t.TableClassUpdate)}
	}
	return d
}

func sortedCopy(s []string) []string {
	if s == nil {
		return nil
	}
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
