package emulator

// Vector indexes added and removed by UpdateTable's VectorIndexUpdates
// (API Reference, UpdateTable and VectorIndexUpdate; Developer Guide,
// "Working with vector indexes"). An index added to a table is created in
// two phases, as the guide describes: CREATING without Backfilling (the
// table UPDATING) until its job starts, then CREATING with Backfilling
// while the job copies the items (backfill.go's loop), then ACTIVE.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
	"github.com/extenddb/extenddb/kv"
)

// vectorUpdateShape checks the members of VectorIndexUpdates.
func vectorUpdateShape(v *shape.Violations, in *api.UpdateTableInput) {
	for i, x := range in.VectorIndexUpdates {
		p := fmt.Sprintf("vectorIndexUpdates.%d.member", i+1)
		if x.Create != nil {
			vectors.Shape(v, p+".create", x.Create)
		}
		if x.Delete != nil {
			v.Name(p+".delete.indexName", x.Delete.IndexName, true)
		}
	}
}

// vectorUpdateRules counts VectorIndexUpdates' actions into c, refusing
// an entry with none or both.
func vectorUpdateRules(in *api.UpdateTableInput, c *updateConcerns) error {
	if in.VectorIndexUpdates != nil && len(in.VectorIndexUpdates) == 0 {
		return shape.InvalidParam("List of VectorIndexUpdates is empty")
	}
	for _, x := range in.VectorIndexUpdates {
		switch {
		case x.Create == nil && x.Delete == nil:
			return shape.InvalidParam("One of VectorIndexUpdate.Create, VectorIndexUpdate.Delete must not be null")
		case x.Create != nil && x.Delete != nil:
			return shape.InvalidParam("Only one vector index action is allowed per VectorIndexUpdate object")
		case x.Create != nil:
			c.vecCreate++
		default:
			c.vecDelete++
		}
	}
	return nil
}

// vectorBusy lists the vector indexes being created.
func (t *tableMeta) vectorBusy() []string {
	var out []string
	for _, vi := range t.Vectors {
		if vi.Creating {
			out = append(out, vi.Name)
		}
	}
	return out
}

// vectorAllocating reports whether an index added to t waits for its job
// to start: the table is UPDATING meanwhile.
func (t *tableMeta) vectorAllocating() bool {
	for _, vi := range t.Vectors {
		if vi.Creating && !vi.Backfilling {
			return true
		}
	}
	return false
}

// applyVectors applies VectorIndexUpdates (one action: checkIndexesSettled
// refuses more) and keeps a table with vector indexes on demand.
func (u *tableUpdate) applyVectors() error {
	if len(u.t.Vectors) > 0 && u.billing != billingPayPerRequest && u.c.vecCreate == 0 {
		return shape.InvalidParam("Vector indexes are only supported for PAY_PER_REQUEST tables")
	}
	if len(u.in.VectorIndexUpdates) == 0 {
		return nil
	}
	if x := u.in.VectorIndexUpdates[0]; x.Create != nil {
		return u.createVector(x.Create)
	}
	return u.deleteVector(*u.in.VectorIndexUpdates[0].Delete.IndexName)
}

func (u *tableUpdate) createVector(x *api.VectorIndex) error {
	t, name := u.t, *x.IndexName
	if vi := t.vectorIndex(name); vi != nil {
		if vi.Creating {
			return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Index is being created.  Table: %s Index: %s", t.Name, name)
		}
		return api.Validation("Attempting to create an index which already exists")
	}
	if _, ok := t.index(name, u.now); ok {
		return api.Validation("Attempting to create an index which already exists")
	}
	if len(t.Vectors) >= vectors.MaxIndexes {
		return api.NewError(api.CodeLimitExceeded, "Subscriber limit exceeded: Number of vector secondary indexes exceeds per-table limit of %d", vectors.MaxIndexes)
	}
	// The search schema's attributes are defined in this request; the
	// vector attribute is defined nowhere.
	vc := vectors.Check{Defined: map[string]string{}, OnDemand: u.billing == billingPayPerRequest, Dims: map[string]int64{}}
	for _, a := range u.in.AttributeDefinitions {
		vc.Defined[*a.AttributeName] = *a.AttributeType
	}
	for _, vi := range t.Vectors {
		vc.Dims[vi.Attr] = int64(vi.Dims)
	}
	attr := *x.VectorAttribute.AttributeName
	if _, ok := t.attrType(attr); ok && u.liveSchemaOf(attr) != nil {
		return shape.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: %s New schema: VectorIndexSchema:[VectorAttribute: key{%s:L:%d}]",
			renderSchema(u.liveSchemaOf(attr)), attr, *x.Dimensions)
	}
	if err := vc.Index(x); err != nil {
		return err
	}
	var added []attrDef
	for _, s := range x.SearchSchema {
		typ := vc.Defined[*s.AttributeName]
		if live := u.liveSchemaOf(*s.AttributeName); live != nil && keyType(live, *s.AttributeName) != typ {
			return shape.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: %s New schema: VectorIndexSchema:[%s:%s]",
				renderSchema(live), *s.AttributeName, typ)
		}
		added = append(added, attrDef{Name: *s.AttributeName, Type: typ})
	}
	t.setAttrDefs(added)
	vi := t.newVectorIndex(x, true)
	t.Vectors = append(t.Vectors, vi)
	u.vecCreated = append(u.vecCreated, vi)
	return nil
}

func (u *tableUpdate) deleteVector(name string) error {
	t := u.t
	vi := t.vectorIndex(name)
	if vi == nil {
		return api.NewError(api.CodeResourceNotFound, "Requested resource not found: Index %s for table %s", name, t.Name)
	}
	if vi.Creating && !vi.Backfilling {
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: Index creation is in resource allocation phase. Retry deletion during backfilling phase or when the index is active. Table: %s Index: %s", t.Name, name)
	}
	t.Vectors = slices.DeleteFunc(t.Vectors, func(x *vectorIndex) bool { return x == vi })
	u.droppedIndexes = append(u.droppedIndexes, vi.ID)
	u.vecDeleted = append(u.vecDeleted, vi)
	return nil
}

// vectorsUpdated starts the jobs of the indexes an UpdateTable added and
// forgets the copies of those it deleted, once it has committed; d is its
// answer, which shows a deleted index DELETING.
func (e *Engine) vectorsUpdated(u *tableUpdate, d *api.TableDescription) {
	for _, vi := range u.vecDeleted {
		e.vec.drop(u.t.ID, vi.ID)
		x := *vi
		desc := e.describeVectors(&tableMeta{Account: u.t.Account, Region: u.t.Region, Name: u.t.Name, ID: u.t.ID, Vectors: []*vectorIndex{&x}})
		desc[0].IndexStatus = statusDeleting
		d.VectorIndexes = append(d.VectorIndexes, desc...)
	}
	for _, vi := range u.vecCreated {
		e.startBackfill(u.t, vectorBackfill{vi})
	}
	for _, mv := range u.memberVecDropped {
		e.vec.drop(mv.t.ID, mv.vi.ID)
	}
	for _, mv := range u.memberVecCreated {
		e.startBackfill(mv.t, vectorBackfill{mv.vi})
	}
}

// vectorBackfill is the backfill of a vector index added by UpdateTable.
type vectorBackfill struct{ vi *vectorIndex }

func (b vectorBackfill) indexID() uint32 { return b.vi.ID }
func (b vectorBackfill) name() string    { return b.vi.Name }

// begin ends the allocation phase: the index is Backfilling from then on
// (the table ACTIVE again), stored before the first item is copied.
func (b vectorBackfill) begin(e *Engine, t *tableMeta) error {
	e.lockCatalog()
	defer e.unlockCatalog()
	c, ok := e.live(t)
	if !ok {
		return errTableGone
	}
	if vi := c.vectorIndexByID(b.vi.ID); vi == nil || vi.Backfilling {
		return nil
	}
	nt := c.clone()
	nt.vectorIndexByID(b.vi.ID).Backfilling = true
	return e.saveTable(nt)
}

// copyOne copies the item at k into the index.
func (b vectorBackfill) copyOne(e *Engine, t *tableMeta, k []byte) error {
	return b.copyChunk(e, t, [][]byte{k})
}

// copyChunk copies the items at keys into the index in one batch, their
// stripes held, unless a write since the index appeared (or an earlier
// run) stored an entry. An item the index cannot hold (a wrong vector, a
// mistyped schema value) is skipped. One batch a chunk rather than one an
// item: a 768-dimension entry is mostly parsing and a commit.
func (b vectorBackfill) copyChunk(e *Engine, t *tableMeta, keys [][]byte) error {
	stripes := e.items.locks.Lock(keys...)
	defer e.items.locks.Unlock(stripes)
	return e.update(true, func(wb *writeBatch) error {
		wb.tables[t.ID] = t
		for _, k := range keys {
			if err := b.copyIn(wb, t, k); err != nil {
				return err
			}
		}
		return nil
	})
}

func (b vectorBackfill) copyIn(wb *writeBatch, t *tableMeta, k []byte) error {
	item, err := readItem(wb.r, k)
	if err != nil || item == nil {
		return err
	}
	ve, ok := vectorEntryOf(t, b.vi, k, item)
	if !ok {
		return nil
	}
	if _, err := wb.r.Get(ve.Key); err == nil {
		return nil
	} else if !errors.Is(err, kv.ErrNotFound) {
		return err
	}
	wb.buf = ve.Value(wb.buf[:0])
	if err := wb.b.Set(ve.Key, wb.buf); err != nil {
		return err
	}
	wb.addDelta(t.ID, keyspace.StripeOf(k), b.vi.ID, false, true, 0, len(wb.buf))
	return nil
}

// finish makes the index ACTIVE and drops the job's cursor in one batch.
func (b vectorBackfill) finish(e *Engine, t *tableMeta) error {
	e.lockCatalog()
	defer e.unlockCatalog()
	c, ok := e.live(t)
	if !ok {
		return errTableGone
	}
	if c.vectorIndexByID(b.vi.ID) == nil {
		return nil // deleted meanwhile
	}
	nt := c.clone()
	vi := nt.vectorIndexByID(b.vi.ID)
	vi.Creating, vi.Backfilling = false, false
	return e.finishJob(backfillCursorKey(t.ID, b.vi.ID), nt)
}

// vectorIndexByID returns t's vector index id.
func (t *tableMeta) vectorIndexByID(id uint32) *vectorIndex {
	for _, vi := range t.Vectors {
		if vi.ID == id {
			return vi
		}
	}
	return nil
}

// backupVectors are the vector indexes a backup holds: those complete (an
// index still being created is not in it).
func backupVectors(t *tableMeta) []*vectorIndex {
	var out []*vectorIndex
	for _, vi := range t.Vectors {
		if !vi.Creating {
			out = append(out, vi)
		}
	}
	return out
}

// backupVectorInfo is a backup's SourceTableFeatureDetails.VectorIndexes.
func backupVectorInfo(t *tableMeta) []api.VectorIndexInfo {
	var out []api.VectorIndexInfo
	for _, vi := range backupVectors(t) {
		d := vi.Describe()
		out = append(out, api.VectorIndexInfo{IndexName: d.IndexName, VectorAttribute: d.VectorAttribute, Dimensions: d.Dimensions,
			DistanceFunction: d.DistanceFunction, Projection: d.Projection, SearchSchema: d.SearchSchema})
	}
	return out
}

// restoredVectors keeps, on a table being restored from its source's
// metadata, the vector indexes the backup holds or, with an override,
// those it names (it may leave indexes out, never add one). Their entries
// are built as the restore writes the items.
func restoredVectors(t *tableMeta, o []api.VectorIndex) error {
	t.Vectors = backupVectors(t)
	if o == nil {
		return nil
	}
	var kept []*vectorIndex
	for _, x := range o {
		if x.IndexName == nil {
			return shape.InvalidParam("IndexName must be specified in an index override")
		}
		vi := t.vectorIndex(*x.IndexName)
		if vi == nil {
			return shape.InvalidParam("Index %s is not present in the backup", *x.IndexName)
		}
		kept = append(kept, vi)
	}
	t.Vectors = kept
	return nil
}

// memberVector is a vector index of another member of a global table.
type memberVector struct {
	t  *tableMeta
	vi *vectorIndex
}

// propagateVectors repeats the request's vector index creation or
// deletion in every other member of the group, as for GSIs: each member
// backfills its own copy (Developer Guide, "Vector search with global
// tables").
func (u *tableUpdate) propagateVectors() {
	if len(u.vecCreated)+len(u.vecDeleted) == 0 {
		return
	}
	u.eachMember(func(m *tableMeta) {
		for _, vi := range u.vecCreated {
			c := *vi
			c.ID = m.allocIndexID()
			var defs []attrDef
			for _, s := range c.Schema {
				defs = append(defs, attrDef{Name: s.Name, Type: s.Type})
			}
			m.setAttrDefs(defs)
			m.Vectors = append(m.Vectors, &c)
			u.memberVecCreated = append(u.memberVecCreated, memberVector{m, &c})
		}
		for _, vi := range u.vecDeleted {
			if mv := m.vectorIndex(vi.Name); mv != nil {
				m.Vectors = slices.DeleteFunc(m.Vectors, func(x *vectorIndex) bool { return x == mv })
				u.memberVecDropped = append(u.memberVecDropped, memberVector{m, mv})
			}
		}
	})
}
