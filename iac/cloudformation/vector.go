package cloudformation

import "github.com/extenddb/extenddb/emulator/api"

// vectorIndexes reads the VectorIndexes property of AWS::DynamoDB::Table
// and AWS::DynamoDB::GlobalTable into CreateTable's VectorIndexes. The
// CloudFormation property types (AWS::DynamoDB::Table VectorIndex,
// VectorAttribute, SearchSchemaElement, and their GlobalTable twins) name
// their properties as the API's VectorIndex does. Only the types and the
// required properties are checked here: names, Dimensions' range, the
// allowed values and how the indexes fit the table are CreateTable's to
// refuse, with DynamoDB's errors.
func (d *decoder) vectorIndexes(n *node) []api.VectorIndex {
	var out []api.VectorIndex
	for _, e := range d.list(n, "VectorIndexes") {
		if !d.object(e, "VectorIndexes", "IndexName", "VectorAttribute", "Dimensions", "DistanceFunction",
			"Projection", "SearchSchema") {
			continue
		}
		for _, p := range []string{"IndexName", "VectorAttribute", "Dimensions", "DistanceFunction", "Projection"} {
			d.required(e.get(p), e, p)
		}
		v := api.VectorIndex{
			IndexName:        d.str(e.get("IndexName"), "IndexName"),
			Dimensions:       d.integer(e.get("Dimensions"), "Dimensions"),
			DistanceFunction: d.str(e.get("DistanceFunction"), "DistanceFunction"),
			Projection:       d.projection(e.get("Projection")),
			SearchSchema:     d.searchSchema(e.get("SearchSchema")),
		}
		if a := e.get("VectorAttribute"); d.object(a, "VectorAttribute", "AttributeName") {
			d.required(a.get("AttributeName"), a, "VectorAttribute.AttributeName")
			v.VectorAttribute = &api.VectorAttributeDefinition{
				AttributeName: d.str(a.get("AttributeName"), "VectorAttribute.AttributeName"),
			}
		}
		out = append(out, v)
	}
	return out
}

// searchSchema reads a vector index's SearchSchema: a list of
// SearchSchemaElement {AttributeName, SearchSchemaElementType}.
func (d *decoder) searchSchema(n *node) []api.SearchSchemaElement {
	var out []api.SearchSchemaElement
	for _, e := range d.list(n, "SearchSchema") {
		if !d.object(e, "SearchSchema", "AttributeName", "SearchSchemaElementType") {
			continue
		}
		d.required(e.get("AttributeName"), e, "SearchSchema.AttributeName")
		d.required(e.get("SearchSchemaElementType"), e, "SearchSchema.SearchSchemaElementType")
		out = append(out, api.SearchSchemaElement{
			AttributeName:           d.str(e.get("AttributeName"), "SearchSchema.AttributeName"),
			SearchSchemaElementType: d.str(e.get("SearchSchemaElementType"), "SearchSchema.SearchSchemaElementType"),
		})
	}
	return out
}
