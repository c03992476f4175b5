package emulator

// Vector indexes, the control plane: their definitions on the table
// (tableMeta.Vectors), CreateTable's checks and DescribeTable's view.
// vector_update.go adds and removes them with UpdateTable, vector_write.go
// maintains their entries through the change feed, vector_search.go
// answers SearchVectors. Sources: Developer Guide, "Working with vector
// indexes"; API Reference, VectorIndex and VectorIndexDescription.

import (
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
)

// vectorIndex is a vector index's definition and state, stored in the
// table's metadata (emulator/internal/vectors owns it).
type vectorIndex = vectors.Index

// newVectorIndex builds a validated definition's metadata; creating marks
// one added by UpdateTable.
func (t *tableMeta) newVectorIndex(x *api.VectorIndex, creating bool) *vectorIndex {
	return vectors.New(x, t.allocIndexID(), func(n string) string { typ, _ := t.attrType(n); return typ }, creating)
}

// vectorIndex returns t's vector index called name.
func (t *tableMeta) vectorIndex(name string) *vectorIndex {
	for _, vi := range t.Vectors {
		if vi.Name == name {
			return vi
		}
	}
	return nil
}

// describeVectors is DescribeTable's VectorIndexes of t: while t is
// being restored, its indexes fill with it and are CREATING.
func (e *Engine) describeVectors(t *tableMeta) []api.VectorIndexDescription {
	out := make([]api.VectorIndexDescription, len(t.Vectors))
	for i, vi := range t.Vectors {
		out[i] = vi.Describe()
		d := &out[i]
		d.IndexArn = t.ns().IndexARN(t.Name, vi.Name)
		d.IndexStatus = vi.Status()
		if vi.Creating {
			b := vi.Backfilling
			d.Backfilling = &b
		}
		if r := t.Restore; r != nil && r.InProgress {
			d.IndexStatus = statusCreating
		}
		d.ItemCount, d.IndexSizeBytes = e.vectorStats(t, vi)
	}
	return out
}

// vectorIndexes checks CreateTable's VectorIndexes.
func (c *createCheck) vectorIndexes(billing string) error {
	xs := c.in.VectorIndexes
	if len(xs) == 0 {
		return nil
	}
	if len(xs) > vectors.MaxIndexes {
		return shape.InvalidParam("VectorIndex count exceeds the per-table limit of %d", vectors.MaxIndexes)
	}
	vc := vectors.Check{Defined: map[string]string{}, OnDemand: billing == billingPayPerRequest, Dims: map[string]int64{}, Names: c.indexName, Projected: &c.projected}
	for _, a := range c.in.AttributeDefinitions {
		vc.Defined[*a.AttributeName] = *a.AttributeType
	}
	for i := range xs {
		if err := vc.Index(&xs[i]); err != nil {
			return err
		}
	}
	return nil
}
