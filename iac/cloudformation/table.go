package cloudformation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
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

func (d *decoder) attrDefs(n *node) []api.AttributeDefinition {
	var out []api.AttributeDefinition
	for _, e := range d.list(n, "AttributeDefinitions") {
		if !d.object(e, "AttributeDefinitions", "AttributeName", "AttributeType") {
			continue
		}
		out = append(out, api.AttributeDefinition{
			AttributeName: d.str(e.get("AttributeName"), "AttributeName"),
			AttributeType: d.str(e.get("AttributeType"), "AttributeType"),
		})
	}
	return out
}

func (d *decoder) keySchema(n *node, path string) []api.KeySchemaElement {
	var out []api.KeySchemaElement
	for _, e := range d.list(n, path) {
		if !d.object(e, path, "AttributeName", "KeyType") {
			continue
		}
		out = append(out, api.KeySchemaElement{
			AttributeName: d.str(e.get("AttributeName"), "AttributeName"),
			KeyType:       d.str(e.get("KeyType"), "KeyType"),
		})
	}
	return out
}

func (d *decoder) throughput(n *node) *api.ProvisionedThroughput {
	if !d.object(n, "ProvisionedThroughput", "ReadCapacityUnits", "WriteCapacityUnits") {
		return nil
	}
	return &api.ProvisionedThroughput{
		ReadCapacityUnits:  d.integer(n.get("ReadCapacityUnits"), "ReadCapacityUnits"),
		WriteCapacityUnits: d.integer(n.get("WriteCapacityUnits"), "WriteCapacityUnits"),
	}
}

func (d *decoder) onDemand(n *node) *api.OnDemandThroughput {
	if !d.object(n, "OnDemandThroughput", "MaxReadRequestUnits", "MaxWriteRequestUnits") {
		return nil
	}
	return &api.OnDemandThroughput{
		MaxReadRequestUnits:  d.integer(n.get("MaxReadRequestUnits"), "MaxReadRequestUnits"),
		MaxWriteRequestUnits: d.integer(n.get("MaxWriteRequestUnits"), "MaxWriteRequestUnits"),
	}
}

func (d *decoder) warm(n *node) *api.WarmThroughput {
	if !d.object(n, "WarmThroughput", "ReadUnitsPerSecond", "WriteUnitsPerSecond") {
		return nil
	}
	return &api.WarmThroughput{
		ReadUnitsPerSecond:  d.integer(n.get("ReadUnitsPerSecond"), "ReadUnitsPerSecond"),
		WriteUnitsPerSecond: d.integer(n.get("WriteUnitsPerSecond"), "WriteUnitsPerSecond"),
	}
}

func (d *decoder) projection(n *node) *api.Projection {
	if !d.object(n, "Projection", "ProjectionType", "NonKeyAttributes") {
		return nil
	}
	return &api.Projection{
		ProjectionType:   d.str(n.get("ProjectionType"), "ProjectionType"),
		NonKeyAttributes: d.strList(n.get("NonKeyAttributes"), "NonKeyAttributes"),
	}
}

func (d *decoder) lsis(n *node) []api.LocalSecondaryIndex {
	var out []api.LocalSecondaryIndex
	for _, e := range d.list(n, "LocalSecondaryIndexes") {
		if !d.object(e, "LocalSecondaryIndexes", "IndexName", "KeySchema", "Projection") {
			continue
		}
		d.required(e.get("IndexName"), e, "IndexName")
		d.required(e.get("KeySchema"), e, "KeySchema")
		d.required(e.get("Projection"), e, "Projection")
		out = append(out, api.LocalSecondaryIndex{
			IndexName:  d.str(e.get("IndexName"), "IndexName"),
			KeySchema:  d.keySchema(e.get("KeySchema"), "KeySchema"),
			Projection: d.projection(e.get("Projection")),
		})
	}
	return out
}

func (d *decoder) tags(n *node) []api.Tag {
	var out []api.Tag
	for _, e := range d.list(n, "Tags") {
		if !d.object(e, "Tags", "Key", "Value") {
			continue
		}
		d.required(e.get("Key"), e, "Key")
		d.required(e.get("Value"), e, "Value")
		out = append(out, api.Tag{Key: d.str(e.get("Key"), "Key"), Value: d.str(e.get("Value"), "Value")})
	}
	return out
}

func (d *decoder) ttl(n *node) *api.TimeToLiveSpecification {
	if !d.object(n, "TimeToLiveSpecification", "Enabled", "AttributeName") {
		return nil
	}
	d.required(n.get("Enabled"), n, "Enabled")
	return &api.TimeToLiveSpecification{
		Enabled:       d.boolean(n.get("Enabled"), "Enabled"),
		AttributeName: d.str(n.get("AttributeName"), "AttributeName"),
	}
}

func (d *decoder) pitr(n *node) *api.PointInTimeRecoverySpecification {
	if !d.object(n, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled", "RecoveryPeriodInDays") {
		return nil
	}
	return &api.PointInTimeRecoverySpecification{
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
	sp := spec.TableSpec{Account: s.account, Region: s.region, Pos: r.def.pos, Source: "Resources." + r.id, AccountFrom: s.accountFrom}
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
		"DeletionProtectionEnabled", "TableClass", "TableName", "Tags", "ResourcePolicy", "ImportSourceSpecification",
		"VectorIndexes")
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
		g := api.GlobalSecondaryIndex{
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
	c.VectorIndexes = d.vectorIndexes(props.get("VectorIndexes"))
	if n := props.get("StreamSpecification"); d.object(n, "StreamSpecification", "StreamViewType", "ResourcePolicy") {
		d.required(n.get("StreamViewType"), n, "StreamViewType")
		c.StreamSpecification = &api.StreamSpecification{StreamEnabled: spec.Bool(true), StreamViewType: d.str(n.get("StreamViewType"), "StreamViewType")}
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
		c.SSESpecification = &api.SSESpecification{
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
	c.AttributeDefinitions = []api.AttributeDefinition{{AttributeName: spec.Str(keyName), AttributeType: spec.Str(keyType)}}
	c.KeySchema = []api.KeySchemaElement{{AttributeName: spec.Str(keyName), KeyType: spec.Str("HASH")}}
	if n := props.get("ProvisionedThroughput"); n != nil {
		c.BillingMode = spec.Str("PROVISIONED")
		c.ProvisionedThroughput = d.throughput(n)
	} else {
		c.BillingMode = spec.Str("PAY_PER_REQUEST")
	}
	if n := props.get("SSESpecification"); d.object(n, "SSESpecification", "SSEEnabled", "SSEType", "KMSMasterKeyId") {
		c.SSESpecification = &api.SSESpecification{
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
	out.Create.GlobalSecondaryIndexes = append([]api.GlobalSecondaryIndex(nil), s.Create.GlobalSecondaryIndexes...)
	out.Create.Tags = append([]api.Tag(nil), s.Create.Tags...)
	return out
}

// importSource reads ImportSourceSpecification: the table is created by
// ImportTable from the S3 stand-in.
func (d *decoder) importSource(n *node) *api.ImportTableInput {
	const p = "ImportSourceSpecification"
	if !d.object(n, p, "S3BucketSource", "InputFormat", "InputCompressionType", "InputFormatOptions") {
		return nil
	}
	d.required(n.get("S3BucketSource"), n, p+".S3BucketSource")
	d.required(n.get("InputFormat"), n, p+".InputFormat")
	in := &api.ImportTableInput{InputFormat: d.str(n.get("InputFormat"), p+".InputFormat"),
		InputCompressionType: d.str(n.get("InputCompressionType"), p+".InputCompressionType"), S3BucketSource: &api.S3BucketSource{}}
	if src := n.get("S3BucketSource"); d.object(src, p+".S3BucketSource", "S3Bucket", "S3BucketOwner", "S3KeyPrefix") {
		d.required(src.get("S3Bucket"), src, p+".S3BucketSource.S3Bucket")
		in.S3BucketSource = &api.S3BucketSource{S3Bucket: d.str(src.get("S3Bucket"), p+".S3BucketSource.S3Bucket"),
			S3BucketOwner: d.str(src.get("S3BucketOwner"), p+".S3BucketSource.S3BucketOwner"),
			S3KeyPrefix:   d.str(src.get("S3KeyPrefix"), p+".S3BucketSource.S3KeyPrefix")}
	}
	if o := n.get("InputFormatOptions"); d.object(o, p+".InputFormatOptions", "Csv") {
		if c := o.get("Csv"); d.object(c, p+".InputFormatOptions.Csv", "Delimiter", "HeaderList") {
			in.InputFormatOptions = &api.InputFormatOptions{Csv: &api.CsvOptions{
				Delimiter:  d.str(c.get("Delimiter"), p+".InputFormatOptions.Csv.Delimiter"),
				HeaderList: d.strList(c.get("HeaderList"), p+".InputFormatOptions.Csv.HeaderList")}}
		}
	}
	return in
}
