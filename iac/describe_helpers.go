package iac

import (
	"fmt"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
)

func str(p *string) string {
	if p == nil {
		return "?"
	}
	return *p
}

func num(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func keys(ks []api.KeySchemaElement, defs []api.AttributeDefinition) string {
	var parts []string
	for _, k := range ks {
		typ := "?"
		for _, d := range defs {
			if d.AttributeName != nil && k.AttributeName != nil && *d.AttributeName == *k.AttributeName {
				typ = str(d.AttributeType)
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", str(k.KeyType), str(k.AttributeName), typ))
	}
	return strings.Join(parts, ", ")
}

func projection(p *api.Projection) string {
	if p == nil {
		return "projection ?"
	}
	s := "projection " + str(p.ProjectionType)
	if len(p.NonKeyAttributes) > 0 {
		s += " [" + strings.Join(p.NonKeyAttributes, ", ") + "]"
	}
	return s
}

func capacity(pt *api.ProvisionedThroughput, od *api.OnDemandThroughput) string {
	var s string
	if pt != nil {
		s += fmt.Sprintf(", read %s / write %s capacity units", num(pt.ReadCapacityUnits), num(pt.WriteCapacityUnits))
	}
	if od != nil {
		s += fmt.Sprintf(", caps read %s / write %s request units", num(od.MaxReadRequestUnits), num(od.MaxWriteRequestUnits))
	}
	return s
}

// vectorLine describes a vector index: its name, attribute, dimensions,
// distance function, search schema and projection.
func vectorLine(v api.VectorIndex) string {
	attr := "?"
	if v.VectorAttribute != nil {
		attr = str(v.VectorAttribute.AttributeName)
	}
	line := fmt.Sprintf("%s %s[%s] %s", str(v.IndexName), attr, num(v.Dimensions), str(v.DistanceFunction))
	for _, e := range v.SearchSchema {
		line += fmt.Sprintf(" %s:%s", str(e.AttributeName), str(e.SearchSchemaElementType))
	}
	return line + " " + projection(v.Projection)
}
