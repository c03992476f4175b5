package emulator

// Vector indexes, the control plane: their definitions on the table
// (tableMeta.Vectors), CreateTable's checks and DescribeTable's view.
// vector_update.go adds and removes them with UpdateTable, vector_write.go
// maintains their entries through the change feed, vector_search.go
// answers SearchVectors. Sources: Developer Guide, "Working with vector
// indexes"; API Reference, VectorIndex and VectorIndexDescription.

import (
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
)

const (
	maxVectorIndexes   = 5
	maxInlineFilters   = 18
	searchSchemaHash   = vectors.KindHash
	searchSchemaFilter = vectors.KindInlineFilter
)

// vectorIndex is a vector index's definition and state, stored in the
// table's metadata. Its entries live under keyspace.IndexPrefix(table, ID)
// (vector_write.go), so DeleteTable's range delete over the indexes drops
// them too.
type vectorIndex struct {
	Name           string               `json:"name"`
	ID             uint32               `json:"id"`
	Attr           string               `json:"attr"`
	Dims           int                  `json:"dims"`
	Distance       string               `json:"dist"`
	ProjectionType string               `json:"proj"`
	NonKeyAttrs    []string             `json:"nka,omitempty"`
	Schema         []vectors.SchemaElem `json:"schema,omitempty"`
	// Creating is set for an index UpdateTable added until its backfill
	// ends; Backfilling once the job has started copying the items (the
	// allocation phase before it refuses a Delete).
	Creating    bool `json:"creating,omitempty"`
	Backfilling bool `json:"backfilling,omitempty"`
}

// hashElem returns the index's HASH element, if it has one.
func (vi *vectorIndex) hashElem() (vectors.SchemaElem, bool) {
	for _, s := range vi.Schema {
		if s.Kind == searchSchemaHash {
			return s, true
		}
	}
	return vectors.SchemaElem{}, false
}

// status is the index's IndexStatus.
func (vi *vectorIndex) status() string {
	if vi.Creating {
		return statusCreating
	}
	return statusActive
}

// vectorShape checks the model's member constraints of one VectorIndex at
// path (vectorIndexes.N.member, or an UpdateTable create action's).
func vectorShape(v *shape.Violations, path string, x *api.VectorIndex) {
	v.Name(path+".indexName", x.IndexName, true)
	if x.VectorAttribute == nil {
		v.Null(path + ".vectorAttribute")
	} else if x.VectorAttribute.AttributeName == nil {
		v.Null(path + ".vectorAttribute.attributeName")
	} else {
		v.Length(path+".vectorAttribute.attributeName", *x.VectorAttribute.AttributeName, 1, 255)
	}
	if x.Dimensions == nil {
		v.Null(path + ".dimensions")
	}
	v.Min(path+".dimensions", x.Dimensions, 1)
	if x.DistanceFunction == nil {
		v.Null(path + ".distanceFunction")
	}
	v.Enum(path+".distanceFunction", x.DistanceFunction, vectors.DotProduct, vectors.Cosine, vectors.Euclidean)
	v.Projection(path+".projection", x.Projection)
	if x.SearchSchema != nil && len(x.SearchSchema) < 1 {
		v.Add("'[]'", path+".searchSchema", "Member must have length greater than or equal to 1")
	}
	for i, s := range x.SearchSchema {
		p := fmt.Sprintf("%s.searchSchema.%d.member", path, i+1)
		if s.AttributeName == nil {
			v.Null(p + ".attributeName")
		} else {
			v.Length(p+".attributeName", *s.AttributeName, 1, 65535)
		}
		if s.SearchSchemaElementType == nil {
			v.Null(p + ".searchSchemaElementType")
		}
		v.Enum(p+".searchSchemaElementType", s.SearchSchemaElementType, searchSchemaHash, searchSchemaFilter)
	}
}

// vectorCheck checks vector index definitions against a table's
// attribute definitions (defined: name → type) and billing mode, and the
// indexes it already has (dims: the dimensions of each vector attribute
// in use).
type vectorCheck struct {
	defined map[string]string
	billing string
	dims    map[string]int64
	// names refuses an index name already used by any index.
	names func(name string) error
	// projected counts the projected non-key attributes.
	projected *int
}

// check checks one vector index definition.
func (c *vectorCheck) check(x *api.VectorIndex) error {
	if c.billing != billingPayPerRequest {
		return shape.InvalidParam("Vector indexes are only supported for PAY_PER_REQUEST tables")
	}
	if err := c.names(*x.IndexName); err != nil {
		return err
	}
	if d := *x.Dimensions; d < 1 || d > vectors.MaxDimensions {
		return shape.InvalidParam("Number of dimensions must be between 1 and %d inclusive.", vectors.MaxDimensions)
	}
	attr := *x.VectorAttribute.AttributeName
	if _, ok := c.defined[attr]; ok {
		return shape.InvalidParam("Conflicting attribute definition for '%s'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute.", attr)
	}
	if d, ok := c.dims[attr]; ok && d != *x.Dimensions {
		return shape.InvalidParam("Conflicting attribute definition for '%s'. All VectorIndexes on the same vector attribute must use the same dimensions.", attr)
	}
	c.dims[attr] = *x.Dimensions
	if err := checkProjectionForm(x.Projection); err != nil {
		return err
	}
	hashes, filters := 0, 0
	for _, s := range x.SearchSchema {
		if _, ok := c.defined[*s.AttributeName]; !ok {
			return shape.InvalidParam("One element in SearchSchema is not defined in attribute definitions")
		}
		if *s.SearchSchemaElementType == searchSchemaHash {
			hashes++
		} else {
			filters++
		}
	}
	if hashes > 1 {
		return shape.InvalidParam("SearchSchema can have at most one element of type HASH")
	}
	if filters > maxInlineFilters {
		return shape.InvalidParam("SearchSchema can have at most %d elements of type INLINE_FILTER", maxInlineFilters)
	}
	// The vector attribute and each inline filter count as projected
	// non-key attributes (CreateTable's documentation).
	*c.projected += len(x.Projection.NonKeyAttributes) + 1 + filters
	return nil
}

// checkProjectionForm refuses NonKeyAttributes that do not fit the
// ProjectionType, as for the other indexes.
func checkProjectionForm(p *api.Projection) error {
	if p.ProjectionType == nil {
		return shape.InvalidParam("Unknown ProjectionType: null")
	}
	pt := *p.ProjectionType
	if pt == "INCLUDE" && p.NonKeyAttributes == nil {
		return shape.InvalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
	}
	if pt != "INCLUDE" && p.NonKeyAttributes != nil {
		return shape.InvalidParam("ProjectionType is %s, but NonKeyAttributes is specified", pt)
	}
	seen := map[string]bool{}
	for _, a := range p.NonKeyAttributes {
		if seen[a] {
			return shape.InvalidParam("Duplicate element in NonKeyAttributes: %s", a)
		}
		seen[a] = true
	}
	return nil
}

// newVectorIndex builds a validated definition's metadata; creating marks
// one added by UpdateTable.
func (t *tableMeta) newVectorIndex(x *api.VectorIndex, creating bool) *vectorIndex {
	vi := &vectorIndex{
		Name: *x.IndexName, ID: t.allocIndexID(), Attr: *x.VectorAttribute.AttributeName,
		Dims: int(*x.Dimensions), Distance: *x.DistanceFunction,
		ProjectionType: *x.Projection.ProjectionType, NonKeyAttrs: x.Projection.NonKeyAttributes,
		Creating: creating,
	}
	for _, s := range x.SearchSchema {
		typ, _ := t.attrType(*s.AttributeName)
		vi.Schema = append(vi.Schema, vectors.SchemaElem{Name: *s.AttributeName, Type: typ, Kind: *s.SearchSchemaElementType})
	}
	return vi
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
	out := describeVectorDefs(t, t.Vectors)
	for i, vi := range t.Vectors {
		d := &out[i]
		d.IndexArn = t.ns().IndexARN(t.Name, vi.Name)
		d.IndexStatus = vi.status()
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

// describeVectorDefs is the definitions of vis as DescribeTable shows
// them.
func describeVectorDefs(t *tableMeta, vis []*vectorIndex) []api.VectorIndexDescription {
	var out []api.VectorIndexDescription
	for _, vi := range vis {
		d := api.VectorIndexDescription{
			IndexName:        vi.Name,
			VectorAttribute:  api.DescribedVectorAttribute{AttributeName: vi.Attr},
			Dimensions:       int64(vi.Dims),
			DistanceFunction: vi.Distance,
			Projection:       api.DescribedProjection{ProjectionType: vi.ProjectionType, NonKeyAttributes: sortedCopy(vi.NonKeyAttrs)},
		}
		for _, s := range vi.Schema {
			d.SearchSchema = append(d.SearchSchema, api.DescribedSearchSchemaElement{AttributeName: s.Name, SearchSchemaElementType: s.Kind})
		}
		out = append(out, d)
	}
	return out
}

// vectorIndexes checks CreateTable's VectorIndexes.
func (c *createCheck) vectorIndexes(billing string) error {
	xs := c.in.VectorIndexes
	if len(xs) == 0 {
		return nil
	}
	if len(xs) > maxVectorIndexes {
		return shape.InvalidParam("VectorIndex count exceeds the per-table limit of %d", maxVectorIndexes)
	}
	vc := vectorCheck{defined: map[string]string{}, billing: billing, dims: map[string]int64{}, names: c.indexName, projected: &c.projected}
	for _, a := range c.in.AttributeDefinitions {
		vc.defined[*a.AttributeName] = *a.AttributeType
	}
	for i := range xs {
		if err := vc.check(&xs[i]); err != nil {
			return err
		}
	}
	return nil
}
