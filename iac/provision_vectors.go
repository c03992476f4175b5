package iac

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

// reconcileVectors brings a table's vector indexes to the declaration's:
// one dropped, added or replaced (a changed definition: no property of a
// vector index can change in place) per UpdateTable, as DynamoDB allows
// one index operation at a time, each waited for until ACTIVE.
func (p *provisioner) reconcileVectors(ctx context.Context, want *api.CreateTableInput, cur *api.TableDescription) bool {
	have := map[string]string{}
	for _, v := range cur.VectorIndexes {
		have[v.IndexName] = describedVectorString(v)
	}
	wanted := map[string]bool{}
	for _, v := range want.VectorIndexes {
		wanted[derefOr(v.IndexName, "")] = true
	}
	var drop []string
	for n := range have {
		if !wanted[n] {
			drop = append(drop, n)
		}
	}
	for _, v := range want.VectorIndexes {
		if d, ok := have[derefOr(v.IndexName, "")]; ok && d != vectorString(v) {
			drop = append(drop, derefOr(v.IndexName, ""))
		}
	}
	sort.Strings(drop)
	for _, n := range drop {
		if !p.update(ctx, &api.UpdateTableInput{VectorIndexUpdates: []api.VectorIndexUpdate{{Delete: &api.DeleteVectorIndexAction{IndexName: spec.Str(n)}}}}) {
			return false
		}
		delete(have, n)
	}
	for i := range want.VectorIndexes {
		v := want.VectorIndexes[i]
		if _, ok := have[derefOr(v.IndexName, "")]; ok {
			continue
		}
		if !p.update(ctx, &api.UpdateTableInput{AttributeDefinitions: searchDefs(want, v), VectorIndexUpdates: []api.VectorIndexUpdate{{Create: &v}}}) {
			return false
		}
	}
	return true
}

// searchDefs are the attribute definitions of v's search schema, which
// an UpdateTable adding v must carry.
func searchDefs(want *api.CreateTableInput, v api.VectorIndex) []api.AttributeDefinition {
	var out []api.AttributeDefinition
	for _, s := range v.SearchSchema {
		for _, d := range want.AttributeDefinitions {
			if derefOr(d.AttributeName, "") == derefOr(s.AttributeName, "") {
				out = append(out, d)
			}
		}
	}
	return out
}

// vectorString and describedVectorString render a definition so a
// declared index and a described one compare.
func vectorString(v api.VectorIndex) string {
	attr := ""
	if v.VectorAttribute != nil {
		attr = derefOr(v.VectorAttribute.AttributeName, "")
	}
	var schema []string
	for _, s := range v.SearchSchema {
		schema = append(schema, derefOr(s.AttributeName, "")+":"+derefOr(s.SearchSchemaElementType, ""))
	}
	return fmt.Sprint(attr, derefOr(v.Dimensions, 0), derefOr(v.DistanceFunction, ""), schema, projString(v.Projection))
}

func describedVectorString(v api.VectorIndexDescription) string {
	var schema []string
	for _, s := range v.SearchSchema {
		schema = append(schema, s.AttributeName+":"+s.SearchSchemaElementType)
	}
	return fmt.Sprint(v.VectorAttribute.AttributeName, v.Dimensions, v.DistanceFunction, schema, describedProjString(v.Projection))
}

// vectorsReady reports whether every vector index of t is ACTIVE.
func vectorsReady(t *api.TableDescription) bool {
	return !slices.ContainsFunc(t.VectorIndexes, func(v api.VectorIndexDescription) bool { return v.IndexStatus != "ACTIVE" })
}
