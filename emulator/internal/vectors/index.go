package vectors

import (
	"fmt"
	"slices"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// The limits on a table's vector indexes (Developer Guide, "Working with
// vector indexes").
const (
	MaxIndexes       = 5
	MaxInlineFilters = 18
)

// Index is a vector index's definition and state, as the table's
// metadata stores it (the engine's tableMeta.Vectors). Its entries live
// under the engine's index prefix for ID, so DeleteTable's range delete
// over the table's indexes drops them too.
type Index struct {
	Name           string       `json:"name"`
	ID             uint32       `json:"id"`
	Attr           string       `json:"attr"`
	Dims           int          `json:"dims"`
	Distance       string       `json:"dist"`
	ProjectionType string       `json:"proj"`
	NonKeyAttrs    []string     `json:"nka,omitempty"`
	Schema         []SchemaElem `json:"schema,omitempty"`
	// Creating is set for an index UpdateTable added until its backfill
	// ends; Backfilling once the job has started copying the items (the
	// allocation phase before it refuses a Delete).
	Creating    bool `json:"creating,omitempty"`
	Backfilling bool `json:"backfilling,omitempty"`
}

// HashElem returns the index's HASH element, if it has one.
func (x *Index) HashElem() (SchemaElem, bool) {
	for _, s := range x.Schema {
		if s.Kind == KindHash {
			return s, true
		}
	}
	return SchemaElem{}, false
}

// Status is the index's IndexStatus.
func (x *Index) Status() string {
	if x.Creating {
		return "CREATING"
	}
	return "ACTIVE"
}

// Describe is the index's definition as DescribeTable shows it (the
// engine adds its ARN, status and statistics).
func (x *Index) Describe() api.VectorIndexDescription {
	d := api.VectorIndexDescription{
		IndexName:        x.Name,
		VectorAttribute:  api.DescribedVectorAttribute{AttributeName: x.Attr},
		Dimensions:       int64(x.Dims),
		DistanceFunction: x.Distance,
		Projection:       api.DescribedProjection{ProjectionType: x.ProjectionType},
	}
	if x.NonKeyAttrs != nil {
		d.Projection.NonKeyAttributes = slices.Sorted(slices.Values(x.NonKeyAttrs))
	}
	for _, s := range x.Schema {
		d.SearchSchema = append(d.SearchSchema, api.DescribedSearchSchemaElement{AttributeName: s.Name, SearchSchemaElementType: s.Kind})
	}
	return d
}

// Shape checks the model's member constraints of one VectorIndex at path
// (vectorIndexes.N.member, or an UpdateTable create action's).
func Shape(v *shape.Violations, path string, x *api.VectorIndex) {
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
	v.Enum(path+".distanceFunction", x.DistanceFunction, DotProduct, Cosine, Euclidean)
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
		v.Enum(p+".searchSchemaElementType", s.SearchSchemaElementType, KindHash, KindInlineFilter)
	}
}

// Check checks vector index definitions, which passed Shape, against a
// table's attribute definitions and billing mode and the indexes it
// already has.
type Check struct {
	// Defined is the attribute definitions: name → type.
	Defined map[string]string
	// OnDemand is whether the table is (or becomes) PAY_PER_REQUEST.
	OnDemand bool
	// Dims is the dimensions of each vector attribute in use.
	Dims map[string]int64
	// Names refuses an index name another index has (nil: none).
	Names func(name string) error
	// Projected counts the projected non-key attributes, as CreateTable
	// counts them across indexes (nil: not counted).
	Projected *int
}

// Index checks one definition.
func (c *Check) Index(x *api.VectorIndex) error {
	if !c.OnDemand {
		return shape.InvalidParam("Vector indexes are only supported for PAY_PER_REQUEST tables")
	}
	if c.Names != nil {
		if err := c.Names(*x.IndexName); err != nil {
			return err
		}
	}
	if d := *x.Dimensions; d < 1 || d > MaxDimensions {
		return shape.InvalidParam("Number of dimensions must be between 1 and %d inclusive.", MaxDimensions)
	}
	attr := *x.VectorAttribute.AttributeName
	if _, ok := c.Defined[attr]; ok {
		return shape.InvalidParam("Conflicting attribute definition for '%s'. An attribute cannot be defined in AttributeDefinitions when used as a VectorAttribute.", attr)
	}
	if d, ok := c.Dims[attr]; ok && d != *x.Dimensions {
		return shape.InvalidParam("Conflicting attribute definition for '%s'. All VectorIndexes on the same vector attribute must use the same dimensions.", attr)
	}
	c.Dims[attr] = *x.Dimensions
	if err := shape.CheckProjection(x.Projection); err != nil {
		return err
	}
	hashes, filters := 0, 0
	for _, s := range x.SearchSchema {
		if _, ok := c.Defined[*s.AttributeName]; !ok {
			return shape.InvalidParam("One element in SearchSchema is not defined in attribute definitions")
		}
		if *s.SearchSchemaElementType == KindHash {
			hashes++
		} else {
			filters++
		}
	}
	if hashes > 1 {
		return shape.InvalidParam("SearchSchema can have at most one element of type HASH")
	}
	if filters > MaxInlineFilters {
		return shape.InvalidParam("SearchSchema can have at most %d elements of type INLINE_FILTER", MaxInlineFilters)
	}
	if c.Projected != nil {
		// The vector attribute and each inline filter count as projected
		// non-key attributes (CreateTable's documentation).
		*c.Projected += len(x.Projection.NonKeyAttributes) + 1 + filters
	}
	return nil
}

// New builds a checked definition's index with id; typeOf gives an
// attribute's defined type; creating marks one UpdateTable added.
func New(x *api.VectorIndex, id uint32, typeOf func(string) string, creating bool) *Index {
	vi := &Index{
		Name: *x.IndexName, ID: id, Attr: *x.VectorAttribute.AttributeName,
		Dims: int(*x.Dimensions), Distance: *x.DistanceFunction,
		ProjectionType: *x.Projection.ProjectionType, NonKeyAttrs: x.Projection.NonKeyAttributes,
		Creating: creating,
	}
	for _, s := range x.SearchSchema {
		vi.Schema = append(vi.Schema, SchemaElem{Name: *s.AttributeName, Type: typeOf(*s.AttributeName), Kind: *s.SearchSchemaElementType})
	}
	return vi
}

// Entry is an item's entry in an index.
type Entry struct {
	Key  []byte // the entry's storage key
	Part string // the partition part of Key ("" without a HASH element)
	Vec  []float32
	// Rest is the projected attributes but the vector; Filters the
	// INLINE_FILTER attributes present.
	Rest, Filters av.Item
}

// Value is the entry's stored value: its float32s, then Rest.
func (e *Entry) Value(dst []byte) []byte {
	dst = AppendFloats(dst, e.Vec)
	return av.AppendItem(dst, e.Rest)
}

// Bytes is the entry's vector bytes (WriteBytes).
func (x *Index) Bytes(e *Entry) int { return WriteBytes(x.Dims, x.Attr, e.Rest) }

// EntryOf returns item's entry, or false when the item is not in the
// index: absent, without the vector or the HASH attribute, or (an item
// older than the index, or replicated) with a value a write would have
// refused. prefix is the index's storage prefix, tableKey the item's key
// within the table, keys the table's key attribute names; appendPart
// appends a HASH value's partition to a key.
func (x *Index) EntryOf(prefix, tableKey []byte, keys []string, item av.Item, appendPart func([]byte, av.Value) []byte) (Entry, bool) {
	v, ok := item[x.Attr]
	if !ok {
		return Entry{}, false
	}
	vec, err := FromItem(v, x.Attr, x.Name, x.Dims)
	if err != nil || x.CheckValues(item) != nil {
		return Entry{}, false
	}
	key := slices.Clip(prefix)
	n := len(key)
	if h, ok := x.HashElem(); ok {
		hv, present := item[h.Name]
		if !present {
			return Entry{}, false
		}
		key = appendPart(key, hv)
	}
	e := Entry{Part: string(key[n:]), Vec: vec, Key: append(key, tableKey...), Rest: x.project(keys, item)}
	for _, s := range x.Schema {
		if fv, ok := item[s.Name]; ok && s.Kind == KindInlineFilter {
			if e.Filters == nil {
				e.Filters = av.Item{}
			}
			e.Filters[s.Name] = fv
		}
	}
	return e, true
}

// project is what the index projects of item, but the vector: every
// attribute (ALL), or the table's key and the search schema attributes
// plus (INCLUDE) the listed ones.
func (x *Index) project(keys []string, item av.Item) av.Item {
	out := make(av.Item, len(keys)+len(x.Schema)+len(x.NonKeyAttrs))
	if x.ProjectionType == "ALL" {
		for k, v := range item {
			out[k] = v
		}
		delete(out, x.Attr)
		return out
	}
	keep := func(n string) {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	for _, k := range keys {
		keep(k)
	}
	for _, s := range x.Schema {
		keep(s.Name)
	}
	for _, n := range x.NonKeyAttrs {
		if n != x.Attr {
			keep(n)
		}
	}
	return out
}

// CheckValues refuses search schema values the index cannot hold: a type
// other than the declared one, an empty HASH value.
func (x *Index) CheckValues(item av.Item) error {
	for _, s := range x.Schema {
		v, ok := item[s.Name]
		if !ok {
			continue
		}
		if v.Type.String() != s.Type {
			return api.Validation("One or more parameter values were invalid. Attribute '%s' type mismatch. Expected: %s, Actual: %s. IndexName: %s", s.Name, s.Type, v.Type, x.Name)
		}
		if s.Kind == KindHash && v.Type != av.TypeN && v.S == "" {
			return api.Validation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: %s, IndexKey: %s", x.Name, s.Name)
		}
	}
	return nil
}

// CheckWrite refuses an item to be stored whose vector or search schema
// values the index cannot hold, with DynamoDB's messages (API Reference,
// PutItem: "ValidationException"). Over an old item (nil: none), only the
// values the write changes are checked: a value an item held before the
// index existed is not refused again.
func (x *Index) CheckWrite(old, item av.Item) error {
	v, ok := item[x.Attr]
	if !ok || (old != nil && x.unchanged(old, item)) {
		return nil
	}
	if _, err := FromItem(v, x.Attr, x.Name, x.Dims); err != nil {
		return err
	}
	return x.CheckValues(item)
}

// unchanged reports whether the write from old to item leaves every
// attribute the index checks as it was.
func (x *Index) unchanged(old, item av.Item) bool {
	same := func(n string) bool {
		a, p := old[n]
		b, q := item[n]
		return p == q && (!p || av.Equal(a, b))
	}
	if !same(x.Attr) {
		return false
	}
	for _, s := range x.Schema {
		if !same(s.Name) {
			return false
		}
	}
	return true
}
