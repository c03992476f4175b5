package emulator

import (
	"sort"
	"time"
)

// streamLabelLayout is LatestStreamLabel's format: ISO-8601 UTC with millis.
const streamLabelLayout = "2006-01-02T15:04:05.000"

// epochSeconds is t as epoch seconds with DynamoDB's millisecond precision
// (computed from milliseconds so the float prints without binary noise).
func epochSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func epochPtr(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	f := epochSeconds(t)
	return &f
}

func describeKeys(ks []keyElem) []DescribedKeySchemaElement {
	out := make([]DescribedKeySchemaElement, len(ks))
	for i, k := range ks {
		out[i] = DescribedKeySchemaElement{AttributeName: k.Name, KeyType: k.KeyType}
	}
	return out
}

func describeThroughput(pt ptState, billing string, now time.Time) ProvisionedThroughputDescription {
	d := ProvisionedThroughputDescription{
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
func describeODT(o odtCaps) *OnDemandThroughputDescription {
	if !o.set() {
		return nil
	}
	d := &OnDemandThroughputDescription{MaxReadRequestUnits: -1, MaxWriteRequestUnits: -1}
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
func (e *Engine) describe(t *tableMeta, now time.Time) *TableDescription {
	ns := t.ns()
	d := &TableDescription{
		TableName:                 t.Name,
		TableArn:                  t.ARN(),
		TableId:                   t.ID.UUID(),
		TableStatus:               t.status(now),
		CreationDateTime:          epochSeconds(t.CreatedAt),
		KeySchema:                 describeKeys(t.KeySchema),
		ProvisionedThroughput:     describeThroughput(t.Throughput, t.BillingMode, now),
		DeletionProtectionEnabled: t.DeletionProtection,
		OnDemandThroughput:        describeODT(t.OnDemand),
		WarmThroughput: &TableWarmThroughputDescription{
			ReadUnitsPerSecond:  t.Warm.Read,
			WriteUnitsPerSecond: t.Warm.Write,
			Status:              warmStatus(t.Warm, now),
		},
	}
	for _, a := range t.usedAttrDefs(now) {
		d.AttributeDefinitions = append(d.AttributeDefinitions, DescribedAttributeDefinition{AttributeName: a.Name, AttributeType: a.Type})
	}
	d.ItemCount, d.TableSizeBytes = e.tableStats(t)
	if t.BillingMode == billingPayPerRequest || t.EverPayPerRequest {
		d.BillingModeSummary = &BillingModeSummary{
			BillingMode:                       t.BillingMode,
			LastUpdateToPayPerRequestDateTime: epochPtr(t.LastPayPerRequest),
		}
	}
	for _, ix := range t.LSIs {
		ld := LocalSecondaryIndexDescription{
			IndexName:  ix.Name,
			KeySchema:  describeKeys(ix.KeySchema),
			Projection: DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: ix.NonKeyAttrs},
			IndexArn:   ns.IndexARN(t.Name, ix.Name),
		}
		ld.ItemCount, ld.IndexSizeBytes = e.indexStats(t, ix)
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, ld)
	}
	for _, ix := range t.liveGSIs(now) {
		gd := GlobalSecondaryIndexDescription{
			IndexName:             ix.Name,
			KeySchema:             describeKeys(ix.KeySchema),
			Projection:            DescribedProjection{ProjectionType: ix.ProjectionType, NonKeyAttributes: sortedCopy(ix.NonKeyAttrs)},
			IndexStatus:           ix.status(now),
			ProvisionedThroughput: describeThroughput(ix.Throughput, t.BillingMode, now),
			OnDemandThroughput:    describeODT(ix.OnDemand),
			WarmThroughput: &GlobalSecondaryIndexWarmThroughputDescription{
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
	if t.StreamEnabled {
		d.StreamSpecification = &DescribedStreamSpecification{StreamEnabled: true, StreamViewType: t.StreamViewType}
	}
	if t.StreamLabel != "" {
		d.LatestStreamLabel = t.StreamLabel
		d.LatestStreamArn = t.ARN() + "/stream/" + t.StreamLabel
	}
	describeReplicas(d, t, now)
	if t.SSEEnabled {
		d.SSEDescription = &SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: t.SSEKMSKeyArn}
	}
	if r := t.Restore; r != nil {
		d.RestoreSummary = &RestoreSummary{SourceBackupArn: r.SourceBackupArn, SourceTableArn: r.SourceTableArn,
			RestoreDateTime: epochSeconds(r.RestoreDateTime), RestoreInProgress: r.InProgress}
		if r.InProgress {
			// The indexes fill with the table: CREATING until it is ACTIVE.
			for i := range d.GlobalSecondaryIndexes {
				d.GlobalSecondaryIndexes[i].IndexStatus = statusCreating
			}
		}
	}
	if t.TableClassSet {
		d.TableClassSummary = &TableClassSummary{TableClass: t.TableClass, LastUpdateDateTime: epochPtr(t.TableClassUpdate)}
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
