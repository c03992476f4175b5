package cloudformation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/iac/spec"
)

// resource turns one resource into table specs. ok is false when the
// resource had errors (already reported).
func (s *stack) resource(r *resource, diags *spec.Diagnostics) ([]spec.TableSpec, bool) {
	def := r.def
	for i, k := range def.keys {
		switch k {
		case "Type", "Properties", "DependsOn", "Condition", "DeletionPolicy", "UpdateReplacePolicy",
			"Metadata", "UpdatePolicy", "CreationPolicy", "Version":
		default:
			diags.Errorf(def.vals[i].pos, "Template format error: [/Resources/%s] Invalid resource attribute %s", r.id, k)
			return nil, false
		}
	}
	if dep := def.get("DependsOn"); dep != nil {
		deps := []*node{dep}
		if dep.k == kSeq {
			deps = dep.items
		}
		for _, d := range deps {
			if d.k != kScalar || s.resources[d.s] == nil {
				diags.Errorf(d.pos, "Template format error: Unresolved resource dependencies [%s] in the Resources block of the template", d.s)
				return nil, false
			}
		}
	}
	if c := def.get("Condition"); c != nil {
		if c.k != kScalar {
			diags.Errorf(c.pos, "Template format error: Condition of resource %s must be a condition name", r.id)
			return nil, false
		}
		ok, err := s.condition(c, c.s)
		if err != nil {
			addErr(diags, err)
			return nil, false
		}
		if !ok {
			return nil, true
		}
	}
	if !isTable(r.typ) {
		diags.Infof(def.pos, "%s (%s): not a table, skipped", r.id, r.typ)
		return nil, true
	}
	name, err := s.physicalName(r)
	if err != nil {
		addErr(diags, err)
		return nil, false
	}
	var props *node
	if p := def.get("Properties"); p != nil {
		props, err = s.eval(p, 0)
		if err != nil {
			addErr(diags, err)
			return nil, false
		}
		if props.k != kMap {
			diags.Errorf(p.pos, "Template format error: Properties of %s must be a mapping", r.id)
			return nil, false
		}
	} else {
		props = &node{k: kMap, pos: def.pos}
	}
	if r.typ == typeSimpleTable && s.simpleTableGlobals != nil {
		g, err := s.eval(s.simpleTableGlobals, 0)
		if err != nil {
			addErr(diags, err)
			return nil, false
		}
		props = mergeGlobals(g, props)
	}
	d := &decoder{diags: diags, res: r.id}
	before := len(diags.Errs())
	var specs []spec.TableSpec
	switch r.typ {
	case typeTable:
		specs = s.table(d, r, props, name)
	case typeGlobalTable:
		specs = s.globalTable(d, r, props, name)
	case typeSimpleTable:
		specs = s.simpleTable(d, r, props, name)
	}
	if len(diags.Errs()) > before {
		return nil, false
	}
	return specs, true
}

// decoder reads evaluated property values by the resource schema.
type decoder struct {
	diags *spec.Diagnostics
	res   string
}

func (d *decoder) errorf(n *node, format string, args ...any) {
	d.diags.Errorf(n.pos, "%s: %s", d.res, fmt.Sprintf(format, args...))
}

// object checks n is a mapping holding only the allowed properties.
func (d *decoder) object(n *node, path string, allowed ...string) bool {
	if n == nil {
		return false
	}
	if n.k != kMap {
		d.errorf(n, "Value of property %s must be an object", path)
		return false
	}
	for i, k := range n.keys {
		ok := false
		for _, a := range allowed {
			if a == k {
				ok = true
				break
			}
		}
		if !ok {
			d.errorf(n.vals[i], "Encountered unsupported property %s", k)
		}
	}
	return true
}

func (d *decoder) str(n *node, path string) *string {
	if n == nil {
		return nil
	}
	if n.k != kScalar {
		d.errorf(n, "Value of property %s must be of type String", path)
		return nil
	}
	return spec.Str(n.s)
}

func (d *decoder) integer(n *node, path string) *int64 {
	if n == nil {
		return nil
	}
	if n.k == kScalar {
		if v, err := strconv.ParseInt(strings.TrimSpace(n.s), 10, 64); err == nil {
			return &v
		}
	}
	d.errorf(n, "Value of property %s must be of type Integer", path)
	return nil
}

func (d *decoder) boolean(n *node, path string) *bool {
	if n == nil {
		return nil
	}
	if n.k == kScalar {
		switch strings.ToLower(strings.TrimSpace(n.s)) {
		case "true":
			return spec.Bool(true)
		case "false":
			return spec.Bool(false)
		}
	}
	d.errorf(n, "Value of property %s must be of type Boolean", path)
	return nil
}

func (d *decoder) list(n *node, path string) []*node {
	if n == nil {
		return nil
	}
	if n.k != kSeq {
		d.errorf(n, "Value of property %s must be of type List", path)
		return nil
	}
	return n.items
}

func (d *decoder) strList(n *node, path string) []string {
	var out []string
	for _, e := range d.list(n, path) {
		if v := d.str(e, path); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

func (d *decoder) required(n *node, parent *node, path string) bool {
	if n == nil {
		d.errorf(parent, "Property %s cannot be empty.", path)
		return false
	}
	return true
}

func (d *decoder) attrDefs(n *node) []emulator.AttributeDefinition {
	var out []emulator.AttributeDefinition
	for _, e := range d.list(n, "AttributeDefinitions") {
		if !d.object(e, "AttributeDefinitions", "AttributeName", "AttributeType") {
			continue
		}
		out = append(out, emulator.AttributeDefinition{
			AttributeName: d.str(e.get("AttributeName"), "AttributeName"),
			AttributeType: d.str(e.get("AttributeType"), "AttributeType"),
		})
	}
	return out
}

func (d *decoder) keySchema(n *node, path string) []emulator.KeySchemaElement {
	var out []emulator.KeySchemaElement
	for _, e := range d.list(n, path) {
		if !d.object(e, path, "AttributeName", "KeyType") {
			continue
		}
		out = append(out, emulator.KeySchemaElement{
			AttributeName: d.str(e.get("AttributeName"), "AttributeName"),
			KeyType:       d.str(e.get("KeyType"), "KeyType"),
		})
	}
	return out
}

func (d *decoder) throughput(n *node) *emulator.ProvisionedThroughput {
	if !d.object(n, "ProvisionedThroughput", "ReadCapacityUnits", "WriteCapacityUnits") {
		return nil
	}
	return &emulator.ProvisionedThroughput{
		ReadCapacityUnits:  d.integer(n.get("ReadCapacityUnits"), "ReadCapacityUnits"),
		WriteCapacityUnits: d.integer(n.get("WriteCapacityUnits"), "WriteCapacityUnits"),
	}
}

func (d *decoder) onDemand(n *node) *emulator.OnDemandThroughput {
	if !d.object(n, "OnDemandThroughput", "MaxReadRequestUnits", "MaxWriteRequestUnits") {
		return nil
	}
	return &emulator.OnDemandThroughput{
		MaxReadRequestUnits:  d.integer(n.get("MaxReadRequestUnits"), "MaxReadRequestUnits"),
		MaxWriteRequestUnits: d.integer(n.get("MaxWriteRequestUnits"), "MaxWriteRequestUnits"),
	}
}

func (d *decoder) warm(n *node) *emulator.WarmThroughput {
	if !d.object(n, "WarmThroughput", "ReadUnitsPerSecond", "WriteUnitsPerSecond") {
		return nil
	}
	return &emulator.WarmThroughput{
		ReadUnitsPerSecond:  d.integer(n.get("ReadUnitsPerSecond"), "ReadUnitsPerSecond"),
		WriteUnitsPerSecond: d.integer(n.get("WriteUnitsPerSecond"), "WriteUnitsPerSecond"),
	}
}

func (d *decoder) projection(n *node) *emulator.Projection {
	if !d.object(n, "Projection", "ProjectionType", "NonKeyAttributes") {
		return nil
	}
	return &emulator.Projection{
		ProjectionType:   d.str(n.get("ProjectionType"), "ProjectionType"),
		NonKeyAttributes: d.strList(n.get("NonKeyAttributes"), "NonKeyAttributes"),
	}
}

func (d *decoder) lsis(n *node) []emulator.LocalSecondaryIndex {
	var out []emulator.LocalSecondaryIndex
	for _, e := range d.list(n, "LocalSecondaryIndexes") {
		if !d.object(e, "LocalSecondaryIndexes", "IndexName", "KeySchema", "Projection") {
			continue
		}
		d.required(e.get("IndexName"), e, "IndexName")
		d.required(e.get("KeySchema"), e, "KeySchema")
		d.required(e.get("Projection"), e, "Projection")
		out = append(out, emulator.LocalSecondaryIndex{
			IndexName:  d.str(e.get("IndexName"), "IndexName"),
			KeySchema:  d.keySchema(e.get("KeySchema"), "KeySchema"),
			Projection: d.projection(e.get("Projection")),
		})
	}
	return out
}

func (d *decoder) tags(n *node) []emulator.Tag {
	var out []emulator.Tag
	for _, e := range d.list(n, "Tags") {
		if !d.object(e, "Tags", "Key", "Value") {
			continue
		}
		d.required(e.get("Key"), e, "Key")
		d.required(e.get("Value"), e, "Value")
		out = append(out, emulator.Tag{Key: d.str(e.get("Key"), "Key"), Value: d.str(e.get("Value"), "Value")})
	}
	return out
}

func (d *decoder) ttl(n *node) *emulator.TimeToLiveSpecification {
	if !d.object(n, "TimeToLiveSpecification", "Enabled", "AttributeName") {
		return nil
	}
	d.required(n.get("Enabled"), n, "Enabled")
	return &emulator.TimeToLiveSpecification{
		Enabled:       d.boolean(n.get("Enabled"), "Enabled"),
		AttributeName: d.str(n.get("AttributeName"), "AttributeName"),
	}
}

func (d *decoder) pitr(n *node) *emulator.PointInTimeRecoverySpecification {
	if !d.object(n, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled", "RecoveryPeriodInDays") {
		return nil
	}
	return &emulator.PointInTimeRecoverySpecification{
		PointInTimeRecoveryEnabled: d.boolean(n.get("PointInTimeRecoveryEnabled"), "PointInTimeRecoveryEnabled"),
		RecoveryPeriodInDays:       d.integer(n.get("RecoveryPeriodInDays"), "RecoveryPeriodInDays"),
	}
}

func (d *decoder) kinesis(n *node) *spec.KinesisSpec {
	if !d.object(n, "KinesisStreamSpecification", "StreamArn", "ApproximateCreationDateTimePrecision") {
		return nil
	}
	if !d.required(n.get("StreamArn"), n, "StreamArn") {
		return nil
	}
	arn := d.str(n.get("StreamArn"), "StreamArn")
	if arn == nil {
		return nil
	}
	k := &spec.KinesisSpec{StreamArn: *arn, Pos: n.pos}
	if p := d.str(n.get("ApproximateCreationDateTimePrecision"), "ApproximateCreationDateTimePrecision"); p != nil {
		k.Precision = *p
	}
	return k
}

func (d *decoder) policy(n *node) *string {
	if !d.object(n, "ResourcePolicy", "PolicyDocument") {
		return nil
	}
	doc := n.get("PolicyDocument")
	if !d.required(doc, n, "PolicyDocument") {
		return nil
	}
	if doc.k == kScalar {
		return spec.Str(doc.s)
	}
	return spec.Str(toJSON(doc))
}

func (d *decoder) ignored(props *node, names ...string) {
	for _, name := range names {
		if n := props.get(name); n != nil {
			d.diags.Infof(n.pos, "%s: property %s is accepted and not applied", d.res, name)
		}
	}
}

// newSpec starts the spec of r from its evaluated properties, recording
// where each property is written (see where).
func (s *stack) newSpec(r *resource, name string, props *node) spec.TableSpec {
	sp := spec.TableSpec{Account: s.account, Region: s.region, Pos: r.def.pos, Source: "Resources." + r.id}
	sp.Create.TableName = spec.Str(name)
	where(&sp, "", props)
	return sp
}

// where records in sp where each property under n is written, by its path
// ("GlobalSecondaryIndexes[1].Projection.ProjectionType"). The properties
// of AWS::DynamoDB::Table are CreateTable's members by name and shape, so
// an engine error about a member (spec.Blame) points at the property that
// declares it; the other table types share most of them.
func where(sp *spec.TableSpec, path string, n *node) {
	switch n.k {
	case kMap:
		for i, k := range n.keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			sp.At(p, n.keyAt(i))
			where(sp, p, n.vals[i])
		}
	case kSeq:
		for i, e := range n.items {
			p := fmt.Sprintf("%s[%d]", path, i)
			sp.At(p, e.pos)
			where(sp, p, e)
		}
	}
}

func (s *stack) table(d *decoder, r *resource, props *node, name string) []spec.TableSpec {
	d.object(props, "Properties", "AttributeDefinitions", "KeySchema", "BillingMode", "ProvisionedThroughput",
		"OnDemandThroughput", "WarmThroughput", "GlobalSecondaryIndexes", "LocalSecondaryIndexes",
		"StreamSpecification", "KinesisStreamSpecification", "TimeToLiveSpecification",
		"PointInTimeRecoverySpecification", "SSESpecification", "ContributorInsightsSpecification",
		"DeletionProtectionEnabled", "TableClass", "TableName", "Tags", "ResourcePolicy", "ImportSourceSpecification")
	if !d.required(props.get("KeySchema"), props, "KeySchema") {
		return nil
	}
	sp := s.newSpec(r, name, props)
	c := &sp.Create
	c.AttributeDefinitions = d.attrDefs(props.get("AttributeDefinitions"))
	c.KeySchema = d.keySchema(props.get("KeySchema"), "KeySchema")
	c.BillingMode = d.str(props.get("BillingMode"), "BillingMode")
	if c.BillingMode == nil {
		c.BillingMode = spec.Str("PROVISIONED")
	}
	if n := props.get("ProvisionedThroughput"); n != nil {
		c.ProvisionedThroughput = d.throughput(n)
	}
	if n := props.get("OnDemandThroughput"); n != nil {
		c.OnDemandThroughput = d.onDemand(n)
	}
	if n := props.get("WarmThroughput"); n != nil {
		c.WarmThroughput = d.warm(n)
	}
	for _, e := range d.list(props.get("GlobalSecondaryIndexes"), "GlobalSecondaryIndexes") {
		if !d.object(e, "GlobalSecondaryIndexes", "IndexName", "KeySchema", "Projection", "ProvisionedThroughput",
			"OnDemandThroughput", "WarmThroughput", "ContributorInsightsSpecification") {
			continue
		}
		d.required(e.get("IndexName"), e, "IndexName")
		d.required(e.get("KeySchema"), e, "KeySchema")
		d.required(e.get("Projection"), e, "Projection")
		g := emulator.GlobalSecondaryIndex{
			IndexName:  d.str(e.get("IndexName"), "IndexName"),
			KeySchema:  d.keySchema(e.get("KeySchema"), "KeySchema"),
			Projection: d.projection(e.get("Projection")),
		}
		if n := e.get("ProvisionedThroughput"); n != nil {
			g.ProvisionedThroughput = d.throughput(n)
		}
		if n := e.get("OnDemandThroughput"); n != nil {
			g.OnDemandThroughput = d.onDemand(n)
		}
		if n := e.get("WarmThroughput"); n != nil {
			g.WarmThroughput = d.warm(n)
		}
		if n := e.get("ContributorInsightsSpecification"); n != nil && g.IndexName != nil {
			d.insights(&sp, *g.IndexName, n)
		}
		c.GlobalSecondaryIndexes = append(c.GlobalSecondaryIndexes, g)
	}
	c.LocalSecondaryIndexes = d.lsis(props.get("LocalSecondaryIndexes"))
	if n := props.get("StreamSpecification"); d.object(n, "StreamSpecification", "StreamViewType", "ResourcePolicy") {
		d.required(n.get("StreamViewType"), n, "StreamViewType")
		c.StreamSpecification = &emulator.StreamSpecification{StreamEnabled: spec.Bool(true), StreamViewType: d.str(n.get("StreamViewType"), "StreamViewType")}
		if rp := n.get("ResourcePolicy"); rp != nil {
			sp.StreamPolicy = d.policy(rp)
		}
	}
	if n := props.get("TimeToLiveSpecification"); n != nil {
		sp.TTL = d.ttl(n)
	}
	if n := props.get("PointInTimeRecoverySpecification"); n != nil {
		sp.PITR = d.pitr(n)
	}
	if n := props.get("SSESpecification"); d.object(n, "SSESpecification", "SSEEnabled", "SSEType", "KMSMasterKeyId") {
		d.required(n.get("SSEEnabled"), n, "SSEEnabled")
		c.SSESpecification = &emulator.SSESpecification{
			Enabled:        d.boolean(n.get("SSEEnabled"), "SSEEnabled"),
			SSEType:        d.str(n.get("SSEType"), "SSEType"),
			KMSMasterKeyId: d.str(n.get("KMSMasterKeyId"), "KMSMasterKeyId"),
		}
	}
	c.DeletionProtectionEnabled = d.boolean(props.get("DeletionProtectionEnabled"), "DeletionProtectionEnabled")
	c.TableClass = d.str(props.get("TableClass"), "TableClass")
	c.Tags = d.tags(props.get("Tags"))
	if n := props.get("ResourcePolicy"); n != nil {
		c.ResourcePolicy = d.policy(n)
	}
	if n := props.get("KinesisStreamSpecification"); n != nil {
		sp.Kinesis = d.kinesis(n)
		sp.At("KinesisStreamSpecification", n.pos)
	}
	// CloudFormation applies the declared document as it is.
	sp.ConfirmRemoveSelf = true
	if n := props.get("ContributorInsightsSpecification"); n != nil {
		d.insights(&sp, "", n)
	}
	if n := props.get("ImportSourceSpecification"); n != nil {
		sp.Import = d.importSource(n)
	}
	return []spec.TableSpec{sp}
}

// insights reads a ContributorInsightsSpecification of the table (index
// "") or of its GSI index.
func (d *decoder) insights(sp *spec.TableSpec, index string, n *node) {
	if !d.object(n, "ContributorInsightsSpecification", "Enabled", "Mode") {
		return
	}
	d.required(n.get("Enabled"), n, "Enabled")
	on := d.boolean(n.get("Enabled"), "Enabled")
	sp.SetInsights(index, spec.InsightsSetting{Enabled: on != nil && *on, Mode: d.str(n.get("Mode"), "Mode"), Pos: n.pos})
}

func (s *stack) simpleTable(d *decoder, r *resource, props *node, name string) []spec.TableSpec {
	d.object(props, "Properties", "PrimaryKey", "ProvisionedThroughput", "SSESpecification",
		"PointInTimeRecoverySpecification", "TableName", "Tags")
	sp := s.newSpec(r, name, props)
	c := &sp.Create
	keyName, keyType := "id", "S"
	if pk := props.get("PrimaryKey"); d.object(pk, "PrimaryKey", "Name", "Type") {
		if v := d.str(pk.get("Name"), "Name"); v != nil {
			keyName = *v
		}
		if v := d.str(pk.get("Type"), "Type"); v != nil {
			switch *v {
			case "String":
				keyType = "S"
			case "Number":
				keyType = "N"
			case "Binary":
				keyType = "B"
			default:
				d.errorf(pk.get("Type"), "Type of PrimaryKey must be String, Number or Binary")
			}
		}
	}
	if i := props.index("PrimaryKey"); i >= 0 {
		// SimpleTable's PrimaryKey is both the key and its definition.
		sp.At("KeySchema", props.keyAt(i))
		sp.At("AttributeDefinitions", props.keyAt(i))
	}
	c.AttributeDefinitions = []emulator.AttributeDefinition{{AttributeName: spec.Str(keyName), AttributeType: spec.Str(keyType)}}
	c.KeySchema = []emulator.KeySchemaElement{{AttributeName: spec.Str(keyName), KeyType: spec.Str("HASH")}}
	if n := props.get("ProvisionedThroughput"); n != nil {
		c.BillingMode = spec.Str("PROVISIONED")
		c.ProvisionedThroughput = d.throughput(n)
	} else {
		c.BillingMode = spec.Str("PAY_PER_REQUEST")
	}
	if n := props.get("SSESpecification"); d.object(n, "SSESpecification", "SSEEnabled", "SSEType", "KMSMasterKeyId") {
		c.SSESpecification = &emulator.SSESpecification{
			Enabled:        d.boolean(n.get("SSEEnabled"), "SSEEnabled"),
			SSEType:        d.str(n.get("SSEType"), "SSEType"),
			KMSMasterKeyId: d.str(n.get("KMSMasterKeyId"), "KMSMasterKeyId"),
		}
	}
	if n := props.get("PointInTimeRecoverySpecification"); n != nil {
		sp.PITR = d.pitr(n)
	}
	if t := props.get("Tags"); t != nil {
		if t.k != kMap {
			d.errorf(t, "Value of property Tags must be a map of strings")
		} else {
			m := map[string]string{}
			for i, k := range t.keys {
				if v := d.str(t.vals[i], "Tags"); v != nil {
					m[k] = *v
				}
			}
			c.Tags = spec.TagsFromMap(m)
		}
	}
	return []spec.TableSpec{sp}
}

func (s *stack) globalTable(d *decoder, r *resource, props *node, name string) []spec.TableSpec {
	d.object(props, "Properties", "AttributeDefinitions", "BillingMode", "GlobalSecondaryIndexes",
		"GlobalTableSourceArn", "GlobalTableWitnesses", "KeySchema", "LocalSecondaryIndexes", "MultiRegionConsistency",
		"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings", "Replicas", "SSESpecification",
		"StreamSpecification", "TableName", "TimeToLiveSpecification", "WarmThroughput",
		"WriteOnDemandThroughputSettings", "WriteProvisionedThroughputSettings")
	if !d.required(props.get("Replicas"), props, "Replicas") || !d.required(props.get("KeySchema"), props, "KeySchema") {
		return nil
	}
	base := s.newSpec(r, name, props)
	c := &base.Create
	c.AttributeDefinitions = d.attrDefs(props.get("AttributeDefinitions"))
	c.KeySchema = d.keySchema(props.get("KeySchema"), "KeySchema")
	c.BillingMode = d.str(props.get("BillingMode"), "BillingMode")
	if c.BillingMode == nil {
		c.BillingMode = spec.Str("PROVISIONED")
	}
	provisioned := *c.BillingMode == "PROVISIONED"
	var write *int64
	if n := props.get("WriteProvisionedThroughputSettings"); d.object(n, "WriteProvisionedThroughputSettings", "WriteCapacityAutoScalingSettings") {
		write = d.autoScaling(n.get("WriteCapacityAutoScalingSettings"), "WriteCapacityAutoScalingSettings")
	}
	if provisioned && write == nil {
		d.errorf(props, "WriteProvisionedThroughputSettings must be specified when BillingMode is PROVISIONED")
	}
	var writeCap *int64
	if n := props.get("WriteOnDemandThroughputSettings"); d.object(n, "WriteOnDemandThroughputSettings", "MaxWriteRequestUnits") {
		writeCap = d.integer(n.get("MaxWriteRequestUnits"), "MaxWriteRequestUnits")
	}
	if n := props.get("WarmThroughput"); n != nil {
		c.WarmThroughput = d.warm(n)
	}
	type gsiWrite struct {
		write, cap *int64
	}
	gsiWrites := map[string]gsiWrite{}
	for _, e := range d.list(props.get("GlobalSecondaryIndexes"), "GlobalSecondaryIndexes") {
		if !d.object(e, "GlobalSecondaryIndexes", "IndexName", "KeySchema", "Projection", "WarmThroughput",
			"WriteOnDemandThroughputSettings", "WriteProvisionedThroughputSettings") {
			continue
		}
		g := emulator.GlobalSecondaryIndex{
			IndexName:  d.str(e.get("IndexName"), "IndexName"),
			KeySchema:  d.keySchema(e.get("KeySchema"), "KeySchema"),
			Projection: d.projection(e.get("Projection")),
		}
		if n := e.get("WarmThroughput"); n != nil {
			g.WarmThroughput = d.warm(n)
		}
		var gw gsiWrite
		if n := e.get("WriteProvisionedThroughputSettings"); d.object(n, "WriteProvisionedThroughputSettings", "WriteCapacityAutoScalingSettings") {
			gw.write = d.autoScaling(n.get("WriteCapacityAutoScalingSettings"), "WriteCapacityAutoScalingSettings")
		}
		if n := e.get("WriteOnDemandThroughputSettings"); d.object(n, "WriteOnDemandThroughputSettings", "MaxWriteRequestUnits") {
			gw.cap = d.integer(n.get("MaxWriteRequestUnits"), "MaxWriteRequestUnits")
		}
		if g.IndexName != nil {
			gsiWrites[*g.IndexName] = gw
		}
		c.GlobalSecondaryIndexes = append(c.GlobalSecondaryIndexes, g)
	}
	c.LocalSecondaryIndexes = d.lsis(props.get("LocalSecondaryIndexes"))
	if n := props.get("StreamSpecification"); d.object(n, "StreamSpecification", "StreamViewType") {
		c.StreamSpecification = &emulator.StreamSpecification{StreamEnabled: spec.Bool(true), StreamViewType: d.str(n.get("StreamViewType"), "StreamViewType")}
	}
	if n := props.get("TimeToLiveSpecification"); n != nil {
		base.TTL = d.ttl(n)
	}
	var sseEnabled *bool
	var sseType *string
	if n := props.get("SSESpecification"); d.object(n, "SSESpecification", "SSEEnabled", "SSEType") {
		sseEnabled = d.boolean(n.get("SSEEnabled"), "SSEEnabled")
		sseType = d.str(n.get("SSEType"), "SSEType")
	}
	d.ignored(props, "GlobalTableSourceArn", "GlobalTableWitnesses", "MultiRegionConsistency",
		"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings")

	replicas := d.list(props.get("Replicas"), "Replicas")
	var regions []string
	hasOwn := false
	for _, rep := range replicas {
		if rep.k == kMap {
			if rg := rep.get("Region"); rg != nil && rg.k == kScalar {
				regions = append(regions, rg.s)
				if rg.s == s.region {
					hasOwn = true
				}
			}
		}
	}
	if len(replicas) == 0 {
		d.errorf(props, "Property Replicas cannot be empty.")
		return nil
	}
	// The stack's Region is the global table's home (spec.Replicas[0]):
	// the other replicas are added to its table.
	for i, rg := range regions {
		if rg == s.region && i > 0 {
			regions = append(append([]string{rg}, regions[:i]...), regions[i+1:]...)
			break
		}
	}
	if !hasOwn {
		d.errorf(props.get("Replicas"), "The Replicas section must contain an entry for the current region")
	}
	if len(replicas) > 1 && c.StreamSpecification == nil {
		d.errorf(props, "StreamSpecification must be specified when there is more than one replica")
	}
	var out []spec.TableSpec
	seen := map[string]bool{}
	for _, rep := range replicas {
		if !d.object(rep, "Replicas", "Region", "ContributorInsightsSpecification", "DeletionProtectionEnabled",
			"GlobalSecondaryIndexes", "KinesisStreamSpecification", "PointInTimeRecoverySpecification",
			"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings", "ReplicaStreamSpecification",
			"ResourcePolicy", "SSESpecification", "TableClass", "Tags", "DisassociationProtectionEnabled", "WarmThroughput") {
			continue
		}
		region := d.str(rep.get("Region"), "Region")
		if !d.required(rep.get("Region"), rep, "Region") || region == nil {
			continue
		}
		if seen[*region] {
			d.errorf(rep, "Duplicate replica Region %s", *region)
			continue
		}
		seen[*region] = true
		sp := cloneSpec(base)
		sp.Region = *region
		sp.Pos = rep.pos
		sp.Source = fmt.Sprintf("Resources.%s.Replicas[%s]", r.id, *region)
		if len(regions) > 1 {
			sp.Replicas = regions
		}
		rc := &sp.Create
		if provisioned {
			var read *int64
			if n := rep.get("ReadProvisionedThroughputSettings"); d.object(n, "ReadProvisionedThroughputSettings", "ReadCapacityUnits", "ReadCapacityAutoScalingSettings") {
				read = d.integer(n.get("ReadCapacityUnits"), "ReadCapacityUnits")
				if read == nil {
					read = d.autoScaling(n.get("ReadCapacityAutoScalingSettings"), "ReadCapacityAutoScalingSettings")
				}
			}
			if read == nil {
				d.errorf(rep, "ReadProvisionedThroughputSettings must be specified for each replica when BillingMode is PROVISIONED")
			}
			rc.ProvisionedThroughput = &emulator.ProvisionedThroughput{ReadCapacityUnits: read, WriteCapacityUnits: write}
		}
		var readCap *int64
		if n := rep.get("ReadOnDemandThroughputSettings"); d.object(n, "ReadOnDemandThroughputSettings", "MaxReadRequestUnits") {
			readCap = d.integer(n.get("MaxReadRequestUnits"), "MaxReadRequestUnits")
		}
		if readCap != nil || writeCap != nil {
			rc.OnDemandThroughput = &emulator.OnDemandThroughput{MaxReadRequestUnits: readCap, MaxWriteRequestUnits: writeCap}
		}
		// Per-replica GSI read settings join the table-level write ones.
		repGSI := map[string]*node{}
		for _, g := range d.list(rep.get("GlobalSecondaryIndexes"), "GlobalSecondaryIndexes") {
			if d.object(g, "GlobalSecondaryIndexes", "IndexName", "ContributorInsightsSpecification",
				"ReadOnDemandThroughputSettings", "ReadProvisionedThroughputSettings") {
				if n := d.str(g.get("IndexName"), "IndexName"); n != nil {
					repGSI[*n] = g
				}
			}
		}
		for i := range rc.GlobalSecondaryIndexes {
			g := &rc.GlobalSecondaryIndexes[i]
			if g.IndexName == nil {
				continue
			}
			gw := gsiWrites[*g.IndexName]
			rg := repGSI[*g.IndexName]
			var read, rcap *int64
			if rg != nil {
				if n := rg.get("ReadProvisionedThroughputSettings"); d.object(n, "ReadProvisionedThroughputSettings", "ReadCapacityUnits", "ReadCapacityAutoScalingSettings") {
					read = d.integer(n.get("ReadCapacityUnits"), "ReadCapacityUnits")
					if read == nil {
						read = d.autoScaling(n.get("ReadCapacityAutoScalingSettings"), "ReadCapacityAutoScalingSettings")
					}
				}
				if n := rg.get("ReadOnDemandThroughputSettings"); d.object(n, "ReadOnDemandThroughputSettings", "MaxReadRequestUnits") {
					rcap = d.integer(n.get("MaxReadRequestUnits"), "MaxReadRequestUnits")
				}
			}
			if provisioned {
				w := gw.write
				if w == nil {
					w = write
				}
				if read == nil {
					read = rc.ProvisionedThroughput.ReadCapacityUnits
				}
				g.ProvisionedThroughput = &emulator.ProvisionedThroughput{ReadCapacityUnits: read, WriteCapacityUnits: w}
			}
			if rcap != nil || gw.cap != nil {
				g.OnDemandThroughput = &emulator.OnDemandThroughput{MaxReadRequestUnits: rcap, MaxWriteRequestUnits: gw.cap}
			}
		}
		if n := rep.get("PointInTimeRecoverySpecification"); n != nil {
			sp.PITR = d.pitr(n)
		}
		rc.DeletionProtectionEnabled = d.boolean(rep.get("DeletionProtectionEnabled"), "DeletionProtectionEnabled")
		rc.TableClass = d.str(rep.get("TableClass"), "TableClass")
		rc.Tags = d.tags(rep.get("Tags"))
		if sseEnabled != nil {
			rc.SSESpecification = &emulator.SSESpecification{Enabled: sseEnabled, SSEType: sseType}
			if n := rep.get("SSESpecification"); d.object(n, "SSESpecification", "KMSMasterKeyId") {
				rc.SSESpecification.KMSMasterKeyId = d.str(n.get("KMSMasterKeyId"), "KMSMasterKeyId")
			}
		}
		if n := rep.get("ResourcePolicy"); n != nil {
			rc.ResourcePolicy = d.policy(n)
		}
		if n := rep.get("ReplicaStreamSpecification"); d.object(n, "ReplicaStreamSpecification", "ResourcePolicy") {
			if rp := n.get("ResourcePolicy"); d.required(rp, n, "ResourcePolicy") {
				sp.StreamPolicy = d.policy(rp)
				sp.At("StreamSpecification.ResourcePolicy", rp.pos)
			}
		}
		if n := rep.get("KinesisStreamSpecification"); n != nil {
			sp.Kinesis = d.kinesis(n)
			sp.At("KinesisStreamSpecification", n.pos)
		}
		sp.ConfirmRemoveSelf = true
		d.ignored(rep, "ContributorInsightsSpecification", "DisassociationProtectionEnabled")
		out = append(out, sp)
	}
	return out
}

// autoScaling reads CapacityAutoScalingSettings; the emulator provisions
// its SeedCapacity, else its MinCapacity.
func (d *decoder) autoScaling(n *node, path string) *int64 {
	if !d.object(n, path, "MinCapacity", "MaxCapacity", "SeedCapacity", "TargetTrackingScalingPolicyConfiguration") {
		return nil
	}
	if v := d.integer(n.get("SeedCapacity"), "SeedCapacity"); v != nil {
		return v
	}
	d.required(n.get("MinCapacity"), n, "MinCapacity")
	return d.integer(n.get("MinCapacity"), "MinCapacity")
}

// cloneSpec deep-copies the slices a replica changes.
func cloneSpec(s spec.TableSpec) spec.TableSpec {
	out := s
	out.Create.GlobalSecondaryIndexes = append([]emulator.GlobalSecondaryIndex(nil), s.Create.GlobalSecondaryIndexes...)
	out.Create.Tags = append([]emulator.Tag(nil), s.Create.Tags...)
	return out
}

// importSource reads ImportSourceSpecification: the table is created by
// ImportTable from the S3 stand-in.
func (d *decoder) importSource(n *node) *emulator.ImportTableInput {
	const p = "ImportSourceSpecification"
	if !d.object(n, p, "S3BucketSource", "InputFormat", "InputCompressionType", "InputFormatOptions") {
		return nil
	}
	d.required(n.get("S3BucketSource"), n, p+".S3BucketSource")
	d.required(n.get("InputFormat"), n, p+".InputFormat")
	in := &emulator.ImportTableInput{InputFormat: d.str(n.get("InputFormat"), p+".InputFormat"),
		InputCompressionType: d.str(n.get("InputCompressionType"), p+".InputCompressionType"), S3BucketSource: &emulator.S3BucketSource{}}
	if src := n.get("S3BucketSource"); d.object(src, p+".S3BucketSource", "S3Bucket", "S3BucketOwner", "S3KeyPrefix") {
		d.required(src.get("S3Bucket"), src, p+".S3BucketSource.S3Bucket")
		in.S3BucketSource = &emulator.S3BucketSource{S3Bucket: d.str(src.get("S3Bucket"), p+".S3BucketSource.S3Bucket"),
			S3BucketOwner: d.str(src.get("S3BucketOwner"), p+".S3BucketSource.S3BucketOwner"),
			S3KeyPrefix:   d.str(src.get("S3KeyPrefix"), p+".S3BucketSource.S3KeyPrefix")}
	}
	if o := n.get("InputFormatOptions"); d.object(o, p+".InputFormatOptions", "Csv") {
		if c := o.get("Csv"); d.object(c, p+".InputFormatOptions.Csv", "Delimiter", "HeaderList") {
			in.InputFormatOptions = &emulator.InputFormatOptions{Csv: &emulator.CsvOptions{
				Delimiter:  d.str(c.get("Delimiter"), p+".InputFormatOptions.Csv.Delimiter"),
				HeaderList: d.strList(c.get("HeaderList"), p+".InputFormatOptions.Csv.HeaderList")}}
		}
	}
	return in
}
